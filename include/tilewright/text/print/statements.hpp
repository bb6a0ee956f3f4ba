#pragma once
// Statements and blocks (§3): comments, the trailing yield printed as the assignment to its
// construct's return vars or as the function's return, loops, branches and scopes.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/text/print/printer_class.hpp"

namespace tilewright::text::printer_detail {

inline void Printer::comments(const Stmt& s, int level) {
  for (const auto& line : s->comments.lines) {
    newline(level);
    out += '#';
    if (!line.empty()) {
      out += ' ';
      out += line;
    }
  }
}

// §3.1: `tid = system.task_invalid()` right before the scope it names is recreated by the
// scope's `as tid`, so it is not printed.
inline bool Printer::is_suppressed_task_placeholder(const Stmt& s, const Stmt& next) {
  auto* a = ir::as<ir::Assign>(s);
  if (!a || !s->comments.lines.empty()) return false;
  auto* c = ir::as<ir::Call>(a->value);
  if (!c || c->callee.op != task_invalid_op() || !c->args.empty()) return false;
  auto* sc = ir::as<ir::Scope>(next);
  return sc && sc->bound == a->var &&
         (sc->kind == ir::ScopeKind::at || sc->kind == ir::ScopeKind::spmd);
}

inline void Printer::block(const Stmt& body, int level, YieldTarget target, bool allow_empty) {
  if (!body) {
    if (!allow_empty) {
      newline(level);
      out += "pass";
    }
    return;
  }
  if (auto* seq = ir::as<ir::Seq>(body); seq && body->comments.lines.empty()) {
    if (seq->stmts.empty()) {
      if (!allow_empty) {
        newline(level);
        out += "pass";
      }
      return;
    }
    seq_stmts(*seq, level, target);
    return;
  }
  statement(body, level, target);
}

inline void Printer::seq_stmts(const ir::Seq& seq, int level, YieldTarget target) {
  const auto& ss = seq.stmts;
  for (std::size_t i = 0; i < ss.size(); ++i) {
    if (i + 1 < ss.size() && is_suppressed_task_placeholder(ss[i], ss[i + 1])) continue;
    YieldTarget t = target;
    // Only the last statement closes its block; a top-level yield returns wherever it is.
    if (i + 1 != ss.size()) t.return_vars = nullptr;
    statement(ss[i], level, t);
  }
}

inline void Printer::values_after(std::string_view head, const std::vector<Expr>& vs) {
  out += head;
  expr_list(vs);
}

inline void Printer::yield(const ir::Yield& y, int level, YieldTarget target) {
  newline(level);
  if (target.return_vars && !target.return_vars->empty() && !y.values.empty()) {
    const auto& rv = *target.return_vars;
    if (rv.size() == 1) {
      var_name(rv[0]);
      out += ": ";
      type(rv[0]->type);
    } else {
      for (std::size_t i = 0; i < rv.size(); ++i) {
        if (i) out += ", ";
        var_name(rv[i]);
      }
    }
    out += " = pl.yield_(";
    expr_list(y.values);
    out += ')';
    return;
  }
  if (target.function_top) {
    out += "return";
    if (!y.values.empty()) values_after(" ", y.values);
    return;
  }
  out += "pl.yield_(";
  expr_list(y.values);
  out += ')';
}

inline void Printer::init_values(const std::vector<Expr>& iter_args) {
  out += "init_values=(";
  for (std::size_t i = 0; i < iter_args.size(); ++i) {
    if (i) out += ", ";
    auto* ia = ir::as<ir::IterArg>(iter_args[i]);
    expr(ia ? ia->init : nullptr);
  }
  if (iter_args.size() == 1) out += ',';
  out += ')';
}

inline void Printer::target_tuple(const std::vector<Expr>& vars) {
  out += '(';
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (i) out += ", ";
    var_name(vars[i]);
  }
  if (vars.size() == 1) out += ',';
  out += ')';
}

