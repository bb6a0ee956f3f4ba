#pragma once
// FL-28: tile.assemble into a >2D target: the ND offset folds into the flattened target's
// (row, col) with the same row-major collapse a load uses (FL-11). The analysis already
// proved the written box is one band of rows (FL-07d).
//   acc2 = tile.assemble(acc:[4,8,16], page:[1,8,16], [2, 0, 0])
//     →  acc2 = tile.assemble(acc:[32,16], page:[8,16], [16, 0])
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

struct FlattenAssemble {
  static constexpr std::string_view name = "flatten-assemble";
  static constexpr auto roots = rewrite::ops_of<"tile.assemble">;

  ir::Stmt apply(FlattenContext& ctx, const ir::Stmt& stmt, const ir::Call& call) const {
    const ir::TileType* target = ctx.original_arg_tile(0);
    if (!target || !is_flattenable(*target) || call.args.size() != 3) return nullptr;  // FL-29: generic
    auto* offset = ir::as<ir::MakeTuple>(call.args[2]);
    if (!offset)
      ir::throw_internal_error(std::string(pass_name), "tile.assemble offset is not a literal tuple after analysis",
                               ctx.stmt_span());
    std::vector<ir::Expr> args{call.args[0], call.args[1],
                               ctx.tuple(collapsed_offset(offset->elements, target->shape, ctx.call_span()))};
    return ctx.finish(stmt, ctx.call(call.callee.op, std::move(args), call.kwargs, call.attrs));
  }
};

}  // namespace tilewright::passes::flatten
