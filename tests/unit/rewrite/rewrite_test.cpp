// The rules framework: patterns, rules, rule sets, drivers (issue 4).
#include <doctest/doctest.h>

#include "ops/ops_test_util.hpp"
#include "tilewright/pass/pass.hpp"
#include "tilewright/rewrite/rewrite.hpp"
#include "ir_test_util.hpp"

using namespace ops_test;
using namespace tilewright::rewrite;
using namespace tilewright::rewrite::placeholders;

namespace {

ir::Expr f32(double v) { return ir::make_float(v, DataType::FP32); }
ir::Stmt let(const ir::Expr& var, const ir::Expr& value) { return ir::make_stmt(ir::Assign{var, value}); }
using ir_test::var_for;

constexpr auto muls_by_one = rule("fold-muls-by-one", call<"tile.muls">(_x, const_float(1.0)), _x);

}  // namespace

TEST_CASE("rewrite: call patterns bind operands and compare op ids") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto m = call("tile.muls", {t, f32(1.0)});
  bindings b;
  CHECK(call<"tile.muls">(_x, const_float(1.0)).match(m, b));
  CHECK(b[0] == t);
  bindings b2;
  CHECK_FALSE(call<"tile.muls">(_x, const_float(2.0)).match(m, b2));
  bindings b3;
  CHECK_FALSE(call<"tile.adds">(_x, _).match(m, b3));
  bindings b4;
  CHECK(call(ops_of<"tile.adds", "tile.muls">, _, _).match(m, b4));
  bindings b5;
  CHECK_FALSE(call<"tile.muls">(_x).match(m, b5));  // arity is part of the pattern
}

TEST_CASE("rewrite: a binder used twice must see the same node") {
  auto a = tile("a", {16, 32}, DataType::FP32);
  auto b = tile("b", {16, 32}, DataType::FP32);
  bindings same_b;
  CHECK(call<"tile.add">(_x, _x).match(call("tile.add", {a, a}), same_b));
  bindings diff_b;
  CHECK_FALSE(call<"tile.add">(_x, _x).match(call("tile.add", {a, b}), diff_b));
}

TEST_CASE("rewrite: combinators") {
  auto t3 = tile("t3", {2, 16, 32}, DataType::FP32);
  auto t2 = tile("t2", {16, 32}, DataType::FP32);
  auto is3 = all_of(_x, tile_of_rank(3));
  bindings b;
  CHECK(is3.match(t3, b));
  bindings b2;
  CHECK_FALSE(is3.match(t2, b2));
  bindings b3;
  CHECK(not_(tile_of_rank(3)).match(t2, b3));
  CHECK_FALSE(b3.bound(0));

  // A failed alternative leaves no binding behind.
  auto alt = any_of(call<"tile.exp">(_y), _x);
  bindings b4;
  CHECK(alt.match(t2, b4));
  CHECK_FALSE(b4.bound(1));
  CHECK(b4.bound(0));
  static_assert(decltype(alt)::binds == 0, "only binders every alternative captures count");
  static_assert(decltype(call<"tile.add">(_x, _y))::binds == 3);

  auto wide = where(_x, [](const ir::Expr& e) { return ir::tile_type(e) && ir::tile_type(e)->shape.size() > 2; });
  bindings b5;
  CHECK(wide.match(t3, b5));
  bindings b6;
  CHECK_FALSE(wide.match(t2, b6));
}

TEST_CASE("rewrite: post-order driver rewrites and counts; nothing applied returns the same nodes") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto m = call("tile.muls", {t, f32(1.0)});
  auto y = var_for("y", m);
  auto e = call("tile.exp", {t});
  auto z = var_for("z", e);
  auto body = ir::make_seq({let(y, m), let(z, e)});

  auto rules = rule_set(muls_by_one);
  auto out = rewrite_post_order(rules, body);
  auto* seq = ir::as<ir::Seq>(out.node);
  REQUIRE(seq);
  CHECK(ir::as<ir::Assign>(seq->stmts[0])->value == t);
  CHECK(seq->stmts[1] == body_stmts(body)[1]);  // untouched statement: same object
  REQUIRE(out.counters.size() == 1);
  CHECK(out.counters[0].applied == 1);
  // Dispatch by op: only the tile.muls call was offered to the rule, not tile.exp or the Vars.
  CHECK(out.counters[0].tried == 1);

  auto untouched = ir::make_seq({let(z, e)});
  auto same = rewrite_post_order(rules, untouched);
  CHECK(same.node == untouched);
  CHECK(same.counters[0].applied == 0);

  pass::Statistics stats;
  out.report(stats, "Demo");
  CHECK(stats.get("Demo.fold-muls-by-one: applied") == 1);
}

