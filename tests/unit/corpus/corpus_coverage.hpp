#pragma once
// What the corpus of our own programs (tests/corpus/*.pto) exercises, as a set of feature
// names ("op:tile.add", "stmt:For.pipeline", "type:Tile.view.fractal", ...), and the list of
// features it must exercise: every op of the builtin registry and every statement, type,
// expression and function form of the IR that the text format can carry.
#include <array>
#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/ops/catalog.hpp"

namespace corpus {

using namespace tilewright;

// Spelled like the IR enumerators; BinaryOp and UnaryOp have no name table of their own.
inline constexpr std::array<std::string_view, 23> kBinaryNames = {
    "Add", "Sub", "Mul", "FloorDiv", "FloorMod", "FloatDiv", "Min", "Max", "Pow", "Eq", "Ne", "Lt",
    "Le",  "Gt",  "Ge",  "And",      "Or",       "Xor",      "BitAnd", "BitOr", "BitXor", "Shl", "Shr"};
inline constexpr std::array<std::string_view, 5> kUnaryNames = {"Neg", "Not", "BitNot", "Abs", "Cast"};
inline constexpr std::array<std::string_view, 7> kScopeNames = {"at",           "cluster",  "spmd", "scope",
                                                                "manual_scope", "spmd_for", "split_aiv"};
inline constexpr std::array<std::string_view, 7> kMarkerNames = {
    "Ptr", "MemRefType", "WindowBufferType", "CommCtxType", "PrefetchAsyncContext", "AsyncEvent", "AsyncSession"};

// Features the text format cannot carry, so no corpus program can show them:
//  * `xor` is printed but is not Python (text_format.md §4.3, §6.2);
//  * a tile annotation rejects ScalarLocal (§2.5);
//  * `pl.tensor.adds(...)` is how tensor.add with a constant operand prints (§4.5), so the
//    text always reads back as tensor.add; the registry's own tensor.adds row has no spelling.
inline bool unreachable_from_text(std::string_view feature) {
  return feature == "expr:Binary.Xor" || feature == "type:Tile.memory.ScalarLocal" || feature == "op:tensor.adds";
}

template <class E>
void add_enum(std::vector<std::string>& out, std::string_view prefix) {
  for (auto name : ir::enum_table<E>.names) out.push_back(std::string(prefix) + std::string(name));
}

// Every feature the corpus is expected to cover.
inline std::vector<std::string> required_features(const ops::Registry& registry = ops::builtin_registry()) {
  std::vector<std::string> out;
  registry.for_each([&](const ops::OpInfo& info) { out.push_back("op:" + info.name); });
  for (std::string_view s : {"Assign", "Eval", "Seq", "If", "If.else", "If.no_else", "If.return_vars", "For",
                             "For.iter_args", "For.return_vars", "For.attrs", "While", "While.iter_args",
                             "While.return_vars", "Yield", "Yield.bare", "Return", "Return.values", "Break",
                             "Continue", "comments"})
    out.push_back("stmt:" + std::string(s));
  add_enum<ir::ForKind>(out, "stmt:For.");
  for (auto s : kScopeNames) out.push_back("stmt:Scope." + std::string(s));
  out.push_back("stmt:Scope.bound");

  out.push_back("type:Unknown");
  add_enum<ir::DataType>(out, "type:Scalar.");
  for (std::string_view s : {"Tensor", "Tensor.dynamic_dim", "Tensor.view.stride", "Tensor.view.valid_shape",
                             "Tensor.view.pad", "Tensor.memref", "DistributedTensor", "Tile", "Tile.no_memory",
                             "Tile.dynamic_dim", "Tile.memref", "MemRef.body_base", "MemRef.signature_base",
                             "MemRef.pinned", "MemRef.slots", "MemRef.slot_index", "Array", "Tuple", "Tuple.empty"})
    out.push_back("type:" + std::string(s));
  add_enum<ir::TensorLayout>(out, "type:Tensor.view.layout.");
  add_enum<ir::MemorySpace>(out, "type:Tile.memory.");
  for (std::string_view f : {"valid_shape", "stride", "start_offset", "blayout", "slayout", "fractal", "pad",
                             "compact"})
    out.push_back("type:Tile.view." + std::string(f));
  add_enum<ir::PadValue>(out, "type:pad.");
  std::erase(out, std::string("type:pad.null"));  // the absence of a pad, not a pad
  add_enum<ir::TileLayout>(out, "type:Tile.layout.");
  for (auto s : kMarkerNames) out.push_back("type:Marker." + std::string(s));

  for (std::string_view s : {"ConstInt", "ConstInt.typed", "ConstFloat", "ConstFloat.typed", "ConstBool", "Var",
                             "IterArg", "Call.op", "Call.function", "Call.kwargs", "Call.attrs", "Call.submit",
                             "Call.spmd_submit", "MakeTuple", "TupleGetItem"})
    out.push_back("expr:" + std::string(s));
  for (auto s : kBinaryNames) out.push_back("expr:Binary." + std::string(s));
  for (auto s : kUnaryNames) out.push_back("expr:Unary." + std::string(s));

  add_enum<ir::FunctionType>(out, "function:type.");
  add_enum<ir::Level>(out, "function:level.");
  add_enum<ir::Role>(out, "function:role.");
  add_enum<ir::ParamDirection>(out, "function:param.");
  for (std::string_view s : {"returns.none", "returns.one", "returns.many", "func_attr", "auto_scope_false",
                             "external_source", "program_dynamic_dim"})
    out.push_back("function:" + std::string(s));
  return out;
}

// Collects the features one program exercises.
class Collector {
 public:
  std::set<std::string> features;

