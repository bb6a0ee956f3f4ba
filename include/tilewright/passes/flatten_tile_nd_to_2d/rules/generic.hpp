#pragma once
// FL-38/FL-39: any other tile op whose operands changed is built again through its registry
// row, so the 2D operand types deduce a 2D result. Tried after every family rule.
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

// True when substitution changed an operand or a kwarg of the statement's call.
inline bool operands_changed(const ir::Call& now, const ir::Call& before) {
  if (now.args.size() != before.args.size()) return true;
  for (std::size_t i = 0; i < now.args.size(); ++i)
    if (now.args[i] != before.args[i]) return true;
  return !(now.kwargs == before.kwargs);
}

struct FlattenGenericTileOp {
  static constexpr std::string_view name = "flatten-generic-tile-op";
  static constexpr auto roots = rewrite::any_op;
  static constexpr int benefit = 0;

  ir::Stmt apply(FlattenContext& ctx, const ir::Stmt& stmt, const ir::Call& call) const {
    if (stmt == ctx.original() || !ctx.is_tile_op(call.callee.op)) return nullptr;
    if (!operands_changed(call, ctx.original_call())) return nullptr;  // only the result type was mapped
    // Ops without a deducer keep their (mapped) annotation.
    ir::Expr value = ctx.call(call.callee.op, call.args, call.kwargs, call.attrs, (*ir::stmt_call_expr(stmt))->type);
    return ctx.finish(stmt, std::move(value));
  }
};

}  // namespace tilewright::passes::flatten
