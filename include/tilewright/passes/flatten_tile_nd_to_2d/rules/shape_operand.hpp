#pragma once
// Shared by the rules of the ops whose result shape is a literal operand (tile.create,
// tile.full, tile.reshape, tile.reinterpret_view): the statement rebuilt through the op's
// registry row with that operand replaced by its merged 2D form (FL-09).
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"

namespace tilewright::passes::flatten {

// Null (the rule declines) when the result is not a flattenable >2D tile or the operand is
// not a literal tuple.
inline ir::Stmt with_merged_shape_operand(FlattenContext& ctx, const ir::Stmt& stmt, const ir::Call& call,
                                          std::size_t index) {
  const ir::TileType* result = ctx.original_result_tile();
  auto* shape = index < call.args.size() ? ir::as<ir::MakeTuple>(call.args[index]) : nullptr;
  if (!result || !is_flattenable(*result) || !shape) return nullptr;
  std::vector<ir::Expr> args = call.args;
  args[index] = ctx.tuple(merged_shape(shape->elements, "the shape operand", ctx.call_span()));
  return ctx.finish(stmt, ctx.call(call.callee.op, std::move(args), call.kwargs, call.attrs));
}

}  // namespace tilewright::passes::flatten
