#pragma once
// Rules: a pattern, an optional guard, a replacement — one small value per rewrite.
//
//   constexpr auto fold_muls_by_one =
//       rule("fold-muls-by-one", call<"tile.muls">(_x, const_float(1.0)), _x);
//
//   constexpr auto exp_of_double =                 // a replacement that constructs a call
//       rule("double-exp", call<"tile.exp">(_x), call<"tile.muls">(call<"tile.exp">(_x), const_float(2.0)));
//
//   constexpr auto fold_reshape =
//       rule("fold-no-op-reshape", assign(_y, call<"tile.reshape">(_x, _)),
//            when<_y, _x>(same_buffer), assign(_y, _x));
//
// A guard is `when<_x, _y>(fn)` (fn takes the named binders, optionally preceded by the
// context and the matched node) or `when(fn)` (fn takes the match `m`, optionally followed by
// the pass's context: `m[_x]`, `m.rewriter().original()`, …). The replacement is a builder
// (build.hpp) or `with<_x…>(fn)`, a function returning the new node or a null handle to
// decline. `rule` checks at compile time that the guard and the replacement read only what
// the pattern captures.
//
// Hand-written rules (a struct with `name`, `roots` and `apply(ctx, rewriter, stmt, call)`)
// sit in the same rule sets and receive the same Rewriter; a pass whose rewrite depends on
// an analysis writes those where the rewrite is not local.
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

#include "tilewright/rewrite/build.hpp"
#include "tilewright/rewrite/pattern.hpp"
#include "tilewright/rewrite/rewriter.hpp"

namespace tilewright::rewrite {

// A pass without state for its rules uses this as the context.
struct no_context {};

namespace detail {
// A `when<_x…>` / `with<_x…>` function is called with (ctx, root, bound...) when it takes the
// context, else with (bound...) alone.
template <class F, class Ctx, class Root, class... Bound>
decltype(auto) call_user(const F& fn, Ctx& ctx, const Root& root, const Bound&... bound) {
  if constexpr (std::is_invocable_v<const F&, Ctx&, const Root&, const Bound&...>)
    return fn(ctx, root, bound...);
  else if constexpr (std::is_invocable_v<const F&, const Bound&...>)
    return fn(bound...);
  else
    static_assert(always_false<F>,
                  "rewrite: a guard or replacement function must take (const ir::Expr&...) for the "
                  "binders it names, optionally preceded by (Context&, const Root&)");
}
}  // namespace detail

// ---- guards and function replacements --------------------------------------------------------

template <class F, auto... Binders>
struct guard_fn {
  static constexpr std::uint32_t uses = (0u | ... | decltype(Binders)::binds);
  F fn;
  template <std::uint32_t Mask, class Ctx, class Root>
  bool holds(Ctx& ctx, const Root& root, const bindings& b, Rewriter&) const {
    return static_cast<bool>(detail::call_user(fn, ctx, root, b[decltype(Binders)::index]...));
  }
};

// `when(fn)`: fn reads the match through m[_x] (checked when the rule is instantiated).
template <class F>
struct match_guard_fn {
  static constexpr std::uint32_t uses = 0;
  F fn;
  template <std::uint32_t Mask, class Ctx, class Root>
  bool holds(Ctx& ctx, const Root& root, const bindings& b, Rewriter& rw) const {
    const matched<Mask, Root> m(b, root, rw);
    return static_cast<bool>(detail::invoke_user(fn, m, ctx));
  }
};

struct always {
  static constexpr std::uint32_t uses = 0;
  template <std::uint32_t Mask, class Ctx, class Root>
  bool holds(Ctx&, const Root&, const bindings&, Rewriter&) const noexcept {
    return true;
  }
};

// A replacement computed by a function of the named binders; a null handle declines.
template <class F, auto... Binders>
struct replace_fn {
  static constexpr std::uint32_t reads = (0u | ... | decltype(Binders)::binds);
  F fn;
  template <class Ctx, class Root>
  Root build_from(Ctx& ctx, const Root& root, const bindings& b) const {
    return detail::call_user(fn, ctx, root, b[decltype(Binders)::index]...);
  }
};

template <auto... Binders, class F>
  requires(sizeof...(Binders) > 0)
constexpr guard_fn<F, Binders...> when(F fn) {
  return {fn};
}
template <class F>
constexpr match_guard_fn<F> when(F fn) {
  return {fn};
}
template <auto... Binders, class F>
constexpr replace_fn<F, Binders...> with(F fn) {
  return {fn};
}

namespace detail {
template <class R>
inline constexpr bool is_replace_fn = false;
template <class F, auto... B>
inline constexpr bool is_replace_fn<replace_fn<F, B...>> = true;

template <class R>
inline constexpr bool is_computed = false;
template <class F>
inline constexpr bool is_computed<computed_part<F>> = true;
}  // namespace detail

// ---- pattern rules ---------------------------------------------------------------------------

template <class Pattern, class Guard, class Replacement, int Benefit = 1>
struct pattern_rule {
  static constexpr int benefit = Benefit;
  static constexpr bool needs_uses = Pattern::needs_uses;
  static constexpr bool on_stmt = StmtPattern<Pattern>;
  using root_ops = detail::root_ops_or_any<Pattern>;

