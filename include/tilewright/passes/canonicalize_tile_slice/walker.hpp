#pragma once
// The CanonicalizeTileSlice driver: the rule walker, plus the one rewrite that must happen
// before a statement's children are visited — CT-17a, an unaligned Vec slice that initializes
// a loop carry. The copy is emitted before the loop and the initializer redirected to it
// while the loop is rebuilt, so the carry is re-minted once with the aligned initializer and
// every use inside the body follows. Done after the body instead, the new carry would have to
// be substituted through the body a second time.
//   s = slice(t, [16, 1], [0, 7]);  for i, (acc,) in pl.range(3, init_values=(s,)): …
//   → s_textract = extract(t, 0, 7, [16, 1], target_memory=Vec);  for … init_values=(s_textract,) …
// The walker also runs the analysis (analysis.hpp's Collector, statement by statement, each
// statement before the rules see it) and counts the slice reads of what it produces
// (SliceReadCounter) while each statement is at hand, for the dead-slice sweep: the body is
// read once, not once per phase — on a program larger than the caches, each sweep of its
// own costs as much as the walk's misses.
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilewright/passes/canonicalize_tile_slice/dead_slices.hpp"
#include "tilewright/passes/canonicalize_tile_slice/rules.hpp"
#include "tilewright/rewrite/driver.hpp"

namespace tilewright::passes::canonicalize {

// Over any rule set: the pass's own (canonicalize_rules), or that set with a user's rules added
// (passes::with_rules).
template <class Rules>
class BasicCanonicalizeWalker
    : public rewrite::RuleWalker<BasicCanonicalizeWalker<Rules>, Rules, CanonicalizeContext> {
  using Base = rewrite::RuleWalker<BasicCanonicalizeWalker<Rules>, Rules, CanonicalizeContext>;

 public:
  // The walk also runs the analysis, statement by statement, into `analysis`: the one the
  // context reads. Each statement is analyzed before the rules see it, and every operand is
  // defined before the statement reading it, so a rule finds every slice it could be offered
  // and the program is read once, not once per phase.
  BasicCanonicalizeWalker(Rules rules, CanonicalizeContext& context, SliceAnalysis& analysis,
                          const ops::Registry& registry)
      : Base(std::move(rules), context, &registry),
        collector_(registry, analysis),
        analysis_(&analysis),
        reads_(analysis) {}

  // The slice reads of the body the walk produced, as count_slice_reads would count them
  // there; nullopt when a rule made a shape this count does not follow (a replacement with
  // statements inside; none of the rules does), and the caller recounts.
  [[nodiscard]] std::optional<SliceReads> take_reads() {
    if (!reads_exact_) return std::nullopt;
    return reads_.take();
  }

  ir::Stmt mutate_stmt(const ir::Stmt& s) {
    if (!s) return s;
    if (takes_leaf_path(s)) {
      if (leaf_pieces(s)) return s;
      if (pieces_.size() == 1) return std::move(pieces_.front());
      ir::Stmt list = ir::make_seq(std::move(pieces_), s->span);
      reads_.list(list);
      return list;
    }
    return analyzed(s, [&] {
      const std::size_t holders = reads_.holder_count();
      ir::Stmt out = rewritten(s);
      if (reads_.holder_count() != holders) {  // it holds a list defining a slice
        reads_.hold(out);
        // `s` came back behind fresh statements (CT-17a's copies, a rule's): it is the last.
        if (auto* seq = ir::as<ir::Seq>(out); seq && !ir::as<ir::Seq>(s) && !seq->stmts.empty())
          reads_.hold(seq->stmts.back());
      }
      return out;
    });
  }

  // The rules replace statements without nested ones by such statements; a replacement with
  // statements of its own inside would hold statements the walk never counted.
  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& original) {
    ir::Stmt out = Base::rewrite_stmt(rebuilt, original);
    if (out != rebuilt && !is_leaf_stmt(out)) reads_exact_ = false;
    return out;
  }

 private:
  // The analysis reads `s` before the rules see it, and leaves it after the statements nested
  // in it (Collector::enter/leave): `f` rewrites it in between.
  template <class F>
  std::invoke_result_t<F&> analyzed(const ir::Stmt& s, F&& f) {
    collector_.enter(s);
    reads_.track_new_slices();  // `s` may have defined a canonical slice
    auto out = f();
    collector_.leave(s);
    return out;
  }

  // The generic rebuild copies every node to map its children. Two shapes skip it: a
  // statement list (rewritten below: its one field, the statements, is walked in place and
  // copied only from the first that changes), and a statement without nested statements
  // while no Var has been substituted, re-minted or rebound (leaf_pieces: every expression
  // then maps to itself). Both still enter the rewriter's frame and are offered to the
  // statement rules. The leaf path never offers expressions to rules, so it exists only for a
  // rule set with no expression rule (RuleWalker::expressions_map_to_themselves).
  [[nodiscard]] bool takes_leaf_path(const ir::Stmt& s) const noexcept {
    return this->expressions_map_to_themselves(s);
  }

  // What the rules make of `s`, a statement that does not take the leaf path. Each statement
  // of the result is counted where it is produced: a list's statements as they were walked
  // (and listed there, while at hand); anything else comes back as itself, or as fresh
  // statements (CT-17a's copies) and then it, and is counted here.
  ir::Stmt rewritten(const ir::Stmt& s) {
    if (auto* seq = ir::as<ir::Seq>(s)) {
      ir::Stmt rebuilt;
      ir::Stmt out = rewrite_rebuilt(s, [&] { return rebuilt = rebuild_seq(s, *seq); });
      if (out != rebuilt) reads_exact_ = false;
      return out;
    }
    return counted(produce(s));
  }

