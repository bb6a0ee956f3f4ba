// What declarative rules cost next to the hand-written rules they replaced (issue 12), on the
// same inputs, in the same binary, through the same driver and Rewriter:
//
//   rules/<pass>/declarative/<workload>/<statements>   the shipped rule set
//   rules/<pass>/handwritten/<workload>/<statements>   the same rewrites as hand-written
//                                                      `apply` structs (what the pass used
//                                                      before its rules became declarative)
//
// FlattenTileNdTo2D runs its whole pass (analysis, walk, carry repair) with either rule set;
// FoldNoOpReshape is one rule either way. Both variants must produce the same program, which
// is checked before timing; under callgrind only the timed loop is instrumented.
// docs/benchmarks.md has the numbers.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/passes/fold_no_op_reshape/pass.hpp"

#include "callgrind.hpp"
#include "kernel_generator.hpp"

namespace {

using namespace tilewright;
using bench::Workload;
namespace flatten = passes::flatten;

// ---- the hand-written rules ---------------------------------------------------------------

struct HandFoldNoOpReshape {
  static constexpr std::string_view name = "fold-no-op-reshape";
  static constexpr auto roots = rewrite::ops_of<"tile.reshape">;
  ir::Stmt apply(rewrite::no_context&, rewrite::Rewriter& rw, const ir::Stmt& stmt, const ir::Call& call) const {
    auto* a = ir::as<ir::Assign>(stmt);
    if (!a || call.args.size() != 2 || !passes::fold_detail::is_no_op_reshape(a->var, call.args[0])) return nullptr;
    return ir::make_stmt(ir::Assign{a->var, call.args[0]}, rw.stmt_span());
  }
};

// Operand `index` (a literal shape) replaced by its merged 2D form; FL-26 / FL-36.
inline ir::Stmt hand_merged_shape_operand(rewrite::Rewriter& rw, const ir::Call& call, std::size_t index) {
  const ir::TileType* result = flatten::original_result_tile(rw);
  auto* shape = index < call.args.size() ? ir::as<ir::MakeTuple>(call.args[index]) : nullptr;
  if (!result || !flatten::is_flattenable(*result) || !shape) return nullptr;
  std::vector<ir::Expr> args = call.args;
  args[index] = rw.tuple(flatten::merged_shape(shape->elements, "the shape operand", rw.call_span()));
  return rw.replace(rw.call(call.callee.op, std::move(args), call.kwargs, call.attrs));
}

struct HandCreate {
  static constexpr std::string_view name = "flatten-create";
  static constexpr auto roots = rewrite::ops_of<"tile.create", "tile.full">;
  ir::Stmt apply(flatten::FlattenContext&, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    return hand_merged_shape_operand(rw, call, 0);
  }
};

struct HandReshape {
  static constexpr std::string_view name = "flatten-reshape";
  static constexpr auto roots = rewrite::ops_of<"tile.reshape", "tile.reinterpret_view">;
  ir::Stmt apply(flatten::FlattenContext&, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    return call.args.size() == 2 ? hand_merged_shape_operand(rw, call, 1) : nullptr;
  }
};

struct HandStore {
  static constexpr std::string_view name = "flatten-store";
  static constexpr auto roots = rewrite::ops_of<"tile.store">;
  ir::Stmt apply(flatten::FlattenContext&, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    const ir::TensorType* tensor = call.args.size() == 3 ? ir::tensor_type(call.args[2]) : nullptr;
    const ir::TileType* written = flatten::original_arg_tile(rw, 0);
    if (!tensor || tensor->shape.size() <= 2 || !written) return nullptr;
    ir::Expr tile = call.args[0];
    if (auto* t = ir::tile_type(tile); t && flatten::is_flattenable(*t))
      tile = rw.emit("flat_tile",
                     rw.call(flatten::op_ids().reshape,
                             {tile, rw.tuple(flatten::merged_shape(t->shape, "tile.store operand", rw.call_span()))}));
    ir::Expr window = rw.tuple(flatten::store_partition_shape(*written, *tensor, call.args[1], rw.stmt_span()));
    return rw.replace(rw.call(call.callee.op, {tile, call.args[1], call.args[2], window}, call.kwargs, call.attrs));
  }
};

struct HandAssemble {
  static constexpr std::string_view name = "flatten-assemble";
  static constexpr auto roots = rewrite::ops_of<"tile.assemble">;
  ir::Stmt apply(flatten::FlattenContext&, rewrite::Rewriter& rw, const ir::Stmt&, const ir::Call& call) const {
    const ir::TileType* target = flatten::original_arg_tile(rw, 0);
    if (!target || !flatten::is_flattenable(*target) || call.args.size() != 3) return nullptr;
    auto* offset = ir::as<ir::MakeTuple>(call.args[2]);
    if (!offset) return nullptr;
    std::vector<ir::Expr> args{call.args[0], call.args[1],
                               rw.tuple(flatten::collapsed_offset(offset->elements, target->shape, rw.call_span()))};
    return rw.replace(rw.call(call.callee.op, std::move(args), call.kwargs, call.attrs));
  }
};

struct HandGeneric {
  static constexpr std::string_view name = "flatten-generic-tile-op";
  static constexpr auto roots = rewrite::any_op;
  static constexpr int benefit = 0;
  ir::Stmt apply(flatten::FlattenContext&, rewrite::Rewriter& rw, const ir::Stmt& stmt, const ir::Call& call) const {
    if (stmt == rw.original() || !ir::is_tile_op(call.callee.op)) return nullptr;
    if (!flatten::operands_changed(call, *rw.original_call())) return nullptr;
    return rw.replace(rw.call(call.callee.op, call.args, call.kwargs, call.attrs, (*ir::stmt_call_expr(stmt))->type));
  }
};

// The shipped set with its declarative rules swapped for the hand-written ones, same order.
inline const auto handwritten_flatten_rules =
    rewrite::rule_set(flatten::FlattenDroppedStatement{}, flatten::FlattenPackedAccumulator{}, flatten::FlattenLoad{},
                      HandStore{}, HandCreate{}, HandAssemble{}, flatten::FlattenTranspose{}, HandReshape{},
                      flatten::FlattenBatchMatmul{}, HandGeneric{});

// ---- the runs -----------------------------------------------------------------------------

template <class Rules>
ir::Program flatten_with(const ir::Program& program, const Rules& rules) {
  pass::PassContext ctx;
  std::vector<ir::Function> functions;
  functions.reserve(program->functions.size());
  for (const auto& f : program->functions) functions.push_back(flatten::flatten_function(f, ctx, rules));
  return ir::make_program(program->name, std::move(functions));
}

template <class Rules>
ir::Program fold_with(const ir::Program& program, const Rules& rules) {
  std::vector<ir::Function> functions;
  functions.reserve(program->functions.size());
  for (const auto& f : program->functions)
    functions.push_back(ir::is_incore(f->type) ? rewrite::rewrite_post_order(rules, f, ops::builtin_registry()).node : f);
  return ir::make_program(program->name, std::move(functions));
}

std::size_t max_statements() {
  const char* env = std::getenv("TILEWRIGHT_BENCH_MAX_STATEMENTS");
  return env ? std::strtoull(env, nullptr, 10) : 100'000;
}

// Times `run(program)` on the generated program, after checking it agrees with `reference`.
template <class Run, class Reference>
void register_rules(const std::string& name, Workload w, Run run, Reference reference) {
  for (std::size_t n : {1'000, 10'000, 100'000}) {
    if (n > max_statements()) continue;
    const std::string full = name + "/" + std::string(bench::workload_name(w)) + "/" + std::to_string(n);
    benchmark::RegisterBenchmark(full.c_str(), [=](benchmark::State& state) {
      const ir::Program program = bench::generate_program({w, n});
      if (!ir::structural_equal(run(program), reference(program)))
        return state.SkipWithError("the two rule sets disagree on this program");
      bench::instrument(true);
      for (auto _ : state) benchmark::DoNotOptimize(run(program));
      bench::instrument(false);
      const auto statements = static_cast<double>(bench::count_statements(program));
      using C = benchmark::Counter;
      state.counters["stmts"] = statements;
      state.counters["time/stmt"] = C(statements, static_cast<C::Flags>(C::kIsIterationInvariantRate | C::kInvert));
    })->Unit(benchmark::kMillisecond);
  }
}

[[maybe_unused]] const bool registered = [] {
  auto declarative_flatten = [](const ir::Program& p) { return flatten_with(p, flatten::flatten_rules); };
  auto handwritten_flatten = [](const ir::Program& p) { return flatten_with(p, handwritten_flatten_rules); };
  auto declarative_fold = [](const ir::Program& p) {
    return fold_with(p, rewrite::rule_set(passes::fold_no_op_reshape_rule));
  };
  auto handwritten_fold = [](const ir::Program& p) { return fold_with(p, rewrite::rule_set(HandFoldNoOpReshape{})); };
  register_rules("rules/FlattenTileNdTo2D/declarative", Workload::nd_tiles, declarative_flatten, handwritten_flatten);
  register_rules("rules/FlattenTileNdTo2D/handwritten", Workload::nd_tiles, handwritten_flatten, declarative_flatten);
  register_rules("rules/FoldNoOpReshape/declarative", Workload::allocated_tiles, declarative_fold, handwritten_fold);
  register_rules("rules/FoldNoOpReshape/handwritten", Workload::allocated_tiles, handwritten_fold, declarative_fold);
  return true;
}();

}  // namespace
