#pragma once
// L0C (Acc) fractal geometry: where accumulator bytes live, which windows the matrix unit
// can write, and the column packing of batched accumulators (catalog §1.14 FL-64/65, §2.7
// CT-19, BK-02).
//
// L0C stores an [M, N] tile of 4-byte elements as 16x16 blocks of 1024 bytes, block
// COLUMNS outermost (numbers are block indices; multiply by 1024 for bytes):
//
//                 c_b = 0       c_b = 1          c_b = 2
//   r_b = 0         0           M/16             2*M/16
//   r_b = 1         1           M/16 + 1         2*M/16 + 1
//   ...            ...          ...              ...
//   r_b = M/16-1   M/16 - 1     2*M/16 - 1       3*M/16 - 1
//
// so block (r_b, c_b) starts at (c_b * M/16 + r_b) * 1024 bytes.
//
// Within one block column, rows are consecutive 64-byte lines. So the rows of a window
// are only laid out compactly when the window either spans the parent's whole row extent
// (its block columns are as tall as the parent's) or stays inside one block column. The
// MAD instruction writes its destination compactly from a bare pointer — no destination
// stride (pto-isa#253) — so those are exactly the windows it can be pointed at.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tilewright/math/capacity.hpp"
#include "tilewright/math/checked.hpp"
#include "tilewright/math/result.hpp"

