#pragma once
// The statements the batched-matmul plan drops (FL-37, FL-55, FL-57), removed before any
// other rule sees them:
//   * a whole load / transpose_view chain every consuming matmul re-loads page by page —
//     keeping it would hold the whole operand in Mat for nothing;
//   * a safe batch-only reshape — its uses read its (flattened) input, which holds the same
//     pages in the same order;
//   * the tile.store the matmul before it already performed page by page (its Var was
//     rebound to the last page's store by that matmul's rule).
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

struct FlattenDroppedStatement {
  static constexpr std::string_view name = "flatten-drop-batch-matmul-operand";
  static constexpr auto roots = rewrite::ops_of<"tile.load", "tile.transpose_view", "tile.reshape", "tile.store">;
  static constexpr int benefit = 2;  // before the rules that would rewrite the statement

  ir::Stmt apply(FlattenContext& ctx, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    auto kind = ctx.batch_plan().dropped_kind(rw.original().get());
    if (!kind) return nullptr;
    if (*kind == DroppedKind::peeled_reshape) rw.rebind(rw.original_var(), call.args[0]);
    return rw.erase();
  }
};

}  // namespace tilewright::passes::flatten
