// Backend capacity tables (ir_ops.md §D.1, catalog §5).
#include <cstdint>

#include <doctest/doctest.h>

#include "tilewright/math/capacity.hpp"

namespace m = tilewright::math;
using m::backend_kind;
using m::MemorySpace;

static_assert(m::memory_size(backend_kind::ascend910b, MemorySpace::Mat) ==
              524288);                                                                // D.1 / BK-01
static_assert(m::memory_size(backend_kind::ascend950, MemorySpace::Mat) == 524288);  // D.1 / BK-01
static_assert(m::memory_size(backend_kind::ascend910b, MemorySpace::Acc) ==
              131072);                                                                // D.1 / BK-02
static_assert(m::memory_size(backend_kind::ascend950, MemorySpace::Acc) == 262144);  // D.1 / BK-02
static_assert(m::memory_size(backend_kind::ascend910b, MemorySpace::Left) == 65536);  // D.1
static_assert(m::memory_size(backend_kind::ascend950, MemorySpace::Right) == 65536);  // D.1
static_assert(m::memory_size(backend_kind::ascend910b, MemorySpace::Bias) == 1024);   // D.1
static_assert(m::memory_size(backend_kind::ascend950, MemorySpace::Bias) == 4096);    // D.1
static_assert(m::memory_size(backend_kind::ascend910b, MemorySpace::Vec) ==
              188416);  // D.1 / BK-05: 184 KiB usable
static_assert(m::memory_of(backend_kind::ascend910b, MemorySpace::Vec).physical_bytes ==
              196608);  // D.1: 192 KiB
static_assert(m::memory_size(backend_kind::ascend950, MemorySpace::Vec) ==
              245760);  // D.1 / BK-05: 240 KiB usable
static_assert(m::memory_of(backend_kind::ascend950, MemorySpace::Vec).physical_bytes ==
              253952);  // D.1: 248 KiB
static_assert(m::memory_size(backend_kind::ascend910b, MemorySpace::LeftScale) ==
              0);  // D.1: absent on 910B
static_assert(m::memory_size(backend_kind::ascend950, MemorySpace::LeftScale) == 4096);  // D.1
static_assert(m::memory_of(backend_kind::ascend950, MemorySpace::RightScale).alignment_bytes ==
              32);  // D.1
static_assert(m::memory_of(backend_kind::ascend910b, MemorySpace::Mat).alignment_bytes ==
              128);  // D.1
static_assert(m::memory_of(backend_kind::ascend910b, MemorySpace::Left).alignment_bytes ==
              64);  // D.1

// "No backend" means unlimited (BK-01, BK-02), and so does a reported size of 0 (FL-64b).
static_assert(m::budget_of(backend_kind::none, MemorySpace::Mat).is_unlimited());    // BK-01
static_assert(m::budget_of(backend_kind::none, MemorySpace::Acc).fits(UINT64_MAX));  // BK-02
static_assert(
    m::budget_of(backend_kind::ascend910b, MemorySpace::LeftScale).is_unlimited());  // FL-64b

TEST_CASE("BK-01 whole-operand Mat gate on both targets") {
  // [4,128,256] FP16 + [4,256,256] FP16 = 786432 bytes > 512 KiB.
  constexpr std::uint64_t lhs = 4ULL * 128 * 256 * 2;
  constexpr std::uint64_t rhs = 4ULL * 256 * 256 * 2;
  CHECK_FALSE(m::budget_of(backend_kind::ascend910b, MemorySpace::Mat).fits(lhs + rhs));
  CHECK_FALSE(m::budget_of(backend_kind::ascend950, MemorySpace::Mat).fits(lhs + rhs));
  CHECK(m::budget_of(backend_kind::none, MemorySpace::Mat).fits(lhs + rhs));
  CHECK(m::budget_of(backend_kind::ascend910b, MemorySpace::Mat).fits(lhs));
}

TEST_CASE("D.1 DDR and ScalarLocal carry no on-chip capacity") {
  CHECK(m::memory_size(backend_kind::ascend910b, MemorySpace::DDR) == 0);
  CHECK(m::memory_size(backend_kind::ascend950, MemorySpace::ScalarLocal) == 0);
  CHECK(m::memory_size(backend_kind::none, MemorySpace::Vec) == 0);
}