TEST_CASE("rewrite: rule sets are ordered by benefit, ties in the order written") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto m = call("tile.muls", {t, f32(1.0)});
  auto other = tile("o", {16, 32}, DataType::FP32);
  auto to_other = rule("to-other", call<"tile.muls">(_x, _), with<_x>([other](const ir::Expr&) { return other; }));
  auto y = var_for("y", m);
  auto body = ir::make_seq({let(y, m)});

  auto first_wins = rewrite_post_order(rule_set(muls_by_one, to_other), body);
  CHECK(ir::as<ir::Assign>(body_stmts(first_wins.node)[0])->value == t);
  auto boosted = rewrite_post_order(rule_set(muls_by_one, with_benefit<5>(to_other)), body);
  CHECK(ir::as<ir::Assign>(body_stmts(boosted.node)[0])->value == other);
  CHECK(boosted.counters[0].rule == "to-other");

  auto merged = concat(rule_set(muls_by_one), rule_set(with_benefit<3>(to_other)));
  static_assert(decltype(boost::hana::length(merged))::value == 2);
  CHECK(boost::hana::at_c<0>(merged).name == "to-other");
}

TEST_CASE("rewrite: guards, statement patterns and declining replacements") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto e = call("tile.exp", {t});
  auto y = var_for("y", e);
  auto body = ir::make_seq({let(y, e)});

  int guard_calls = 0;
  auto guarded = rule("exp-to-src", assign(_y, call<"tile.exp">(_x)),
                      when<_x>([&](const ir::Expr& x) { ++guard_calls; return x == t; }), assign(_y, _x));
  auto out = rewrite_post_order(rule_set(guarded), body);
  CHECK(guard_calls == 1);
  CHECK(ir::as<ir::Assign>(body_stmts(out.node)[0])->value == t);

  auto declines = rule("declines", call<"tile.exp">(_x), with<_x>([](const ir::Expr&) { return ir::Expr{}; }));
  auto none = rewrite_post_order(rule_set(declines), body);
  CHECK(none.node == body);
  CHECK(none.counters[0].tried == 1);
  CHECK(none.counters[0].applied == 0);
}

TEST_CASE("rewrite: one_use consults the use counts the driver computes") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto m = call("tile.muls", {t, f32(1.0)});
  auto y = var_for("y", m);
  auto e1 = call("tile.exp", {y});
  auto z1 = var_for("z1", e1);
  auto fold_single = rule("exp-of-single-use", call<"tile.exp">(one_use(_x)), _x);

  auto single = rewrite_post_order(rule_set(fold_single), ir::make_seq({let(y, m), let(z1, e1)}));
  CHECK(single.counters[0].applied == 1);

  auto e2 = call("tile.exp", {y});
  auto z2 = var_for("z2", e2);
  auto twice = rewrite_post_order(rule_set(fold_single), ir::make_seq({let(y, m), let(z1, e1), let(z2, e2)}));
  CHECK(twice.counters[0].applied == 0);
}

namespace {
// A hand-written rule: what a context-heavy pass writes.
struct CountingCtx {
  int seen = 0;
};
struct RenameExp {
  static constexpr std::string_view name = "rename-exp";
  static constexpr auto roots = ops_of<"tile.exp">;
  ir::Stmt apply(CountingCtx& ctx, Rewriter&, const ir::Stmt& stmt, const ir::Call& call) const {
    ++ctx.seen;
    auto* a = ir::as<ir::Assign>(stmt);
    if (!a) return nullptr;
    return ir::make_stmt(ir::Assign{a->var, call.args[0]}, stmt->span);
  }
};
}  // namespace

TEST_CASE("rewrite: hand-written call-statement rules share the driver") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto e = call("tile.exp", {t});
  auto y = var_for("y", e);
  auto m = call("tile.muls", {t, f32(1.0)});
  auto z = var_for("z", m);
  CountingCtx ctx;
  auto out = rewrite_post_order(rule_set(RenameExp{}, muls_by_one), ir::make_seq({let(y, e), let(z, m)}), ctx);
  CHECK(ctx.seen == 1);
  CHECK(out.counters[0].applied == 1);
  CHECK(out.counters[1].applied == 1);
}

