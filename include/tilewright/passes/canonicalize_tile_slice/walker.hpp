#pragma once
// The CanonicalizeTileSlice driver: the rule walker, plus the one rewrite that must happen
// before a statement's children are visited — CT-17a, an unaligned Vec slice that initializes
// a loop carry. The copy is emitted before the loop and the initializer redirected to it
// while the loop is rebuilt, so the carry is re-minted once with the aligned initializer and
// every use inside the body follows. Done after the body instead, the new carry would have to
// be substituted through the body a second time.
//   s = slice(t, [16, 1], [0, 7]);  for i, (acc,) in pl.range(3, init_values=(s,)): …
//   → s_textract = extract(t, 0, 7, [16, 1], target_memory=Vec);  for … init_values=(s_textract,) …
#include <vector>

#include "tilewright/passes/canonicalize_tile_slice/rules.hpp"
#include "tilewright/rewrite/driver.hpp"

namespace tilewright::passes::canonicalize {

class CanonicalizeWalker
    : public rewrite::RuleWalker<CanonicalizeWalker, CanonicalizeRules, CanonicalizeContext> {
 public:
  using RuleWalker::RuleWalker;

  ir::Stmt mutate_stmt(const ir::Stmt& s) {
    const std::vector<ir::Expr>* iter_args = loop_carries(s);
    if (!iter_args) return RuleWalker::mutate_stmt(s);
    std::vector<ir::Stmt> copies;
    std::vector<ir::Expr> redirected;
    for (const auto& ia : *iter_args) {
      auto* carry = ir::as<ir::IterArg>(ia);
      if (!carry) continue;
      // Through the walker: an initializer an enclosing loop already redirected is no slice.
      ir::Expr init = mutate_expr(carry->init);
      const Slice* slice = context().slice_of(init);
      if (!slice || !context().needs_aligned_copy(*slice)) continue;
      auto [copy, var] = context().extract_stmt(*slice, ir::MemorySpace::Vec, s->span);
      copies.push_back(std::move(copy));
      substitute(init, std::move(var));
      redirected.push_back(std::move(init));
    }
    ir::Stmt loop = RuleWalker::mutate_stmt(s);
    if (copies.empty()) return loop;
    for (const auto& init : redirected)
      substitute(init, init);  // the redirection ends with the loop
    context().loop_inits_copied += copies.size();
    copies.push_back(std::move(loop));
    return CanonicalizeContext::sequence(std::move(copies));
  }

 private:
  static const std::vector<ir::Expr>* loop_carries(const ir::Stmt& s) noexcept {
    if (auto* f = ir::as<ir::For>(s)) return &f->iter_args;
    if (auto* w = ir::as<ir::While>(s)) return &w->iter_args;
    return nullptr;
  }
};

}  // namespace tilewright::passes::canonicalize
