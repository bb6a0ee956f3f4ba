#pragma once
// Read-only pre-order walks. Analyses and verifiers use these instead of hand-written
// recursion so that every statement kind (including scopes and loop headers) is reached.
#include <type_traits>

#include "tilewright/ir/detail/reflect.hpp"
#include "tilewright/ir/function.hpp"

namespace tilewright::ir {

// Calls f(expr) for each expression a kwarg or attribute value holds.
template <class F>
void for_each_attr_expr(const AttrValue& value, F&& f) {
  if (auto* e = std::get_if<Expr>(&value)) f(*e);
  else if (auto* v = std::get_if<std::vector<Expr>>(&value)) for (const auto& x : *v) f(x);
}

namespace detail {
template <class OnStmt, class OnExpr>
struct Walker {
  OnStmt& on_stmt;
  OnExpr& on_expr;

  template <class T>
  void field(const T& f) {
    if constexpr (std::is_same_v<T, Stmt>) {
      stmt(f);
    } else if constexpr (std::is_same_v<T, Expr>) {
      expr(f);
    } else if constexpr (std::is_same_v<T, AttrValue>) {
      for_each_attr_expr(f, [&](const Expr& e) { expr(e); });
    } else if constexpr (std::is_same_v<T, Kwargs>) {
      for (const auto& kv : f) field(kv.second);
    } else if constexpr (requires { f.begin(); typename T::value_type; } && !std::is_same_v<T, std::string>) {
      for (const auto& x : f) field(x);
    } else if constexpr (is_reflected<T>) {
      for_each_field(f, [&](const char*, const auto& x) { field(x); });
    }
  }
  void stmt(const Stmt& s) {
    if (!s) return;
    if (!on_stmt(s)) return;
    dispatch(s->v, [&](const auto& x) { field(x); });
  }
  // Expressions are visited where they are used; types are not entered.
  void expr(const Expr& e) {
    if (!e) return;
    if (!on_expr(e)) return;
    if (is_var_like(e)) return;  // a use, not a definition: its init was visited at the loop
    dispatch(e->v, [&](const auto& x) { field(x); });
  }
};
}  // namespace detail

// Calls on_stmt(stmt) -> bool (false: skip children) and on_expr(expr) -> bool for every
// statement and expression below `root`, in pre-order.
template <class OnStmt, class OnExpr>
void walk(const Stmt& root, OnStmt&& on_stmt, OnExpr&& on_expr) {
  detail::Walker<std::remove_reference_t<OnStmt>, std::remove_reference_t<OnExpr>> w{on_stmt, on_expr};
  w.stmt(root);
}

// The same pre-order walk over one expression (Vars are leaves; types are not entered).
template <class OnExpr>
void walk_expr(const Expr& root, OnExpr&& on_expr) {
  auto no_stmt = [](const Stmt&) { return false; };
  detail::Walker<decltype(no_stmt), std::remove_reference_t<OnExpr>> w{no_stmt, on_expr};
  w.expr(root);
}

// Calls f(child) for each statement directly nested in `s`: a list's statements, a loop's
// body, both branches of an if (a missing else is null), a scope's body — in field order.
template <class F>
void for_each_nested_stmt(const Stmt& s, F&& f) {
  if (!s) return;
  dispatch(s->v, [&](const auto& node) {
    detail::for_each_field(node, [&](const char*, const auto& field) {
      using T = std::decay_t<decltype(field)>;
      if constexpr (std::is_same_v<T, Stmt>) f(field);
      else if constexpr (std::is_same_v<T, std::vector<Stmt>>)
        for (const auto& child : field) f(child);
    });
  });
}

template <class OnStmt>
void for_each_stmt(const Stmt& root, OnStmt&& on_stmt) {
  auto no_expr = [](const Expr&) { return false; };
  walk(root, [&](const Stmt& s) { on_stmt(s); return true; }, no_expr);
}

// The Call on the right of an Assign or inside an Eval, if any: the statements that
// "run an op".
inline const Call* stmt_call(const Stmt& s) noexcept {
  if (auto* a = as<Assign>(s)) return as<Call>(a->value);
  if (auto* e = as<Eval>(s)) return as<Call>(e->expr);
  return nullptr;
}
inline const Expr* stmt_call_expr(const Stmt& s) noexcept {
  if (auto* a = as<Assign>(s)) return as<Call>(a->value) ? &a->value : nullptr;
  if (auto* e = as<Eval>(s)) return as<Call>(e->expr) ? &e->expr : nullptr;
  return nullptr;
}

}  // namespace tilewright::ir
