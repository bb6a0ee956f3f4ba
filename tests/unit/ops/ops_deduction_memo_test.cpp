// ops::DeductionMemo: a remembered deduction is handed out only where the deducer would read
// the same thing — tile operands by type, constants by value, scalar Vars by identity, kwargs
// by value — and what it hands out is what create_call gives. (CanonicalizeTileSlice re-creates
// its consumers and copies through it: CT-08…CT-12.)
#include "tilewright/ops/deduction_memo.hpp"

#include "ops_test_util.hpp"

using namespace ops_test;

namespace {

const ops::OpInfo& memo_row(const char* name) {
  const ops::OpInfo* info = ops::builtin_registry().find(name);
  REQUIRE(info != nullptr);
  return *info;
}
ir::Kwargs into(MemorySpace m) { return {{"target_memory", m}}; }

}  // namespace

TEST_CASE("DeductionMemo: tile operands of one type node share one deduction") {
  const ops::OpInfo& matmul = memo_row("tile.matmul");
  auto l1 = tile("l1", {16, 32}, DataType::FP16, MemorySpace::Left);
  auto r1 = tile("r1", {32, 64}, DataType::FP16, MemorySpace::Right);
  // Other Vars, the same type nodes (as the parser's interned annotations give them).
  auto l2 = ir::make_var("l2", l1->type);
  auto r2 = ir::make_var("r2", r1->type);
  ops::DeductionMemo memo;
  ir::Type first = memo.type_of(matmul, {l1, r1}, {}, {});
  ir::Type second = memo.type_of(matmul, {l2, r2}, {}, {});
  CHECK(first == second);
  CHECK(memo.size() == 1);
  CHECK(memo.hits() == 1);
  CHECK(same(first, call("tile.matmul", {l1, r1})->type));
  // An exactly equal type under another node (the C++ builder makes one per line): the
  // same deduction.
  auto l3 = tile("l3", {16, 32}, DataType::FP16, MemorySpace::Left);
  REQUIRE(l3->type != l1->type);
  CHECK(memo.type_of(matmul, {l3, r1}, {}, {}) == first);
  CHECK(memo.size() == 1);
  CHECK(memo.hits() == 2);
  // Another extent is another deduction.
  auto l4 = tile("l4", {32, 32}, DataType::FP16, MemorySpace::Left);
  auto r4 = tile("r4", {32, 64}, DataType::FP16, MemorySpace::Right);
  CHECK(shape_of(ir::make_var("m", memo.type_of(matmul, {l4, r4}, {}, {}))) == V{32, 64});
  CHECK(memo.size() == 2);
}

TEST_CASE("DeductionMemo: symbolic extents match only the same Var") {
  // [n, 32] and [m, 32] print alike in shape but name two values: the matmul results differ.
  const ops::OpInfo& matmul = memo_row("tile.matmul");
  auto n = sym("n"), m = sym("m");
  auto ln = tile("ln", {n, I(32)}, DataType::FP16, MemorySpace::Left);
  auto lm = tile("lm", {m, I(32)}, DataType::FP16, MemorySpace::Left);
  auto ln2 = tile("ln2", {n, I(32)}, DataType::FP16, MemorySpace::Left);
  auto r = tile("r", {32, 64}, DataType::FP16, MemorySpace::Right);
  ops::DeductionMemo memo;
  ir::Type by_n = memo.type_of(matmul, {ln, r}, {}, {});
  ir::Type by_m = memo.type_of(matmul, {lm, r}, {}, {});
  CHECK(ir::as<ir::TileType>(by_n)->shape[0] == n);
  CHECK(ir::as<ir::TileType>(by_m)->shape[0] == m);
  CHECK(memo.size() == 2);
  CHECK(memo.type_of(matmul, {ln2, r}, {}, {}) == by_n);
}

