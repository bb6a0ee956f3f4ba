// IR core: canonicalizing constructors, structural equality with definition mapping,
// hashing, and the copy-on-write mutator.
#include <doctest/doctest.h>

#include "tilewright/ir/index_arith.hpp"
#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/ir/type_map.hpp"
#include "tilewright/ir/type_intern.hpp"
#include "tilewright/ir/walk.hpp"
#include "ir_test_util.hpp"

using namespace tilewright::ir;

namespace {
using ir_test::dims;
Function unary_kernel(const char* op, std::int64_t rows) {
  Type t = make_tile_type(dims({rows, 4}), DataType::FP32, std::nullopt, MemorySpace::Vec);
  Expr x = make_var("x", t);
  Expr y = make_var("y", t);
  Stmt body = make_seq({make_stmt(Assign{y, make_call(intern_op(op), {x}, {}, t)}), make_stmt(Return{{y}})});
  return make_function(FunctionNode{"k", {Param{x, ParamDirection::In}}, {t}, body, FunctionType::InCore, {}, {}, {}, {}});
}
// Two dynamic dims N and M, and a [N, 16] tile type that reads N.
struct DynamicDims {
  Expr n = make_var("N", scalar_type(DataType::INDEX));
  Expr m = make_var("M", scalar_type(DataType::INDEX));
  Type tile = make_tile_type({n, make_int(16)}, DataType::FP32, std::nullopt, MemorySpace::Vec);
};
}  // namespace

TEST_CASE("TVS-07: a full valid_shape and the default tensor view canonicalize away") {
  auto t = make_tensor_type(dims({8, 16}), DataType::FP32, TensorView{dims({8, 16}), {}, TensorLayout::ND, PadValue::null});
  CHECK_FALSE(as<TensorType>(t)->view.has_value());
  auto padded = make_tensor_type(dims({8, 16}), DataType::FP32, TensorView{dims({8, 16}), {}, TensorLayout::ND, PadValue::zero});
  REQUIRE(as<TensorType>(padded)->view.has_value());
  CHECK(as<TensorType>(padded)->view->valid_shape.empty());  // full valid dropped, pad kept
  auto partial = make_tensor_type(dims({8, 16}), DataType::FP32, TensorView{dims({4, 16}), {}, TensorLayout::ND, PadValue::null});
  CHECK(as<TensorType>(partial)->view->valid_shape.size() == 2);
}

TEST_CASE("TVS-07: a tile view equal to the implicit view of its memory space is dropped") {
  // Mat's implicit layout is NZ (col_major blocks, row_major inside).
  auto nz = make_tile_type(dims({16, 16}), DataType::FP16,
                           TileView{{}, {}, nullptr, TileLayout::col_major, TileLayout::row_major, 512, PadValue::null, CompactMode::null},
                           MemorySpace::Mat);
  CHECK_FALSE(as<TileType>(nz)->view.has_value());
  // The same view on a Vec tile is not implicit there.
  auto vec = make_tile_type(dims({16, 16}), DataType::FP16,
                            TileView{{}, {}, nullptr, TileLayout::col_major, TileLayout::row_major, 512, PadValue::null, CompactMode::null},
                            MemorySpace::Vec);
  CHECK(as<TileType>(vec)->view.has_value());
  // A column vector [R, 1] is col_major by the shape rule.
  auto column = make_tile_type(dims({16, 1}), DataType::FP32,
                               TileView{{}, {}, nullptr, TileLayout::col_major, TileLayout::none_box, 512, PadValue::null, CompactMode::null});
  CHECK_FALSE(as<TileType>(column)->view.has_value());
  CHECK(effective_view(*as<TileType>(column)).blayout == TileLayout::col_major);
}

TEST_CASE("structural equality maps definitions and ignores names") {
  CHECK(structural_equal(unary_kernel("tile.exp", 6), unary_kernel("tile.exp", 6)));
  CHECK(structural_hash(unary_kernel("tile.exp", 6)) == structural_hash(unary_kernel("tile.exp", 6)));
  auto diff = structural_difference(unary_kernel("tile.exp", 6), unary_kernel("tile.neg", 6));
  REQUIRE(diff);
  CHECK(diff->find("callee tile.exp vs tile.neg") != std::string::npos);
  auto shape_diff = structural_difference(unary_kernel("tile.exp", 6), unary_kernel("tile.exp", 7));
  REQUIRE(shape_diff);
  CHECK(shape_diff->find("6 vs 7") != std::string::npos);
}

