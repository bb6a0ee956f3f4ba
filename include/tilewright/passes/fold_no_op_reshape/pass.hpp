#pragma once
// FoldNoOpReshape (seed 002; FR-01…FR-06).
//
// After memory allocation a `tile.reshape` whose result lives in the same allocation as its
// source and declares the very same tile buffer (TileBufSignature) moves no data: the
// statement becomes a plain alias `lhs = src`. The whole pass is one rule.
#include "tilewright/ops/tile_buf_signature.hpp"
#include "tilewright/pass/pass.hpp"
#include "tilewright/rewrite/driver.hpp"

namespace tilewright::passes {

namespace fold_detail {

// The allocation a tile lives in: the Ptr Var at the root of its MemRef.
inline const ir::ExprNode* memref_root(const ir::TileType& t) noexcept {
  auto* m = ir::as<ir::MemRef>(t.memref);
  return m && m->base ? m->base.get() : nullptr;
}

// FR-02: both tiles, both MemRef-backed, one MemRef root (the same base, whatever the
// offsets), one TileBufSignature (FR-05). The source must be a value, not an expression.
inline bool is_no_op_reshape(const ir::Expr& lhs, const ir::Expr& src) {
  if (!ir::is_var_like(src)) return false;
  auto* lhs_t = ir::as<ir::TileType>(lhs->type);
  auto* src_t = ir::as<ir::TileType>(src->type);
  if (!lhs_t || !src_t) return false;
  const ir::ExprNode* root = memref_root(*lhs_t);
  return root && root == memref_root(*src_t) && ops::from_tile_type(*lhs_t) == ops::from_tile_type(*src_t);
}

using rewrite::placeholders::_;
using rewrite::placeholders::_x;
using rewrite::placeholders::_y;

}  // namespace fold_detail

// `y = tile.reshape(x, shape)` → `y = x` (FR-03). Only the two-operand form in an Assign
// matches: an Eval has no alias to make, and a third operand is not a plain reshape (FR-02).
inline constexpr auto fold_no_op_reshape_rule =
    rewrite::rule("fold-no-op-reshape",
                  rewrite::assign(fold_detail::_y, rewrite::call<"tile.reshape">(fold_detail::_x, fold_detail::_)),
                  rewrite::when<fold_detail::_y, fold_detail::_x>(fold_detail::is_no_op_reshape),
                  rewrite::assign(fold_detail::_y, fold_detail::_x));

struct FoldNoOpReshape : pass::FunctionPass<FoldNoOpReshape> {
  static constexpr pass::PassInfo info{
      "FoldNoOpReshape",
      "fold_no_op_reshape",
      pass::PassLevel::function,
      {pass::Property::SplitIncoreOrch, pass::Property::IncoreTileOps, pass::Property::HasMemRefs,
       pass::Property::TileOps2D},
      {},
      {},
      // FR-04 condition 2: a tile without a MemRef is never folded, so on a program before
      // memory allocation the pass is a no-op, as upstream's is.
      {pass::Property::HasMemRefs}};

  // The rule set (passes::with_rules adds to it).
  static constexpr auto rules = rewrite::rule_set(fold_no_op_reshape_rule);

  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx) const {
    return run_function(f, ctx, rules);
  }

  // FR-01: only InCore/AIC/AIV functions; an unchanged body keeps the function object.
  template <class Rules>
  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx, const Rules& rule_set) const {
    if (!ir::is_incore(f->type) || !f->body) return f;
    auto result = rewrite::rewrite_post_order(rule_set, f, ctx.registry());
    result.report(ctx.stats, info.name);
    return result.node;
  }
};

inline constexpr FoldNoOpReshape fold_no_op_reshape{};

}  // namespace tilewright::passes
