#pragma once
// ConvertToSSA, phase 2: one walk in program order that keeps, for every Var of the input,
// the value that currently stands for it, scoped by branches and loop bodies (an undo log,
// pass/detail/scoped_map.hpp).
//
//  * The first definition of a Var keeps the Var itself, so a program already in SSA form
//    comes back as the very same objects; each later definition gets a fresh Var
//    (`x__ssa_v1`).
//  * A loop gets an iter_arg (`x__iter_vN`), a yielded value and a return var (`x__rv_vN`)
//    for each candidate of phase 1 that has a value on entry, and for each Var the body
//    defines first whose value is read after the loop; after the loop the Var stands for
//    the return var.
//  * An if gets a return var (`x__phi_vN`) for each Var a branch re-assigned and for each
//    Var both branches define; each branch yields its value, or the value from before the
//    if when it left the Var alone.
// New carries come after the ones the input already has, sorted by name within each kind,
// as upstream orders them.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/detail/scoped_map.hpp"
#include "tilewright/pass/pass.hpp"
#include "tilewright/passes/convert_to_ssa/analysis.hpp"

namespace tilewright::passes::ssa {

class SsaRewriter : public ir::Mutator<SsaRewriter> {
 public:
  using Key = const ir::ExprNode*;

  SsaRewriter(const ir::FunctionNode& f, const FunctionFacts& facts, std::string_view origin)
      : function_(f), facts_(facts), origin_(origin) {}

  // The function in SSA form; `f` itself when it already was.
  ir::Function run(const ir::Function& f) {
    ir::FunctionNode copy = *f;
    bool changed = false;
    for (auto& p : copy.params) {
      ir::Expr v = define(p.var);
      changed |= v != p.var;
      p.var = std::move(v);
    }
    for (auto& t : copy.return_types) {
      ir::Type next = mutate_type(t);
      changed |= next != t;
      t = std::move(next);
    }
    ir::Stmt body = mutate_stmt(copy.body);
    changed |= body != copy.body;
    if (!changed) return f;
    copy.body = std::move(body);
    return ir::make_function(std::move(copy));
  }

  void report(pass::Statistics& stats, std::string_view pass) const {
    if (renamed_) stats.add(pass, "definitions renamed", renamed_);
    if (loop_carries_) stats.add(pass, "loop carries added", loop_carries_);
    if (if_merges_) stats.add(pass, "if merges added", if_merges_);
  }

  // ---- Mutator hooks --------------------------------------------------------------------

  ir::Expr mutate_expr(const ir::Expr& e) {
    if (!e) return e;
    if (ir::is_var_like(e)) {
      if (const ir::Expr* now = bindings_.find(e.get())) return *now;
      // Types may name Vars of other scopes (shapes); a value read must have a value.
      if (in_type_ == 0 && facts_.defined.count(e.get())) no_value(e);
      return e;
    }
    return rebuild_expr(e);
  }

  ir::Type mutate_type(const ir::Type& t) {
    ++in_type_;
    ir::Type out = ir::Mutator<SsaRewriter>::mutate_type(t);
    --in_type_;
    return out;
  }

  ir::Stmt mutate_stmt(const ir::Stmt& s) {
    if (!s) return s;
    ir::Span outer = current_;
    if (s->span.known()) current_ = s->span;
    ir::Stmt out = ir::dispatch(s->v, [&](const auto& x) -> ir::Stmt {
      using X = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<X, ir::Assign>) return assign(s, x);
      else if constexpr (std::is_same_v<X, ir::Seq>) return seq(s, x);
      else if constexpr (std::is_same_v<X, ir::If>) return if_stmt(s, x);
      else if constexpr (std::is_same_v<X, ir::For>) return for_loop(s, x);
      else if constexpr (std::is_same_v<X, ir::While>) return while_loop(s, x);
      else if constexpr (std::is_same_v<X, ir::Scope>) return scope(s, x);
      else if constexpr (std::is_same_v<X, ir::Break>) return jump(s, "break");
      else if constexpr (std::is_same_v<X, ir::Continue>) return jump(s, "continue");
      else return rebuild_stmt(s);  // Eval, Yield, Return: reads only
    });
    current_ = outer;
    return out;
  }

