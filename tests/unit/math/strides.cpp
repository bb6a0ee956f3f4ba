// Packed strides per layout, blocked NZ, layout derivation and the canonical-view check
// (TVS-02..TVS-05, MT-03, MT-04, MT-08).
#include <cstdint>
#include <optional>
#include <string>

#include <doctest/doctest.h>

#include "tilewright/math/strides.hpp"

namespace m = tilewright::math;
using m::dims;
using m::maybe_dims;
using m::TensorLayout;
constexpr auto sym = std::nullopt;

// ND / row-major.
static_assert(m::row_major_strides(dims{8, 16}).value() == dims{16, 1});       // TVS-02, MT-04
static_assert(m::row_major_strides(dims{2, 4, 8}).value() == dims{32, 8, 1});  // TVS-02, MT-04
static_assert(m::row_major_strides(dims{}).value() == dims{});  // TVS-02: empty → []
static_assert(m::logical_strides(dims{2, 4, 8}, TensorLayout::ND).value() ==
              dims{32, 8, 1});  // TVS-03
static_assert(m::logical_strides(dims{2, 4, 8}, TensorLayout::MX_A_ZZ).value() ==
              dims{32, 8, 1});  // MT-04: MX row-major

// DN.
static_assert(m::dn_strides(dims{4, 8}).value() == dims{1, 4});                // MT-03, TVS-03
static_assert(m::dn_strides(dims{2, 4, 8}).value() == dims{32, 1, 4});         // MT-03, TVS-03
static_assert(m::dn_strides(dims{2, 3, 4, 8}).value() == dims{96, 32, 1, 4});  // MT-03, TVS-03
static_assert(m::logical_strides(dims{4, 8}, TensorLayout::DN).value() == dims{1, 4});    // TVS-03
static_assert(m::dn_strides(dims{8}).error().code == m::strides_errc::dn_rank_below_two);  // TVS-03

// Blocked NZ (seed 001).
static_assert(m::nz_c0(4) == 8 && m::nz_c0(2) == 16 &&
              m::nz_c0(1) == 32);                    // MT-08: c0 per element width
static_assert(m::nz_c0(m::DataType::BF16) == 16);  // MT-08
static_assert(!m::nz_c0(m::DataType::INT4));       // MT-08: sub-byte has no NZ line
static_assert(m::blocked_nz_shape(dims{256, 512}, 1).value() ==
              dims{1, 16, 16, 16, 32});  // MT-08 INT8
static_assert(m::blocked_nz_shape(dims{64, 128}, 2).value() ==
              dims{1, 8, 4, 16, 16});  // MT-08 FP16
static_assert(m::blocked_nz_shape(dims{3, 64, 128}, 2).value() ==
              dims{3, 8, 4, 16, 16});  // MT-08 batch
static_assert(m::row_major_strides(dims{1, 16, 16, 16, 32}).value() ==
              dims{131072, 8192, 512, 32, 1});  // MT-08
static_assert(m::logical_strides(dims{1, 8, 4, 16, 16}, TensorLayout::NZ, 2).value() ==
              dims{8192, 1024, 256, 16, 1});                        // MT-08
static_assert(m::is_blocked_nz_shape(dims{1, 16, 16, 16, 32}, 1));  // MT-08
static_assert(!m::is_blocked_nz_shape(dims{1, 16, 16, 16, 32},
                                      2));  // MT-08: c0 must match the dtype
static_assert(!m::is_blocked_nz_shape(dims{16, 16, 16, 32},
                                      1));  // MT-08: rank-4 is not the seed's form
static_assert(m::is_blocked_nz_shape(maybe_dims{sym, sym, 4, 16, 16},
                                     2));  // MT-08: block counts may be symbolic
static_assert(m::logical_strides(dims{256, 512}, TensorLayout::NZ, 1).error().code ==
              m::strides_errc::nz_not_blocked);  // MT-08: unblocked NZ

// Layout derivation.
static_assert(m::derive_layout(maybe_dims{8, 16}, maybe_dims{16, 1}) ==
              TensorLayout::ND);  // TVS-04
static_assert(m::derive_layout(maybe_dims{4, 8}, maybe_dims{16, 1}) ==
              TensorLayout::ND);                                                          // TVS-04
static_assert(m::derive_layout(maybe_dims{4, 8}, maybe_dims{1, 4}) == TensorLayout::DN);  // TVS-04
static_assert(m::derive_layout(maybe_dims{2, 4}, maybe_dims{1, 8}) == TensorLayout::DN);  // TVS-04
static_assert(!m::derive_layout(maybe_dims{2, 4}, maybe_dims{2, 4}));                      // TVS-04
static_assert(!m::derive_layout(maybe_dims{2, 4}, maybe_dims{1}));  // TVS-04: rank mismatch
static_assert(!m::derive_layout(maybe_dims{}, maybe_dims{}));       // TVS-04: empty

// Canonical views.
static_assert(m::check_canonical_view(maybe_dims{4, 8}, maybe_dims{16, 1}, TensorLayout::ND)
                  .ok());  // TVS-05 strided ND
static_assert(m::check_canonical_view(maybe_dims{2, 4}, maybe_dims{1, 4}, TensorLayout::DN)
                  .ok());  // TVS-05 strided DN
static_assert(m::check_canonical_view(maybe_dims{sym, sym}, maybe_dims{1, sym}, TensorLayout::DN)
                  .ok());  // VC-05 symbolic DN
