#pragma once
// Patterns: small value types that recognise IR shapes and capture the pieces a rewrite needs.
//
//   call<"tile.muls">(_x, const_float(1.0))          x * 1.0
//   assign(_y, call<"tile.reshape">(_x, _))          y = tile.reshape(x, <anything>)
//   all_of(_x, tile_of_rank(3))                      any rank-3 tile, captured as x
//   commutative(call<"tile.add">(_x, _y))            x + y or y + x
//
// Which binders a pattern captures, and which are already bound where a sub-pattern is
// matched, are compile-time facts, as in Halide's IRMatch: every pattern has `binds` (a bit
// per binder it captures on every successful match) and is matched by `match<Bound>`, where
// `Bound` holds the binders captured to its left. The first occurrence of a binder therefore
// compiles to a store and every later one to a pointer comparison; no run-time "already
// bound?" flag exists. A rule (rule.hpp) rejects, before anything runs, a guard or a
// replacement that reads a binder its pattern never captures.
//
// Matching writes only into a fixed array of pointers (`bindings`) and allocates nothing.
// Many patterns double as builders of a replacement (build.hpp): `call<"tile.exp">(_x)` on
// the right of a rule constructs the call.
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tilewright/ir/stmt.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::rewrite {

class Rewriter;

inline constexpr std::size_t max_binders = 8;

// How often each Var is read in the code being rewritten (see use_count.hpp); `one_use` asks it.
using use_count_table = std::unordered_map<const ir::ExprNode*, std::uint32_t>;

constexpr std::uint32_t bit_of(std::size_t i) noexcept { return std::uint32_t{1} << i; }

// What a match captured: for each binder, the handle of the node it stands for. The handles
// live in the IR being matched (or, for a `let` of a replacement, in the build), which
// outlives the match.
class bindings {
 public:
  explicit bindings(const use_count_table* uses = nullptr) noexcept : uses_(uses) {}

  [[nodiscard]] const ir::Expr& operator[](std::size_t i) const noexcept { return *slot_[i]; }
  // For tests and diagnostics; matching itself knows statically what is bound.
  [[nodiscard]] bool bound(std::size_t i) const noexcept { return slot_[i] != nullptr; }
  [[nodiscard]] const use_count_table* uses() const noexcept { return uses_; }

  void set(std::size_t i, const ir::Expr& e) noexcept { slot_[i] = &e; }
  [[nodiscard]] bool same(std::size_t i, const ir::Expr& e) const noexcept { return slot_[i]->get() == e.get(); }
  // Forget the binders in `mask` (what a failed or discarded alternative left behind).
  void forget(std::uint32_t mask) noexcept {
    for (std::size_t i = 0; i < max_binders; ++i)
      if (mask & bit_of(i)) slot_[i] = nullptr;
  }

 private:
  std::array<const ir::Expr*, max_binders> slot_{};
  const use_count_table* uses_;
};

// What a guard or a computed part of a replacement sees: the binders in `Mask` (reading any
// other is a compile error), the matched node, and the rewriter.
template <std::uint32_t Mask, class Root>
class matched {
 public:
  matched(const bindings& b, const Root& root, Rewriter& rw) noexcept : b_(b), root_(root), rw_(rw) {}

  template <class B>
    requires requires { B::index; }
  [[nodiscard]] const ir::Expr& operator[](B) const noexcept {
    static_assert((Mask & bit_of(B::index)) != 0,
                  "rewrite: a guard or computed value reads a binder that the pattern does not capture (nor "
                  "a let before it defines); capture it in the pattern or stop reading it");
    return b_[B::index];
  }
  // The node the rule matched, after the driver rebuilt its children.
  [[nodiscard]] const Root& root() const noexcept { return root_; }
  [[nodiscard]] Rewriter& rewriter() const noexcept { return rw_; }
  [[nodiscard]] const bindings& all() const noexcept { return b_; }

 private:
  const bindings& b_;
  const Root& root_;
  Rewriter& rw_;
};

// An expression pattern: `binds`, `needs_uses` (the driver must count uses), and
// `match<Bound>(expr, bindings)`.
template <class P>
concept ExprPattern = requires(const P& p, const ir::Expr& e, bindings& b) {
  { P::binds } -> std::convertible_to<std::uint32_t>;
  { P::needs_uses } -> std::convertible_to<bool>;
  { p.template match<0u>(e, b) } -> std::same_as<bool>;
};

// ---- leaves ----------------------------------------------------------------------------------

template <std::size_t I>
struct binder {
  static_assert(I < max_binders, "rewrite::binder<I>: at most 8 binders per rule");
  static constexpr std::size_t index = I;
  static constexpr std::uint32_t binds = bit_of(I);
  static constexpr std::uint32_t reads = bit_of(I);  // as a replacement
  static constexpr bool needs_uses = false;

  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const noexcept {
    if (!e) return false;
    if constexpr ((Bound & binds) != 0) {
      return b.same(I, e);  // seen to the left: must be the same node
    } else {
      b.set(I, e);
      return true;
    }
  }
  // As a replacement: the captured node itself.
  template <std::uint32_t Mask, class Env>
  ir::Expr build(Env& env) const {
    return env.b[I];
  }
};

struct wildcard {
  static constexpr std::uint32_t binds = 0;
  static constexpr bool needs_uses = false;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings&) const noexcept {
    return static_cast<bool>(e);
  }
};