  void program(const ir::ProgramNode& p) {
    for (const auto& f : p.functions) function(*f);
  }

 private:
  const ir::FunctionNode* fn_ = nullptr;
  std::set<const ir::ExprNode*> defined_;  // params and body definitions of the current function

  void add(std::string_view prefix, std::string_view name) { features.insert(std::string(prefix) + std::string(name)); }

  void function(const ir::FunctionNode& f) {
    fn_ = &f;
    defined_.clear();
    add("function:type.", ir::name_of(f.type));
    if (f.level) add("function:level.", ir::name_of(*f.level));
    if (f.role) add("function:role.", ir::name_of(*f.role));
    for (const auto& p : f.params) {
      add("function:param.", ir::name_of(p.direction));
      defined_.insert(p.var.get());
    }
    for (const auto& p : f.params) {
      in_signature_ = true;
      type(p.var->type);
      in_signature_ = false;
    }
    add("function:returns.", f.return_types.empty() ? "none" : f.return_types.size() == 1 ? "one" : "many");
    for (const auto& t : f.return_types) type(t);
    for (const auto& [k, v] : f.attrs) {
      if (k == "auto_scope") add("function:", "auto_scope_false");
      else if (k == "external_source") add("function:", "external_source");
      else add("function:", "func_attr");
    }
    stmt(f.body);
  }

  void define(const ir::Expr& v) {
    if (!v) return;
    defined_.insert(v.get());
    type(v->type);
  }

