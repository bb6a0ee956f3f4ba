// FlattenTileNdTo2D and issue 10: the types after the pass follow the deduced types (FL-43,
// FL-44, FL-45), the expansion of compile-time unrolls is bounded (--max-expansion), and with
// a backend no tile is larger than the memory it lives in.
#include <doctest/doctest.h>

#include <string>

#include "flatten_test_util.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/verify.hpp"

using namespace tilewright;
using namespace flatten_test;

namespace {


ir::Program flatten_with_budget(const ir::Program& p, std::uint64_t budget, backend::BackendInfo b = backend::none()) {
  pass::PassContext ctx;
  ctx.backend = b;
  ctx.max_expansion = budget;
  return passes::flatten_tile_nd_to_2d(p, ctx);
}

ir::Diagnostic budget_error(const ir::Program& p, std::uint64_t budget) {
  try {
    flatten_with_budget(p, budget);
  } catch (const ir::Error& e) {
    return e.diagnostic();
  }
  FAIL("the pass accepted a program over its expansion budget");
  return {};
}

// Statements of a body, nested bodies included (statement lists do not count).
std::size_t statements(const ir::Stmt& s) {
  std::size_t n = 0;
  ir::for_each_stmt(s, [&](const ir::Stmt& x) { n += ir::as<ir::Seq>(x) ? 0 : 1; });
  return n;
}
std::size_t statements(const ir::Program& p) { return statements(p->functions[0]->body); }

// The count the budget diagnostic states: "... unrolls into N statements ...".
std::uint64_t stated_count(const std::string& message) {
  const std::string key = "unrolls into ";
  auto at = message.find(key);
  REQUIRE(at != std::string::npos);
  return std::stoull(message.substr(at + key.size()));
}

// Every tile-typed Var has its value's type, every iter_arg its init's, every loop result
// its iter_arg's and every if result its then-branch yield's.
void check_types_settled(const ir::Stmt& body) {
  ir::for_each_stmt(body, [&](const ir::Stmt& s) {
    if (auto* a = ir::as<ir::Assign>(s); a && ir::tile_type(a->value)) {
      CAPTURE(ir::name_hint(a->var));
      CHECK(ir::structural_equal(a->var->type, a->value->type));
    }
    auto loop = [&](const std::vector<ir::Expr>& iter_args, const std::vector<ir::Expr>& results) {
      for (std::size_t i = 0; i < iter_args.size(); ++i) {
        CAPTURE(ir::name_hint(iter_args[i]));
        CHECK(ir::structural_equal(iter_args[i]->type, ir::as<ir::IterArg>(iter_args[i])->init->type));
        CHECK(ir::structural_equal(results[i]->type, iter_args[i]->type));
      }
    };
    if (auto* f = ir::as<ir::For>(s)) loop(f->iter_args, f->return_vars);
    if (auto* w = ir::as<ir::While>(s)) loop(w->iter_args, w->return_vars);
    if (auto* i = ir::as<ir::If>(s)) {
      auto* y = ir::as<ir::Yield>(ir::body_stmts(i->then_body).back());
      REQUIRE(y);
      for (std::size_t k = 0; k < i->return_vars.size(); ++k)
        CHECK(ir::structural_equal(i->return_vars[k]->type, y->values[k]->type));
    }
  });
}

const std::string mat = "target_memory=pl.Mem.Mat)\n";

// A batch-2 matmul with no store after it lowers to a [32, 16] Vec tile (FL-58): a value
// whose type is not the one its Acc annotation maps to.
const std::string operands =
    "        a: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0, 0], [2, 16, 32], [2, 16, 32], " + mat +
    "        b: pl.Tile[[2, 32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs, [0, 0, 0], [2, 32, 16], [2, 32, 16], " + mat;
const std::string signature =
    "lhs: pl.Tensor[[2, 16, 32], pl.FP16], rhs: pl.Tensor[[2, 32, 16], pl.FP16], flag: pl.Scalar[pl.INDEX], out_0: "
    "pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]";

}  // namespace