 private:
  struct Change {
    Key var;
    ir::Expr before;  // null: the Var had no value when the branch began
    ir::Expr after;
  };
  struct Carry {
    Key var;
    ir::Expr iter_arg;
    ir::Expr return_var;
  };
  // The loop a `break` or `continue` leaves: the carries this pass adds to it and the Vars
  // its body may define first for a later read (their carries are known only after the body).
  struct OpenLoop {
    const std::vector<Carry>* carries;
    const std::vector<Key>* escaping;
  };

  const ir::FunctionNode& function_;
  const FunctionFacts& facts_;
  std::string_view origin_;
  pass::detail::ScopedMap<Key, ir::Expr> bindings_;
  std::unordered_set<Key> seen_;                         // Vars whose first definition is behind us
  std::vector<Key> first_defs_;                          // ... in the order they were met
  std::unordered_map<std::size_t, std::vector<Key>> defs_by_type_;  // first_defs_[0, indexed_defs_) by type
  std::size_t indexed_defs_ = 0;
  std::unordered_map<std::string, std::uint64_t> versions_;
  // Why a Var that is defined somewhere has no value at a read: the construct it was
  // assigned in ("the if", "the loop") and where that construct is.
  std::unordered_map<Key, std::pair<std::string_view, ir::Span>> gone_;
  std::size_t next_loop_ = 0;
  std::vector<OpenLoop> open_loops_;  // innermost last
  int in_type_ = 0;
  ir::Span current_;
  std::uint64_t renamed_ = 0, loop_carries_ = 0, if_merges_ = 0;

  static std::string_view name_of(Key v) noexcept {
    if (auto* x = std::get_if<ir::Var>(&v->v)) return x->name.text;
    if (auto* x = std::get_if<ir::IterArg>(&v->v)) return x->name.text;
    return {};
  }
  std::string fresh_name(Key v, std::string_view kind) {
    std::string base(name_of(v));
    return base + "__" + std::string(kind) + "_v" + std::to_string(++versions_[base]);
  }
  static void sort_by_name(std::vector<Key>& vars) {
    std::stable_sort(vars.begin(), vars.end(), [](Key a, Key b) { return name_of(a) < name_of(b); });
  }
  [[noreturn]] void fail(std::string message, std::vector<std::pair<std::string, ir::Span>> notes = {}) {
    ir::Diagnostic d{ir::Severity::error, ir::ErrorKind::user, std::string(origin_),
                     "in function '" + function_.name + "': " + std::move(message), current_, std::move(notes)};
    throw ir::Error(std::move(d));
  }
  [[noreturn]] void no_value(const ir::Expr& v) {
    const std::string name(ir::name_hint(v));
    auto why = gone_.find(v.get());
    if (why == gone_.end()) fail("variable '" + name + "' is used before it is assigned");
    const std::string construct(why->second.first);
    if (facts_.sealed.count(v.get()))
      fail("variable '" + name + "' has no value here: it is assigned only inside a loop within a `with pl.at(...)`-like "
               "scope, which has ended; such a scope is outlined into a function of its own and its loops carry no "
               "value out of it. Assign '" + name + "' before the scope, or give the loop an explicit carry with "
               "init_values=(...) and pl.yield_",
           {{construct + " is here", why->second.second}});
    fail("variable '" + name + "' has no value here: it is assigned only inside " + construct +
             (construct == "the if" ? " (in one branch)" : "") + ", which has ended; assign it " +
             (construct == "the if" ? "in both branches, or before the if" : "before the loop"),
         {{construct + " is here", why->second.second}});
  }

