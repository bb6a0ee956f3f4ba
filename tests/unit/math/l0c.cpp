// L0C fractal geometry, MAD addressability and accumulator packing (FL-64, FL-65, CT-19,
// CT-21, BK-02).
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <doctest/doctest.h>

#include "tilewright/math/l0c.hpp"

namespace m = tilewright::math;
using pair = std::array<std::int64_t, 2>;
constexpr auto sym = std::nullopt;

static_assert(m::k_acc_fractal_bytes == 1024);  // BK-06: 16x16 of 4-byte elements

// Block (r_b, c_b) of [M, N] at (c_b*M/16 + r_b)*1024 bytes.
static_assert(m::l0c_block_offset(32, 0, 0) == 0);     // FL-64 / seed 003
static_assert(m::l0c_block_offset(32, 1, 0) == 1024);  // FL-64
static_assert(m::l0c_block_offset(32, 0, 1) ==
              2048);  // FL-64: next block column after M/16 = 2 blocks
static_assert(m::l0c_block_offset(48, 2, 3) == (3 * 3 + 2) * 1024);  // FL-64
static_assert(!m::l0c_block_offset(24, 0, 0));                       // parent not whole blocks tall
static_assert(!m::l0c_block_offset(32, 2, 0));                       // r_b out of range
static_assert(m::l0c_element_offset(32, 17, 18) ==
              3 * 1024 + (1 * 16 + 2) * 4);  // FL-64: block (1,1) of a 32-row tile

// Column-packed pages: page b of a [16, B*32] FP32 accumulator starts at b*2048 bytes.
static_assert(m::l0c_window_offset(16, 64, 0, 32).value() == 2048);  // FL-64 page 1
static_assert(m::l0c_window_offset(32, 64, 0, 32).value() ==
              4096);  // FL-64 two block rows per column
static_assert(m::l0c_window_offset(32, 64, 16, 0).value() ==
              1024);  // row origin inside the first block column

// CT-19 / CT-21 / FL-65: which accumulator windows the MAD can write.
static_assert(!m::mad_can_address({16, 32, 0, 32}));  // CT-21: [32,32] / [16,32] @ [16,0] → reject
static_assert(m::mad_can_address({16, 32, 32,
                                  16}));  // CT-21: [16,64] / [16,32] @ [0,32] → full rows
static_assert(m::mad_can_address({16, 16, 0,
                                  32}));  // CT-21: [32,16] / [16,16] @ [16,0] → one block column
static_assert(!m::mad_can_address({16, 16, 8,
                                   32}));  // CT-21: [32,32] / [16,16] @ [16,8] → straddles
static_assert(m::mad_can_address({16, 16, 16,
                                  48}));  // FL-65: [48,32] / [16,16] window is addressable
static_assert(!m::mad_can_address({16, 16, sym,
                                   32}));         // CT-19: dynamic column offset cannot be proven
static_assert(m::fits_one_block_column(8, 8));    // CT-19: columns 8..15
static_assert(!m::fits_one_block_column(17, 0));  // CT-19: wider than a block

// FL-64b / BK-02 column packing.
static_assert(m::column_pack_accumulator(2, 16, 32, 32, m::byte_budget::unlimited()).value().cols ==
              64);  // FL-64b
static_assert(m::column_pack_accumulator(4, 64, 128, 32,
                                         m::budget_of(m::backend_kind::ascend910b,
                                                      m::MemorySpace::Acc))
                  .value()
                  .bytes == 131072);  // BK-02: fits 910B exactly
static_assert(!m::column_pack_accumulator(8, 64, 128, 32,
                                          m::budget_of(m::backend_kind::ascend910b,
                                                       m::MemorySpace::Acc)));  // BK-02
static_assert(m::column_pack_accumulator(8, 64, 128, 32,
                                         m::budget_of(m::backend_kind::ascend950,
                                                      m::MemorySpace::Acc)));  // BK-02
static_assert(
    m::column_pack_accumulator(2, 8, 16, 32, m::byte_budget::unlimited()).error().code ==
    m::acc_pack_errc::rows_not_block_multiple);  // FL-64c: M=8,B=2,N=16 falls back to row packing
static_assert(m::packed_page_origin(3, 24) == pair{0, 72});  // FL-59: page b at [0, b*N]

