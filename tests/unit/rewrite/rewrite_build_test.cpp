// The rules machinery of issue 12: constructing replacements, compile-time bound-ness,
// commutative variants, the one Rewriter every rule receives, op families on ids, and the
// memoised type-mapping mutator.
#include <doctest/doctest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ops/ops_test_util.hpp"
#include "tilewright/ir/type_map.hpp"
#include "tilewright/pass/pass.hpp"
#include "tilewright/rewrite/rewrite.hpp"
#include "ir_test_util.hpp"

namespace rw = tilewright::rewrite;
using namespace ops_test;
using rw::placeholders::_;
using rw::placeholders::_c;
using rw::placeholders::_t;
using rw::placeholders::_x;
using rw::placeholders::_y;
using rw::placeholders::etc;

namespace {

ir::Span at_line(int line) { return ir::Span{std::make_shared<const std::string>("rules.pto"), line, 5}; }
ir::Stmt let_stmt(const ir::Expr& var, const ir::Expr& value, int line = -1) {
  return ir::make_stmt(ir::Assign{var, value}, line > 0 ? at_line(line) : ir::Span{});
}
using ir_test::var_for;
const ir::Call& call_of(const ir::Stmt& s) { return *ir::stmt_call(s); }
const ops::Registry& builtin() { return ops::builtin_registry(); }

// Constructing replacements used below.
constexpr auto exp_to_double = rw::rule("exp-to-double", rw::call<"tile.exp">(_x), rw::call<"tile.muls">(_x, rw::const_float(2.0)));

}  // namespace

// ---- compile-time bound-ness -------------------------------------------------------------------

// Which binders a pattern captures is a type-level fact; so is the set bound to the left of
// each operand, which turns a repeated binder into a comparison.
static_assert(decltype(rw::call<"tile.add">(_x, _y))::binds == 0b11);
static_assert(decltype(rw::bind(_c, rw::call<"tile.exp">(_x)))::binds == (rw::bit_of(7) | 1u));
static_assert(decltype(rw::any_of(rw::call<"tile.exp">(_x), rw::call<"tile.neg">(_x, _y)))::binds == 1u);
static_assert(decltype(rw::seq(rw::let(_t, "t", rw::call<"tile.exp">(_x)), rw::assign(_y, _t)))::reads == 0b11,
              "a seq reads what its parts read, minus what its lets define");

TEST_CASE("rules: a repeated binder compares nodes; the first occurrence stores") {
  auto a = tile("a", {16, 32}, DataType::FP32);
  auto b = tile("b", {16, 32}, DataType::FP32);
  rw::bindings same;
  CHECK(rw::call<"tile.add">(_x, _x).match(call("tile.add", {a, a}), same));
  rw::bindings differ;
  CHECK_FALSE(rw::call<"tile.add">(_x, _x).match(call("tile.add", {a, b}), differ));
  // Matched with _x already bound to `a` (Bound = _x): only a call reading `a` matches.
  rw::bindings pre;
  pre.set(0, a);
  CHECK(rw::call<"tile.exp">(_x).match<rw::bit_of(0)>(call("tile.exp", {a}), pre));
  CHECK_FALSE(rw::call<"tile.exp">(_x).match<rw::bit_of(0)>(call("tile.exp", {b}), pre));
}

TEST_CASE("rules: commutative variants try the written order, then the swapped one") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto u = tile("u", {16, 32}, DataType::FP32);
  auto e = call("tile.exp", {t});
  auto pattern = rw::commutative(rw::call<"tile.add">(rw::call<"tile.exp">(_x), _y));
  // Bindings point into the IR matched: it must outlive them.
  const ir::Expr in_order = call("tile.add", {e, u}), reversed = call("tile.add", {u, e}), no_exp = call("tile.add", {u, u});
  rw::bindings written;
  CHECK(pattern.match(in_order, written));
  CHECK(written[0] == t);
  CHECK(written[1] == u);
  rw::bindings swapped;
  CHECK(pattern.match(reversed, swapped));
  CHECK(swapped[0] == t);
  CHECK(swapped[1] == u);
  rw::bindings neither;
  CHECK_FALSE(pattern.match(no_exp, neither));
  CHECK_FALSE(neither.bound(0));  // what the failed first try bound is forgotten

  // Scalar binary ops too.
  auto n = sym("n");
  auto two = I(2);
  auto times = ir::make_expr(ir::Binary{ir::BinaryOp::Mul, two, n}, ir::scalar_type(DataType::INDEX));
  rw::bindings scalar;
  CHECK(rw::commutative(rw::binary<ir::BinaryOp::Mul>(_x, rw::const_int(2))).match(times, scalar));
  CHECK(scalar[0] == n);
  rw::bindings plain;
  CHECK_FALSE(rw::binary<ir::BinaryOp::Mul>(_x, rw::const_int(2)).match(times, plain));
}

