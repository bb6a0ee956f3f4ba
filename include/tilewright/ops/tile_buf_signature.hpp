#pragma once
// TileBufSignature of an IR TileType (FR-05, ir_ops.md C.1). The integer rule lives in
// math/tile_buf_signature.hpp; this header only reads a TileType into its inputs: ConstInt
// extents become numbers, anything else "symbolic", and only the STORED view is passed
// (an implicit view must not contribute its memory space's layout — upstream quirk).
#include <optional>
#include <vector>

#include "tilewright/ir/expr.hpp"
#include "tilewright/math/tile_buf_signature.hpp"

namespace tilewright::ops {

using TileBufSignature = math::tile_buf_signature;

// The math enums mirror the IR ones enumerator for enumerator; the casts below rely on it.
static_assert(static_cast<int>(math::dtype_code::task_id) == static_cast<int>(ir::DataType::TASK_ID));
static_assert(static_cast<int>(math::dtype_code::bf16) == static_cast<int>(ir::DataType::BF16));
static_assert(static_cast<int>(math::memory_space::right_scale) == static_cast<int>(ir::MemorySpace::RightScale));
static_assert(static_cast<int>(math::tile_layout::col_major) == static_cast<int>(ir::TileLayout::col_major));
static_assert(static_cast<int>(math::pad_value::min) == static_cast<int>(ir::PadValue::min));
static_assert(static_cast<int>(math::compact_mode::normal) == static_cast<int>(ir::CompactMode::normal));

inline TileBufSignature from_tile_type(const ir::TileType& t) {
  // Only the leading two extents (or the single one of a rank-1 tile) are read.
  std::vector<math::maybe_i64> shape;
  for (std::size_t i = 0; i < t.shape.size() && i < 2; ++i) shape.push_back(ir::const_int(t.shape[i]));
  std::optional<math::signature_view> view;
  if (t.view) {
    math::signature_view v;
    v.blayout = static_cast<math::tile_layout>(t.view->blayout);
    v.slayout = static_cast<math::tile_layout>(t.view->slayout);
    v.fractal = t.view->fractal;
    v.pad = static_cast<math::pad_value>(t.view->pad);
    v.compact = static_cast<math::compact_mode>(t.view->compact);
    for (std::size_t i = 0; i < t.view->valid_shape.size() && i < 2; ++i)
      v.valid.push_back(ir::const_int(t.view->valid_shape[i]));
    view = v;
  }
  std::optional<math::memory_space> space;
  if (t.memory) space = static_cast<math::memory_space>(*t.memory);
  return math::signature_from_dims(space, static_cast<math::dtype_code>(t.dtype), shape, view);
}

}  // namespace tilewright::ops
