#pragma once
// FlattenTileNdTo2D (seeds 000 and 003; FL-01…FL-49, FL-67…FL-72).
//
// PTO-ISA takes 2D tiles only. This pass rewrites every >2D tile of an InCore function to
// the 2D tile that holds the same elements in the same order — [d0, …, d(n-2), d(n-1)]
// becomes [d0*…*d(n-2), d(n-1)] — and adapts the ops whose meaning depends on the rank:
// NZ Mat loads, stores into ND tensors, create/full, assemble offsets, transposes and
// reshapes — and unrolls batched matmul into one 2D matmul per page (FL-50…FL-65). Phases
// per function: analysis (every precondition error and the plans, nothing rewritten yet),
// the rewrite, then every name settled on its value's type and the loop-carry valid_shape
// repair (FL-43…FL-45, FL-66). The TileOps2D verifier checks
// the result independently.
#include "tilewright/pass/pass.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/analysis.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/narrow_carry.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/store_results.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/walker.hpp"

namespace tilewright::passes {

namespace flatten {
// One function through the phases, with `rules` (the pass's: flatten_rules). FL-02: InCore,
// AIC and AIV functions only; the others, and an unchanged function, come back as the same
// objects. A failure throws before anything is returned, so the input program is never
// altered (it is immutable anyway).
template <class Rules>
ir::Function flatten_function(const ir::Function& f, pass::PassContext& ctx, const Rules& rules) {
  if (!ir::is_incore(f->type) || !f->body) return f;
  const FunctionAnalysis analysis = analyze(*f, ctx.backend, ctx.max_expansion);
  FlattenContext context(ctx.backend, &analysis);
  BasicFlattenWalker<Rules> walker(rules, context, &ctx.registry());
  // FL-03: parameters keep their types; their uses in the body stay the same Vars.
  for (const auto& p : f->params) walker.substitute(p.var, p.var);
  ir::Stmt body = walker.run(f->body);
  walker.report(ctx.stats, pass_name);
  ctx.stats.add(pass_name, "loads retyped by the type mapping alone", context.retyped_loads());
  // FL-66 runs whether or not anything was flattened: a 2D accumulator carry narrowed by its
  // yield needs the same repair (upstream runs it on every InCore function).
  body = settle_carries(body, ctx.registry(), /*narrowing_only=*/body == f->body);
  if (body == f->body) return f;
  body = split_store_results(*f, body, op_ids().store);
  ir::FunctionNode copy = *f;
  copy.body = std::move(body);
  return ir::make_function(std::move(copy));
}
}  // namespace flatten

struct FlattenTileNdTo2D : pass::FunctionPass<FlattenTileNdTo2D> {
  // FL-01, seed 003: NormalizedStmtStructure is required and kept.
  static constexpr pass::PassInfo info{
      "FlattenTileNdTo2D",
      "flatten_tile_nd_to_2d",
      pass::PassLevel::function,
      {pass::Property::SSAForm, pass::Property::IncoreTileOps, pass::Property::NormalizedStmtStructure},
      {pass::Property::SSAForm, pass::Property::TileOps2D, pass::Property::NormalizedStmtStructure},
      {}};

  // The rule set the walk offers nodes to (passes::with_rules adds to it).
  static constexpr const auto& rules = flatten::flatten_rules;

  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx) const {
    return flatten::flatten_function(f, ctx, rules);
  }
  template <class Rules>
  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx, const Rules& rule_set) const {
    return flatten::flatten_function(f, ctx, rule_set);
  }
};

inline constexpr FlattenTileNdTo2D flatten_tile_nd_to_2d{};

}  // namespace tilewright::passes