TEST_CASE("rules: tuples, rest operands and bind") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto shape = tup({2, 3, 4});
  auto c = call("tile.create", {shape}, {{"dtype", DataType::FP32}});
  rw::bindings b;
  CHECK(rw::bind(_c, rw::call<"tile.create">(rw::bind(_x, rw::tuple(etc)), etc)).match(c, b));
  CHECK(b[7] == c);
  CHECK(b[0] == shape);
  rw::bindings exact;
  CHECK(rw::call<"tile.create">(rw::tuple(rw::const_int(2), _, rw::const_int(4))).match(c, exact));
  rw::bindings wrong_rank;
  CHECK_FALSE(rw::call<"tile.create">(rw::tuple(_, _)).match(c, wrong_rank));
  rw::bindings not_a_tuple;
  CHECK_FALSE(rw::call<"tile.exp">(rw::tuple(etc)).match(call("tile.exp", {t}), not_a_tuple));
}

// ---- constructing replacements --------------------------------------------------------------

TEST_CASE("rules: call<op>(…) on the right builds through the registry, typed and spanned at the match") {
  auto t = tile("t", {16, 32}, DataType::FP16);
  auto e = ir::make_call(ir::intern_op("tile.exp"), {t}, {}, t->type, at_line(7));
  auto y = var_for("y", e);
  auto body = ir::make_seq({let_stmt(y, e, 7)});
  auto out = rw::rewrite_post_order(rw::rule_set(exp_to_double), body, builtin());
  REQUIRE(out.counters[0].applied == 1);
  const ir::Expr& value = ir::as<ir::Assign>(ir::body_stmts(out.node)[0])->value;
  const ir::Call& muls = *ir::as<ir::Call>(value);
  CHECK(ir::op_name(muls.callee.op) == "tile.muls");
  CHECK(muls.args[0] == t);
  CHECK(ir::as<ir::ConstFloat>(muls.args[1])->value == 2.0);
  CHECK(same(value->type, t->type));  // deduced by tile.muls's row
  CHECK(value->span.line == 7);       // FL-48: the matched call's span
  CHECK(muls.args[1]->span.line == 7);
}

TEST_CASE("rules: a constructing rule run without a registry says how to give it one") {
  auto t = tile("t", {16, 32}, DataType::FP16);
  auto e = call("tile.exp", {t});
  auto body = ir::make_seq({let_stmt(var_for("y", e), e)});
  CHECK(error_of([&] { (void)rw::rewrite_post_order(rw::rule_set(exp_to_double), body); })
            .find("pass the PassContext's registry") != std::string::npos);
}

TEST_CASE("rules: kwargs, shape_of and computed parts") {
  auto t = tile("t", {16, 32}, DataType::FP16);
  auto e = call("tile.exp", {t});
  auto y = var_for("y", e);
  int computed_calls = 0;
  auto zeros_like = rw::rule(
      "exp-to-create", rw::assign(_y, rw::call<"tile.exp">(_x)),
      rw::assign(_y, rw::call<"tile.create">(rw::shape_of(_x),
                                             rw::kw<"dtype">(rw::computed([&](const auto& m) {
                                               ++computed_calls;
                                               return ir::tile_type(m[_x])->dtype;
                                             })),
                                             rw::kw<"target_memory">(ir::MemorySpace::Vec))));
  auto out = rw::rewrite_post_order(rw::rule_set(zeros_like), ir::make_seq({let_stmt(y, e)}), builtin());
  CHECK(computed_calls == 1);
  const ir::Stmt s = ir::body_stmts(out.node)[0];
  CHECK(ir::as<ir::Assign>(s)->var == y);  // assign(_y, …) keeps the Var
  const ir::Call& c = call_of(s);
  CHECK(ir::op_name(c.callee.op) == "tile.create");
  CHECK(ints(ir::as<ir::MakeTuple>(c.args[0])->elements) == V{16, 32});
  CHECK(*ir::kwarg_as<DataType>(c.kwargs, "dtype") == DataType::FP16);
  CHECK(*ir::kwarg_as<MemorySpace>(c.kwargs, "target_memory") == MemorySpace::Vec);
}

