#pragma once
// Replacements that construct IR. The right-hand side of a rule is written in the same
// language as its pattern, and is built only after the pattern and the guard held:
//
//   call<"tile.muls">(_x, const_float(2.0))        a new call, through the pass context's
//                                                   registry: type deduced, span of the match
//   call<"tile.create">(shape_of(_x), kw<"dtype">(ir::DataType::FP32))      with kwargs
//   recreate(_c, arg<1>(computed(f)), append(_w))   the matched call `_c` again (same op,
//                                                   kwargs, attrs) with operands changed
//   computed([](const auto& m, auto& ctx) { … })    anything else, from the bindings (`m[_x]`),
//                                                   the rewriter (`m.rewriter()`) and the context
//   tuple(_x, const_int(0)), const_int(v), shape_of(_x)
//
// A statement pattern is replaced by a statement: `assign(_y, v)` (the Var `_y` kept),
// `eval(v)`, or `replace(v)` — the matched statement (`stmt_of(…)`, an assign or a bare call)
// evaluating `v` instead, its Var re-typed when `v`'s type differs (every later use then reads
// the re-typed Var, see Rewriter::replace). A replacement may be several statements:
// `seq(let(_t, "name", value), …, replace(…))` emits each `let` before the matched statement,
// binding `_t` to the new Var for the parts after it, and ends with the statement that takes
// the matched one's place.
//
// Which binders each part reads is known at compile time: `rule` rejects a replacement that
// reads a binder the pattern does not capture and no `let` before it defines. A computed
// part reads through `m[_x]`, which is checked when the rule is instantiated.
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tilewright/rewrite/pattern.hpp"
#include "tilewright/rewrite/rewriter.hpp"

