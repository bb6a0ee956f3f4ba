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

inline TileBufSignature from_tile_type(const ir::TileType& t) {
  // Only the leading two extents (or the single one of a rank-1 tile) are read.
  std::vector<math::maybe_i64> shape;
  for (std::size_t i = 0; i < t.shape.size() && i < 2; ++i) shape.push_back(ir::const_int(t.shape[i]));
  std::optional<math::signature_view> view;
  if (t.view) {
    math::signature_view v;
    v.blayout = t.view->blayout;
    v.slayout = t.view->slayout;
    v.fractal = t.view->fractal;
    v.pad = t.view->pad;
    v.compact = t.view->compact;
    for (std::size_t i = 0; i < t.view->valid_shape.size() && i < 2; ++i)
      v.valid.push_back(ir::const_int(t.view->valid_shape[i]));
    view = v;
  }
  return math::signature_from_dims(t.memory, t.dtype, shape, view);
}

}  // namespace tilewright::ops