// The remaining operands of a call or elements of a tuple, however many (none included).
// Only as the last part: `call(any_op, _x, etc)`.
struct rest_pattern {
  static constexpr std::uint32_t binds = 0;
  static constexpr bool needs_uses = false;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr&, bindings&) const noexcept {
    return true;
  }
};

struct const_int_pattern {
  static constexpr std::uint32_t binds = 0;
  static constexpr std::uint32_t reads = 0;
  static constexpr bool needs_uses = false;
  std::int64_t value;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings&) const noexcept {
    auto* c = ir::as<ir::ConstInt>(e);
    return c && c->value == value;
  }
  // As a replacement: an INDEX constant, spanned at the matched call.
  template <std::uint32_t Mask, class Env>
  ir::Expr build(Env& env) const {
    return env.rw.index(value);
  }
};

struct const_float_pattern {
  static constexpr std::uint32_t binds = 0;
  static constexpr std::uint32_t reads = 0;
  static constexpr bool needs_uses = false;
  double value;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings&) const noexcept {
    auto* c = ir::as<ir::ConstFloat>(e);
    return c && c->value == value;
  }
  template <std::uint32_t Mask, class Env>
  ir::Expr build(Env& env) const {
    return ir::make_float(value, ir::DataType::FP32, env.rw.call_span());
  }
};

// A tile-typed value of the given rank.
struct tile_rank_pattern {
  static constexpr std::uint32_t binds = 0;
  static constexpr bool needs_uses = false;
  std::size_t rank;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings&) const noexcept {
    auto* t = ir::tile_type(e);
    return t && t->shape.size() == rank;
  }
};

// ---- sequences of parts (call operands, tuple elements) -----------------------------------