TEST_CASE("DeductionMemo: constants by value, kwargs by value, scalar Vars by identity") {
  const ops::OpInfo& extract = memo_row("tile.extract");
  // Valid on 10 of 16 rows: a copy at row 8 is valid on 2 rows, one at row 0 on all 4.
  ir::TileView partial = ir::implicit_view(dims({16, 8}), MemorySpace::Vec);
  partial.valid_shape = dims({10, 8});
  auto src = tile("src", dims({16, 8}), DataType::FP32, MemorySpace::Vec, partial);
  ops::DeductionMemo memo;
  ir::Type at0 = memo.type_of(extract, {src, I(0), I(3), tup({4, 1})}, into(MemorySpace::Vec), {});
  ir::Type at8 = memo.type_of(extract, {src, I(8), I(3), tup({4, 1})}, into(MemorySpace::Vec), {});
  CHECK(ints(ir::valid_shape(*ir::as<ir::TileType>(at0))) == V{4, 1});
  CHECK(ints(ir::valid_shape(*ir::as<ir::TileType>(at8))) == V{2, 1});
  CHECK(memo.size() == 2);
  // Other nodes, the same values: a hit.
  CHECK(memo.type_of(extract, {src, I(8), I(3), tup({4, 1})}, into(MemorySpace::Vec), {}) == at8);
  CHECK(memo.hits() == 1);
  // Another target memory is another deduction.
  ir::Type left = memo.type_of(extract, {src, I(0), I(3), tup({4, 1})}, into(MemorySpace::Mat), {});
  CHECK(ir::as<ir::TileType>(left)->memory == MemorySpace::Mat);
  CHECK(memo.size() == 3);
  // Two scalar Vars of one type are two keys: a deducer may write the Var into its result.
  auto r = sym("r"), q = sym("q");
  ir::Type at_r = memo.type_of(extract, {src, r, I(0), tup({4, 1})}, into(MemorySpace::Vec), {});
  ir::Type at_q = memo.type_of(extract, {src, q, I(0), tup({4, 1})}, into(MemorySpace::Vec), {});
  CHECK(at_r != at_q);
  CHECK(memo.size() == 5);
  CHECK(memo.type_of(extract, {src, r, I(0), tup({4, 1})}, into(MemorySpace::Vec), {}) == at_r);
  CHECK(memo.size() == 5);
  CHECK(memo.hits() == 2);
}

TEST_CASE("DeductionMemo: a call the row rejects throws as create_call does, and is not remembered") {
  const ops::OpInfo& extract = memo_row("tile.extract");
  auto src = tile("f", {64, 64}, DataType::FP16, MemorySpace::Mat);
  ops::DeductionMemo memo;
  auto past = [&] { (void)memo.type_of(extract, {src, I(56), I(0), tup({16, 64})}, {}, {}); };
  CHECK(error_of(past).find("reads past the source shape") != std::string::npos);
  CHECK(error_of(past).find("reads past the source shape") != std::string::npos);  // again
  CHECK(error_of([&] { (void)memo.type_of(extract, {src, I(0)}, {}, {}); }).find("takes") != std::string::npos);
  CHECK(memo.size() == 0);
}

TEST_CASE("DeductionMemo: create_call builds the call create_call builds, attributes kept") {
  const ops::OpInfo& muls = memo_row("tile.muls");
  auto t = tile("t", {16, 16}, DataType::FP32);
  ops::DeductionMemo memo;
  ir::Kwargs attrs{{"note", std::string("kept")}};
  ir::Expr c = memo.create_call(muls, {t, ir::make_float(0.5)}, {}, {}, nullptr, attrs);
  auto* node = ir::as<ir::Call>(c);
  REQUIRE(node != nullptr);
  CHECK(node->callee.op == muls.id);
  CHECK(node->attrs == attrs);
  CHECK(node->arg_is_closed(1));
  CHECK(same(c->type, call("tile.muls", {t, ir::make_float(0.5)})->type));
}

TEST_CASE("DeductionMemo: the memo keeps alive the types its keys point at") {
  // A key holds a type node's address: were the node freed, another could take its address
  // and be handed the old deduction.
  const ops::OpInfo& matmul = memo_row("tile.matmul");
  auto l = tile("l", {16, 32}, DataType::FP16, MemorySpace::Left);
  auto r = tile("r", {32, 64}, DataType::FP16, MemorySpace::Right);
  std::weak_ptr<const ir::TypeNode> lhs_type = l->type;
  ops::DeductionMemo memo;
  (void)memo.type_of(matmul, {l, r}, {}, {});
  l.reset();
  CHECK_FALSE(lhs_type.expired());
}

TEST_CASE("DeductionMemo: a call whose key outgrows the probe is deduced every time, never remembered") {
  // 40 integer operands take 120 key words, past the 64 the probe holds: such a call is
  // deduced as create_call would, and the memo neither answers nor stores it (a truncated
  // key could otherwise match another call).
  const ops::OpInfo& syncall = memo_row("system.syncall");
  std::vector<ir::Expr> many;
  for (int i = 0; i < 40; ++i) many.push_back(I(i));
  ops::DeductionMemo memo;
  ir::Type first = memo.type_of(syncall, many, {}, {});
  ir::Type again = memo.type_of(syncall, many, {}, {});
  CHECK(same(first, call("system.syncall", many)->type));
  CHECK(same(again, first));
  CHECK(memo.size() == 0);
  CHECK(memo.hits() == 0);
  // A short one of the same op is remembered as usual.
  (void)memo.type_of(syncall, {I(1)}, {}, {});
  CHECK(memo.size() == 1);
}