namespace tilewright::rewrite {

// What the parts of a replacement build with: the bindings (which `let`s extend), the
// rewriter, the pass's context and the matched node.
template <class Ctx, class Root>
struct build_env {
  bindings& b;
  Rewriter& rw;
  Ctx& ctx;
  const Root& root;
  std::array<ir::Expr, max_binders> made{};  // the Vars `let`s defined
};

namespace detail {

// A guard or computed function takes (const auto& m, Ctx& ctx) or (const auto& m).
template <class F, class M, class Ctx>
decltype(auto) invoke_user(const F& fn, const M& m, Ctx& ctx) {
  if constexpr (std::is_invocable_v<const F&, const M&, Ctx&>)
    return fn(m, ctx);
  else if constexpr (std::is_invocable_v<const F&, const M&>)
    return fn(m);
  else
    static_assert(always_false<F>,
                  "rewrite: a guard or computed function must take (const auto& m) or (const auto& m, Ctx& ctx), "
                  "where m[_x] reads a binder, m.rewriter() is the Rewriter and ctx is the pass's context");
}

// A kwarg value: the AttrValue kinds, integers widened, strings copied.
template <class V>
ir::AttrValue as_attr(V&& v) {
  using T = std::remove_cvref_t<V>;
  if constexpr (std::is_same_v<T, bool>)
    return v;
  else if constexpr (std::is_integral_v<T>)
    return static_cast<std::int64_t>(v);
  else if constexpr (std::is_floating_point_v<T>)
    return static_cast<double>(v);
  else if constexpr (std::is_convertible_v<T, std::string_view> && !std::is_same_v<T, ir::AttrValue>)
    return std::string(std::string_view(v));
  else
    return ir::AttrValue(std::forward<V>(v));
}

template <std::uint32_t Avail, class B>
constexpr std::uint32_t unbound_reads() {
  if constexpr (requires { B::template unbound<Avail>(); })
    return B::template unbound<Avail>();
  else if constexpr (requires { B::reads; })
    return B::reads & ~Avail;
  else
    return 0;
}

template <class B>
constexpr std::uint32_t defines_of() {
  if constexpr (requires { B::defines; }) return B::defines;
  else return 0;
}

template <class B>
inline constexpr bool builds_statement = requires { B::builds_statement; };

// Sets `key` in `kwargs`, replacing a value given before.
inline void set_kwarg(ir::Kwargs& kwargs, std::string_view key, ir::AttrValue value) {
  for (auto& kv : kwargs)
    if (kv.first == key) {
      kv.second = std::move(value);
      return;
    }
  kwargs.emplace_back(std::string(key), std::move(value));
}

}  // namespace detail

// ---- computed parts --------------------------------------------------------------------------

template <class F>
struct computed_part {
  static constexpr std::uint32_t reads = 0;  // checked through m[_x] when instantiated
  F fn;
  template <std::uint32_t Mask, class Env>
  decltype(auto) value(Env& env) const {
    using Root = std::remove_cvref_t<decltype(env.root)>;
    const matched<Mask, Root> m(env.b, env.root, env.rw);
    return detail::invoke_user(fn, m, env.ctx);
  }
  // As an operand or a whole replacement. A null handle declines the rewrite.
  template <std::uint32_t Mask, class Env>
  auto build(Env& env) const {
    using V = std::remove_cvref_t<decltype(value<Mask>(env))>;
    if constexpr (std::is_same_v<V, ir::Stmt> || std::is_same_v<V, ir::Expr>)
      return value<Mask>(env);
    else
      return detail::as_expr(env, value<Mask>(env));
  }
};

template <class F>
constexpr computed_part<F> computed(F fn) {
  return {fn};
}

// The shape of a tile or tensor as a tuple.
template <std::size_t I>
struct shape_of_part {
  static constexpr std::uint32_t reads = bit_of(I);
  template <std::uint32_t Mask, class Env>
  ir::Expr build(Env& env) const {
    const ir::Expr& e = env.b[I];
    if (auto* t = ir::tile_type(e)) return env.rw.tuple(t->shape);
    if (auto* t = ir::tensor_type(e)) return env.rw.tuple(t->shape);
    ir::throw_internal_error("rewrite", "shape_of: the bound value is neither a tile nor a tensor", env.rw.stmt_span());
  }
};
template <std::size_t I>
constexpr shape_of_part<I> shape_of(binder<I>) {
  return {};
}

// ---- kwargs ----------------------------------------------------------------------------------

// `kw<"target_memory">(ir::MemorySpace::Vec)`, `kw<"dtype">(computed(f))`, `kw<"x">(_y)`.
template <fixed_string Key, class V>
struct kwarg_part {
  static constexpr std::uint32_t reads = detail::buildable<V> ? detail::unbound_reads<0, V>() : 0;
  V value;
  template <std::uint32_t Mask, class Env>
  bool apply(Env& env, ir::Kwargs& kwargs) const {
    if constexpr (requires { value.template value<Mask>(env); }) {
      detail::set_kwarg(kwargs, Key.view(), detail::as_attr(value.template value<Mask>(env)));
    } else if constexpr (detail::buildable<V>) {
      ir::Expr e = value.template build<Mask>(env);
      if (!e) return false;
      detail::set_kwarg(kwargs, Key.view(), ir::AttrValue(std::move(e)));
    } else {
      detail::set_kwarg(kwargs, Key.view(), detail::as_attr(value));
    }
    return true;
  }
};
template <fixed_string Key, class V>
constexpr kwarg_part<Key, V> kw(V value) {
  return {value};
}

namespace detail {
template <class P>
inline constexpr bool is_kwarg = false;
template <fixed_string K, class V>
inline constexpr bool is_kwarg<kwarg_part<K, V>> = true;

// Operands and kwargs of a built call, in the order written.
template <std::uint32_t Mask, class... P, class Env>
bool build_call_parts(const std::tuple<P...>& parts, Env& env, std::vector<ir::Expr>& args, ir::Kwargs& kwargs) {
  return std::apply(
      [&](const auto&... part) {
        auto one = [&](const auto& p) {
          if constexpr (is_kwarg<std::remove_cvref_t<decltype(p)>>) {
            return p.template apply<Mask>(env, kwargs);
          } else {
            args.push_back(as_expr(env, p.template build<Mask>(env)));
            return args.back() != nullptr;
          }
        };
        return (one(part) && ...);
      },
      parts);
}
}  // namespace detail

// A call built from operands and kwargs (what `call<"op">(…)` is when a part is no pattern).
template <class Ops, class... Parts>
struct call_builder {
  static_assert(Ops::size == 1, "rewrite::call: a call built by a replacement names exactly one op");
  static constexpr std::uint32_t reads = (0u | ... | detail::unbound_reads<0, Parts>());
  std::tuple<Parts...> parts;
  template <std::uint32_t Mask, class Env>
  ir::Expr build(Env& env) const {
    std::vector<ir::Expr> args;
    ir::Kwargs kwargs;
    if (!detail::build_call_parts<Mask>(parts, env, args, kwargs)) return nullptr;
    return env.rw.call(Ops::ids()[0], std::move(args), std::move(kwargs));
  }
};

template <class P>
concept call_part = detail::buildable<P> || detail::is_kwarg<P>;

template <fixed_string Op, call_part... Parts>
  requires(!(ExprPattern<Parts> && ...))
constexpr call_builder<op_set<Op>, Parts...> call(Parts... parts) {
  return {{parts...}};
}

// A tuple of built elements (what `tuple(…)` is when an element is no pattern).
template <class... Elements>
struct tuple_builder {
  static constexpr std::uint32_t reads = (0u | ... | detail::unbound_reads<0, Elements>());
  std::tuple<Elements...> elements;
  template <std::uint32_t Mask, class Env>
  ir::Expr build(Env& env) const {
    std::vector<ir::Expr> items;
    return detail::build_parts<Mask>(elements, env, items) ? env.rw.tuple(std::move(items)) : nullptr;
  }
};
template <class... Elements>
  requires((detail::buildable<Elements> && ...) && !(ExprPattern<Elements> && ...))
constexpr tuple_builder<Elements...> tuple(Elements... elements) {
  return {{elements...}};
}

// ---- the matched call again ------------------------------------------------------------------

template <std::size_t I, class B>
struct arg_part {
  static constexpr std::uint32_t reads = detail::unbound_reads<0, B>();
  B value;
};
template <class B>
struct append_part {
  static constexpr std::uint32_t reads = detail::unbound_reads<0, B>();
  B value;
};
template <class P>
inline constexpr bool is_append = false;
template <class B>
inline constexpr bool is_append<append_part<B>> = true;

template <std::size_t I, class B>
constexpr arg_part<I, B> arg(B value) {
  return {value};
}
template <class B>
constexpr append_part<B> append(B value) {
  return {value};
}

// The call bound to `_c`, built again through the registry with the operands and kwargs the
// parts change (`arg<i>(v)` replaces operand i, `append(v)` adds one, `kw<"k">(v)` sets a kwarg);
// its other operands, kwargs and attrs are kept, and an op without a deducer keeps `_c`'s type.
template <std::size_t C, class... Parts>
struct recreate_builder {
  static constexpr std::uint32_t reads = (bit_of(C) | ... | Parts::reads);
  std::tuple<Parts...> parts;

