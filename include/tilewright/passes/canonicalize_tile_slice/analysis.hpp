#pragma once
// CanonicalizeTileSlice's analysis (CT-02): read-only, in program order, it
//
//   * records every canonical slice, peeled to its base tile (CT-04…CT-07);
//   * keeps the scalar SSA definitions the alignment proof follows (CT-14), and reads Vars
//     bound to a literal (directly or through plain aliases) as that literal (CT-06);
//   * checks every accumulator destination (CT-19…CT-24) and throws, so a failing pass
//     returns nothing (its input is never modified).
// The pass runs it inside its rule walk, statement by statement (Collector::enter/leave): a
// statement's facts depend only on the statements before it, so the program is read once.
// analyze_slices runs it on its own over a body.
//
// For the accumulator check the sweep tracks which window every Var *names*, not only slice
// results: the destination is usually a loop carry of a hoisted slice, an alias, or the result
// of a view or in-place op over it (CT-23). A Var inherits a window only along an edge that
// provably keeps the bytes and the extent; anything unproven stays unrecorded, which keeps
// the check silent rather than wrong. The loop back edge is checked, never recorded (CT-24),
// so the map stays acyclic and one forward sweep suffices.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "tilewright/ir/stmt.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/ops/registry.hpp"
#include "tilewright/passes/canonicalize_tile_slice/acc_window.hpp"

namespace tilewright::passes::canonicalize {

// What the rewrite needs from the sweep.
struct SliceAnalysis {
  // Canonical slices by result Var, in program order (the table keeps insertion order): a
  // chain after its source.
  ByVar<Slice> slices;
  ByVar<ir::Expr> scalar_defs;  // scalar Var → its defining value, unless a call (CT-14)

  [[nodiscard]] const Slice* slice_of(const ir::Expr& operand) const noexcept {
    return find_by_var(slices, operand);
  }
  // Where the slice `var` defines stands in program order, or `none`: per-slice facts
  // elsewhere are vectors in that order, found with the one probe that asks whether a Var is
  // a slice at all.
  static constexpr std::size_t none = ~std::size_t{0};
  [[nodiscard]] std::size_t position(const ir::ExprNode* var) const noexcept {
    auto it = slices.find(var);
    return it == slices.end() ? none : static_cast<std::size_t>(it - slices.begin());
  }
  // The same slices, defined in the same order.
  [[nodiscard]] bool same_slices_as(const SliceAnalysis& o) const noexcept {
    return std::equal(slices.begin(), slices.end(), o.slices.begin(), o.slices.end(),
                      [](const auto& a, const auto& b) { return a.first == b.first; });
  }
};

using ir::is_leaf_stmt;  // rebuilding such a statement only maps its expressions

// Whether `body` assigns a tile.slice anywhere; stops at the first. A function without one is
// left alone after this look at its statements, not after a rule walk over it.
inline bool assigns_a_slice(const ir::Stmt& body) {
  const ir::OpId slice_op = ir::intern_op("tile.slice");
  bool found = false;
  ir::walk(
      body,
      [&](const ir::Stmt& s) {
        if (found) return false;  // the rest is not even read
        if (auto* a = ir::as<ir::Assign>(s))
          if (auto* call = ir::as<ir::Call>(a->value); call && call->callee.op == slice_op) found = true;
        return !found;
      },
      [](const ir::Expr&) { return false; });
  return found;
}

namespace analysis_detail {

// What the registry says about an op, read once per op id: whether its result lives in one
// of its operands' storage (a view, or an in-place / accumulating op) and which operand that
// is, and which operand an accumulating op writes.
class StorageRelations {
 public:
  explicit StorageRelations(const ops::Registry& registry) : registry_(&registry) {}

  struct Relation {
    int aliased_source = -1;  // the operand whose storage the result names, or -1
    int destination = -1;     // set_output_reuses_input: the operand the op writes, or -1
  };

  const Relation& of(ir::OpId op) {
    if (op.value < known_.size() && known_[op.value].first) return known_[op.value].second;
    return learn(op);
  }