TEST_CASE("structural equality: INDEX and INT64 constants are equal, kwargs are unordered") {
  CHECK(structural_equal(make_int(3, DataType::INDEX), make_int(3, DataType::INT64)));
  CHECK_FALSE(structural_equal(make_int(3, DataType::INDEX), make_int(3, DataType::INT32)));
  Type t = scalar_type(DataType::INDEX);
  Kwargs ab{{"a", std::int64_t{1}}, {"b", true}};
  Kwargs ba{{"b", true}, {"a", std::int64_t{1}}};
  CHECK(structural_equal(make_call(intern_op("tile.x"), {}, ab, t), make_call(intern_op("tile.x"), {}, ba, t)));
}

TEST_CASE("structural equality: a use bound to a different definition is a difference") {
  Type t = scalar_type(DataType::INDEX);
  Expr a = make_var("a", t), b = make_var("b", t);
  auto f = [&](const Expr& ret) {
    return make_function(FunctionNode{"f", {Param{a, ParamDirection::In}, Param{b, ParamDirection::In}}, {t},
                                      make_stmt(Return{{ret}}), FunctionType::Opaque, {}, {}, {}, {}});
  };
  CHECK_FALSE(structural_equal(f(a), f(b)));
}

TEST_CASE("same_type: symbolic dims by the Var they name, buffers compared unless ignored") {
  Type index = scalar_type(DataType::INDEX);
  Expr n = make_var("n", index), m = make_var("m", index);
  auto tile = [](std::vector<Expr> shape, Expr memref = nullptr) {
    return make_tile_type(std::move(shape), DataType::FP32, std::nullopt, MemorySpace::Vec, std::move(memref));
  };
  // Two different dynamic dims: alpha-equivalence pairs n with m, the type equality does not.
  CHECK(structural_equal(tile({n, make_int(16)}), tile({m, make_int(16)})));
  CHECK_FALSE(same_type(tile({n, make_int(16)}), tile({m, make_int(16)})));
  auto why = type_difference(tile({n, make_int(16)}), tile({m, make_int(16)}));
  REQUIRE(why);
  CHECK(why->find("shape / [0] / variable 'n' vs 'm'") != std::string::npos);
  CHECK(same_type(tile({n, make_int(16)}), tile({n, make_int(16, DataType::INT64)})));
  CHECK(type_hash(tile({n, make_int(16)})) == type_hash(tile({n, make_int(16)})));
  CHECK(type_hash(tile({n, make_int(16)})) != type_hash(tile({m, make_int(16)})));

  // A buffer reference is an allocation detail: structural_equal and Buffers::ignored leave it
  // out, the exact equality does not; the hash follows the equality it is asked for.
  Expr base = make_var("mem_vec_0", make_type(MarkerType{Marker::Ptr}));
  auto buffer = [&](std::int64_t offset) {
    return make_expr(MemRef{base, make_int(offset), 1024, false, 1, nullptr}, make_type(MarkerType{Marker::MemRefType}));
  };
  Type at0 = tile(dims({16, 16}), buffer(0)), at512 = tile(dims({16, 16}), buffer(512));
  CHECK(structural_equal(at0, at512));
  CHECK(same_type(at0, at512, Buffers::ignored));
  CHECK(type_hash(at0, Buffers::ignored) == type_hash(at512, Buffers::ignored));
  CHECK_FALSE(same_type(at0, at512));
  CHECK(same_type(at0, tile(dims({16, 16}), buffer(0))));
  auto where = type_difference(at0, at512);
  REQUIRE(where);
  CHECK(where->find("memref / offset") != std::string::npos);
  CHECK(where->find("0 vs 512") != std::string::npos);
  CHECK_FALSE(same_type(at0, tile(dims({16, 16}))));
}

