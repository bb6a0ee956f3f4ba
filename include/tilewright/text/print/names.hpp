#pragma once
// Names (§5.2) and dynamic dimensions (§5.3): one read-only scan per function collects its
// parameters, definitions and uses in the order the names are assigned, the Vars its types
// read, and its callees; colliding hints then take the first free `base_k` in one pass, and
// the free dimension Vars of the whole program become its `pl.dynamic` lines.
#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/text/print/spelling.hpp"

namespace tilewright::text::printer_detail {

struct FunctionScan {
  std::vector<const ExprNode*> params;  // in order
  std::vector<const ExprNode*> defs;    // body definitions, DFS pre-order, unique
  std::vector<const ExprNode*> uses;    // first-use order, unique
  std::unordered_set<const ExprNode*> param_set, def_set, use_set;
  std::vector<const ExprNode*> type_vars;  // Vars read by types, first-seen order
  std::unordered_set<const ExprNode*> type_var_set;
  std::unordered_set<const TypeNode*> types_seen;
  // Params read by a parameter TensorView valid_shape: they must exist before the signature
  // is evaluated, so upstream declares them with pl.dynamic as well (§5.3).
  std::vector<const ExprNode*> param_view_reads;
  std::vector<std::string_view> callees;
  std::size_t node_count = 0;

  void scan(const ir::FunctionNode& f) {
    for (const auto& p : f.params)
      if (p.var && param_set.insert(p.var.get()).second) params.push_back(p.var.get());
    for (const auto& p : f.params) {
      if (!p.var) continue;
      visit_type(p.var->type);
      if (auto* t = ir::as<ir::TensorType>(p.var->type); t && t->view)
        for (const auto& d : t->view->valid_shape) collect_param_reads(d);
    }
    for (const auto& t : f.return_types) visit_type(t);
    stmt(f.body);
  }

  void collect_param_reads(const Expr& e) {
    if (!e) return;
    if (ir::is_var_like(e)) {
      if (param_set.count(e.get())) param_view_reads.push_back(e.get());
    } else if (auto* b = ir::as<ir::Binary>(e)) {
      collect_param_reads(b->lhs);
      collect_param_reads(b->rhs);
    } else if (auto* u = ir::as<ir::Unary>(e)) {
      collect_param_reads(u->operand);
    }
  }

  void type_expr(const Expr& e) {
    if (!e) return;
    if (ir::is_var_like(e)) {
      if (type_var_set.insert(e.get()).second) type_vars.push_back(e.get());
    } else if (auto* b = ir::as<ir::Binary>(e)) {
      type_expr(b->lhs);
      type_expr(b->rhs);
    } else if (auto* u = ir::as<ir::Unary>(e)) {
      type_expr(u->operand);
    }
  }

  void visit_type(const Type& t) {
    if (!t || !types_seen.insert(t.get()).second) return;
    if (auto* tt = ir::as<ir::TensorType>(t)) {
      for (const auto& d : tt->shape) type_expr(d);
      if (tt->view) {
        for (const auto& d : tt->view->valid_shape) type_expr(d);
        for (const auto& d : tt->view->stride) type_expr(d);
      }
    } else if (auto* tl = ir::as<ir::TileType>(t)) {
      for (const auto& d : tl->shape) type_expr(d);
      if (tl->view) {
        for (const auto& d : tl->view->valid_shape) type_expr(d);
        for (const auto& d : tl->view->stride) type_expr(d);
        type_expr(tl->view->start_offset);
      }
    } else if (auto* tu = ir::as<ir::TupleType>(t)) {
      for (const auto& el : tu->elements) visit_type(el);
    }
  }

  void def(const Expr& v) {
    if (!v) return;
    if (!param_set.count(v.get()) && def_set.insert(v.get()).second) defs.push_back(v.get());
    visit_type(v->type);
  }

  void attr(const ir::AttrValue& v) {
    if (auto* e = std::get_if<Expr>(&v))
      expr(*e);
    else if (auto* es = std::get_if<std::vector<Expr>>(&v))
      for (const auto& x : *es) expr(x);
  }

  void expr(const Expr& e) {
    if (!e) return;
    ++node_count;
    switch (e->v.index()) {
      case 0:  // Var
      case 1:  // IterArg
        if (use_set.insert(e.get()).second) uses.push_back(e.get());
        visit_type(e->type);
        break;
      case 2: {  // MemRef
        auto& m = std::get<ir::MemRef>(e->v);
        expr(m.offset);
        expr(m.slot_index);
        break;
      }
      case 6: {
        auto& b = std::get<ir::Binary>(e->v);
        expr(b.lhs);
        expr(b.rhs);
        break;
      }
      case 7:
        expr(std::get<ir::Unary>(e->v).operand);
        break;
      case 8: {
        auto& c = std::get<ir::Call>(e->v);
        if (!c.callee.function.empty()) callees.push_back(c.callee.function);
        for (const auto& a : c.args) expr(a);
        for (const auto& kv : c.kwargs) attr(kv.second);
        for (const auto& kv : c.attrs) attr(kv.second);
        break;
      }
      case 9:
        for (const auto& x : std::get<ir::MakeTuple>(e->v).elements) expr(x);
        break;
      case 10:
        expr(std::get<ir::TupleGetItem>(e->v).tuple);
        break;
      default:
        break;
    }
  }

