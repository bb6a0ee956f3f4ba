#pragma once
// FL-50…FL-62: tile.batch_matmul / tile.batch_matmul_acc unrolled into one 2D tile.matmul /
// tile.matmul_acc per output page (the shapes are static, so the batch is unrolled at compile
// time). The analysis decided everything up front (batch_matmul_plan.hpp, acc_packing.hpp);
// these rules only build what it decided.
//
// The page of an operand (FL-52, FL-54): a slice of its whole 2D tile — rows [p*r, (p+1)*r)
// of a plain operand, columns [p*c, (p+1)*c) of a tile.transpose_view, whose flattened
// batches sit side by side — or, when it is re-loaded per page, a fresh load of page p's
// window through a 2D view of the source tensor:
//   lhs_slice_1 = tile.slice(a, [16, 128], [16, 0])
//   lhs_pbview2d_1 = tensor.view(lhs, [512, 256])
//   lhs_pbload_1 = tile.load(lhs_pbview2d_1, [128, 0], [128, 256], [128, 256], target_memory=Mat)
//
// The result of tile.batch_matmul:
//   * one page, no store after it, no cast: `c = tile.matmul(l, r)`, the Acc tile as is (FL-56);
//   * the next statement stores it: one matmul and one store per page, threading the tensor;
//     that store is dropped (FL-57);
//   * a column-packed accumulator chain starts here: each page accumulates with
//     init_cond=True into its column band of one [M, B*N] Acc tile (FL-59);
//   * otherwise: a [B*M, N] Vec tile assembled from the pages moved to Vec (FL-58).
// tile.batch_matmul_acc updates page p of its accumulator in place: the whole [M, N] tile for
// one page (FL-61), else the window [p*M, 0] of the row-packed [B*M, N] tile or [0, p*N] of
// the column-packed [M, B*N] one (FL-62, FL-64). No tile.move is emitted for an accumulator
// (FL-63).
#include <string>
#include <vector>

#include "tilewright/ops/deduce.hpp"
#include "tilewright/ops/tile_matmul.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/batch_geometry.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/context.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/load.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::passes::flatten {

// One operand of the matmul as the unroll reads it.
struct BatchOperand {
  std::string role;                 // "lhs" / "rhs": the prefix of what is emitted for it
  ir::Expr flat;                    // the operand after substitution: its whole 2D tile
  const std::vector<std::int64_t>& dims;  // its dims as written
  const OperandPlan& plan;
  bool load_into_mat = false;       // its base load names no memory: its pages load into Mat (FL-17)
};

// FL-17: a load's kwargs with target_memory=Mat added.
inline ir::Kwargs into_mat(ir::Kwargs kwargs) {
  kwargs.emplace_back("target_memory", ir::MemorySpace::Mat);
  return kwargs;
}

// FL-17: a >2D tile.load read only by batched matmuls that names no target memory loads into
// Mat, where a matmul operand lives — collapsed onto a 2D view of its source when that makes
// it a natural NZ load (FL-14), else with its tensor-rank window and a 2D result (FL-13).
// (The DSL always names the memory, so only IR built in C++ reaches this.)
struct FlattenMatmulOperandLoad {
  static constexpr std::string_view name = "flatten-matmul-operand-load";
  static constexpr auto roots = rewrite::ops_of<"tile.load">;
  static constexpr int benefit = 2;  // before flatten-load

  ir::Stmt apply(FlattenContext& ctx, rewrite::Rewriter& rw, const ir::Stmt& stmt, const ir::Call& call) const {
    if (!ctx.batch_plan().promotes_to_mat(rw.original().get())) return nullptr;
    const ir::Type nd_type = in_mat(*original_result_tile(rw));
    const ir::TileType& nd = *ir::as<ir::TileType>(nd_type);
    const ir::TensorType* source = ir::tensor_type(call.args[0]);
    const ir::Kwargs kwargs = into_mat(call.kwargs);
    if (source && is_natural_nz_load(nd, *source) && !nz_window_problem(call, nd, *source))
      return rw.replace(rw.call(call.callee.op, collapsed_load_args(rw, call, *source), kwargs, call.attrs));
    const ir::Expr& mapped = *ir::stmt_call_expr(stmt);
    ir::Call in_mat_call = call;
    in_mat_call.kwargs = kwargs;
    return rw.replace(ir::make_expr(std::move(in_mat_call), in_mat(*ir::tile_type(mapped)), mapped->span));
  }
};

