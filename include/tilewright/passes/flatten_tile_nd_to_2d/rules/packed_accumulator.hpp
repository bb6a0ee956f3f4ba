#pragma once
// The statements of a column-packed accumulator chain (seed 003; FL-25, FL-27, FL-65) that
// are not matmuls. Every member of the chain already has the packed type [R, P*N] in Acc
// (walker.hpp); these rules rewrite what addresses the buffer:
//
//   allocation (FL-27)
//     acc = tile.create([2, 16, 32], dtype=FP32)   →   acc = tile.create([16, 64], dtype=FP32, target_memory=Acc)
//     acc = tile.create([32, 32], …)   (two 16-row windows)   →   tile.create([16, 64], …, target_memory=Acc)
//   drain (FL-25): one store per page, straight from Acc
//     out = tile.store(acc, [0, 0, 0], out_0)
//       →  acc_drain_0 = tile.slice(acc, [16, 32], [0, 0])
//          out = tile.store(acc_drain_0, [0, 0, 0], out_0, [1, 16, 32])
//          acc_drain_1 = tile.slice(acc, [16, 32], [0, 32])
//          out = tile.store(acc_drain_1, [1, 0, 0], out, [1, 16, 32])
//     (a row-window accumulator stores window t at the logical row offset t*R, 2D, no window)
//   row windows (FL-65): the logical window (o0, o1) of [T*R, N] is the column band
//     (0, (o0 // R) * N + o1) of [R, T*N], for the slice that reads it and the assemble
//     that writes it back.
#include <string>
#include <vector>

#include "tilewright/passes/flatten_tile_nd_to_2d/batch_geometry.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

struct FlattenPackedAccumulator {
  static constexpr std::string_view name = "flatten-packed-accumulator";
  static constexpr auto roots = rewrite::ops_of<"tile.create", "tile.store", "tile.slice", "tile.assemble">;
  static constexpr int benefit = 2;  // before the create / store / assemble / generic rules

  ir::Stmt apply(FlattenContext& ctx, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    const OpIds& op = op_ids();
    const ir::Call& before = *rw.original_call();
    const ir::ExprNode* subject = call.callee.op == op.create ? rw.original_var().get()
                                  : before.args.empty()       ? nullptr
                                                              : before.args[0].get();
    const AccPack* pack = subject ? ctx.packing().of(subject) : nullptr;
    if (!pack) return nullptr;
    if (call.callee.op == op.create) return allocation(rw, call, *pack);
    if (call.callee.op == op.store) return drain(rw, call, *pack);
    if (!pack->row_windows)
      ir::throw_internal_error(std::string(pass_name), "a packed batch accumulator addressed by a window",
                               rw.stmt_span());
    std::vector<ir::Expr> args = call.args;
    args[2] = rw.tuple(packed_origin(rw, ir::as<ir::MakeTuple>(call.args[2])->elements, *pack));
    return rw.replace(rw.call(call.callee.op, std::move(args), call.kwargs, call.attrs));
  }

 private:
  static ir::Stmt allocation(rewrite::Rewriter& rw, const ir::Call& call, const AccPack& p) {
    std::vector<ir::Expr> args = call.args;
    args[0] = rw.tuple({rw.index(p.rows), rw.index(p.pages * p.cols)});
    ir::Kwargs kwargs;
    for (const auto& kv : call.kwargs)
      if (kv.first != "target_memory") kwargs.push_back(kv);
    kwargs.emplace_back("target_memory", ir::MemorySpace::Acc);
    return rw.replace(rw.call(call.callee.op, std::move(args), std::move(kwargs), call.attrs));
  }

  // (o0, o1) of the logical [T*R, N] accumulator → (0, (o0 // R) * N + o1).
  static std::vector<ir::Expr> packed_origin(const rewrite::Rewriter& rw, const std::vector<ir::Expr>& at,
                                             const AccPack& p) {
    const ir::Span& span = rw.call_span();
    ir::Expr band;
    if (auto row = ir::const_int(at[0])) {
      band = rw.index(*row / p.rows);
    } else {
      band = ir::make_expr(ir::Binary{ir::BinaryOp::FloorDiv, at[0], rw.index(p.rows)},
                           ir::scalar_type(ir::DataType::INDEX), span);
    }
    return {rw.index(0), fold_add(fold_mul(band, rw.index(p.cols), span), at[1], span)};
  }

  static ir::Stmt drain(rewrite::Rewriter& rw, const ir::Call& call, const AccPack& p) {
    const OpIds& op = op_ids();
    const auto& offsets = ir::as<ir::MakeTuple>(call.args[1])->elements;
    const std::size_t rank = offsets.size();
    ir::Expr tensor = call.args[2];
    ir::Expr page_shape = rw.tuple({rw.index(p.rows), rw.index(p.cols)});
    ir::Expr window;
    if (!p.row_windows) {
      std::vector<ir::Expr> w(rank - 2, rw.index(1));
      w.push_back(rw.index(p.rows));
      w.push_back(rw.index(p.cols));
      window = rw.tuple(std::move(w));
    }
    const std::string result(ir::name_hint(rw.original_var()));
    for (std::int64_t b = 0; b < p.pages; ++b) {
      ir::Expr page = rw.emit("acc_drain_" + std::to_string(b),
                               rw.call(op.slice, {call.args[0], page_shape, rw.tuple({rw.index(0), rw.index(b * p.cols)})}));
      // Window t sits at logical row t*R; batch page b at the tensor's leading axes, which
      // are the accumulator's batch axes (FL-64b: the same rank).
      std::vector<ir::Expr> at = p.row_windows ? offsets_plus(offsets, {b * p.rows}, rw.call_span())
                                               : offsets_plus(offsets, unravel(b, p.batch_dims), rw.call_span());
      ir::Expr stored = rw.call(op.store, operands({page, rw.tuple(std::move(at)), tensor}, window), call.kwargs,
                                call.attrs);
      if (b + 1 == p.pages) return rw.replace(std::move(stored));
      tensor = rw.emit(result, std::move(stored));
    }
    ir::throw_internal_error(std::string(pass_name), "a packed accumulator with no pages", rw.stmt_span());
  }
};

}  // namespace tilewright::passes::flatten
