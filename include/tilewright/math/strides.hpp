#pragma once
// Packed logical strides per tensor layout, the blocked NZ shape, layout derivation from
// strides and the canonical-view check (TVS-02..TVS-05, MT-03, MT-04, MT-08).
//
// Strides are in elements. The packing recurrence is written once (packed_strides_into), over
// any element type: constant shapes get integer strides here, and the IR layer runs the same
// code over expressions for symbolic shapes (tensor.view's deduction, MaterializeTensorStrides).
// The canonical-view check, which must reason about symbolic strides, takes maybe_i64 entries.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "tilewright/math/checked.hpp"
#include "tilewright/math/dims.hpp"
#include "tilewright/math/enums.hpp"
#include "tilewright/math/result.hpp"

namespace tilewright::math {

// The NZ fractal: 16 rows of one 32-byte C0 line each.
inline constexpr std::int64_t k_nz_fractal_rows = 16;
inline constexpr std::int64_t k_nz_c0_bytes = 32;
inline constexpr std::size_t k_nz_blocked_rank = 5;

enum class strides_errc : std::uint8_t {
  rank_exceeds_capacity,  // more than k_max_rank extents
  overflow,               // a stride does not fit in int64
  dn_rank_below_two,      // DN needs a trailing pair to swap
  nz_not_blocked,         // NZ strides exist only for the blocked rank-5 shape
};

struct strides_error {
  strides_errc code = strides_errc::overflow;
  std::size_t rank = 0;  // rank of the shape that was asked about
  std::size_t axis = 0;  // overflow: the stride that did not fit
};

// "BuildLogicalStridesFromLayout: DN layout requires rank >= 2, got N" — the wording the
// catalog (TVS-03) pins, including the key phrase "rank >= 2".
[[nodiscard]] inline std::string dn_rank_message(const strides_error& e) {
  return "BuildLogicalStridesFromLayout: DN layout requires rank >= 2, got " +
         std::to_string(e.rank);
}

// TVS-02/TVS-03, MT-03/MT-04: the packing recurrence, for strides of any element type.
// Row-major (ND): the last axis has stride `one`, every outer axis the volume of everything
// inside it. DN stores each trailing [R, C] matrix column by column, so the second-to-last
// axis is the contiguous one, the last strides over one column (R), and outer axes are
// row-major over whole R*C matrices:
//
//   shape  [ B,   R, C ]
//   stride [ R*C, 1, R ]      e.g. [2,4,8] → [32,1,4]; [2,3,4,8] → [96,32,1,4]
//
// `out` has the shape's size (at least 2 for DN: the callers decide what a smaller rank
// means); `mul(a, b)` returns the product as an optional, empty when it does not fit. Returns
// the axis whose stride did not fit, or nothing.
template <class Strides, class Shape, class T, class Mul>
constexpr std::optional<std::size_t> packed_strides_into(Strides& out, const Shape& shape, bool dn,
                                                         const T& one, Mul&& mul) {
  const std::size_t n = out.size();
  if (n == 0) return std::nullopt;
  std::size_t plain;  // the axes below this one follow the row-major step
  if (dn) {
    out[n - 2] = one;
    out[n - 1] = shape[n - 2];
    if (n < 3) return std::nullopt;
    auto block = mul(shape[n - 2], shape[n - 1]);
    if (!block) return n - 3;
    out[n - 3] = std::move(*block);
    plain = n - 3;
  } else {
    out[n - 1] = one;
    plain = n - 1;
  }
  for (std::size_t i = plain; i-- > 0;) {
    auto s = mul(out[i + 1], shape[i + 1]);
    if (!s) return i;
    out[i] = std::move(*s);
  }
  return std::nullopt;
}

namespace detail {
[[nodiscard]] constexpr result<dims, strides_error> integer_strides(std::span<const std::int64_t> shape,
                                                                    bool dn) noexcept {
  const std::size_t n = shape.size();
  if (n > k_max_rank) return strides_error{strides_errc::rank_exceeds_capacity, n, 0};
  if (dn && n < 2) return strides_error{strides_errc::dn_rank_below_two, n, 0};
  dims out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(0);
  auto mul = [](std::int64_t a, std::int64_t b) { return checked_mul(a, b); };
  if (auto axis = packed_strides_into(out, shape, dn, std::int64_t{1}, mul))
    return strides_error{strides_errc::overflow, n, *axis};
  return out;
}
}  // namespace detail

// TVS-02, MT-04: row-major packing. The empty shape has no strides.
[[nodiscard]] constexpr result<dims, strides_error> row_major_strides(
    std::span<const std::int64_t> shape) noexcept {
  return detail::integer_strides(shape, /*dn=*/false);
}

// TVS-03, MT-03: DN packing; a rank below 2 has no trailing pair to swap.
[[nodiscard]] constexpr result<dims, strides_error> dn_strides(
    std::span<const std::int64_t> shape) noexcept {
  return detail::integer_strides(shape, /*dn=*/true);
}

// C0: how many elements fill one 32-byte NZ line (FP32 8, FP16/BF16 16, INT8 32). Element
// widths that do not divide 32 bytes, and sub-byte widths, have no NZ line.
[[nodiscard]] constexpr std::optional<std::int64_t> nz_c0(std::int64_t element_bytes) noexcept {
  if (element_bytes <= 0 || k_nz_c0_bytes % element_bytes != 0) return std::nullopt;
  return k_nz_c0_bytes / element_bytes;
}

[[nodiscard]] constexpr std::optional<std::int64_t> nz_c0(DataType t) noexcept {
  if (bit_width(t) % 8 != 0) return std::nullopt;
  return nz_c0(bit_width(t) / 8);
}

// MT-08: is `shape` the blocked NZ form [B, C/c0, R/16, 16, c0]? Only the two fractal axes
// are fixed numbers; the three block counts may be symbolic but must be positive if known.
[[nodiscard]] constexpr bool is_blocked_nz_shape(std::span<const maybe_i64> shape,
                                                 std::int64_t element_bytes) noexcept {
  const auto c0 = nz_c0(element_bytes);
  if (!c0 || shape.size() != k_nz_blocked_rank) return false;
  for (std::size_t i = 0; i < 3; ++i) {
    if (shape[i] && *shape[i] <= 0) return false;
  }
  return shape[3] == k_nz_fractal_rows && shape[4] == *c0;
}

[[nodiscard]] constexpr bool is_blocked_nz_shape(std::span<const std::int64_t> shape,
                                                 std::int64_t element_bytes) noexcept {
  if (shape.size() != k_nz_blocked_rank) return false;
  return is_blocked_nz_shape(to_maybe(shape), element_bytes);
}

enum class nz_block_errc : std::uint8_t {
  rank_below_two,  // a matrix needs rows and columns
  rank_exceeds_capacity,
  no_c0_line,  // element width does not tile a 32-byte line
  non_positive_dim,
  rows_not_fractal_multiple,  // R % 16 != 0
  cols_not_c0_multiple,       // C % c0 != 0
  overflow,                   // the batch product does not fit
};

struct nz_block_error {
  nz_block_errc code = nz_block_errc::overflow;
  std::size_t axis = 0;      // the offending logical axis
  std::int64_t extent = 0;   // its extent
  std::int64_t divisor = 0;  // 16 or c0 for the two alignment errors
};

// MT-08: blocks a logical [..., R, C] NZ tensor into [B, C/c0, R/16, 16, c0], B being the
// product of the leading axes (1 for a matrix). Row-major strides over this shape reproduce
// pto-isa's NZ addressing: fractal columns outermost, then fractal rows, then one fractal.
[[nodiscard]] constexpr result<dims, nz_block_error> blocked_nz_shape(
    std::span<const std::int64_t> logical, std::int64_t element_bytes) noexcept {
  const std::size_t n = logical.size();
  if (n < 2) return nz_block_error{nz_block_errc::rank_below_two, 0, 0, 0};
  if (n > k_max_rank) return nz_block_error{nz_block_errc::rank_exceeds_capacity, 0, 0, 0};
  const auto c0 = nz_c0(element_bytes);
  if (!c0) return nz_block_error{nz_block_errc::no_c0_line, 0, element_bytes, 0};
  std::int64_t batch = 1;
  for (std::size_t i = 0; i < n; ++i) {
    if (logical[i] <= 0) return nz_block_error{nz_block_errc::non_positive_dim, i, logical[i], 0};
    if (i + 2 < n) {
      const auto next = checked_mul(batch, logical[i]);
      if (!next) return nz_block_error{nz_block_errc::overflow, i, logical[i], 0};
      batch = *next;
    }
  }
  const std::int64_t rows = logical[n - 2];
  const std::int64_t cols = logical[n - 1];
  if (rows % k_nz_fractal_rows != 0) {
    return nz_block_error{nz_block_errc::rows_not_fractal_multiple, n - 2, rows, k_nz_fractal_rows};
  }
  if (cols % *c0 != 0) return nz_block_error{nz_block_errc::cols_not_c0_multiple, n - 1, cols, *c0};
  return dims{batch, cols / *c0, rows / k_nz_fractal_rows, k_nz_fractal_rows, *c0};
}

// TVS-03 (seed 001 variant): packed strides for a layout tag. ND and the MX packs are
// row-major; NZ is row-major too but only over the blocked shape, because an unblocked NZ
// shape has no stride description at all. Blockedness needs the element width.
[[nodiscard]] constexpr result<dims, strides_error> logical_strides(
    std::span<const std::int64_t> shape, TensorLayout layout,
    std::int64_t element_bytes = 0) noexcept {
  switch (layout) {
    case TensorLayout::DN:
      return dn_strides(shape);
    case TensorLayout::NZ:
      if (!is_blocked_nz_shape(shape, element_bytes)) {
        return strides_error{strides_errc::nz_not_blocked, shape.size(), 0};
      }
      return row_major_strides(shape);
    case TensorLayout::ND:
    case TensorLayout::MX_A_ZZ:
    case TensorLayout::MX_B_NN:
      return row_major_strides(shape);
  }
  return row_major_strides(shape);
}

// TVS-04: which layout family do explicit strides describe? A unit innermost stride means
// ND, a unit second-to-last stride means DN; anything else (or a rank mismatch, or rank 0)
// has no derivable layout. Only the unit-stride position is structural, so the stride
// inequalities are left to check_canonical_view.
[[nodiscard]] constexpr std::optional<TensorLayout> derive_layout(
    std::span<const maybe_i64> shape, std::span<const maybe_i64> stride) noexcept {
  const std::size_t n = stride.size();
  if (n == 0 || shape.size() != n) return std::nullopt;
  if (stride[n - 1] == 1) return TensorLayout::ND;
  if (n >= 2 && stride[n - 2] == 1) return TensorLayout::DN;
  return std::nullopt;
}

enum class view_reason : std::uint8_t {
  canonical,
  stride_empty,
  rank_mismatch,
  innermost_not_one,  // ND/NZ/MX
  outer_too_small,    // ND/NZ/MX and DN outer axes
  outer_symbolic,     // strict mode only
  dn_rank_below_two,
  dn_second_last_not_one,
  dn_trailing_too_small,
  dn_trailing_symbolic,  // strict mode only
};

struct view_check {
  view_reason reason = view_reason::canonical;
  TensorLayout layout = TensorLayout::ND;
  std::size_t axis = 0;  // k in "stride[k] is smaller than packed stride[k+1] * shape[k+1]"
  std::size_t stride_rank = 0;
  std::size_t shape_rank = 0;
  [[nodiscard]] constexpr bool ok() const noexcept { return reason == view_reason::canonical; }
};

namespace detail {
// a * b with unknowns and overflow folded to "unknown", the way MakeIndexMul falls back to
// a symbolic product instead of wrapping.
constexpr maybe_i64 mul_or_unknown(const maybe_i64& a, const maybe_i64& b) noexcept {
  if (!a || !b) return std::nullopt;
  return checked_mul(*a, *b);
}
// lhs >= rhs when both are known; nullopt when it cannot be decided.
constexpr std::optional<bool> known_ge(const maybe_i64& lhs, const maybe_i64& rhs) noexcept {
  if (!lhs || !rhs) return std::nullopt;
  return *lhs >= *rhs;
}
}  // namespace detail

// TVS-05: is (shape, stride, layout) a canonical — packed or legally strided — view?
// Strides may exceed the packed value (a sub-view of a larger tensor) but never undercut
// it. A relation that involves a symbolic value passes when `relaxed_symbolic` and fails
// otherwise. `stride_present` separates "no stride written" from "rank-0 stride list".
// NZ and the MX packs are checked with the row-major rules (seed 001: blocked NZ is
// row-major over its rank-5 shape; whether an NZ shape is blocked is is_blocked_nz_shape's
// question, asked separately by the verifier).
[[nodiscard]] constexpr view_check check_canonical_view(std::span<const maybe_i64> shape,
                                                        std::span<const maybe_i64> stride,
                                                        TensorLayout layout,
                                                        bool relaxed_symbolic = true) noexcept {
  view_check out;
  out.layout = layout;
  out.stride_rank = stride.size();
  out.shape_rank = shape.size();
  if (shape.empty() && stride.empty()) return out;
  if (stride.empty()) {
    out.reason = view_reason::stride_empty;
    return out;
  }
  if (shape.size() != stride.size()) {
    out.reason = view_reason::rank_mismatch;
    return out;
  }
  const std::size_t n = shape.size();
  // Shared by both families: stride[k] >= stride[k+1] * shape[k+1] for k = last..0.
  auto check_outer = [&](std::size_t last) -> bool {
    for (std::size_t k = last + 1; k-- > 0;) {
      const auto cmp =
          detail::known_ge(stride[k], detail::mul_or_unknown(stride[k + 1], shape[k + 1]));
      if (cmp && !*cmp) {
        out.reason = view_reason::outer_too_small;
        out.axis = k;
        return false;
      }
      if (!cmp && !relaxed_symbolic) {
        out.reason = view_reason::outer_symbolic;
        out.axis = k;
        return false;
      }
    }
    return true;
  };
  if (layout != TensorLayout::DN) {
    if (stride[n - 1] != 1) {
      out.reason = view_reason::innermost_not_one;
      return out;
    }
    if (n >= 2) check_outer(n - 2);
    return out;
  }
  if (n < 2) {
    out.reason = view_reason::dn_rank_below_two;
    return out;
  }
  if (stride[n - 2] != 1) {
    out.reason = view_reason::dn_second_last_not_one;
    return out;
  }
  const auto trailing = detail::known_ge(stride[n - 1], shape[n - 2]);
  if (trailing && !*trailing) {
    out.reason = view_reason::dn_trailing_too_small;
    return out;
  }
  if (!trailing && !relaxed_symbolic) {
    out.reason = view_reason::dn_trailing_symbolic;
    return out;
  }
  if (n >= 3) check_outer(n - 3);
  return out;
}

// The catalog's reason text for a failed check (empty when canonical). Built at run time:
// it is diagnostic text, and the decision itself is the constexpr view_check above.
[[nodiscard]] inline std::string view_reason_text(const view_check& c) {
  const std::string name{name_of(c.layout)};
  const std::string k = std::to_string(c.axis);
  const std::string k1 = std::to_string(c.axis + 1);
  switch (c.reason) {
    case view_reason::canonical:
      return {};
    case view_reason::stride_empty:
      return "stride is empty (must be materialized via MaterializeTensorStrides)";
    case view_reason::rank_mismatch:
      return "stride rank " + std::to_string(c.stride_rank) + " does not match shape rank " +
             std::to_string(c.shape_rank);
    case view_reason::innermost_not_one:
      return name + " layout requires innermost stride to be ConstInt(1)";
    case view_reason::outer_too_small:
      return name + " stride[" + k + "] is smaller than packed stride[" + k1 + "] * shape[" + k1 +
             "]";
    case view_reason::outer_symbolic:
      return name + " outer-dim stride relation is symbolic and cannot be statically verified";
    case view_reason::dn_rank_below_two:
      return "DN layout requires rank >= 2";
    case view_reason::dn_second_last_not_one:
      return "DN layout requires stride[-2] to be ConstInt(1)";
    case view_reason::dn_trailing_too_small:
      return "DN stride[-1] is smaller than shape[-2]";
    case view_reason::dn_trailing_symbolic:
      return "DN trailing-stride relation is symbolic and cannot be statically verified";
  }
  return {};
}

}  // namespace tilewright::math