  // `__` separates a generated name's base from its role and version (`x__ssa_v1`,
  // `acc__iter_v2`, `t__tile`), as upstream's naming does; a name of the user's with `__`
  // would be read as one, so it is refused, as upstream refuses it. A name that already reads
  // as generated (a role or a `vN` after its last `__`) is a base like any other.
  static bool reads_as_generated(std::string_view name) {
    const auto at = name.rfind("__");
    if (at == std::string_view::npos) return true;
    std::string_view rest = name.substr(at + 2);
    while (!rest.empty()) {
      const auto cut = rest.find('_');
      const std::string_view token = rest.substr(0, cut);
      for (std::string_view role : {"ssa", "iter", "rv", "phi", "tile", "tmp", "out", "store", "idx"})
        if (token == role) return true;
      if (token.size() > 1 && token[0] == 'v' &&
          token.find_first_not_of("0123456789", 1) == std::string_view::npos)
        return true;
      if (cut == std::string_view::npos) break;
      rest.remove_prefix(cut + 1);
    }
    return false;
  }
  void check_name(const ir::Expr& v) {
    const std::string_view name = ir::name_hint(v);
    if (reads_as_generated(name)) return;
    if (v->span.known()) current_ = v->span;
    std::string plain(name);
    for (auto at = plain.find("__"); at != std::string::npos; at = plain.find("__")) plain.erase(at, 1);
    fail("the name '" + std::string(name) + "' contains '__', the reserved delimiter '__' of generated names (" +
         plain + "__ssa_v1, " + plain + "__iter_v2); rename it, e.g. '" + plain + "'");
  }

  // A definition: the Var itself the first time, a fresh Var afterwards.
  ir::Expr define(const ir::Expr& v) {
    if (!v) return v;
    check_name(v);
    ir::Type type = mutate_type(v->type);
    ir::Expr out = v;
    if (!seen_.insert(v.get()).second) {
      out = ir::make_var(fresh_name(v.get(), "ssa"), std::move(type), v->span);
      ++renamed_;
    } else {
      first_defs_.push_back(v.get());
      if (type != v->type) out = ir::make_expr(v->v, std::move(type), v->span);
    }
    bindings_.bind(v.get(), out);
    return out;
  }
  ir::Expr define_iter_arg(const ir::Expr& ia, ir::Expr init) {
    check_name(ia);
    const auto& node = std::get<ir::IterArg>(ia->v);
    ir::Type type = mutate_type(ia->type);
    ir::Expr out = ia;
    if (!seen_.insert(ia.get()).second) {
      out = ir::make_iter_arg(fresh_name(ia.get(), "iter"), std::move(type), std::move(init), ia->span);
      ++renamed_;
    } else if (type != ia->type || init != node.init) {
      out = ir::make_iter_arg(node.name.text, std::move(type), std::move(init), ia->span);
    }
    bindings_.bind(ia.get(), out);
    return out;
  }

  // What a branch bound since `m`, one entry per Var in first-bound order; then forgets it,
  // remembering why the Vars it introduced have no value afterwards.
  std::vector<Change> close_scope(pass::detail::ScopedMap<Key, ir::Expr>::Mark m, std::string_view construct,
                                  const ir::Span& where) {
    std::vector<Change> changes;
    std::unordered_map<Key, std::size_t> index;
    for (auto* e = bindings_.since_begin(m); e != bindings_.since_end(); ++e)
      if (index.try_emplace(e->key, changes.size()).second)
        changes.push_back(Change{e->key, e->had_previous ? e->previous : nullptr, nullptr});
    for (auto& c : changes) {
      c.after = *bindings_.find(c.var);
      if (!c.before) gone_[c.var] = {construct, where};
    }
    bindings_.rollback(m);
    return changes;
  }

