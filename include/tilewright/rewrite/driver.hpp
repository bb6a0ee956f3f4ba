#pragma once
// Drivers: the walks that apply a rule set. Drivers own traversal, order and budgets; rules
// never walk (MLIR's split between patterns and drivers).
//
// `RuleWalker` is an `ir::Mutator` that, after a node's children were rebuilt, tries the rules
// rooted at that node and keeps the first replacement. Dispatch goes by the node's root first:
// an op id indexes a table of the rules rooted at that op, so a statement is offered only to
// the rules that can match it. The walker owns the one `Rewriter` every rule receives: it
// tells the rewriter which statement is being rewritten (as written and as rebuilt), rolls back
// what a declining rule did, splices emitted statements in front of the statement they were
// emitted for, and applies the rebinds of the rules that succeeded to its substitution.
//
// A pass with its own needs (a type mapping, extra state) derives from `RuleWalker`; a pass
// made only of rules calls `rewrite_post_order` or `rewrite_to_fixpoint`, giving them the op
// registry its rules build through (`ctx.registry()` of the PassContext). Either way nothing
// changed means the very same nodes come back.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/hana/at.hpp>
#include <boost/hana/length.hpp>

#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/rewrite/rewriter.hpp"
#include "tilewright/rewrite/rule.hpp"
#include "tilewright/rewrite/use_count.hpp"

namespace tilewright::rewrite {

struct rule_counter {
  std::string_view rule;
  std::uint64_t tried = 0;
  std::uint64_t applied = 0;
};

namespace detail {

template <class Rules>
inline constexpr std::size_t rule_count = decltype(boost::hana::length(std::declval<Rules>()))::value;

template <class R>
constexpr std::string_view name_of_rule(const R& r) {
  if constexpr (requires { r.name; }) return r.name;
  else return R::name;
}

enum class root_family { expr, stmt };

// Which family of nodes a rule is tried on, and the ops it is rooted at.
template <class R, class Ctx>
constexpr root_family family_of() {
  if constexpr (requires { R::on_stmt; }) return R::on_stmt ? root_family::stmt : root_family::expr;
  else if constexpr (CallStmtRule<R, Ctx> || AnyStmtRule<R, Ctx>) return root_family::stmt;
  else if constexpr (CallExprRule<R, Ctx>) return root_family::expr;
  else
    static_assert(always_false<R>,
                  "rewrite: this is not a rule for this context. A rule is made by rewrite::rule(...), "
                  "or is a struct with `name`, `roots = ops_of<...>` and `apply(Ctx&, Rewriter&, const "
                  "ir::Stmt&, const ir::Call&)` (or the ir::Expr form, or `roots = any_stmt` with "
                  "`apply(Ctx&, Rewriter&, const ir::Stmt&)`) taking the pass's context type");
}

template <class R>
struct roots_of_rule {
  using type = std::remove_cvref_t<decltype(R::roots)>;
};
template <class R>
  requires requires { typename R::root_ops; }
struct roots_of_rule<R> {
  using type = typename R::root_ops;
};
template <class R>
using roots_of = typename roots_of_rule<R>::type;

// Per family: rules by op id, plus those tried on every call and on every node.
struct dispatch_table {
  std::vector<std::uint64_t> by_op;
  std::uint64_t any_call = 0;
  std::uint64_t any_node = 0;

  [[nodiscard]] std::uint64_t rules_for(ir::OpId op) const noexcept {
    std::uint64_t mask = any_node;
    if (op) {
      mask |= any_call;
      if (op.value < by_op.size()) mask |= by_op[op.value];
    }
    return mask;
  }
};

template <class R>
constexpr bool rule_needs_uses() {
  if constexpr (requires { R::needs_uses; })
    return R::needs_uses;
  else
    return false;
}
// Whether any rule of the set asks for use counts (then the driver counts before walking).
template <class Rules, std::size_t... I>
constexpr bool any_needs_uses(std::index_sequence<I...>) {
  return (false || ... ||
          rule_needs_uses<std::remove_cvref_t<decltype(boost::hana::at_c<I>(std::declval<Rules>()))>>());
}

// Whether any rule of the set is rooted at expressions: a walk that skips rebuilding a
// statement's expressions would never offer them to such a rule.
template <class Rules, class Ctx, std::size_t... I>
constexpr bool any_expression_rule(std::index_sequence<I...>) {
  return (false || ... ||
          (family_of<std::remove_cvref_t<decltype(boost::hana::at_c<I>(std::declval<Rules>()))>, Ctx>() ==
           root_family::expr));
}

}  // namespace detail

// `Base` is the mutator the walker builds on: `ir::Mutator<Derived>`, or one that adds a type
// mapping (`ir::TypeMappingMutator<Derived>`).
template <class Derived, class Rules, class Ctx = no_context, class Base = ir::Mutator<Derived>>
class RuleWalker : public Base {
 public:
  static constexpr std::size_t size = detail::rule_count<Rules>;
  static_assert(size <= 64, "rewrite::RuleWalker: at most 64 rules in one rule set; split the pass");
  // Whether some rule must be offered expressions. A derived walker's fast path that keeps a
  // statement's expressions without visiting them exists only when this is false.
  static constexpr bool has_expression_rules =
      detail::any_expression_rule<Rules, Ctx>(std::make_index_sequence<size>{});

