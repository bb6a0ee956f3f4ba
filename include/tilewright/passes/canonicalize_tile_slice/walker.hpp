#pragma once
// The CanonicalizeTileSlice driver: the rule walker, plus the one rewrite that must happen
// before a statement's children are visited — CT-17a, an unaligned Vec slice that initializes
// a loop carry. The copy is emitted before the loop and the initializer redirected to it
// while the loop is rebuilt, so the carry is re-minted once with the aligned initializer and
// every use inside the body follows. Done after the body instead, the new carry would have to
// be substituted through the body a second time.
//   s = slice(t, [16, 1], [0, 7]);  for i, (acc,) in pl.range(3, init_values=(s,)): …
//   → s_textract = extract(t, 0, 7, [16, 1], target_memory=Vec);  for … init_values=(s_textract,) …
// The walker also counts the slice reads of what it produces (SliceReadCounter), statement by
// statement while each is at hand, for the dead-slice sweep: no second walk of the body.
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "tilewright/passes/canonicalize_tile_slice/dead_slices.hpp"
#include "tilewright/passes/canonicalize_tile_slice/rules.hpp"
#include "tilewright/rewrite/driver.hpp"

namespace tilewright::passes::canonicalize {

class CanonicalizeWalker
    : public rewrite::RuleWalker<CanonicalizeWalker, CanonicalizeRules, CanonicalizeContext> {
 public:
  CanonicalizeWalker(CanonicalizeRules rules, CanonicalizeContext& context,
                     const ops::Registry* registry)
      : RuleWalker(std::move(rules), context, registry), reads_(context.analysis()) {}

  // The slice reads of the body the walk produced, as count_slice_reads would count them
  // there; nullopt when a rule made a shape this count does not follow (a replacement with
  // statements inside; none of the rules does), and the caller recounts.
  [[nodiscard]] std::optional<SliceReads> take_reads() {
    if (!reads_exact_) return std::nullopt;
    return reads_.take();
  }

  ir::Stmt mutate_stmt(const ir::Stmt& s) {
    if (!s) return s;
    // The generic rebuild copies every node to map its children. Two shapes skip it: a
    // statement list (its one field, the statements, is walked in place and copied only from
    // the first that changes), and, while no Var has been substituted or re-minted, a
    // statement without nested statements (every expression then maps to itself: no rule is
    // rooted at an expression, and none rebinds a Var — they keep the Var and replace its
    // value). Both still enter the rewriter's frame and are offered to the rules.
    // Each statement of the result is counted where it is produced: a list's statements as
    // they were walked; anything else comes back as itself, or as fresh statements (the
    // rules' copies) and then it, and is counted here.
    if (auto* seq = ir::as<ir::Seq>(s)) {
      ir::Stmt rebuilt;
      ir::Stmt out = rewrite_rebuilt(s, [&] { return rebuilt = rebuild_seq(s, *seq); });
      if (out == rebuilt) reads_.list(out);
      else reads_exact_ = false;
      return out;
    }
    return counted(produce(s));
  }

  // A Var whose type or initializer changed is re-minted (Mutator::mutate_definition): from
  // then on expressions may map to something else.
  ir::Expr mutate_definition(const ir::Expr& e) {
    ir::Expr out = RuleWalker::mutate_definition(e);
    if (out != e) substituted_ = true;
    return out;
  }

  // The rules replace statements without nested ones by such statements; a replacement with
  // statements of its own inside would hold statements the walk never counted.
  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& original) {
    ir::Stmt out = RuleWalker::rewrite_stmt(rebuilt, original);
    if (out != rebuilt && !is_leaf_stmt(out)) reads_exact_ = false;
    return out;
  }

 private:
  // What a statement that is not a list becomes, loop initializer copies (CT-17a) included.
  ir::Stmt produce(const ir::Stmt& s) {
    if (!substituted_ && is_leaf_stmt(s)) return rewrite_rebuilt(s, [&] { return s; });
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
      substituted_ = true;
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

  // `out`, produced for one statement that is not a list: it, or fresh statements before it.
  // Only the last may have statements inside (the walked one: those were counted as walked).
  ir::Stmt counted(ir::Stmt out) {
    auto* seq = ir::as<ir::Seq>(out);
    if (!seq) {
      reads_.count(out);
      return out;
    }
    for (std::size_t i = 0; i < seq->stmts.size(); ++i) {
      const ir::Stmt& piece = seq->stmts[i];
      if (!is_leaf_stmt(piece) && i + 1 != seq->stmts.size()) reads_exact_ = false;
      reads_.count(piece);
    }
    reads_.list(out);
    return out;
  }

  // RuleWalker::mutate_stmt with `rebuild` in place of the generic rebuild.
  template <class Rebuild>
  ir::Stmt rewrite_rebuilt(const ir::Stmt& s, Rebuild&& rebuild) {
    rewriter().enter(s);
    ir::Stmt rebuilt = rebuild();
    ir::Stmt out = rewrite_stmt(rebuilt, s);
    return rewriter().leave(std::move(out));
  }

  // What Mutator::rebuild_stmt makes of a statement list: the same node when no statement
  // changed, else the rebuilt list, flattened.
  ir::Stmt rebuild_seq(const ir::Stmt& s, const ir::Seq& seq) {
    std::vector<ir::Stmt> out;
    bool changed = false;
    for (std::size_t i = 0; i < seq.stmts.size(); ++i) {
      ir::Stmt next = mutate_stmt(seq.stmts[i]);
      if (!changed) {
        if (next == seq.stmts[i]) continue;
        changed = true;
        out.reserve(seq.stmts.size());
        out.assign(seq.stmts.begin(), seq.stmts.begin() + static_cast<std::ptrdiff_t>(i));
      }
      out.push_back(std::move(next));
    }
    if (!changed) return s;
    return ir::make_seq(std::move(out), s->span);
  }

  bool substituted_ = false;  // a Var was substituted or re-minted: leaves take the generic path
  SliceReadCounter reads_;
  bool reads_exact_ = true;

  static const std::vector<ir::Expr>* loop_carries(const ir::Stmt& s) noexcept {
    if (auto* f = ir::as<ir::For>(s)) return &f->iter_args;
    if (auto* w = ir::as<ir::While>(s)) return &w->iter_args;
    return nullptr;
  }
};

}  // namespace tilewright::passes::canonicalize