  void stmt(const ir::Stmt& s) {
    if (!s) return;
    if (!s->comments.lines.empty()) add("stmt:", "comments");
    ir::dispatch(s->v, ir::overloaded{
                           [&](const ir::Assign& a) {
                             add("stmt:", "Assign");
                             define(a.var);
                             expr(a.value);
                           },
                           [&](const ir::Eval& a) {
                             add("stmt:", "Eval");
                             expr(a.expr);
                           },
                           [&](const ir::Seq& a) {
                             add("stmt:", "Seq");
                             for (const auto& x : a.stmts) stmt(x);
                           },
                           [&](const ir::If& a) {
                             add("stmt:", "If");
                             add("stmt:", a.else_body ? "If.else" : "If.no_else");
                             if (!a.return_vars.empty()) add("stmt:", "If.return_vars");
                             for (const auto& r : a.return_vars) define(r);
                             expr(a.cond);
                             stmt(a.then_body);
                             stmt(a.else_body);
                           },
                           [&](const ir::For& a) {
                             add("stmt:", "For");
                             add("stmt:For.", ir::name_of(a.kind));
                             if (!a.iter_args.empty()) add("stmt:", "For.iter_args");
                             if (!a.return_vars.empty()) add("stmt:", "For.return_vars");
                             if (!a.attrs.empty()) add("stmt:", "For.attrs");
                             define(a.loop_var);
                             for (const auto& r : a.return_vars) define(r);
                             for (const auto& r : a.iter_args) iter_arg(r);
                             expr(a.start);
                             expr(a.stop);
                             expr(a.step);
                             stmt(a.body);
                           },
                           [&](const ir::While& a) {
                             add("stmt:", "While");
                             if (!a.iter_args.empty()) add("stmt:", "While.iter_args");
                             if (!a.return_vars.empty()) add("stmt:", "While.return_vars");
                             for (const auto& r : a.return_vars) define(r);
                             for (const auto& r : a.iter_args) iter_arg(r);
                             expr(a.cond);
                             stmt(a.body);
                           },
                           [&](const ir::Yield& a) {
                             add("stmt:", "Yield");
                             if (a.values.empty()) add("stmt:", "Yield.bare");
                             for (const auto& x : a.values) expr(x);
                           },
                           [&](const ir::Return& a) {
                             add("stmt:", "Return");
                             if (!a.values.empty()) add("stmt:", "Return.values");
                             for (const auto& x : a.values) expr(x);
                           },
                           [&](const ir::Break&) { add("stmt:", "Break"); },
                           [&](const ir::Continue&) { add("stmt:", "Continue"); },
                           [&](const ir::Scope& a) {
                             add("stmt:Scope.", kScopeNames[static_cast<std::size_t>(a.kind)]);
                             if (a.bound) add("stmt:", "Scope.bound");
                             for (const auto& x : a.args) expr(x);
                             for (const auto& kv : a.params) attr(kv.second);
                             define(a.bound);
                             stmt(a.body);
                           },
                       });
  }

  void iter_arg(const ir::Expr& e) {
    define(e);
    if (auto* ia = ir::as<ir::IterArg>(e)) expr(ia->init);
  }

  void attr(const ir::AttrValue& v) {
    if (auto* e = std::get_if<ir::Expr>(&v)) expr(*e);
    else if (auto* es = std::get_if<std::vector<ir::Expr>>(&v))
      for (const auto& x : *es) expr(x);
  }

  static bool typed(const ir::Expr& e, ir::DataType plain) {
    auto* s = ir::as<ir::ScalarType>(e->type);
    return s && s->dtype != plain;
  }

  void expr(const ir::Expr& e) {
    if (!e) return;
    ir::dispatch(e->v, ir::overloaded{
                           [&](const ir::Var&) { add("expr:", "Var"); },
                           [&](const ir::IterArg&) { add("expr:", "IterArg"); },
                           [&](const ir::MemRef&) { add("expr:", "MemRef"); },
                           [&](const ir::ConstInt&) {
                             add("expr:", typed(e, ir::DataType::INDEX) ? "ConstInt.typed" : "ConstInt");
                           },
                           [&](const ir::ConstFloat&) {
                             add("expr:", typed(e, ir::DataType::FP32) ? "ConstFloat.typed" : "ConstFloat");
                           },
                           [&](const ir::ConstBool&) { add("expr:", "ConstBool"); },
                           [&](const ir::Binary& b) {
                             add("expr:Binary.", kBinaryNames[static_cast<std::size_t>(b.op)]);
                             expr(b.lhs);
                             expr(b.rhs);
                           },
                           [&](const ir::Unary& u) {
                             add("expr:Unary.", kUnaryNames[static_cast<std::size_t>(u.op)]);
                             expr(u.operand);
                           },
                           [&](const ir::Call& c) { call(c); },
                           [&](const ir::MakeTuple& t) {
                             add("expr:", "MakeTuple");
                             for (const auto& x : t.elements) expr(x);
                           },
                           [&](const ir::TupleGetItem& g) {
                             add("expr:", "TupleGetItem");
                             expr(g.tuple);
                           },
                       });
    type(e->type);
  }