TEST_CASE("TypeInterner: one node per exactly equal type; dims by their Var, constants by dtype, buffers compared") {
  Type index = scalar_type(DataType::INDEX);
  Expr n = make_var("n", index), m = make_var("m", index);
  auto tile = [](std::vector<Expr> shape, Expr memref = nullptr) {
    return make_tile_type(std::move(shape), DataType::FP32, std::nullopt, MemorySpace::Vec, std::move(memref));
  };
  TypeInterner intern;
  Type first = intern(tile({n, make_int(16)}));
  CHECK(intern(tile({n, make_int(16)})) == first);  // equal: the first node
  CHECK(intern(tile({m, make_int(16)})) != first);  // another Var: another type
  // same_type takes INDEX and INT64 constants as one; the printer does not, so neither does
  // the interner.
  Type wide = tile({n, make_int(16, DataType::INT64)});
  CHECK(same_type(first, wide));
  CHECK(intern(wide) == wide);
  Expr base = make_var("mem_vec_0", make_type(MarkerType{Marker::Ptr}));
  auto buffer = [&](std::int64_t offset) {
    return make_expr(MemRef{base, make_int(offset), 1024, false, 1, nullptr}, make_type(MarkerType{Marker::MemRefType}));
  };
  Type at0 = intern(tile(dims({16, 16}), buffer(0)));
  CHECK(intern(tile(dims({16, 16}), buffer(512))) != at0);
  CHECK(intern(tile(dims({16, 16}), buffer(0))) == at0);
  // Tuples are interned by their elements; scalars pass through.
  Type pair = intern(make_type(TupleType{{first, at0}}));
  CHECK(intern(make_type(TupleType{{first, at0}})) == pair);
  CHECK(intern(index) == index);
  CHECK(intern.size() == 6);  // first, by m, wide, at0, at512, pair
}

TEST_CASE("structural equality: a difference in an enum field names both members") {
  auto tile = [](DataType dt) { return make_tile_type(dims({4, 4}), dt, std::nullopt, MemorySpace::Vec); };
  auto diff = structural_difference(tile(DataType::FP16), tile(DataType::FP32));
  REQUIRE(diff);
  CHECK(diff->find("dtype / FP16 vs FP32") != std::string::npos);
}

TEST_CASE("make_seq splices a list without comments, keeps one with comments, drops nulls; for_each_nested_stmt") {
  Expr x = make_var("x", scalar_type(DataType::INDEX));
  Stmt a = make_stmt(Assign{x, make_int(1)});
  Stmt b = make_stmt(Return{{x}});
  Stmt plain = make_stmt(Seq{{a, b}});
  Stmt commented = make_stmt(Seq{{a}}, {}, Comments{{"# kept"}});
  Stmt list = make_seq({plain, nullptr, commented, b});
  const auto& stmts = as<Seq>(list)->stmts;
  REQUIRE(stmts.size() == 4);
  CHECK(stmts[0] == a);
  CHECK(stmts[1] == b);
  CHECK(stmts[2] == commented);
  CHECK(stmts[3] == b);
  CHECK(splices_into_list(plain));
  CHECK_FALSE(splices_into_list(commented));
  CHECK_FALSE(splices_into_list(a));
  // The statements directly nested: a list's, a loop's body, both branches (a missing else
  // is null), none of a leaf.
  std::vector<Stmt> seen;
  auto note = [&](const Stmt& s) { seen.push_back(s); };
  for_each_nested_stmt(list, note);
  CHECK(seen == stmts);
  seen.clear();
  for_each_nested_stmt(make_stmt(If{make_bool(true), plain, nullptr, {}}), note);
  CHECK(seen == std::vector<Stmt>{plain, nullptr});
  seen.clear();
  for_each_nested_stmt(a, note);
  CHECK(seen.empty());
}

TEST_CASE("the identity mutator returns the very same nodes") {
  Function f = unary_kernel("tile.exp", 6);
  IdentityMutator m;
  CHECK(m.mutate_function(f) == f);
}