TEST_CASE("rules: recreate(_c, …) rebuilds the matched call with operands changed, kwargs and attrs kept") {
  auto t = tile("t", {2, 8}, DataType::FP32);
  auto r = ir::make_call(ir::intern_op("tile.reshape"), {t, tup({16})}, {}, ir::make_tile_type(dims({16}), DataType::FP32, {}, MemorySpace::Vec),
                         {}, {{"note", std::string("kept")}});
  auto y = var_for("y", r);
  auto z = var_for("z", call("tile.exp", {y}));
  auto body = ir::make_seq({let_stmt(y, r), let_stmt(z, call("tile.exp", {y}))});
  auto to_4x4 = rw::rule("reshape-4x4", rw::stmt_of(rw::bind(_c, rw::call<"tile.reshape">(_x, _))),
                         rw::replace(rw::recreate(_c, rw::arg<1>(rw::tuple(rw::const_int(4), rw::const_int(4))))));
  auto out = rw::rewrite_post_order(rw::rule_set(to_4x4), body, builtin());
  auto stmts = ir::body_stmts(out.node);
  const ir::Call& c = call_of(stmts[0]);
  CHECK(ints(ir::as<ir::MakeTuple>(c.args[1])->elements) == V{4, 4});
  CHECK(std::get<std::string>(*ir::find_kwarg(c.attrs, "note")) == "kept");
  // replace() re-typed the Var, and the later reader follows the rebind.
  const ir::Expr& y2 = ir::as<ir::Assign>(stmts[0])->var;
  CHECK(y2 != y);
  CHECK(ir::name_hint(y2) == "y");
  CHECK(shape_of(y2) == V{4, 4});
  CHECK(call_of(stmts[1]).args[0] == y2);
}

TEST_CASE("rules: seq(let(…), …) emits before the matched statement and binds the new Var") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto e = ir::make_call(ir::intern_op("tile.exp"), {t}, {}, t->type, at_line(3));
  auto y = var_for("y", e);
  auto original = let_stmt(y, e, 3);
  ir::StmtNode commented = *original;
  commented.comments.lines = {"# scale first"};
  auto body = ir::make_seq({ir::make_stmt(commented)});
  auto scale_first = rw::rule("scale-then-exp", rw::assign(_y, rw::call<"tile.exp">(_x)),
                              rw::seq(rw::let(_t, "scaled", rw::call<"tile.muls">(_x, rw::const_float(0.5))),
                                      rw::assign(_y, rw::call<"tile.exp">(_t))));
  auto out = rw::rewrite_post_order(rw::rule_set(scale_first), body, builtin());
  auto stmts = ir::body_stmts(out.node);
  REQUIRE(stmts.size() == 2);
  auto* scaled = ir::as<ir::Assign>(stmts[0]);
  CHECK(ir::name_hint(scaled->var) == "scaled");
  CHECK(call_of(stmts[0]).args[0] == t);
  CHECK(call_of(stmts[1]).args[0] == scaled->var);
  CHECK(ir::as<ir::Assign>(stmts[1])->var == y);
  // Statements take the statement's span, the new Var the call's (FL-48); the comment stays on top.
  CHECK(stmts[0]->span.line == 3);
  CHECK(scaled->var->span.line == 3);
  CHECK(stmts[0]->comments.lines == std::vector<std::string>{"# scale first"});
  CHECK(stmts[1]->comments.lines.empty());
}

TEST_CASE("rules: guards read the match through m[_x] and the pass's context") {
  struct Limits {
    std::size_t max_rank = 2;
    int asked = 0;
  };
  auto small = tile("s", {16, 32}, DataType::FP32);
  auto big = tile("b", {2, 16, 32}, DataType::FP32);
  auto es = call("tile.exp", {small});
  auto eb = call("tile.exp", {big});
  auto body = ir::make_seq({let_stmt(var_for("ys", es), es), let_stmt(var_for("yb", eb), eb)});
  auto only_small = rw::rule("exp-to-double-small", rw::call<"tile.exp">(_x), rw::when([](const auto& m, Limits& limits) {
                               ++limits.asked;
                               return ir::tile_type(m[_x])->shape.size() <= limits.max_rank;
                             }),
                             rw::call<"tile.muls">(_x, rw::const_float(2.0)));
  Limits limits;
  auto out = rw::rewrite_post_order(rw::rule_set(only_small), body, builtin(), limits);
  CHECK(limits.asked == 2);
  CHECK(out.counters[0].applied == 1);
  auto stmts = ir::body_stmts(out.node);
  CHECK(ir::op_name(call_of(stmts[0]).callee.op) == "tile.muls");
  CHECK(ir::op_name(call_of(stmts[1]).callee.op) == "tile.exp");
}

