#pragma once
// Patterns: small value types that recognise IR shapes and capture the pieces a rewrite needs.
//
//   call<"tile.muls">(_x, const_float(1.0))          x * 1.0
//   assign(_y, call<"tile.reshape">(_x, _))          y = tile.reshape(x, <anything>)
//   all_of(_x, tile_of_rank(3))                      any rank-3 tile, captured as x
//
// A pattern knows at compile time which binders it captures (`binds`, a bit per binder), so a
// rule can reject, before anything runs, a rewrite that reads a binder its pattern never set.
// Matching writes only into a fixed array of pointers (`bindings`): it allocates nothing.
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "tilewright/ir/stmt.hpp"
#include "tilewright/rewrite/op_set.hpp"

namespace tilewright::rewrite {

inline constexpr std::size_t max_binders = 8;

// How often each Var is read in the code being rewritten (see use_count.hpp); `one_use` asks it.
using use_count_table = std::unordered_map<const ir::ExprNode*, std::uint32_t>;

// What a match captured: for each binder, the handle of the node it stands for. The handles
// live in the IR being matched, which outlives the match.
class bindings {
 public:
  explicit bindings(const use_count_table* uses = nullptr) noexcept : uses_(uses) {}

  [[nodiscard]] const ir::Expr& operator[](std::size_t i) const noexcept { return *slot_[i]; }
  [[nodiscard]] bool bound(std::size_t i) const noexcept { return slot_[i] != nullptr; }
  [[nodiscard]] const use_count_table* uses() const noexcept { return uses_; }

  // A binder seen twice must stand for the same node both times.
  bool bind(std::size_t i, const ir::Expr& e) noexcept {
    if (!slot_[i]) {
      slot_[i] = &e;
      return true;
    }
    return slot_[i]->get() == e.get();
  }

 private:
  std::array<const ir::Expr*, max_binders> slot_{};
  const use_count_table* uses_;
};

// An expression pattern: `binds` (bit i set when binder i is captured on every successful
// match), `needs_uses` (the driver must count uses), and `match`.
template <class P>
concept ExprPattern = requires(const P& p, const ir::Expr& e, bindings& b) {
  { P::binds } -> std::convertible_to<std::uint32_t>;
  { P::needs_uses } -> std::convertible_to<bool>;
  { p.match(e, b) } -> std::same_as<bool>;
};

// ---- leaves ----------------------------------------------------------------------------------

template <std::size_t I>
struct binder {
  static_assert(I < max_binders, "rewrite::binder<I>: at most 8 binders per rule");
  static constexpr std::size_t index = I;
  static constexpr std::uint32_t binds = 1u << I;
  static constexpr bool needs_uses = false;
  bool match(const ir::Expr& e, bindings& b) const noexcept { return e && b.bind(I, e); }
  // As a replacement: the captured node itself.
  [[nodiscard]] ir::Expr build(const bindings& b) const { return b[I]; }
};

struct wildcard {
  static constexpr std::uint32_t binds = 0;
  static constexpr bool needs_uses = false;
  bool match(const ir::Expr& e, bindings&) const noexcept { return static_cast<bool>(e); }
};

struct const_int_pattern {
  static constexpr std::uint32_t binds = 0;
  static constexpr bool needs_uses = false;
  std::int64_t value;
  bool match(const ir::Expr& e, bindings&) const noexcept {
    auto* c = ir::as<ir::ConstInt>(e);
    return c && c->value == value;
  }
};

struct const_float_pattern {
  static constexpr std::uint32_t binds = 0;
  static constexpr bool needs_uses = false;
  double value;
  bool match(const ir::Expr& e, bindings&) const noexcept {
    auto* c = ir::as<ir::ConstFloat>(e);
    return c && c->value == value;
  }
};

// A tile-typed value of the given rank.
struct tile_rank_pattern {
  static constexpr std::uint32_t binds = 0;
  static constexpr bool needs_uses = false;
  std::size_t rank;
  bool match(const ir::Expr& e, bindings&) const noexcept {
    auto* t = ir::tile_type(e);
    return t && t->shape.size() == rank;
  }
};

// ---- calls -----------------------------------------------------------------------------------

// A call to one of `Ops` with exactly as many positional operands as sub-patterns.
template <class Ops, ExprPattern... Operands>
struct call_pattern {
  using root_ops = Ops;
  static constexpr std::uint32_t binds = (0u | ... | Operands::binds);
  static constexpr bool needs_uses = (false || ... || Operands::needs_uses);
  std::tuple<Operands...> operands;

  bool match(const ir::Expr& e, bindings& b) const {
    auto* c = ir::as<ir::Call>(e);
    if (!c || !Ops::contains(c->callee.op) || c->args.size() != sizeof...(Operands)) return false;
    return match_operands(*c, b, std::index_sequence_for<Operands...>{});
  }

