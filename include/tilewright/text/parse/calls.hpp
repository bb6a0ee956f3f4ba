#pragma once
// Calls: argument lists, registered op calls with their deduced types, the unified DSL
// sugar (`pl.load`, `pl.add`, … dispatching on their operands, §6.1), calls of the
// program's own functions and `pl.submit`.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "tilewright/ir/call_result.hpp"
#include "tilewright/ops/create.hpp"
#include "tilewright/text/parse/parser_class.hpp"

namespace tilewright::text::parser_detail {

inline const ops::OpInfo* Parser::find_op(const std::string& name) const {
  auto it = op_names_.find(name);
  return it == op_names_.end() ? nullptr : it->second;
}

inline std::string Parser::suggest(std::string_view name,
                                   const std::vector<std::string>& pool) const {
  std::string best;
  int best_d = 3;
  for (const auto& n : pool) {
    int d = edit_distance(name, n, 2);
    if (d < best_d || (d == best_d && !best.empty() && n < best)) {
      best_d = d;
      best = n;
    }
  }
  return best_d <= 2 ? best : std::string();
}

inline void Parser::unknown_op(const std::string& name, const Span& s) const {
  std::vector<std::string> pool;
  pool.reserve(op_names_.size());
  for (const auto& kv : op_names_) pool.push_back(kv.first);
  std::string m = "unknown op '" + name + "'";
  if (auto s2 = suggest(name, pool); !s2.empty()) m += "; did you mean '" + s2 + "'?";
  fail(s, std::move(m));
}

inline CallArgs Parser::parse_call_args(std::string_view callee) {
  CallArgs a;
  if (!at(TokenKind::lparen)) fail_expected("'('", "to open the arguments of " + std::string(callee));
  advance();
  const std::size_t mark = pending_.size();
  while (!at(TokenKind::rparen)) {
    if (at(TokenKind::star) || at(TokenKind::double_star))
      fail(cur().span, "argument unpacking with '*' or '**' is not supported");
    if (at(TokenKind::name) && peek().is(TokenKind::assign)) {
      const Token& k = advance();
      std::string key = k.text;
      Span ks = k.span;
      advance();
      for (const auto& e : a.kw)
        if (e.first == key)
          fail(ks, "keyword argument '" + key + "' repeated in " + std::string(callee));
      a.kw.emplace_back(key, parse_expr());
      a.kw_spans.push_back(ks);
    } else {
      if (!a.kw.empty())
        fail(cur().span, "positional argument follows keyword argument in " + std::string(callee));
      pending_.push_back(parse_expr());
    }
    if (!accept(TokenKind::comma)) break;
  }
  a.pos = take_pending(mark);
  a.close = cur().span;
  // Not expect(): its context would be spelled for every call, not only a failing one.
  if (!at(TokenKind::rparen))
    fail_expected(token_kind_name(TokenKind::rparen), "to close the arguments of " + std::string(callee));
  advance();
  std::uint32_t deepest = 0;
  for (const auto& p : a.pos) deepest = std::max(deepest, p.depth);
  for (const auto& [k, v] : a.kw) deepest = std::max(deepest, v.depth);
  call_arg_depth_ = deepest;  // the arguments of nested calls were read before, so this is ours
  return a;
}

inline const PVal* Parser::kwarg(const CallArgs& a, std::string_view key) {
  for (const auto& [k, v] : a.kw)
    if (k == key) return &v;
  return nullptr;
}

inline void Parser::drop_kwarg(CallArgs& a, std::string_view key) {
  for (std::size_t i = 0; i < a.kw.size(); ++i)
    if (a.kw[i].first == key) {
      a.kw.erase(a.kw.begin() + static_cast<std::ptrdiff_t>(i));
      a.kw_spans.erase(a.kw_spans.begin() + static_cast<std::ptrdiff_t>(i));
      return;
    }
}

inline void Parser::no_kwargs(const CallArgs& a, std::string_view callee) const {
  if (!a.kw.empty())
    fail(a.kw_spans[0], std::string(callee) + " takes no keyword argument '" + a.kw[0].first + "'");
}

inline void Parser::arity(const CallArgs& a, std::size_t lo, std::size_t hi,
                          std::string_view callee, const Span& s) const {
  if (a.pos.size() < lo || a.pos.size() > hi)
    fail(a.pos.size() > hi ? a.pos[hi].span : s,
         std::string(callee) + " takes " +
             (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
             " positional arguments, got " + std::to_string(a.pos.size()));
}

// A call is one level above its deepest argument.
inline PVal Parser::call_path(const std::string& path, const Span& s) {
  PVal v = call_target(path, s);
  if (v.kind != PVal::Kind::expr) return v;
  return nested(std::move(v.e), v.span, call_arg_depth_);
}

inline PVal Parser::call_target(const std::string& path, const Span& s) {
  auto seg = split_path(path);
  if (path == "pl.const") return of(parse_const(s), s);
  if (path == "pl.min" || path == "pl.max") {
    CallArgs a = parse_call_args(path);
    no_kwargs(a, path);
    arity(a, 2, 2, path, s);
    return of(make_binary(path == "pl.min" ? ir::BinaryOp::Min : ir::BinaryOp::Max, path, a.pos[0],
                          a.pos[1], s),
              s);
  }
  if (path == "pl.cast") return of(parse_cast(s), s);
  if (path == "abs") {
    CallArgs a = parse_call_args(path);
    no_kwargs(a, path);
    arity(a, 1, 1, path, s);
    Expr e = value_expr(a.pos[0], "an operand");
    scalar_operand(e, a.pos[0].span, "abs");
    return of(ir::make_expr(ir::Unary{ir::UnaryOp::Abs, e}, e->type, s), s);
  }
  if (path == "pl.split" || path == "pl.cross_core_slot") {
    parse_call_args(path);  // kept verbatim as part of a scope's optimizations list
    PVal v;
    v.kind = PVal::Kind::raw;
    v.span = s;
    return v;
  }
  if (path == "pl.yield_")
    fail(s, "pl.yield_ can only be a statement or the value of an assignment");
  if (path == "pl.cond") fail(s, "pl.cond can only be the first statement of a pl.while_ body");
  if (path == "pl.MemRef" || path == "pl.TileView" || path == "pl.TensorView")
    fail(s, path + " is only allowed inside a type annotation");
  if (path == "pl.submit" || path == "pl.spmd_submit") return of(parse_submit(path, s), s);
  if (seg.size() == 2 && seg[0] == "self") {
    CallArgs a = parse_call_args(path);
    return of(function_call(std::string(seg[1]), std::move(a), s), s);
  }
  if (seg.size() == 1) {
    CallArgs a = parse_call_args(path);
    return of(function_call(path, std::move(a), s), s);
  }
  if (seg[0] == "pl" && seg.size() == 3 &&
      (seg[1] == "tile" || seg[1] == "tensor" || seg[1] == "system" || seg[1] == "array" ||
       seg[1] == "prefetch")) {
    std::string name = std::string(seg[1]) + "." + op_stem(seg[2]);
    CallArgs a = parse_call_args(path);
    return of(build_op(name, std::move(a), s), s);
  }
  if (seg[0] == "pld" && seg.size() >= 2) {
    CallArgs a = parse_call_args(path);
    return of(build_op(dotted_op_name(seg, 0), std::move(a), s), s);
  }
  if (seg[0] == "pl" && seg.size() == 2) {
    CallArgs a = parse_call_args(path);
    return of(sugar_call(std::string(seg[1]), std::move(a), s), s);
  }
  // An op of the registry in a namespace of its own (a downstream `pl.mylib.scale`).
  if (seg[0] == "pl" && seg.size() >= 3) {
    std::string name = dotted_op_name(seg, 1);
    if (find_op(name)) {
      CallArgs a = parse_call_args(path);
      return of(build_op(name, std::move(a), s), s);
    }
  }
  fail(s, "unknown function '" + path + "'");
}

inline Expr Parser::parse_const(const Span& s) {
  CallArgs a = parse_call_args("pl.const");
  no_kwargs(a, "pl.const");
  arity(a, 2, 2, "pl.const", s);
  const PVal& v = a.pos[0];
  if (a.pos[1].kind != PVal::Kind::path || !dtype_of(a.pos[1].s))
    fail(a.pos[1].span,
         "expected a dtype such as pl.INT32 as the second argument of pl.const, found " +
             describe_val(a.pos[1]));
  ir::DataType dt = *dtype_of(a.pos[1].s);
  if (v.kind != PVal::Kind::expr || !v.literal || ir::as<ir::ConstBool>(v.e))
    fail(v.span,
         "expected a number literal as the first argument of pl.const, found " + describe_val(v));
  if (auto* i = ir::as<ir::ConstInt>(v.e)) {
    if (ir::is_float(dt)) return ir::make_float(static_cast<double>(i->value), dt, s);
    return ir::make_int(i->value, dt, s);
  }
  if (!ir::is_float(dt))
    fail(v.span, "a float literal cannot be a pl.const of integer dtype pl." +
                     std::string(ir::name_of(dt)));
  return ir::make_float(ir::as<ir::ConstFloat>(v.e)->value, dt, s);
}

inline Expr Parser::parse_cast(const Span& s) {
  CallArgs a = parse_call_args("pl.cast");
  if (a.pos.empty()) fail(a.close, "pl.cast needs a value to convert");
  const PVal& x = a.pos[0];
  bool scalar = x.kind == PVal::Kind::expr && ir::as<ir::ScalarType>(x.e->type);
  if (scalar) {
    no_kwargs(a, "pl.cast of a scalar");
    arity(a, 2, 2, "pl.cast", s);
    if (a.pos[1].kind != PVal::Kind::path || !dtype_of(a.pos[1].s))
      fail(a.pos[1].span,
           "expected a dtype such as pl.INT32 as the second argument of pl.cast, found " +
               describe_val(a.pos[1]));
    return cast_to(x.e, *dtype_of(a.pos[1].s));
  }
  if (a.pos.size() >= 2 && a.pos[1].kind == PVal::Kind::path && dtype_of(a.pos[1].s)) {
    a.kw.insert(a.kw.begin(), {"target_type", a.pos[1]});
    a.kw_spans.insert(a.kw_spans.begin(), a.pos[1].span);
    a.pos.erase(a.pos.begin() + 1);
  }
  return sugar_dispatch("cast", std::move(a), s);
}

// `pl.<op>(...)`: the unified DSL ops dispatch on their operands (§6.1).
inline Expr Parser::sugar_call(const std::string& op, CallArgs a, const Span& s) {
  // `pl.load`, `pl.create_tile`, ...: one op whatever the operands; its DSL row fills the defaults.
  if (auto it = unified_names_.find(op); it != unified_names_.end())
    return build_op(it->second->name, std::move(a), s);
  return sugar_dispatch(op, std::move(a), s);
}

inline Expr Parser::sugar_dispatch(const std::string& op, CallArgs a, const Span& s) {
  std::string prefix;
  for (const auto& p : a.pos) {
    if (p.kind != PVal::Kind::expr) continue;
    if (ir::as<ir::TileType>(p.e->type))
      prefix = "tile.";
    else if (ir::as<ir::TensorType>(p.e->type))
      prefix = "tensor.";
    if (!prefix.empty()) break;
  }
  if (prefix.empty())
    fail(s, "pl." + op + " needs a tile or tensor operand to choose between pl.tile." + op +
                " and pl.tensor." + op);
  std::string name = prefix + op_stem(op);
  if (a.pos.size() >= 2 && a.pos[1].kind == PVal::Kind::expr &&
      ir::as<ir::ScalarType>(a.pos[1].e->type)) {
    std::string scalar_form = name + "s";
    if (find_op(scalar_form)) name = scalar_form;
  }
  if (!find_op(name)) fail(s, "unknown op 'pl." + op + "' (no op '" + name + "')");
  return build_op(name, std::move(a), s);
}

// Builds a registered op call: keywords that name positional parameters become positional
// (the special forms of §4.5: `value=`, `shape=`, `valid_shape=`, `scratch=`, `deps=`).
inline std::string default_text(const ir::AttrValue& v) {
  if (auto* m = std::get_if<ir::MemorySpace>(&v)) return "pl.Mem." + std::string(ir::name_of(*m));
  if (auto* d = std::get_if<ir::DataType>(&v)) return "pl." + std::string(ir::name_of(*d));
  if (auto* p = std::get_if<ir::PadValue>(&v)) return "pl.PadValue." + std::string(ir::name_of(*p));
  if (auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  return "...";
}

// "tensor, offsets, shapes, valid_shapes=shapes, target_memory=pl.Mem.Vec": the signature
// as a diagnostic shows it.
inline std::string dsl_signature_text(const ops::OpInfo& info) {
  std::string out;
  for (const auto& p : info.dsl) {
    if (!out.empty()) out += ", ";
    out += p.name;
    if (p.default_from >= 0 && static_cast<std::size_t>(p.default_from) < info.arg_names.size())
      out += "=" + info.arg_names[static_cast<std::size_t>(p.default_from)];
    else if (p.default_value)
      out += "=" + default_text(*p.default_value);
  }
  return out;
}

inline Expr Parser::build_op(const std::string& name, CallArgs a, const Span& s) {
  const ops::OpInfo* info = find_op(name);
  if (!info) unknown_op(name, s);
  ir::Kwargs kwargs, attrs;
  // The call is read by the op's DSL signature when it has one (the DSL takes some kwargs
  // positionally and fills defaults), else by its argument list; keywords may name
  // arguments as well as kwargs (the special forms of §4.5: `value=`, `shape=`, ...).
  const auto& sig = info->dsl;
  // What each argument of the op is given by, indexed by argument (null: not given); a
  // std::map cost a node per argument of every call.
  boost::container::small_vector<const PVal*, 8> by_index;
  auto given_at = [&](std::size_t arg) -> const PVal*& {
    if (arg >= by_index.size()) by_index.resize(arg + 1, nullptr);
    return by_index[arg];
  };
  std::vector<std::pair<std::string, const PVal*>> given_kwargs;
  auto place = [&](std::size_t arg, const PVal& v, const std::string& pname, const Span& at) {
    const PVal*& slot = given_at(arg);
    if (slot)
      fail(at, "argument '" + pname + "' of " + name + " is given both by position and by keyword");
    slot = &v;
  };
  auto place_kwarg = [&](const std::string& key, const PVal& v, const Span& at) {
    for (const auto& [k, _] : given_kwargs)
      if (k == key) fail(at, "'" + key + "' of " + name + " is given both by position and by keyword");
    given_kwargs.emplace_back(key, &v);
  };
  for (std::size_t i = 0; i < a.pos.size(); ++i) {
    if (sig.empty()) {
      given_at(i) = &a.pos[i];
      continue;
    }
    if (i >= sig.size())
      fail(a.pos[i].span, name + " takes at most " + std::to_string(sig.size()) + " positional arguments (" +
                              dsl_signature_text(*info) + "), got " + std::to_string(a.pos.size()));
    const ops::DslParam& p = sig[i];
    if (p.arg >= 0) place(static_cast<std::size_t>(p.arg), a.pos[i], p.name, a.pos[i].span);
    else place_kwarg(p.name, a.pos[i], a.pos[i].span);
  }
  for (std::size_t i = 0; i < a.kw.size(); ++i) {
    // Plain references, not a structured binding: clang 14 cannot capture one in a lambda.
    const auto& k = a.kw[i].first;
    const auto& v = a.kw[i].second;
    if (k == "attrs") {
      attrs = attrs_dict(v);
      continue;
    }
    auto p = std::find_if(sig.begin(), sig.end(), [&](const ops::DslParam& d) { return d.name == k; });
    if (p != sig.end() && p->arg >= 0) {
      place(static_cast<std::size_t>(p->arg), v, k, a.kw_spans[i]);
      continue;
    }
    if (p == sig.end() && !info->kwarg(k)) {
      auto it = std::find(info->arg_names.begin(), info->arg_names.end(), k);
      if (it != info->arg_names.end()) {
        place(static_cast<std::size_t>(it - info->arg_names.begin()), v, k, a.kw_spans[i]);
        continue;
      }
    }
    place_kwarg(k, v, a.kw_spans[i]);
  }
  // The DSL's defaults for what the text leaves out.
  for (const auto& p : sig) {
    if (p.arg >= 0 && p.default_from >= 0 && !given_at(static_cast<std::size_t>(p.arg)))
      if (const PVal* from = given_at(static_cast<std::size_t>(p.default_from)))
        given_at(static_cast<std::size_t>(p.arg)) = from;
  }
  // `kw=None` passes None to the DSL, which leaves the kwarg out: no value, and no default.
  for (const auto& [k, v] : given_kwargs)
    if (v->kind != PVal::Kind::none) kwargs.emplace_back(k, attr_value(k, *v, info->kwarg(k)));
  for (const auto& p : sig) {
    bool given = std::any_of(given_kwargs.begin(), given_kwargs.end(), [&](const auto& g) { return g.first == p.name; });
    if (p.arg < 0 && p.default_value && !given) kwargs.emplace_back(p.name, *p.default_value);
  }
  std::vector<Expr> args;
  args.reserve(static_cast<std::size_t>(
      std::count_if(by_index.begin(), by_index.end(), [](const PVal* v) { return v != nullptr; })));
  for (std::size_t idx = 0; idx < by_index.size(); ++idx) {
    const PVal* v = by_index[idx];
    if (!v) continue;
    if (idx != args.size()) {
      std::size_t missing = args.size();
      std::string what = missing < info->arg_names.size() ? "'" + info->arg_names[missing] + "'"
                                                          : "argument " + std::to_string(missing + 1);
      fail(v->span, name + " is given a later argument, but its argument " + what + " is missing");
    }
    // The common case first: the message context is only built for a value to convert.
    // A list or None always converts, and names nothing in a message.
    if (v->kind == PVal::Kind::expr)
      args.push_back(v->e);
    else if (v->kind == PVal::Kind::list || v->kind == PVal::Kind::none)
      args.push_back(value_expr(*v, {}));
    else
      args.push_back(value_expr(*v, "an argument of " + name));
  }
  auto rethrow = [&](const ir::Error& e) {
    const ir::Diagnostic& d = e.diagnostic();
    throw ir::Error(ir::Diagnostic{ir::Severity::error, ir::ErrorKind::user, "parser", d.message,
                                   d.span.known() ? d.span : s, d.notes});
  };
  // An op without a deducer takes the annotation of `x: T = <this call>` as its type, as
  // upstream's reader does. A deducer's verdict is never replaced: an annotation that
  // disagrees with it is checked against it by the assignment (§6.4).
  const Token* head = rhs_ann_ ? kept(rhs_tok_) : nullptr;
  Type ann = head && same_start(head->span, s) ? rhs_ann_ : nullptr;
  Type type;
  try {
    ops::validate_call(*info, args, kwargs, s);
    if (auto d = ops::deduce_type(*info, args, kwargs, s)) type = *d;
  } catch (const ir::Error& e) {
    rethrow(e);
  } catch (const std::exception& e) {
    fail(s, "cannot build " + name + ": " + e.what());
  }
  if (!info->deduce) {
    if (ann)
      type = ann;
    else if (const Token* t = eval_tok_ != kNoToken ? kept(eval_tok_) : nullptr; t && same_start(t->span, s))
      type = ir::unknown_type();  // the whole statement: its value is discarded, so it needs no type
    else
      fail(s, name + " has no type deduction; annotate the result type (x: pl.Tile[...] = ...)");
  }
  try {
    type = stamped(*info, type, args, kwargs);
  } catch (const std::exception& e) {
    fail(s, "cannot build " + name + ": " + e.what());
  }
  Expr call = ir::make_call(info->id, std::move(args), std::move(kwargs), type, s);
  if (!call) fail(s, "cannot build " + name);
  if (!attrs.empty()) {
    if (auto* c = ir::as<ir::Call>(call)) {
      ir::Call copy = *c;
      copy.attrs = std::move(attrs);
      call = ir::make_expr(std::move(copy), call->type, call->span);
    }
  }
  return call;
}

inline Type Parser::stamped(const ops::OpInfo& info, const Type& deduced, const std::vector<Expr>& args,
                            const ir::Kwargs& kwargs) {
  Type type = types_(deduced);
  auto space = ops::memory_to_stamp(info, type, args, kwargs);
  if (!space) return type;
  Type& slot = stamped_[type.get()][static_cast<std::size_t>(*space)];
  if (!slot) slot = types_(ops::with_memory(type, *space));
  return slot;
}

inline Parser::FnState* Parser::find_fn(const std::string& name) {
  for (auto& f : fns_)
    if (f.name == name) return &f;
  return nullptr;
}

inline void Parser::unknown_function(const std::string& name, const Span& s) const {
  std::vector<std::string> pool;
  for (const auto& f : fns_) pool.push_back(f.name);
  std::string m = "unknown function '" + name + "'";
  if (auto g = suggest(name, pool); !g.empty()) m += "; did you mean '" + g + "'?";
  fail(s, std::move(m));
}

inline Type Parser::returns_type(std::vector<Type> returns) {
  if (returns.empty()) return ir::unknown_type();
  if (returns.size() == 1) return std::move(returns[0]);
  return ir::make_type(ir::TupleType{std::move(returns)});
}

inline ir::Kwargs Parser::call_kwargs(const CallArgs& a, ir::Kwargs* attrs) {
  ir::Kwargs out;
  for (const auto& [k, v] : a.kw) {
    if (k == "attrs")
      *attrs = attrs_dict(v);
    else
      out.emplace_back(k, attr_value(k, v, nullptr));
  }
  return out;
}

inline Expr Parser::function_call(const std::string& name, CallArgs a, const Span& s) {
  FnState* f = find_fn(name);
  if (!f) unknown_function(name, s);
  if (a.pos.size() != f->params.size())
    fail(s, "function '" + name + "' takes " + std::to_string(f->params.size()) +
                " arguments, got " + std::to_string(a.pos.size()));
  std::vector<Expr> args;
  for (const auto& p : a.pos) args.push_back(value_expr(p, "an argument of " + name));
  ir::Kwargs attrs;
  ir::Kwargs kw = call_kwargs(a, &attrs);
  Type type = returns_type(ir::returns_at_call(f->params, f->returns, args));
  return ir::make_expr(
      ir::Call{ir::Callee{ir::OpId{}, ir::Symbol(name)}, std::move(args), std::move(kw), std::move(attrs)},
      std::move(type), s);
}

inline Expr Parser::parse_submit(const std::string& path, const Span& s) {
  CallArgs a = parse_call_args(path);
  if (a.pos.empty() || a.pos[0].kind != PVal::Kind::path)
    fail(a.pos.empty() ? a.close : a.pos[0].span,
         path + " needs the submitted function, e.g. self.kernel, first");
  auto seg = split_path(a.pos[0].s);
  std::string fname(seg.back());
  if (seg.size() > 2 || (seg.size() == 2 && seg[0] != "self"))
    fail(a.pos[0].span, "expected self.<function> as the first argument of " + path);
  FnState* f = find_fn(fname);
  if (!f) unknown_function(fname, a.pos[0].span);
  std::vector<Expr> args;
  for (std::size_t i = 1; i < a.pos.size(); ++i)
    args.push_back(value_expr(a.pos[i], "an argument of " + path));
  ir::Kwargs attrs;
  ir::Kwargs kw = call_kwargs(a, &attrs);
  std::vector<Type> els = ir::returns_at_call(f->params, f->returns, args);
  els.push_back(ir::scalar_type(ir::DataType::TASK_ID));
  std::string op = path.substr(3);
  return ir::make_expr(ir::Call{ir::Callee{ir::intern_op(op), ir::Symbol(fname)}, std::move(args),
                                std::move(kw), std::move(attrs)},
                       ir::make_type(ir::TupleType{std::move(els)}), s);
}

}  // namespace tilewright::text::parser_detail
