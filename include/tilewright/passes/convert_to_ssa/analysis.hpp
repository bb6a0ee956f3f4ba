#pragma once
// ConvertToSSA, phase 1: one read-only walk that tells the rewrite, before it enters a loop,
// which Vars the loop may have to carry.
//
// A loop carries a Var the body re-assigns when the Var already has a value on entry, and
// one the body defines first when a later statement reads the value the loop left behind
// ("escaping"). Both are found here in program order, with stamps instead of scope copies:
//  * candidates: an assignment to v at a point nested in loops L1 ⊃ … ⊃ Lk makes v a
//    candidate of every Li that v was first defined before, walking outwards from Lk and
//    stopping at the first loop that already has v (every loop outside it has v too) or
//    that v was not yet defined at. Each step adds a (loop, Var) pair or stops, so the work
//    is bounded by the carries the rewrite will create.
//  * escaping: each Var remembers the innermost loop open at its last definition. A read
//    made after that loop closed records the escape for every closed loop on the way out
//    and moves the Var's frame to the first loop still open; each frame is passed once.
//    A read after a `with pl.at(...)`-like scope (every kind but `pl.scope()`,
//    `pl.manual_scope()` and `pl.split_aiv`) records no escape for the loops inside it:
//    such a scope becomes a function of its own, and its loops carry nothing out of it
//    (upstream's rule, issue #1351), so the read has no value and the rewrite says why.
// The rewrite keeps only the candidates that are really visible at the loop (a Var first
// assigned inside a finished branch has no value there).
#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/ir/walk.hpp"

namespace tilewright::passes::ssa {

struct LoopFacts {
  std::vector<const ir::ExprNode*> candidates;  // re-assigned in the body, defined before the loop
  std::vector<const ir::ExprNode*> escaping;    // a value defined in the body is read after the loop
};

struct FunctionFacts {
  std::vector<LoopFacts> loops;                      // For and While, in program (pre-)order
  std::unordered_set<const ir::ExprNode*> defined;   // every Var the function defines somewhere
  std::unordered_set<const ir::ExprNode*> sealed;    // read past a scope a loop of it assigned them in
};

// A scope whose body stays in its function for the purpose of names (upstream's runtime and
// split-AIV scopes); the others are outlined, and loops inside them carry nothing out.
inline bool scope_is_transparent(ir::ScopeKind k) noexcept {
  return k == ir::ScopeKind::scope || k == ir::ScopeKind::manual_scope || k == ir::ScopeKind::split_aiv;
}

namespace detail {

class LoopAnalysis {
 public:
  explicit LoopAnalysis(FunctionFacts& out) : out_(out) {}

  void run(const ir::FunctionNode& f) {
    for (const auto& p : f.params) define(p.var);
    stmt(f.body);
  }

 private:
  struct Frame {
    std::size_t loop;    // index into out_.loops
    std::size_t entry;   // stamp of the loop statement
    int parent;          // enclosing frame, or -1
    int scope;           // innermost outlined scope open at the loop, or -1
    bool closed = false;
    std::unordered_set<const ir::ExprNode*> has;  // candidates already recorded
  };
  struct VarState {
    std::size_t first_def;
    int frame;  // innermost loop open at the last definition, or -1
  };

  FunctionFacts& out_;
  std::vector<Frame> frames_;
  int open_ = -1;  // innermost open frame
  std::vector<bool> scope_closed_;  // outlined scopes, in program order
  int open_scope_ = -1;             // innermost open outlined scope
  std::vector<int> scope_parent_;
  std::size_t stamp_ = 0;
  std::unordered_map<const ir::ExprNode*, VarState> vars_;

  void define(const ir::Expr& v) {
    if (!v) return;
    auto [it, first] = vars_.try_emplace(v.get(), VarState{stamp_, open_});
    out_.defined.insert(v.get());
    if (first) return;
    it->second.frame = open_;
    // A re-assignment: a candidate of each enclosing loop entered after v's first definition.
    for (int f = open_; f >= 0; f = frames_[static_cast<std::size_t>(f)].parent) {
      Frame& fr = frames_[static_cast<std::size_t>(f)];
      if (it->second.first_def >= fr.entry || !fr.has.insert(v.get()).second) break;
      out_.loops[fr.loop].candidates.push_back(v.get());
    }
  }