namespace detail {

template <class P>
inline constexpr bool is_rest = std::is_same_v<P, rest_pattern>;

template <class... P>
constexpr bool ends_with_rest() {
  if constexpr (sizeof...(P) == 0) return false;
  else return is_rest<std::tuple_element_t<sizeof...(P) - 1, std::tuple<P...>>>;
}

template <class... P>
constexpr bool rest_only_last() {
  constexpr bool flags[] = {is_rest<P>..., false};
  for (std::size_t i = 0; i + 1 < sizeof...(P); ++i)
    if (flags[i]) return false;
  return true;
}

// The binders captured by parts [0, N) of `P...`: what is bound when part N is matched.
template <std::size_t N, class... P>
constexpr std::uint32_t binds_before() {
  constexpr std::uint32_t each[] = {P::binds..., 0u};
  std::uint32_t m = 0;
  for (std::size_t i = 0; i < N; ++i) m |= each[i];
  return m;
}

// Parts matched left to right against `items`; each sees what the parts before it bound.
template <std::uint32_t Bound, class... P, std::size_t... I>
bool match_parts(const std::tuple<P...>& parts, const std::vector<ir::Expr>& items, bindings& b,
                 std::index_sequence<I...>) {
  constexpr std::size_t fixed = sizeof...(P) - (ends_with_rest<P...>() ? 1 : 0);
  if (ends_with_rest<P...>() ? items.size() < fixed : items.size() != fixed) return false;
  return ((I >= fixed ||
           std::get<I>(parts).template match<Bound | binds_before<I, P...>()>(items[I < fixed ? I : 0], b)) &&
          ...);
}

// A part a replacement can build (binders, constants, calls, tuples, computed values, …).
template <class B>
concept buildable = requires { B::reads; };
template <class... B>
inline constexpr bool all_buildable = (buildable<B> && ...);

template <class>
inline constexpr bool always_false = false;

// A built part as an operand: an expression, a list of them as a tuple, or an INDEX constant.
template <class Env, class V>
ir::Expr as_expr(Env& env, V&& v) {
  using T = std::remove_cvref_t<V>;
  if constexpr (std::is_same_v<T, ir::Expr>)
    return std::forward<V>(v);
  else if constexpr (std::is_same_v<T, std::vector<ir::Expr>>)
    return env.rw.tuple(std::forward<V>(v));
  else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return env.rw.index(static_cast<std::int64_t>(v));
  else
    static_assert(always_false<T>,
                  "rewrite: an operand must build an ir::Expr, a std::vector<ir::Expr> (a tuple) or an integer");
}

// Builds every part into `out`; false when one declined (built a null handle).
template <std::uint32_t Mask, class... B, class Env>
bool build_parts(const std::tuple<B...>& parts, Env& env, std::vector<ir::Expr>& out) {
  out.reserve(sizeof...(B));
  return std::apply(
      [&](const auto&... part) {
        return ((out.push_back(as_expr(env, part.template build<Mask>(env))), out.back() != nullptr) && ...);
      },
      parts);
}

template <class P>
struct root_ops_of {
  using type = void;
};
template <class P>
  requires requires { typename P::root_ops; }
struct root_ops_of<P> {
  using type = typename P::root_ops;
};

template <class... P>
struct first_root_ops {
  using type = void;
};
template <class P, class... Rest>
struct first_root_ops<P, Rest...> {
  using type = std::conditional_t<std::is_void_v<typename root_ops_of<P>::type>, typename first_root_ops<Rest...>::type,
                                  typename root_ops_of<P>::type>;
};

}  // namespace detail

// ---- calls -----------------------------------------------------------------------------------

// A call to one of `Ops` with exactly as many positional operands as sub-patterns (or at
// least, when the last is `etc`).
template <class Ops, ExprPattern... Operands>
struct call_pattern {
  static_assert(detail::rest_only_last<Operands...>(), "rewrite::call: `etc` may only be the last operand");
  using root_ops = Ops;
  static constexpr std::uint32_t binds = (0u | ... | Operands::binds);
  static constexpr bool needs_uses = (false || ... || Operands::needs_uses);
  std::tuple<Operands...> operands;

  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    auto* c = ir::as<ir::Call>(e);
    if (!c || !Ops::contains(c->callee.op)) return false;
    return detail::match_parts<Bound>(operands, c->args, b, std::index_sequence_for<Operands...>{});
  }

  // The same call with its two operands the other way round (see `commutative`).
  [[nodiscard]] constexpr auto swapped() const
    requires(sizeof...(Operands) == 2)
  {
    using A = std::tuple_element_t<0, std::tuple<Operands...>>;
    using B = std::tuple_element_t<1, std::tuple<Operands...>>;
    return call_pattern<Ops, B, A>{{std::get<1>(operands), std::get<0>(operands)}};
  }

  // As a replacement: the call built through the pass context's registry (type deduced,
  // spanned at the matched call). Every operand must be buildable, and one op named.
  static constexpr std::uint32_t reads = binds;
  template <std::uint32_t Mask, class Env>
    requires(detail::all_buildable<Operands...>)
  ir::Expr build(Env& env) const {
    static_assert(Ops::size == 1, "rewrite::call: a call built by a replacement names exactly one op");
    std::vector<ir::Expr> args;
    if (!detail::build_parts<Mask>(operands, env, args)) return nullptr;
    return env.rw.call(Ops::ids()[0], std::move(args));
  }
};

