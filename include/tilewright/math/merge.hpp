#pragma once
// Flattening arithmetic shared by every FlattenTileNdTo2D rewrite (FL-09..FL-12).
//
// An ND tile is one row-major run of elements, so [d0, ..., d(n-2), d(n-1)] and
// [d0*...*d(n-2), d(n-1)] name the same elements in the same order. These helpers compute
// that merged shape, the merged valid shape, the matching 2-D offset, and whether a
// sub-box of an ND container is still one contiguous band of rows after the merge.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "tilewright/math/checked.hpp"
#include "tilewright/math/dims.hpp"
#include "tilewright/math/result.hpp"

namespace tilewright::math {

enum class merge_errc : std::uint8_t {
  rank_below_one,  // nothing to merge
  rank_exceeds_capacity,
  rank_mismatch,        // offsets and container disagree on rank
  symbolic_dim,         // FL-09: every tile extent must be a compile-time constant
  non_positive_dim,     // FL-09: a leading extent <= 0
  overflow,             // FL-09: the merged leading extent does not fit
  offset_mul_overflow,  // FL-11: row * extent overflowed (an internal error upstream)
  offset_add_overflow,  // FL-11: row + offset overflowed (a user error upstream)
};

struct merge_error {
  merge_errc code = merge_errc::overflow;
  std::size_t axis = 0;
  std::int64_t merged = 0;  // running product / running row before `axis`
  std::int64_t dim = 0;     // the extent or offset at `axis`
};

namespace detail {
constexpr bool is_known(std::int64_t) noexcept { return true; }
constexpr bool is_known(const maybe_i64& v) noexcept { return v.has_value(); }
constexpr std::int64_t known_value(std::int64_t v) noexcept { return v; }
constexpr std::int64_t known_value(const maybe_i64& v) noexcept { return *v; }

template <class E>
constexpr result<std::array<std::int64_t, 2>, merge_error> merge_leading(
    std::span<const E> shape) noexcept {
  if (shape.empty()) return merge_error{merge_errc::rank_below_one, 0, 0, 0};
  const std::size_t last = shape.size() - 1;
  std::int64_t merged = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (!is_known(shape[i])) return merge_error{merge_errc::symbolic_dim, i, merged, 0};
    if (i == last) break;
    const std::int64_t d = known_value(shape[i]);
    if (d <= 0) return merge_error{merge_errc::non_positive_dim, i, merged, d};
    const auto next = checked_mul(merged, d);
    if (!next) return merge_error{merge_errc::overflow, i, merged, d};
    merged = *next;
  }
  return std::array<std::int64_t, 2>{merged, known_value(shape[last])};
}
}  // namespace detail

// FL-09: [d0, ..., d(n-2), d(n-1)] → [d0*...*d(n-2), d(n-1)], e.g. [2,3,4] → [6,4],
// [2,2,2,2,4] → [16,4]. Rank 1 reads as one row. Checks run axis by axis, outermost first:
// symbolic, then (leading axes only, as upstream) positive, then overflow.
[[nodiscard]] constexpr result<std::array<std::int64_t, 2>, merge_error> merged_shape(
    std::span<const std::int64_t> shape) noexcept {
  return detail::merge_leading(shape);
}

[[nodiscard]] constexpr result<std::array<std::int64_t, 2>, merge_error> merged_shape(
    std::span<const maybe_i64> shape) noexcept {
  return detail::merge_leading(shape);
}

// FL-10: the integer core of the merged valid shape. Valid extents may be symbolic (a
// runtime tail chunk), so the merged row is `constant * product(symbolic axes)`: the
// constant factors are folded into one number and the IR layer multiplies the symbolic
// ones in order, omitting a constant factor of 1.
//   [1, S, 512] → constant 1, symbolic {1}  → row S
//   [2, S, 512] → constant 2, symbolic {1}  → row 2*S
//   [1, 10, 512] → constant 10, none        → row 10 (no widening back to the physical 16)
struct merged_valid {
  std::int64_t constant = 1;
  fixed_vector<std::size_t, k_max_rank> symbolic_axes;
  maybe_i64 last;  // the column extent, carried through
  [[nodiscard]] constexpr bool is_static() const noexcept { return symbolic_axes.empty(); }
};