// ---- FL-43 / FL-44 / FL-45 -----------------------------------------------------------------

TEST_CASE("FL-45/FL-43: if results and loop carries take the type of the value that flows into them") {
  auto after = flatten(parse(kernel(
      signature, operands +
                     "        if flag == 0:\n"
                     "            c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
                     "            r: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.yield_(c)\n"
                     "        else:\n"
                     "            z: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create([2, 16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
                     "            r: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.yield_(z)\n"
                     "        for i, (acc,) in pl.range(2, init_values=(r,)):\n"
                     "            e: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(acc)\n"
                     "            acc_rv: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.yield_(e)\n"
                     "        out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(acc_rv, [0, 0, 0], out_0)\n"
                     "        return out_1")));
  const std::string printed = text::print(after);
  // FL-45: the then-branch yields the Vec tile of the general path, so `r` is Vec — not the
  // Acc of its annotation — and so are the carry seeded by it and the loop's result (FL-43).
  CHECK(contains(printed, "r: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(c_2)"));
  CHECK(contains(printed, "r: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(z)"));
  CHECK(contains(printed, "for i, (acc,) in pl.range(2, init_values=(r,)):"));
  const ir::For* loop = nullptr;
  for (const auto& s : body_of(after)) loop = loop ? loop : ir::as<ir::For>(s);
  REQUIRE(loop);
  CHECK(ir::tile_type(loop->iter_args[0])->memory == ir::MemorySpace::Vec);
  CHECK(ir::tile_type(loop->return_vars[0])->memory == ir::MemorySpace::Vec);
  check_types_settled(after->functions[0]->body);
  CHECK(pass::verify(pass::Property::TileOps2D, after).empty());
}

TEST_CASE("FL-44: a while loop's carry and result take their init's type") {
  auto after = flatten(parse(kernel(
      signature, operands +
                     "        c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
                     "        n0: pl.Scalar[pl.INDEX] = 0\n"
                     "        for (acc, n) in pl.while_(init_values=(c, n0)):\n"
                     "            pl.cond(n < flag)\n"
                     "            e: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(acc)\n"
                     "            n1: pl.Scalar[pl.INDEX] = n + 1\n"
                     "            acc_rv, n_rv = pl.yield_(e, n1)\n"
                     "        out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(acc_rv, [0, 0, 0], out_0)\n"
                     "        return out_1")));
  const ir::While* loop = nullptr;
  for (const auto& s : body_of(after)) loop = loop ? loop : ir::as<ir::While>(s);
  REQUIRE(loop);
  CHECK(ir::tile_type(loop->iter_args[0])->memory == ir::MemorySpace::Vec);
  CHECK(ints(ir::tile_type(loop->iter_args[0])->shape) == std::vector<std::int64_t>{32, 16});
  CHECK(ir::tile_type(loop->return_vars[0])->memory == ir::MemorySpace::Vec);
  check_types_settled(after->functions[0]->body);
}

TEST_CASE("FL-13/FL-38: a flattened tile keeps one memory space from its definition to its last use") {
  // Seed 000's example (in SSA form): every tile the pass leaves is typed like its value.
  auto after = flatten(parse(
      "# pypto.program: Before\nimport pypto.language as pl\n\n@pl.program\nclass Before:\n"
      "    @pl.function(type=pl.FunctionType.InCore)\n"
      "    def main_incore_0(self, x: pl.Tensor[[2, 3, 4], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> "
      "pl.Tensor[[2, 3, 4], pl.FP32]:\n"
      "        x_tile: pl.Tile[[2, 3, 4], pl.FP32] = pl.load(x, [0, 0, 0], [2, 3, 4])\n"
      "        y_tile: pl.Tile[[2, 3, 4], pl.FP32] = pl.tile.add(x_tile, x_tile)\n"
      "        out_1: pl.Tensor[[2, 3, 4], pl.FP32] = pl.store(y_tile, [0, 0, 0], out_0)\n"
      "        return out_1"));
  check_types_settled(after->functions[0]->body);
  const auto stmts = body_of(after);
  CHECK(ints(tile_of(stmts[0]).shape) == std::vector<std::int64_t>{6, 4});
  CHECK(tile_of(stmts[0]).memory == tile_of(stmts[1]).memory);
}

