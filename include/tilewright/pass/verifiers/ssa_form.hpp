#pragma once
// SSAForm: every Var is defined once — as an assignment target, a loop index, an iter_arg, a
// return var or a scope binding — and used only where its definition is in scope: a Var
// defined in a branch or a loop body is not visible after it (the values that leave a branch
// or a loop are its return vars). Loops with iter_args and ifs with return vars end their
// bodies in a yield of matching arity.
//
// A parameter is bound by the call, not assigned, so the body may assign it once, as
// upstream's verifier counts it: `out_0 = pl.tile.store(t, [0, 0], out_0)` is SSA (seed 000's
// own input). We take that assignment at the function's top level only (scopes are
// transparent): inside a loop body it runs once per iteration, and inside a branch it leaves
// the name two values after the if; both need ConvertToSSA's carries and merges.
//
// Each report is located at the offending statement and says which variable; a redefinition
// carries a note pointing at the first definition. ConvertToSSA establishes the property.
//
// Vars a function uses but never defines (dynamic dimensions declared at program level)
// are not scope errors.
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "tilewright/pass/detail/scoped_map.hpp"
#include "tilewright/pass/verifiers/common.hpp"

namespace tilewright::pass::verifiers {

namespace ssa_detail {

class SsaChecker {
 public:
  SsaChecker(const ir::FunctionNode& f, ir::Diagnostics& out) : f_(f), out_(out) {}

  void run() {
    collect_definitions();
    for (const auto& p : f_.params)
      if (p.var) {
        params_.insert(p.var.get());
        visible_.bind(p.var.get(), 1);
      }
    stmt(f_.body);
  }

 private:
  const ir::FunctionNode& f_;
  ir::Diagnostics& out_;
  std::unordered_set<const ir::ExprNode*> defined_anywhere_;
  std::unordered_map<const ir::ExprNode*, ir::Span> first_definition_;
  std::unordered_set<const ir::ExprNode*> reported_uses_;
  std::unordered_set<const ir::ExprNode*> params_;
  int nested_ = 0;  // loop bodies and branches around the statement
  ::tilewright::pass::detail::ScopedMap<const ir::ExprNode*, char> visible_;

  void report(std::string message, const ir::Span& span, std::vector<std::pair<std::string, ir::Span>> notes = {}) {
    ir::Diagnostic d = property_error("SSAForm", "in function '" + f_.name + "': " + std::move(message), span);
    d.notes = std::move(notes);
    out_.push_back(std::move(d));
  }

  void collect_definitions() {
    auto add = [&](const ir::Expr& v) {
      if (v) defined_anywhere_.insert(v.get());
    };
    for (const auto& p : f_.params) add(p.var);
    ir::for_each_stmt(f_.body, [&](const ir::Stmt& s) {
      if (auto* a = ir::as<ir::Assign>(s)) add(a->var);
      else if (auto* l = ir::as<ir::For>(s)) {
        add(l->loop_var);
        for (const auto& v : l->iter_args) add(v);
        for (const auto& v : l->return_vars) add(v);
      } else if (auto* w = ir::as<ir::While>(s)) {
        for (const auto& v : w->iter_args) add(v);
        for (const auto& v : w->return_vars) add(v);
      } else if (auto* i = ir::as<ir::If>(s)) {
        for (const auto& v : i->return_vars) add(v);
      } else if (auto* sc = ir::as<ir::Scope>(s)) {
        add(sc->bound);
      }
    });
  }

  void define(const ir::Expr& v, const ir::Span& span) {
    if (!v) return;
    if (nested_ > 0 && params_.count(v.get()) && !first_definition_.count(v.get())) {
      report("parameter '" + std::string(ir::name_hint(v)) +
                 "' is re-assigned inside a loop body or a branch, violating SSA form (a parameter may be "
                 "re-assigned once, outside loops and branches)",
             span);
      first_definition_.try_emplace(v.get(), span);
      return;
    }
    auto [it, first] = first_definition_.try_emplace(v.get(), span);
    if (!first) {
      std::string note = "'" + std::string(ir::name_hint(v)) + "' is first defined here";
      report("variable '" + std::string(ir::name_hint(v)) + "' is assigned more than once, violating SSA form",
             span, {{note, it->second}});
    }
    visible_.bind(v.get(), 1);
  }

  // Every Var an expression reads (types are not entered: the Vars in them are shapes).
  void uses(const ir::Expr& e, const ir::Span& at) {
    if (!e) return;
    ir::walk_expr(e, [&](const ir::Expr& x) {
      if (ir::is_var_like(x)) use(x, at);
      return !ir::is_closed(x);  // no Var below a constant or a tuple of them
    });
  }
  void use(const ir::Expr& v, const ir::Span& at) {
    if (visible_.find(v.get()) || !defined_anywhere_.count(v.get())) return;
    if (!reported_uses_.insert(v.get()).second) return;  // one report per variable is enough
    std::string name(ir::name_hint(v));
    auto def = first_definition_.find(v.get());
    std::vector<std::pair<std::string, ir::Span>> notes;
    if (def != first_definition_.end()) notes.emplace_back("'" + name + "' is defined here", def->second);
    report("variable '" + name + "' used outside its defining scope" +
               (def != first_definition_.end()
                    ? std::string(" (its definition is inside a branch or loop body that has ended here)")
                    : std::string(" (it is used before it is defined)")),
           at, std::move(notes));
  }
  void uses_in_kwargs(const ir::Kwargs& kw, const ir::Span& at) {
    for (const auto& [k, v] : kw) {
      if (auto* e = std::get_if<ir::Expr>(&v)) uses(*e, at);
      else if (auto* es = std::get_if<std::vector<ir::Expr>>(&v))
        for (const auto& x : *es) uses(x, at);
    }
  }