TEST_CASE("a mutator that changes a type mints one new Var used everywhere") {
  struct Widen : Mutator<Widen> {
    Type mutate_type(const Type& t) {
      if (auto* tile = as<TileType>(t)) return make_tile_type({make_int(24)}, tile->dtype, tile->view, tile->memory, tile->memref);
      return Mutator::mutate_type(t);
    }
  };
  Function f = unary_kernel("tile.exp", 6);
  Widen w;
  Function g = w.mutate_function(f);
  REQUIRE(g != f);
  const Expr& param = g->params[0].var;
  const auto& stmts = as<Seq>(g->body)->stmts;
  auto* assign = as<Assign>(stmts[0]);
  CHECK(as<Call>(assign->value)->args[0] == param);  // the use sees the same new Var
  CHECK(as<Return>(stmts[1])->values[0] == assign->var);
  CHECK(as<TileType>(param->type)->shape.size() == 1);
}

TEST_CASE("Mutator: a definition found unchanged is looked at again after a substitution it reads") {
  // x's type reads the dynamic dim N. The walk meets x unchanged and remembers it; once N is
  // substituted, a later use of x must see the new type, as one re-minted Var for every use.
  struct Walk : Mutator<Walk> {};
  const DynamicDims dims_nm;
  const Expr &n = dims_nm.n, &m = dims_nm.m;
  Expr x = make_var("x", dims_nm.tile);
  Walk walk;
  CHECK(walk.mutate_expr(x) == x);
  CHECK(walk.mutate_expr(x) == x);
  walk.substitute(n, m);
  Expr retyped = walk.mutate_expr(x);
  REQUIRE(retyped != x);
  CHECK(as<TileType>(retyped->type)->shape[0] == m);
  CHECK(walk.mutate_expr(x) == retyped);
}

TEST_CASE("Mutator: a type found unchanged is looked at again after a substitution it reads") {
  // One type node on a call, met twice unchanged (the second time from the cache); once its
  // dim N is substituted, the next meeting rebuilds it.
  struct Walk : Mutator<Walk> {};
  const DynamicDims dims_nm;
  const Expr &n = dims_nm.n, &m = dims_nm.m;
  const Type& t = dims_nm.tile;
  Walk walk;
  CHECK(walk.mutate_type(t) == t);
  CHECK(walk.mutate_type(t) == t);
  walk.substitute(n, m);
  Type retyped = walk.mutate_type(t);
  REQUIRE(retyped != t);
  CHECK(as<TileType>(retyped)->shape[0] == m);
}

TEST_CASE("Mutator: a walker that overrides mutate_expr is not served types it found unchanged before") {
  // Its answer depends on its own state, not on substitutions alone, so nothing may be
  // remembered for it: the second call must see the dim rewritten.
  struct Contextual : Mutator<Contextual> {
    Expr from, to;
    bool active = false;
    Expr mutate_expr(const Expr& e) { return active && e == from ? to : Mutator::mutate_expr(e); }
  };
  const DynamicDims dims_nm;
  const Expr &n = dims_nm.n, &m = dims_nm.m;
  const Type& t = dims_nm.tile;
  Contextual walk;
  walk.from = n;
  walk.to = m;
  CHECK(walk.mutate_type(t) == t);
  walk.active = true;
  Type retyped = walk.mutate_type(t);
  REQUIRE(retyped != t);
  CHECK(as<TileType>(retyped)->shape[0] == m);
}

namespace core_test_walkers {  // a local class may not declare the static member
// A type mapping that says the types of constants stay, and counts the scalars it is asked.
struct Trusting : TypeMappingMutator<Trusting> {
  static constexpr bool constant_types_stay = true;
  int mapped_scalars = 0;
  Type map_type(const Type& t) {
    if (as<ScalarType>(t)) ++mapped_scalars;
    return TypeMappingMutator::map_type(t);
  }
};
}  // namespace core_test_walkers