// ---- the expansion budget ------------------------------------------------------------------

namespace {

// A [pages, 16, 8] FP32 Vec tile transposed on its last two axes.
std::string transpose_kernel(std::int64_t pages) {
  const std::string p = std::to_string(pages);
  return kernel("x: pl.Tensor[[" + p + ", 16, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[" + p +
                    ", 8, 16], pl.FP32]]) -> pl.Tensor[[" + p + ", 8, 16], pl.FP32]",
                "        t: pl.Tile[[" + p + ", 16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [" + p +
                    ", 16, 8], [" + p + ", 16, 8], target_memory=pl.Mem.Vec)\n"
                    "        u: pl.Tile[[" + p + ", 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(t, 1, 2)\n"
                    "        out_1: pl.Tensor[[" + p + ", 8, 16], pl.FP32] = pl.tile.store(u, [0, 0, 0], out_0)\n"
                    "        return out_1");
}

// Operands in Left/Right (no NZ collapse: every other statement stays one statement) and a
// batched matmul whose result is `tail`'s business.
std::string matmul_kernel(const std::string& lhs, const std::string& rhs, const std::string& out,
                          const std::string& result, const std::string& tail, const std::string& out_dtype = "pl.FP32") {
  auto zeros = [](const std::string& dims) {
    std::string z = "[0";
    for (char ch : dims)
      if (ch == ',') z += ", 0";
    return z + "]";
  };
  return kernel("lhs: pl.Tensor[" + lhs + ", pl.FP16], rhs: pl.Tensor[" + rhs + ", pl.FP16], out_0: pl.Out[pl.Tensor[" +
                    out + ", " + out_dtype + "]]) -> pl.Tensor[" + out + ", " + out_dtype + "]",
                "        a: pl.Tile[" + lhs + ", pl.FP16, pl.Mem.Left] = pl.tile.load(lhs, " + zeros(lhs) + ", " + lhs +
                    ", " + lhs + ", target_memory=pl.Mem.Left)\n"
                    "        b: pl.Tile[" + rhs + ", pl.FP16, pl.Mem.Right] = pl.tile.load(rhs, " + zeros(rhs) + ", " +
                    rhs + ", " + rhs + ", target_memory=pl.Mem.Right)\n" + result + tail + "        return out_1");
}

// The pass succeeds with a budget of exactly the count it states, fails with one less, and
// the statements it adds are that count (less the one statement the lowering replaces and
// `absorbed` statements it performs itself, e.g. a fused store).
void check_budget_is_exact(const std::string& text, std::size_t absorbed = 0) {
  auto p = parse(text);
  const std::uint64_t n = stated_count(budget_error(p, 1).message);
  auto after = flatten_with_budget(p, n);
  CHECK(statements(after) == statements(p) - 1 - absorbed + n);
  CHECK(contains(budget_error(p, n - 1).message, "unrolls into " + std::to_string(n) + " statements"));
  CHECK(pass::verify(pass::Property::TileOps2D, after).empty());
}

}  // namespace

TEST_CASE("issue 10: a [1048576, 16, 8] transpose stops at the expansion budget, naming the op and the count") {
  auto p = parse(transpose_kernel(1048576));
  auto d = budget_error(p, pass::PassContext{}.max_expansion);
  CHECK(d.kind == ir::ErrorKind::user);
  CHECK(d.message ==
        "tile.transpose of the [1048576, 16, 8] FP32 tile unrolls into 4194306 statements (1048576 pages, one 2D op each): "
        "more than the expansion budget of 1000000 statements. Split the batch (pl.range over a leading axis, one "
        "smaller tile per step), or raise the budget with --max-expansion=N");
  CHECK(d.span.line == 9);
  CHECK(d.span.column == 9);
}

