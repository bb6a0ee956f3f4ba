#pragma once
// SSAForm: every Var is defined once — as a parameter, an assignment target, a loop index,
// an iter_arg or a return var.
#include <unordered_set>

#include "tilewright/pass/verifiers/common.hpp"

namespace tilewright::pass::verifiers {

inline ir::Diagnostics verify_ssa_form(const ir::Program& program) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) {
    std::unordered_set<const ir::ExprNode*> defined;
    auto define = [&](const ir::Expr& v, const ir::Span& span) {
      if (v && !defined.insert(v.get()).second)
        out.push_back(property_error("SSAForm",
                                     "in function '" + f->name + "': variable '" +
                                         std::string(ir::name_hint(v)) + "' is defined more than once",
                                     span.known() ? span : v->span));
    };
    for (const auto& p : f->params) define(p.var, f->span);
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      if (auto* a = ir::as<ir::Assign>(s)) define(a->var, s->span);
      else if (auto* l = ir::as<ir::For>(s)) {
        define(l->loop_var, s->span);
        for (const auto& v : l->iter_args) define(v, s->span);
        for (const auto& v : l->return_vars) define(v, s->span);
      } else if (auto* w = ir::as<ir::While>(s)) {
        for (const auto& v : w->iter_args) define(v, s->span);
        for (const auto& v : w->return_vars) define(v, s->span);
      } else if (auto* i = ir::as<ir::If>(s)) {
        for (const auto& v : i->return_vars) define(v, s->span);
      }
    });
  }
  return out;
}

}  // namespace tilewright::pass::verifiers