  void use(const ir::Expr& v) {
    auto it = vars_.find(v.get());
    if (it == vars_.end()) return;
    int f = it->second.frame;
    // Past a closed outlined scope no loop on the way out may carry v either: the value
    // they would pass on is not the one the scope's loop left behind.
    bool sealed = false;
    while (f >= 0 && frames_[static_cast<std::size_t>(f)].closed) {
      const Frame& fr = frames_[static_cast<std::size_t>(f)];
      sealed = sealed || (fr.scope >= 0 && scope_closed_[static_cast<std::size_t>(fr.scope)]);
      if (sealed) out_.sealed.insert(v.get());
      else out_.loops[fr.loop].escaping.push_back(v.get());
      f = fr.parent;
    }
    it->second.frame = f;
  }
  void uses(const ir::Expr& e) {
    if (!e) return;
    ir::walk_expr(e, [&](const ir::Expr& x) {
      if (ir::is_var_like(x)) use(x);
      return true;
    });
  }
  void uses(const ir::Kwargs& kw) {
    for (const auto& [k, v] : kw) {
      if (auto* e = std::get_if<ir::Expr>(&v)) uses(*e);
      else if (auto* es = std::get_if<std::vector<ir::Expr>>(&v))
        for (const auto& x : *es) uses(x);
    }
  }

  void open_loop() {
    out_.loops.emplace_back();
    frames_.push_back(Frame{out_.loops.size() - 1, stamp_, open_, open_scope_, false, {}});
    open_ = static_cast<int>(frames_.size() - 1);
  }
  void close_loop() {
    Frame& fr = frames_[static_cast<std::size_t>(open_)];
    fr.closed = true;
    fr.has.clear();
    open_ = fr.parent;
  }

  // The same statement order as the rewrite (phase 2): a statement's reads, then its
  // definitions; a loop's header outside the loop, its condition and body inside.
  void stmt(const ir::Stmt& s) {
    if (!s) return;
    ++stamp_;
    ir::dispatch(s->v, [&](const auto& x) {
      using X = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<X, ir::Assign>) {
        uses(x.value);
        define(x.var);
      } else if constexpr (std::is_same_v<X, ir::Seq>) {
        for (const auto& c : x.stmts) stmt(c);
      } else if constexpr (std::is_same_v<X, ir::If>) {
        uses(x.cond);
        stmt(x.then_body);
        stmt(x.else_body);
        for (const auto& v : x.return_vars) define(v);
      } else if constexpr (std::is_same_v<X, ir::For>) {
        uses(x.start);
        uses(x.stop);
        uses(x.step);
        for (const auto& ia : x.iter_args)
          if (auto* a = ir::as<ir::IterArg>(ia)) uses(a->init);
        uses(x.attrs);
        open_loop();
        define(x.loop_var);
        for (const auto& ia : x.iter_args) define(ia);
        stmt(x.body);
        close_loop();
        for (const auto& v : x.return_vars) define(v);
      } else if constexpr (std::is_same_v<X, ir::While>) {
        for (const auto& ia : x.iter_args)
          if (auto* a = ir::as<ir::IterArg>(ia)) uses(a->init);
        open_loop();
        for (const auto& ia : x.iter_args) define(ia);
        uses(x.cond);
        stmt(x.body);
        close_loop();
        for (const auto& v : x.return_vars) define(v);
      } else if constexpr (std::is_same_v<X, ir::Scope>) {
        for (const auto& a : x.args) uses(a);
        uses(x.params);
        define(x.bound);
        if (scope_is_transparent(x.kind)) {
          stmt(x.body);
          return;
        }
        scope_closed_.push_back(false);
        scope_parent_.push_back(open_scope_);
        open_scope_ = static_cast<int>(scope_closed_.size() - 1);
        stmt(x.body);
        scope_closed_[static_cast<std::size_t>(open_scope_)] = true;
        open_scope_ = scope_parent_[static_cast<std::size_t>(open_scope_)];
      } else if constexpr (std::is_same_v<X, ir::Eval>) {
        uses(x.expr);
      } else if constexpr (std::is_same_v<X, ir::Yield> || std::is_same_v<X, ir::Return>) {
        for (const auto& v : x.values) uses(v);
      }
    });
  }
};

}  // namespace detail

inline FunctionFacts analyze(const ir::FunctionNode& f) {
  FunctionFacts facts;
  detail::LoopAnalysis(facts).run(f);
  return facts;
}

}  // namespace tilewright::passes::ssa