  void check_loop(std::string_view kind, std::size_t iter_args, std::size_t return_vars, const ir::Stmt& body,
                  const ir::Span& span) {
    const std::string k(kind);
    if (iter_args != return_vars)
      report(k + " iter_args count (" + std::to_string(iter_args) + ") != return_vars count (" +
                 std::to_string(return_vars) + ")",
             span);
    if (iter_args == 0) return;
    const ir::Yield* y = ir::closing_yield(body);
    if (!y)
      report(k + " with iter_args must have YieldStmt as last statement in body", span);
    else if (y->values.size() != iter_args)
      report(k + " YieldStmt value count (" + std::to_string(y->values.size()) + ") != iter_args count (" +
                 std::to_string(iter_args) + ")",
             span);
  }
  void check_if(const ir::If& i, const ir::Span& span) {
    if (i.return_vars.empty()) return;
    if (!i.else_body) {
      report("IfStmt with return_vars must have else branch", span);
      return;
    }
    const std::size_t n = i.return_vars.size();
    for (auto [body, branch] : {std::pair{&i.then_body, "then"}, std::pair{&i.else_body, "else"}}) {
      const ir::Yield* y = ir::closing_yield(*body);
      if (!y)
        report(std::string("IfStmt ") + branch + " branch must end with YieldStmt when return_vars exist", span);
      else if (y->values.size() != n)
        report(std::string("IfStmt ") + branch + "-branch YieldStmt value count (" + std::to_string(y->values.size()) +
                   ") != return_vars count (" + std::to_string(n) + ")",
               span);
    }
  }

  // Recursion follows statement nesting only, which the parser bounds.
  void stmt(const ir::Stmt& s) {
    if (!s) return;
    const ir::Span& at = s->span;
    ir::dispatch(s->v, [&](const auto& x) {
      using X = std::decay_t<decltype(x)>;
      if constexpr (std::is_same_v<X, ir::Assign>) {
        uses(x.value, at);
        define(x.var, at);
      } else if constexpr (std::is_same_v<X, ir::Seq>) {
        for (const auto& c : x.stmts) stmt(c);
      } else if constexpr (std::is_same_v<X, ir::If>) {
        uses(x.cond, at);
        auto m = visible_.mark();
        ++nested_;
        stmt(x.then_body);
        visible_.rollback(m);
        stmt(x.else_body);
        visible_.rollback(m);
        --nested_;
        check_if(x, at);
        for (const auto& v : x.return_vars) define(v, at);
      } else if constexpr (std::is_same_v<X, ir::For>) {
        uses(x.start, at);
        uses(x.stop, at);
        uses(x.step, at);
        for (const auto& ia : x.iter_args)
          if (auto* a = ir::as<ir::IterArg>(ia)) uses(a->init, at);
        uses_in_kwargs(x.attrs, at);
        auto m = visible_.mark();
        define(x.loop_var, at);
        for (const auto& ia : x.iter_args) define(ia, at);
        ++nested_;
        stmt(x.body);
        --nested_;
        visible_.rollback(m);
        check_loop("ForStmt", x.iter_args.size(), x.return_vars.size(), x.body, at);
        for (const auto& v : x.return_vars) define(v, at);
      } else if constexpr (std::is_same_v<X, ir::While>) {
        for (const auto& ia : x.iter_args)
          if (auto* a = ir::as<ir::IterArg>(ia)) uses(a->init, at);
        auto m = visible_.mark();
        for (const auto& ia : x.iter_args) define(ia, at);
        uses(x.cond, at);
        ++nested_;
        stmt(x.body);
        --nested_;
        visible_.rollback(m);
        check_loop("WhileStmt", x.iter_args.size(), x.return_vars.size(), x.body, at);
        for (const auto& v : x.return_vars) define(v, at);
      } else if constexpr (std::is_same_v<X, ir::Scope>) {
        for (const auto& a : x.args) uses(a, at);
        uses_in_kwargs(x.params, at);
        define(x.bound, at);
        stmt(x.body);  // scopes are transparent: what they define stays visible
      } else if constexpr (std::is_same_v<X, ir::Eval>) {
        uses(x.expr, at);
      } else if constexpr (std::is_same_v<X, ir::Yield> || std::is_same_v<X, ir::Return>) {
        for (const auto& v : x.values) uses(v, at);
      }
    });
  }
};

}  // namespace ssa_detail

inline ir::Diagnostics verify_ssa_form(const ir::Program& program) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) ssa_detail::SsaChecker(*f, out).run();
  return out;
}

}  // namespace tilewright::pass::verifiers
