#pragma once
// The store partition window (FL-22..FL-24, seed 003 "store 的分区窗口").
//
// A flattened tile.store into a rank>2 tensor carries a 4th operand: a box in the
// destination's coordinates, anchored at the store's own offsets, that codegen turns into
// pto.partition_view. A partition view can only express a box, and every extent must fit
// its axis. The flattened store, however, writes `rows` consecutive row-major positions
// starting at the offsets; the two agree only when the rows that span several axes fill
// each of those axes completely, starting from 0. This header builds that box, or says
// precisely why no box exists.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "tilewright/math/checked.hpp"
#include "tilewright/math/dims.hpp"
#include "tilewright/math/merge.hpp"
#include "tilewright/math/result.hpp"

namespace tilewright::math {

enum class partition_errc : std::uint8_t {
  rank_exceeds_capacity,
  offset_rank_mismatch,      // offsets must name one index per tensor axis
  tile_rank_exceeds_tensor,  // a tile cannot have more axes than the tensor it lands in
  tile_not_static,           // FL-09 failure while merging the tile (see `merge`)
  symbolic_leading_extent,   // a leading tensor axis the rows must walk is symbolic
  columns_past_end,          // off + cols > extent on the innermost axis
  rows_past_end,             // off + rows > extent on the axis where the rows stop
  rows_not_whole_axis,       // rows spill over an axis without filling it a whole number of times
  nonzero_offset_on_full_axis,  // an axis the rows fill completely must start at 0
  rows_exceed_tensor,           // the leading axes together hold fewer rows than the tile
  rows_may_cross_axis,          // rows stop on an axis at a symbolic offset: they may spill over
};

struct partition_error {
  partition_errc code = partition_errc::rows_exceed_tensor;
  std::size_t axis = 0;
  std::int64_t rows = 0;       // merged tile rows
  std::int64_t cols = 0;       // merged tile columns
  std::int64_t extent = 0;     // extent of `axis`
  std::int64_t offset = 0;     // offset on `axis`
  std::int64_t remaining = 0;  // rows still to place when the walk failed
  std::int64_t capacity = 0;   // rows_exceed_tensor: rows the leading axes hold
  merge_error merge{};         // tile_not_static: what the merge reported
};

struct partition_window {
  // True when the tile's leading extent is a fold of several tensor axes and the box had
  // to be rebuilt by walking them; false when [1...] ++ tile_valid already fits.
  bool collapsed = false;
  // One extent per tensor axis. In the aligned case an entry is symbolic exactly where
  // the tile's valid extent is; in the collapsed case every entry is known.
  maybe_dims shape;
};

// A tile of rank r < n written at `offsets`: does the aligned box [1.., valid...] cover
// exactly the rows that run from the offsets on? Yes when the tile's outermost leading axis
// that is not provably 1 starts and ends inside its tensor axis (the valid extent bounded
// by the physical one), and every tile axis inside it is the whole tensor axis from 0.
[[nodiscard]] constexpr bool aligned_is_row_run(std::span<const maybe_i64> tile_valid,
                                                std::span<const maybe_i64> tile_shape,
                                                std::span<const maybe_i64> tensor,
                                                std::span<const maybe_i64> offsets) noexcept {
  const std::size_t r = tile_valid.size(), pad = tensor.size() - r;
  std::size_t j = 0;
  while (j + 1 < r && tile_valid[j] == 1) ++j;
  if (j + 1 >= r) return true;  // a single row
  const maybe_i64 bound = tile_valid[j] ? tile_valid[j] : tile_shape[j];
  const maybe_i64 ext = tensor[pad + j], off = offsets[pad + j];
  if (!bound || !ext || !off) return false;
  const auto end = checked_add(*off, *bound);
  if (!end || *end > *ext) return false;
  for (std::size_t t = j + 1; t + 1 < r; ++t) {
    if (!tile_valid[t] || tile_valid[t] != tensor[pad + t] || offsets[pad + t] != 0) return false;
  }
  return true;
}

// FL-24. Inputs, all of tensor rank except `tile_valid`:
//   tile_valid  the tile's valid extents (its physical ones when it has no valid_shape)
//   tensor      the destination's extents (the innermost may be symbolic)
//   offsets     the store's offsets (any may be symbolic)
// Worked: [6,8] into [2,3,8] → [2,3,8]; [12,8] into [2,2,4,8] → rows_not_whole_axis at
// axis 1 (extent 2, 3 rows remain); valid [1,10,512] of a [1,16,512] tile → [1,10,512].
//   tile_shape  the tile's physical extents: a bound on each symbolic valid extent
// A tile of the tensor's rank lands on the tensor's axes one for one, so its box is the
// aligned one. A tile of lower rank writes `rows` consecutive row-major rows of the tensor
// from the offsets on (issue 34): the aligned box is that run only when it provably is one
// (the rows stay inside the axis they start on, the axes inside it are whole); otherwise the
// rows are walked over the axes, and what cannot be proved is refused, never guessed.
[[nodiscard]] constexpr result<partition_window, partition_error> store_partition_window(
    std::span<const maybe_i64> tile_valid, std::span<const maybe_i64> tile_shape,
    std::span<const maybe_i64> tensor, std::span<const maybe_i64> offsets) noexcept {
  const std::size_t n = tensor.size();
  if (n > k_max_rank || tile_valid.size() > k_max_rank) {
    return partition_error{.code = partition_errc::rank_exceeds_capacity};
  }
  if (offsets.size() != n) return partition_error{.code = partition_errc::offset_rank_mismatch};
  if (tile_valid.size() > n || tile_valid.empty() || tile_shape.size() != tile_valid.size()) {
    return partition_error{.code = partition_errc::tile_rank_exceeds_tensor};
  }

  // Aligned candidate: the tile's axes are the tensor's innermost axes, one for one.
  partition_window aligned;
  const std::size_t pad = n - tile_valid.size();
  for (std::size_t i = 0; i < pad; ++i) aligned.shape.push_back(1);
  for (const maybe_i64& d : tile_valid) aligned.shape.push_back(d);
  bool overflows = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (aligned.shape[i] && tensor[i] && *aligned.shape[i] > *tensor[i]) overflows = true;
  }
  if (!overflows && (pad == 0 || aligned_is_row_run(tile_valid, tile_shape, tensor, offsets))) return aligned;