  // `registry`: the ops the rules build calls of (null: the rules build none).
  RuleWalker(Rules rules, Ctx& ctx, const ops::Registry* registry = nullptr)
      : rules_(std::move(rules)), ctx_(&ctx), rewriter_(registry) {
    index_rules(std::make_index_sequence<size>{});
    rewriter_.set_resolver(this, [](void* walker, const ir::Expr& e) {
      return static_cast<RuleWalker*>(walker)->self_().mutate_expr(e);
    });
  }
  // The rewriter points back at this walker.
  RuleWalker(const RuleWalker&) = delete;
  RuleWalker& operator=(const RuleWalker&) = delete;

  // Rewrites a statement tree / a function body (params and return types go through the
  // walker's type hooks). Counts uses first when a rule asks for them.
  ir::Stmt run(const ir::Stmt& root) {
    prepare(root);
    return this->self_().mutate_stmt(root);
  }
  ir::Function run(const ir::Function& f) {
    prepare(f->body);
    return this->self_().mutate_function(f);
  }

  // Every statement is rewritten inside a frame of the rewriter: what rules emit while its
  // expressions or itself are rewritten is spliced in front of it.
  ir::Stmt mutate_stmt(const ir::Stmt& s) {
    if (!s) return s;
    rewriter_.enter(s);
    ir::Stmt rebuilt = self_().keeps_expressions(s) ? s : this->rebuild_stmt(s);
    ir::Stmt out = self_().rewrite_stmt(rebuilt, s);
    return rewriter_.leave(std::move(out));
  }

  // The first expression rule's replacement, or null: the Mutator keeps `rebuilt` then,
  // without copying it (the common case: most expressions have no rule).
  ir::Expr replace_expr(const ir::Expr& rebuilt, const ir::Expr& /*original*/) {
    auto* call = ir::as<ir::Call>(rebuilt);
    std::uint64_t mask = exprs_.rules_for(call ? call->callee.op : ir::OpId{});
    if (!mask) return nullptr;
    ir::Expr result;
    try_rules(mask, rebuilt, call, result, std::make_index_sequence<size>{});
    return result;
  }

  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& /*original*/) {
    const ir::Call* call = ir::stmt_call(rebuilt);
    std::uint64_t mask = stmts_.rules_for(call ? call->callee.op : ir::OpId{});
    if (!mask) return rebuilt;
    rewriter_.set_current(rebuilt);
    ir::Stmt result;
    try_rules(mask, rebuilt, call, result, std::make_index_sequence<size>{});
    if (!result) return rebuilt;
    rewriter_.replaced();
    return result;
  }

  // Whether `s` may be offered to the statement rules as it is, its expressions unvisited: a
  // walker that knows they would all come back the same says so, and the walk reads one node
  // per statement instead of every node of it (on a program larger than the caches, a miss
  // each). Never, by default: a derived walker's hooks may change any expression.
  [[nodiscard]] bool keeps_expressions(const ir::Stmt& /*s*/) const noexcept { return false; }

  [[nodiscard]] Ctx& context() const noexcept { return *ctx_; }
  [[nodiscard]] Rewriter& rewriter() noexcept { return rewriter_; }
  [[nodiscard]] const std::array<rule_counter, size>& counters() const noexcept { return counters_; }
  [[nodiscard]] std::uint64_t applied() const noexcept {
    std::uint64_t n = 0;
    for (const auto& c : counters_) n += c.applied;
    return n;
  }

