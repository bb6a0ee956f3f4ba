#pragma once
// A downstream rule and pass: `tile.muls(x, 1.0)` is `x`.
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

// The pass: run the rule set bottom-up over every function. It requires nothing and
// produces nothing, so a pipeline may place it anywhere.
struct FoldMulsByOne : tw::pass::FunctionPass<FoldMulsByOne> {
  static constexpr tw::pass::PassInfo info{"FoldMulsByOne", "fold_muls_by_one", tw::pass::PassLevel::function,
                                           {}, {}, {}};

  tw::ir::Function run_function(const tw::ir::Function& f, tw::pass::PassContext& ctx) const {
    auto result = tw::rewrite::rewrite_post_order(tw::rewrite::rule_set(fold_muls_by_one), f);
    result.report(ctx.stats, info.name);
    return result.node;  // the same object when nothing was folded
  }
};

inline constexpr FoldMulsByOne fold_muls_by_one_pass{};

}  // namespace my_compiler