  static ir::Stmt with_yield(const ir::Stmt& body, const std::vector<ir::Expr>& extra, const ir::Span& span) {
    std::vector<ir::Stmt> stmts = ir::body_stmts(body);
    if (!stmts.empty() && ir::as<ir::Yield>(stmts.back())) {
      std::vector<ir::Expr> values = ir::as<ir::Yield>(stmts.back())->values;
      values.insert(values.end(), extra.begin(), extra.end());
      stmts.back() = ir::make_stmt(ir::Yield{std::move(values)}, stmts.back()->span, stmts.back()->comments);
    } else if (auto* sc = ir::as<ir::Scope>(stmts.empty() ? nullptr : stmts.back());
               sc && ir::closing_yield(stmts.back())) {
      // The block closes inside a trailing `with pl.scope()`: its yield is the one to extend.
      ir::Scope inner = *sc;
      inner.body = with_yield(sc->body, extra, span);
      stmts.back() = ir::make_stmt(std::move(inner), stmts.back()->span, stmts.back()->comments);
    } else {
      stmts.push_back(ir::make_stmt(ir::Yield{extra}, span));
    }
    return ir::make_seq(std::move(stmts), body ? body->span : span);  // bodies are lists, as parsed
  }
  static ir::Stmt keep_comments(ir::Stmt s, const ir::Comments& comments) {
    if (comments.lines.empty()) return s;
    return ir::make_stmt(s->v, s->span, comments);
  }

  // ---- statements -------------------------------------------------------------------------

  ir::Stmt assign(const ir::Stmt& s, const ir::Assign& x) {
    ir::Expr value = mutate_expr(x.value);
    ir::Expr var = define(x.var);
    if (value == x.value && var == x.var) return s;
    return ir::make_stmt(ir::Assign{std::move(var), std::move(value)}, s->span, s->comments);
  }

  ir::Stmt seq(const ir::Stmt& s, const ir::Seq& x) {
    std::vector<ir::Stmt> out;
    out.reserve(x.stmts.size());
    bool changed = false;
    for (const auto& c : x.stmts) {
      out.push_back(mutate_stmt(c));
      changed |= out.back() != c;
    }
    if (!changed) return s;
    return keep_comments(ir::make_seq(std::move(out), s->span), s->comments);
  }

  ir::Stmt scope(const ir::Stmt& s, const ir::Scope& x) {
    ir::Scope next = x;
    for (auto& a : next.args) a = mutate_expr(a);
    auto params = ir::map_children(x.params, *this);
    if (params) next.params = std::move(*params);
    if (x.bound) next.bound = define(x.bound);
    next.body = mutate_stmt(x.body);  // transparent: what the body defines stays visible
    if (!params && next.bound == x.bound && next.body == x.body && next.args == x.args) return s;
    return ir::make_stmt(std::move(next), s->span, s->comments);
  }

  ir::Stmt if_stmt(const ir::Stmt& s, const ir::If& x) {
    ir::Expr cond = mutate_expr(x.cond);
    auto m = bindings_.mark();
    ir::Stmt then_body = mutate_stmt(x.then_body);
    std::vector<Change> then_changes = close_scope(m, "the if", s->span);
    ir::Stmt else_body = mutate_stmt(x.else_body);
    std::vector<Change> else_changes = close_scope(m, "the if", s->span);

    // Merged: re-assigned in a branch (it had a value before), or defined in both branches.
    std::unordered_map<Key, const Change*> in_else;
    for (const auto& c : else_changes) in_else.emplace(c.var, &c);
    std::unordered_map<Key, const Change*> in_then;
    std::vector<Key> merged;
    for (const auto& c : then_changes) {
      in_then.emplace(c.var, &c);
      if ((c.before && c.before != c.after) || (!c.before && in_else.count(c.var))) merged.push_back(c.var);
    }
    for (const auto& c : else_changes)
      if (!in_then.count(c.var) && c.before && c.before != c.after) merged.push_back(c.var);
    sort_by_name(merged);

    std::vector<ir::Expr> return_vars;
    return_vars.reserve(x.return_vars.size() + merged.size());
    for (const auto& rv : x.return_vars) return_vars.push_back(define(rv));
    if (merged.empty()) {
      if (cond == x.cond && then_body == x.then_body && else_body == x.else_body &&
          std::equal(return_vars.begin(), return_vars.end(), x.return_vars.begin(), x.return_vars.end()))
        return s;
      return ir::make_stmt(ir::If{cond, then_body, else_body, std::move(return_vars)}, s->span, s->comments);
    }
    std::vector<ir::Expr> then_values, else_values;
    for (Key v : merged) {
      auto value_in = [&](const std::unordered_map<Key, const Change*>& branch, const Change* other) {
        auto it = branch.find(v);
        return it != branch.end() ? it->second->after : other->before;
      };
      const Change* any = in_then.count(v) ? in_then.at(v) : in_else.at(v);
      then_values.push_back(value_in(in_then, any));
      else_values.push_back(value_in(in_else, any));
      ir::Expr phi = ir::make_var(fresh_name(v, "phi"), then_values.back()->type, s->span);
      return_vars.push_back(phi);
      bindings_.bind(v, std::move(phi));
      ++if_merges_;
    }
    then_body = with_yield(then_body, then_values, s->span);
    else_body = with_yield(else_body, else_values, s->span);
    return ir::make_stmt(ir::If{cond, then_body, else_body, std::move(return_vars)}, s->span, s->comments);
  }

