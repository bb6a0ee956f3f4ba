#pragma once
// TileBufSignature: the facts a PTO `alloc_tile` declaration is made of (FR-05,
// ir_ops.md C.1), as a plain value. FoldNoOpReshape drops a reshape whose source and
// result share a buffer and have equal signatures: then the reshape is a rename.
//
// The builder works on integers; the IR layer turns a TileType into these inputs (a
// ConstInt extent → a number, anything else → std::nullopt).
#include <cstdint>
#include <optional>
#include <span>

#include "tilewright/math/checked.hpp"
#include "tilewright/math/dims.hpp"
#include "tilewright/math/enums.hpp"

namespace tilewright::math {

inline constexpr std::int64_t k_signature_default_extent = 32;
inline constexpr std::uint64_t k_default_fractal_bytes = 512;

// Field names follow upstream except `space` (upstream memory_space_), which would
// otherwise shadow the enum of the same name.
struct tile_buf_signature {
  MemorySpace space = MemorySpace::Vec;
  DataType dtype = DataType::FP32;
  std::int64_t rows = k_signature_default_extent;
  std::int64_t cols = k_signature_default_extent;
  TileLayout blayout = TileLayout::row_major;
  TileLayout slayout = TileLayout::none_box;
  std::uint64_t fractal = k_default_fractal_bytes;
  PadValue pad = PadValue::null;
  CompactMode compact = CompactMode::null;
  std::int64_t v_row = k_signature_default_extent;
  std::int64_t v_col = k_signature_default_extent;
  // Set for any symbolic valid extent. Two different symbolic extents therefore compare
  // equal: the signature records only that the extent is dynamic, not which one.
  bool v_row_dynamic = false;
  bool v_col_dynamic = false;

  friend constexpr bool operator==(const tile_buf_signature&, const tile_buf_signature&) = default;
};

// The parts of a stored (explicit) TileView the signature reads. The stride and start
// offset of a view are not part of the signature.
struct signature_view {
  TileLayout blayout = TileLayout::row_major;
  TileLayout slayout = TileLayout::none_box;
  std::uint64_t fractal = k_default_fractal_bytes;
  PadValue pad = PadValue::null;
  CompactMode compact = CompactMode::null;
  maybe_dims valid;  // empty = the whole tile is valid
};

// FromTileType on integers.
//   shape  the tile's extents; rank >= 2 reads shape[0] x shape[1] (later axes ignored),
//          rank 1 reads as one row of shape[0]; symbolic extents keep the default 32.
//   space  the tile's memory space, std::nullopt when not yet inferred (→ Vec).
//   view   the STORED view, std::nullopt when the tile carries none (implicit view).
// With no stored view, only the shape rule applies: an [R, 1] tile with R > 1 is a column
// vector and reads col_major. The memory space's implicit layout is deliberately NOT
// applied (an implicit Mat tile reports row_major / none_box / 512), as upstream does.
[[nodiscard]] constexpr tile_buf_signature signature_from_dims(
    std::optional<MemorySpace> space, DataType dtype, std::span<const maybe_i64> shape,
    const std::optional<signature_view>& view) noexcept {
  tile_buf_signature sig;
  if (space) sig.space = *space;
  sig.dtype = dtype;
  if (shape.size() >= 2) {
    if (shape[0]) sig.rows = *shape[0];
    if (shape[1]) sig.cols = *shape[1];
  } else if (shape.size() == 1) {
    sig.rows = 1;
    if (shape[0]) sig.cols = *shape[0];
  }
  sig.v_row = sig.rows;
  sig.v_col = sig.cols;

  if (!view) {
    if (sig.cols == 1 && sig.rows > 1) sig.blayout = TileLayout::col_major;
    return sig;
  }
  sig.blayout = view->blayout;
  sig.slayout = view->slayout;
  sig.fractal = view->fractal;
  sig.pad = view->pad;
  sig.compact = view->compact;
  if (view->valid.size() >= 1) {
    if (view->valid[0]) {
      sig.v_row = *view->valid[0];
    } else {
      sig.v_row_dynamic = true;
    }
  }
  if (view->valid.size() >= 2) {
    if (view->valid[1]) {
      sig.v_col = *view->valid[1];
    } else {
      sig.v_col_dynamic = true;
    }
  }
  return sig;
}

[[nodiscard]] constexpr tile_buf_signature signature_from_dims(
    std::optional<MemorySpace> space, DataType dtype, std::span<const std::int64_t> shape,
    const std::optional<signature_view>& view) noexcept {
  return signature_from_dims(space, dtype, to_maybe(shape), view);
}

// Same storage: one allocation could hold either tile (space, dtype and extents agree).
[[nodiscard]] constexpr bool is_storage_compatible(const tile_buf_signature& a,
                                                   const tile_buf_signature& b) noexcept {
  return a.space == b.space && a.dtype == b.dtype && a.rows == b.rows && a.cols == b.cols;
}

// The signature of the buffer itself, independent of how much of it a value marks valid:
// no pad, valid extents equal to the physical ones, no dynamic flags.
[[nodiscard]] constexpr tile_buf_signature root_signature(tile_buf_signature sig) noexcept {
  sig.pad = PadValue::null;
  sig.v_row = sig.rows;
  sig.v_col = sig.cols;
  sig.v_row_dynamic = false;
  sig.v_col_dynamic = false;
  return sig;
}

}  // namespace tilewright::math