  void stmt(const Stmt& s) {
    if (!s) return;
    ++node_count;
    ir::dispatch(s->v, ir::overloaded{
                           [&](const ir::Assign& a) {
                             def(a.var);
                             expr(a.value);
                           },
                           [&](const ir::Eval& a) { expr(a.expr); },
                           [&](const ir::Seq& a) {
                             for (const auto& x : a.stmts) stmt(x);
                           },
                           [&](const ir::If& a) {
                             for (const auto& r : a.return_vars) def(r);
                             expr(a.cond);
                             stmt(a.then_body);
                             stmt(a.else_body);
                           },
                           [&](const ir::For& a) {
                             def(a.loop_var);
                             for (const auto& r : a.return_vars) def(r);
                             for (const auto& r : a.iter_args) def(r);
                             expr(a.start);
                             expr(a.stop);
                             expr(a.step);
                             for (const auto& r : a.iter_args)
                               if (auto* ia = ir::as<ir::IterArg>(r)) expr(ia->init);
                             for (const auto& kv : a.attrs) attr(kv.second);
                             stmt(a.body);
                           },
                           [&](const ir::While& a) {
                             for (const auto& r : a.return_vars) def(r);
                             for (const auto& r : a.iter_args) def(r);
                             for (const auto& r : a.iter_args)
                               if (auto* ia = ir::as<ir::IterArg>(r)) expr(ia->init);
                             expr(a.cond);
                             stmt(a.body);
                           },
                           [&](const ir::Yield& a) {
                             for (const auto& x : a.values) expr(x);
                           },
                           [&](const ir::Return& a) {
                             for (const auto& x : a.values) expr(x);
                           },
                           [&](const ir::Break&) {},
                           [&](const ir::Continue&) {},
                           [&](const ir::Scope& a) {
                             for (const auto& x : a.args) expr(x);
                             for (const auto& kv : a.params) attr(kv.second);
                             def(a.bound);
                             stmt(a.body);
                           },
                       });
  }
};

inline std::string_view hint_of(const ExprNode* n) noexcept {
  if (auto* v = std::get_if<ir::Var>(&n->v)) return v->name.text;
  if (auto* v = std::get_if<ir::IterArg>(&n->v)) return v->name.text;
  if (auto* m = std::get_if<ir::MemRef>(&n->v)) return m->base ? hint_of(m->base.get()) : "";
  return {};
}

// §5.2 step 2–3: unique names stay; each colliding Var, in order, takes the first free
// candidate of base, base_1, base_2, … . `reserved` names are already bound in an enclosing
// scope (the program's `pl.dynamic` dims): a Var hinted with one collides with it, since a
// local `N` would capture every later `N` in a type when the text is read back.
inline void assign_names(const std::vector<const ExprNode*>& vars,
                         std::unordered_map<const ExprNode*, std::string>& out,
                         const std::vector<std::string_view>& reserved = {}) {
  std::unordered_map<std::string_view, int> count;
  count.reserve(vars.size() + reserved.size());
  for (auto* v : vars) ++count[hint_of(v)];
  std::unordered_set<std::string> taken;
  taken.reserve(vars.size() + reserved.size());
  for (auto name : reserved) {
    count[name] += 2;  // never "unique": a Var of this hint must take a suffix
    taken.emplace(name);
  }
  for (auto& [name, n] : count)
    if (n == 1) taken.emplace(name);
  // Candidates of one base are only ever taken, never freed, so each base resumes its
  // search where the previous collision stopped: linear in the number of Vars.
  std::unordered_map<std::string_view, int> next_suffix;
  for (auto* v : vars) {
    std::string_view base = hint_of(v);
    if (count[base] == 1) {
      out.emplace(v, std::string(base));
      continue;
    }
    int& k = next_suffix[base];
    std::string candidate(base);
    if (k > 0) {
      candidate += '_';
      candidate += std::to_string(k);
    }
    while (taken.count(candidate)) {
      candidate.assign(base);
      candidate += '_';
      candidate += std::to_string(++k);
    }
    ++k;
    taken.insert(candidate);
    out.emplace(v, std::move(candidate));
  }
}

// Program-level free dimension Vars (§5.3): read by some type, defined by no function.
// `declared`: the caller prints a `pl.dynamic` line for each (a whole program; a bare
// function has no place for them).
inline void collect_dyn_names(const std::vector<const FunctionScan*>& scans,
                              std::unordered_map<const ExprNode*, std::string>& out, bool declared) {
  std::unordered_set<const ExprNode*> defined;
  std::unordered_set<const ExprNode*> keep;
  for (auto* s : scans) {
    defined.insert(s->param_set.begin(), s->param_set.end());
    defined.insert(s->def_set.begin(), s->def_set.end());
    keep.insert(s->param_view_reads.begin(), s->param_view_reads.end());
  }
  std::vector<const ExprNode*> order;
  std::unordered_set<const ExprNode*> seen;
  for (auto* s : scans)
    for (auto* v : s->type_vars)
      if ((!defined.count(v) || keep.count(v)) && seen.insert(v).second) order.push_back(v);
  // A dimension Var read only by an expression (`n = N + 1`) is just as free; upstream prints
  // it as `N__FREE_VAR` with no declaration, which cannot be read back. Declare it instead.
  for (auto* s : declared ? scans : std::vector<const FunctionScan*>{})
    for (auto* v : s->uses) {
      auto* var = std::get_if<ir::Var>(&v->v);
      auto* st = v->type ? std::get_if<ir::ScalarType>(&v->type->v) : nullptr;
      if (var && st && st->dtype == ir::DataType::INDEX && !defined.count(v) && seen.insert(v).second)
        order.push_back(v);
    }
  assign_names(order, out);
}

}  // namespace tilewright::text::printer_detail