  // The loop-carried values the input does not spell: phase 1's candidates that have a
  // value on entry (carried), and Vars first defined in the body whose value is read after
  // the loop (escaping). Called on entry: binds the carried Vars to their iter_args.
  std::vector<Carry> enter_carries(const LoopFacts& facts, const std::vector<ir::Expr>& own, const ir::Span& at) {
    std::unordered_set<Key> spelled;
    for (const auto& v : own) spelled.insert(v.get());
    std::vector<Key> carried;
    for (Key v : facts.candidates)
      if (!spelled.count(v) && bindings_.find(v)) carried.push_back(v);
    // A Var escaping this loop that an enclosing loop already carries has a value on entry:
    // it is carried here too, or the enclosing loop would yield its entry value.
    if (!facts.escaping.empty()) {
      std::unordered_set<Key> taken(carried.begin(), carried.end());
      for (Key v : facts.escaping)
        if (!spelled.count(v) && bindings_.find(v) && taken.insert(v).second) carried.push_back(v);
    }
    sort_by_name(carried);
    std::vector<Carry> carries;
    for (Key v : carried) {
      ir::Expr init = *bindings_.find(v);
      ir::Expr ia = ir::make_iter_arg(fresh_name(v, "iter"), init->type, init, at);
      carries.push_back(Carry{v, ia, nullptr});
    }
    return carries;
  }
  // Vars first defined in the body whose value is read after the loop. Each one that has a
  // stand-in value of its type on entry is carried from the start, as upstream's pass does:
  // inside the body it reads as the previous iteration's value (Python's), a branch that
  // leaves it alone passes that on, and the stand-in is only ever seen where the input reads
  // a name that was never assigned. The rest are decided after the body (add_escaping).
  std::vector<Key> escaping_candidates(const LoopFacts& facts, const std::vector<ir::Expr>& own,
                                       std::vector<Carry>& carries, const ir::Span& at) {
    std::unordered_set<Key> spelled;
    for (const auto& v : own) spelled.insert(v.get());
    std::vector<Key> out;
    for (Key v : facts.escaping)
      if (!bindings_.find(v) && spelled.insert(v).second) out.push_back(v);  // once each
    sort_by_name(out);
    std::vector<Key> later;
    for (Key v : out) {
      ir::Type type = mutate_type(v->type);
      ir::Expr init = stand_in_of_type(type);
      if (!init) {
        later.push_back(v);
        continue;
      }
      carries.push_back(Carry{v, ir::make_iter_arg(fresh_name(v, "iter"), std::move(type), init, at), nullptr});
    }
    return later;
  }
  // Upstream's choice of an initial value for a carry that has none: an Out/InOut parameter
  // of the type, else the first-defined Var of the type that is still in scope.
  ir::Expr stand_in_of_type(const ir::Type& t) {
    if (ir::Expr p = output_parameter_of_type(t)) return p;
    for (; indexed_defs_ < first_defs_.size(); ++indexed_defs_) {
      Key v = first_defs_[indexed_defs_];
      defs_by_type_[ir::type_hash(v->type, ir::Buffers::ignored)].push_back(v);
    }
    auto bucket = defs_by_type_.find(ir::type_hash(t, ir::Buffers::ignored));
    if (bucket == defs_by_type_.end()) return nullptr;
    for (Key v : bucket->second) {
      const ir::Expr* now = bindings_.find(v);
      if (now && ir::same_type((*now)->type, t, ir::Buffers::ignored)) return *now;
    }
    return nullptr;
  }
  // Escaping Vars that the body left with a value. One whose last value is what the body's
  // own yield passes on is, after the loop, that iter_arg's return var (`o = f(o)` then
  // `pl.yield_(o)`); any other starts from an Out/InOut parameter of its type (upstream's
  // choice), or the loop is refused. Returns the first kind as (Var, iter_arg position).
  struct YieldedEscape {
    Key var;
    std::size_t position;  // of the iter_arg whose return var it becomes
    ir::Type type;         // of its last value in the body
  };
  std::vector<YieldedEscape> add_escaping(std::vector<Key> candidates, std::vector<Carry>& carries,
                                          const ir::Stmt& body, std::size_t spelled, const ir::Span& at) {
    sort_by_name(candidates);
    std::vector<YieldedEscape> yielded_by_input;
    std::vector<ir::Stmt> stmts = candidates.empty() ? std::vector<ir::Stmt>{} : ir::body_stmts(body);
    const ir::Yield* closing = stmts.empty() ? nullptr : ir::closing_yield(stmts.back());
    for (Key v : candidates) {
      const ir::Expr* last = bindings_.find(v);
      if (!last) continue;  // first assigned in a finished branch of the body: the read will say so
      if (closing) {
        auto it = std::find(closing->values.begin(), closing->values.end(), *last);
        if (auto k = static_cast<std::size_t>(it - closing->values.begin()); k < spelled) {
          yielded_by_input.push_back(YieldedEscape{v, k, (*last)->type});
          continue;
        }
      }
      ir::Expr init = output_parameter_of_type((*last)->type);
      if (!init)
        fail("variable '" + std::string(name_of(v)) +
             "' is first assigned inside this loop and read after it, but has no value if the loop runs no "
             "iteration; assign it before the loop");
      carries.push_back(Carry{v, ir::make_iter_arg(fresh_name(v, "iter"), (*last)->type, init, at), nullptr});
    }
    return yielded_by_input;
  }
  ir::Expr output_parameter_of_type(const ir::Type& t) {
    for (const auto& p : function_.params) {
      if (p.direction != ir::ParamDirection::Out && p.direction != ir::ParamDirection::InOut) continue;
      const ir::Expr* now = bindings_.find(p.var.get());
      if (now && ir::same_type((*now)->type, t, ir::Buffers::ignored)) return *now;
    }
    return nullptr;
  }
  // After the body: the yielded values, then the return vars in the outer scope.
  std::vector<ir::Expr> leave_carries(std::vector<Carry>& carries) {
    std::vector<ir::Expr> yielded;
    for (const auto& c : carries) yielded.push_back(*bindings_.find(c.var));
    return yielded;
  }
  // The return vars the input spells; after the loop an iter_arg's name stands for its return
  // var (a Python name keeps the last value it was given), as upstream's pass reads it.
  void define_return_vars(const std::vector<ir::Expr>& iter_args, std::vector<ir::Expr>& return_vars,
                          const std::vector<YieldedEscape>& aliases) {
    for (auto& rv : return_vars) rv = define(rv);
    // Only a return var of the iter_arg's type can stand for it: one the input annotated
    // otherwise would change the type of what reads the name (those reads are refused).
    for (std::size_t i = 0; i < iter_args.size() && i < return_vars.size(); ++i)
      if (ir::same_type(iter_args[i]->type, return_vars[i]->type, ir::Buffers::ignored))
        bindings_.bind(iter_args[i].get(), return_vars[i]);
    // An escaping Var becomes the return var only if it has that var's type: otherwise the
    // reads after the loop would take another type than the one they were written with (and
    // the printed program would not read back to itself).
    for (const auto& e : aliases) {
      if (e.position >= return_vars.size()) continue;
      const ir::Expr& rv = return_vars[e.position];
      if (auto difference = ir::type_difference(e.type, rv->type, ir::Buffers::ignored))
        fail("variable '" + std::string(name_of(e.var)) + "' is read after the loop, where its value is the loop's "
             "result '" + std::string(ir::name_hint(rv)) + "', but the two have different types (" + *difference +
             "); read '" + std::string(ir::name_hint(rv)) + "' after the loop, or give both the same annotation");
      bindings_.bind(e.var, rv);
    }
  }
  void bind_return_vars(std::vector<Carry>& carries, const ir::Span& at) {
    for (auto& c : carries) {
      c.return_var = ir::make_var(fresh_name(c.var, "rv"), c.iter_arg->type, at);
      bindings_.bind(c.var, c.return_var);
      ++loop_carries_;
    }
  }