// FL-52 / FL-54: page `page` of `op`, emitted; returns the 2D tile that holds it.
inline ir::Expr batch_page(rewrite::Rewriter& rw, const BatchOperand& op, std::int64_t page) {
  const std::string n = std::to_string(page);
  const std::int64_t rows = op.dims[op.dims.size() - 2], cols = op.dims.back();
  if (!op.plan.per_page) {
    const ir::TileType* whole = ir::tile_type(op.flat);
    if (!whole || whole->shape.size() != 2)
      ir::throw_internal_error(std::string(pass_name),
                               "batch_matmul " + op.role + " must be flattened to 2D before its pages are sliced, got " +
                                   (whole ? dims_text(whole->shape) : std::string("a non-tile")),
                               rw.stmt_span());
    ir::Expr at = op.plan.transposed ? rw.tuple({rw.index(0), rw.index(page * cols)})
                                     : rw.tuple({rw.index(page * rows), rw.index(0)});
    return rw.emit(op.role + "_slice_" + n,
                    rw.call(op_ids().slice, {op.flat, rw.tuple({rw.index(rows), rw.index(cols)}), at}));
  }
  // The load as the walker sees it (its operands substituted), one page of its window.
  ir::Expr load_expr = rw.resolve(*op.plan.load);
  const ir::Call& load = *ir::as<ir::Call>(load_expr);
  const ir::Kwargs kwargs = op.load_into_mat ? into_mat(load.kwargs) : load.kwargs;
  const ir::TensorType& tensor = *ir::tensor_type(load.args[0]);
  const auto& offsets = ir::as<ir::MakeTuple>(load.args[1])->elements;
  const std::vector<std::int64_t> window = *ir::static_dims(ir::as<ir::MakeTuple>(load.args[2])->elements);
  const std::vector<std::int64_t> window_batch(window.begin(), window.end() - 2);
  // A safe batch-only reshape may regroup the batch between the load and the matmul: the
  // page number is the same, its indices are the load's.
  std::vector<ir::Expr> at = offsets_plus(offsets, unravel(page, window_batch), rw.call_span());
  ir::Expr view = rw.emit(op.role + "_pbview2d_" + n, collapsed_tensor_view(rw, load.args[0], tensor));
  ir::Expr extent = rw.tuple({rw.index(window[window.size() - 2]), rw.index(window.back())});
  ir::Expr tile = rw.emit(op.role + "_pbload_" + n,
                           rw.call(op_ids().load, {view, rw.tuple(collapsed_offset(at, tensor.shape, rw.call_span())),
                                                    extent, extent},
                                    kwargs, load.attrs));
  if (op.plan.transposed) tile = rw.emit(op.role + "_pbview_" + n, rw.call(op_ids().transpose_view, {tile}));
  return tile;
}

struct FlattenBatchMatmul {
  static constexpr std::string_view name = "flatten-batch-matmul";
  static constexpr auto roots = rewrite::ops_of<"tile.batch_matmul", "tile.batch_matmul_acc">;

  ir::Stmt apply(FlattenContext& ctx, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    const BatchMatmulSite* site = ctx.batch_plan().site(rw.original().get());
    const BatchGeometry* geometry = ctx.batch_geometry_of(rw.original().get());
    if (!site || !geometry)
      ir::throw_internal_error(std::string(pass_name), "a batched matmul the analysis did not plan", rw.stmt_span());
    const bool acc = call.callee.op == op_ids().batch_matmul_acc;
    const std::size_t l = acc ? 1 : 0;
    const BatchGeometry& g = *geometry;  // the analysis raised every rejection while computing it
    const BatchMatmulPlan& plan = ctx.batch_plan();
    const BatchOperand lhs{"lhs", call.args[l], g.lhs, site->lhs, plan.promotes_to_mat(site->lhs.load_stmt)};
    const BatchOperand rhs{"rhs", call.args[l + 1], g.rhs, site->rhs, plan.promotes_to_mat(site->rhs.load_stmt)};
    if (acc) return accumulate(ctx, rw, call, g, lhs, rhs);
    if (const AccPack* pack = ctx.packing().of(rw.original_var().get())) return into_packed(rw, g, lhs, rhs, *pack);
    return product(rw, g, lhs, rhs, site->fused_store);
  }