  template <std::uint32_t Mask, class Env>
  ir::Expr build(Env& env) const {
    const ir::Expr& matched_call = env.b[C];
    auto* c = ir::as<ir::Call>(matched_call);
    if (!c || c->callee.is_function())
      ir::throw_internal_error("rewrite", "recreate: the bound value is not a call of an op", env.rw.stmt_span());
    std::vector<ir::Expr> args = c->args;
    ir::Kwargs kwargs = c->kwargs;
    const bool built = std::apply([&](const auto&... p) { return (apply_one<Mask>(p, env, args, kwargs) && ...); }, parts);
    if (!built) return nullptr;
    return env.rw.call(c->callee.op, std::move(args), std::move(kwargs), c->attrs, matched_call->type);
  }

 private:
  template <std::uint32_t Mask, class P, class Env>
  static bool apply_one(const P& p, Env& env, std::vector<ir::Expr>& args, ir::Kwargs& kwargs) {
    if constexpr (detail::is_kwarg<P>) {
      return p.template apply<Mask>(env, kwargs);
    } else {
      ir::Expr v = detail::as_expr(env, p.value.template build<Mask>(env));
      if (!v) return false;
      if constexpr (is_append<P>)
        args.push_back(std::move(v));
      else
        replace_arg(p, args, std::move(v), env);
      return true;
    }
  }
  template <std::size_t I, class B, class Env>
  static void replace_arg(const arg_part<I, B>&, std::vector<ir::Expr>& args, ir::Expr v, Env& env) {
    if (I >= args.size())
      ir::throw_internal_error("rewrite", "recreate: arg<" + std::to_string(I) + "> of a call with " +
                                              std::to_string(args.size()) + " operands",
                               env.rw.stmt_span());
    args[I] = std::move(v);
  }
};

template <std::size_t C, class... Parts>
constexpr recreate_builder<C, Parts...> recreate(binder<C>, Parts... parts) {
  return {{parts...}};
}

// ---- statements ------------------------------------------------------------------------------

namespace detail {

template <std::uint32_t Mask, class Var, class Value, class Env>
ir::Stmt build_assign(const Var&, const Value& value, Env& env) {
  ir::Expr v = as_expr(env, value.template build<Mask>(env));
  if (!v) return nullptr;
  return ir::make_stmt(ir::Assign{env.b[Var::index], std::move(v)}, env.rw.stmt_span());
}

template <std::uint32_t Mask, class Value, class Env>
ir::Stmt build_eval(const Value& value, Env& env) {
  ir::Expr v = as_expr(env, value.template build<Mask>(env));
  if (!v) return nullptr;
  return ir::make_stmt(ir::Eval{std::move(v)}, env.rw.stmt_span());
}

}  // namespace detail

// `var = value` where the value is built rather than matched.
template <class Var, class Value>
struct assign_builder {
  static constexpr bool builds_statement = true;
  static constexpr std::uint32_t reads = Var::reads | detail::unbound_reads<0, Value>();
  template <std::uint32_t Avail>
  static constexpr std::uint32_t unbound() {
    return (Var::reads & ~Avail) | detail::unbound_reads<Avail, Value>();
  }
  Var var;
  Value value;
  template <std::uint32_t Mask, class Env>
  ir::Stmt build(Env& env) const {
    return detail::build_assign<Mask>(var, value, env);
  }
};

template <class Var, class Value>
  requires(detail::buildable<Var> && detail::buildable<Value> && !(ExprPattern<Var> && ExprPattern<Value>))
constexpr assign_builder<Var, Value> assign(Var var, Value value) {
  return {var, value};
}

// The matched statement (`v = …` or a bare call) evaluating `value` instead; its Var is re-typed
// when `value`'s type differs from it (Rewriter::replace).
template <class Value>
struct replace_builder {
  static constexpr bool builds_statement = true;
  static constexpr std::uint32_t reads = detail::unbound_reads<0, Value>();
  Value value;
  template <std::uint32_t Mask, class Env>
  ir::Stmt build(Env& env) const {
    ir::Expr v = detail::as_expr(env, value.template build<Mask>(env));
    if (!v) return nullptr;
    if (!ir::stmt_call(env.rw.current()))
      ir::throw_internal_error("rewrite", "replace(…): the rule is not rooted at a statement that runs a call",
                               env.rw.stmt_span());
    return env.rw.replace(std::move(v));
  }
};
template <class Value>
  requires detail::buildable<Value>
constexpr replace_builder<Value> replace(Value value) {
  return {value};
}

template <class Value>
struct eval_builder {
  static constexpr bool builds_statement = true;
  static constexpr std::uint32_t reads = detail::unbound_reads<0, Value>();
  Value value;
  template <std::uint32_t Mask, class Env>
  ir::Stmt build(Env& env) const {
    return detail::build_eval<Mask>(value, env);
  }
};
template <class Value>
  requires(detail::buildable<Value> && !ExprPattern<Value>)
constexpr eval_builder<Value> eval(Value value) {
  return {value};
}

// `name = value` emitted before the matched statement; `_t` stands for the new Var in the
// parts of the `seq` after it. `name` is a string or a function (const auto& m[, ctx]) -> string.
template <std::size_t T, class Name, class Value>
struct let_part {
  static constexpr std::uint32_t defines = bit_of(T);
  static constexpr std::uint32_t reads = detail::unbound_reads<0, Value>();
  template <std::uint32_t Avail>
  static constexpr std::uint32_t unbound() {
    return detail::unbound_reads<Avail, Value>();
  }
  Name name;
  Value value;

