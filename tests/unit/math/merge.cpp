// Merged shapes, merged valid shapes, offset collapse and row-band contiguity (FL-09..FL-12).
#include <array>
#include <cstdint>
#include <limits>
#include <optional>

#include <doctest/doctest.h>

#include "tilewright/math/merge.hpp"

namespace m = tilewright::math;
using m::dims;
using m::maybe_dims;
using pair = std::array<std::int64_t, 2>;
constexpr auto sym = std::nullopt;

static_assert(m::merged_shape(dims{2, 3, 4}).value() == pair{6, 4});         // FL-09
static_assert(m::merged_shape(dims{2, 3, 4, 5}).value() == pair{24, 5});     // FL-09
static_assert(m::merged_shape(dims{2, 2, 2, 2, 4}).value() == pair{16, 4});  // FL-09
static_assert(m::merged_shape(dims{4, 2, 8}).value() == pair{8, 8});         // FL-09
static_assert(m::merged_shape(dims{3, 4, 5}).value() == pair{12, 5});        // FL-09
static_assert(m::merged_shape(dims{1, 16, 512}).value() == pair{16, 512});   // FL-09
static_assert(m::merged_shape(dims{64}).value() == pair{1, 64});  // FL-09: rank 1 is one row
static_assert(m::merged_shape(maybe_dims{2, 3, 4}).value() == pair{6, 4});  // FL-09

// FL-10: the constant part and the symbolic axes of the merged valid row.
static_assert(m::merge_valid_shape(maybe_dims{1, sym, 512}).value().constant ==
              1);  // FL-10 [1,S,512]→[S,512]
static_assert(m::merge_valid_shape(maybe_dims{1, sym, 512}).value().symbolic_axes.size() ==
              1);  // FL-10
static_assert(m::merge_valid_shape(maybe_dims{1, 10, 512}).value().constant ==
              10);  // FL-10 no widening
static_assert(m::merge_valid_shape(maybe_dims{1, 10, 512}).value().is_static());  // FL-10
static_assert(m::merge_valid_shape(maybe_dims{2, sym, 512}).value().constant ==
              2);  // FL-10 [2,S,512]→[2*S,512]
static_assert(m::merge_valid_shape(maybe_dims{sym, sym, 8}).value().symbolic_axes.size() ==
              2);  // FL-10 [S,T,8]→[S*T,8]
static_assert(m::merge_valid_shape(maybe_dims{sym, sym, 8}).value().last == 8);  // FL-10

// FL-11: offsets collapse over the container's extents.
static_assert(m::collapse_offset(dims{2, 0, 0}, dims{4, 8, 16}).value() == pair{16, 0});    // FL-11
static_assert(m::collapse_offset(dims{1, 0, 0}, dims{2, 16, 128}).value() == pair{16, 0});  // FL-11
static_assert(m::collapse_offset(dims{1, 0, 0}, dims{2, 4, 5}).value() == pair{4, 0});      // FL-11
static_assert(m::collapse_offset(dims{1, 2, 3, 7}, dims{2, 3, 4, 8}).value() ==
              pair{23, 7});  // FL-11: (1*3+2)*4+3
static_assert(m::collapse_offset(dims{0, 0, 0}, dims{4, 8, 16}).value() ==
              pair{0, 0});  // FL-28 zero offset

// FL-12: the valid sub-box is one row band after the merge.
static_assert(m::is_row_major_collapse_contiguous(dims{1, 16, 128}, dims{2, 16, 128}));  // FL-12 ✓
static_assert(m::is_row_major_collapse_contiguous(dims{2, 16, 128}, dims{2, 16, 128}));  // FL-12 ✓
static_assert(!m::is_row_major_collapse_contiguous(dims{2, 2, 5}, dims{2, 4, 5}));    // FL-12 ✗
static_assert(!m::is_row_major_collapse_contiguous(dims{2, 4, 16}, dims{4, 8, 16}));  // FL-12 ✗
static_assert(m::is_row_major_collapse_contiguous(dims{1, 8, 16}, dims{4, 8, 16}));   // FL-12 ✓
static_assert(m::is_row_major_collapse_contiguous(dims{2, 3},
                                                  dims{4, 8, 16}));  // FL-12: rank mismatch → true