 private:
  // lhs page, then rhs page, for output page `i`.
  static std::pair<ir::Expr, ir::Expr> pages(rewrite::Rewriter& rw, const BatchGeometry& g, const BatchOperand& lhs,
                                             const BatchOperand& rhs, std::int64_t i) {
    ir::Expr l = batch_page(rw, lhs, g.lhs_page(i));
    return {l, batch_page(rw, rhs, g.rhs_page(i))};
  }

  // FL-56…FL-58.
  static ir::Stmt product(rewrite::Rewriter& rw, const BatchGeometry& g, const BatchOperand& lhs,
                          const BatchOperand& rhs, const ir::StmtNode* fused_store) {
    const OpIds& op = op_ids();
    const ir::DataType dtype = original_result_tile(rw)->dtype;
    const bool cast = ops::deduce::accumulator_dtype(ir::tile_type(lhs.flat)->dtype, ir::tile_type(rhs.flat)->dtype) != dtype;
    if (g.pages == 1 && !fused_store && !cast) {
      auto [l, r] = pages(rw, g, lhs, rhs, 0);
      return rw.replace(rw.call(op.matmul, {l, r}));
    }
    const std::string result(ir::name_hint(rw.original_var()));
    ir::Expr out;  // the Vec tile the pages are assembled into
    if (!fused_store)
      out = rw.emit(result, rw.call(op.create, {rw.tuple({rw.index(g.pages * g.m), rw.index(g.n)})},
                                      {{"dtype", dtype}, {"target_memory", ir::MemorySpace::Vec}}));
    FusedStore store = fused_store ? FusedStore(rw, fused_store, g) : FusedStore();
    for (std::int64_t i = 0; i < g.pages; ++i) {
      const std::string n = std::to_string(i);
      auto [l, r] = pages(rw, g, lhs, rhs, i);
      ir::Expr page = rw.emit("matmul_" + n, rw.call(op.matmul, {l, r}));
      if (!fused_store || cast)
        page = rw.emit("matmul_vec_" + n, rw.call(op.move, {page}, {{"target_memory", ir::MemorySpace::Vec}}));
      if (cast)
        page = rw.emit("matmul_cast_" + n,
                        rw.call(op.cast, {page}, {{"target_type", dtype}, {"mode", std::int64_t{2}}}));
      if (fused_store) {
        store.page(rw, page, g.result_index(i), i);
        continue;
      }
      ir::Expr assembled = rw.call(op.assemble, {out, page, rw.tuple({rw.index(i * g.m), rw.index(0)})});
      if (i + 1 == g.pages) return rw.replace(std::move(assembled));
      out = rw.emit(result, std::move(assembled));
    }
    rw.rebind(std::get<ir::Assign>(fused_store->v).var, store.tensor);
    return rw.erase();
  }

  // FL-57: the store after the matmul, performed one page at a time.
  struct FusedStore {
    const ir::StmtNode* stmt = nullptr;
    std::string name;
    std::vector<ir::Expr> offsets;  // the store's, substituted
    ir::Expr tensor;                // the tensor so far
    ir::Kwargs kwargs;
    ir::Expr window;                // [1, …, 1, M, N] for a rank>2 tensor

    FusedStore() = default;
    FusedStore(rewrite::Rewriter& rw, const ir::StmtNode* s, const BatchGeometry& g) : stmt(s) {
      const ir::Assign& a = std::get<ir::Assign>(s->v);
      const ir::Call& st = *ir::as<ir::Call>(a.value);
      name = std::string(ir::name_hint(a.var));
      offsets = ir::as<ir::MakeTuple>(rw.resolve(st.args[1]))->elements;
      tensor = rw.resolve(st.args[2]);
      kwargs = st.kwargs;
      const std::size_t rank = ir::tensor_type(tensor)->shape.size();
      if (rank > 2) {
        rewrite::Rewriter::SpansOf spans(rw, stmt);
        std::vector<ir::Expr> w(rank - 2, rw.index(1));
        w.push_back(rw.index(g.m));
        w.push_back(rw.index(g.n));
        window = rw.tuple(std::move(w));
      }
    }