// A MakeTuple with exactly these elements (or at least, when the last is `etc`).
template <ExprPattern... Elements>
struct tuple_pattern {
  static_assert(detail::rest_only_last<Elements...>(), "rewrite::tuple: `etc` may only be the last element");
  static constexpr std::uint32_t binds = (0u | ... | Elements::binds);
  static constexpr bool needs_uses = (false || ... || Elements::needs_uses);
  std::tuple<Elements...> elements;

  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    auto* t = ir::as<ir::MakeTuple>(e);
    return t && detail::match_parts<Bound>(elements, t->elements, b, std::index_sequence_for<Elements...>{});
  }

  static constexpr std::uint32_t reads = binds;
  template <std::uint32_t Mask, class Env>
    requires(detail::all_buildable<Elements...>)
  ir::Expr build(Env& env) const {
    std::vector<ir::Expr> items;
    if (!detail::build_parts<Mask>(elements, env, items)) return nullptr;
    return env.rw.tuple(std::move(items));
  }
};

// A scalar `lhs <op> rhs`.
template <ir::BinaryOp Op, ExprPattern L, ExprPattern R>
struct binary_pattern {
  static constexpr std::uint32_t binds = L::binds | R::binds;
  static constexpr bool needs_uses = L::needs_uses || R::needs_uses;
  L lhs;
  R rhs;

  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    auto* x = ir::as<ir::Binary>(e);
    return x && x->op == Op && lhs.template match<Bound>(x->lhs, b) &&
           rhs.template match<Bound | L::binds>(x->rhs, b);
  }
  [[nodiscard]] constexpr binary_pattern<Op, R, L> swapped() const { return {rhs, lhs}; }

  // As a replacement: the lhs's scalar type, spanned at the matched call.
  static constexpr std::uint32_t reads = binds;
  template <std::uint32_t Mask, class Env>
    requires(detail::all_buildable<L, R>)
  ir::Expr build(Env& env) const {
    ir::Expr l = lhs.template build<Mask>(env), r = rhs.template build<Mask>(env);
    if (!l || !r) return nullptr;
    ir::Type type = l->type;
    return ir::make_expr(ir::Binary{Op, std::move(l), std::move(r)}, std::move(type), env.rw.call_span());
  }
};

// ---- combinators -----------------------------------------------------------------------------

// Either order of a two-operand pattern: the written order first, then the swapped one
// (LLVM's m_c_*). A failed first try leaves nothing behind. Both orders capture the same
// binders, so a rule reads them the same way whichever matched.
template <ExprPattern P>
struct commutative_pattern {
  using root_ops = typename detail::root_ops_of<P>::type;
  static constexpr std::uint32_t binds = P::binds;
  static constexpr bool needs_uses = P::needs_uses;
  P pattern;

  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    if (pattern.template match<Bound>(e, b)) return true;
    b.forget(binds & ~Bound);
    return pattern.swapped().template match<Bound>(e, b);
  }
};

// Every alternative is tried in turn; a failed one leaves nothing behind. Only binders captured
// by every alternative count as captured: a rule cannot read one that only some capture.
template <ExprPattern... Alternatives>
struct any_of_pattern {
  static constexpr std::uint32_t binds = (~0u & ... & Alternatives::binds);
  static constexpr bool needs_uses = (false || ... || Alternatives::needs_uses);
  std::tuple<Alternatives...> alternatives;

  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    return std::apply([&](const auto&... alt) { return (try_one<Bound>(alt, e, b) || ...); }, alternatives);
  }

 private:
  template <std::uint32_t Bound, class P>
  static bool try_one(const P& p, const ir::Expr& e, bindings& b) {
    if (p.template match<Bound>(e, b)) return true;
    b.forget(P::binds & ~Bound);
    return false;
  }
};

template <ExprPattern... Parts>
struct all_of_pattern {
  // Rooted where the first part that names ops is (all_of(_x, call<…>(…)) is a call rule).
  using root_ops = typename detail::first_root_ops<Parts...>::type;
  static constexpr std::uint32_t binds = (0u | ... | Parts::binds);
  static constexpr bool needs_uses = (false || ... || Parts::needs_uses);
  std::tuple<Parts...> parts;

  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    return match_all<Bound>(e, b, std::index_sequence_for<Parts...>{});
  }

 private:
  template <std::uint32_t Bound, std::size_t... I>
  bool match_all(const ir::Expr& e, bindings& b, std::index_sequence<I...>) const {
    return (std::get<I>(parts).template match<Bound | detail::binds_before<I, Parts...>()>(e, b) && ...);
  }
};