  // Publishes "<rule>: tried" / "<rule>: applied" under `pass` into any statistics sink with
  // `add(std::string_view pass, std::string key, std::uint64_t value)`.
  template <class Stats>
  void report(Stats& stats, std::string_view pass) const {
    for (const auto& c : counters_) {
      stats.add(pass, std::string(c.rule) + ": tried", c.tried);
      stats.add(pass, std::string(c.rule) + ": applied", c.applied);
    }
  }

 protected:
  Derived& self_() noexcept { return static_cast<Derived&>(*this); }

  // Whether every expression of `s` would come back as itself: no expression rule is in the
  // set (decided at compile time from the rules' roots, so a rule added later is never
  // skipped), no Var has been substituted, re-minted or rebound yet, and `s` holds no nested
  // statement. A walker whose own hooks change nothing else may then skip them
  // (keeps_expressions).
  [[nodiscard]] bool expressions_map_to_themselves(const ir::Stmt& s) const noexcept {
    if constexpr (has_expression_rules) return false;
    else return !this->has_substitutions() && ir::is_leaf_stmt(s);
  }

 private:
  static constexpr bool needs_uses_ = detail::any_needs_uses<Rules>(std::make_index_sequence<size>{});

  void prepare(const ir::Stmt& root) {
    if constexpr (needs_uses_) uses_ = count_uses(root);
  }

  template <std::size_t... I>
  void index_rules(std::index_sequence<I...>) {
    (index_rule<I>(), ...);
  }
  template <std::size_t I>
  void index_rule() {
    const auto& r = boost::hana::at_c<I>(rules_);
    using R = std::remove_cvref_t<decltype(r)>;
    counters_[I].rule = detail::name_of_rule(r);
    detail::dispatch_table& table =
        detail::family_of<R, Ctx>() == detail::root_family::stmt ? stmts_ : exprs_;
    using Roots = detail::roots_of<R>;
    constexpr std::uint64_t bit = std::uint64_t{1} << I;
    if constexpr (std::is_same_v<Roots, any_node_root>) {
      table.any_node |= bit;
    } else if constexpr (std::is_same_v<Roots, any_op_set>) {
      table.any_call |= bit;
    } else {
      for (ir::OpId op : Roots::ids()) {
        if (table.by_op.size() <= op.value) table.by_op.resize(op.value + 1, 0);
        table.by_op[op.value] |= bit;
      }
    }
  }

  template <class Node, std::size_t... I>
  void try_rules(std::uint64_t mask, const Node& node, const ir::Call* call, Node& result,
                 std::index_sequence<I...>) {
    // Left to right, stopping at the first rule that produced a replacement.
    (void)((((mask >> I) & 1) && try_rule<I>(node, call, result)) || ...);
  }

  template <std::size_t I, class Node>
  bool try_rule(const Node& node, const ir::Call* call, Node& result) {
    const auto& r = boost::hana::at_c<I>(rules_);
    using R = std::remove_cvref_t<decltype(r)>;
    constexpr bool on_stmt = detail::family_of<R, Ctx>() == detail::root_family::stmt;
    if constexpr (on_stmt != std::is_same_v<Node, ir::Stmt>) {
      return false;  // never set in this family's table
    } else {
      ++counters_[I].tried;
      const Rewriter::Checkpoint before = rewriter_.attempt();
      if constexpr (requires { r.try_apply(*ctx_, rewriter_, node, &uses_); })
        result = r.try_apply(*ctx_, rewriter_, node, needs_uses_ ? &uses_ : nullptr);
      else if constexpr (AnyStmtRule<R, Ctx>)
        result = r.apply(*ctx_, rewriter_, node);
      else
        result = r.apply(*ctx_, rewriter_, node, *call);
      if (!result) {
        rewriter_.rollback(before);  // a declining rule leaves nothing behind
        return false;
      }
      // Later uses of a rebound Var read its new value.
      rewriter_.drain_rebinds([&](const ir::Expr& from, ir::Expr to) { this->substitute(from, std::move(to)); });
      ++counters_[I].applied;
      return true;
    }
  }

  Rules rules_;
  Ctx* ctx_;
  Rewriter rewriter_;
  detail::dispatch_table exprs_;
  detail::dispatch_table stmts_;
  std::array<rule_counter, size> counters_{};
  use_count_table uses_;
};

// The plain driver: rules and nothing else. With no hook of its own and no expression rule, a
// statement without nested statements keeps its expressions until some Var is substituted (a
// rule's rebind): until then each maps to itself, so they are not visited.
template <class Rules, class Ctx = no_context>
class PostOrderRewriter final : public RuleWalker<PostOrderRewriter<Rules, Ctx>, Rules, Ctx> {
  using Base = RuleWalker<PostOrderRewriter<Rules, Ctx>, Rules, Ctx>;