// ---- the Rewriter ------------------------------------------------------------------------------

namespace {
struct Log {
  std::vector<std::string> seen;
};

// Emits, then declines: what it emitted must not survive.
struct EmitsThenDeclines {
  static constexpr std::string_view name = "emits-then-declines";
  static constexpr auto roots = rw::ops_of<"tile.exp">;
  static constexpr int benefit = 2;
  ir::Stmt apply(Log& log, rw::Rewriter& r, const ir::Stmt&, const ir::Call& call) const {
    r.emit("discarded", call.args[0]);
    r.rebind(r.original_var(), call.args[0]);
    log.seen.push_back("declined");
    return nullptr;
  }
};

// Reads the original statement, replaces `y = exp(x)` by two statements and rebinds y.
struct SplitExp {
  static constexpr std::string_view name = "split-exp";
  static constexpr auto roots = rw::ops_of<"tile.exp">;
  ir::Stmt apply(Log& log, rw::Rewriter& r, const ir::Stmt& stmt, const ir::Call& call) const {
    log.seen.push_back(std::string(ir::name_hint(r.original_var())));
    CHECK(r.original_call() != nullptr);
    CHECK(r.current() == stmt);
    ir::Expr half = r.emit("half", r.call(ir::intern_op("tile.muls"), {call.args[0], ir::make_float(0.5)}));
    ir::Expr whole = r.emit("whole", r.call(call.callee.op, {half}));
    r.rebind(r.original_var(), whole);
    return r.erase();
  }
};

// A rule on an expression inside a statement: its emits go before that statement.
struct HoistNeg {
  static constexpr std::string_view name = "hoist-neg";
  static constexpr auto roots = rw::ops_of<"tile.neg">;
  ir::Expr apply(Log&, rw::Rewriter& r, const ir::Expr& e, const ir::Call&) const {
    return r.emit("hoisted", e);
  }
};
}  // namespace

TEST_CASE("rules: one Rewriter — emit, replace with several, rebind, erase, originals, rollback") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto e = call("tile.exp", {t});
  auto y = var_for("y", e);
  auto reader = call("tile.add", {y, t});
  auto z = var_for("z", reader);
  auto body = ir::make_seq({let_stmt(y, e), let_stmt(z, reader)});
  Log log;
  auto out = rw::rewrite_post_order(rw::rule_set(EmitsThenDeclines{}, SplitExp{}), body, builtin(), log);
  CHECK(log.seen == std::vector<std::string>{"declined", "y"});
  auto stmts = ir::body_stmts(out.node);
  REQUIRE(stmts.size() == 3);  // half, whole, z: the declined rule's emit is gone, y erased
  CHECK(ir::name_hint(ir::as<ir::Assign>(stmts[0])->var) == "half");
  auto* whole = ir::as<ir::Assign>(stmts[1]);
  CHECK(ir::name_hint(whole->var) == "whole");
  CHECK(call_of(stmts[2]).args[0] == whole->var);  // the rebind of the rule that succeeded
  CHECK(out.counters[0].tried == 1);
  CHECK(out.counters[0].applied == 0);
  CHECK(out.counters[1].applied == 1);
}

TEST_CASE("rules: an expression rule's emits land before the statement that holds the expression") {
  auto t = tile("t", {16, 32}, DataType::FP32);
  auto n = call("tile.neg", {t});
  auto a = call("tile.add", {n, t});
  auto y = var_for("y", a);
  Log log;
  auto out = rw::rewrite_post_order(rw::rule_set(HoistNeg{}), ir::make_seq({let_stmt(y, a)}), builtin(), log);
  auto stmts = ir::body_stmts(out.node);
  REQUIRE(stmts.size() == 2);
  auto* hoisted = ir::as<ir::Assign>(stmts[0]);
  CHECK(ir::name_hint(hoisted->var) == "hoisted");
  CHECK(call_of(stmts[1]).args[0] == hoisted->var);
}

