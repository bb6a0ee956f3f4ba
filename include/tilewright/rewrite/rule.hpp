#pragma once
// Rules: a pattern, an optional guard, a replacement — one small value per rewrite.
//
//   constexpr auto fold_muls_by_one =
//       rule("fold-muls-by-one", call<"tile.muls">(_x, const_float(1.0)), _x);
//
//   constexpr auto fold_reshape =
//       rule("fold-no-op-reshape", assign(_y, call<"tile.reshape">(_x, _)),
//            when<_y, _x>(same_buffer), assign(_y, _x));
//
// A guard or replacement written as a function names the binders it reads (`when<_x, _y>`,
// `with<_x>`); whatever it names must be captured by the pattern, and `rule` checks that at
// compile time. Hand-written rules (a struct with `name`, `roots` and `apply`) sit in the same
// rule sets: a pass with a context-heavy rewrite writes those instead (see CallStmtRule).
//
// Rule sets are hana tuples ordered by benefit (higher first, ties in the order written),
// computed at compile time; the driver tries the rules rooted at a node in that order and
// keeps the first replacement.
#include <concepts>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <boost/hana/concat.hpp>
#include <boost/hana/flatten.hpp>
#include <boost/hana/length.hpp>
#include <boost/hana/sort.hpp>
#include <boost/hana/tuple.hpp>

#include "tilewright/rewrite/pattern.hpp"

namespace tilewright::rewrite {

// A pass without state for its rules uses this as the context.
struct no_context {};

template <class>
inline constexpr bool dependent_false = false;

namespace detail {
// A user function is called with (ctx, root, bound...) when it takes the context, else with
// (bound...) alone.
template <class F, class Ctx, class Root, class... Bound>
decltype(auto) call_user(const F& fn, Ctx& ctx, const Root& root, const Bound&... bound) {
  if constexpr (std::is_invocable_v<const F&, Ctx&, const Root&, const Bound&...>)
    return fn(ctx, root, bound...);
  else if constexpr (std::is_invocable_v<const F&, const Bound&...>)
    return fn(bound...);
  else
    static_assert(dependent_false<F>,
                  "rewrite: a guard or replacement function must take (const ir::Expr&...) for the "
                  "binders it names, optionally preceded by (Context&, const Root&)");
}
}  // namespace detail

// ---- guards and function replacements --------------------------------------------------------

template <class F, auto... Binders>
struct guard_fn {
  static constexpr std::uint32_t uses = (0u | ... | decltype(Binders)::binds);
  F fn;
  template <class Ctx, class Root>
  bool holds(Ctx& ctx, const Root& root, const bindings& b) const {
    return static_cast<bool>(detail::call_user(fn, ctx, root, b[decltype(Binders)::index]...));
  }
};

struct always {
  static constexpr std::uint32_t uses = 0;
  template <class Ctx, class Root>
  bool holds(Ctx&, const Root&, const bindings&) const noexcept {
    return true;
  }
};

// A replacement computed by a function; returning a null handle declines the rewrite.
template <class F, auto... Binders>
struct replace_fn {
  static constexpr std::uint32_t uses = (0u | ... | decltype(Binders)::binds);
  F fn;
  template <class Ctx, class Root>
  Root build(Ctx& ctx, const Root& root, const bindings& b) const {
    return detail::call_user(fn, ctx, root, b[decltype(Binders)::index]...);
  }
};

template <auto... Binders, class F>
constexpr guard_fn<F, Binders...> when(F fn) {
  return {fn};
}
template <auto... Binders, class F>
constexpr replace_fn<F, Binders...> with(F fn) {
  return {fn};
}

namespace detail {
template <class R>
constexpr std::uint32_t replacement_uses() {
  if constexpr (requires { R::uses; })
    return R::uses;  // replace_fn
  else
    return R::binds;  // a pattern used as a builder reads what it names
}

// Build the replacement for `root` from a pattern-builder or a function.
template <class R, class Ctx, class Root>
Root build_replacement(const R& r, Ctx& ctx, const Root& root, const bindings& b) {
  if constexpr (requires { r.build(ctx, root, b); })
    return r.build(ctx, root, b);
  else if constexpr (requires { r.build(b, root); })
    return r.build(b, root);
  else if constexpr (requires { r.build(b); })
    return r.build(b);
  else
    static_assert(dependent_false<R>,
                  "rewrite::rule: this replacement cannot build the kind of node the pattern matches "
                  "(an expression pattern needs an expression replacement, a statement pattern a "
                  "statement one)");
}
}  // namespace detail

// ---- pattern rules ---------------------------------------------------------------------------

template <class Pattern, class Guard, class Replacement, int Benefit = 1>
struct pattern_rule {
  static constexpr int benefit = Benefit;
  static constexpr bool needs_uses = Pattern::needs_uses;
  static constexpr bool on_stmt = StmtPattern<Pattern>;
  using root_ops = typename detail::root_ops_of<Pattern>::type;