 private:
  template <std::size_t... I>
  bool match_operands(const ir::Call& c, bindings& b, std::index_sequence<I...>) const {
    return (std::get<I>(operands).match(c.args[I], b) && ...);
  }
};

// ---- combinators -----------------------------------------------------------------------------

// Every alternative is tried on a copy of the bindings, so a failed one leaves nothing behind.
// Only binders captured by every alternative count as captured.
template <ExprPattern... Alternatives>
struct any_of_pattern {
  static constexpr std::uint32_t binds = (~0u & ... & Alternatives::binds);
  static constexpr bool needs_uses = (false || ... || Alternatives::needs_uses);
  std::tuple<Alternatives...> alternatives;

  bool match(const ir::Expr& e, bindings& b) const {
    return std::apply([&](const auto&... alt) { return (try_one(alt, e, b) || ...); }, alternatives);
  }

 private:
  template <class P>
  static bool try_one(const P& p, const ir::Expr& e, bindings& b) {
    bindings attempt = b;
    if (!p.match(e, attempt)) return false;
    b = attempt;
    return true;
  }
};

template <ExprPattern... Parts>
struct all_of_pattern {
  static constexpr std::uint32_t binds = (0u | ... | Parts::binds);
  static constexpr bool needs_uses = (false || ... || Parts::needs_uses);
  std::tuple<Parts...> parts;
  bool match(const ir::Expr& e, bindings& b) const {
    return std::apply([&](const auto&... p) { return (p.match(e, b) && ...); }, parts);
  }
};

template <ExprPattern P>
struct not_pattern {
  static constexpr std::uint32_t binds = 0;  // nothing a failed match saw can be trusted
  static constexpr bool needs_uses = P::needs_uses;
  P inner;
  bool match(const ir::Expr& e, bindings& b) const {
    bindings scratch = b;
    return e && !inner.match(e, scratch);
  }
};

// A value with exactly one reader: rewriting its producer cannot change what others see.
template <ExprPattern P>
struct one_use_pattern {
  static constexpr std::uint32_t binds = P::binds;
  static constexpr bool needs_uses = true;
  P inner;
  bool match(const ir::Expr& e, bindings& b) const {
    if (!inner.match(e, b) || !b.uses()) return false;
    auto it = b.uses()->find(e.get());
    return it != b.uses()->end() && it->second == 1;
  }
};

// A pattern plus a test on the matched node: `where(_x, [](const ir::Expr& e) { … })`.
template <ExprPattern P, class Predicate>
struct where_pattern {
  static constexpr std::uint32_t binds = P::binds;
  static constexpr bool needs_uses = P::needs_uses;
  P inner;
  Predicate predicate;
  bool match(const ir::Expr& e, bindings& b) const { return inner.match(e, b) && predicate(e); }
};

// ---- statements ------------------------------------------------------------------------------

template <class P>
concept StmtPattern = requires(const P& p, const ir::Stmt& s, bindings& b) {
  { P::binds } -> std::convertible_to<std::uint32_t>;
  { P::needs_uses } -> std::convertible_to<bool>;
  { p.match(s, b) } -> std::same_as<bool>;
};

// The root of a pattern that is not a call (a binder, `where(_x, …)`, `assign(_y, _x)`): such a
// rule is tried on every node of its family.
struct any_node_root {};

namespace detail {
template <class P>
struct root_ops_of {
  using type = any_node_root;
};
template <class P>
  requires requires { typename P::root_ops; }
struct root_ops_of<P> {
  using type = typename P::root_ops;
};
}  // namespace detail

// `var = value`; as a replacement it builds that assignment from the captured pieces.
template <ExprPattern Var, ExprPattern Value>
struct assign_pattern {
  using root_ops = typename detail::root_ops_of<Value>::type;
  static constexpr std::uint32_t binds = Var::binds | Value::binds;
  static constexpr bool needs_uses = Var::needs_uses || Value::needs_uses;
  Var var;
  Value value;

  bool match(const ir::Stmt& s, bindings& b) const {
    auto* a = ir::as<ir::Assign>(s);
    return a && var.match(a->var, b) && value.match(a->value, b);
  }
  [[nodiscard]] ir::Stmt build(const bindings& b, const ir::Stmt& root) const
    requires(requires(const Var& v, const Value& x, const bindings& bb) {
      v.build(bb);
      x.build(bb);
    })
  {
    return ir::make_stmt(ir::Assign{var.build(b), value.build(b)}, root->span, root->comments);
  }
};

// An expression evaluated for its effect.
template <ExprPattern Value>
struct eval_pattern {
  using root_ops = typename detail::root_ops_of<Value>::type;
  static constexpr std::uint32_t binds = Value::binds;
  static constexpr bool needs_uses = Value::needs_uses;
  Value value;
  bool match(const ir::Stmt& s, bindings& b) const {
    auto* e = ir::as<ir::Eval>(s);
    return e && value.match(e->expr, b);
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
inline constexpr wildcard _{};
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

constexpr const_int_pattern const_int(std::int64_t v) noexcept { return {v}; }
constexpr const_float_pattern const_float(double v) noexcept { return {v}; }
constexpr tile_rank_pattern tile_of_rank(std::size_t rank) noexcept { return {rank}; }

template <ExprPattern... P>
constexpr any_of_pattern<P...> any_of(P... p) {
  return {{p...}};
}
template <ExprPattern... P>
constexpr all_of_pattern<P...> all_of(P... p) {
  return {{p...}};
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

}  // namespace tilewright::rewrite
