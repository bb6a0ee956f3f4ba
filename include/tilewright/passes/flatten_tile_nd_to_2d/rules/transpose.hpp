#pragma once
// FL-30…FL-33: tile.transpose is the sole owner of pto.ttrans scratch. It arrives with three
// operands (input, axis1, axis2) and leaves in the codegen-ready four-operand form.
//
// 2D: one scratch tile shaped like the SOURCE, in the input's memory (Vec when unset):
//   t = tile.transpose(a:[3,8], 0, 1)
//     →  transpose_tmp = tile.create([3, 8], dtype=FP32, target_memory=Vec)
//        t = tile.transpose(a, 0, 1, transpose_tmp)
// >2D, last two axes swapped ([.., A, B] → [.., B, A], batch count N): one 2D transpose per
// batch page, each with its scratch sliced from a flat [N*A, B] pool, assembled into the
// merged [N*B, A] output:
//   t = tile.create([N*B, A]);  trans_tmp_pool = tile.create([N*A, B])
//   per page i: trans_page_i = tile.slice(a2d, [A, B], [i*A, 0])
//               trans_tmp_i  = tile.slice(trans_tmp_pool, [A, B], [i*A, 0])
//               trans_i      = tile.transpose(trans_page_i, 0, 1, trans_tmp_i)
//               t            = tile.assemble(t, trans_i, [i*B, 0])
// A batch axis in the swap was rejected by the analysis (FL-33). The four-operand form is
// already lowered and takes the generic path (FL-31).
#include "tilewright/passes/flatten_tile_nd_to_2d/analysis.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

struct FlattenTranspose {
  static constexpr std::string_view name = "flatten-transpose";
  static constexpr auto roots = rewrite::ops_of<"tile.transpose">;

  ir::Stmt apply(FlattenContext&, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    const ir::TileType* input = original_arg_tile(rw, 0);
    if (!input || call.args.size() != 3) return nullptr;
    if (input->shape.size() <= 2) return with_scratch(rw, call);
    return unrolled(rw, call, *input);
  }

 private:
  // Vec when the input's memory is not known yet.
  static ir::Kwargs scratch_kwargs(const ir::TileType& like) {
    return {{"dtype", like.dtype}, {"target_memory", like.memory.value_or(ir::MemorySpace::Vec)}};
  }

  static ir::Stmt with_scratch(rewrite::Rewriter& rw, const ir::Call& call) {
    const ir::TileType& in = *ir::tile_type(call.args[0]);
    ir::Expr scratch = rw.emit("transpose_tmp", rw.call(op_ids().create, {rw.tuple(in.shape)}, scratch_kwargs(in)));
    return rw.replace(rw.call(call.callee.op, {call.args[0], call.args[1], call.args[2], scratch},
                                     call.kwargs, call.attrs));
  }

  static ir::Stmt unrolled(rewrite::Rewriter& rw, const ir::Call& call,
                           const ir::TileType& input) {
    const OpIds& op = op_ids();
    const std::size_t rank = input.shape.size();
    (void)transpose_axes(call, rank, rw.stmt_span());  // re-validates; the analysis rejected batch axes
    const std::int64_t rows = *ir::const_int(input.shape[rank - 2]);
    const std::int64_t cols = *ir::const_int(input.shape[rank - 1]);
    const std::int64_t pages = *ir::const_int(merged_shape(input.shape, "tile.transpose input", rw.call_span())[0]) / rows;

    ir::Expr source = call.args[0];
    const ir::TileType& flat = *ir::tile_type(source);
    if (flat.shape.size() > 2)  // hand-built IR: the operand was not flattened by its producer
      source = rw.emit("trans_in_2d", rw.call(op.reshape, {source, rw.tuple({rw.index(pages * rows), rw.index(cols)})}));
    const ir::Kwargs kwargs = scratch_kwargs(flat);
    const std::string result_name(ir::name_hint(rw.original_var()));

    ir::Expr out = rw.emit(result_name, rw.call(op.create, {rw.tuple({rw.index(pages * cols), rw.index(rows)})}, kwargs));
    ir::Expr pool = rw.emit("trans_tmp_pool", rw.call(op.create, {rw.tuple({rw.index(pages * rows), rw.index(cols)})}, kwargs));
    ir::Expr page_shape = rw.tuple({rw.index(rows), rw.index(cols)});
    ir::Expr axis0 = rw.index(0), axis1 = rw.index(1);
    for (std::int64_t i = 0; i < pages; ++i) {
      const std::string n = std::to_string(i);
      ir::Expr at = rw.tuple({rw.index(i * rows), rw.index(0)});
      ir::Expr page = rw.emit("trans_page_" + n, rw.call(op.slice, {source, page_shape, at}));
      ir::Expr tmp = rw.emit("trans_tmp_" + n, rw.call(op.slice, {pool, page_shape, at}));
      ir::Expr trans = rw.emit("trans_" + n, rw.call(call.callee.op, {page, axis0, axis1, tmp}));
      ir::Expr assembled = rw.call(op.assemble, {out, trans, rw.tuple({rw.index(i * cols), rw.index(0)})});
      if (i + 1 == pages) return rw.replace(std::move(assembled));
      out = rw.emit(result_name, std::move(assembled));
    }
    ir::throw_internal_error(std::string(pass_name), "tile.transpose of an empty batch", rw.stmt_span());
  }
};

}  // namespace tilewright::passes::flatten
