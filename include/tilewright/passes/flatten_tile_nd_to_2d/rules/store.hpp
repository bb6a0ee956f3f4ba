#pragma once
// FL-21…FL-24: tile.store into a rank>2 tensor gets a 4th operand, the partition window
// codegen turns into pto.partition_view: a box in the tensor's coordinates, anchored at the
// store's own offsets, covering what the tile writes (seed 003, FL-24; computed from the
// tile as written, see analysis.hpp). Stores into 2D tensors pass through.
//   out = tile.store(y:[6,4] (was [2,3,4]), [0, 0, 0], out_0:T[2,3,4])
//     →  out = tile.store(y, [0, 0, 0], out_0, [2, 3, 4])
// FL-23: a tile operand still >2D here (hand-built IR; every producer the text can spell is
// flattened by then) is first reshaped to 2D, since codegen stores 2D tiles only.
#include "tilewright/passes/flatten_tile_nd_to_2d/analysis.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

struct FlattenStore {
  static constexpr std::string_view name = "flatten-store";
  static constexpr auto roots = rewrite::ops_of<"tile.store">;

  ir::Stmt apply(FlattenContext& ctx, const ir::Stmt& stmt, const ir::Call& call) const {
    const ir::TensorType* tensor = call.args.size() == 3 ? ir::tensor_type(call.args[2]) : nullptr;
    const ir::TileType* written = ctx.original_arg_tile(0);
    if (!tensor || tensor->shape.size() <= 2 || !written) return nullptr;
    ir::Expr tile = call.args[0];
    if (auto* t = ir::tile_type(tile); t && is_flattenable(*t))
      tile = ctx.emit("flat_tile", ctx.call(op_ids().reshape,
                                            {tile, ctx.tuple(merged_shape(t->shape, "tile.store operand", ctx.call_span()))}));
    ir::Expr window = ctx.tuple(store_partition_shape(*written, *tensor, call.args[1], ctx.stmt_span()));
    return ctx.finish(stmt, ctx.call(call.callee.op, {tile, call.args[1], call.args[2], window}, call.kwargs,
                                     call.attrs));
  }
};

}  // namespace tilewright::passes::flatten