  // Collapsed: the tile's leading extent folds several tensor axes.
  const auto merged = merged_shape(tile_valid);
  if (!merged)
    return partition_error{.code = partition_errc::tile_not_static, .merge = merged.error()};
  const std::int64_t rows = (*merged)[0];
  const std::int64_t cols = (*merged)[1];

  partition_window out;
  out.collapsed = true;
  for (std::size_t i = 0; i < n; ++i) out.shape.push_back(1);

  // The innermost axis carries the tile's columns; a partial column range is still a box.
  if (tensor[n - 1] && offsets[n - 1]) {
    const auto end = checked_add(*offsets[n - 1], cols);
    if (!end || *end > *tensor[n - 1]) {
      return partition_error{.code = partition_errc::columns_past_end,
                             .axis = n - 1,
                             .rows = rows,
                             .cols = cols,
                             .extent = *tensor[n - 1],
                             .offset = *offsets[n - 1]};
    }
  }
  out.shape[n - 1] = cols;

  // Walk the leading axes inward-out: an axis the remaining rows fit in takes them and
  // ends the walk; an axis they overflow must be eaten whole, from index 0.
  std::int64_t remaining = rows;
  std::int64_t capacity = 1;
  for (std::size_t i = n - 1; i-- > 0;) {
    if (!tensor[i]) {
      return partition_error{.code = partition_errc::symbolic_leading_extent,
                             .axis = i,
                             .rows = rows,
                             .cols = cols,
                             .remaining = remaining};
    }
    const std::int64_t extent = *tensor[i];
    if (remaining <= extent) {
      if (!offsets[i] && remaining > 1) {
        return partition_error{.code = partition_errc::rows_may_cross_axis,
                               .axis = i,
                               .rows = rows,
                               .cols = cols,
                               .extent = extent,
                               .remaining = remaining};
      }
      if (offsets[i]) {
        const auto end = checked_add(*offsets[i], remaining);
        if (!end || *end > extent) {
          return partition_error{.code = partition_errc::rows_past_end,
                                 .axis = i,
                                 .rows = rows,
                                 .cols = cols,
                                 .extent = extent,
                                 .offset = *offsets[i],
                                 .remaining = remaining};
        }
      }
      out.shape[i] = remaining;
      return out;
    }
    if (extent <= 0 || remaining % extent != 0) {
      return partition_error{.code = partition_errc::rows_not_whole_axis,
                             .axis = i,
                             .rows = rows,
                             .cols = cols,
                             .extent = extent,
                             .remaining = remaining};
    }
    if (offsets[i] != 0) {
      return partition_error{.code = partition_errc::nonzero_offset_on_full_axis,
                             .axis = i,
                             .rows = rows,
                             .cols = cols,
                             .extent = extent,
                             .offset = offsets[i].value_or(0),
                             .remaining = remaining};
    }
    out.shape[i] = extent;
    remaining /= extent;
    capacity *= extent;  // divides `rows`, so it cannot overflow
  }
  return partition_error{.code = partition_errc::rows_exceed_tensor,
                         .rows = rows,
                         .cols = cols,
                         .remaining = remaining,
                         .capacity = capacity};
}