  std::string_view name;
  Pattern pattern;
  Guard guard;
  Replacement replacement;

  // The replacement, or a null handle when the pattern or the guard says no. Matching and
  // the guard touch no reference count and allocate nothing; building happens only after.
  template <class Ctx, class Root>
  Root try_apply(Ctx& ctx, Rewriter& rw, const Root& root, const use_count_table* uses) const {
    bindings b(uses);
    if (!pattern.template match<0u>(root, b)) return nullptr;
    if (!guard.template holds<Pattern::binds>(ctx, root, b, rw)) return nullptr;
    return build(ctx, rw, root, b);
  }

 private:
  template <class Ctx, class Root>
  [[gnu::noinline]] Root build(Ctx& ctx, Rewriter& rw, const Root& root, bindings& b) const {
    if constexpr (detail::is_replace_fn<Replacement>) {
      return replacement.build_from(ctx, root, b);
    } else {
      build_env<Ctx, Root> env{b, rw, ctx, root};
      auto out = replacement.template build<Pattern::binds>(env);
      static_assert(std::is_convertible_v<decltype(out), Root>,
                    "rewrite::rule: the replacement builds the wrong kind of node: an expression pattern needs "
                    "an expression replacement, a statement pattern (assign, eval) a statement one");
      return out;
    }
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
  static_assert(detail::buildable<Replacement>,
                "rewrite::rule: this replacement cannot be built: use binders, constants, call<\"op\">(...), "
                "tuple(...), recreate(_c, ...), computed(...), assign/eval/seq(...) or with<...>(fn)");
  static_assert(detail::unbound_reads<Pattern::binds, Replacement>() == 0,
                "rewrite::rule: the replacement reads a binder that the pattern does not capture; capture it "
                "in the pattern (for example call<\"tile.muls\">(_x, _y)), define it with a let before the "
                "part that reads it, or stop using it in the replacement");
  static_assert((detail::defines_of<Replacement>() & Pattern::binds) == 0,
                "rewrite::rule: a let defines a binder the pattern already captures; give the new value a "
                "binder of its own");
  static_assert(detail::is_replace_fn<Replacement> || detail::is_computed<Replacement> ||
                    detail::builds_statement<Replacement> == StmtPattern<Pattern>,
                "rewrite::rule: the replacement builds the wrong kind of node: an expression pattern needs an "
                "expression replacement, a statement pattern (assign, eval) a statement one (assign, eval, seq)");
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
//   static constexpr auto roots = ops_of<"tile.load">;          // or any_op
//   ir::Stmt apply(Ctx&, Rewriter&, const ir::Stmt& stmt, const ir::Call& call) const;
// `stmt` and `call` are the statement as the driver rebuilt it; the rewriter has the original.
// Return the replacement (rw.replace(…), rw.erase(), …) or a null handle to decline.
template <class R, class Ctx>
concept CallStmtRule = requires(const R& r, Ctx& ctx, Rewriter& rw, const ir::Stmt& s, const ir::Call& c) {
  { R::name } -> std::convertible_to<std::string_view>;
  requires is_op_set<std::remove_cvref_t<decltype(R::roots)>>;
  { r.apply(ctx, rw, s, c) } -> std::convertible_to<ir::Stmt>;
};

// The same for a call inside an expression:
//   ir::Expr apply(Ctx&, Rewriter&, const ir::Expr&, const ir::Call&) const.
template <class R, class Ctx>
concept CallExprRule = requires(const R& r, Ctx& ctx, Rewriter& rw, const ir::Expr& e, const ir::Call& c) {
  { R::name } -> std::convertible_to<std::string_view>;
  requires is_op_set<std::remove_cvref_t<decltype(R::roots)>>;
  { r.apply(ctx, rw, e, c) } -> std::convertible_to<ir::Expr>;
};

// A rule tried on every statement, whatever it is (a yield, a loop, …):
//   static constexpr auto roots = any_stmt;
//   ir::Stmt apply(Ctx&, Rewriter&, const ir::Stmt&) const;
inline constexpr any_node_root any_stmt{};
template <class R, class Ctx>
concept AnyStmtRule = requires(const R& r, Ctx& ctx, Rewriter& rw, const ir::Stmt& s) {
  { R::name } -> std::convertible_to<std::string_view>;
  requires std::is_same_v<std::remove_cvref_t<decltype(R::roots)>, any_node_root>;
  { r.apply(ctx, rw, s) } -> std::convertible_to<ir::Stmt>;
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
