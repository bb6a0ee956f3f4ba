// Backend capacity tables (ir_ops.md §D.1, catalog §5).
#include <cstdint>

#include <doctest/doctest.h>

#include "tilewright/math/capacity.hpp"

namespace m = tilewright::math;
using m::backend_kind;
using m::memory_space;

static_assert(m::memory_size(backend_kind::ascend910b, memory_space::mat) ==
              524288);                                                                // D.1 / BK-01
static_assert(m::memory_size(backend_kind::ascend950, memory_space::mat) == 524288);  // D.1 / BK-01
static_assert(m::memory_size(backend_kind::ascend910b, memory_space::acc) ==
              131072);                                                                // D.1 / BK-02
static_assert(m::memory_size(backend_kind::ascend950, memory_space::acc) == 262144);  // D.1 / BK-02
static_assert(m::memory_size(backend_kind::ascend910b, memory_space::left) == 65536);  // D.1
static_assert(m::memory_size(backend_kind::ascend950, memory_space::right) == 65536);  // D.1
static_assert(m::memory_size(backend_kind::ascend910b, memory_space::bias) == 1024);   // D.1
static_assert(m::memory_size(backend_kind::ascend950, memory_space::bias) == 4096);    // D.1
static_assert(m::memory_size(backend_kind::ascend910b, memory_space::vec) ==
              188416);  // D.1 / BK-05: 184 KiB usable
static_assert(m::memory_of(backend_kind::ascend910b, memory_space::vec).physical_bytes ==
              196608);  // D.1: 192 KiB
static_assert(m::memory_size(backend_kind::ascend950, memory_space::vec) ==
              245760);  // D.1 / BK-05: 240 KiB usable
static_assert(m::memory_of(backend_kind::ascend950, memory_space::vec).physical_bytes ==
              253952);  // D.1: 248 KiB
static_assert(m::memory_size(backend_kind::ascend910b, memory_space::left_scale) ==
              0);  // D.1: absent on 910B
static_assert(m::memory_size(backend_kind::ascend950, memory_space::left_scale) == 4096);  // D.1
static_assert(m::memory_of(backend_kind::ascend950, memory_space::right_scale).alignment_bytes ==
              32);  // D.1
static_assert(m::memory_of(backend_kind::ascend910b, memory_space::mat).alignment_bytes ==
              128);  // D.1
static_assert(m::memory_of(backend_kind::ascend910b, memory_space::left).alignment_bytes ==
              64);  // D.1

// "No backend" means unlimited (BK-01, BK-02), and so does a reported size of 0 (FL-64b).
static_assert(m::budget_of(backend_kind::none, memory_space::mat).is_unlimited());    // BK-01
static_assert(m::budget_of(backend_kind::none, memory_space::acc).fits(UINT64_MAX));  // BK-02
static_assert(
    m::budget_of(backend_kind::ascend910b, memory_space::left_scale).is_unlimited());  // FL-64b

TEST_CASE("BK-01 whole-operand Mat gate on both targets") {
  // [4,128,256] FP16 + [4,256,256] FP16 = 786432 bytes > 512 KiB.
  constexpr std::uint64_t lhs = 4ULL * 128 * 256 * 2;
  constexpr std::uint64_t rhs = 4ULL * 256 * 256 * 2;
  CHECK_FALSE(m::budget_of(backend_kind::ascend910b, memory_space::mat).fits(lhs + rhs));
  CHECK_FALSE(m::budget_of(backend_kind::ascend950, memory_space::mat).fits(lhs + rhs));
  CHECK(m::budget_of(backend_kind::none, memory_space::mat).fits(lhs + rhs));
  CHECK(m::budget_of(backend_kind::ascend910b, memory_space::mat).fits(lhs));
}

TEST_CASE("D.1 DDR and ScalarLocal carry no on-chip capacity") {
  CHECK(m::memory_size(backend_kind::ascend910b, memory_space::ddr) == 0);
  CHECK(m::memory_size(backend_kind::ascend950, memory_space::scalar_local) == 0);
  CHECK(m::memory_size(backend_kind::none, memory_space::vec) == 0);
}