static_assert(m::is_row_major_collapse_contiguous(
    dims{1, 1, 3, 4, 8}, dims{2, 2, 4, 4, 8}));  // FL-12 singletons, one boundary, full
static_assert(!m::is_row_major_collapse_contiguous(dims{1, 2, 1, 8},
                                                   dims{2, 4, 2,
                                                        8}));  // FL-12 partial after the boundary

// FL-12 core over classified axes (the IR layer's entry point).
static_assert(m::is_row_major_collapse_contiguous(std::array<m::axis_cover, 3>{
    m::axis_cover{true, false}, m::axis_cover{false, false}, m::axis_cover{false, true}}));
static_assert(!m::is_row_major_collapse_contiguous(std::array<m::axis_cover, 2>{
    m::axis_cover{false, false}, m::axis_cover{false, false}}));

TEST_CASE("FL-09 merged shape rejects symbolic, non-positive and overflowing extents") {
  const auto symbolic = m::merged_shape(maybe_dims{2, sym, 4});
  REQUIRE_FALSE(symbolic.has_value());
  CHECK(symbolic.error().code == m::merge_errc::symbolic_dim);
  CHECK(symbolic.error().axis == 1);

  const auto symbolic_last = m::merged_shape(maybe_dims{2, 3, sym});
  REQUIRE_FALSE(symbolic_last.has_value());
  CHECK(symbolic_last.error().axis == 2);

  const auto zero = m::merged_shape(dims{2, 0, 4});
  REQUIRE_FALSE(zero.has_value());
  CHECK(zero.error().code == m::merge_errc::non_positive_dim);
  CHECK(zero.error().axis == 1);
  CHECK(zero.error().dim == 0);

  constexpr std::int64_t big = std::int64_t{1} << 40;
  const auto overflow = m::merged_shape(dims{big, big, 4});
  REQUIRE_FALSE(overflow.has_value());
  CHECK(overflow.error().code == m::merge_errc::overflow);
  CHECK(overflow.error().merged == big);
  CHECK(overflow.error().dim == big);

  CHECK(m::merged_shape(dims{}).error().code == m::merge_errc::rank_below_one);
}

TEST_CASE("FL-10 merged valid shape reports constant-factor overflow") {
  constexpr std::int64_t big = std::int64_t{1} << 40;
  const auto r = m::merge_valid_shape(maybe_dims{big, sym, big, 8});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == m::merge_errc::overflow);
  CHECK(r.error().axis == 2);
  const auto ok = m::merge_valid_shape(maybe_dims{sym, 3, sym, 8}).value();
  CHECK(ok.constant == 3);
  REQUIRE(ok.symbolic_axes.size() == 2);
  CHECK(ok.symbolic_axes[0] == 0);
  CHECK(ok.symbolic_axes[1] == 2);
}

TEST_CASE("FL-11 offset collapse distinguishes multiply and add overflow") {
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const auto mul = m::collapse_offset(dims{max, 0, 0}, dims{1, 2, 1});
  REQUIRE_FALSE(mul.has_value());
  CHECK(mul.error().code == m::merge_errc::offset_mul_overflow);
  const auto add = m::collapse_offset(dims{max, 1, 0}, dims{1, 1, 1});
  REQUIRE_FALSE(add.has_value());
  CHECK(add.error().code == m::merge_errc::offset_add_overflow);
  const auto rank = m::collapse_offset(dims{1, 0}, dims{2, 4, 5});
  REQUIRE_FALSE(rank.has_value());
  CHECK(rank.error().code == m::merge_errc::rank_mismatch);
}