 private:
  const Relation& learn(ir::OpId op) {
    if (op.value >= known_.size()) known_.resize(op.value + 1);
    auto& slot = known_[op.value];
    slot.first = true;
    if (const ops::OpInfo* info = registry_->find(op)) {
      const ops::OpFlags& f = info->flags;
      slot.second.destination = f.output_reuses_input;
      // A view (output inherits its input, safe in place) names its operand 0; an op that
      // declares the operand it writes names that one. tile.transpose and tile.extract
      // copy into a fresh buffer, so their not-in-place-safe rows keep them out.
      if (f.output_reuses_input >= 0)
        slot.second.aliased_source = f.output_reuses_input;
      else if (info->output_inherits_input() && f.inplace_safe)
        slot.second.aliased_source = 0;
    }
    return slot.second;
  }

  const ops::Registry* registry_;
  std::vector<std::pair<bool, Relation>> known_;
};

// Both types are tiles of one rank and dtype whose every extent is the same constant: the
// destination extent read off one Var is then the extent of the window the other names.
inline bool same_window_extent(const ir::Type& a, const ir::Type& b) {
  auto* x = ir::as<ir::TileType>(a);
  auto* y = ir::as<ir::TileType>(b);
  if (!x || !y || x->dtype != y->dtype || x->shape.size() != y->shape.size()) return false;
  for (std::size_t i = 0; i < x->shape.size(); ++i) {
    auto p = ir::const_int(x->shape[i]), q = ir::const_int(y->shape[i]);
    if (!p || !q || *p != *q) return false;
  }
  return true;
}

// The statement a body ends with when it is a yield.
inline const ir::Yield* trailing_yield(const ir::Stmt& body) {
  if (auto* seq = ir::as<ir::Seq>(body))
    return seq->stmts.empty() ? nullptr : ir::as<ir::Yield>(seq->stmts.back());
  return ir::as<ir::Yield>(body);
}

// CT-24: a for loop whose bounds prove it takes its back edge.
inline bool runs_at_least_twice(const ir::For& f) {
  auto start = ir::const_int(f.start), stop = ir::const_int(f.stop), step = ir::const_int(f.step);
  if (!start || !stop || !step || *step <= 0) return false;
  auto second = math::checked_add(*start, *step);
  return second && *second < *stop;
}

class Collector {
 public:
  // Records into `out`, which must outlive the sweep.
  Collector(const ops::Registry& registry, SliceAnalysis& out)
      : relations_(registry), slice_op_(ir::intern_op("tile.slice")), result_(&out) {}

  // The whole sweep, over a tree.
  void visit(const ir::Stmt& s) {
    if (!s) return;
    enter(s);
    ir::for_each_nested_stmt(s, [&](const ir::Stmt& child) { visit(child); });
    leave(s);
  }

  // The same sweep one statement at a time, for a walk that visits the statements itself, in
  // the order `visit` does (the rule walk): `enter` a statement before the statements nested
  // in it, `leave` it after them.
  void enter(const ir::Stmt& s) {
    if (!s) return;
    if (auto* a = ir::as<ir::Assign>(s)) assign(*a, s->span);
    else if (auto* e = ir::as<ir::Eval>(s)) accumulator_use(e->expr);
    else if (auto* f = ir::as<ir::For>(s)) enter_loop(f->iter_args);
    else if (auto* w = ir::as<ir::While>(s)) enter_loop(w->iter_args);
    // yield, return, break, continue: nothing to record
  }
  void leave(const ir::Stmt& s) {
    if (!s) return;
    if (auto* f = ir::as<ir::For>(s)) {
      exit_loop(f->iter_args, f->body, f->return_vars, runs_at_least_twice(*f));
    } else if (auto* w = ir::as<ir::While>(s)) {
      // A while trip count is never proven, so only its exit edge binds.
      exit_loop(w->iter_args, w->body, w->return_vars, false);
    } else if (auto* i = ir::as<ir::If>(s)) {
      merge_branches(*i);
    }
  }