// `pattern`, with the whole matched node captured as `b` too: bind(_c, call<"tile.exp">(_x)).
template <class B, ExprPattern P>
struct bind_pattern {
  using root_ops = typename detail::root_ops_of<P>::type;
  static constexpr std::uint32_t binds = B::binds | P::binds;
  static constexpr bool needs_uses = P::needs_uses;
  B binder;
  P pattern;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    return binder.template match<Bound>(e, b) && pattern.template match<Bound | B::binds>(e, b);
  }
};

template <ExprPattern P>
struct not_pattern {
  static constexpr std::uint32_t binds = 0;  // nothing a failed match saw can be trusted
  static constexpr bool needs_uses = P::needs_uses;
  P inner;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    if (!e) return false;
    const bool matched_inner = inner.template match<Bound>(e, b);
    b.forget(P::binds & ~Bound);
    return !matched_inner;
  }
};

// A value with exactly one reader: rewriting its producer cannot change what others see.
template <ExprPattern P>
struct one_use_pattern {
  using root_ops = typename detail::root_ops_of<P>::type;
  static constexpr std::uint32_t binds = P::binds;
  static constexpr bool needs_uses = true;
  P inner;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    if (!inner.template match<Bound>(e, b) || !b.uses()) return false;
    auto it = b.uses()->find(e.get());
    return it != b.uses()->end() && it->second == 1;
  }
};

// A pattern plus a test on the matched node: `where(_x, [](const ir::Expr& e) { … })`.
template <ExprPattern P, class Predicate>
struct where_pattern {
  using root_ops = typename detail::root_ops_of<P>::type;
  static constexpr std::uint32_t binds = P::binds;
  static constexpr bool needs_uses = P::needs_uses;
  P inner;
  Predicate predicate;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Expr& e, bindings& b) const {
    return inner.template match<Bound>(e, b) && predicate(e);
  }
};

// ---- statements ------------------------------------------------------------------------------

template <class P>
concept StmtPattern = requires(const P& p, const ir::Stmt& s, bindings& b) {
  { P::binds } -> std::convertible_to<std::uint32_t>;
  { P::needs_uses } -> std::convertible_to<bool>;
  { p.template match<0u>(s, b) } -> std::same_as<bool>;
};

// The root of a pattern that is not a call (a binder, `where(_x, …)`, `assign(_y, _x)`): such a
// rule is tried on every node of its family.
struct any_node_root {};

namespace detail {
// Defined in build.hpp, where the rest of the replacement language lives.
template <std::uint32_t Mask, class Var, class Value, class Env>
ir::Stmt build_assign(const Var& var, const Value& value, Env& env);
template <std::uint32_t Mask, class Value, class Env>
ir::Stmt build_eval(const Value& value, Env& env);

template <class P>
using root_ops_or_any = std::conditional_t<std::is_void_v<typename root_ops_of<P>::type>, any_node_root,
                                           typename root_ops_of<P>::type>;
}  // namespace detail

// `var = value`; as a replacement it builds that assignment (build.hpp).
template <ExprPattern Var, ExprPattern Value>
struct assign_pattern {
  using root_ops = typename detail::root_ops_of<Value>::type;
  static constexpr std::uint32_t binds = Var::binds | Value::binds;
  static constexpr bool needs_uses = Var::needs_uses || Value::needs_uses;
  Var var;
  Value value;

  template <std::uint32_t Bound = 0>
  bool match(const ir::Stmt& s, bindings& b) const {
    auto* a = ir::as<ir::Assign>(s);
    return a && var.template match<Bound>(a->var, b) && value.template match<Bound | Var::binds>(a->value, b);
  }

  // As a replacement: `var = value` built from the captured pieces (build.hpp).
  static constexpr bool builds_statement = true;
  static constexpr std::uint32_t reads = binds;
  template <std::uint32_t Mask, class Env>
    requires(detail::all_buildable<Var, Value>)
  ir::Stmt build(Env& env) const {
    return detail::build_assign<Mask>(var, value, env);
  }
};