  std::string_view name;
  Pattern pattern;
  Guard guard;
  Replacement replacement;

  // The replacement, or a null handle when the pattern or the guard says no.
  template <class Ctx, class Root>
  Root try_apply(Ctx& ctx, const Root& root, const use_count_table* uses) const {
    bindings b(uses);
    if (!pattern.match(root, b) || !guard.holds(ctx, root, b)) return nullptr;
    return detail::build_replacement(replacement, ctx, root, b);
  }
};

template <class Pattern, class Guard, class Replacement>
constexpr auto rule(std::string_view name, Pattern pattern, Guard guard, Replacement replacement) {
  static_assert(ExprPattern<Pattern> || StmtPattern<Pattern>,
                "rewrite::rule: the second argument must be a pattern such as call<\"tile.add\">(_x, _y) "
                "or assign(_y, call<\"tile.exp\">(_x))");
  static_assert((Guard::uses & ~Pattern::binds) == 0,
                "rewrite::rule: the guard reads a binder that the pattern does not capture; capture it "
                "in the pattern (for example call<\"tile.muls\">(_x, _y)) or drop it from when<...>");
  static_assert((detail::replacement_uses<Replacement>() & ~Pattern::binds) == 0,
                "rewrite::rule: the replacement reads a binder that the pattern does not capture; "
                "capture it in the pattern (for example call<\"tile.muls\">(_x, _y)) or stop using it "
                "in the replacement");
  return pattern_rule<Pattern, Guard, Replacement>{name, pattern, guard, replacement};
}

template <class Pattern, class Replacement>
constexpr auto rule(std::string_view name, Pattern pattern, Replacement replacement) {
  return rule(name, pattern, always{}, replacement);
}

// The same rule, tried before rules of lower benefit.
template <int Benefit, class P, class G, class R, int Old>
constexpr pattern_rule<P, G, R, Benefit> with_benefit(pattern_rule<P, G, R, Old> r) {
  return {r.name, r.pattern, r.guard, r.replacement};
}

// ---- hand-written rules ----------------------------------------------------------------------

// A rule rooted at the statements `v = op(...)` / `op(...)` of the ops in `R::roots`:
//   static constexpr std::string_view name;
//   static constexpr auto roots = ops_of<"tile.load">;
//   ir::Stmt apply(Ctx&, const ir::Stmt& stmt, const ir::Call& call) const;   // null: declined
template <class R, class Ctx>
concept CallStmtRule = requires(const R& r, Ctx& ctx, const ir::Stmt& s, const ir::Call& c) {
  { R::name } -> std::convertible_to<std::string_view>;
  requires is_op_set<std::remove_cvref_t<decltype(R::roots)>>;
  { r.apply(ctx, s, c) } -> std::convertible_to<ir::Stmt>;
};

// The same for a call inside an expression: `ir::Expr apply(Ctx&, const ir::Expr&, const ir::Call&)`.
template <class R, class Ctx>
concept CallExprRule = requires(const R& r, Ctx& ctx, const ir::Expr& e, const ir::Call& c) {
  { R::name } -> std::convertible_to<std::string_view>;
  requires is_op_set<std::remove_cvref_t<decltype(R::roots)>>;
  { r.apply(ctx, e, c) } -> std::convertible_to<ir::Expr>;
};

template <class R>
constexpr int benefit_of() {
  if constexpr (requires { R::benefit; })
    return R::benefit;
  else
    return 1;
}

// ---- rule sets -------------------------------------------------------------------------------

namespace detail {
inline constexpr auto by_benefit = [](const auto& a, const auto& b) {
  return boost::hana::bool_c<(benefit_of<std::remove_cvref_t<decltype(a)>>() >
                              benefit_of<std::remove_cvref_t<decltype(b)>>())>;
};
}  // namespace detail

// Rules in the order the driver tries them: higher benefit first; equal benefits keep the
// order written (hana::sort is stable).
template <class... Rules>
constexpr auto rule_set(Rules... rules) {
  return boost::hana::sort(boost::hana::make_tuple(rules...), detail::by_benefit);
}

// Several rule sets as one, re-ordered by benefit.
template <class... Sets>
constexpr auto concat(Sets... sets) {
  return boost::hana::sort(boost::hana::flatten(boost::hana::make_tuple(sets...)), detail::by_benefit);
}

}  // namespace tilewright::rewrite