// Without physical extents: a symbolic valid extent has no bound.
[[nodiscard]] constexpr result<partition_window, partition_error> store_partition_window(
    std::span<const maybe_i64> tile_valid, std::span<const maybe_i64> tensor,
    std::span<const maybe_i64> offsets) noexcept {
  return store_partition_window(tile_valid, tile_valid, tensor, offsets);
}

[[nodiscard]] constexpr result<partition_window, partition_error> store_partition_window(
    std::span<const std::int64_t> tile_valid, std::span<const std::int64_t> tensor,
    std::span<const std::int64_t> offsets) noexcept {
  if (tile_valid.size() > k_max_rank || tensor.size() > k_max_rank || offsets.size() > k_max_rank) {
    return partition_error{.code = partition_errc::rank_exceeds_capacity};
  }
  return store_partition_window(to_maybe(tile_valid), to_maybe(tensor), to_maybe(offsets));
}

// The user-facing text for the five rejections the catalog spells out (FL-24); the other
// codes are internal-consistency failures and get a plain description.
[[nodiscard]] inline std::string partition_error_message(const partition_error& e) {
  using std::to_string;
  const std::string shape = to_string(e.rows) + "x" + to_string(e.cols);
  switch (e.code) {
    case partition_errc::columns_past_end:
      return "tile.store writes " + to_string(e.cols) + " columns at offset " +
             to_string(e.offset) + " of an axis whose extent is " + to_string(e.extent) +
             "; the write runs past the tensor";
    case partition_errc::rows_past_end:
      return "tile.store writes " + to_string(e.remaining) + " rows at offset " +
             to_string(e.offset) + " of axis " + to_string(e.axis) + ", whose extent is " +
             to_string(e.extent) + "; the write runs past the tensor";
    case partition_errc::rows_not_whole_axis:
      return "tile.store cannot lower a " + shape +
             " tile into this tensor: its rows span several axes, so they must fill axis " +
             to_string(e.axis) + " (extent " + to_string(e.extent) +
             ") a whole number of times, but " + to_string(e.remaining) +
             " rows remain. A flattened store writes consecutive row-major positions, and no "
             "partition window "
             "describes that here. Store one whole axis at a time (loop the outer axis with "
             "pl.range/pl.parallel), or reshape the destination so the tile's rows are a single "
             "axis";
    case partition_errc::nonzero_offset_on_full_axis:
      return "tile.store fills axis " + to_string(e.axis) + " (extent " + to_string(e.extent) +
             ") completely, so it must start at offset 0; a non-zero offset there would make the "
             "written "
             "region a non-contiguous run that no partition window describes";
    case partition_errc::rows_exceed_tensor:
      return "tile.store writes a " + shape + " tile into a tensor whose leading axes hold only " +
             to_string(e.capacity) + " rows; the write runs past the tensor";
    case partition_errc::symbolic_leading_extent:
      return "tile.store cannot lower a " + shape + " tile into this tensor: axis " + to_string(e.axis) +
             " of the destination has a dynamic extent, and the tile's " + to_string(e.remaining) +
             " rows are consecutive rows of the tensor, so whether they stay inside that axis or spill "
             "into the next index is known only at run time; no partition window describes both. Store a "
             "tile of the tensor's rank (pl.tile.reshape it to [1, ..., rows, cols]) so that its axes land "
             "on the tensor's one for one, or make that extent static";
    case partition_errc::rows_may_cross_axis:
      return "tile.store cannot lower a " + shape + " tile into this tensor: its " +
             to_string(e.remaining) + " rows start at a dynamic offset on axis " + to_string(e.axis) +
             " (extent " + to_string(e.extent) +
             "), and they are consecutive rows of the tensor, so whether they stay inside that axis "
             "is known only at run time; no partition window describes both. Store a tile of the "
             "tensor's rank (pl.tile.reshape it to [1, ..., rows, cols]) so that its axes land on the "
             "tensor's one for one, or make the offset static";
    case partition_errc::tile_not_static:
      return "tile.store partition window: the tile's valid shape must be static to be split "
             "across axes";
    case partition_errc::offset_rank_mismatch:
      return "tile.store partition window: the offsets need one entry per tensor axis";
    case partition_errc::tile_rank_exceeds_tensor:
      return "tile.store partition window: the tile has more axes than the destination tensor";
    case partition_errc::rank_exceeds_capacity:
      return "tile.store partition window: rank exceeds the supported maximum of 8";
  }
  return {};
}

}  // namespace tilewright::math