 private:
  void assign(const ir::Assign& a, const ir::Span& span) {
    const ir::Expr& var = a.var;
    // Only what the alignment proof can read through (a constant, an alias, + − ×): the
    // value's kind is at hand, the Var's type would be one more node to read per statement.
    if (!ir::as<ir::Call>(a.value) && ir::as<ir::ScalarType>(var->type))
      result_->scalar_defs.emplace(var.get(), a.value);
    if (ir::as<ir::ConstInt>(a.value)) {
      constants_.emplace(var.get(), a.value);
    } else if (const ir::Expr* c = find_by_var(constants_, a.value)) {
      constants_.emplace(var.get(), *c);
    }
    const std::optional<SliceRead> read = read_slice(a.value, slice_op_, constants_);
    if (read) {
      name_window(var.get(), peeled(read->window, window_named_by(read->window.base), span));
    } else {
      inherit_window(var, a.value);
    }
    if (read && read->canonical && ir::tile_type(var)) {
      const Slice* parent = find_by_var(result_->slices, read->window.base);
      Window canonical = peeled(read->window, parent ? &parent->window : nullptr, span);
      std::optional<Window> physical = physical_window(var, canonical);
      result_->slices.emplace(var.get(), Slice{var, std::move(canonical), std::move(physical)});
    } else {
      accumulator_use(a.value);
    }
    track_view(var, a.value);
  }

  // Where the bytes of canonical slice `var`, with `window` against its chain's base, start.
  std::optional<Window> physical_window(const ir::Expr& var, const Window& window) const {
    if (!is_view(window.base)) return window;  // the base is an allocation
    // The base is a view itself: its own window, composed, when the sweep knows it exactly.
    const Window* composed = window_named_by(var);
    if (composed && !composed->first_trip_only && !is_view(composed->base))
      return *composed;
    return std::nullopt;
  }

  // Marks `var` a view (Storage::view) when `value` makes it one.
  void track_view(const ir::Expr& var, const ir::Expr& value) {
    if (is_view(value)) {
      mark_view(var.get());
      return;
    }
    auto* call = ir::as<ir::Call>(value);
    if (!call || !call->callee.op) return;
    const int source = call->callee.op == slice_op_ ? 0 : relations_.of(call->callee.op).aliased_source;
    if (call->callee.op == slice_op_ ||
        (source >= 0 && static_cast<std::size_t>(source) < call->args.size() &&
         is_view(call->args[source])))
      mark_view(var.get());
  }
  [[nodiscard]] bool is_view(const ir::Expr& e) const {
    const Storage* s = find_by_var(storage_, e);
    return s && s->view;
  }
  void mark_view(const ir::ExprNode* var) { storage_.emplace(var).first->second.view = true; }

  // The window `e` names, if any (CT-23).
  [[nodiscard]] const Window* window_named_by(const ir::Expr& e) const {
    const Storage* s = find_by_var(storage_, e);
    return s && s->window ? &*s->window : nullptr;
  }
  // `var` names `w`, unless it already names a window: the first edge to bind it wins.
  void name_window(const ir::ExprNode* var, Window w) {
    std::optional<Window>& slot = storage_.emplace(var).first->second.window;
    if (!slot) slot = std::move(w);
  }

  // CT-23: `v = w`, and `v = op(src, …)` whose result lives in `src`'s storage.
  void inherit_window(const ir::Expr& var, const ir::Expr& value) {
    if (ir::is_var_like(value)) {
      bind(var, value);
      return;
    }
    auto* call = ir::as<ir::Call>(value);
    // An unreadable tile.slice must not pass its source's window on: that would drop its offset.
    if (!call || !call->callee.op || call->callee.op == slice_op_) return;
    const int source = relations_.of(call->callee.op).aliased_source;
    if (source >= 0 && static_cast<std::size_t>(source) < call->args.size())
      bind(var, call->args[source]);
  }

  void bind(const ir::Expr& target, const ir::Expr& source, bool first_trip_only = false) {
    const Window* w = window_named_by(source);
    if (!w || !same_window_extent(target->type, source->type)) return;
    Window named = *w;  // copied first: emplace may rehash
    named.first_trip_only |= first_trip_only;
    name_window(target.get(), std::move(named));
  }

  // The operand an accumulating call writes, when it is a Var.
  const ir::Expr* destination(const ir::Call& call) {
    if (!call.callee.op) return nullptr;
    const int d = relations_.of(call.callee.op).destination;
    if (d < 0 || static_cast<std::size_t>(d) >= call.args.size() || !ir::is_var_like(call.args[d]))
      return nullptr;
    return &call.args[d];
  }

  // CT-19/CT-23: an accumulating call, bound to a result or written as a bare statement.
  void accumulator_use(const ir::Expr& value) {
    auto* call = ir::as<ir::Call>(value);
    const ir::Expr* dst = call ? destination(*call) : nullptr;
    if (!dst) return;
    if (ir::as<ir::IterArg>(*dst)) carried_destinations_.emplace(dst->get(), value);
    if (const Window* w = window_named_by(*dst))
      check_accumulator_window(call->callee.op, value->span, ir::tile_type(*dst), *w);
  }