  // After a loop's body (For and While alike): the escaping values join the carries, the
  // body's scope closes, the return vars are defined in the outer scope, and the carries are
  // appended to the loop's iter_args, return vars and closing yield.
  template <class Loop>
  void close_loop(Loop& next, const Loop& x, std::vector<Carry>& carries, std::vector<Key> escaping,
                  pass::detail::ScopedMap<Key, ir::Expr>::Mark m, const ir::Span& at) {
    auto aliases = add_escaping(std::move(escaping), carries, next.body, x.iter_args.size(), at);
    std::vector<ir::Expr> yielded = leave_carries(carries);
    close_scope(m, "the loop", at);
    define_return_vars(x.iter_args, next.return_vars, aliases);
    bind_return_vars(carries, at);
    for (const auto& c : carries) {
      next.iter_args.push_back(c.iter_arg);
      next.return_vars.push_back(c.return_var);
    }
    if (!carries.empty()) next.body = with_yield(next.body, yielded, at);
  }

  ir::Stmt for_loop(const ir::Stmt& s, const ir::For& x) {
    const LoopFacts& facts = facts_.loops[next_loop_++];
    ir::For next = x;
    next.start = mutate_expr(x.start);
    next.stop = mutate_expr(x.stop);
    next.step = mutate_expr(x.step);
    std::vector<ir::Expr> inits;
    for (const auto& ia : x.iter_args) inits.push_back(mutate_expr(std::get<ir::IterArg>(ia->v).init));
    auto attrs = ir::map_children(x.attrs, *this);
    if (attrs) next.attrs = std::move(*attrs);
    std::vector<ir::Expr> own = x.iter_args;
    own.push_back(x.loop_var);
    std::vector<Carry> carries = enter_carries(facts, own, s->span);
    std::vector<Key> escaping = escaping_candidates(facts, own, carries, s->span);

    auto m = bindings_.mark();
    next.loop_var = define(x.loop_var);
    for (std::size_t i = 0; i < x.iter_args.size(); ++i) next.iter_args[i] = define_iter_arg(x.iter_args[i], inits[i]);
    for (const auto& c : carries) bindings_.bind(c.var, c.iter_arg);
    open_loops_.push_back(OpenLoop{&carries, &escaping});
    next.body = mutate_stmt(x.body);
    open_loops_.pop_back();
    close_loop(next, x, carries, std::move(escaping), m, s->span);
    if (x.kind == ir::ForKind::unroll && !carries.empty()) refuse_unroll_carry(carries, s->span);
    if (carries.empty() && next.start == x.start && next.stop == x.stop && next.step == x.step &&
        next.loop_var == x.loop_var && next.body == x.body && next.iter_args == x.iter_args &&
        next.return_vars == x.return_vars && !attrs)
      return s;
    return ir::make_stmt(std::move(next), s->span, s->comments);
  }