TEST_CASE("Mutator: constants and tuples of them are skipped only when nothing could change them") {
  // [0, 2] as a call operand. A type mapping that widens INDEX must still reach it (it did not
  // say constant_types_stay); one that says so is trusted, and the tuple comes back as itself;
  // an expression hook is always offered it.
  Expr offsets = make_tuple({make_int(0), make_int(2)});
  Expr call = make_call(intern_op("tile.exp"), {offsets}, {}, scalar_type(DataType::FP32));
  struct WidenIndex : TypeMappingMutator<WidenIndex> {
    Type map_type(const Type& t) {
      if (auto* s = as<ScalarType>(t); s && s->dtype == DataType::INDEX) return scalar_type(DataType::INT64);
      return TypeMappingMutator::map_type(t);
    }
  };
  WidenIndex widen;
  Expr widened = widen.mutate_expr(call);
  REQUIRE(widened != call);
  const Expr& tuple = as<Call>(widened)->args[0];
  REQUIRE(tuple != offsets);
  CHECK(as<TupleType>(tuple->type)->elements[0] == scalar_type(DataType::INT64));
  CHECK(as<MakeTuple>(tuple)->elements[1]->type == scalar_type(DataType::INT64));

  core_test_walkers::Trusting trusting;
  CHECK(trusting.mutate_expr(call) == call);
  CHECK(trusting.mutate_expr(offsets) == offsets);
  CHECK(trusting.mapped_scalars == 1);  // the call's own FP32; never the constants' INDEX

  // A substitution of a value, not a Var: the tuple holding it is visited again.
  IdentityMutator identity;
  const Expr& two = as<MakeTuple>(offsets)->elements[1];
  CHECK(identity.mutate_expr(call) == call);
  identity.substitute(two, make_int(3));
  Expr substituted = identity.mutate_expr(call);
  REQUIRE(substituted != call);
  CHECK(as<ConstInt>(as<MakeTuple>(as<Call>(substituted)->args[0])->elements[1])->value == 3);

  struct ZeroToOne : Mutator<ZeroToOne> {
    Expr rewrite_expr(const Expr& rebuilt, const Expr&) {
      auto* c = as<ConstInt>(rebuilt);
      return c && c->value == 0 ? make_int(1) : rebuilt;
    }
  };
  ZeroToOne hook;
  Expr hooked = hook.mutate_expr(call);
  REQUIRE(hooked != call);
  CHECK(as<ConstInt>(as<MakeTuple>(as<Call>(hooked)->args[0])->elements[0])->value == 1);
}

TEST_CASE("map_children: changed children of every kind land in their own slots; none changed, no copy") {
  // args, a kwarg holding an Expr and the call's type are visited in one order; only the
  // substituted ones are replaced.
  struct Walk : Mutator<Walk> {};
  Type t = make_tile_type(dims({8, 4}), DataType::FP32, std::nullopt, MemorySpace::Vec);
  Expr a = make_var("a", t), b = make_var("b", t), c = make_var("c", scalar_type(DataType::INDEX));
  Expr b2 = make_var("b2", t), c2 = make_var("c2", scalar_type(DataType::INDEX));
  Expr call = make_call(intern_op("tile.add"), {a, b}, Kwargs{{"k", AttrValue{c}}}, t);
  Walk same;
  CHECK_FALSE(map_children(call->v, same).has_value());
  Walk walk;
  walk.substitute(b, b2);
  walk.substitute(c, c2);
  auto rebuilt = map_children(call->v, walk);
  REQUIRE(rebuilt.has_value());
  const Call& out = std::get<Call>(*rebuilt);
  CHECK(out.args[0] == a);
  CHECK(out.args[1] == b2);
  CHECK(std::get<Expr>(out.kwargs[0].second) == c2);
}

TEST_CASE("map_children: a plain mapper and one offering changed_child agree") {
  // The two protocols map_children accepts: `m(child)` returns the child itself when it stays,
  // `m.changed_child(child)` returns null.
  Type t = make_tile_type(dims({8, 4}), DataType::FP32, std::nullopt, MemorySpace::Vec);
  Expr a = make_var("a", t), b = make_var("b", t), b2 = make_var("b2", t);
  Expr call = make_call(intern_op("tile.add"), {a, b}, {}, t);
  auto same = [](const auto& child) { return child; };
  CHECK_FALSE(map_children(call->v, same).has_value());
  struct Swap {
    Expr from, to;
    Expr changed_child(const Expr& e) const { return e == from ? to : nullptr; }
    Type changed_child(const Type&) const { return nullptr; }
  };
  auto rebuilt = map_children(call->v, Swap{b, b2});
  REQUIRE(rebuilt.has_value());
  CHECK(std::get<Call>(*rebuilt).args[0] == a);
  CHECK(std::get<Call>(*rebuilt).args[1] == b2);
  CHECK_FALSE(map_children(call->v, Swap{b2, a}).has_value());
}