namespace tilewright::math {

inline constexpr std::int64_t k_acc_block_dim = 16;     // rows and columns of one block
inline constexpr std::int64_t k_acc_element_bytes = 4;  // FP32 / INT32 accumulators
inline constexpr std::int64_t k_acc_element_bits = k_acc_element_bytes * 8;
inline constexpr std::int64_t k_acc_fractal_bytes =
    k_acc_block_dim * k_acc_block_dim * k_acc_element_bytes;                             // 1024
inline constexpr std::int64_t k_acc_line_bytes = k_acc_block_dim * k_acc_element_bytes;  // 64

// Byte offset of block (r_b, c_b) in an L0C tile with `parent_rows` rows. std::nullopt
// when the parent is not a whole number of blocks tall or the block is out of range.
[[nodiscard]] constexpr std::optional<std::int64_t> l0c_block_offset(std::int64_t parent_rows,
                                                                     std::int64_t r_b,
                                                                     std::int64_t c_b) noexcept {
  if (parent_rows <= 0 || parent_rows % k_acc_block_dim != 0) return std::nullopt;
  const std::int64_t blocks_per_column = parent_rows / k_acc_block_dim;
  if (r_b < 0 || r_b >= blocks_per_column || c_b < 0) return std::nullopt;
  const auto column_start = checked_mul(c_b, blocks_per_column);
  if (!column_start) return std::nullopt;
  const auto block = checked_add(*column_start, r_b);
  if (!block) return std::nullopt;
  return checked_mul(*block, k_acc_fractal_bytes);
}

// Byte offset of element (r, c): its block's offset plus its place in the row-major block.
[[nodiscard]] constexpr std::optional<std::int64_t> l0c_element_offset(std::int64_t parent_rows,
                                                                       std::int64_t r,
                                                                       std::int64_t c) noexcept {
  if (r < 0 || c < 0) return std::nullopt;
  const auto block = l0c_block_offset(parent_rows, r / k_acc_block_dim, c / k_acc_block_dim);
  if (!block) return std::nullopt;
  const std::int64_t inside =
      ((r % k_acc_block_dim) * k_acc_block_dim + c % k_acc_block_dim) * k_acc_element_bytes;
  return checked_add(*block, inside);
}

enum class l0c_window_errc : std::uint8_t {
  parent_rows_not_block_multiple,
  parent_cols_not_block_multiple,
  column_origin_not_block_aligned,
  origin_out_of_bounds,
};

struct l0c_window_error {
  l0c_window_errc code = l0c_window_errc::origin_out_of_bounds;
  std::int64_t value = 0;  // the offending extent or offset
};

// Byte offset of a window's origin inside its parent (the geometry behind a column-packed
// accumulator page). Defined only for whole-block parents and block-aligned column origins:
// anything else has no single byte address the window's compact layout could start from.
// E.g. page b of a [16, B*32] FP32 accumulator starts at b * 2048 bytes.
[[nodiscard]] constexpr result<std::int64_t, l0c_window_error> l0c_window_offset(
    std::int64_t parent_rows, std::int64_t parent_cols, std::int64_t row_offset,
    std::int64_t col_offset) noexcept {
  if (parent_rows <= 0 || parent_rows % k_acc_block_dim != 0) {
    return l0c_window_error{l0c_window_errc::parent_rows_not_block_multiple, parent_rows};
  }
  if (parent_cols <= 0 || parent_cols % k_acc_block_dim != 0) {
    return l0c_window_error{l0c_window_errc::parent_cols_not_block_multiple, parent_cols};
  }
  if (col_offset % k_acc_block_dim != 0) {
    return l0c_window_error{l0c_window_errc::column_origin_not_block_aligned, col_offset};
  }
  if (row_offset < 0 || row_offset >= parent_rows) {
    return l0c_window_error{l0c_window_errc::origin_out_of_bounds, row_offset};
  }
  if (col_offset < 0 || col_offset >= parent_cols) {
    return l0c_window_error{l0c_window_errc::origin_out_of_bounds, col_offset};
  }
  const auto offset = l0c_element_offset(parent_rows, row_offset, col_offset);
  if (!offset) return l0c_window_error{l0c_window_errc::origin_out_of_bounds, row_offset};
  return *offset;
}

// Does a window of `cols` columns starting at `col_offset` stay inside one 16-column block?
// A symbolic or negative offset cannot be shown to, so it does not.
[[nodiscard]] constexpr bool fits_one_block_column(std::int64_t cols,
                                                   const maybe_i64& col_offset) noexcept {
  if (cols <= 0 || cols > k_acc_block_dim || !col_offset || *col_offset < 0) return false;
  return *col_offset / k_acc_block_dim == (*col_offset + cols - 1) / k_acc_block_dim;
}

struct l0c_window {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  maybe_i64 col_offset;  // symbolic → std::nullopt
  std::int64_t parent_rows = 0;
};

// CT-19 / FL-65: can a MAD write this accumulator window in place? Yes when the window
// spans every row of its parent, or lies inside one 16-column block. CanonicalizeTileSlice
// rejects windows failing this; FlattenTileNdTo2D packs only row windows failing it, so a
// window one pass leaves alone is never refused by the other.
//   [16,32] of a 32-row parent at col 0  ✗      [16,32] of a 16-row parent       ✓
//   [16,16] of a 32-row parent at col 16 ✓      [16,16] at col 8 (straddles)     ✗
[[nodiscard]] constexpr bool mad_can_address(const l0c_window& w) noexcept {
  return w.rows == w.parent_rows || fits_one_block_column(w.cols, w.col_offset);
}

// --- Column packing of batched accumulators (FL-64b, BK-02) -----------------------------

enum class acc_pack_errc : std::uint8_t {
  element_not_4_bytes,
  rows_not_block_multiple,  // M % 16 != 0
  cols_not_block_multiple,  // N % 16 != 0
  exceeds_budget,           // B*M*N*4 > Acc capacity
  non_positive,             // B, M or N <= 0
  overflow,                 // B*N or the byte count does not fit
};

struct acc_pack_error {
  acc_pack_errc code = acc_pack_errc::overflow;
  std::int64_t rows = 0;  // M
  std::int64_t cols = 0;  // N
  std::int64_t element_bits = 0;
  std::uint64_t bytes = 0;   // exceeds_budget: the packed footprint
  std::uint64_t budget = 0;  // exceeds_budget: the limit it broke
};

struct acc_pack_plan {
  std::int64_t rows = 0;    // M
  std::int64_t cols = 0;    // B * N
  std::uint64_t bytes = 0;  // B * M * N * 4
};

// The pure-geometry half of the packability decision: batch pages of [M, N] sit side by
// side in one [M, B*N] Acc tile, page b at column b*N. The checks run in upstream's order
// (element width, M, N, budget) so the first failing reason is the one reported.
[[nodiscard]] constexpr result<acc_pack_plan, acc_pack_error> column_pack_accumulator(
    std::int64_t batch, std::int64_t rows, std::int64_t cols, std::int64_t element_bits,
    byte_budget budget) noexcept {
  acc_pack_error e{.rows = rows, .cols = cols, .element_bits = element_bits};
  if (batch <= 0 || rows <= 0 || cols <= 0) {
    e.code = acc_pack_errc::non_positive;
    return e;
  }
  if (element_bits != k_acc_element_bits) {
    e.code = acc_pack_errc::element_not_4_bytes;
    return e;
  }
  if (rows % k_acc_block_dim != 0) {
    e.code = acc_pack_errc::rows_not_block_multiple;
    return e;
  }
  if (cols % k_acc_block_dim != 0) {
    e.code = acc_pack_errc::cols_not_block_multiple;
    return e;
  }
  const auto packed_cols = checked_mul(batch, cols);
  const auto elems = packed_cols ? checked_mul(*packed_cols, rows) : std::nullopt;
  const auto bytes = elems ? checked_mul(*elems, k_acc_element_bytes) : std::nullopt;
  if (!bytes) {
    e.code = acc_pack_errc::overflow;
    return e;
  }
  const auto footprint = static_cast<std::uint64_t>(*bytes);
  if (!budget.fits(footprint)) {
    e.code = acc_pack_errc::exceeds_budget;
    e.bytes = footprint;
    e.budget = *budget.limit;
    return e;
  }
  return acc_pack_plan{rows, *packed_cols, footprint};
}

// Origin of batch page b in the packed tile: column b*N of row 0.
[[nodiscard]] constexpr std::optional<std::array<std::int64_t, 2>> packed_page_origin(
    std::int64_t page, std::int64_t cols) noexcept {
  if (page < 0 || cols <= 0) return std::nullopt;
  const auto col = checked_mul(page, cols);
  if (!col) return std::nullopt;
  return std::array<std::int64_t, 2>{0, *col};
}

// The FL-64d reason phrase for a geometry rejection; `dtype` names the element type.
[[nodiscard]] inline std::string acc_pack_reason(const acc_pack_error& e, std::string_view dtype) {
  using std::to_string;
  switch (e.code) {
    case acc_pack_errc::rows_not_block_multiple:
      return "the page row extent M=" + to_string(e.rows) + " is not a multiple of 16";
    case acc_pack_errc::cols_not_block_multiple:
      return "the page column extent N=" + to_string(e.cols) + " is not a multiple of 16";
    case acc_pack_errc::element_not_4_bytes:
      return "the accumulator element is not 4 bytes wide (" + std::string(dtype) +
             "), so its L0C tile has no 16x16 box grid";
    case acc_pack_errc::exceeds_budget:
      return "the packed accumulator needs " + to_string(e.bytes) +
             " bytes of Acc (L0C), which exceeds the " + to_string(e.budget) +
             "-byte budget this target has";
    case acc_pack_errc::non_positive:
      return "the accumulator page extents must be positive";
    case acc_pack_errc::overflow:
      return "the packed accumulator's size does not fit in 64 bits";
  }
  return {};
}

// --- Logical row windows of a 2-D accumulator (FL-65) -----------------------------------

enum class row_window_errc : std::uint8_t {
  non_positive,
  rows_do_not_divide_parent,  // the parent is not a whole number of windows tall
  row_offset_not_aligned,     // a window that does not start on a window boundary
  overflow,
};

struct row_window_error {
  row_window_errc code = row_window_errc::overflow;
  std::int64_t window_rows = 0;
  std::int64_t parent_rows = 0;
  std::int64_t row_offset = 0;
};

struct packed_row_windows {
  std::int64_t rows = 0;   // R
  std::int64_t cols = 0;   // T * N
  std::int64_t tiles = 0;  // T = parent rows / R
};

// A [T*R, N] accumulator updated through R-row windows is allocated as [R, T*N] instead:
// window t becomes the column band [t*N, (t+1)*N), which spans every row (see
// mad_can_address). E.g. [32, 32] with 16-row windows → [16, 64].
[[nodiscard]] constexpr result<packed_row_windows, row_window_error> pack_row_windows(
    std::int64_t parent_rows, std::int64_t parent_cols, std::int64_t window_rows) noexcept {
  if (parent_rows <= 0 || parent_cols <= 0 || window_rows <= 0) {
    return row_window_error{row_window_errc::non_positive, window_rows, parent_rows, 0};
  }
  if (parent_rows % window_rows != 0) {
    return row_window_error{row_window_errc::rows_do_not_divide_parent, window_rows, parent_rows,
                            0};
  }
  const std::int64_t tiles = parent_rows / window_rows;
  const auto cols = checked_mul(tiles, parent_cols);
  if (!cols) return row_window_error{row_window_errc::overflow, window_rows, parent_rows, 0};
  return packed_row_windows{window_rows, *cols, tiles};
}

// Translates a logical window origin (o0, o1) of the [T*R, N] accumulator into the packed
// [R, T*N] one: (0, (o0 / R) * N + o1). E.g. R=16, N=32: (16, 0) → (0, 32).
[[nodiscard]] constexpr result<std::array<std::int64_t, 2>, row_window_error> packed_window_origin(
    std::int64_t row_offset, std::int64_t col_offset, std::int64_t window_rows,
    std::int64_t parent_cols) noexcept {
  if (window_rows <= 0 || parent_cols <= 0) {
    return row_window_error{row_window_errc::non_positive, window_rows, 0, row_offset};
  }
  if (row_offset < 0 || row_offset % window_rows != 0) {
    return row_window_error{row_window_errc::row_offset_not_aligned, window_rows, 0, row_offset};
  }
  const auto band = checked_mul(row_offset / window_rows, parent_cols);
  const auto col = band ? checked_add(*band, col_offset) : std::nullopt;
  if (!col) return row_window_error{row_window_errc::overflow, window_rows, 0, row_offset};
  return std::array<std::int64_t, 2>{0, *col};
}

[[nodiscard]] inline std::string row_window_message(const row_window_error& e) {
  using std::to_string;
  switch (e.code) {
    case row_window_errc::rows_do_not_divide_parent:
      return "matmul_acc accumulator row windows must evenly divide the parent row extent; got " +
             to_string(e.window_rows) + " rows in a " + to_string(e.parent_rows) +
             "-row accumulator";
    case row_window_errc::row_offset_not_aligned:
      return "a row window does not have the common static row extent and an aligned row offset";
    case row_window_errc::non_positive:
      return "matmul_acc accumulator row windows need positive extents";
    case row_window_errc::overflow:
      return "the packed accumulator's extent does not fit in 64 bits";
  }
  return {};
}

}  // namespace tilewright::math