  // A jump out of an iteration passes on the values the loop's iter_args had when the
  // iteration began: the closing yield is never reached. That is the Python value of a name
  // this pass carries only while the iteration has not re-assigned it yet; past such an
  // assignment no SSA form without a second exit value exists, so the program is refused
  // rather than given the previous iteration's value.
  ir::Stmt jump(const ir::Stmt& s, std::string_view keyword) {
    if (open_loops_.empty()) return s;
    const OpenLoop& loop = open_loops_.back();
    std::vector<std::string> changed;
    for (const auto& c : *loop.carries) {
      const ir::Expr* now = bindings_.find(c.var);
      if (now && *now != c.iter_arg) changed.emplace_back(name_of(c.var));
    }
    for (Key v : *loop.escaping)
      if (bindings_.find(v)) changed.emplace_back(name_of(v));
    if (changed.empty()) return s;
    std::sort(changed.begin(), changed.end());
    std::string names;
    for (const auto& n : changed) names += (names.empty() ? "'" : ", '") + n + "'";
    fail("'" + std::string(keyword) + "' leaves the loop iteration after it assigned " + names +
         ", a value the loop carries; in SSA form the loop passes on only what the end of its body yields, "
         "so after this '" + std::string(keyword) + "' " + (changed.size() == 1 ? "it" : "they") +
         " would silently keep the previous iteration's value. Move the assignment after the '" +
         std::string(keyword) + "', or guard the rest of the body with an if instead of jumping");
  }