    void page(rewrite::Rewriter& rw, const ir::Expr& tile, const std::vector<std::int64_t>& idx, std::int64_t i) {
      rewrite::Rewriter::SpansOf spans(rw, stmt);
      std::vector<ir::Expr> args = operands({tile, rw.tuple(offsets_plus(offsets, idx, rw.call_span())), tensor}, window);
      const ir::Span& var_span = std::get<ir::Assign>(stmt->v).var->span;
      tensor = rw.emit(name + "_" + std::to_string(i), rw.call(op_ids().store, std::move(args), kwargs), &var_span);
    }
  };

  // FL-59: the producer of a column-packed accumulator chain.
  static ir::Stmt into_packed(rewrite::Rewriter& rw, const BatchGeometry& g,
                              const BatchOperand& lhs, const BatchOperand& rhs, const AccPack& pack) {
    const OpIds& op = op_ids();
    const std::string result(ir::name_hint(rw.original_var()));
    ir::Expr acc = rw.emit(result, rw.call(op.create, {rw.tuple({rw.index(pack.rows), rw.index(pack.pages * pack.cols)})},
                                             {{"dtype", pack.dtype}, {"target_memory", ir::MemorySpace::Acc}}));
    for (std::int64_t i = 0; i < g.pages; ++i) {
      auto [l, r] = pages(rw, g, lhs, rhs, i);
      // One offset tuple for the window and its write-back: codegen recognises the
      // assemble as a copy onto itself by that identity (an Acc has no tile move).
      ir::Expr at = rw.tuple({rw.index(0), rw.index(i * g.n)});
      ir::Expr assembled = update_page(rw, acc, at, l, r, g, i, ir::make_bool(true, rw.call_span()));
      if (i + 1 == g.pages) return rw.replace(std::move(assembled));
      acc = rw.emit(result, std::move(assembled));
    }
    ir::throw_internal_error(std::string(pass_name), "tile.batch_matmul with no pages", rw.stmt_span());
  }

  // acc_page_i = slice(acc, [M, N], at); matmul_acc_i = matmul_acc(acc_page_i, l, r[, init]);
  // returns assemble(acc, matmul_acc_i, at).
  static ir::Expr update_page(rewrite::Rewriter& rw, const ir::Expr& acc, const ir::Expr& at, const ir::Expr& l,
                              const ir::Expr& r, const BatchGeometry& g, std::int64_t i, ir::Expr init = nullptr) {
    const OpIds& op = op_ids();
    const std::string n = std::to_string(i);
    ir::Expr window = rw.emit("acc_page_" + n, rw.call(op.slice, {acc, rw.tuple({rw.index(g.m), rw.index(g.n)}), at}));
    ir::Expr product = rw.emit("matmul_acc_" + n, rw.call(op.matmul_acc, operands({window, l, r}, std::move(init))));
    return rw.call(op.assemble, {acc, product, at});
  }

  // FL-60…FL-62, FL-64: tile.batch_matmul_acc.
  static ir::Stmt accumulate(const FlattenContext& ctx, rewrite::Rewriter& rw, const ir::Call& call, const BatchGeometry& g,
                             const BatchOperand& lhs, const BatchOperand& rhs) {
    const OpIds& op = op_ids();
    ir::Expr acc = call.args[0];
    // init_cond, when given, holds for every page: True overwrites the batch, not one page.
    const ir::Expr init = call.args.size() > 3 ? call.args[3] : nullptr;
    const std::string name(ir::name_hint(acc));
    if (g.pages == 1) {
      auto [l, r] = pages(rw, g, lhs, rhs, 0);
      return rw.replace_as(name, rw.call(op.matmul_acc, operands({acc, l, r}, init)));
    }
    const bool packed = ctx.packing().of(rw.original_call()->args[0].get()) != nullptr;
    for (std::int64_t i = 0; i < g.pages; ++i) {
      auto [l, r] = pages(rw, g, lhs, rhs, i);
      ir::Expr at = packed ? rw.tuple({rw.index(0), rw.index(i * g.n)}) : rw.tuple({rw.index(i * g.m), rw.index(0)});
      ir::Expr assembled = update_page(rw, acc, at, l, r, g, i, init);
      if (i + 1 == g.pages) return rw.replace_as(name, std::move(assembled));
      acc = rw.emit(name, std::move(assembled));
    }
    ir::throw_internal_error(std::string(pass_name), "tile.batch_matmul_acc with no pages", rw.stmt_span());
  }
};

}  // namespace tilewright::passes::flatten