TEST_CASE("Mutator: what stays is handed to the hooks as the node itself, never a copy") {
  // A copy of a shared_ptr is two atomic updates; an unchanged walk used to make several per
  // node. The hook sees `rebuilt` as the very node of the tree: only the tree and this test
  // hold it.
  Type t = make_tile_type(dims({8, 4}), DataType::FP32, std::nullopt, MemorySpace::Vec);
  Expr a = make_var("a", t);
  Expr call = make_call(intern_op("tile.exp"), {a}, {}, t);
  Stmt body = make_seq({make_stmt(Eval{call})});
  struct Watch : Mutator<Watch> {
    const ExprNode* node = nullptr;
    long uses_seen = -1;
    bool same_node = false;
    Expr replace_expr(const Expr& rebuilt, const Expr& original) {
      if (original.get() == node) {
        uses_seen = original.use_count();
        same_node = rebuilt.get() == original.get();
      }
      return nullptr;
    }
  } watch;
  watch.node = call.get();
  const long before = call.use_count();
  CHECK(watch.mutate_stmt(body) == body);
  CHECK(watch.same_node);
  CHECK(watch.uses_seen == before);
}

TEST_CASE("Mutator: replace_expr's null keeps the rebuilt node, anything else replaces it") {
  Type t = make_tile_type(dims({8, 4}), DataType::FP32, std::nullopt, MemorySpace::Vec);
  Expr a = make_var("a", t), b = make_var("b", t);
  Expr exp = make_call(intern_op("tile.exp"), {a}, {}, t);
  Expr outer = make_call(intern_op("tile.add"), {exp, b}, {}, t);
  struct ExpToNeg : Mutator<ExpToNeg> {
    int offered = 0;
    Expr replace_expr(const Expr& rebuilt, const Expr&) {
      auto* c = as<Call>(rebuilt);
      if (c) ++offered;
      if (!c || op_name(c->callee.op) != "tile.exp") return nullptr;
      return make_call(intern_op("tile.neg"), c->args, {}, rebuilt->type);
    }
  } walk;
  Expr out = walk.mutate_expr(outer);
  REQUIRE(out != outer);
  CHECK(walk.offered == 2);  // each call once (the type's dims are offered too, as constants)
  const Call& add = *as<Call>(out);
  CHECK(op_name(add.callee.op) == "tile.add");
  CHECK(op_name(as<Call>(add.args[0])->callee.op) == "tile.neg");
  CHECK(add.args[1] == b);
  ExpToNeg none;
  Expr unrelated = make_call(intern_op("tile.add"), {a, b}, {}, t);
  CHECK(none.mutate_expr(unrelated) == unrelated);
}

TEST_CASE("make_expr: closed facts mark constants and tuples of them, and nothing holding a Var") {
  Expr i = make_var("i", scalar_type(DataType::INDEX));
  Expr shape = make_tuple({make_int(16), make_int(32)});
  Expr nested = make_tuple({shape, make_float(0.5)});
  Expr open = make_tuple({i, make_int(0)});
  Expr open_nested = make_tuple({make_int(1), open});
  Expr sum = make_expr(Binary{BinaryOp::Add, make_int(1), make_int(2)}, scalar_type(DataType::INDEX));
  CHECK(is_closed(make_int(3)));
  CHECK(is_closed(make_bool(true)));
  CHECK(is_closed(shape));
  CHECK(is_closed(nested));
  CHECK(is_closed(make_tuple({})));
  CHECK_FALSE(is_closed(i));
  CHECK_FALSE(is_closed(open));
  CHECK_FALSE(is_closed(open_nested));  // the Var is one level down
  CHECK_FALSE(is_closed(sum));          // conservative: only constants and tuples are marked
  CHECK_FALSE(is_closed(nullptr));

  Type t = make_tile_type(dims({16, 32}), DataType::FP32, std::nullopt, MemorySpace::Vec);
  Expr x = make_var("x", t);
  Expr call = make_call(intern_op("tile.slice"), {x, shape, open}, {}, t);
  const Call& c = *as<Call>(call);
  CHECK_FALSE(c.arg_is_closed(0));
  CHECK(c.arg_is_closed(1));
  CHECK_FALSE(c.arg_is_closed(2));
  CHECK_FALSE(c.arg_is_closed(3));  // past the last argument

  // A copy of a call whose arguments change is remade through make_expr, which derives the
  // facts again: the stale bit of the copied struct does not survive.
  Call changed = c;
  changed.args[1] = open;
  Expr remade = make_expr(std::move(changed), t);
  CHECK_FALSE(as<Call>(remade)->arg_is_closed(1));
  // The facts are no part of structural equality.
  CHECK(structural_equal(make_call(intern_op("tile.slice"), {x, shape, shape}, {}, t),
                         make_call(intern_op("tile.slice"), {x, shape, shape}, {}, t)));
}