  // pl.unroll takes no init_values (the text format has no way to print a carried unroll), so
  // a name it re-assigns and reads across iterations has no SSA form here.
  [[noreturn]] void refuse_unroll_carry(const std::vector<Carry>& carries, const ir::Span& at) {
    std::string names;
    for (const auto& c : carries) names += (names.empty() ? "'" : ", '") + std::string(name_of(c.var)) + "'";
    current_ = at;
    fail("pl.unroll re-assigns " + names +
         " and carries the value from one iteration to the next (or out of the loop), but pl.unroll takes no "
         "init_values and cannot carry values. Write the loop as pl.range(..., init_values=(...)) with "
         "pl.yield_, or give the value a fresh name in each iteration");
  }

  ir::Stmt while_loop(const ir::Stmt& s, const ir::While& x) {
    const LoopFacts& facts = facts_.loops[next_loop_++];
    ir::While next = x;
    std::vector<ir::Expr> inits;
    for (const auto& ia : x.iter_args) inits.push_back(mutate_expr(std::get<ir::IterArg>(ia->v).init));
    std::vector<Carry> carries = enter_carries(facts, x.iter_args, s->span);
    std::vector<Key> escaping = escaping_candidates(facts, x.iter_args, carries, s->span);

    auto m = bindings_.mark();
    for (std::size_t i = 0; i < x.iter_args.size(); ++i) next.iter_args[i] = define_iter_arg(x.iter_args[i], inits[i]);
    for (const auto& c : carries) bindings_.bind(c.var, c.iter_arg);
    next.cond = mutate_expr(x.cond);
    open_loops_.push_back(OpenLoop{&carries, &escaping});
    next.body = mutate_stmt(x.body);
    open_loops_.pop_back();
    close_loop(next, x, carries, std::move(escaping), m, s->span);
    if (carries.empty() && next.cond == x.cond && next.body == x.body && next.iter_args == x.iter_args &&
        next.return_vars == x.return_vars)
      return s;
    return ir::make_stmt(std::move(next), s->span, s->comments);
  }
};

}  // namespace tilewright::passes::ssa