 public:
  using Base::Base;

  [[nodiscard]] bool keeps_expressions(const ir::Stmt& s) const noexcept {
    return this->expressions_map_to_themselves(s);
  }
};

template <class Node>
struct rewrite_result {
  Node node;                           // the same object as the input when nothing applied
  std::vector<rule_counter> counters;  // per rule, summed over sweeps
  std::size_t sweeps = 0;
  bool converged = true;               // false: the step budget ran out first

  template <class Stats>
  void report(Stats& stats, std::string_view pass) const {
    for (const auto& c : counters) {
      stats.add(pass, std::string(c.rule) + ": tried", c.tried);
      stats.add(pass, std::string(c.rule) + ": applied", c.applied);
    }
  }
};

namespace detail {
template <class Node, class Rules, class Ctx>
std::size_t sweep(const Rules& rules, Ctx& ctx, const ops::Registry* registry, Node& node,
                  std::vector<rule_counter>& totals) {
  PostOrderRewriter<Rules, Ctx> walker(rules, ctx, registry);
  node = walker.run(node);
  if (totals.empty()) totals.assign(walker.counters().begin(), walker.counters().end());
  else
    for (std::size_t i = 0; i < totals.size(); ++i) {
      totals[i].tried += walker.counters()[i].tried;
      totals[i].applied += walker.counters()[i].applied;
    }
  return walker.applied();
}

template <class Node, class Rules, class Ctx>
rewrite_result<Node> fixpoint(const Rules& rules, const Node& input, std::uint64_t max_rewrites,
                              const ops::Registry* registry, Ctx& ctx) {
  rewrite_result<Node> out{input, {}, 0, false};
  std::uint64_t spent = 0;
  while (spent <= max_rewrites) {
    ++out.sweeps;
    std::size_t applied = sweep(rules, ctx, registry, out.node, out.counters);
    if (applied == 0) {
      out.converged = true;
      break;
    }
    spent += applied;
  }
  return out;
}
}  // namespace detail

template <class T>
concept rule_context = !std::is_same_v<std::remove_cvref_t<T>, ops::Registry>;

// One bottom-up sweep: each node is offered to its rules once, after its children. Rules
// that build calls build them through `registry`.
template <class Node, class Rules, class Ctx = no_context>
  requires std::same_as<Node, ir::Stmt> || std::same_as<Node, ir::Function>
rewrite_result<Node> rewrite_post_order(const Rules& rules, const Node& input, const ops::Registry& registry,
                                        Ctx&& ctx = {}) {
  rewrite_result<Node> out{input, {}, 1, true};
  detail::sweep(rules, ctx, &registry, out.node, out.counters);
  return out;
}
// The same for rules that build no call.
template <class Node, class Rules, rule_context Ctx = no_context>
  requires std::same_as<Node, ir::Stmt> || std::same_as<Node, ir::Function>
rewrite_result<Node> rewrite_post_order(const Rules& rules, const Node& input, Ctx&& ctx = {}) {
  rewrite_result<Node> out{input, {}, 1, true};
  detail::sweep(rules, ctx, nullptr, out.node, out.counters);
  return out;
}

// Sweeps until one changes nothing, or until `max_rewrites` rewrites were spent (a rule set
// that rewrites back and forth would otherwise never stop): then `converged` is false and
// the node is the last complete sweep's result.
template <class Node, class Rules, class Ctx = no_context>
  requires std::same_as<Node, ir::Stmt> || std::same_as<Node, ir::Function>
rewrite_result<Node> rewrite_to_fixpoint(const Rules& rules, const Node& input, std::uint64_t max_rewrites,
                                         const ops::Registry& registry, Ctx&& ctx = {}) {
  return detail::fixpoint(rules, input, max_rewrites, &registry, ctx);
}
template <class Node, class Rules, rule_context Ctx = no_context>
  requires std::same_as<Node, ir::Stmt> || std::same_as<Node, ir::Function>
rewrite_result<Node> rewrite_to_fixpoint(const Rules& rules, const Node& input, std::uint64_t max_rewrites,
                                         Ctx&& ctx = {}) {
  return detail::fixpoint(rules, input, max_rewrites, nullptr, ctx);
}

}  // namespace tilewright::rewrite