// FL-65 logical row windows.
static_assert(m::pack_row_windows(32, 32, 16).value().cols == 64);  // FL-65: [32,32] → [16,64]
static_assert(m::pack_row_windows(32, 32, 16).value().tiles == 2);  // FL-65
static_assert(m::packed_window_origin(16, 0, 16, 32).value() ==
              pair{0, 32});  // FL-65: (16,0) → (0,32)
static_assert(m::packed_window_origin(48, 5, 16, 32).value() ==
              pair{0, 101});  // FL-65: (48/16)*32 + 5

TEST_CASE("FL-64d column packing reasons carry their numbers") {
  const auto unlimited = m::byte_budget::unlimited();
  const auto n24 = m::column_pack_accumulator(2, 16, 24, 32, unlimited);
  REQUIRE_FALSE(n24.has_value());
  CHECK(m::acc_pack_reason(n24.error(), "FP32") ==
        "the page column extent N=24 is not a multiple of 16");

  const auto m8 = m::column_pack_accumulator(2, 8, 16, 32, unlimited);
  REQUIRE_FALSE(m8.has_value());
  CHECK(m::acc_pack_reason(m8.error(), "FP32") ==
        "the page row extent M=8 is not a multiple of 16");

  const auto fp16 = m::column_pack_accumulator(2, 16, 16, 16, unlimited);
  REQUIRE_FALSE(fp16.has_value());
  CHECK(
      m::acc_pack_reason(fp16.error(), "FP16") ==
      "the accumulator element is not 4 bytes wide (FP16), so its L0C tile has no 16x16 box grid");

  const auto big = m::column_pack_accumulator(
      8, 64, 128, 32, m::budget_of(m::backend_kind::ascend910b, m::MemorySpace::Acc));
  REQUIRE_FALSE(big.has_value());
  CHECK(big.error().bytes == 262144);
  CHECK(m::acc_pack_reason(big.error(), "FP32") ==
        "the packed accumulator needs 262144 bytes of Acc (L0C), which exceeds the 131072-byte "
        "budget this "
        "target has");
}

TEST_CASE("FL-64b element width is judged before the extents") {
  const auto both = m::column_pack_accumulator(2, 8, 24, 16, m::byte_budget::unlimited());
  REQUIRE_FALSE(both.has_value());
  CHECK(both.error().code == m::acc_pack_errc::element_not_4_bytes);
  CHECK(m::column_pack_accumulator(0, 16, 16, 32, m::byte_budget::unlimited()).error().code ==
        m::acc_pack_errc::non_positive);
  constexpr std::int64_t huge = std::int64_t{1} << 40;
  CHECK(m::column_pack_accumulator(huge, huge, 16, 32, m::byte_budget::unlimited()).error().code ==
        m::acc_pack_errc::overflow);
}

TEST_CASE("FL-65 row windows must divide the parent and start on a window boundary") {
  const auto uneven = m::pack_row_windows(48, 32, 32);
  REQUIRE_FALSE(uneven.has_value());
  CHECK(m::row_window_message(uneven.error()) ==
        "matmul_acc accumulator row windows must evenly divide the parent row extent; got 32 rows "
        "in a 48-row "
        "accumulator");
  const auto misaligned = m::packed_window_origin(8, 0, 16, 32);
  REQUIRE_FALSE(misaligned.has_value());
  CHECK(misaligned.error().code == m::row_window_errc::row_offset_not_aligned);
  CHECK(misaligned.error().row_offset == 8);
  CHECK(m::pack_row_windows(32, 32, 0).error().code == m::row_window_errc::non_positive);
}

TEST_CASE("CT-19 window byte offsets need whole blocks and an aligned column origin") {
  CHECK(m::l0c_window_offset(24, 32, 0, 0).error().code ==
        m::l0c_window_errc::parent_rows_not_block_multiple);
  CHECK(m::l0c_window_offset(32, 24, 0, 0).error().code ==
        m::l0c_window_errc::parent_cols_not_block_multiple);
  const auto straddle = m::l0c_window_offset(32, 32, 0, 8);
  REQUIRE_FALSE(straddle.has_value());
  CHECK(straddle.error().code == m::l0c_window_errc::column_origin_not_block_aligned);
  CHECK(straddle.error().value == 8);
  CHECK(m::l0c_window_offset(32, 32, 0, 32).error().code ==
        m::l0c_window_errc::origin_out_of_bounds);
  CHECK(m::l0c_window_offset(32, 32, 32, 0).error().code ==
        m::l0c_window_errc::origin_out_of_bounds);
}
