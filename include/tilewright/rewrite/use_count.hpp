#pragma once
// How many times each Var is read: the analysis behind `one_use`. Definitions (the left of
// an Assign, loop variables, iter_args, return_vars) are not reads.
#include "tilewright/ir/walk.hpp"
#include "tilewright/rewrite/pattern.hpp"

namespace tilewright::rewrite {

inline use_count_table count_uses(const ir::Stmt& body) {
  use_count_table uses;
  auto definitions = [&](const std::vector<ir::Expr>& vars) {
    for (const auto& v : vars) --uses[v.get()];
  };
  // The walk meets an iter_arg as a Var and does not enter it, so the value it starts from
  // is counted here: a tile carried into a loop is read by the loop.
  auto initializers = [&](const std::vector<ir::Expr>& iter_args) {
    for (const auto& v : iter_args)
      if (auto* ia = ir::as<ir::IterArg>(v); ia && ir::is_var_like(ia->init)) ++uses[ia->init.get()];
  };
  ir::walk(
      body,
      [&](const ir::Stmt& s) {
        // The walk meets definitions as expressions too, right after their statement: cancel
        // that count out (unsigned, so the transient -1 wraps and comes back to 0).
        if (auto* a = ir::as<ir::Assign>(s)) --uses[a->var.get()];
        if (auto* f = ir::as<ir::For>(s)) {
          --uses[f->loop_var.get()];
          initializers(f->iter_args);
          definitions(f->iter_args);
          definitions(f->return_vars);
        }
        if (auto* w = ir::as<ir::While>(s)) {
          initializers(w->iter_args);
          definitions(w->iter_args);
          definitions(w->return_vars);
        }
        if (auto* i = ir::as<ir::If>(s)) definitions(i->return_vars);
        return true;
      },
      [&](const ir::Expr& e) {
        if (ir::is_var_like(e)) ++uses[e.get()];
        return true;
      });
  return uses;
}

}  // namespace tilewright::rewrite
