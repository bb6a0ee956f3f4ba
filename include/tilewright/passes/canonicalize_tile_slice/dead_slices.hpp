#pragma once
// CanonicalizeTileSlice, phase 3 (CT-18): canonical slices nobody reads any more are removed.
//
// Once its consumers read the base tile directly a slice is dead; a slice whose source is a
// slice only frees that source when it goes itself. Visiting the slices from last to first
// settles such chains in one pass over them: a dead slice returns its read of its source
// before the source is looked at. One count of the uses (taken by the rule walk as it goes),
// one rebuild of the statement lists that define a dead slice and of the statements holding
// them — no repeated sweeps, and no statement read again to find them (the count notes where
// each slice is defined, and which statements hold such lists). A slice something still reads (a
// consumer this pass leaves alone, such as tile.move of a Mat slice) stays, and so do
// non-canonical slices: they were never ours.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/passes/canonicalize_tile_slice/analysis.hpp"

namespace tilewright::passes::canonicalize {

namespace dead_detail {

using StmtSet = ir::PointerMap<const ir::StmtNode*, bool>;

// Rebuilds the statement lists holding dead definitions, and what holds those lists;
// expressions are not entered, and no other statement is rebuilt or even read.
class DeadSliceDropper : public ir::Mutator<DeadSliceDropper> {
 public:
  DeadSliceDropper(const StmtSet& dead, const StmtSet& holders) : dead_(&dead), holders_(&holders) {}

  // Through changed_child, the walk's own protocol: what stays is answered with a null, so
  // the statements passed over are not even reference-counted (that too would read them).
  ir::Expr changed_child(const ir::Expr&) { return nullptr; }
  ir::Type changed_child(const ir::Type&) { return nullptr; }
  ir::Stmt changed_child(const ir::Stmt& s) {
    if (!s || !holders_->contains(s.get())) return nullptr;
    return ir::Mutator<DeadSliceDropper>::changed_child(s);
  }

  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& /*original*/) {
    auto* seq = ir::as<ir::Seq>(rebuilt);
    if (!seq) return rebuilt;
    auto dead_here = [&](const ir::Stmt& s) { return dead_->contains(s.get()); };
    if (std::none_of(seq->stmts.begin(), seq->stmts.end(), dead_here)) return rebuilt;
    std::vector<ir::Stmt> kept;
    kept.reserve(seq->stmts.size());
    for (const auto& s : seq->stmts)
      if (!dead_here(s)) kept.push_back(s);
    return ir::make_stmt(ir::Seq{std::move(kept)}, rebuilt->span);  // as flat as it was
  }

 private:
  const StmtSet* dead_;
  const StmtSet* holders_;
};

}  // namespace dead_detail

// How often each canonical slice is read, counted as rewrite::count_uses counts (a loop reads
// its initializers; definitions are not reads) but for the slices alone: no other Var's count
// decides anything here. Also the slices still defined in a statement list (only those can be
// taken out of one), each with the operand it reads *now*: a loop initializer's redirection
// (CT-17a) may have changed it, and a dying slice hands back the read it really makes.
// With each listed slice, the statement defining it, and the statements that hold a list
// defining a slice, at any depth (the statement lists themselves included): what the sweep
// rebuilds, found without reading any other statement.
struct SliceUse {
  std::uint32_t reads = 0;
  const ir::ExprNode* operand = nullptr;    // what its definition reads; null: not in a list
  const ir::StmtNode* defined_at = nullptr;  // that definition, when listed

  friend bool operator==(const SliceUse&, const SliceUse&) = default;
};
struct SliceReads {
  // By SliceAnalysis::position: the facts of one slice sit together, behind the one
  // probe of the analysis's table that finds the slice (three tables of their own cost three
  // cache misses per slice on a program larger than the caches).
  std::vector<SliceUse> slices;
  dead_detail::StmtSet holders;

  [[nodiscard]] std::size_t listed() const noexcept {
    return static_cast<std::size_t>(
        std::count_if(slices.begin(), slices.end(), [](const SliceUse& u) { return u.operand != nullptr; }));
  }
};

// Counts statement by statement, so that the rule walk can count what it produces while the
// statements are at hand, instead of a second walk over the whole rewritten body. Every
// statement of a tree is counted once, on its own: `count` reads the statement's expressions,
// never those of the statements nested in it; `list` notes the slices a statement list
// defines.
class SliceReadCounter {
 public:
  // Whether a call's closed arguments (ir::Call::arg_is_closed) are passed over unread: no
  // Var occurs in them, so no slice is read there, and most operands are such constants and
  // tuples of constants. `all` reads them anyway, for the Debug recount that checks the facts.
  enum class Operands : std::uint8_t { skip_closed, all };

  // Counts the reads of the slices `analysis` holds now, and of those `track`ed later (a walk
  // that runs the analysis as it goes tracks each slice at its definition, before its reads).
  explicit SliceReadCounter(const SliceAnalysis& analysis, Operands operands = Operands::skip_closed)
      : analysis_(&analysis), operands_(operands) {
    track_new_slices();
  }
  // Tracks the slices the analysis recorded since the last call: at its definition, before
  // any read of it, for a walk that runs the analysis as it goes.
  void track_new_slices() { reads_.slices.resize(analysis_->slices.size()); }

  void count(const ir::Stmt& s) {
    // While no slice is tracked there is nothing to count (a function without slices is never
    // read here).
    if (reads_.slices.empty()) return;
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
      // Its definition is no read: only the value is walked, and the Var is not even read.
      read_value(a->value);
      return;
    }
    if (auto* e = ir::as<ir::Eval>(s)) {
      read_value(e->expr);
      return;
    }
    if (auto* f = ir::as<ir::For>(s)) {
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
    ir::walk(s, [&](const ir::Stmt& nested) { return nested.get() == s.get(); }, read_);
  }

