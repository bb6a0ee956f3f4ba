#pragma once
// CanonicalizeTileSlice (seed 004; CT-01…CT-24).
//
// Lowers tile.slice into the canonical tile.extract form wherever leaving a zero-copy view
// would go wrong later, so data movement is unified on pto.textract:
//   * Mat slices read by tile.extract or by a matmul operand are folded into the extract or
//     turned into a Left/Right extract (an L1→L1 textract is not supported) — CT-08…CT-10;
//   * Vec slices that tile.col_expand_* would copy in place over their own source are
//     copied out first (issues #1640, #2010) — CT-11;
//   * Vec slices that are not provably 32-byte aligned are copied out before a vector op
//     reads them, also through aliases, loop carries and yields (issue #1789) — CT-12…CT-17;
//   * slices left without readers are removed (CT-18);
//   * a matmul accumulator that is a window L0C cannot hold compactly is rejected (CT-19…CT-24).
// Per function: one rule walk that also runs the analysis (each statement analyzed before the
// rules see it; the accumulator check throws from there, and the input, never modified, is
// what the caller keeps), then the dead-slice sweep.
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "tilewright/pass/pass.hpp"
#include "tilewright/passes/canonicalize_tile_slice/dead_slices.hpp"
#include "tilewright/passes/canonicalize_tile_slice/walker.hpp"

namespace tilewright::passes {

struct CanonicalizeTileSlice : pass::FunctionPass<CanonicalizeTileSlice> {
  // CT-01: a property-preserving rewrite.
  static constexpr pass::PropertySet properties{
      pass::Property::SSAForm, pass::Property::SplitIncoreOrch, pass::Property::IncoreTileOps,
      pass::Property::TileOps2D, pass::Property::NormalizedStmtStructure};
  static constexpr pass::PassInfo info{"CanonicalizeTileSlice",
                                       "canonicalize_tile_slice",
                                       pass::PassLevel::function,
                                       properties,
                                       properties,
                                       {}};

  // The rule set the walk offers statements to (passes::with_rules adds to it).
  static constexpr const auto& rules = canonicalize::canonicalize_rules;

  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx) const {
    return run_function(f, ctx, rules);
  }

  // CT-01…CT-03: InCore, AIC and AIV functions only; a function without a canonical slice,
  // or where nothing changes, comes back as the same object.
  template <class Rules>
  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx, const Rules& rule_set) const {
    if (!ir::is_incore(f->type) || !f->body) return f;
    // The pass's own rules rewrite only around canonical slices: a function without one is
    // skipped unread. Rules added to the set (with_rules) see every function.
    if constexpr (std::is_same_v<Rules, canonicalize::CanonicalizeRules>)
      if (!canonicalize::assigns_a_slice(f->body)) return f;
    const ops::Registry& registry = ctx.registry();
    canonicalize::SliceAnalysis analysis;  // filled by the walk, statement by statement
    canonicalize::CanonicalizeContext context(analysis, registry);
    canonicalize::BasicCanonicalizeWalker<Rules> walker(rule_set, context, analysis, registry);
    ir::Stmt rewritten = walker.run(f->body);
    if (analysis.slices.empty() && rewritten == f->body) return f;  // nothing was ours, nothing changed
    std::optional<canonicalize::SliceReads> reads = walker.take_reads();
    if (!reads) reads = canonicalize::count_slice_reads(rewritten, analysis);
#ifndef NDEBUG
    // Debug builds (every test) check the walk against the phases run on their own: the
    // analysis of the input, and a recount of the result's slice reads that reads every
    // operand, closed ones included (so the derived closed-argument facts are checked too).
    if (!analysis.same_slices_as(canonicalize::analyze_slices(f->body, registry)))
      ir::throw_internal_error(std::string(info.name),
                               "the analysis run during the rewrite differs from a sweep of the input");
    const canonicalize::SliceReads recount = canonicalize::count_slice_reads(
        rewritten, analysis, canonicalize::SliceReadCounter::Operands::all);
    if (!canonicalize::same_reads(*reads, recount) || !canonicalize::holds_all(*reads, recount))
      ir::throw_internal_error(std::string(info.name),
                               "the slice reads counted during the rewrite differ from a recount of its result");
#endif
    ir::Stmt body = canonicalize::drop_dead_slices(std::move(rewritten), analysis, std::move(*reads));
    walker.report(ctx.stats, info.name);
    ctx.stats.add(info.name, "copy-unaligned-loop-init: applied", context.loop_inits_copied);
    if (body == f->body) return f;
    ir::FunctionNode copy = *f;
    copy.body = std::move(body);
    return ir::make_function(std::move(copy));
  }
};

inline constexpr CanonicalizeTileSlice canonicalize_tile_slice{};

}  // namespace tilewright::passes
