#pragma once
// A downstream pass of two rules:
//   tile.muls(x, 1.0)   is x                 (the replacement is a captured node)
//   tile.muls(x, -1.0)  is tile.neg(x)       (the replacement constructs a call)
//
// Only three library headers are needed: the rules, the driver, and the pass interface.
#include <tilewright/pass/pass.hpp>
#include <tilewright/rewrite/driver.hpp>
#include <tilewright/rewrite/rule.hpp>

namespace my_compiler {

namespace tw = tilewright;
using tw::rewrite::placeholders::_x;

// Pattern: a call to tile.muls whose scalar is the constant 1.0, its tile captured as _x.
// Replacement: _x itself. rule() checks at compile time that the replacement only reads
// binders the pattern captures.
inline constexpr auto fold_muls_by_one =
    tw::rewrite::rule("fold-muls-by-one", tw::rewrite::call<"tile.muls">(_x, tw::rewrite::const_float(1.0)), _x);

// Replacement: a new tile.neg call of the captured tile. It is built through the op registry
// the pass runs with, so its result type is deduced and its span is the multiplication's.
inline constexpr auto negate_muls_by_minus_one =
    tw::rewrite::rule("muls-by-minus-one-to-neg", tw::rewrite::call<"tile.muls">(_x, tw::rewrite::const_float(-1.0)),
                      tw::rewrite::call<"tile.neg">(_x));

// The pass: run the rule set bottom-up over every function. It requires nothing and
// produces nothing, so a pipeline may place it anywhere.
struct FoldMulsByOne : tw::pass::FunctionPass<FoldMulsByOne> {
  static constexpr tw::pass::PassInfo info{"FoldMulsByOne", "fold_muls_by_one", tw::pass::PassLevel::function,
                                           {}, {}, {}};

  tw::ir::Function run_function(const tw::ir::Function& f, tw::pass::PassContext& ctx) const {
    auto rules = tw::rewrite::rule_set(fold_muls_by_one, negate_muls_by_minus_one);
    auto result = tw::rewrite::rewrite_post_order(rules, f, ctx.registry());
    result.report(ctx.stats, info.name);
    return result.node;  // the same object when nothing was rewritten
  }
};

inline constexpr FoldMulsByOne fold_muls_by_one_pass{};

}  // namespace my_compiler