  // `s`, a statement list: notes the slices it defines, and that it holds them.
  void list(const ir::Stmt& s) {
    auto* seq = ir::as<ir::Seq>(s);
    if (!seq) return;
    bool any = false;
    for (const auto& child : seq->stmts) any |= list_child(child);
    if (any) hold(s);
  }
  // `child`, a statement of a list: notes it when it defines a slice, and says so.
  bool list_child(const ir::Stmt& child) {
    auto* a = ir::as<ir::Assign>(child);
    if (!a) return false;
    SliceUse* use = tracked(a->var.get());
    auto* call = ir::as<ir::Call>(a->value);
    if (!use || !call || call->args.empty()) return false;
    use->operand = call->args[0].get();
    use->defined_at = child.get();
    return true;
  }
  // `s` holds a list that defines a slice (or is one).
  void hold(const ir::Stmt& s) { reads_.holders.emplace(s.get(), true); }
  [[nodiscard]] std::size_t holder_count() const noexcept { return reads_.holders.size(); }

  [[nodiscard]] SliceReads take() { return std::move(reads_); }

 private:
  SliceUse* tracked(const ir::ExprNode* var) noexcept {
    const std::size_t at = analysis_->position(var);
    return at < reads_.slices.size() ? &reads_.slices[at] : nullptr;
  }
  void bump(const ir::Expr& v, std::uint32_t delta) {
    if (SliceUse* use = tracked(v.get())) use->reads += delta;
  }
  // The value of an assignment or of a bare call.
  void read_value(const ir::Expr& value) {
    auto* call = ir::as<ir::Call>(value);
    if (!call || operands_ == Operands::all) {
      ir::walk_expr(value, read_);
      return;
    }
    for (std::size_t i = 0; i < call->args.size(); ++i) {
      if (call->arg_is_closed(i)) continue;
      const ir::Expr& arg = call->args[i];
      if (ir::is_var_like(arg)) bump(arg, 1);  // what walk_expr does with a Var, unwalked
      else ir::walk_expr(arg, read_);
    }
    for (const auto* kwargs : {&call->kwargs, &call->attrs})
      for (const auto& entry : *kwargs)
        ir::for_each_attr_expr(entry.second, [&](const ir::Expr& e) { ir::walk_expr(e, read_); });
  }

  struct Read {
    SliceReadCounter* counter;
    bool operator()(const ir::Expr& e) const {
      if (ir::is_var_like(e)) counter->bump(e, 1);
      return true;
    }
  };

  const SliceAnalysis* analysis_;
  Operands operands_;
  Read read_{this};
  SliceReads reads_;
};

// Both count the same reads and list the same slices with the same operands.
inline bool same_reads(const SliceReads& a, const SliceReads& b) {
  // The holders may differ: a list flattened into another was noted on its own as well.
  return a.slices == b.slices;
}

// Every statement `recount` notes as holding a slice definition, `reads` notes too: the sweep
// would otherwise pass over a list it must rebuild.
inline bool holds_all(const SliceReads& reads, const SliceReads& recount) {
  for (const auto& entry : recount.holders)
    if (!reads.holders.contains(entry.first)) return false;
  return true;
}

// The reads of a whole body, in one read-only walk.
inline SliceReads count_slice_reads(const ir::Stmt& body, const SliceAnalysis& analysis,
                                    SliceReadCounter::Operands operands = SliceReadCounter::Operands::skip_closed) {
  SliceReadCounter counter(analysis, operands);
  // Post-order, so that a statement is known to hold a list when one below it does; as deep
  // as the rule walk that made the body.
  auto count = [&](auto& self, const ir::Stmt& s) -> void {
    if (!s) return;
    const std::size_t before = counter.holder_count();
    counter.count(s);
    counter.list(s);
    ir::for_each_nested_stmt(s, [&](const ir::Stmt& child) { self(self, child); });
    if (counter.holder_count() != before) counter.hold(s);
  };
  count(count, body);
  return counter.take();
}

// `reads`: what `body` reads, as count_slice_reads would count it. A body the caller hands
// over as its only reference (the rule walk's fresh result) has its own list edited in place:
// on a body of straight-line code that is the one list there is, and copying it would read
// every statement once more.
inline ir::Stmt drop_dead_slices(ir::Stmt body, const SliceAnalysis& analysis, SliceReads reads) {
  std::vector<SliceUse>& slices = reads.slices;
  dead_detail::StmtSet dead;
  for (std::size_t i = slices.size(); i-- > 0;) {
    const SliceUse& use = slices[i];
    if (!use.operand || use.reads != 0) continue;
    dead.emplace(use.defined_at, true);
    if (const std::size_t source = analysis.position(use.operand);
        source < slices.size() && slices[source].reads > 0)
      --slices[source].reads;
  }
  if (dead.empty()) return body;
  if (std::vector<ir::Stmt>* own = ir::unique_list(body)) {
    const std::size_t before = own->size();
    std::erase_if(*own, [&](const ir::Stmt& s) { return dead.contains(s.get()); });
    if (before - own->size() == dead.size()) return body;  // every dead slice was at the top
  }
  dead_detail::DeadSliceDropper dropper(dead, reads.holders);
  return dropper.mutate_stmt(body);
}

}  // namespace tilewright::passes::canonicalize