  void call(const ir::Call& c) {
    if (c.callee.op && !c.callee.function.empty()) add("expr:Call.", ir::op_name(c.callee.op));
    else if (c.callee.op) {
      add("expr:", "Call.op");
      add("op:", ir::op_name(c.callee.op));
    } else {
      add("expr:", "Call.function");
    }
    if (!c.kwargs.empty()) add("expr:", "Call.kwargs");
    if (!c.attrs.empty()) add("expr:", "Call.attrs");
    for (const auto& a : c.args) expr(a);
    for (const auto& kv : c.kwargs) attr(kv.second);
    for (const auto& kv : c.attrs) attr(kv.second);
  }

  bool in_signature_ = false;

  void dims(const std::vector<ir::Expr>& ds, std::string_view owner) {
    for (const auto& d : ds)
      if (!ir::as<ir::ConstInt>(d)) {
        add(owner, ".dynamic_dim");
        if (ir::is_var_like(d) && !defined_.count(d.get())) add("function:", "program_dynamic_dim");
      }
  }

  void memref(const ir::Expr& e) {
    auto* m = ir::as<ir::MemRef>(e);
    if (!m) return;
    if (m->pinned) add("type:", "MemRef.pinned");
    else if (in_signature_) add("type:", "MemRef.signature_base");
    else if (defined_.count(m->base.get())) add("type:", "MemRef.body_base");
    if (m->slots > 1) add("type:", "MemRef.slots");
    if (m->slot_index) add("type:", "MemRef.slot_index");
  }

  void type(const ir::Type& t) {
    if (!t) return;
    ir::dispatch(t->v, ir::overloaded{
                           [&](const ir::UnknownType&) { add("type:", "Unknown"); },
                           [&](const ir::ScalarType& s) { add("type:Scalar.", ir::name_of(s.dtype)); },
                           [&](const ir::TensorType& s) {
                             add("type:", s.distributed ? "DistributedTensor" : "Tensor");
                             dims(s.shape, "type:Tensor");
                             if (s.view) {
                               add("type:Tensor.view.layout.", ir::name_of(s.view->layout));
                               if (!s.view->stride.empty()) add("type:", "Tensor.view.stride");
                               if (!s.view->valid_shape.empty()) add("type:", "Tensor.view.valid_shape");
                               if (s.view->pad != ir::PadValue::null) {
                                 add("type:", "Tensor.view.pad");
                                 add("type:pad.", ir::name_of(s.view->pad));
                               }
                             }
                             if (s.memref) add("type:", "Tensor.memref");
                             memref(s.memref);
                           },
                           [&](const ir::TileType& s) {
                             add("type:", "Tile");
                             dims(s.shape, "type:Tile");
                             if (s.memory) add("type:Tile.memory.", ir::name_of(*s.memory));
                             else add("type:", "Tile.no_memory");
                             if (s.memref) add("type:", "Tile.memref");
                             memref(s.memref);
                             ir::TileView v = ir::effective_view(s);
                             add("type:Tile.layout.", ir::name_of(v.blayout));
                             add("type:Tile.layout.", ir::name_of(v.slayout));
                             if (!s.view) return;
                             ir::TileLayoutTriple implicit = ir::implicit_tile_layout(s.shape, s.memory);
                             if (!s.view->valid_shape.empty()) add("type:", "Tile.view.valid_shape");
                             if (!s.view->stride.empty()) add("type:", "Tile.view.stride");
                             if (s.view->start_offset) add("type:", "Tile.view.start_offset");
                             if (s.view->blayout != implicit.blayout) add("type:", "Tile.view.blayout");
                             if (s.view->slayout != implicit.slayout) add("type:", "Tile.view.slayout");
                             if (s.view->fractal != implicit.fractal) add("type:", "Tile.view.fractal");
                             if (s.view->pad != ir::PadValue::null) {
                               add("type:", "Tile.view.pad");
                               add("type:pad.", ir::name_of(s.view->pad));
                             }
                             if (s.view->compact != ir::CompactMode::null) add("type:", "Tile.view.compact");
                           },
                           [&](const ir::ArrayType&) { add("type:", "Array"); },
                           [&](const ir::TupleType& s) {
                             add("type:", s.elements.empty() ? "Tuple.empty" : "Tuple");
                             for (const auto& x : s.elements) type(x);
                           },
                           [&](const ir::MarkerType& m) {
                             add("type:Marker.", kMarkerNames[static_cast<std::size_t>(m.kind)]);
                           },
                       });
  }
};

}  // namespace corpus
