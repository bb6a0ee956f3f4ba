#pragma once
// Printer for PyPTO's `pl` text: emits the raw printer layout byte for byte
// (shared/spec/text_format.md §0.1, §1–§5). No ruff formatting is applied: 4-space indents,
// no blank line between functions, no trailing newline.
//
//   std::string print(const ir::Program&)   whole module: header, pl.dynamic lines, class
//   std::string print(const ir::Function&)  bare function: no header, no `self`, bare calls
//   std::string print(const ir::Stmt&)      one statement, names as hinted
//   std::string print(const ir::Type&)      one annotation
//   std::string print(const ir::Expr&)      one expression
//
// Cost is linear in the size of the IR: every function is scanned once to build its name
// map (§5.2) and its dynamic-dimension candidates (§5.3), then printed once into a single
// reserved buffer.
//
// Representation conventions this printer relies on (docs/ir.md):
//  * `pl.submit(self.k, ...)` / `pl.spmd_submit(...)` is a Call whose Callee carries both the
//    op (`submit` / `spmd_submit`) and the function name (`k`).
//  * Scope params hold the kwargs as written; strings print double-quoted, `EnumText`
//    verbatim, and an Expr under `predicate` in parentheses.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/function.hpp"

namespace tilewright::text {

namespace printer_detail {

using ir::Expr;
using ir::ExprNode;
using ir::Stmt;
using ir::Type;
using ir::TypeNode;

// ir::name_of may rebuild its table on every runtime call; a constexpr variable pins it.
template <class E>
inline constexpr auto kEnumNames = enum_names(E{});
template <class E>
std::string_view enum_name(E e) noexcept {
  return kEnumNames<E>.name(e);
}

inline void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}
inline void append_uint(std::string& out, std::uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// §4.1: `%.17g` in the classic locale, then `.0` so that the literal reparses as a float.
// std::to_chars(general, 17) is specified as printf's %.17g.
inline void append_float(std::string& out, double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
  std::string_view s(buf, static_cast<std::size_t>(r.ptr - buf));
  out += s;
  if (std::isfinite(v) && s.find_first_of(".eE") == std::string_view::npos) out += ".0";
}

// A Python string literal in `quote`. Upstream escapes only the quote and `\` in attr strings
// (std::quoted) and nothing at all in op kwargs; printable text comes out the same here, and
// the characters that would end or break the literal (the quote, `\`, line breaks, other
// control characters) are escaped so that the text reads back to the same string. Bytes
// from 0x80 up stay raw: the reader keeps them as they are, while a \x escape would read
// back as a code point.
inline void append_string_literal(std::string& out, std::string_view s, char quote) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += quote;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == quote || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7F) {
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    } else {
      out += c;
    }
  }
  out += quote;
}
inline void append_quoted(std::string& out, std::string_view s) { append_string_literal(out, s, '"'); }

inline bool is_python_keyword(std::string_view s) noexcept {
  static constexpr std::string_view kKeywords[] = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  for (auto k : kKeywords)
    if (k == s) return true;
  return false;
}

// The spelling of an op call's head (§4.5): `pl.` + dotted name, `pld.` verbatim, a dot-less
// name bare; a Python keyword as last component gains `_` so the text stays valid Python.
inline std::string callee_spelling(std::string_view name) {
  std::string s;
  if (name.substr(0, 4) == "pld.") {
    s = name;
  } else if (name.find('.') != std::string_view::npos) {
    s = "pl.";
    s += name;
  } else {
    s = name;
  }
  auto dot = name.rfind('.');
  std::string_view last = dot == std::string_view::npos ? name : name.substr(dot + 1);
  if (is_python_keyword(last)) s += '_';
  return s;
}