// ---- op ids ------------------------------------------------------------------------------------

TEST_CASE("rules: op ids carry their family and the registry's traits") {
  CHECK(ir::op_family(ir::intern_op("tile.exp")) == ir::OpFamily::tile);
  CHECK(ir::op_family(ir::intern_op("tensor.view")) == ir::OpFamily::tensor);
  CHECK(ir::op_family(ir::intern_op("pld.tile.remote_load")) == ir::OpFamily::distributed);
  CHECK(ir::op_family(ir::intern_op("system.sync_set")) == ir::OpFamily::system);
  CHECK(ir::op_family(ir::OpId{}) == ir::OpFamily::none);
  (void)builtin();
  CHECK(ir::op_has(ir::intern_op("tile.create"), ir::OpTrait::no_memory_access));
  CHECK(ir::op_has(ir::intern_op("tile.move"), ir::OpTrait::inplace_unsafe));
  CHECK(ir::op_has(ir::intern_op("tile.exp"), ir::OpTrait::deduces_type));
  CHECK_FALSE(ir::op_has(ir::intern_op("tile.exp"), ir::OpTrait::no_memory_access));

  ops::Registry mine;
  ops::add(mine, ops::OpRow("mylib.family_probe", {"tile"}).in_family(ir::OpFamily::tile));
  CHECK(ir::is_tile_op(ir::intern_op("mylib.family_probe")));
  CHECK(ir::op_family(ir::intern_op("mylib.unregistered_probe")) == ir::OpFamily::other);
}

TEST_CASE("rules: op_name is read without a lock while other threads intern") {
  const ir::OpId exp = ir::intern_op("tile.exp");
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::thread reader([&] {
    while (!stop.load())
      if (ir::op_name(exp) != "tile.exp" || !ir::is_tile_op(exp)) ++wrong;
  });
  std::vector<ir::OpId> ids;
  for (int i = 0; i < 2000; ++i) ids.push_back(ir::intern_op("probe.concurrent_" + std::to_string(i)));
  stop = true;
  reader.join();
  CHECK(wrong.load() == 0);
  for (int i = 0; i < 2000; ++i) CHECK(ir::op_name(ids[i]) == "probe.concurrent_" + std::to_string(i));
  CHECK(ir::intern_op("probe.concurrent_7") == ids[7]);
}

// ---- the type-mapping mutator ------------------------------------------------------------------

namespace {
// Widens FP16 tiles to FP32, counting how often it is asked.
struct Widen : ir::TypeMappingMutator<Widen> {
  int asked = 0;
  ir::Type map_type(const ir::Type& t) {
    ++asked;
    ir::Type inner = TypeMappingMutator::map_type(t);
    auto* tile = ir::as<ir::TileType>(inner);
    if (!tile || tile->dtype != DataType::FP16) return inner;
    return ir::make_tile_type(tile->shape, DataType::FP32, tile->view, tile->memory, tile->memref);
  }
};
}  // namespace

TEST_CASE("rules: the type map runs once per distinct type node, and is the identity when nothing maps") {
  auto half = ir::make_tile_type(dims({16, 32}), DataType::FP16, {}, MemorySpace::Vec);
  auto a = ir::make_var("a", half);
  auto b = ir::make_var("b", half);
  auto e1 = ir::make_call(ir::intern_op("tile.add"), {a, b}, {}, half);
  auto y = ir::make_var("y", half);
  auto body = ir::make_seq({let_stmt(y, e1)});
  Widen w;
  ir::Stmt out = w.mutate_stmt(body);
  // One shared FP16 type (a, b, the call, y) plus its INDEX dims' scalar type.
  CHECK(w.asked == 2);
  CHECK(ir::tile_type(ir::as<ir::Assign>(ir::body_stmts(out)[0])->var)->dtype == DataType::FP32);

  auto full = ir::make_tile_type(dims({16, 32}), DataType::FP32, {}, MemorySpace::Vec);
  auto c = ir::make_var("c", full);
  auto untouched = ir::make_seq({let_stmt(ir::make_var("d", full), ir::make_call(ir::intern_op("tile.exp"), {c}, {}, full))});
  Widen same_walk;
  CHECK(same_walk.mutate_stmt(untouched) == untouched);
}
