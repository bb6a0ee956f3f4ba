#pragma once
// CT-08: a tile.extract that reads a slice reads the slice's base instead, at the summed
// offsets (constants folded, a zero offset dropped):
//   s = slice(lm, [16, 128], [0, 128]);  a = extract(s, 0, ko, [16, 64], target_memory=Left)
//   → a = extract(lm, 0, ko + 128, [16, 64], target_memory=Left)
// This holds whatever the slice's memory space. The slice itself goes once nothing reads it
// (CT-18).
#include "tilewright/passes/canonicalize_tile_slice/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::canonicalize {

struct FoldSliceIntoExtract {
  static constexpr std::string_view name = "fold-slice-into-extract";
  static constexpr auto roots = rewrite::ops_of<"tile.extract">;

  ir::Stmt apply(CanonicalizeContext& ctx, rewrite::Rewriter&, const ir::Stmt& stmt, const ir::Call& call) const {
    if (!ir::as<ir::Assign>(stmt) || call.args.size() != 4) return nullptr;
    const Slice* s = ctx.slice_of(call.args[0]);
    if (!s) return nullptr;
    const ir::Span& span = (*ir::stmt_call_expr(stmt))->span;
    std::vector<ir::Expr> args{s->window.base, ir::index_add(call.args[1], s->window.row, span),
                               ir::index_add(call.args[2], s->window.col, span), call.args[3]};
    return ctx.with_operands(stmt, std::move(args));
  }
};

}  // namespace tilewright::passes::canonicalize