inline void Printer::for_stmt(const ir::For& f, int level) {
  if (f.kind == ir::ForKind::unroll && !f.iter_args.empty())
    ir::throw_internal_error("printer", "pl.unroll does not support iter_args");
  newline(level);
  out += "for ";
  var_name(f.loop_var);
  if (!f.iter_args.empty()) {
    out += ", ";
    target_tuple(f.iter_args);
  }
  out += " in pl.";
  out += enum_name(f.kind);
  out += '(';
  // §3.4: bounds are elided as in Python's range, but only for INDEX 0 / 1.
  bool step_one = is_index_const(f.step, 1);
  if (step_one && is_index_const(f.start, 0)) {
    expr(f.stop);
  } else {
    expr(f.start);
    out += ", ";
    expr(f.stop);
    if (!step_one) {
      out += ", ";
      expr(f.step);
    }
  }
  bool pipeline = f.kind == ir::ForKind::pipeline;
  if (pipeline) {
    if (auto* st = ir::find_kwarg(f.attrs, "pipeline_stages")) {
      out += ", stage=";
      common_value(*st, StrStyle::double_quoted);
    }
  }
  if (!f.iter_args.empty()) {
    out += ", ";
    init_values(f.iter_args);
  }
  bool any_attr = false;
  for (const auto& kv : f.attrs) {
    if (pipeline && kv.first == "pipeline_stages") continue;
    out += any_attr ? ", " : ", attrs={";
    any_attr = true;
    append_quoted(out, kv.first);
    out += ": ";
    common_value(kv.second, StrStyle::double_quoted);
  }
  if (any_attr) out += '}';
  out += "):";
  block(f.body, level + 1, {f.return_vars.empty() ? nullptr : &f.return_vars, false});
}

inline void Printer::while_stmt(const ir::While& w, int level) {
  newline(level);
  YieldTarget target{w.return_vars.empty() ? nullptr : &w.return_vars, false};
  if (w.iter_args.empty()) {
    out += "while ";
    expr(w.cond);
    out += ':';
    block(w.body, level + 1, target);
    return;
  }
  out += "for ";
  target_tuple(w.iter_args);
  out += " in pl.while_(";
  init_values(w.iter_args);
  out += "):";
  newline(level + 1);
  out += "pl.cond(";
  expr(w.cond);
  out += ')';
  block(w.body, level + 1, target, /*allow_empty=*/true);
}

inline void Printer::if_stmt(const ir::If& s, int level) {
  YieldTarget target{s.return_vars.empty() ? nullptr : &s.return_vars, false};
  newline(level);
  out += "if ";
  expr(s.cond);
  out += ':';
  block(s.then_body, level + 1, target);
  if (s.else_body) {
    newline(level);
    out += "else:";
    block(s.else_body, level + 1, target);
  }
}

inline void Printer::scope_value(std::string_view key, const ir::AttrValue& v) {
  if (key == "predicate") {
    if (auto* e = std::get_if<Expr>(&v)) {
      out += '(';
      expr(*e);
      out += ')';
      return;
    }
  }
  common_value(v, StrStyle::double_quoted);
}

inline void Printer::scope_call(std::string_view head, const ir::Scope& s,
                                std::string_view leading) {
  out += head;
  out += '(';
  bool sep = false;
  if (!leading.empty()) {
    out += leading;
    sep = true;
  }
  for (const auto& a : s.args) {
    if (sep) out += ", ";
    sep = true;
    expr(a);
  }
  for (const auto& [k, v] : s.params) {
    if (sep) out += ", ";
    sep = true;
    out += k;
    out += '=';
    scope_value(k, v);
  }
  out += ')';
}