// An expression evaluated for its effect.
template <ExprPattern Value>
struct eval_pattern {
  using root_ops = typename detail::root_ops_of<Value>::type;
  static constexpr std::uint32_t binds = Value::binds;
  static constexpr bool needs_uses = Value::needs_uses;
  Value value;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Stmt& s, bindings& b) const {
    auto* e = ir::as<ir::Eval>(s);
    return e && value.template match<Bound>(e->expr, b);
  }

  static constexpr bool builds_statement = true;
  static constexpr std::uint32_t reads = binds;
  template <std::uint32_t Mask, class Env>
    requires(detail::all_buildable<Value>)
  ir::Stmt build(Env& env) const {
    return detail::build_eval<Mask>(value, env);
  }
};

// A statement that runs `value`: `v = value` or `value` alone.
template <ExprPattern Value>
struct stmt_of_pattern {
  using root_ops = typename detail::root_ops_of<Value>::type;
  static constexpr std::uint32_t binds = Value::binds;
  static constexpr bool needs_uses = Value::needs_uses;
  Value value;
  template <std::uint32_t Bound = 0>
  bool match(const ir::Stmt& s, bindings& b) const {
    if (auto* a = ir::as<ir::Assign>(s)) return value.template match<Bound>(a->value, b);
    auto* e = ir::as<ir::Eval>(s);
    return e && value.template match<Bound>(e->expr, b);
  }
};

// ---- spelling --------------------------------------------------------------------------------

namespace placeholders {
inline constexpr binder<0> _x{};
inline constexpr binder<1> _y{};
inline constexpr binder<2> _z{};
inline constexpr binder<3> _w{};
inline constexpr binder<4> _u{};
inline constexpr binder<5> _v{};
inline constexpr binder<6> _t{};
inline constexpr binder<7> _c{};
inline constexpr wildcard _{};
inline constexpr rest_pattern etc{};
}  // namespace placeholders

template <fixed_string Op, ExprPattern... Operands>
constexpr call_pattern<op_set<Op>, Operands...> call(Operands... operands) {
  return {{operands...}};
}
template <class Ops, ExprPattern... Operands>
  requires is_op_set<Ops>
constexpr call_pattern<Ops, Operands...> call(Ops, Operands... operands) {
  return {{operands...}};
}
template <ExprPattern... Elements>
constexpr tuple_pattern<Elements...> tuple(Elements... elements) {
  return {{elements...}};
}
template <ir::BinaryOp Op, ExprPattern L, ExprPattern R>
constexpr binary_pattern<Op, L, R> binary(L lhs, R rhs) {
  return {lhs, rhs};
}

constexpr const_int_pattern const_int(std::int64_t v) noexcept { return {v}; }
constexpr const_float_pattern const_float(double v) noexcept { return {v}; }
constexpr tile_rank_pattern tile_of_rank(std::size_t rank) noexcept { return {rank}; }

template <ExprPattern P>
  requires requires(const P& p) { p.swapped(); }
constexpr commutative_pattern<P> commutative(P p) {
  return {p};
}
template <ExprPattern... P>
constexpr any_of_pattern<P...> any_of(P... p) {
  return {{p...}};
}
template <ExprPattern... P>
  requires(sizeof...(P) > 0)
constexpr all_of_pattern<P...> all_of(P... p) {
  return {{p...}};
}
template <std::size_t I, ExprPattern P>
constexpr bind_pattern<binder<I>, P> bind(binder<I> b, P p) {
  return {b, p};
}
template <ExprPattern P>
constexpr not_pattern<P> not_(P p) {
  return {p};
}
template <ExprPattern P>
constexpr one_use_pattern<P> one_use(P p) {
  return {p};
}
template <ExprPattern P, class Predicate>
  requires std::predicate<const Predicate&, const ir::Expr&>
constexpr where_pattern<P, Predicate> where(P p, Predicate predicate) {
  return {p, predicate};
}

template <ExprPattern Var, ExprPattern Value>
constexpr assign_pattern<Var, Value> assign(Var var, Value value) {
  return {var, value};
}
template <ExprPattern Value>
constexpr eval_pattern<Value> eval(Value value) {
  return {value};
}
template <ExprPattern Value>
constexpr stmt_of_pattern<Value> stmt_of(Value value) {
  return {value};
}

}  // namespace tilewright::rewrite