TEST_CASE("NodeMap: a null key is never found, in an empty table or a full one") {
  NodeMap<int> map;
  CHECK(map.find(nullptr) == map.end());
  Expr a = make_int(1), b = make_int(2);
  map.emplace(a.get(), 1);
  map.emplace(b.get(), 2);
  CHECK_FALSE(map.contains(nullptr));
  CHECK(map.find(nullptr) == map.end());
  CHECK(map.find(b.get())->second == 2);
}

TEST_CASE("Callee: a called function is an interned symbol, compared by identity and as text") {
  Expr one = make_function_call("helper", {}, scalar_type(DataType::INDEX));
  Expr two = make_function_call(std::string("help") + "er", {}, scalar_type(DataType::INDEX));
  const Callee& a = as<Call>(one)->callee;
  const Callee& b = as<Call>(two)->callee;
  CHECK(a.is_function());
  CHECK(a == b);
  CHECK(a.function == "helper");
  CHECK(a.function.str() == std::string("helper"));
  CHECK_FALSE(a.function == "other");
  CHECK(Symbol().empty());
  CHECK(Symbol("").empty());
  CHECK_FALSE(as<Call>(make_call(intern_op("tile.exp"), {}, {}, nullptr))->callee.is_function());
}

TEST_CASE("unique_list: only the sole owner of a list may edit it in place") {
  Type t = make_tile_type(dims({8, 4}), DataType::FP32, std::nullopt, MemorySpace::Vec);
  Expr x = make_var("x", t);
  Stmt ret = make_stmt(Return{{x}});
  Stmt list = make_seq({make_stmt(Eval{x}), ret});
  Stmt other = list;  // a second reference: the list may be seen elsewhere
  CHECK(unique_list(other) == nullptr);
  other = nullptr;
  std::vector<Stmt>* own = unique_list(list);
  REQUIRE(own != nullptr);
  own->erase(own->begin());
  REQUIRE(as<Seq>(list)->stmts.size() == 1);
  CHECK(as<Seq>(list)->stmts[0] == ret);  // the statement kept is the same object
  Stmt leaf = ret;
  CHECK(unique_list(leaf) == nullptr);  // not a list (and shared)
  Stmt none;
  CHECK(unique_list(none) == nullptr);
}

TEST_CASE("index_add / index_mul: constants fold; an INDEX operand equal to the result is the result") {
  // CT-05 peels chains of slices by summing offsets, mostly + 0; MT-10 multiplies strides by 1.
  const Expr eight = make_int(8);
  const Expr zero = make_int(0);
  const Expr one = make_int(1);
  CHECK(index_add(eight, zero) == eight);  // the node itself, not an equal copy
  CHECK(index_add(zero, eight) == eight);
  CHECK(index_mul(eight, one) == eight);
  CHECK(index_mul(one, eight) == eight);
  CHECK(index_mul(zero, eight) == zero);
  const Expr sum = index_add(eight, make_int(4));
  CHECK(const_int(sum) == 12);
  CHECK(sum->type == scalar_type(DataType::INDEX));
  // An operand of another dtype is not an INDEX result: the fold makes one.
  const Expr wide = make_int(8, DataType::INT64);
  const Expr folded = index_add(wide, zero);
  CHECK(folded != wide);
  CHECK(const_int(folded) == 8);
  CHECK(folded->type == scalar_type(DataType::INDEX));
  // Symbolic operands: + 0 and × 1 disappear, the rest is a Binary.
  const Expr n = make_var("n", scalar_type(DataType::INDEX));
  CHECK(index_add(n, zero) == n);
  CHECK(index_mul(one, n) == n);
  CHECK(as<Binary>(index_add(n, eight)) != nullptr);
}