TEST_CASE("issue 10: the budget counts exactly the statements each lowering emits") {
  SUBCASE("FL-32 transpose") { check_budget_is_exact(transpose_kernel(5)); }
  const std::string mm = "        c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n";
  SUBCASE("FL-57 fused store") {
    check_budget_is_exact(matmul_kernel("[2, 16, 32]", "[2, 32, 16]", "[2, 16, 16]", mm,
                                        "        out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)\n"),
                          1);
  }
  SUBCASE("FL-58 general path") {
    check_budget_is_exact(matmul_kernel("[2, 16, 32]", "[2, 32, 16]", "[32, 16]", mm,
                                        "        e: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(c)\n"
                                        "        f: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(e, [32, 16])\n"
                                        "        out_1: pl.Tensor[[32, 16], pl.FP32] = pl.tile.store(f, [0, 0], out_0)\n"));
  }
  SUBCASE("FL-56 one page") {
    check_budget_is_exact(matmul_kernel("[1, 16, 32]", "[1, 32, 16]", "[16, 16]",
                                        "        c: pl.Tile[[1, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n",
                                        "        f: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.reshape(c, [16, 16])\n"
                                        "        out_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(f, [0, 0], out_0)\n"));
  }
  SUBCASE("FL-51 broadcast over three batch axes") {
    check_budget_is_exact(
        matmul_kernel("[2, 1, 3, 16, 32]", "[1, 2, 1, 32, 16]", "[2, 2, 3, 16, 16]",
                      "        c: pl.Tile[[2, 2, 3, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n",
                      "        out_1: pl.Tensor[[2, 2, 3, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0, 0, 0], out_0)\n"),
        1);
  }
  SUBCASE("FL-62 accumulator, and FL-25 its drain") {
    // Two expanding statements: the budget is their sum; each alone is under it.
    auto p = parse(matmul_kernel(
        "[2, 16, 32]", "[2, 32, 16]", "[2, 16, 16]",
        "        acc0: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create([2, 16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
        "        d: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc0, a, b)\n",
        "        out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(d, [0, 0, 0], out_0)\n"));
    // acc: 2 pages x (two slices, slice, matmul_acc, assemble); drain: 2 x (slice, store).
    CHECK(statements(flatten_with_budget(p, 14)) == statements(p) - 2 + 14);
    auto d = budget_error(p, 13);
    CHECK(d.message.starts_with("the store of a column-packed accumulator unrolls into 4 statements (2 pages, one 2D "
                                "op each), which brings the lowering of function 'kernel' to 14 statements: more than "
                                "the expansion budget of 13 statements."));
  }
  SUBCASE("0 is no budget") { CHECK(statements(flatten_with_budget(parse(transpose_kernel(3)), 0)) > 10); }
}

// ---- memory capacities ---------------------------------------------------------------------

TEST_CASE("issue 10 / §5: with a backend, a tile the lowering would allocate beyond its memory is refused first") {
  auto p = parse(transpose_kernel(1536));  // 1536 pages of 16x8 FP32: a 768 KiB result in Vec
  auto d = error_of(p, backend::Ascend910B::info);
  CHECK(d.message ==
        "tile.transpose of the [1536, 16, 8] FP32 tile is lowered with a [12288, 16] FP32 result tile of 786432 bytes "
        "in Vec, but Vec holds 188416 bytes on ascend910b: no allocation can place it. Split the work into smaller "
        "tiles (pl.range over a leading axis, one tile per step)");
  CHECK(d.span.line == 9);
  CHECK(contains(error_of(p, backend::Ascend950::info).message, "but Vec holds 245760 bytes on ascend950"));
  CHECK_NOTHROW(flatten(p));  // no backend: every size fits
  // 368 pages are 184 KiB: exactly what Ascend910B's Vec holds.
  CHECK_NOTHROW(flatten(parse(transpose_kernel(368)), backend::Ascend910B::info));
  CHECK(contains(error_of(parse(transpose_kernel(369)), backend::Ascend910B::info).message,
                 "[2952, 16] FP32 result tile of 188928 bytes in Vec"));
  // The [1048576, 16, 8] transpose: 512 MiB, refused before anything is counted or emitted.
  CHECK(contains(error_of(parse(transpose_kernel(1048576)), backend::Ascend910B::info).message,
                 "[8388608, 16] FP32 result tile of 536870912 bytes in Vec"));
}

