#pragma once
// ConvertToSSA (upstream's first pass; docs/passes/convert_to_ssa.md).
//
// DSL users re-assign names: `out_0 = pl.store(t, [0, 0], out_0)`, `acc = pl.add(acc, x)`
// in a loop body, `x = …` in one branch of an if. The parser keeps one Var per name, so
// such a program defines a Var more than once. This pass gives every later definition a
// fresh Var, and turns the values that flow around a loop or out of an if into the
// iter_args, yields and return vars that SSA form spells out (a Python `while cond:` whose
// body re-assigns names becomes `pl.while_` + `pl.cond` with iter_args).
//
// Two phases per function: a read-only analysis of which Vars each loop may carry
// (analysis.hpp), then one rewriting walk (rewrite.hpp). Both are linear in the size of the
// function plus the carries they add. A program already in SSA form comes back as the very
// same objects, so running the pass twice changes nothing more.
//
// Properties: produces SSAForm and requires nothing. Upstream declares that it invalidates
// NormalizedStmtStructure; here statement lists are flattened by construction (make_seq),
// so the pass keeps that property and the pipeline need not re-establish it.
#include "tilewright/pass/pass.hpp"
#include "tilewright/passes/convert_to_ssa/analysis.hpp"
#include "tilewright/passes/convert_to_ssa/rewrite.hpp"

namespace tilewright::passes {

struct ConvertToSSA : pass::FunctionPass<ConvertToSSA> {
  static constexpr pass::PassInfo info{
      "ConvertToSSA", "convert_to_ssa", pass::PassLevel::function, {}, {pass::Property::SSAForm}, {}};

  // Every function, of any type: SSA form is a property of the whole program. A failure
  // (a read with no value on some path) throws before anything is returned.
  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx) const {
    if (!f->body) return f;
    const ssa::FunctionFacts facts = ssa::analyze(*f);
    ssa::SsaRewriter rewriter(*f, facts, info.name);
    ir::Function out = rewriter.run(f);
    rewriter.report(ctx.stats, info.name);
    return out;
  }
};

inline constexpr ConvertToSSA convert_to_ssa{};

}  // namespace tilewright::passes