  // What a statement that is not a list becomes, loop initializer copies (CT-17a) included.
  ir::Stmt produce(const ir::Stmt& s) {
    const std::vector<ir::Expr>* iter_args = loop_carries(s);
    if (!iter_args) return Base::mutate_stmt(s);
    std::vector<ir::Stmt> copies;
    std::vector<ir::Expr> redirected;
    for (const auto& ia : *iter_args) {
      auto* carry = ir::as<ir::IterArg>(ia);
      if (!carry) continue;
      // Through the walker: an initializer an enclosing loop already redirected is no slice.
      ir::Expr init = this->mutate_expr(carry->init);
      const Slice* slice = this->context().slice_of(init);
      if (!slice || !this->context().needs_aligned_copy(*slice)) continue;
      auto [copy, var] = this->context().extract_stmt(*slice, ir::MemorySpace::Vec, s->span);
      copies.push_back(std::move(copy));
      this->substitute(init, std::move(var));
      redirected.push_back(std::move(init));
    }
    ir::Stmt loop = Base::mutate_stmt(s);
    if (copies.empty()) return loop;
    for (const auto& init : redirected)
      this->substitute(init, init);  // the redirection ends with the loop
    this->context().loop_inits_copied += copies.size();
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
    this->rewriter().enter(s);
    ir::Stmt rebuilt = rebuild();
    ir::Stmt out = rewrite_stmt(rebuilt, s);
    return this->rewriter().leave(std::move(out));
  }

  // What Mutator::rebuild_stmt makes of a statement list: the same node when no statement
  // changed, else the rebuilt list, flattened as make_seq flattens — here, as each statement
  // comes back, rather than by reading them all again afterwards. Each slice definition is
  // listed as it comes back, and the list noted as holding it.
  ir::Stmt rebuild_seq(const ir::Stmt& s, const ir::Seq& seq) {
    std::vector<ir::Stmt> out;
    bool changed = false;
    bool lists_slice = false;
    bool flat = true;  // no statement so far is a list make_seq would splice
    for (std::size_t i = 0; i < seq.stmts.size(); ++i) {
      const ir::Stmt& child = seq.stmts[i];
      // Only a statement that defined a slice can be one to list: the others are not read.
      const std::size_t slices_before = analysis_->slices.size();
      // A leaf comes back as the statements it stands for (leaf_pieces), anything else as one.
      const bool leaf = takes_leaf_path(child);
      bool same = false;
      ir::Stmt next;
      if (leaf) {
        same = leaf_pieces(child);
      } else {
        next = mutate_stmt(child);
        same = next == child;
      }
      if (analysis_->slices.size() != slices_before) {
        if (leaf) {
          for (const auto& piece : pieces_) lists_slice |= reads_.list_child(piece);
        } else {
          lists_slice |= reads_.list_child(next);
        }
      }
      if (!changed) {
        if (same) {
          flat = flat && !ir::splices_into_list(child);
          continue;
        }
        changed = true;
        out.reserve(seq.stmts.size());
        if (flat) out.assign(seq.stmts.begin(), seq.stmts.begin() + static_cast<std::ptrdiff_t>(i));
        else for (std::size_t j = 0; j < i; ++j) ir::append_flattened(out, seq.stmts[j]);
      }
      if (leaf) {
        for (auto& piece : pieces_) ir::append_flattened(out, std::move(piece));
      } else {
        ir::append_flattened(out, std::move(next));
      }
    }
    ir::Stmt result = changed ? ir::make_stmt(ir::Seq{std::move(out)}, s->span) : s;
    if (lists_slice) reads_.hold(result);
    return result;
  }

  // What a statement taking the leaf path becomes, left in pieces_ rather than in a list of
  // its own that the list being rebuilt would only take apart again: the statements the rules
  // emitted for it, then what they left of it, each counted as it comes. Returns whether that
  // is the statement itself, alone (the usual answer).
  bool leaf_pieces(const ir::Stmt& s) {
    return analyzed(s, [&] {
      pieces_.clear();
      this->rewriter().enter(s);
      ir::Stmt out = rewrite_stmt(s, s);
      this->rewriter().leave_into(std::move(out), [&](ir::Stmt piece) {
        // As counted(): only the last piece may have statements inside.
        if (!pieces_.empty() && !is_leaf_stmt(pieces_.back())) reads_exact_ = false;
        reads_.count(piece);
        pieces_.push_back(std::move(piece));
      });
      return pieces_.size() == 1 && pieces_.front() == s;
    });
  }

  analysis_detail::Collector collector_;
  const SliceAnalysis* analysis_;
  // leaf_pieces' result, taken by rebuild_seq before the next statement: one buffer for the
  // walk (a leaf has no statements inside, so none is produced while it is in use).
  std::vector<ir::Stmt> pieces_;
  SliceReadCounter reads_;
  bool reads_exact_ = true;

  static const std::vector<ir::Expr>* loop_carries(const ir::Stmt& s) noexcept {
    if (auto* f = ir::as<ir::For>(s)) return &f->iter_args;
    if (auto* w = ir::as<ir::While>(s)) return &w->iter_args;
    return nullptr;
  }
};

using CanonicalizeWalker = BasicCanonicalizeWalker<CanonicalizeRules>;

}  // namespace tilewright::passes::canonicalize
