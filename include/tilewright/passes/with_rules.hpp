#pragma once
// A shipped pass with rules of your own added to its rule set:
//
//   constexpr auto my_flatten = passes::with_rules(passes::flatten_tile_nd_to_2d, my_rule);
//   program = my_flatten(program, ctx);
//
// The result is a pass of its own type (same name, same properties) whose walk offers each
// node to the pass's rules and the added ones together, ordered by benefit as rule_set orders
// them (equal benefits: the pass's rules first; rewrite::with_benefit<N> puts yours ahead). The
// added rules receive the pass's context type, are counted under the pass's name in the
// statistics, and are tried wherever the pass walks: the pass derives its fast paths from
// the whole set's roots, so a rule it was not written with is never skipped (a rule rooted at
// an expression turns off a fast path that does not visit expressions).
//
// Shipped passes built from rules expose `rules` (their set) and `run_function(f, ctx, set)`:
// FlattenTileNdTo2D, CanonicalizeTileSlice, FoldNoOpReshape.
#include <concepts>
#include <utility>

#include "tilewright/pass/pass.hpp"
#include "tilewright/rewrite/rule.hpp"

namespace tilewright::passes {

template <class P>
concept pass_with_rule_set = requires(const P& p, const ir::Function& f, pass::PassContext& ctx) {
  P::rules;
  { p.run_function(f, ctx, P::rules) } -> std::same_as<ir::Function>;
};

template <class Pass, class Rules>
struct PassWithRules : pass::FunctionPass<PassWithRules<Pass, Rules>> {
  static constexpr pass::PassInfo info = Pass::info;
  Rules rules;

  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx) const {
    return Pass{}.run_function(f, ctx, rules);
  }
};

template <class Pass, class... Extra>
constexpr auto with_rules(const Pass&, Extra... extra) {
  static_assert(pass_with_rule_set<Pass>,
                "passes::with_rules: this pass is not built from a rule set (FlattenTileNdTo2D, "
                "CanonicalizeTileSlice and FoldNoOpReshape are); write a pass of your own that runs your "
                "rules (docs/writing-a-rule.md) and put it after this one in the pipeline");
  auto all = rewrite::concat(Pass::rules, rewrite::rule_set(std::move(extra)...));
  return PassWithRules<Pass, decltype(all)>{{}, std::move(all)};
}

}  // namespace tilewright::passes
