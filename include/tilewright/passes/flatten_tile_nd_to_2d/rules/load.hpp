#pragma once
// FL-13…FL-16, FL-20: tile.load producing a >2D tile.
//
// Every such load yields the merged 2D tile; the walker's type mapping already did that for
// the result (FL-13: Vec loads and Mat loads with an explicit non-NZ view keep their
// tensor-rank window, only the tile becomes 2D). A *natural NZ* Mat load also needs a 2D
// source window, because its ND2NZ copy is issued on a 2D tensor: the rule views the source
// as 2D and collapses the window onto it (FL-14/FL-15).
//   m = tile.load(x:T[2,16,128], [1,0,0], [1,16,128], target_memory=Mat) : [1,16,128]
//     →  m_view2d = tensor.view(x, [32, 128])
//        m = tile.load(m_view2d, [16, 0], [16, 128], [16, 128], target_memory=Mat) : [16,128]
// The analysis rejected every natural NZ window that does not collapse, except those feeding
// a batched matmul, whose lowering re-emits such an operand one batch at a time (FL-54):
// those keep their ND window here.
#include "tilewright/passes/flatten_tile_nd_to_2d/analysis.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

// FL-15: tensor.view(src, [prod(leading), last]) — with the collapsed valid shape when the
// source is partially valid, and an explicit empty valid operand when it carries a pad.
// The 2D source a natural NZ load (whole, or one batch page, FL-54) is issued on.
inline ir::Expr collapsed_tensor_view(const rewrite::Rewriter& rw, const ir::Expr& src, const ir::TensorType& t) {
  const ir::Span& span = rw.call_span();
  std::vector<ir::Expr> args{src, rw.tuple({leading_product(t.shape, span), t.shape.back()})};
  if (t.view && !t.view->valid_shape.empty())
    args.push_back(rw.tuple(merged_valid_shape(t.view->valid_shape, span)));
  else if (t.view && t.view->pad != ir::PadValue::null)
    args.push_back(rw.tuple({}));
  return rw.call(op_ids().tensor_view, std::move(args));
}

// FL-14: the operands of natural NZ load `call` issued on a 2D view of its source (the view
// is emitted before the statement): offsets, window and valid window collapsed onto it.
inline std::vector<ir::Expr> collapsed_load_args(rewrite::Rewriter& rw, const ir::Call& call,
                                                 const ir::TensorType& source) {
  const auto& offsets = ir::as<ir::MakeTuple>(call.args[1])->elements;
  const auto& shapes = ir::as<ir::MakeTuple>(call.args[2])->elements;
  const auto& valid = ir::as<ir::MakeTuple>(call.args[call.args.size() > 3 ? 3 : 2])->elements;
  const ir::Expr view =
      rw.emit(std::string(ir::name_hint(rw.original_var())) + "_view2d", collapsed_tensor_view(rw, call.args[0], source));
  const ir::Span& span = rw.call_span();
  return {view, rw.tuple(collapsed_offset(offsets, source.shape, span)),
          rw.tuple(merged_shape(shapes, "tile.load window", span)), rw.tuple(merged_valid_shape(valid, span))};
}

struct FlattenLoad {
  static constexpr std::string_view name = "flatten-load";
  static constexpr auto roots = rewrite::ops_of<"tile.load">;

  ir::Stmt apply(FlattenContext& ctx, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    const ir::TileType* result = original_result_tile(rw);
    const ir::TensorType* source = ir::tensor_type(call.args[0]);
    if (!result || !source || !is_flattenable(*result)) return nullptr;
    if (!is_natural_nz_load(*result, *source) || nz_window_problem(call, *result, *source)) {
      ctx.count_retyped_load();  // the type mapping did it all
      return nullptr;
    }
    return rw.replace(rw.call(call.callee.op, collapsed_load_args(rw, call, *source), call.kwargs, call.attrs));
  }
};

}  // namespace tilewright::passes::flatten