inline void Printer::scope_stmt(const ir::Scope& s, int level, YieldTarget target) {
  newline(level);
  YieldTarget inner{};
  switch (s.kind) {
    case ir::ScopeKind::at:
    case ir::ScopeKind::spmd:
      out += "with ";
      scope_call(s.kind == ir::ScopeKind::at ? "pl.at" : "pl.spmd", s);
      if (s.bound) {
        out += " as ";
        var_name(s.bound);
      }
      out += ':';
      break;
    case ir::ScopeKind::cluster:
      out += "with ";
      scope_call("pl.cluster", s);
      out += ':';
      break;
    case ir::ScopeKind::scope:
    case ir::ScopeKind::manual_scope:
      out += "with ";
      // Upstream never prints pl.manual_scope(); it is the MANUAL mode of pl.scope (§3.7).
      scope_call("pl.scope", s,
                 s.kind == ir::ScopeKind::manual_scope ? "mode=pl.ScopeMode.MANUAL" : "");
      out += ':';
      // An AUTO scope around a loop or branch body keeps that body's trailing yield form.
      inner.return_vars = target.return_vars;
      break;
    case ir::ScopeKind::spmd_for:
    case ir::ScopeKind::split_aiv:
      out += "for ";
      if (s.bound)
        var_name(s.bound);
      else
        out += s.kind == ir::ScopeKind::split_aiv ? "aiv_id" : "block_idx";
      out += " in ";
      scope_call(s.kind == ir::ScopeKind::spmd_for ? "pl.spmd" : "pl.split_aiv", s);
      out += ':';
      break;
  }
  bool aiv = s.kind == ir::ScopeKind::split_aiv;
  if (aiv) ++split_aiv_depth;
  block(s.body, level + 1, inner);
  if (aiv) --split_aiv_depth;
}

// §6.4: a bare int literal under a Scalar annotation of another dtype reads back re-stamped
// to that dtype, so an INDEX constant assigned to such a name is written `pl.const(v, pl.INDEX)`.
inline bool restamped_if_bare(const ir::Assign& a) {
  auto* c = ir::as<ir::ConstInt>(a.value);
  auto* value = c ? ir::as<ir::ScalarType>(a.value->type) : nullptr;
  auto* name = a.var ? ir::as<ir::ScalarType>(a.var->type) : nullptr;
  return value && name && value->dtype == ir::DataType::INDEX && name->dtype != ir::DataType::INDEX;
}

inline void Printer::statement(const Stmt& s, int level, YieldTarget target) {
  if (!s) return;
  comments(s, level);
  ir::dispatch(s->v, ir::overloaded{
                         [&](const ir::Assign& a) {
                           newline(level);
                           var_name(a.var);
                           out += ": ";
                           type(a.var ? a.var->type : nullptr);
                           out += " = ";
                           assigned_call = ir::as<ir::Call>(a.value);
                           assigned_name = a.var ? printed_name(a.var) : std::string_view();
                           expr(a.value, restamped_if_bare(a));
                           assigned_call = nullptr;
                         },
                         [&](const ir::Eval& a) {
                           newline(level);
                           expr(a.expr);
                         },
                         [&](const ir::Seq& a) {
                           if (a.stmts.empty()) {
                             newline(level);
                             out += "pass";
                           } else {
                             seq_stmts(a, level, target);
                           }
                         },
                         [&](const ir::If& a) { if_stmt(a, level); },
                         [&](const ir::For& a) { for_stmt(a, level); },
                         [&](const ir::While& a) { while_stmt(a, level); },
                         [&](const ir::Yield& a) { yield(a, level, target); },
                         [&](const ir::Return& a) {
                           newline(level);
                           out += "return";
                           if (!a.values.empty()) values_after(" ", a.values);
                         },
                         [&](const ir::Break&) {
                           newline(level);
                           out += "break";
                         },
                         [&](const ir::Continue&) {
                           newline(level);
                           out += "continue";
                         },
                         [&](const ir::Scope& a) { scope_stmt(a, level, target); },
                     });
}

}  // namespace tilewright::text::printer_detail