  template <std::uint32_t Mask, class Env>
  bool define(Env& env) const {
    ir::Expr v = detail::as_expr(env, value.template build<Mask>(env));
    if (!v) return false;
    ir::Expr var = env.rw.emit(name_text<Mask>(env), std::move(v));
    env.made[T] = std::move(var);
    env.b.set(T, env.made[T]);
    return true;
  }

 private:
  template <std::uint32_t Mask, class Env>
  std::string name_text(Env& env) const {
    if constexpr (std::is_convertible_v<const Name&, std::string_view>) {
      return std::string(std::string_view(name));
    } else {
      using Root = std::remove_cvref_t<decltype(env.root)>;
      const matched<Mask, Root> m(env.b, env.root, env.rw);
      return std::string(detail::invoke_user(name, m, env.ctx));
    }
  }
};
template <std::size_t T, class Name, class Value>
  requires detail::buildable<Value>
constexpr let_part<T, Name, Value> let(binder<T>, Name name, Value value) {
  return {name, value};
}

namespace detail {
template <class P>
inline constexpr bool is_let = requires { P::defines; };

// What parts [I, …) of a seq read that neither `Avail` nor a let before them provides.
template <std::uint32_t Avail, class P, class... Rest>
constexpr std::uint32_t seq_unbound() {
  const std::uint32_t here = unbound_reads<Avail, P>();
  if constexpr (sizeof...(Rest) == 0) return here;
  else return here | seq_unbound<Avail | defines_of<P>(), Rest...>();
}
}  // namespace detail

// Statements replacing the matched one: every part but the last is emitted before it (a
// `let` binding its Var for the parts after it), the last takes its place.
template <class... Parts>
struct seq_builder {
  static_assert(sizeof...(Parts) > 0, "rewrite::seq: at least one statement");
  using Last = std::tuple_element_t<sizeof...(Parts) - 1, std::tuple<Parts...>>;
  static_assert(!detail::is_let<Last>,
                "rewrite::seq: the last part takes the matched statement's place, so it cannot be a let; end with "
                "assign(_y, …), eval(…) or a computed statement");
  static constexpr bool builds_statement = true;
  static constexpr std::uint32_t defines = (0u | ... | detail::defines_of<Parts>());
  static constexpr std::uint32_t reads = detail::seq_unbound<0, Parts...>();
  std::tuple<Parts...> parts;

  template <std::uint32_t Avail>
  static constexpr std::uint32_t unbound() {
    return detail::seq_unbound<Avail, Parts...>();
  }

  template <std::uint32_t Mask, class Env>
  ir::Stmt build(Env& env) const {
    return build_from<Mask, 0>(env);
  }

 private:
  template <std::uint32_t Mask, std::size_t I, class Env>
  ir::Stmt build_from(Env& env) const {
    using P = std::tuple_element_t<I, std::tuple<Parts...>>;
    const P& part = std::get<I>(parts);
    if constexpr (I + 1 == sizeof...(Parts)) {
      return part.template build<Mask>(env);
    } else if constexpr (detail::is_let<P>) {
      if (!part.template define<Mask>(env)) return nullptr;
      return build_from<Mask | P::defines, I + 1>(env);
    } else {
      ir::Stmt s = part.template build<Mask>(env);
      if (!s) return nullptr;
      env.rw.emit(std::move(s));
      return build_from<Mask, I + 1>(env);
    }
  }
};
template <class... Parts>
constexpr seq_builder<Parts...> seq(Parts... parts) {
  return {{parts...}};
}

}  // namespace tilewright::rewrite