[[nodiscard]] constexpr result<merged_valid, merge_error> merge_valid_shape(
    std::span<const maybe_i64> valid) noexcept {
  if (valid.empty()) return merge_error{merge_errc::rank_below_one, 0, 0, 0};
  if (valid.size() > k_max_rank) return merge_error{merge_errc::rank_exceeds_capacity, 0, 0, 0};
  merged_valid out;
  for (std::size_t i = 0; i + 1 < valid.size(); ++i) {
    if (!valid[i]) {
      out.symbolic_axes.push_back(i);
      continue;
    }
    const auto next = checked_mul(out.constant, *valid[i]);
    if (!next) return merge_error{merge_errc::overflow, i, out.constant, *valid[i]};
    out.constant = *next;
  }
  out.last = valid.back();
  return out;
}

// FL-11: the 2-D coordinate of an ND offset inside a container of extents `dims`
// (the source tensor for loads, the target tile for assemble):
//   row = ((o0*d1 + o1)*d2 + o2)*... + o(n-2),  col = o(n-1)
// e.g. [2,0,0] in [4,8,16] → [16,0]; [1,0,0] in [2,4,5] → [4,0].
[[nodiscard]] constexpr result<std::array<std::int64_t, 2>, merge_error> collapse_offset(
    std::span<const std::int64_t> offsets, std::span<const std::int64_t> container) noexcept {
  if (offsets.empty()) return merge_error{merge_errc::rank_below_one, 0, 0, 0};
  if (offsets.size() != container.size()) {
    return merge_error{merge_errc::rank_mismatch, 0, static_cast<std::int64_t>(offsets.size()),
                       static_cast<std::int64_t>(container.size())};
  }
  const std::size_t n = offsets.size();
  std::int64_t row = n >= 2 ? offsets[0] : 0;
  for (std::size_t i = 1; i + 1 < n; ++i) {
    const auto scaled = checked_mul(row, container[i]);
    if (!scaled) return merge_error{merge_errc::offset_mul_overflow, i, row, container[i]};
    const auto sum = checked_add(*scaled, offsets[i]);
    if (!sum) return merge_error{merge_errc::offset_add_overflow, i, *scaled, offsets[i]};
    row = *sum;
  }
  return std::array<std::int64_t, 2>{row, offsets[n - 1]};
}

// How one leading axis of a sub-box relates to its container axis.
struct axis_cover {
  bool singleton = false;  // the box takes one index of this axis
  bool full = false;       // the box takes every index of this axis
};

// FL-12 core: after the merge, the box is one contiguous band of rows iff its leading axes
// read, outermost first, as: any number of singletons, then at most one axis of any extent
// (the "boundary" that picks a run of consecutive rows), then only full axes. The IR layer
// classifies each axis (it can also prove symbolic equality); the last axis is the column
// axis and is not passed.
[[nodiscard]] constexpr bool is_row_major_collapse_contiguous(
    std::span<const axis_cover> leading) noexcept {
  bool boundary_seen = false;
  for (const axis_cover& axis : leading) {
    if (!boundary_seen) {
      if (!axis.singleton) boundary_seen = true;
      continue;
    }
    if (!axis.full) return false;
  }
  return true;
}

// FL-12 on constants. A rank mismatch answers true: the caller has nothing to collapse.
//   [1,16,128] of [2,16,128] ✓   [2,2,5] of [2,4,5] ✗   [1,8,16] of [4,8,16] ✓
[[nodiscard]] constexpr bool is_row_major_collapse_contiguous(
    std::span<const std::int64_t> valid, std::span<const std::int64_t> extents) noexcept {
  if (valid.size() != extents.size()) return true;
  bool boundary_seen = false;
  for (std::size_t i = 0; i + 1 < valid.size(); ++i) {
    if (!boundary_seen) {
      if (valid[i] != 1) boundary_seen = true;
      continue;
    }
    if (valid[i] != extents[i]) return false;
  }
  return true;
}

}  // namespace tilewright::math