TEST_CASE("§5/FL-58: the Vec tile a batched matmul's pages are assembled into must fit Vec") {
  const std::string text = matmul_kernel(
      "[8, 128, 64]", "[8, 64, 256]", "[1024, 256]",
      "        c: pl.Tile[[8, 128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n",
      "        e: pl.Tile[[8, 128, 256], pl.FP32, pl.Mem.Vec] = pl.tile.exp(c)\n"
      "        f: pl.Tile[[1024, 256], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(e, [1024, 256])\n"
      "        out_1: pl.Tensor[[1024, 256], pl.FP32] = pl.tile.store(f, [0, 0], out_0)\n");
  auto d = error_of(text, backend::Ascend950::info);
  CHECK(d.message ==
        "tile.batch_matmul of [8, 128, 64] x [8, 64, 256] is lowered with a [1024, 256] FP32 result tile of 1048576 "
        "bytes in Vec, but Vec holds 245760 bytes on ascend950: no allocation can place it. Split the work into smaller "
        "tiles (pl.range over a leading axis, one tile per step)");
  CHECK_NOTHROW(flatten(parse(text)));
}

TEST_CASE("§5/BK-05: tiles the kernel itself makes are the allocator's to place, as upstream") {
  // A 512 KiB Vec tile written by the kernel (upstream's corpus lowers one on Ascend910B,
  // bmm_shared_operand_with_nested_use_kept_910b): AllocateMemoryAddr reports it, not this pass.
  const std::string vec_load = kernel(
      "x: pl.Tensor[[4, 256, 128], pl.FP32], out_0: pl.Out[pl.Tensor[[4, 256, 128], pl.FP32]]) -> "
      "pl.Tensor[[4, 256, 128], pl.FP32]",
      "        t: pl.Tile[[4, 256, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [4, 256, 128], [4, 256, 128], "
      "target_memory=pl.Mem.Vec)\n"
      "        out_1: pl.Tensor[[4, 256, 128], pl.FP32] = pl.tile.store(t, [0, 0, 0], out_0)\n"
      "        return out_1");
  CHECK_NOTHROW(flatten(parse(vec_load), backend::Ascend910B::info));
}

TEST_CASE("§5/BK-01: an operand larger than Mat is re-loaded page by page, and nothing whole is left to place") {
  // [8, 256, 256] FP16 is 1 MiB, twice Mat: re-loaded per page, the whole load is dropped,
  // and each 128 KiB page fits.
  auto after = flatten(parse(kernel(
                           "lhs: pl.Tensor[[8, 128, 256], pl.FP16], rhs: pl.Tensor[[8, 256, 256], pl.FP16], out_0: "
                           "pl.Out[pl.Tensor[[8, 128, 256], pl.FP32]]) -> pl.Tensor[[8, 128, 256], pl.FP32]",
                           "        a: pl.Tile[[8, 128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0, 0], [8, "
                           "128, 256], [8, 128, 256], " + mat +
                               "        b: pl.Tile[[8, 256, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs, [0, 0, 0], [8, "
                               "256, 256], [8, 256, 256], " + mat +
                               "        c: pl.Tile[[8, 128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
                               "        out_1: pl.Tensor[[8, 128, 256], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)\n"
                               "        return out_1")),
                       backend::Ascend910B::info);
  const std::string printed = text::print(after);
  CHECK_FALSE(contains(printed, "a: pl.Tile"));
  CHECK_FALSE(contains(printed, "b: pl.Tile"));
  CHECK(contains(printed, "rhs_pbload_7: pl.Tile[[256, 256], pl.FP16, pl.Mem.Mat]"));
  CHECK(contains(printed, "matmul_7: pl.Tile[[128, 256], pl.FP32, pl.Mem.Acc]"));
}
