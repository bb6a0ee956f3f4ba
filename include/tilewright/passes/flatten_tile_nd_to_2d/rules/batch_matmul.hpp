#pragma once
// The batched-matmul slot (FL-50…FL-66). Lowering tile.batch_matmul / tile.batch_matmul_acc
// into per-batch 2D tile.matmul / tile.matmul_acc — operand routing, broadcast, accumulator
// packing — is a separate piece of work; until it lands this rule rejects those ops with a
// clear error instead of letting them reach codegen half-lowered. A >2D
// tile.transpose_view only exists as a batched-matmul operand (it is column-batched, which
// the generic 2D path would not preserve), so it is rejected here too.
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

struct FlattenBatchMatmul {
  static constexpr std::string_view name = "flatten-batch-matmul";
  static constexpr auto roots = rewrite::ops_of<"tile.batch_matmul", "tile.batch_matmul_acc", "tile.transpose_view">;

  ir::Stmt apply(FlattenContext& ctx, const ir::Stmt& /*stmt*/, const ir::Call& call) const {
    if (call.callee.op == op_ids().transpose_view) {
      const ir::TileType* input = ctx.original_arg_tile(0);
      if (!input || input->shape.size() <= 2) return nullptr;
    }
    const std::string op(ir::op_name(call.callee.op));
    ir::throw_user_error(std::string(pass_name),
                         op + " is not supported yet: lowering batched matmul to per-batch 2D tile.matmul / "
                              "tile.matmul_acc is not implemented in this version of FlattenTileNdTo2D. "
                              "Write the batch loop out in the kernel (pl.range over the batch) and use "
                              "pl.matmul / pl.matmul_acc on 2D operands",
                         ctx.stmt_span());
  }
};

}  // namespace tilewright::passes::flatten