  // A carry names its initializer's window on entry (bound before the body is visited).
  void enter_loop(const std::vector<ir::Expr>& iter_args) {
    for (const auto& ia : iter_args)
      if (auto* it = ir::as<ir::IterArg>(ia)) {
        bind(ia, it->init, /*first_trip_only=*/true);
        if (is_view(it->init)) mark_view(ia.get());
      }
  }

  // CT-24 back edge (checked, never bound) and the exit edge (bound when the final yield and
  // the initializer name the same window, which is then exact for any trip count).
  void exit_loop(const std::vector<ir::Expr>& iter_args, const ir::Stmt& body,
                 const std::vector<ir::Expr>& return_vars, bool back_edge_taken) {
    const ir::Yield* yield = trailing_yield(body);
    // A result is a view when the value it may come from is: the initializer, or a yield.
    for (std::size_t i = 0; i < return_vars.size() && i < iter_args.size(); ++i)
      if (is_view(iter_args[i]) || !yield ||
          (i < yield->values.size() && is_view(yield->values[i])))
        mark_view(return_vars[i].get());
    if (!yield || yield->values.size() != iter_args.size()) return;
    for (std::size_t i = 0; i < iter_args.size(); ++i) {
      const Window* carried = window_named_by(yield->values[i]);
      if (!carried) continue;
      if (back_edge_taken) {
        const ir::Expr* use = find_by_var(carried_destinations_, iter_args[i]);
        if (use)
          check_accumulator_window(ir::as<ir::Call>(*use)->callee.op, (*use)->span,
                                   ir::tile_type(iter_args[i]), *carried);
      }
      const Window* initial = window_named_by(iter_args[i]);
      if (i < return_vars.size() && initial && carried->same_as(*initial))
        bind(return_vars[i], yield->values[i]);
    }
  }

  // An if-merge names a window only when both arms yield that same window.
  void merge_branches(const ir::If& branch) {
    if (branch.return_vars.empty()) return;
    const ir::Yield* then_yield = trailing_yield(branch.then_body);
    const ir::Yield* else_yield = branch.else_body ? trailing_yield(branch.else_body) : nullptr;
    const std::size_t n = branch.return_vars.size();
    for (std::size_t i = 0; i < n; ++i)
      for (const ir::Yield* y : {then_yield, else_yield})
        if (!y || i >= y->values.size() || is_view(y->values[i]))
          mark_view(branch.return_vars[i].get());
    if (!branch.else_body) return;
    if (!then_yield || !else_yield || then_yield->values.size() != n ||
        else_yield->values.size() != n)
      return;
    for (std::size_t i = 0; i < n; ++i) {
      const Window* a = window_named_by(then_yield->values[i]);
      const Window* b = window_named_by(else_yield->values[i]);
      if (a && b && a->same_as(*b)) bind(branch.return_vars[i], then_yield->values[i]);
    }
  }

  StorageRelations relations_;
  ir::OpId slice_op_;
  SliceAnalysis* result_;
  // What the sweep knows of a Var's storage, one record per Var so that a Var costs one
  // probe: the window it names (CT-23), and whether it is a view, its bytes starting somewhere
  // inside another tile's storage — every slice, and whatever names the same storage as one
  // (aliases, views and in-place ops, carries, merges), with or without the same extent,
  // unlike the window edges.
  struct Storage {
    std::optional<Window> window;
    bool view = false;
  };
  ByVar<Storage> storage_;
  ByVar<ir::Expr> constants_;             // scalar Var → the ConstInt it is bound to (CT-06)
  ByVar<ir::Expr> carried_destinations_;  // loop carry → the first accumulating call writing it
};

}  // namespace analysis_detail

// Phase 1 over a function body. Throws the CT-19 user error, spanned at the accumulating
// call, when a matmul destination is a window L0C cannot hold compactly.
inline SliceAnalysis analyze_slices(const ir::Stmt& body, const ops::Registry& registry) {
  SliceAnalysis out;
  analysis_detail::Collector collector(registry, out);
  collector.visit(body);
  return out;
}

}  // namespace tilewright::passes::canonicalize