TEST_CASE("rewrite: fixpoint driver repeats sweeps and stops at the budget") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto m1 = call("tile.muls", {t, f32(1.0)});
  auto m2 = call("tile.muls", {m1, f32(1.0)});
  auto y = var_for("y", m2);
  auto body = ir::make_seq({let(y, m2)});
  // Post-order reaches the inner call first, so one sweep folds both and a second confirms.
  auto fixed = rewrite_to_fixpoint(rule_set(muls_by_one), body, 100);
  CHECK(fixed.converged);
  CHECK(fixed.sweeps == 2);
  CHECK(ir::as<ir::Assign>(body_stmts(fixed.node)[0])->value == t);

  // Two rules undoing each other never converge: the budget stops them.
  auto a = tile("a", {16, 32}, DataType::FP32);
  auto b = tile("b", {16, 32}, DataType::FP32);
  auto ea = call("tile.exp", {a});
  auto flip = rule("flip", call<"tile.exp">(_x), with<_x>([a, b](const ir::Expr& x) {
                     return ops::create_call(ops::builtin_registry(), "tile.exp", {x == a ? b : a}, {}, {});
                   }));
  auto w = var_for("w", ea);
  auto endless = rewrite_to_fixpoint(rule_set(flip), ir::make_seq({let(w, ea)}), 10);
  CHECK_FALSE(endless.converged);
  CHECK(endless.counters[0].applied >= 10);
}

namespace {
// A statement of `t` exp'd into a fresh Var named `name`, with `comments` above it.
ir::Stmt exp_stmt(const ir::Expr& t, std::string name, std::vector<std::string> comments = {}) {
  auto e = call("tile.exp", {t});
  ir::StmtNode s = *let(var_for(name.c_str(), e), e);
  s.comments.lines = std::move(comments);
  return ir::make_stmt(std::move(s));
}
std::vector<std::string> names_of(const std::vector<ir::Stmt>& stmts) {
  std::vector<std::string> out;
  for (const auto& s : stmts) out.emplace_back(ir::name_hint(ir::as<ir::Assign>(s)->var));
  return out;
}
}  // namespace

TEST_CASE("rewrite: leave_into hands over, one by one, the statements leave returns as a list") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  const ir::Stmt original = exp_stmt(t, "y", {"# above y"});
  using Names = std::vector<std::string>;
  // What a rule did to `original`: `emitted` before it, and `result` left in its place.
  auto both_ways = [&](const std::vector<ir::Stmt>& emitted, const ir::Stmt& result) {
    Rewriter rw;
    std::vector<ir::Stmt> handed;
    rw.enter(original);
    for (const auto& s : emitted) rw.emit(s);
    rw.replaced();
    rw.leave_into(result, [&](ir::Stmt s) { handed.push_back(std::move(s)); });
    Rewriter again;
    again.enter(original);
    for (const auto& s : emitted) again.emit(s);
    again.replaced();
    const ir::Stmt left = again.leave(result);
    const std::vector<ir::Stmt> listed = ir::body_stmts(left);
    REQUIRE(handed.size() == listed.size());
    for (std::size_t i = 0; i < handed.size(); ++i) {
      CHECK(ir::structural_equal(handed[i], listed[i]));
      CHECK(handed[i]->comments.lines == listed[i]->comments.lines);
    }
    return handed;
  };
  SUBCASE("emitted statements first; the original's comments move to the first, others lose theirs") {
    auto handed = both_ways({exp_stmt(t, "a"), exp_stmt(t, "b", {"# stray"})}, exp_stmt(t, "y", {"# above y"}));
    CHECK(names_of(handed) == Names{"a", "b", "y"});
    CHECK(handed[0]->comments.lines == std::vector<std::string>{"# above y"});
    CHECK(handed[1]->comments.lines.empty());
    CHECK(handed[2]->comments.lines.empty());
  }
  SUBCASE("a result that is a list without comments is spliced, statement by statement") {
    auto handed = both_ways({exp_stmt(t, "a")}, ir::make_seq({exp_stmt(t, "c"), exp_stmt(t, "d")}));
    CHECK(names_of(handed) == Names{"a", "c", "d"});
  }
  SUBCASE("erased: only what was emitted") {
    auto handed = both_ways({exp_stmt(t, "a")}, ir::make_seq({}));
    CHECK(names_of(handed) == Names{"a"});
  }
  SUBCASE("nothing emitted, nothing replaced: the statement itself, once, comments kept") {
    Rewriter rw;
    std::vector<ir::Stmt> handed;
    rw.enter(original);
    rw.leave_into(original, [&](ir::Stmt s) { handed.push_back(std::move(s)); });
    REQUIRE(handed.size() == 1);
    CHECK(handed[0] == original);
  }
}