static_assert(
    m::check_canonical_view(maybe_dims{}, maybe_dims{}, TensorLayout::ND).ok());  // TVS-05 rank 0

namespace {
std::string reason(const maybe_dims& shape, const maybe_dims& stride, TensorLayout layout,
                   bool relaxed = true) {
  return m::view_reason_text(m::check_canonical_view(shape, stride, layout, relaxed));
}
}  // namespace

TEST_CASE("TVS-03 DN below rank 2 names the rank and the key phrase") {
  const auto r = m::dn_strides(dims{8});
  REQUIRE_FALSE(r.has_value());
  const std::string text = m::dn_rank_message(r.error());
  CHECK(text == "BuildLogicalStridesFromLayout: DN layout requires rank >= 2, got 1");
  CHECK(text.find("rank >= 2") != std::string::npos);
}

TEST_CASE("TVS-02 stride overflow is an error value") {
  constexpr std::int64_t big = std::int64_t{1} << 32;
  const auto r = m::row_major_strides(dims{2, big, big});
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().code == m::strides_errc::overflow);
  CHECK(r.error().axis == 0);
  CHECK(m::dn_strides(dims{2, big, big}).error().code == m::strides_errc::overflow);
}

TEST_CASE("MT-08 blocked NZ shape rejects unaligned logical shapes with the numbers") {
  const auto rows = m::blocked_nz_shape(dims{24, 32}, 2);
  REQUIRE_FALSE(rows.has_value());
  CHECK(rows.error().code == m::nz_block_errc::rows_not_fractal_multiple);
  CHECK(rows.error().extent == 24);
  CHECK(rows.error().divisor == 16);
  const auto cols = m::blocked_nz_shape(dims{32, 20}, 4);
  REQUIRE_FALSE(cols.has_value());
  CHECK(cols.error().code == m::nz_block_errc::cols_not_c0_multiple);
  CHECK(cols.error().divisor == 8);
  CHECK(m::blocked_nz_shape(dims{16}, 2).error().code == m::nz_block_errc::rank_below_two);
  CHECK(m::blocked_nz_shape(dims{16, 32}, 3).error().code == m::nz_block_errc::no_c0_line);
  CHECK(m::blocked_nz_shape(dims{0, 16, 32}, 2).error().code == m::nz_block_errc::non_positive_dim);
}

TEST_CASE("TVS-05 reasons are the catalog's strings") {
  CHECK(reason({4, 8}, {}, TensorLayout::ND) ==
        "stride is empty (must be materialized via MaterializeTensorStrides)");
  CHECK(reason({4, 8}, {8, 1, 1}, TensorLayout::ND) ==
        "stride rank 3 does not match shape rank 2");
  CHECK(reason({4, 8}, {8, 2}, TensorLayout::ND) ==
        "ND layout requires innermost stride to be ConstInt(1)");
  CHECK(reason({4, 8}, {4, 1}, TensorLayout::ND) ==
        "ND stride[0] is smaller than packed stride[1] * shape[1]");
  CHECK(reason({2, 4, 8}, {40, 4, 1}, TensorLayout::ND) ==
        "ND stride[1] is smaller than packed stride[2] * shape[2]");
  CHECK(reason({4, sym}, {sym, 1}, TensorLayout::ND, false) ==
        "ND outer-dim stride relation is symbolic and cannot be statically verified");
  CHECK(reason({8}, {1}, TensorLayout::DN) == "DN layout requires rank >= 2");
  CHECK(reason({4, 8}, {4, 1}, TensorLayout::DN) ==
        "DN layout requires stride[-2] to be ConstInt(1)");
  CHECK(reason({4, 8}, {1, 2}, TensorLayout::DN) == "DN stride[-1] is smaller than shape[-2]");
  CHECK(reason({sym, 8}, {1, 4}, TensorLayout::DN, false) ==
        "DN trailing-stride relation is symbolic and cannot be statically verified");
  // The DN outer relation compares against stride[1] * shape[1] = 1 * 4, as upstream does.
  CHECK(reason({2, 4, 8}, {2, 1, 4}, TensorLayout::DN) ==
        "DN stride[0] is smaller than packed stride[1] * shape[1]");
  CHECK(reason({2, 4, 8}, {4, 1, 4}, TensorLayout::DN) == "");
  CHECK(reason({sym, 4, 8}, {sym, 1, 4}, TensorLayout::DN, false) ==
        "DN outer-dim stride relation is symbolic and cannot be statically verified");
  // Relaxed mode accepts what it cannot decide.
  CHECK(reason({sym, 4, 8}, {sym, 1, 4}, TensorLayout::DN) == "");
  // Blocked NZ is checked with the row-major rules under its own name.
  CHECK(reason({1, 8, 4, 16, 16}, {8192, 1024, 256, 16, 2}, TensorLayout::NZ) ==
        "NZ layout requires innermost stride to be ConstInt(1)");
}

TEST_CASE("TVS-05 packed strides of every layout are canonical") {
  const auto nd = m::row_major_strides(dims{2, 4, 8}).value();
  CHECK(
      m::check_canonical_view(m::to_maybe(dims{2, 4, 8}), m::to_maybe(nd), TensorLayout::ND).ok());
  const auto dn = m::dn_strides(dims{2, 3, 4, 8}).value();
  CHECK(m::check_canonical_view(m::to_maybe(dims{2, 3, 4, 8}), m::to_maybe(dn), TensorLayout::DN)
            .ok());
}