inline std::string_view last_component(std::string_view name) noexcept {
  auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

// Ops whose DSL signature differs from the IR argument list, interned once.
struct SpecialOps {
  ir::OpId tensor_add = ir::intern_op("tensor.add");
  ir::OpId tile_full = ir::intern_op("tile.full");
  ir::OpId tensor_full = ir::intern_op("tensor.full");
  ir::OpId tile_reinterpret_view = ir::intern_op("tile.reinterpret_view");
  ir::OpId tensor_reinterpret_view = ir::intern_op("tensor.reinterpret_view");
  ir::OpId tile_alloc = ir::intern_op("tile.alloc");
  ir::OpId tensor_alloc = ir::intern_op("tensor.alloc");
  ir::OpId tile_gather_row = ir::intern_op("tile.gather_row");
  ir::OpId tile_mgather = ir::intern_op("tile.mgather");
  ir::OpId syncall = ir::intern_op("system.syncall");
  ir::OpId task_dummy = ir::intern_op("system.task_dummy");
  ir::OpId task_invalid = ir::intern_op("system.task_invalid");
  ir::OpId sync_set = ir::intern_op("system.sync_set");
  ir::OpId sync_wait = ir::intern_op("system.sync_wait");
  ir::OpId alloc_window_buffer = ir::intern_op("pld.tensor.alloc_window_buffer");

  static const SpecialOps& get() {
    static const SpecialOps ops;
    return ops;
  }
};

// ---- precedence (§4.3) -------------------------------------------------------------------
enum Prec : int {
  kOr = 1,
  kXor = 2,
  kAnd = 3,
  kNot = 4,
  kCompare = 5,
  kBitOr = 6,
  kBitXor = 7,
  kBitAnd = 8,
  kShift = 9,
  kAdd = 10,
  kMul = 11,
  kUnary = 12,
  kPow = 13,
  kAtom = 14
};

inline int binary_prec(ir::BinaryOp op) noexcept {
  using B = ir::BinaryOp;
  switch (op) {
    case B::Add:
    case B::Sub:
      return kAdd;
    case B::Mul:
    case B::FloorDiv:
    case B::FloorMod:
    case B::FloatDiv:
      return kMul;
    case B::Pow:
      return kPow;
    case B::Eq:
    case B::Ne:
    case B::Lt:
    case B::Le:
    case B::Gt:
    case B::Ge:
      return kCompare;
    case B::And:
      return kAnd;
    case B::Or:
      return kOr;
    case B::Xor:
      return kXor;
    case B::BitAnd:
      return kBitAnd;
    case B::BitOr:
      return kBitOr;
    case B::BitXor:
      return kBitXor;
    case B::Shl:
    case B::Shr:
      return kShift;
    case B::Min:
    case B::Max:
      return kAtom;
  }
  return kAtom;
}

inline std::string_view binary_token(ir::BinaryOp op) noexcept {
  using B = ir::BinaryOp;
  switch (op) {
    case B::Add:
      return " + ";
    case B::Sub:
      return " - ";
    case B::Mul:
      return " * ";
    case B::FloorDiv:
      return " // ";
    case B::FloorMod:
      return " % ";
    case B::FloatDiv:
      return " / ";
    case B::Pow:
      return " ** ";
    case B::Eq:
      return " == ";
    case B::Ne:
      return " != ";
    case B::Lt:
      return " < ";
    case B::Le:
      return " <= ";
    case B::Gt:
      return " > ";
    case B::Ge:
      return " >= ";
    case B::And:
      return " and ";
    case B::Or:
      return " or ";
    case B::Xor:
      return " xor ";
    case B::BitAnd:
      return " & ";
    case B::BitOr:
      return " | ";
    case B::BitXor:
      return " ^ ";
    case B::Shl:
      return " << ";
    case B::Shr:
      return " >> ";
    case B::Min:
      return "pl.min";
    case B::Max:
      return "pl.max";
  }
  return " ? ";
}

inline int expr_prec(const Expr& e) noexcept {
  if (auto* b = ir::as<ir::Binary>(e)) return binary_prec(b->op);
  if (auto* u = ir::as<ir::Unary>(e)) {
    switch (u->op) {
      case ir::UnaryOp::Neg:
      case ir::UnaryOp::BitNot:
        return kUnary;
      case ir::UnaryOp::Not:
        return kNot;
      case ir::UnaryOp::Abs:
      case ir::UnaryOp::Cast:
        return kAtom;
    }
  }
  return kAtom;
}

inline std::optional<ir::DataType> scalar_dtype(const Type& t) noexcept {
  if (auto* s = ir::as<ir::ScalarType>(t)) return s->dtype;
  return std::nullopt;
}

inline bool is_index_const(const Expr& e, std::int64_t v) noexcept {
  auto* c = ir::as<ir::ConstInt>(e);
  return c && c->value == v && scalar_dtype(e->type) == ir::DataType::INDEX;
}

// ---- the per-function scan (§5.2 collection order, §5.3 candidates, callees) -------------

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
// candidate of base, base_1, base_2, … .
inline void assign_names(const std::vector<const ExprNode*>& vars,
                         std::unordered_map<const ExprNode*, std::string>& out) {
  std::unordered_map<std::string_view, int> count;
  count.reserve(vars.size());
  for (auto* v : vars) ++count[hint_of(v)];
  std::unordered_set<std::string> taken;
  taken.reserve(vars.size());
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

// ---- the printer ---------------------------------------------------------------------------

// How a trailing Yield prints: as the assignment to its parent's return vars, as the
// function's return, or bare.
struct YieldTarget {
  const std::vector<Expr>* return_vars = nullptr;
  bool function_top = false;
};

class Printer {
 public:
  std::string out;

  // Program-level names of free dimension Vars (§5.3).
  std::unordered_map<const ExprNode*, std::string> dyn_names;
  // Set while printing a function inside a Program: enables `self.` on calls.
  bool in_program = false;

  // Per-function state.
  std::unordered_map<const ExprNode*, std::string> names;
  const std::unordered_set<const ExprNode*>* body_defs = nullptr;
  bool in_signature = false;
  int split_aiv_depth = 0;
  // The call on the right of the Assign being printed, and the name it is assigned to.
  const ir::Call* assigned_call = nullptr;
  std::string_view assigned_name;

  void reset_function() {
    names.clear();
    body_defs = nullptr;
    in_signature = false;
    split_aiv_depth = 0;
  }

  // Builds the function's name map from its scan (§5.2), leaving out program-level dims.
  void bind_function(const FunctionScan& scan) {
    reset_function();
    std::vector<const ExprNode*> order;
    order.reserve(scan.params.size() + scan.defs.size() + scan.uses.size());
    std::unordered_set<const ExprNode*> seen;
    seen.reserve(order.capacity());
    auto add = [&](const ExprNode* v) {
      if (dyn_names.count(v)) return;
      if (seen.insert(v).second) order.push_back(v);
    };
    for (auto* v : scan.params) add(v);
    for (auto* v : scan.defs) add(v);
    for (auto* v : scan.uses) add(v);
    names.reserve(order.size());
    assign_names(order, names);
    for (auto* v : order)
      if (!scan.param_set.count(v) && !scan.def_set.count(v)) names[v] += "__FREE_VAR";
    body_defs = &scan.def_set;
  }

  // ---- small pieces --------------------------------------------------------------------

  void newline(int level) {
    if (!out.empty()) out += '\n';
    out.append(static_cast<std::size_t>(level) * 4, ' ');
  }

  std::string_view printed_name(const Expr& v) const {
    if (auto it = names.find(v.get()); it != names.end()) return it->second;
    if (auto it = dyn_names.find(v.get()); it != dyn_names.end()) return it->second;
    return ir::name_hint(v);
  }
  void var_name(const Expr& v) { out += printed_name(v); }

  void dtype(ir::DataType dt) {
    out += "pl.";
    out += enum_name(dt);
  }

  void const_int(std::int64_t v, ir::DataType dt, bool typed) {
    if (dt == ir::DataType::INDEX && !typed) {
      append_int(out, v);
      return;
    }
    out += "pl.const(";
    append_int(out, v);
    out += ", ";
    dtype(dt);
    out += ')';
  }

  // ---- types (§2) ------------------------------------------------------------------------

  // §2.6: bare ConstInt, Var by name, anything else with typed constant leaves.
  void dim(const Expr& e) {
    if (auto* c = ir::as<ir::ConstInt>(e)) {
      append_int(out, c->value);
    } else if (ir::is_var_like(e)) {
      var_name(e);
    } else {
      expr(e, /*typed=*/true);
    }
  }
  void dims(const std::vector<Expr>& ds) {
    out += '[';
    for (std::size_t i = 0; i < ds.size(); ++i) {
      if (i) out += ", ";
      dim(ds[i]);
    }
    out += ']';
  }

  void memref(const Expr& e) {
    auto* m = ir::as<ir::MemRef>(e);
    if (!m) {
      expr(e);
      return;
    }
    out += "pl.MemRef(";
    bool bare = !in_signature && m->base && !m->pinned && m->offset && body_defs &&
                body_defs->count(m->base.get());
    if (bare) {
      var_name(m->base);
    } else if (m->base) {
      out += '"';
      if (auto it = names.find(m->base.get()); it != names.end())
        out += it->second;
      else
        out += ir::name_hint(m->base);
      out += '"';
    } else {
      out += "\"\"";
    }
    if (!m->pinned && m->offset) {
      out += ", ";
      expr(m->offset);
      out += ", ";
      append_uint(out, m->size);
    }
    if (m->slots > 1) {
      out += ", slots=";
      append_int(out, m->slots);
    }
    out += ')';
    if (m->slot_index) {
      out += '[';
      expr(m->slot_index);
      out += ']';
    }
  }

  void tensor_view(const ir::TensorType& t) {
    const ir::TensorView& v = *t.view;
    out += "pl.TensorView(";
    if (!v.valid_shape.empty() && !ir::loosely_equal(v.valid_shape, t.shape)) {
      out += "valid_shape=";
      dims(v.valid_shape);
      out += ", ";
    }
    // Both always: the constructor upstream requires them together (§2.3).
    out += "stride=";
    dims(v.stride);
    out += ", layout=pl.TensorLayout.";
    out += enum_name(v.layout);
    if (v.pad != ir::PadValue::null) {
      out += ", pad=pl.PadValue.";
      out += enum_name(v.pad);
    }
    out += ')';
  }

  void tile_view(const ir::TileType& t) {
    const ir::TileView& v = *t.view;
    ir::TileLayoutTriple implicit = ir::implicit_tile_layout(t.shape, t.memory);
    out += "pl.TileView(";
    bool first = true;
    auto sep = [&] {
      if (!first) out += ", ";
      first = false;
    };
    if (!v.valid_shape.empty() && !ir::loosely_equal(v.valid_shape, t.shape)) {
      sep();
      out += "valid_shape=";
      dims(v.valid_shape);
    }
    if (!v.stride.empty()) {
      sep();
      out += "stride=";
      dims(v.stride);
    }
    if (v.start_offset) {
      sep();
      out += "start_offset=";
      dim(v.start_offset);
    }
    if (v.blayout != implicit.blayout) {
      sep();
      out += "blayout=pl.TileLayout.";
      out += enum_name(v.blayout);
    }
    if (v.slayout != implicit.slayout) {
      sep();
      out += "slayout=pl.TileLayout.";
      out += enum_name(v.slayout);
    }
    if (v.fractal != implicit.fractal) {
      sep();
      out += "fractal=";
      append_uint(out, v.fractal);
    }
    if (v.pad != ir::PadValue::null) {
      sep();
      out += "pad=pl.PadValue.";
      out += enum_name(v.pad);
    }
    if (v.compact != ir::CompactMode::null) {
      sep();
      out += "compact=pl.CompactMode.";
      out += enum_name(v.compact);
    }
    out += ')';
  }

  void type(const Type& t) {
    if (!t) {
      out += "pl.UnknownType";
      return;
    }
    ir::dispatch(t->v, ir::overloaded{
                           [&](const ir::UnknownType&) { out += "pl.UnknownType"; },
                           [&](const ir::ScalarType& s) {
                             out += "pl.Scalar[";
                             dtype(s.dtype);
                             out += ']';
                           },
                           [&](const ir::TensorType& s) {
                             out += s.distributed ? "pld.DistributedTensor[" : "pl.Tensor[";
                             dims(s.shape);
                             out += ", ";
                             dtype(s.dtype);
                             if (s.view) {
                               out += ", ";
                               tensor_view(s);
                             }
                             if (s.memref) {
                               out += ", ";
                               memref(s.memref);
                             }
                             out += ']';
                           },
                           [&](const ir::TileType& s) {
                             out += "pl.Tile[";
                             dims(s.shape);
                             out += ", ";
                             dtype(s.dtype);
                             if (s.memref) {
                               out += ", ";
                               memref(s.memref);
                             }
                             if (s.memory) {
                               out += ", pl.Mem.";
                               out += enum_name(*s.memory);
                             }
                             if (s.view) {
                               out += ", ";
                               tile_view(s);
                             }
                             out += ']';
                           },
                           [&](const ir::ArrayType& s) {
                             out += "pl.Array[";
                             append_int(out, s.extent);
                             out += ", ";
                             dtype(s.dtype);
                             out += ']';
                           },
                           [&](const ir::TupleType& s) {
                             out += "pl.Tuple[";
                             if (s.elements.empty()) out += "()";
                             for (std::size_t i = 0; i < s.elements.size(); ++i) {
                               if (i) out += ", ";
                               type(s.elements[i]);
                             }
                             out += ']';
                           },
                           [&](const ir::MarkerType& s) {
                             switch (s.kind) {
                               case ir::Marker::Ptr:
                                 out += "pl.Ptr";
                                 break;
                               case ir::Marker::MemRefType:
                                 out += "pl.MemRefType";
                                 break;
                               case ir::Marker::WindowBufferType:
                                 out += "pld.WindowBufferType";
                                 break;
                               case ir::Marker::CommCtxType:
                                 out += "pld.CommCtxType";
                                 break;
                               case ir::Marker::PrefetchAsyncContext:
                                 out += "pl.PrefetchAsyncContext";
                                 break;
                               case ir::Marker::AsyncEvent:
                                 out += "pl.AsyncEvent";
                                 break;
                               case ir::Marker::AsyncSession:
                                 out += "pl.AsyncSession";
                                 break;
                             }
                           },
                       });
  }

  // ---- expressions (§4) --------------------------------------------------------------------

  // Whether a binary tree has only ConstInt leaves (§4.1): Python would fold it on reparse,
  // so its leaves print typed. Memoized so that checking every Binary node stays linear.
  std::unordered_map<const ExprNode*, bool> const_tree_memo;
  bool all_const_tree(const Expr& e) {
    if (ir::as<ir::ConstInt>(e)) return true;
    auto* b = ir::as<ir::Binary>(e);
    if (!b) return false;
    if (auto it = const_tree_memo.find(e.get()); it != const_tree_memo.end()) return it->second;
    bool r = all_const_tree(b->lhs) && all_const_tree(b->rhs);
    const_tree_memo.emplace(e.get(), r);
    return r;
  }

  void operand(const Expr& e, int parent, bool right, bool parent_is_pow, bool typed) {
    int p = expr_prec(e);
    // A comparison under a comparison always gets parentheses: `a < b == c` would read back
    // as a chained comparison, which no reader accepts (upstream prints it bare, §4.3).
    bool parens = p < parent || (p == parent && (parent_is_pow ? !right : right)) ||
                  (p == kCompare && parent == kCompare);
    if (parens) out += '(';
    expr(e, typed);
    if (parens) out += ')';
  }

  void expr_list(const std::vector<Expr>& es, bool typed = false) {
    for (std::size_t i = 0; i < es.size(); ++i) {
      if (i) out += ", ";
      expr(es[i], typed);
    }
  }

  void expr(const Expr& e, bool typed = false) {
    if (!e) {
      out += "None";
      return;
    }
    switch (e->v.index()) {
      case 0:
      case 1:
        var_name(e);
        return;
      case 2:
        out += ir::name_hint(e);
        return;  // a MemRef used as a value (§4.2)
      case 3: {
        auto dt = scalar_dtype(e->type).value_or(ir::DataType::INDEX);
        const_int(std::get<ir::ConstInt>(e->v).value, dt, typed);
        return;
      }
      case 4: {
        double v = std::get<ir::ConstFloat>(e->v).value;
        auto dt = scalar_dtype(e->type).value_or(ir::DataType::FP32);
        if (dt == ir::DataType::FP32) {
          append_float(out, v);
        } else {
          out += "pl.const(";
          append_float(out, v);
          out += ", ";
          dtype(dt);
          out += ')';
        }
        return;
      }
      case 5:
        out += std::get<ir::ConstBool>(e->v).value ? "True" : "False";
        return;
      case 6:
        binary(e, std::get<ir::Binary>(e->v), typed);
        return;
      case 7:
        unary(e, std::get<ir::Unary>(e->v), typed);
        return;
      case 8:
        call(std::get<ir::Call>(e->v));
        return;
      case 9:
        out += '[';
        expr_list(std::get<ir::MakeTuple>(e->v).elements, typed);
        out += ']';
        return;
      case 10: {
        auto& g = std::get<ir::TupleGetItem>(e->v);
        operand(g.tuple, kAtom, false, false, typed);
        out += '[';
        append_int(out, g.index);
        out += ']';
        return;
      }
      default:
        return;
    }
  }

  void binary(const Expr& e, const ir::Binary& b, bool typed) {
    if (!typed && all_const_tree(e)) typed = true;
    if (b.op == ir::BinaryOp::Min || b.op == ir::BinaryOp::Max) {
      out += binary_token(b.op);
      out += '(';
      expr(b.lhs, typed);
      out += ", ";
      expr(b.rhs, typed);
      out += ')';
      return;
    }
    int p = binary_prec(b.op);
    bool pow = b.op == ir::BinaryOp::Pow;
    operand(b.lhs, p, false, pow, typed);
    out += binary_token(b.op);
    operand(b.rhs, p, true, pow, typed);
  }

  void unary(const Expr& e, const ir::Unary& u, bool typed) {
    switch (u.op) {
      case ir::UnaryOp::Neg:
      case ir::UnaryOp::BitNot:
      case ir::UnaryOp::Not: {
        out += u.op == ir::UnaryOp::Neg ? "-" : u.op == ir::UnaryOp::BitNot ? "~" : "not ";
        int p = u.op == ir::UnaryOp::Not ? kNot : kUnary;
        bool parens = expr_prec(u.operand) < p;
        if (parens) out += '(';
        expr(u.operand, typed);
        if (parens) out += ')';
        return;
      }
      case ir::UnaryOp::Abs:
        out += "abs(";
        expr(u.operand, typed);
        out += ')';
        return;
      case ir::UnaryOp::Cast:
        out += "pl.cast(";
        expr(u.operand, typed);
        out += ", ";
        dtype(scalar_dtype(e->type).value_or(ir::DataType::INDEX));
        out += ')';
        return;
    }
  }

  // ---- kwarg and attr values (§4.5, §4.6) --------------------------------------------------

  enum class StrStyle { single_quoted, double_quoted };

  // Values shared by every encoding; returns false for the kinds the caller decides.
  bool common_value(const ir::AttrValue& v, StrStyle strings) {
    switch (v.index()) {
      case 0:
        append_int(out, std::get<std::int64_t>(v));
        return true;
      case 1:
        out += std::get<bool>(v) ? "True" : "False";
        return true;
      case 2: {
        const std::string& s = std::get<std::string>(v);
        if (strings == StrStyle::single_quoted) {
          append_string_literal(out, s, '\'');
        } else {
          append_quoted(out, s);
        }
        return true;
      }
      case 3:
        append_float(out, std::get<double>(v));
        return true;
      case 4:
        dtype(std::get<ir::DataType>(v));
        return true;
      case 5:
        out += "pl.Mem.";
        out += enum_name(std::get<ir::MemorySpace>(v));
        return true;
      case 6:
        out += "pl.TensorLayout.";
        out += enum_name(std::get<ir::TensorLayout>(v));
        return true;
      case 7:
        out += "pl.TileLayout.";
        out += enum_name(std::get<ir::TileLayout>(v));
        return true;
      case 8:
        out += "pl.PadValue.";
        out += enum_name(std::get<ir::PadValue>(v));
        return true;
      case 9:
        out += "pl.adir.";
        out += enum_name(std::get<ir::ArgDirection>(v));
        return true;
      case 10: {
        auto& ds = std::get<std::vector<ir::ArgDirection>>(v);
        out += '[';
        for (std::size_t i = 0; i < ds.size(); ++i) {
          if (i) out += ", ";
          out += "pl.adir.";
          out += enum_name(ds[i]);
        }
        out += ']';
        return true;
      }
      case 11: {
        auto& xs = std::get<std::vector<std::int64_t>>(v);
        out += '[';
        for (std::size_t i = 0; i < xs.size(); ++i) {
          if (i) out += ", ";
          append_int(out, xs[i]);
        }
        out += ']';
        return true;
      }
      case 12:
        expr(std::get<Expr>(v));
        return true;
      case 13:
        out += '[';
        expr_list(std::get<std::vector<Expr>>(v));
        out += ']';
        return true;
      case 14:
        out += std::get<ir::EnumText>(v).text;
        return true;
      default:
        return false;
    }
  }

  void kwarg_value(ir::OpId op, std::string_view key, const ir::AttrValue& v, StrStyle strings) {
    if (auto* i = std::get_if<std::int64_t>(&v)) {
      const auto& ops = SpecialOps::get();
      if (key == "set_pipe" || key == "wait_pipe" ||
          (key == "pipe" && (op == ops.sync_set || op == ops.sync_wait))) {
        out += "pl.PipeType.";
        out += enum_name(static_cast<ir::PipeType>(*i));
        return;
      }
      if (key == "mode") {
        out += '\'';
        out += enum_name(static_cast<ir::CastMode>(*i));
        out += '\'';
        return;
      }
      if (key == "atomic") {
        out += "pl.AtomicType.";
        out += enum_name(static_cast<ir::AtomicType>(*i));
        return;
      }
    }
    common_value(v, strings);
  }

  void attrs_dict(const ir::Kwargs& attrs, bool function_call) {
    out += "attrs={";
    bool first = true;
    auto entry = [&](const std::pair<std::string, ir::AttrValue>& kv) {
      if (!first) out += ", ";
      first = false;
      append_quoted(out, kv.first);
      out += ": ";
      common_value(kv.second, StrStyle::double_quoted);
    };
    if (function_call) {
      // §4.7: the two attrs the orchestration codegen reads come first.
      for (std::string_view k : {std::string_view("dump_vars"), std::string_view("arg_directions")})
        for (const auto& kv : attrs)
          if (kv.first == k) entry(kv);
      for (const auto& kv : attrs)
        if (kv.first != "dump_vars" && kv.first != "arg_directions") entry(kv);
    } else {
      for (const auto& kv : attrs) entry(kv);
    }
    out += '}';
  }

  // ---- calls (§4.5, §4.7) ------------------------------------------------------------------

  std::unordered_map<std::uint32_t, std::string> callee_cache;
  const std::string& op_spelling(ir::OpId op) {
    auto it = callee_cache.find(op.value);
    if (it == callee_cache.end())
      it = callee_cache.emplace(op.value, callee_spelling(ir::op_name(op))).first;
    return it->second;
  }

  void call(const ir::Call& c) {
    const auto& ops = SpecialOps::get();
    ir::OpId op = c.callee.op;
    bool sep = false;
    auto comma = [&] {
      if (sep) out += ", ";
      sep = true;
    };
    auto positional = [&](std::size_t from, std::size_t to) {
      for (std::size_t i = from; i < to && i < c.args.size(); ++i) {
        comma();
        expr(c.args[i]);
      }
    };
    auto keyword_expr = [&](std::string_view key, const Expr& e) {
      comma();
      out += key;
      out += '=';
      expr(e);
    };
    StrStyle strings = op == ops.syncall ? StrStyle::double_quoted : StrStyle::single_quoted;
    const bool submit = op && !c.callee.function.empty();
    bool in_split_aiv_drop = false;
    auto kwargs = [&] {
      for (const auto& [k, v] : c.kwargs) {
        // §4.5: the assignment's name stands for it; any other name must be printed to survive.
        if (op == ops.alloc_window_buffer && k == "name" && &c == assigned_call) {
          auto* text = std::get_if<std::string>(&v);
          if (text && *text == assigned_name) continue;
        }
        if (in_split_aiv_drop && k == "split") continue;
        comma();
        out += k;
        out += '=';
        if (submit && k == "predicate" && std::holds_alternative<Expr>(v))
          scope_value(k, v);  // §4.7: printed in parentheses, as on scopes
        else
          kwarg_value(op, k, v, strings);
      }
    };
    auto attrs = [&](bool function_call) {
      if (c.attrs.empty()) return;
      comma();
      attrs_dict(c.attrs, function_call);
    };

    if (!op) {  // a function of the program
      if (in_program) out += "self.";
      out += c.callee.function;
      out += '(';
      positional(0, c.args.size());
      kwargs();
      attrs(true);
      out += ')';
      return;
    }
    if (!c.callee.function.empty()) {
      // Submit is its own node upstream and always spelled `pl.submit` / `pl.spmd_submit`.
      std::string_view name = ir::op_name(op);
      if (name.find('.') == std::string_view::npos) out += "pl.";
      out += name;
      out += '(';
    } else if (op == ops.tensor_add && c.args.size() >= 2 &&
               (ir::as<ir::ConstInt>(c.args[1]) || ir::as<ir::ConstFloat>(c.args[1]))) {
      out += "pl.tensor.adds(";
    } else {
      out += op_spelling(op);
      out += '(';
    }
    if (!c.callee.function.empty()) {  // pl.submit(self.k, ...)
      comma();
      if (in_program) out += "self.";
      out += c.callee.function;
    }
    if (split_aiv_depth > 0) {
      auto last = last_component(ir::op_name(op));
      in_split_aiv_drop = last == "aiv_shard" || last == "aic_gather";
    }

    if ((op == ops.tile_full || op == ops.tensor_full) && c.args.size() == 2) {
      positional(0, 1);
      kwargs();
      comma();
      out += "value=";
      // The fill value is a bare number whatever the tile dtype.
      if (auto* f = ir::as<ir::ConstFloat>(c.args[1]))
        append_float(out, f->value);
      else if (auto* i = ir::as<ir::ConstInt>(c.args[1]))
        append_int(out, i->value);
      else
        expr(c.args[1]);
    } else if ((op == ops.tile_reinterpret_view || op == ops.tensor_reinterpret_view) &&
               c.args.size() == 2) {
      positional(0, 1);
      kwargs();
      keyword_expr("shape", c.args[1]);
    } else if ((op == ops.tile_alloc || op == ops.tensor_alloc) && !c.args.empty() &&
               ir::as<ir::ConstInt>(c.args[0])) {
      comma();
      out += "pl.Mem.";
      out += enum_name(static_cast<ir::MemorySpace>(ir::as<ir::ConstInt>(c.args[0])->value));
      positional(1, c.args.size());
      kwargs();
    } else if (op == ops.tile_gather_row && c.args.size() == 6) {
      positional(0, 5);
      kwargs();
      keyword_expr("valid_shape", c.args[5]);
    } else if (op == ops.tile_mgather && c.args.size() > 2) {
      positional(0, 2);
      kwargs();
      keyword_expr("scratch", c.args[2]);
      if (c.args.size() > 3) keyword_expr("valid_shape", c.args[3]);
    } else if (op == ops.task_dummy && !c.args.empty() && !ir::find_kwarg(c.kwargs, "deps")) {
      kwargs();
      comma();
      out += "deps=[";
      expr_list(c.args);
      out += ']';
    } else {
      positional(0, c.args.size());
      kwargs();
    }
    attrs(false);
    out += ')';
  }

  // ---- statements (§3) -------------------------------------------------------------------

  void comments(const Stmt& s, int level) {
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
  static bool is_suppressed_task_placeholder(const Stmt& s, const Stmt& next) {
    auto* a = ir::as<ir::Assign>(s);
    if (!a || !s->comments.lines.empty()) return false;
    auto* c = ir::as<ir::Call>(a->value);
    if (!c || c->callee.op != SpecialOps::get().task_invalid || !c->args.empty()) return false;
    auto* sc = ir::as<ir::Scope>(next);
    return sc && sc->bound == a->var &&
           (sc->kind == ir::ScopeKind::at || sc->kind == ir::ScopeKind::spmd);
  }

  void block(const Stmt& body, int level, YieldTarget target = {}, bool allow_empty = false) {
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

  void seq_stmts(const ir::Seq& seq, int level, YieldTarget target) {
    const auto& ss = seq.stmts;
    for (std::size_t i = 0; i < ss.size(); ++i) {
      if (i + 1 < ss.size() && is_suppressed_task_placeholder(ss[i], ss[i + 1])) continue;
      YieldTarget t = target;
      // Only the last statement closes its block; a top-level yield returns wherever it is.
      if (i + 1 != ss.size()) t.return_vars = nullptr;
      statement(ss[i], level, t);
    }
  }

  void values_after(std::string_view head, const std::vector<Expr>& vs) {
    out += head;
    expr_list(vs);
  }

  void yield(const ir::Yield& y, int level, YieldTarget target) {
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

  void init_values(const std::vector<Expr>& iter_args) {
    out += "init_values=(";
    for (std::size_t i = 0; i < iter_args.size(); ++i) {
      if (i) out += ", ";
      auto* ia = ir::as<ir::IterArg>(iter_args[i]);
      expr(ia ? ia->init : nullptr);
    }
    if (iter_args.size() == 1) out += ',';
    out += ')';
  }

  void target_tuple(const std::vector<Expr>& vars) {
    out += '(';
    for (std::size_t i = 0; i < vars.size(); ++i) {
      if (i) out += ", ";
      var_name(vars[i]);
    }
    if (vars.size() == 1) out += ',';
    out += ')';
  }

  void for_stmt(const ir::For& f, int level) {
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

  void while_stmt(const ir::While& w, int level) {
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

  void if_stmt(const ir::If& s, int level) {
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

  void scope_value(std::string_view key, const ir::AttrValue& v) {
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

  void scope_call(std::string_view head, const ir::Scope& s, std::string_view leading = {}) {
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

  void scope_stmt(const ir::Scope& s, int level, YieldTarget target) {
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

  void statement(const Stmt& s, int level, YieldTarget target = {}) {
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
                             expr(a.value);
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

  // ---- functions (§1.2–§1.5) -------------------------------------------------------------

  void decorator(const ir::FunctionNode& f, int level) {
    newline(level);
    out += "@pl.function";
    bool open = false;
    auto kw = [&] {
      out += open ? ", " : "(";
      open = true;
    };
    if (f.type != ir::FunctionType::Opaque) {
      kw();
      out += "type=pl.FunctionType.";
      out += enum_name(f.type);
    }
    if (f.level) {
      kw();
      out += "level=pl.Level.";
      out += enum_name(*f.level);
    }
    if (f.role) {
      kw();
      out += "role=pl.Role.";
      out += enum_name(*f.role);
    }
    if (auto* b = ir::kwarg_as<bool>(f.attrs, "auto_scope"); b && !*b) {
      kw();
      out += "auto_scope=False";
    }
    if (auto* s = ir::kwarg_as<std::string>(f.attrs, "external_source")) {
      kw();
      out += "external_source=";
      append_quoted(out, *s);
    }
    if (open) out += ')';
  }

  static bool is_split_none(const ir::AttrValue& v) {
    if (auto* t = std::get_if<ir::EnumText>(&v)) return t->text == "pl.SplitMode.NONE";
    if (auto* i = std::get_if<std::int64_t>(&v)) return *i == 0;
    return false;
  }

  void func_attr_prologue(const ir::FunctionNode& f, int level) {
    bool open = false;
    for (const auto& [k, v] : f.attrs) {
      if (k == "auto_scope" || k == "external_source") continue;
      if (k == "split" && is_split_none(v)) continue;
      if (!open) {
        newline(level);
        out += "pl.func_attr({";
        open = true;
      } else {
        out += ", ";
      }
      append_quoted(out, k);
      out += ": ";
      if (auto* i = std::get_if<std::int64_t>(&v); i && k == "split") {
        out += "pl.SplitMode.";
        out += enum_name(static_cast<ir::SplitMode>(*i));
      } else {
        common_value(v, StrStyle::double_quoted);
      }
    }
    if (open) out += "})";
  }

  void function(const ir::FunctionNode& f, const FunctionScan& scan, int level) {
    bind_function(scan);
    decorator(f, level);
    newline(level);
    out += "def ";
    out += f.name;
    out += '(';
    bool sep = false;
    if (in_program && f.role != ir::Role::SubWorker) {
      out += "self";
      sep = true;
    }
    in_signature = true;
    for (const auto& p : f.params) {
      if (sep) out += ", ";
      sep = true;
      var_name(p.var);
      out += ": ";
      switch (p.direction) {
        case ir::ParamDirection::In:
          type(p.var->type);
          break;
        case ir::ParamDirection::Out:
          out += "pl.Out[";
          type(p.var->type);
          out += ']';
          break;
        case ir::ParamDirection::InOut:
          out += "pl.InOut[";
          type(p.var->type);
          out += ']';
          break;
      }
    }
    out += ')';
    if (f.return_types.size() == 1) {
      out += " -> ";
      type(f.return_types[0]);
    } else if (f.return_types.size() > 1) {
      out += " -> tuple[";
      for (std::size_t i = 0; i < f.return_types.size(); ++i) {
        if (i) out += ", ";
        type(f.return_types[i]);
      }
      out += ']';
    }
    in_signature = false;
    out += ':';
    func_attr_prologue(f, level + 1);
    block(f.body, level + 1, {nullptr, true});
  }
};

// Program-level free dimension Vars (§5.3): read by some type, defined by no function.
inline void collect_dyn_names(const std::vector<const FunctionScan*>& scans,
                              std::unordered_map<const ExprNode*, std::string>& out) {
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
  assign_names(order, out);
}

inline std::size_t reserve_for(std::size_t nodes) { return 1024 + nodes * 48; }

}  // namespace printer_detail

// ---- public API ----------------------------------------------------------------------------

inline std::string print(const ir::Program& program) {
  using namespace printer_detail;
  const ir::ProgramNode& p = *program;
  const std::string name = p.name.empty() ? std::string("Program") : p.name;

  // Functions are kept in name order; scan each once.
  std::vector<FunctionScan> scans(p.functions.size());
  std::vector<const FunctionScan*> scan_ptrs;
  std::unordered_map<std::string_view, std::size_t> index;
  std::size_t nodes = 0;
  for (std::size_t i = 0; i < p.functions.size(); ++i) {
    scans[i].scan(*p.functions[i]);
    scan_ptrs.push_back(&scans[i]);
    index.emplace(p.functions[i]->name, i);
    nodes += scans[i].node_count;
  }

  // §1.1: callees first, DFS in name order over functions and over each one's callees;
  // a cycle falls back to plain name order.
  std::vector<std::vector<std::size_t>> deps(p.functions.size());
  for (std::size_t i = 0; i < scans.size(); ++i) {
    for (auto callee : scans[i].callees)
      if (auto it = index.find(callee); it != index.end()) deps[i].push_back(it->second);
    auto& d = deps[i];
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
  }
  std::vector<std::size_t> order;
  order.reserve(p.functions.size());
  {
    enum : std::uint8_t { kNew, kActive, kDone };
    std::vector<std::uint8_t> state(p.functions.size(), kNew);
    bool cycle = false;
    // Iterative DFS: call chains may be deep in generated programs.
    for (std::size_t root = 0; root < p.functions.size() && !cycle; ++root) {
      if (state[root] != kNew) continue;
      std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
      state[root] = kActive;
      while (!stack.empty() && !cycle) {
        auto& [fn, next] = stack.back();
        if (next < deps[fn].size()) {
          std::size_t d = deps[fn][next++];
          if (state[d] == kActive)
            cycle = true;
          else if (state[d] == kNew) {
            state[d] = kActive;
            stack.emplace_back(d, 0);
          }
        } else {
          state[fn] = kDone;
          order.push_back(fn);
          stack.pop_back();
        }
      }
    }
    if (cycle) {
      order.clear();
      for (std::size_t i = 0; i < p.functions.size(); ++i) order.push_back(i);
    }
  }

  Printer pr;
  pr.out.reserve(reserve_for(nodes));
  collect_dyn_names(scan_ptrs, pr.dyn_names);

  pr.out += "# pypto.program: ";
  pr.out += name;
  pr.out += "\nimport pypto.language as pl\n\n";
  if (!pr.dyn_names.empty()) {
    std::vector<std::string_view> dyn;
    dyn.reserve(pr.dyn_names.size());
    for (const auto& kv : pr.dyn_names) dyn.push_back(kv.second);
    std::sort(dyn.begin(), dyn.end());
    for (auto n : dyn) {
      pr.out += n;
      pr.out += " = pl.dynamic(\"";
      pr.out += n;
      pr.out += "\")\n";
    }
    pr.out += '\n';
  }
  pr.out += "@pl.program\nclass ";
  pr.out += name;
  pr.out += ':';
  pr.in_program = true;
  for (std::size_t i : order) pr.function(*p.functions[i], scans[i], 1);
  // A class needs a body to read back; upstream would print none.
  if (order.empty()) pr.out += "\n    pass";
  return std::move(pr.out);
}

inline std::string print(const ir::Function& function) {
  using namespace printer_detail;
  FunctionScan scan;
  scan.scan(*function);
  Printer pr;
  pr.out.reserve(reserve_for(scan.node_count));
  collect_dyn_names({&scan}, pr.dyn_names);
  pr.function(*function, scan, 0);
  return std::move(pr.out);
}

inline std::string print(const ir::Stmt& stmt) {
  printer_detail::Printer pr;
  pr.statement(stmt, 0);
  return std::move(pr.out);
}

inline std::string print(const ir::Type& type) {
  printer_detail::Printer pr;
  pr.type(type);
  return std::move(pr.out);
}

inline std::string print(const ir::Expr& expr) {
  printer_detail::Printer pr;
  pr.expr(expr);
  return std::move(pr.out);
}

}  // namespace tilewright::text
