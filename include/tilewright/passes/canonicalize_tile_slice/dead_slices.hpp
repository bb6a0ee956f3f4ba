#pragma once
// CanonicalizeTileSlice, phase 3 (CT-18): canonical slices nobody reads any more are removed.
//
// Once its consumers read the base tile directly a slice is dead; a slice whose source is a
// slice only frees that source when it goes itself. Visiting the slices from last to first
// settles such chains in one pass over them: a dead slice returns its read of its source
// before the source is looked at. One count of the uses (taken by the rule walk as it goes),
// one rebuild of the statement lists — no repeated sweeps. A slice something still reads (a
// consumer this pass leaves alone, such as tile.move of a Mat slice) stays, and so do
// non-canonical slices: they were never ours.
#include <cstdint>
#include <vector>

#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/passes/canonicalize_tile_slice/analysis.hpp"

namespace tilewright::passes::canonicalize {

namespace dead_detail {

// Rebuilds statement lists without the dead definitions; expressions are not entered.
class DeadSliceDropper : public ir::Mutator<DeadSliceDropper> {
 public:
  explicit DeadSliceDropper(const VarSet& dead) : dead_(&dead) {}

  ir::Expr mutate_expr(const ir::Expr& e) { return e; }
  // Only statement lists change, so a statement without nested statements is not rebuilt.
  ir::Stmt mutate_stmt(const ir::Stmt& s) {
    if (!s || is_leaf_stmt(s)) return s;
    return ir::Mutator<DeadSliceDropper>::mutate_stmt(s);
  }

  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& /*original*/) {
    auto* seq = ir::as<ir::Seq>(rebuilt);
    if (!seq) return rebuilt;
    std::vector<ir::Stmt> kept;
    kept.reserve(seq->stmts.size());
    for (const auto& s : seq->stmts)
      if (!is_dead(s)) kept.push_back(s);
    if (kept.size() == seq->stmts.size()) return rebuilt;
    return ir::make_seq(std::move(kept), rebuilt->span);
  }

  [[nodiscard]] bool is_dead(const ir::Stmt& s) const {
    auto* a = ir::as<ir::Assign>(s);
    return a && dead_->contains(a->var.get());
  }

 private:
  const VarSet* dead_;
};

}  // namespace dead_detail

// How often each canonical slice is read, counted as rewrite::count_uses counts (a loop reads
// its initializers; definitions are not reads) but for the slices alone: no other Var's count
// decides anything here. Also the slices still defined in a statement list (only those can be
// taken out of one), each with the operand it reads *now*: a loop initializer's redirection
// (CT-17a) may have changed it, and a dying slice hands back the read it really makes.
struct SliceReads {
  ByVar<std::uint32_t> uses;
  ByVar<const ir::ExprNode*> listed;
};

// Counts statement by statement, so that the rule walk can count what it produces while the
// statements are at hand, instead of a second walk over the whole rewritten body. Every
// statement of a tree is counted once, on its own: `count` reads the statement's expressions,
// never those of the statements nested in it; `list` notes the slices a statement list
// defines.
class SliceReadCounter {
 public:
  explicit SliceReadCounter(const SliceAnalysis& analysis) : analysis_(&analysis) {
    reads_.uses.reserve(analysis.slices.size());
    for (const auto& entry : analysis.slices) reads_.uses.emplace(entry.first, 0);
  }

  void count(const ir::Stmt& s) {
    if (!s || ir::as<ir::Seq>(s)) return;  // a list reads nothing itself
    // Unsigned, as in count_uses: a definition's transient -1 wraps and comes back to 0.
    constexpr std::uint32_t minus_one = ~std::uint32_t{0};
    auto definitions = [&](const std::vector<ir::Expr>& vars) {
      for (const auto& v : vars) bump(v, minus_one);
    };
    auto initializers = [&](const std::vector<ir::Expr>& iter_args) {
      for (const auto& v : iter_args)
        if (auto* ia = ir::as<ir::IterArg>(v); ia && ir::is_var_like(ia->init)) bump(ia->init, 1);
    };
    if (auto* a = ir::as<ir::Assign>(s)) {
      bump(a->var, minus_one);  // the walk meets the definition as an expression next
    } else if (auto* f = ir::as<ir::For>(s)) {
      bump(f->loop_var, minus_one);
      initializers(f->iter_args);
      definitions(f->iter_args);
      definitions(f->return_vars);
    } else if (auto* w = ir::as<ir::While>(s)) {
      initializers(w->iter_args);
      definitions(w->iter_args);
      definitions(w->return_vars);
    } else if (auto* i = ir::as<ir::If>(s)) {
      definitions(i->return_vars);
    }
    ir::walk(
        s, [&](const ir::Stmt& nested) { return nested.get() == s.get(); },
        [&](const ir::Expr& e) {
          if (ir::is_var_like(e)) bump(e, 1);
          return true;
        });
  }

  void list(const ir::Stmt& s) {
    auto* seq = ir::as<ir::Seq>(s);
    if (!seq) return;
    for (const auto& child : seq->stmts)
      if (auto* a = ir::as<ir::Assign>(child); a && analysis_->slices.contains(a->var.get()))
        if (auto* call = ir::as<ir::Call>(a->value); call && !call->args.empty())
          reads_.listed.emplace(a->var.get(), call->args[0].get());
  }

  [[nodiscard]] SliceReads take() { return std::move(reads_); }

 private:
  void bump(const ir::Expr& v, std::uint32_t delta) {
    if (auto it = reads_.uses.find(v.get()); it != reads_.uses.end()) it->second += delta;
  }

  const SliceAnalysis* analysis_;
  SliceReads reads_;
};

// Both count the same reads and list the same slices with the same operands.
inline bool same_reads(const SliceReads& a, const SliceReads& b) {
  auto same = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (const auto& [key, value] : x)
      if (auto it = y.find(key); it == y.end() || !(it->second == value)) return false;
    return true;
  };
  return same(a.uses, b.uses) && same(a.listed, b.listed);
}

// The reads of a whole body, in one read-only walk.
inline SliceReads count_slice_reads(const ir::Stmt& body, const SliceAnalysis& analysis) {
  SliceReadCounter counter(analysis);
  ir::for_each_stmt(body, [&](const ir::Stmt& s) {
    counter.count(s);
    counter.list(s);
  });
  return counter.take();
}

// `reads`: what `body` reads, as count_slice_reads would count it.
inline ir::Stmt drop_dead_slices(const ir::Stmt& body, const SliceAnalysis& analysis, SliceReads reads) {
  auto& [uses, listed] = reads;
  VarSet dead;
  for (auto it = analysis.order.rbegin(); it != analysis.order.rend(); ++it) {
    auto slice = listed.find(*it);
    if (slice == listed.end()) continue;
    if (auto count = uses.find(*it); count != uses.end() && count->second != 0) continue;
    dead.insert(*it);
    if (auto source = uses.find(slice->second); source != uses.end() && source->second > 0)
      --source->second;
  }
  if (dead.empty()) return body;
  dead_detail::DeadSliceDropper dropper(dead);
  return dropper.mutate_stmt(body);
}

}  // namespace tilewright::passes::canonicalize
