#pragma once
// CT-09: a Mat slice used as a matmul operand becomes an extract into the operand's L0
// buffer — Left for the left operand, Right for the right one — the same Mat→L0 move
// AutoTileMatmulL0 emits for tiled matmuls. Left as a slice, codegen would materialize it
// lazily as a Mat→Mat textract, an L1→L1 copy some targets (Ascend 910C) cannot do.
//   ls = slice(lm, [16, 128], [16, 0]);  c = matmul(ls, rs)
//   → ls_textract = extract(lm, 16, 0, [16, 128], target_memory=Left);  c = matmul(ls_textract, …)
// The accumulator of tile.matmul_acc and the bias of tile.matmul_bias are never Mat slices
// and are not touched. Other consumers of a Mat slice (tile.move, …) keep it: a standalone
// Mat slice lowers to a valid pto.subview (CT-10).
#include "tilewright/passes/canonicalize_tile_slice/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::canonicalize {

struct MatSliceMatmulOperand {
  static constexpr std::string_view name = "extract-mat-slice-matmul-operand";
  static constexpr auto roots =
      rewrite::ops_of<"tile.matmul", "tile.matmul_bias", "tile.matmul_acc">;

  ir::Stmt apply(CanonicalizeContext& ctx, rewrite::Rewriter& rw, const ir::Stmt& stmt, const ir::Call& call) const {
    if (!ir::as<ir::Assign>(stmt)) return nullptr;
    // (lhs, rhs) are operands 0, 1 — or 1, 2 behind matmul_acc's accumulator.
    const std::size_t lhs = call.callee.op == rewrite::op_set<"tile.matmul_acc">::ids()[0] ? 1 : 0;
    if (call.args.size() < lhs + 2) return nullptr;
    return ctx.copy_operands(rw, stmt,
                             [&](std::size_t i, const Slice& s) -> std::optional<ir::MemorySpace> {
                               if (!s.is_mat()) return std::nullopt;
                               if (i == lhs) return ir::MemorySpace::Left;
                               if (i == lhs + 1) return ir::MemorySpace::Right;
                               return std::nullopt;
                             });
  }
};

}  // namespace tilewright::passes::canonicalize
