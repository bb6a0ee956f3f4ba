#pragma once
// CT-11: Vec slices read by the tile.col_expand_* family (issues #1640, #2010).
//
// Those ops cannot read a subview, so codegen copies a slice operand with a lazy
// pto.textract into the slice's own buffer — which, a slice inheriting its source's memory,
// lies inside the still-live source. That in-place copy is harmless only as an identity copy:
//   * the offset must be constant: a dynamic one cannot become a constant address, so the
//     buffer falls back to the source's base and the copy lands on row 0 (#1640);
//   * the window must be contiguous in the source — one row, or every column. A column band
//     of several rows is repacked from the source's row pitch to its own dense one on top of
//     the source it is still reading, and only row 0 survives (#2010).
// A slice failing either is replaced by a fresh tile.extract (its own allocation); an
// identity-copy slice keeps sharing its source. Explicitly non-Vec slices are left to
// InferTileMemorySpace.
#include "tilewright/passes/canonicalize_tile_slice/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::canonicalize {

// Would the lazy in-place copy of `s` overwrite the source it reads? When the shapes are not
// static 2-D, or the slice's place in its allocation is unknown, assume so: copying is always
// safe, sharing is not.
inline bool lazy_copy_corrupts_source(const Slice& s) {
  if (!s.physical) return true;
  const Window& w = *s.physical;
  if (!ir::const_int(w.row) || !ir::const_int(w.col)) return true;
  const auto& shape = s.type().shape;
  const ir::TileType* base = ir::tile_type(w.base);
  if (shape.size() != 2 || !base || base->shape.size() != 2) return true;
  auto rows = ir::const_int(shape[0]), cols = ir::const_int(shape[1]),
       base_cols = ir::const_int(base->shape[1]);
  if (!rows || !cols || !base_cols) return true;
  return *rows != 1 && *cols != *base_cols;
}

struct ColExpandOperandCopy {
  static constexpr std::string_view name = "copy-col-expand-operand";
  static constexpr auto roots =
      rewrite::ops_of<"tile.col_expand_mul", "tile.col_expand_add", "tile.col_expand_div",
                      "tile.col_expand_sub", "tile.col_expand_max", "tile.col_expand_min",
                      "tile.col_expand_expdif">;

  ir::Stmt apply(CanonicalizeContext& ctx, rewrite::Rewriter& rw, const ir::Stmt& stmt, const ir::Call& call) const {
    if (!ir::as<ir::Assign>(stmt) || call.args.size() != 2) return nullptr;
    return ctx.copy_operands(rw, stmt,
                             [](std::size_t, const Slice& s) -> std::optional<ir::MemorySpace> {
                               if (s.is_vec_or_unset() && lazy_copy_corrupts_source(s))
                                 return ir::MemorySpace::Vec;
                               return std::nullopt;
                             });
  }
};

}  // namespace tilewright::passes::canonicalize
