// FlattenTileNdTo2D's batched-matmul lowering (FL-50…FL-66) on programs written here: the
// rows no golden case pins — seed 003's packed accumulators, logical row windows and
// loop-carry repair (the corpus has none, §6 D6/D7), the rejections with their key phrases,
// hand-built IR the parser would refuse, shared operands, spans.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "flatten_test_util.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"

using namespace tilewright;
using namespace flatten_test;

namespace {


// Hand-built IR: every call of `op` in the program's first function replaced by `edit(call)`.
// The parser deduces each op's type, so these programs cannot be written as text.
ir::Program with_calls(const ir::Program& p, std::string_view op, std::function<ir::Expr(const ir::Expr&)> edit) {
  struct Edit : ir::Mutator<Edit> {
    std::string_view op;
    std::function<ir::Expr(const ir::Expr&)> edit;
    ir::Expr rewrite_expr(const ir::Expr& rebuilt, const ir::Expr&) {
      auto* c = ir::as<ir::Call>(rebuilt);
      return c && ir::op_name(c->callee.op) == op ? edit(rebuilt) : rebuilt;
    }
  } m;
  m.op = op;
  m.edit = std::move(edit);
  return ir::make_program(p->name, {m.mutate_function(p->functions[0])});
}

ir::Expr with_args(const ir::Expr& call, std::vector<ir::Expr> args) {
  const ir::Call& c = *ir::as<ir::Call>(call);
  return ir::make_call(c.callee.op, std::move(args), c.kwargs, call->type, call->span);
}

// The Var a top-level statement of the first function defines.
ir::Expr var_of(const ir::Program& p, std::size_t i) { return ir::as<ir::Assign>(body_of(p)[i])->var; }

std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

// The result verifies as TileOps2D and survives print → parse → print.
void check_well_formed(const ir::Program& after) {
  CHECK(pass::verify(pass::Property::TileOps2D, after).empty());
  const std::string printed = text::print(after);
  auto reparsed = parse(printed);
  CHECK(text::print(reparsed) == printed);
  auto difference = ir::structural_difference(after, reparsed);
  CHECK_MESSAGE(!difference, difference.value_or(""));
}

const std::string mat_load = "target_memory=pl.Mem.Mat)\n";

// lhs [B…, M, K] × rhs [B…, K, N] loaded whole into Mat as `a` and `b`.
std::string operand_loads(const std::string& lhs, const std::string& rhs) {
  auto zeros = [](const std::string& dims) {
    std::string z = "[0";
    for (char ch : dims)
      if (ch == ',') z += ", 0";
    return z + "]";
  };
  return "        a: pl.Tile[" + lhs + ", pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, " + zeros(lhs) + ", " + lhs + ", " +
         lhs + ", " + mat_load + "        b: pl.Tile[" + rhs + ", pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs, " +
         zeros(rhs) + ", " + rhs + ", " + rhs + ", " + mat_load;
}

// An accumulator `acc0` of `dims` (FP32, Acc) updated by tile.batch_matmul_acc with operands
// of `lhs` × `rhs`, then `tail` (which reads `d`), returning `out_1`.
std::string accumulator_kernel(const std::string& lhs, const std::string& rhs, const std::string& dims,
                       const std::string& tail, const std::string& out = "") {
  const std::string out_dims = out.empty() ? dims : out;
  return kernel("lhs: pl.Tensor[" + lhs + ", pl.FP16], rhs: pl.Tensor[" + rhs + ", pl.FP16], out_0: pl.Out[pl.Tensor[" +
                    out_dims + ", pl.FP32]]) -> pl.Tensor[" + out_dims + ", pl.FP32]",
                "        acc0: pl.Tile[" + dims + ", pl.FP32, pl.Mem.Acc] = pl.tile.create(" + dims +
                    ", dtype=pl.FP32, target_memory=pl.Mem.Acc)\n" + operand_loads(lhs, rhs) + "        d: pl.Tile[" +
                    dims + ", pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc0, a, b)\n" + tail +
                    "        return out_1");
}
std::string store_d(const std::string& dims) {
  return "        out_1: pl.Tensor[" + dims + ", pl.FP32] = pl.tile.store(d, [0, 0, 0], out_0)\n";
}

}  // namespace

// ---- operands ---------------------------------------------------------------------------

TEST_CASE("FL-50/FL-51: operands that do not broadcast, a non-tile operand and a K mismatch are rejected (hand-built IR)") {
  auto p = parse(kernel(
      "lhs: pl.Tensor[[3, 16, 32], pl.FP16], rhs: pl.Tensor[[3, 32, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 16], "
      "pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]",
      operand_loads("[2, 16, 32]", "[2, 32, 16]") +
          "        b3: pl.Tile[[3, 32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs, [0, 0, 0], [3, 32, 16], [3, 32, 16], " +
          mat_load +
          "        bk: pl.Tile[[2, 16, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0, 0], [2, 16, 16], [2, 16, 16], " +
          mat_load + "        c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)\n"
          "        return out_1"));
  const ir::Expr a = var_of(p, 0), b3 = var_of(p, 2), bk = var_of(p, 3);
  const ir::Expr lhs = p->functions[0]->params[0].var;

  auto d = error_of(with_calls(p, "tile.batch_matmul", [&](const ir::Expr& c) { return with_args(c, {a, b3}); }));
  CHECK(contains(d.message, "tile.batch_matmul batch dimensions must broadcast"));
  CHECK(contains(d.message, "[2, 16, 32]"));
  CHECK(d.span.line == 12);

  d = error_of(with_calls(p, "tile.batch_matmul", [&](const ir::Expr& c) { return with_args(c, {lhs, b3}); }));
  CHECK(contains(d.message, "tile.batch_matmul lhs expects TileType operand, but got TensorType"));

  d = error_of(with_calls(p, "tile.batch_matmul", [&](const ir::Expr& c) { return with_args(c, {a, bk}); }));
  CHECK(d.kind == ir::ErrorKind::internal);
  CHECK(contains(d.message, "Internal error: tile.batch_matmul inner dimensions must match, but got 32 and 16"));
}

TEST_CASE("FL-53/FL-55/BK-01: an operand shared by a matmul that overflows Mat and one that fits is kept whole for the second") {
  // xa (128 KiB) with w1 (768 KiB) overflows the 512 KiB of Mat; with w2 (16 KiB) it fits.
  auto p = parse(kernel(
      "x: pl.Tensor[[2, 128, 256], pl.FP16], w1: pl.Tensor[[2, 256, 768], pl.FP16], w2: pl.Tensor[[2, 256, 16], "
      "pl.FP16], out_a: pl.Out[pl.Tensor[[2, 128, 768], pl.FP32]], out_b: pl.Out[pl.Tensor[[2, 128, 16], pl.FP32]]) -> "
      "tuple[pl.Tensor[[2, 128, 768], pl.FP32], pl.Tensor[[2, 128, 16], pl.FP32]]",
      "        xa: pl.Tile[[2, 128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0, 0], [2, 128, 256], [2, 128, 256], " +
          mat_load +
          "        b1: pl.Tile[[2, 256, 768], pl.FP16, pl.Mem.Mat] = pl.tile.load(w1, [0, 0, 0], [2, 256, 768], [2, 256, "
          "768], " +
          mat_load +
          "        b2: pl.Tile[[2, 256, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(w2, [0, 0, 0], [2, 256, 16], [2, 256, 16], " +
          mat_load +
          "        c1: pl.Tile[[2, 128, 768], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(xa, b1)\n"
          "        r1: pl.Tensor[[2, 128, 768], pl.FP32] = pl.tile.store(c1, [0, 0, 0], out_a)\n"
          "        c2: pl.Tile[[2, 128, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(xa, b2)\n"
          "        r2: pl.Tensor[[2, 128, 16], pl.FP32] = pl.tile.store(c2, [0, 0, 0], out_b)\n"
          "        return r1, r2"));
  auto after = flatten(p, backend::Ascend910B::info);
  const std::string printed = text::print(after);
  // xa: loaded whole once (for c2), re-loaded per page for c1; b1: re-loaded only, its
  // whole load dropped; b2: whole.
  CHECK(count(printed, "xa: pl.Tile[[256, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(") == 1);
  CHECK_FALSE(contains(printed, "b1:"));
  CHECK(contains(printed, "b2: pl.Tile[[512, 16]"));
  CHECK(contains(printed, "lhs_pbload_1: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs_pbview2d_1, [128, 0]"));
  CHECK(contains(printed, "rhs_pbload_1: pl.Tile[[256, 768], pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs_pbview2d_1, [256, 0]"));
  CHECK(contains(printed, "lhs_slice_1: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.slice(xa, [128, 256], [128, 0])"));
  check_well_formed(after);
  // Without a backend everything fits: pages are slices only.
  const std::string unlimited = text::print(flatten(p));
  CHECK_FALSE(contains(unlimited, "_pbload_"));
  CHECK(contains(unlimited, "b1: pl.Tile[[512, 768]"));
}

TEST_CASE("FL-54/FL-37: a page re-loaded through a safe batch-only reshape is indexed by the load's own batch axes") {
  // [4, 16, 32] of [4, 32, 32] from row 8 has gaps between its pages: re-loaded per page.
  auto after = flatten(parse(kernel(
      "lhs: pl.Tensor[[4, 32, 32], pl.FP16], rhs: pl.Tensor[[2, 2, 32, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 2, "
      "16, 16], pl.FP32]]) -> pl.Tensor[[2, 2, 16, 16], pl.FP32]",
      "        a: pl.Tile[[4, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 8, 0], [4, 16, 32], [4, 16, 32], " +
          mat_load +
          "        a4: pl.Tile[[2, 2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.reshape(a, [2, 2, 16, 32])\n"
          "        b: pl.Tile[[2, 2, 32, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs, [0, 0, 0, 0], [2, 2, 32, 16], [2, 2, "
          "32, 16], " +
          mat_load +
          "        c: pl.Tile[[2, 2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a4, b)\n"
          "        out_1: pl.Tensor[[2, 2, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0, 0], out_0)\n"
          "        return out_1")));
  const std::string printed = text::print(after);
  CHECK_FALSE(contains(printed, "tile.reshape"));
  CHECK_FALSE(contains(printed, "a: pl.Tile"));
  // Page p of [4, …] starts at tensor row p * 32 + 8.
  for (int page = 0; page < 4; ++page) {
    CAPTURE(page);
    CHECK(contains(printed, "lhs_pbload_" + std::to_string(page) + ": pl.Tile[[16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs_pbview2d_" +
                                std::to_string(page) + ", [" + std::to_string(page * 32 + 8) + ", 0], [16, 32], [16, 32]"));
  }
  CHECK(contains(printed, "pl.tensor.view(lhs, [128, 32])"));
  check_well_formed(after);
}

// ---- results ----------------------------------------------------------------------------

TEST_CASE("FL-56/FL-58/FL-57: a result dtype the matmul does not produce is cast in Vec (hand-built IR)") {
  auto text = [](const std::string& between) {
    return kernel("lhs: pl.Tensor[[1, 16, 32], pl.FP16], rhs: pl.Tensor[[1, 32, 16], pl.FP16], y: pl.Tensor[[4, 16], "
                  "pl.FP16], out_0: pl.Out[pl.Tensor[[1, 16, 16], pl.FP16]]) -> pl.Tensor[[1, 16, 16], pl.FP16]",
                  operand_loads("[1, 16, 32]", "[1, 32, 16]") +
                      "        c: pl.Tile[[1, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n" + between +
                      "        out_1: pl.Tensor[[1, 16, 16], pl.FP16] = pl.tile.store(c, [0, 0, 0], out_0)\n"
                      "        return out_1");
  };
  auto to_fp16 = [](const ir::Expr& c) {
    const ir::TileType& t = *ir::tile_type(c);
    const ir::Call& call = *ir::as<ir::Call>(c);
    return ir::make_call(call.callee.op, call.args, call.kwargs,
                         ir::make_tile_type(t.shape, ir::DataType::FP16, t.view, t.memory), c->span);
  };
  // A single page with no store after it would be the fast path; the cast sends it through
  // the general one: a Vec tile of the result dtype, the page moved to Vec and cast.
  const std::string general = text::print(flatten(with_calls(
      parse(text("        yt: pl.Tile[[4, 16], pl.FP16, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [4, 16], [4, 16], "
                 "target_memory=pl.Mem.Vec)\n")),
      "tile.batch_matmul", to_fp16)));
  CHECK(contains(general, "c: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.tile.create([16, 16], dtype=pl.FP16, target_memory=pl.Mem.Vec)"));
  CHECK(contains(general, "= pl.tile.move(matmul_0, target_memory=pl.Mem.Vec)"));
  CHECK(contains(general, "matmul_cast_0: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec"));
  CHECK(contains(general, "pl.tile.cast(matmul_vec_0, target_type=pl.FP16, mode='round')"));
  CHECK(contains(general, "pl.tile.assemble(c, matmul_cast_0, [0, 0])"));
  // Fused into the store after it, the cast still needs Vec: move, cast, store.
  const std::string fused = text::print(flatten(with_calls(parse(text("")), "tile.batch_matmul", to_fp16)));
  CHECK(contains(fused, "matmul_vec_0"));
  CHECK(contains(fused, "out_1_0: pl.Tensor[[1, 16, 16], pl.FP16] = pl.tile.store(matmul_cast_0, [0, 0, 0], out_0, [1, 16, 16])"));
  CHECK_FALSE(contains(fused, "tile.create"));
}

TEST_CASE("FL-57: the store is fused only when it is the result's only reader; a 2D result stores without a window") {
  const std::string two_readers = text::print(flatten(parse(kernel(
      "lhs: pl.Tensor[[2, 16, 32], pl.FP16], rhs: pl.Tensor[[2, 32, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 16], "
      "pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]",
      operand_loads("[2, 16, 32]", "[2, 32, 16]") +
          "        c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)\n"
          "        e: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(c, target_memory=pl.Mem.Vec)\n"
          "        return out_1"))));
  // `e` still reads c, so c is assembled (FL-58) and the store stays one statement.
  CHECK_FALSE(contains(two_readers, "out_1_0"));
  CHECK(contains(two_readers, "out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(c_2, [0, 0, 0], out_0, [2, 16, 16])"));
  CHECK(contains(two_readers, "e: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec] = pl.tile.move(c_2, target_memory=pl.Mem.Vec)"));

  auto flat = flatten(parse(kernel(
      "lhs: pl.Tensor[[16, 32], pl.FP16], rhs: pl.Tensor[[32, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[16, 16], "
      "pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]",
      operand_loads("[16, 32]", "[32, 16]") +
          "        c: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        out_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(c, [0, 0], out_0)\n"
          "        return out_1")));
  const std::string printed = text::print(flat);
  CHECK(contains(printed, "out_1_0: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(matmul_0, [0, 0], out_0)"));
  CHECK_FALSE(contains(printed, "batch_matmul"));
  check_well_formed(flat);
}

TEST_CASE("FL-48/FL-57: the per-page stores carry the consumed store's spans, the matmuls the matmul's") {
  auto before = parse(kernel(
      "lhs: pl.Tensor[[2, 16, 32], pl.FP16], rhs: pl.Tensor[[2, 32, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 16], "
      "pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]",
      operand_loads("[2, 16, 32]", "[2, 32, 16]") +
          "        c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)\n"
          "        return out_1"));
  const ir::Stmt mm = body_of(before)[2], store = body_of(before)[3];
  std::size_t stores = 0;
  for (const ir::Stmt& s : body_of(flatten(before))) {
    const ir::Call* c = ir::stmt_call(s);
    if (!c) continue;
    const std::string_view op = ir::op_name(c->callee.op);
    if (op == "tile.store") {
      ++stores;
      CHECK(s->span.line == store->span.line);
      CHECK((*ir::stmt_call_expr(s))->span.line == (*ir::stmt_call_expr(store))->span.line);
      CHECK(ir::as<ir::Assign>(s)->var->span.column == ir::as<ir::Assign>(store)->var->span.column);
      CHECK(ir::as<ir::MakeTuple>(c->args[3])->elements[1]->span.line == store->span.line);
    } else if (op == "tile.matmul" || op == "tile.slice") {
      CHECK(s->span.line == mm->span.line);
    }
  }
  CHECK(stores == 2);
}

// ---- accumulators ----------------------------------------------------------------------

TEST_CASE("FL-59/FL-64: a tile.batch_matmul that starts a packed chain writes its pages into one [M, B*N] Acc tile") {
  auto after = flatten(parse(kernel(
      "lhs: pl.Tensor[[2, 16, 64], pl.FP16], rhs: pl.Tensor[[2, 64, 32], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 32], "
      "pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]",
      operand_loads("[2, 16, 64]", "[2, 64, 32]") +
          "        c: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        d: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(c, a, b)\n" +
          store_d("[2, 16, 32]") + "        return out_1")));
  const std::string printed = text::print(after);
  CHECK(contains(printed, "c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)"));
  CHECK_FALSE(contains(printed, "pl.tile.matmul("));  // every page accumulates
  CHECK(count(printed, ", True)") == 2);              // …with init_cond=True, the producer's two pages
  CHECK_FALSE(contains(printed, "tile.move"));        // FL-63
  // Each page's window and write-back share one offset tuple: codegen sees the assemble as
  // a copy onto itself by that identity.
  std::size_t pages = 0;
  const auto stmts = body_of(after);
  for (std::size_t i = 0; i < stmts.size(); ++i) {
    const ir::Call* c = ir::stmt_call(stmts[i]);
    if (!c || ir::op_name(c->callee.op) != "tile.assemble") continue;
    const ir::Call* window = ir::stmt_call(stmts[i - 2]);
    REQUIRE(ir::op_name(window->callee.op) == "tile.slice");
    CHECK(c->args[2] == window->args[2]);
    CHECK(ints(ir::as<ir::MakeTuple>(c->args[2])->elements) == std::vector<std::int64_t>{0, static_cast<std::int64_t>(pages % 2) * 32});
    ++pages;
  }
  CHECK(pages == 4);
  CHECK(contains(printed, "pl.tile.store(acc_drain_1, [1, 0, 0], out_1, [1, 16, 32])"));
  check_well_formed(after);
}

TEST_CASE("FL-64/FL-25/FL-27: an accumulator carried through a K loop is packed along columns and drained page by page") {
  auto after = flatten(parse(kernel(
      "lhs: pl.Tensor[[2, 16, 128], pl.FP16], rhs: pl.Tensor[[2, 128, 32], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, "
      "32], pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]",
      "        acc0: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([2, 16, 32], dtype=pl.FP32, "
      "target_memory=pl.Mem.Acc)\n"
      "        for k, (acc,) in pl.range(2, init_values=(acc0,)):\n"
      "            a: pl.Tile[[2, 16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0, k * 64], [2, 16, 64], [2, 16, "
      "64], " +
          mat_load +
          "            b: pl.Tile[[2, 64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs, [0, k * 64, 0], [2, 64, 32], [2, 64, "
          "32], " +
          mat_load +
          "            acc2: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc, a, b)\n"
          "            acc_rv: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(acc2)\n"
          "        out_1: pl.Tensor[[2, 16, 32], pl.FP32] = pl.tile.store(acc_rv, [0, 0, 0], out_0)\n"
          "        return out_1")));
  const std::string printed = text::print(after);
  CHECK(contains(printed, "acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)"));
  CHECK(contains(printed, "acc_page_0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, 0])"));
  CHECK(contains(printed, "= pl.tile.slice(acc_1, [16, 32], [0, 32])"));
  CHECK(contains(printed, "acc_rv: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.yield_(acc_2)"));
  CHECK(contains(printed, "acc_drain_0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc_rv, [16, 32], [0, 0])"));
  CHECK(contains(printed, "pl.tile.store(acc_drain_0, [0, 0, 0], out_0, [1, 16, 32])"));
  CHECK(contains(printed, "pl.tile.store(acc_drain_1, [1, 0, 0], out_1, [1, 16, 32])"));
  CHECK_FALSE(contains(printed, "tile.move"));
  // The iter_arg carries the packed type (a loop carry is one buffer with its init).
  auto* loop = ir::as<ir::For>(body_of(after)[1]);
  REQUIRE(loop);
  CHECK(ints(ir::tile_type(loop->iter_args[0])->shape) == std::vector<std::int64_t>{16, 64});
  check_well_formed(after);
}

TEST_CASE("FL-62/FL-64c/FL-63: M=8 cannot be packed, so pages of at most 16 columns keep the row packing") {
  auto after = flatten(parse(accumulator_kernel("[2, 8, 32]", "[2, 32, 16]", "[2, 8, 16]", store_d("[2, 8, 16]"))));
  const std::string printed = text::print(after);
  CHECK(contains(printed, "acc0: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 16]"));
  CHECK(contains(printed, "acc_page_0: pl.Tile[[8, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc0, [8, 16], [0, 0])"));
  CHECK(contains(printed, "= pl.tile.slice(acc0_1, [8, 16], [8, 0])"));
  CHECK(contains(printed, "pl.tile.matmul_acc(acc_page_1, lhs_slice_1, rhs_slice_1)"));
  CHECK(contains(printed, "pl.tile.store(acc0_2, [0, 0, 0], out_0, [2, 8, 16])"));
  CHECK_FALSE(contains(printed, "tile.move"));
  check_well_formed(after);
}

TEST_CASE("FL-64c/FL-64d/BK-02: batched accumulators no lowering can address are rejected with the reason and a fix") {
  // Seed 003's example: 16x24 pages — N is not a whole number of 16-column blocks.
  auto d = error_of(accumulator_kernel("[2, 16, 64]", "[2, 64, 24]", "[2, 16, 24]", store_d("[2, 16, 24]")));
  CHECK(contains(d.message, "tile.batch_matmul_acc: cannot lower a batch-2 accumulator of 16x24 FP32 pages, because the page column extent N=24 is not a multiple of 16.\n"));
  CHECK(contains(d.message, "The pages of a batched accumulator have to be packed along COLUMNS — one 16x48 Acc (L0C) tile with page b at tile.slice(acc, [16, 24], [0, b * 24])"));
  CHECK(contains(d.message, "the whole 3072-byte tile to fit L0C"));
  CHECK(contains(d.message, "Workarounds: write the batch loop out in the kernel"));
  CHECK(d.span.line == 11);

  d = error_of(accumulator_kernel("[2, 8, 64]", "[2, 64, 32]", "[2, 8, 32]", store_d("[2, 8, 32]")));
  CHECK(contains(d.message, "because the page row extent M=8 is not a multiple of 16."));

  // BK-02: 8 pages of 64x128 FP32 are 256 KiB: twice the L0C of Ascend910B, all of Ascend950's.
  const std::string big = accumulator_kernel("[8, 64, 32]", "[8, 32, 128]", "[8, 64, 128]", store_d("[8, 64, 128]"));
  d = error_of(big, backend::Ascend910B::info);
  CHECK(contains(d.message, "the packed accumulator needs 262144 bytes of Acc (L0C), which exceeds the 131072-byte budget this target has"));
  CHECK(contains(text::print(flatten(parse(big), backend::Ascend950::info)), "pl.tile.create([64, 1024], dtype=pl.FP32, target_memory=pl.Mem.Acc)"));
  CHECK(contains(text::print(flatten(parse(big))), "pl.tile.create([64, 1024]"));
}

TEST_CASE("FL-64d: chains whose members the rewrite cannot retype or read page by page are rejected") {
  // A function parameter keeps its type.
  auto d = error_of(kernel(
      "acc0: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc], lhs: pl.Tensor[[2, 16, 64], pl.FP16], rhs: pl.Tensor[[2, 64, "
      "32], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]",
      operand_loads("[2, 16, 64]", "[2, 64, 32]") +
          "        d: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc0, a, b)\n" +
          store_d("[2, 16, 32]") + "        return out_1"));
  CHECK(contains(d.message, "because the accumulator reaches a function parameter or a control-flow carry this pass cannot retype."));

  // A reader that takes the tile whole.
  d = error_of(accumulator_kernel("[2, 16, 64]", "[2, 64, 32]", "[2, 16, 32]",
                          "        e: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.add(d, d)\n" + store_d("[2, 16, 32]")));
  CHECK(contains(d.message, "because the accumulator is consumed by tile.add, which reads it as one flat tile rather than one page at a time."));

  // A tile.batch_matmul producer leaves no row-packed fallback, even 16 columns wide.
  d = error_of(kernel(
      "lhs: pl.Tensor[[2, 8, 64], pl.FP16], rhs: pl.Tensor[[2, 64, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 8, 16], "
      "pl.FP32]]) -> pl.Tensor[[2, 8, 16], pl.FP32]",
      operand_loads("[2, 8, 64]", "[2, 64, 16]") +
          "        c: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        d: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(c, a, b)\n" +
          store_d("[2, 8, 16]") + "        return out_1"));
  CHECK(contains(d.message, "cannot lower a batch-2 accumulator of 8x16 FP32 pages, because the page row extent M=8 is not a multiple of 16."));
}

namespace {

// FL-64e (i): two allocations of one accumulator, merged by a branch, 16 columns wide.
std::string merged_allocations_kernel() {
  return kernel(
      "lhs: pl.Tensor[[2, 16, 64], pl.FP16], rhs: pl.Tensor[[2, 64, 16], pl.FP16], flag: pl.Scalar[pl.INDEX], out_0: "
      "pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]",
      operand_loads("[2, 16, 64]", "[2, 64, 16]") +
          "        if flag == 0:\n"
          "            x0: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create([2, 16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
          "            x: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.yield_(x0)\n"
          "        else:\n"
          "            x1: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.create([2, 16, 16], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
          "            x: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.yield_(x1)\n"
          "        d: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(x, a, b)\n" +
          store_d("[2, 16, 16]") + "        return out_1");
}

}  // namespace

TEST_CASE("FL-64e: two allocations merged by control flow, or an accumulator nothing can write, fail at any width") {
  auto merged = merged_allocations_kernel();
  auto d = error_of(merged);
  CHECK(contains(d.message, "because the accumulator is allocated by 2 separate definitions that control flow then merges into one value, and reconciling them would need an L0C-to-L0C copy the hardware does not have."));
  CHECK(contains(d.message, "Workaround: give the accumulator a single allocation"));
  CHECK_FALSE(contains(d.message, "packed along COLUMNS"));  // nothing to do with page geometry

  d = error_of(kernel(
      "lhs: pl.Tensor[[2, 16, 64], pl.FP16], rhs: pl.Tensor[[2, 64, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 16], "
      "pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]",
      operand_loads("[2, 16, 64]", "[2, 64, 16]") +
          "        flat: pl.Tile[[32, 16], pl.FP32] = pl.tile.create([32, 16], dtype=pl.FP32, target_memory=None)\n"
          "        acc0: pl.Tile[[2, 16, 16], pl.FP32] = pl.tile.reshape(flat, [2, 16, 16])\n"
          "        d: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc0, a, b)\n" +
          store_d("[2, 16, 16]") + "        return out_1"));
  CHECK(contains(d.message, "because the accumulator is produced by tile.reshape, which cannot write Acc (L0C) at all"));
  CHECK(contains(d.message, "Workaround: an accumulator has to come from a matmul, or from an allocation (pl.tile.create)"));
  CHECK_FALSE(contains(d.message, "packed along COLUMNS"));
}

TEST_CASE("FL-64e: an accumulator drained by tile.move keeps row packing up to 16 columns and is rejected beyond") {
  auto moved = [](const std::string& n) {
    const std::string dims = "[2, 16, " + n + "]";
    return accumulator_kernel("[2, 16, 64]", "[2, 64, " + n + "]", dims,
                      "        v: pl.Tile[" + dims + ", pl.FP32, pl.Mem.Vec] = pl.tile.move(d, target_memory=pl.Mem.Vec)\n"
                      "        out_1: pl.Tensor[" + dims + ", pl.FP32] = pl.tile.store(v, [0, 0, 0], out_0)\n");
  };
  auto d = error_of(moved("32"));
  CHECK(contains(d.message, "because the accumulator is drained by tile.move into a vector epilogue"));
  CHECK_FALSE(contains(d.message, "packed along COLUMNS"));
  const std::string narrow = text::print(flatten(parse(moved("16"))));
  CHECK(contains(narrow, "= pl.tile.slice(acc0_1, [16, 16], [16, 0])"));
  CHECK(contains(narrow, "v: pl.Tile[[32, 16], pl.FP32, pl.Mem.Vec"));
}

TEST_CASE("FL-60: the accumulator must be one named 2D tile of the pages' shape once flattened") {
  // A function parameter keeps its rank; 16-column pages would otherwise row-pack.
  auto d = error_of(kernel(
      "acc0: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc], lhs: pl.Tensor[[2, 16, 64], pl.FP16], rhs: pl.Tensor[[2, 64, "
      "16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]",
      operand_loads("[2, 16, 64]", "[2, 64, 16]") +
          "        d: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc0, a, b)\n" +
          store_d("[2, 16, 16]") + "        return out_1"));
  CHECK(contains(d.message, "tile.batch_matmul_acc expects acc to be 2D after flatten, got rank 3"));
  CHECK(d.span.line == 10);

  // Hand-built: an accumulator operand that is not a name.
  auto unnamed = [](const std::string& n) {
    const std::string dims = "[2, 16, " + n + "]";
    auto p = parse(accumulator_kernel("[2, 16, 64]", "[2, 64, " + n + "]", dims, store_d(dims)));
    const ir::Expr create = ir::as<ir::Assign>(body_of(p)[0])->value;
    return with_calls(p, "tile.batch_matmul_acc", [create](const ir::Expr& c) {
      auto args = ir::as<ir::Call>(c)->args;
      args[0] = create;
      return with_args(c, args);
    });
  };
  CHECK(contains(error_of(unnamed("16")).message, "tile.batch_matmul_acc acc must be a Var/IterArg after substitution, got TileType"));
  CHECK(contains(error_of(unnamed("32")).message, "because the accumulator operand is not a named value, so its chain cannot be tracked."));
}

// ---- row windows -----------------------------------------------------------------------

namespace {

// A [rows, 32] FP32 accumulator updated through [window, 32] row windows at `offsets`, each
// written back at `back`, then stored whole.
std::string row_windows(int rows, int window, const std::vector<std::string>& offsets,
                        const std::vector<std::string>& back, int cols = 32) {
  const std::string c = std::to_string(cols), r = std::to_string(rows), w = std::to_string(window);
  std::string body = "        a: pl.Tile[[" + w + ", 64], pl.FP16, pl.Mem.Left] = pl.tile.load(x, [0, 0], [" + w + ", 64], [" +
                     w + ", 64], target_memory=pl.Mem.Left)\n"
                     "        b: pl.Tile[[64, " + c + "], pl.FP16, pl.Mem.Right] = pl.tile.load(y, [0, 0], [64, " + c +
                     "], [64, " + c + "], target_memory=pl.Mem.Right)\n"
                     "        acc0: pl.Tile[[" + r + ", " + c + "], pl.FP32, pl.Mem.Acc] = pl.tile.create([" + r + ", " + c +
                     "], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n";
  for (std::size_t i = 0; i < offsets.size(); ++i) {
    const std::string n = std::to_string(i), prev = "acc" + n, next = "acc" + std::to_string(i + 1);
    body += "        w" + n + ": pl.Tile[[" + w + ", " + c + "], pl.FP32, pl.Mem.Acc] = pl.tile.slice(" + prev + ", [" + w +
            ", " + c + "], " + offsets[i] + ")\n"
            "        p" + n + ": pl.Tile[[" + w + ", " + c + "], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w" + n +
            ", a, b, True)\n"
            "        " + next + ": pl.Tile[[" + r + ", " + c + "], pl.FP32, pl.Mem.Acc] = pl.tile.assemble(" + prev +
            ", p" + n + ", " + back[i] + ")\n";
  }
  body += "        out_1: pl.Tensor[[" + r + ", " + c + "], pl.FP32] = pl.tile.store(acc" + std::to_string(offsets.size()) +
          ", [0, 0], out_0)\n        return out_1";
  return kernel("x: pl.Tensor[[" + w + ", 64], pl.FP16], y: pl.Tensor[[64, " + c + "], pl.FP16], out_0: pl.Out[pl.Tensor[[" +
                    r + ", " + c + "], pl.FP32]]) -> pl.Tensor[[" + r + ", " + c + "], pl.FP32]",
                body);
}

}  // namespace

TEST_CASE("FL-65/FL-25: logical row windows of a 2D accumulator become column bands of [R, T*N]") {
  auto after = flatten(parse(row_windows(32, 16, {"[0, 0]", "[16, 0]"}, {"[0, 0]", "[16, 0]"})));
  const std::string printed = text::print(after);
  CHECK(contains(printed, "acc0: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)"));
  CHECK(contains(printed, "w1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc1, [16, 32], [0, 32])"));
  CHECK(contains(printed, "acc2: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.assemble(acc1, p1, [0, 32])"));
  // The whole store becomes one store per window, at the window's logical rows, 2D.
  CHECK(contains(printed, "pl.tile.store(acc_drain_0, [0, 0], out_0)"));
  CHECK(contains(printed, "acc_drain_1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc2, [16, 32], [0, 32])"));
  CHECK(contains(printed, "pl.tile.store(acc_drain_1, [16, 0], out_1)"));
  check_well_formed(after);

  // A window the MAD writes in place (a parent one block column wide) is left alone.
  auto narrow = parse(row_windows(32, 16, {"[0, 0]", "[16, 0]"}, {"[0, 0]", "[16, 0]"}, 16));
  CHECK(flatten(narrow) == narrow);
}

TEST_CASE("FL-65: a row window at a loop-dependent offset is translated with a floor division") {
  auto after = flatten(parse(kernel(
      "x: pl.Tensor[[16, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], out_0: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> "
      "pl.Tensor[[64, 32], pl.FP32]",
      "        a: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Left)\n"
      "        b: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.load(w, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Right)\n"
      "        acc: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
      "        for t, (cur,) in pl.range(4, init_values=(acc,)):\n"
      "            row: pl.Scalar[pl.INDEX] = t * 16\n"
      "            win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(cur, [16, 32], [row, 0])\n"
      "            part: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(win, a, b, True)\n"
      "            nxt: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.assemble(cur, part, [row, 0])\n"
      "            cur_rv: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(nxt)\n"
      "        out_1: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(cur_rv, [0, 0], out_0)\n"
      "        return out_1")));
  const std::string printed = text::print(after);
  CHECK(contains(printed, "pl.tile.create([16, 128], dtype=pl.FP32, target_memory=pl.Mem.Acc)"));
  CHECK(contains(printed, "pl.tile.slice(cur, [16, 32], [0, row // 16 * 32])"));
  CHECK(contains(printed, "pl.tile.assemble(cur, part, [0, row // 16 * 32])"));
  CHECK(contains(printed, "pl.tile.store(acc_drain_3, [48, 0], out_1_2)"));
  check_well_formed(after);
}

TEST_CASE("FL-65: row windows that do not tile the accumulator, or are written back elsewhere, are rejected") {
  auto d = error_of(row_windows(32, 12, {"[0, 0]"}, {"[0, 0]"}));
  CHECK(contains(d.message, "matmul_acc accumulator row windows must evenly divide the parent row extent; got 12 rows in a 32-row accumulator"));
  d = error_of(row_windows(32, 16, {"[0, 0]"}, {"[16, 0]"}));
  CHECK(contains(d.message, "matmul_acc: cannot lower the shared accumulator's row slices because the slice assignment does not write a matmul_acc result back to its original window."));
  CHECK(contains(d.message, "with equal-size, aligned row windows of one locally allocated accumulator"));
}

// ---- loop-carry repair -------------------------------------------------------------------

namespace {

// A carry seeded by tile.create and yielding a single-page matmul of an lhs whose valid
// rows are `valid` (computed by `extent`, when given, inside the loop).
std::string narrowed_carry(int rows, const std::string& valid, const std::string& extent = "") {
  const std::string m = std::to_string(rows);
  return kernel("lhs: pl.Tensor[[1, " + m + ", 128], pl.INT8], rhs: pl.Tensor[[1, 128, 256], pl.INT8], v: pl.Scalar[pl.INDEX], "
                "out_0: pl.Out[pl.Tensor[[1, " + m + ", 256], pl.INT32]]) -> pl.Tensor[[1, " + m + ", 256], pl.INT32]",
                "        acc0: pl.Tile[[1, " + m + ", 256], pl.INT32, pl.Mem.Acc] = pl.tile.create([1, " + m +
                    ", 256], dtype=pl.INT32, target_memory=pl.Mem.Acc)\n"
                    "        for k, (acc,) in pl.range(2, init_values=(acc0,)):\n" + extent +
                    "            a: pl.Tile[[1, " + m + ", 64], pl.INT8, pl.Mem.Mat, pl.TileView(valid_shape=[1, " + valid +
                    ", 64])] = pl.tile.load(lhs, [0, 0, k * 64], [1, " + m + ", 64], [1, " + valid + ", 64], " + mat_load +
                    "            b: pl.Tile[[1, 64, 256], pl.INT8, pl.Mem.Mat] = pl.tile.load(rhs, [0, k * 64, 0], [1, 64, 256], [1, 64, 256], " +
                    mat_load + "            c: pl.Tile[[1, " + m + ", 256], pl.INT32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
                    "            acc_rv: pl.Tile[[1, " + m + ", 256], pl.INT32, pl.Mem.Acc] = pl.yield_(c)\n"
                    "        out_1: pl.Tensor[[1, " + m + ", 256], pl.INT32] = pl.tile.store(acc_rv, [0, 0, 0], out_0)\n"
                    "        return out_1");
}

}  // namespace

TEST_CASE("FL-66: an Acc carry whose yield is narrower is re-declared before the loop at the proven extent") {
  auto after = flatten(parse(narrowed_carry(64, "v")));
  const std::string printed = text::print(after);
  CHECK(contains(printed, "acc0_narrowed_storage: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc, pl.TileView(compact=pl.CompactMode.normal)] = pl.tile.create([64, 256], dtype=pl.INT32, target_memory=pl.Mem.Acc, compact=True)"));
  CHECK(contains(printed, "= pl.tile.set_validshape(acc0_narrowed_storage, pl.min(v, 64), 256)"));
  CHECK(contains(printed, "for k, (acc,) in pl.range(2, init_values=(acc0_narrowed,)):"));
  // The loop was the seed's only reader: its full-box allocation goes (L0C has no room for two).
  CHECK_FALSE(contains(printed, "acc0: pl.Tile"));
  // The carry, its yield and the loop's result agree: iter_arg, yield and return_var types.
  auto stmts = body_of(after);
  const ir::For* loop = nullptr;
  for (const auto& s : stmts) loop = loop ? loop : ir::as<ir::For>(s);
  REQUIRE(loop);
  const ir::TileType& carried = *ir::tile_type(loop->iter_args[0]);
  CHECK(carried.view);
  CHECK(carried.view->compact == ir::CompactMode::normal);
  CHECK(ir::structural_equal(loop->iter_args[0]->type, loop->return_vars[0]->type));
  auto* yield = ir::as<ir::Yield>(ir::body_stmts(loop->body).back());
  CHECK(ir::structural_equal(yield->values[0]->type, loop->iter_args[0]->type));
  check_well_formed(after);
}

TEST_CASE("FL-66: a seed read after the loop as well keeps its allocation beside the narrowed one") {
  std::string program = narrowed_carry(64, "v");
  const std::string store = "        out_1: pl.Tensor[[1, 64, 256], pl.INT32] = pl.tile.store(acc_rv, [0, 0, 0], out_0)\n";
  REQUIRE(contains(program, store));
  program.replace(program.find(store), store.size(),
               store + "        out_2: pl.Tensor[[1, 64, 256], pl.INT32] = pl.tile.store(acc0, [0, 0, 0], out_1)\n");
  program.replace(program.find("        return out_1"), std::string("        return out_1").size(), "        return out_2");
  const std::string printed = text::print(flatten(parse(program)));
  CHECK(contains(printed, "acc0: pl.Tile[[64, 256], pl.INT32, pl.Mem.Acc] = pl.tile.create([64, 256]"));
  CHECK(contains(printed, "init_values=(acc0_narrowed,)"));
  CHECK(contains(printed, "pl.tile.store(acc0, [0, 0, 0], out_1"));
}

TEST_CASE("FL-66: carries are left alone when the extent is computed in the body or a 16-row box reads the same") {
  // `vv` is only known inside the loop, so no seed before it can name it.
  const std::string inside = text::print(flatten(parse(narrowed_carry(
      64, "vv", "            vv: pl.Scalar[pl.INDEX] = pl.min(v, k + 16)\n"))));
  CHECK_FALSE(contains(inside, "_narrowed"));
  // One 16-row block packs every valid row count to 16 rows: both readings agree.
  const std::string block = text::print(flatten(parse(narrowed_carry(16, "v"))));
  CHECK_FALSE(contains(block, "_narrowed"));
  CHECK(contains(block, "for k, (acc,) in pl.range(2, init_values=(acc0,)):"));
}

// ---- preconditions -----------------------------------------------------------------------

TEST_CASE("FL-50: a >2D tile.transpose_view read by anything but a batched matmul is rejected") {
  auto d = error_of(kernel(
      "lhs: pl.Tensor[[2, 64, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 64], pl.FP16]]) -> pl.Tensor[[2, 16, 64], pl.FP16]",
      "        a: pl.Tile[[2, 64, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0, 0], [2, 64, 16], [2, 64, 16], " + mat_load +
          "        at: pl.Tile[[2, 16, 64], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, "
          "slayout=pl.TileLayout.col_major)] = pl.tile.transpose_view(a)\n"
          "        m: pl.Tile[[2, 16, 64], pl.FP16, pl.Mem.Vec] = pl.tile.move(at, target_memory=pl.Mem.Vec)\n"
          "        out_1: pl.Tensor[[2, 16, 64], pl.FP16] = pl.tile.store(m, [0, 0, 0], out_0)\n"
          "        return out_1"));
  CHECK(contains(d.message, "tile.transpose_view of the >2D tile [2, 64, 16] is only lowered as a tile.batch_matmul operand"));
  CHECK(d.span.line == 9);
}

TEST_CASE("FL-14/FL-55: a non-contiguous operand load that also has another reader is kept, so it must collapse") {
  auto d = error_of(kernel(
      "lhs: pl.Tensor[[2, 16, 32], pl.FP16], rhs: pl.Tensor[[2, 48, 64], pl.FP16], flag: pl.Scalar[pl.INDEX], out_0: "
      "pl.Out[pl.Tensor[[2, 16, 64], pl.FP32]], out_b: pl.Out[pl.Tensor[[2, 32, 64], pl.FP16]]) -> "
      "tuple[pl.Tensor[[2, 16, 64], pl.FP32], pl.Tensor[[2, 32, 64], pl.FP16]]",
      "        a: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0, 0], [2, 16, 32], [2, 16, 32], " + mat_load +
          "        b: pl.Tile[[2, 32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs, [0, 0, 0], [2, 32, 64], [2, 32, 64], " +
          mat_load +
          "        c: pl.Tile[[2, 16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        r1: pl.Tensor[[2, 16, 64], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)\n"
          "        if flag == 0:\n"
          "            bv: pl.Tile[[2, 32, 64], pl.FP16, pl.Mem.Vec] = pl.tile.move(b, target_memory=pl.Mem.Vec)\n"
          "            r2: pl.Tensor[[2, 32, 64], pl.FP16] = pl.tile.store(bv, [0, 0, 0], out_b)\n"
          "            rr: pl.Tensor[[2, 32, 64], pl.FP16] = pl.yield_(r2)\n"
          "        else:\n"
          "            rr: pl.Tensor[[2, 32, 64], pl.FP16] = pl.yield_(out_b)\n"
          "        return r1, rr"));
  CHECK(contains(d.message, "not one contiguous band of rows"));
  CHECK(d.span.line == 9);
}

TEST_CASE("FL-47/BK-01: a matmul inside a loop slices operands loaded outside it, whatever their size") {
  auto after = flatten(parse(kernel(
      "lhs: pl.Tensor[[4, 128, 256], pl.FP16], rhs: pl.Tensor[[4, 256, 256], pl.FP16], out_0: pl.Out[pl.Tensor[[4, 128, "
      "256], pl.FP32]]) -> pl.Tensor[[4, 128, 256], pl.FP32]",
      operand_loads("[4, 128, 256]", "[4, 256, 256]") +
          "        for i, (o,) in pl.range(2, init_values=(out_0,)):\n"
          "            c: pl.Tile[[4, 128, 256], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "            o2: pl.Tensor[[4, 128, 256], pl.FP32] = pl.tile.store(c, [0, 0, 0], o)\n"
          "            o_rv: pl.Tensor[[4, 128, 256], pl.FP32] = pl.yield_(o2)\n"
          "        return o_rv")),
      backend::Ascend910B::info);
  const std::string printed = text::print(after);
  CHECK_FALSE(contains(printed, "_pbload_"));
  CHECK(contains(printed, "lhs_slice_3: pl.Tile[[128, 256], pl.FP16, pl.Mem.Mat] = pl.tile.slice(a, [128, 256], [384, 0])"));
  check_well_formed(after);
}

// ---- the contract, row by row (seed 003 wins; catalog §1.12–§1.16, §5) ---------------------

namespace {

// The statements of the first function with op `op`, in order, nested bodies included.
std::vector<const ir::Call*> calls_of(const ir::Program& p, std::string_view op) {
  std::vector<const ir::Call*> out;
  ir::for_each_stmt(p->functions[0]->body, [&](const ir::Stmt& s) {
    const ir::Call* c = ir::stmt_call(s);
    if (c && ir::op_name(c->callee.op) == op) out.push_back(c);
  });
  return out;
}

std::vector<std::int64_t> tuple_ints(const ir::Expr& e) { return ints(ir::as<ir::MakeTuple>(e)->elements); }

// An input of this project's seed goldens (tests/golden/seed/flatten_tile_nd_to_2d).
std::string golden_text(const std::string& name) {
  std::ifstream in(std::string(TILEWRIGHT_SOURCE_DIR) + "/tests/golden/seed/flatten_tile_nd_to_2d/" + name + ".pto",
                   std::ios::binary);
  REQUIRE(in);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Hand-built IR: the Var named `name` gets type `type` (the parser would deduce another).
ir::Program with_var_type(const ir::Program& p, std::string_view name, ir::Type type) {
  struct Retype : ir::Mutator<Retype> {
    std::string_view name;
    ir::Type type;
    ir::Expr mutate_definition(const ir::Expr& e) {
      if (ir::name_hint(e) != name) return ir::Mutator<Retype>::mutate_definition(e);
      ir::Expr fresh = ir::make_expr(e->v, type, e->span);
      substitute(e, fresh);
      return fresh;
    }
  } m;
  m.name = name;
  m.type = std::move(type);
  return ir::make_program(p->name, {m.mutate_function(p->functions[0])});
}

}  // namespace

TEST_CASE("FL-51: broadcast over one and over three batch axes reads the NumPy page of each operand") {
  // One axis: lhs [1, …] is shared by all four output pages.
  auto one = flatten(parse(kernel(
      "lhs: pl.Tensor[[1, 16, 32], pl.FP16], rhs: pl.Tensor[[4, 32, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[4, 16, 16], "
      "pl.FP32]]) -> pl.Tensor[[4, 16, 16], pl.FP32]",
      operand_loads("[1, 16, 32]", "[4, 32, 16]") +
          "        c: pl.Tile[[4, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        out_1: pl.Tensor[[4, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)\n"
          "        return out_1")));
  auto slices = calls_of(one, "tile.slice");
  REQUIRE(slices.size() == 8);
  for (std::int64_t i = 0; i < 4; ++i) {
    CHECK(tuple_ints(slices[2 * i]->args[2]) == std::vector<std::int64_t>{0, 0});
    CHECK(tuple_ints(slices[2 * i + 1]->args[2]) == std::vector<std::int64_t>{i * 32, 0});
  }
  check_well_formed(one);

  // Three axes: [2, 1, 3] x [1, 2, 1] → [2, 2, 3], twelve pages. Output page (b0, b1, b2)
  // reads lhs page b0*3 + b2 and rhs page b1, and is stored at [b0, b1, b2, 0, 0].
  auto three = flatten(parse(kernel(
      "lhs: pl.Tensor[[2, 1, 3, 16, 32], pl.FP16], rhs: pl.Tensor[[1, 2, 1, 32, 16], pl.FP16], out_0: "
      "pl.Out[pl.Tensor[[2, 2, 3, 16, 16], pl.FP32]]) -> pl.Tensor[[2, 2, 3, 16, 16], pl.FP32]",
      operand_loads("[2, 1, 3, 16, 32]", "[1, 2, 1, 32, 16]") +
          "        c: pl.Tile[[2, 2, 3, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        out_1: pl.Tensor[[2, 2, 3, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0, 0, 0], out_0)\n"
          "        return out_1")));
  slices = calls_of(three, "tile.slice");
  auto stores = calls_of(three, "tile.store");
  REQUIRE(slices.size() == 24);
  REQUIRE(stores.size() == 12);
  for (std::int64_t b0 = 0; b0 < 2; ++b0)
    for (std::int64_t b1 = 0; b1 < 2; ++b1)
      for (std::int64_t b2 = 0; b2 < 3; ++b2) {
        const std::int64_t i = (b0 * 2 + b1) * 3 + b2;
        CAPTURE(i);
        CHECK(tuple_ints(slices[2 * i]->args[2]) == std::vector<std::int64_t>{(b0 * 3 + b2) * 16, 0});
        CHECK(tuple_ints(slices[2 * i + 1]->args[2]) == std::vector<std::int64_t>{b1 * 32, 0});
        CHECK(tuple_ints(stores[i]->args[1]) == std::vector<std::int64_t>{b0, b1, b2, 0, 0});
        CHECK(tuple_ints(stores[i]->args[3]) == std::vector<std::int64_t>{1, 1, 1, 16, 16});
      }
  check_well_formed(three);
}

TEST_CASE("FL-17: a >2D operand load that names no memory loads into Mat, collapsed like a natural NZ load (hand-built IR)") {
  // The DSL always writes target_memory, so the load is edited into the form C++ may build.
  auto p = parse(kernel(
      "lhs: pl.Tensor[[2, 16, 32], pl.FP16], rhs: pl.Tensor[[2, 32, 16], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 16], "
      "pl.FP32]]) -> pl.Tensor[[2, 16, 16], pl.FP32]",
      operand_loads("[2, 16, 32]", "[2, 32, 16]") +
          "        c: pl.Tile[[2, 16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        out_1: pl.Tensor[[2, 16, 16], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)\n"
          "        return out_1"));
  auto no_memory = [](const ir::Expr& c) {
    const ir::Call& call = *ir::as<ir::Call>(c);
    const ir::TileType& t = *ir::tile_type(c);
    return ir::make_call(call.callee.op, call.args, {}, ir::make_tile_type(t.shape, t.dtype, std::nullopt, std::nullopt), c->span);
  };
  auto edited = with_var_type(with_var_type(with_calls(p, "tile.load", no_memory), "a",
                                            ir::make_tile_type({ir::make_int(2), ir::make_int(16), ir::make_int(32)},
                                                               ir::DataType::FP16, std::nullopt, std::nullopt)),
                              "b",
                              ir::make_tile_type({ir::make_int(2), ir::make_int(32), ir::make_int(16)}, ir::DataType::FP16,
                                                 std::nullopt, std::nullopt));
  const std::string printed = text::print(flatten(edited));
  CHECK(contains(printed, "a_view2d: pl.Tensor[[32, 32]"));
  CHECK(contains(printed, "a: pl.Tile[[32, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(a_view2d, [0, 0], [32, 32], [32, 32], target_memory=pl.Mem.Mat)"));
  CHECK(contains(printed, "b: pl.Tile[[64, 16], pl.FP16, pl.Mem.Mat] = pl.tile.load(b_view2d, [0, 0], [64, 16], [64, 16], target_memory=pl.Mem.Mat)"));
  CHECK(pass::verify(pass::Property::TileOps2D, flatten(edited)).empty());
}

TEST_CASE("FL-61/FL-62/FL-64: a batch_matmul_acc's init_cond is every page's init_cond") {
  auto looped = [](const std::string& n) {
    const std::string dims = "[" + n + ", 16, 32]";
    return kernel("lhs: pl.Tensor[[" + n + ", 16, 128], pl.FP16], rhs: pl.Tensor[[" + n + ", 128, 32], pl.FP16], out_0: pl.Out[pl.Tensor[" +
                      dims + ", pl.FP32]]) -> pl.Tensor[" + dims + ", pl.FP32]",
                  "        acc0: pl.Tile[" + dims + ", pl.FP32, pl.Mem.Acc] = pl.tile.create(" + dims +
                      ", dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
                      "        for k, (acc,) in pl.range(2, init_values=(acc0,)):\n"
                      "            a: pl.Tile[[" + n + ", 16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(lhs, [0, 0, k * 64], [" + n +
                      ", 16, 64], [" + n + ", 16, 64], " + mat_load +
                      "            b: pl.Tile[[" + n + ", 64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(rhs, [0, k * 64, 0], [" + n +
                      ", 64, 32], [" + n + ", 64, 32], " + mat_load +
                      "            acc2: pl.Tile[" + dims + ", pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc, a, b, k == 0)\n"
                      "            acc_rv: pl.Tile[" + dims + ", pl.FP32, pl.Mem.Acc] = pl.yield_(acc2)\n"
                      "        out_1: pl.Tensor[" + dims + ", pl.FP32] = pl.tile.store(acc_rv, [0, 0, 0], out_0)\n"
                      "        return out_1");
  };
  auto two = flatten(parse(looped("2")));
  auto products = calls_of(two, "tile.matmul_acc");
  REQUIRE(products.size() == 2);
  for (const ir::Call* c : products) {
    REQUIRE(c->args.size() == 4);
    CHECK(contains(text::print(two), "= pl.tile.matmul_acc(acc_page_0, lhs_slice_0, rhs_pbload_0, k == 0)"));
  }
  check_well_formed(two);
  auto one = flatten(parse(looped("1")));
  products = calls_of(one, "tile.matmul_acc");
  REQUIRE(products.size() == 1);
  CHECK(products[0]->args.size() == 4);
  CHECK(contains(text::print(one), "acc_1: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc, lhs_slice_0, rhs_slice_0, k == 0)"));
  check_well_formed(one);
}

TEST_CASE("FL-59: the window and the write-back of every page share one offset tuple, through the default pipeline") {
  auto p = parse(kernel(
      "lhs: pl.Tensor[[2, 16, 64], pl.FP16], rhs: pl.Tensor[[2, 64, 32], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 32], "
      "pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]",
      operand_loads("[2, 16, 64]", "[2, 64, 32]") +
          "        c: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul(a, b)\n"
          "        d: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(c, a, b)\n" +
          store_d("[2, 16, 32]") + "        return out_1"));
  pass::PassContext ctx;
  for (const ir::Program& after : {flatten(p), passes::materialize_tensor_strides(flatten(p), ctx)}) {
    // Every tile.assemble writes back the window the tile.slice two statements earlier read.
    const auto stmts = body_of(after);
    std::size_t shared = 0;
    for (std::size_t i = 2; i < stmts.size(); ++i) {
      const ir::Call* c = ir::stmt_call(stmts[i]);
      if (!c || ir::op_name(c->callee.op) != "tile.assemble") continue;
      CHECK(c->args[2] == ir::stmt_call(stmts[i - 2])->args[2]);
      ++shared;
    }
    CHECK(shared == 4);
  }
}

TEST_CASE("FL-65/CT-19: a window flatten leaves alone is one CanonicalizeTileSlice accepts, and so is every packed one") {
  pass::PassContext ctx;
  auto ct_error = [&](const ir::Program& p) -> std::string {
    try {
      passes::canonicalize_tile_slice(p, ctx);
    } catch (const ir::Error& e) {
      return e.diagnostic().message;
    }
    return "";
  };
  // [16, 32] row windows of a [32, 32] accumulator: CT-19 refuses them as written; packed to
  // column bands of [16, 64], it accepts them.
  auto rows = parse(row_windows(32, 16, {"[0, 0]", "[16, 0]"}, {"[0, 0]", "[16, 0]"}));
  CHECK(contains(ct_error(rows), "not contiguous in L0C's block layout"));
  CHECK(ct_error(flatten(rows)).empty());
  // [16, 16] windows inside one block column of a [48, 32] accumulator (seed 003's example):
  // the MAD writes them in place, so flatten leaves them, and CT-19 agrees.
  auto kept = parse(golden_text("row_windows_mad_addressable_kept"));
  CHECK(flatten(kept) == kept);
  CHECK(ct_error(kept).empty());
  // At column 8 the same window straddles two blocks: CT-19 refuses it, and flatten, which
  // would have to pack it, cannot start its column band on a block (seed golden
  // err_row_windows_straddle_block).
  auto straddle = parse(golden_text("err_row_windows_straddle_block"));
  CHECK(contains(ct_error(straddle), "not contiguous in L0C's block layout"));
  CHECK(contains(error_of(straddle).message, "column offset"));
}

namespace {

// FL-64c: the three parts of a batched-accumulator rejection, spelled out.
std::string rejection_head(const std::string& pages) {
  return "tile.batch_matmul_acc: cannot lower a batch-2 accumulator of " + pages + " FP32 pages, because ";
}
const std::string geometry_16x32 =
    "The pages of a batched accumulator have to be packed along COLUMNS — one 16x64 Acc (L0C) tile with page b at "
    "tile.slice(acc, [16, 32], [0, b * 32]) — because the hardware MAD writes its destination compactly and has no "
    "destination stride, so only a window that spans every row of a tile wider than one 16-column block is a place it "
    "can write. That packing needs M and N to be whole multiples of 16, a 4-byte (FP32/INT32) accumulator, one buffer "
    "per chain, and the whole 4096-byte tile to fit L0C.\n";
const std::string default_workarounds =
    "Workarounds: write the batch loop out in the kernel and accumulate each page into its own 2-D tile (pl.matmul / "
    "pl.matmul_acc on 2-D operands); or keep the accumulator at most 16 columns wide, which fits a single L0C block "
    "column and needs no packing.";
std::string geometry_rejection(const std::string& reason) {
  return rejection_head("16x32") + reason + ".\n" + geometry_16x32 + default_workarounds;
}
const std::string row_window_advice =
    ". Use acc[...] = pl.matmul_acc(acc[...], lhs, rhs, init_cond=...) with equal-size, aligned row windows of one "
    "locally allocated accumulator, and store the result after reduction.";

}  // namespace

TEST_CASE("FL-64c/FL-64d: each reason a 16x32 chain is refused for, in the whole message") {
  const std::string dims = "[2, 16, 32]";
  SUBCASE("a function parameter") {
    auto d = error_of(kernel(
        "acc0: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc], lhs: pl.Tensor[[2, 16, 64], pl.FP16], rhs: pl.Tensor[[2, 64, "
        "32], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 32], pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]",
        operand_loads("[2, 16, 64]", "[2, 64, 32]") +
            "        d: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc0, a, b)\n" + store_d(dims) +
            "        return out_1"));
    CHECK(d.message == geometry_rejection("the accumulator reaches a function parameter or a control-flow carry this "
                                          "pass cannot retype"));
  }
  SUBCASE("a reader of the whole tile") {
    auto d = error_of(accumulator_kernel("[2, 16, 64]", "[2, 64, 32]", dims,
                                         "        e: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.add(d, d)\n" +
                                             store_d(dims)));
    CHECK(d.message == geometry_rejection("the accumulator is consumed by tile.add, which reads it as one flat tile "
                                          "rather than one page at a time"));
  }
  SUBCASE("a store this pass cannot split per page") {
    auto d = error_of(accumulator_kernel("[2, 16, 64]", "[2, 64, 32]", dims,
                                         "        out_1: pl.Tensor[[1, 2, 16, 32], pl.FP32] = pl.tile.store(d, [0, 0, 0, 0], out_0)\n",
                                         "[1, 2, 16, 32]"));
    CHECK(d.message == geometry_rejection("the accumulator is stored through a tile.store whose window this pass cannot "
                                          "split into one store per batch page"));
  }
  SUBCASE("another memory stated for it") {
    auto d = error_of(kernel(
        "lhs: pl.Tensor[[2, 16, 64], pl.FP16], rhs: pl.Tensor[[2, 64, 32], pl.FP16], out_0: pl.Out[pl.Tensor[[2, 16, 32], "
        "pl.FP32]]) -> pl.Tensor[[2, 16, 32], pl.FP32]",
        "        acc0: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.create([2, 16, 32], dtype=pl.FP32, "
        "target_memory=pl.Mem.Vec)\n" +
            operand_loads("[2, 16, 64]", "[2, 64, 32]") +
            "        d: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.batch_matmul_acc(acc0, a, b)\n" + store_d(dims) +
            "        return out_1"));
    CHECK(d.message == geometry_rejection("the accumulator is annotated to live in Vec memory, but only the matrix unit "
                                          "writes Acc (L0C)"));
  }
  SUBCASE("a partial valid_shape (hand-built)") {
    auto p = parse(accumulator_kernel("[2, 16, 64]", "[2, 64, 32]", dims, store_d(dims)));
    ir::TileView view;
    view.valid_shape = {ir::make_int(2), ir::make_int(8), ir::make_int(32)};
    auto d = error_of(with_var_type(p, "acc0",
                                    ir::make_tile_type({ir::make_int(2), ir::make_int(16), ir::make_int(32)}, ir::DataType::FP32,
                                                       view, ir::MemorySpace::Acc)));
    CHECK(d.message == geometry_rejection("the accumulator carries a partial valid_shape, which has no equivalent once "
                                          "the pages sit side by side in one tile"));
  }
  SUBCASE("an accumulator operand that is not a name (hand-built)") {
    auto p = parse(accumulator_kernel("[2, 16, 64]", "[2, 64, 32]", dims, store_d(dims)));
    const ir::Expr create = ir::as<ir::Assign>(body_of(p)[0])->value;
    auto d = error_of(with_calls(p, "tile.batch_matmul_acc", [create](const ir::Expr& c) {
      auto args = ir::as<ir::Call>(c)->args;
      args[0] = create;
      return with_args(c, args);
    }));
    CHECK(d.message == geometry_rejection("the accumulator operand is not a named value, so its chain cannot be tracked"));
  }
}

TEST_CASE("FL-64e: the always-refused shapes, in the whole message") {
  // Two allocations merged by a branch, 16 columns wide: refused although row packing would fit.
  auto merged = error_of(merged_allocations_kernel());
  CHECK(merged.message ==
        rejection_head("16x16") +
            "the accumulator is allocated by 2 separate definitions that control flow then merges into one value, and "
            "reconciling them would need an L0C-to-L0C copy the hardware does not have.\n"
            "Workaround: give the accumulator a single allocation that every branch and every iteration updates in "
            "place: hoist the tile.create above the branch (or the loop) and make the first-iteration case a "
            "tile.batch_matmul_acc with init_cond=True, which overwrites the pages instead of allocating a second "
            "buffer.");
  // Drained into Vec, 32 columns wide (16 keeps the row packing, seed golden
  // acc_drained_by_move_n16_row_packed).
  auto moved = error_of(accumulator_kernel(
      "[2, 16, 64]", "[2, 64, 32]", "[2, 16, 32]",
      "        v: pl.Tile[[2, 16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.move(d, target_memory=pl.Mem.Vec)\n"
      "        out_1: pl.Tensor[[2, 16, 32], pl.FP32] = pl.tile.store(v, [0, 0, 0], out_0)\n"));
  CHECK(moved.message ==
        rejection_head("16x32") +
            "the accumulator is drained by tile.move into a vector epilogue, and gathering the pages of a multi-page "
            "Acc (L0C) result into one vector tile is not expressible: moved pages keep L0C's block layout, "
            "which tile.assemble cannot write into a row-packed vector tile.\n"
            "Workaround: store each batch page to global memory and load it back for the vector work, or write the "
            "batch loop out in the kernel. The limit is not specific to accumulators: any batch>1 matmul followed by "
            "vector work meets it, at every page width.");
  // FL-64e (iii): the phrases upstream's test matches.
  CHECK(moved.message.find("keep L0C's block layout") != std::string::npos);
  CHECK(moved.message.find("not specific to accumulators") != std::string::npos);
}

TEST_CASE("FL-65: each reason row windows are refused for, in the whole message") {
  SUBCASE("windows of two heights") {
    auto d = error_of(kernel(
        "x: pl.Tensor[[32, 64], pl.FP16], y: pl.Tensor[[64, 32], pl.FP16], out_0: pl.Out[pl.Tensor[[64, 32], pl.FP32]]) -> "
        "pl.Tensor[[64, 32], pl.FP32]",
        "        a: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Left)\n"
        "        a2: pl.Tile[[32, 64], pl.FP16, pl.Mem.Left] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Left)\n"
        "        b: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.load(y, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Right)\n"
        "        acc0: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([64, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
        "        w0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc0, [16, 32], [0, 0])\n"
        "        p0: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w0, a, b, True)\n"
        "        acc1: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.assemble(acc0, p0, [0, 0])\n"
        "        w1: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc1, [32, 32], [32, 0])\n"
        "        p1: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(w1, a2, b, True)\n"
        "        acc2: pl.Tile[[64, 32], pl.FP32, pl.Mem.Acc] = pl.tile.assemble(acc1, p1, [32, 0])\n"
        "        out_1: pl.Tensor[[64, 32], pl.FP32] = pl.tile.store(acc2, [0, 0], out_0)\n"
        "        return out_1"));
    CHECK(d.message == "matmul_acc: cannot lower the shared accumulator's row slices because the same accumulator is "
                       "written through row windows of different heights (16 and 32 rows), so there is no single packed "
                       "shape for it" + row_window_advice);
  }
  SUBCASE("a row offset off the window grid") {
    auto d = error_of(row_windows(32, 16, {"[8, 0]"}, {"[8, 0]"}));
    CHECK(d.message == "matmul_acc: cannot lower the shared accumulator's row slices because a row window does not have "
                       "the common static row extent and an aligned row offset" + row_window_advice);
  }
  SUBCASE("a write-back to another window") {
    auto d = error_of(row_windows(32, 16, {"[0, 0]"}, {"[16, 0]"}));
    CHECK(d.message == "matmul_acc: cannot lower the shared accumulator's row slices because the slice assignment does "
                       "not write a matmul_acc result back to its original window" + row_window_advice);
  }
  SUBCASE("a parent no tile.create allocates") {
    auto text = row_windows(32, 16, {"[0, 0]"}, {"[0, 0]"});
    const std::string create = "acc0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)";
    REQUIRE(contains(text, create));
    text.replace(text.find(create), create.size(),
                 "flat: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Acc)\n"
                 "        acc0: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.reshape(flat, [32, 32])");
    auto d = error_of(text);
    CHECK(d.message == "matmul_acc: cannot lower the shared accumulator's row slices because the parent accumulator is "
                       "produced by tile.reshape; row-window packing requires tile.create followed by slice writebacks" +
                           row_window_advice);
  }
  SUBCASE("a height that does not divide the accumulator") {
    auto d = error_of(row_windows(32, 12, {"[0, 0]"}, {"[0, 0]"}));
    CHECK(d.message == "matmul_acc accumulator row windows must evenly divide the parent row extent; got 12 rows in a "
                       "32-row accumulator. Slice windows whose height divides the accumulator's rows");
  }
}

// Keep this test last in the file: it reads the file only up to its own name.
TEST_CASE("issues 14/15: every batched-matmul row is pinned by a golden case or a test") {
  namespace fs = std::filesystem;
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::set<std::string> pinned;
  auto collect = [&](const std::string& text) {
    static const std::regex id(R"((FL|BK)-\d\d[a-e]?)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), id); it != std::sregex_iterator(); ++it)
      pinned.insert(it->str());
  };
  const fs::path source(TILEWRIGHT_SOURCE_DIR);
  for (const fs::path& dir : {source / "tests/golden/seed/flatten_tile_nd_to_2d", fs::path(TILEWRIGHT_GOLDEN_DIR) / "flatten_tile_nd_to_2d"}) {
    if (!fs::is_directory(dir)) {
      MESSAGE("not read (absent): " << dir.string());
      continue;
    }
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".ids") collect(slurp(entry.path()));
  }
  for (const char* dir : {"tests/unit", "tests/golden"})
    for (const auto& entry : fs::recursive_directory_iterator(source / dir)) {
      // Every unit test folder; tests/golden itself only, as before the unit tests had folders.
      if (!entry.is_regular_file() || (std::string_view(dir) == "tests/golden" && entry.path().parent_path() != source / dir)) continue;
      std::string text = slurp(entry.path());
      if (entry.path().filename() == "batch_matmul_test.cpp") text = text.substr(0, text.find("TEST_CASE(\"issues 14/15"));
      collect(text);
    }
  std::vector<std::string> wanted;
  auto row = [](const char* family, int n, const char* sub = "") {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s-%02d%s", family, n, sub);
    return std::string(buf);
  };
  for (int n = 50; n <= 66; ++n)
    if (n != 64) wanted.push_back(row("FL", n));
  for (const char* sub : {"a", "b", "c", "d", "e"}) wanted.push_back(row("FL", 64, sub));
  for (int n : {17, 25, 27, 37, 47}) wanted.push_back(row("FL", n));
  for (int n = 1; n <= 3; ++n) wanted.push_back(row("BK", n));
  std::string missing;
  for (const auto& id : wanted)
    if (!pinned.contains(id)) missing += id + " ";
  CHECK_MESSAGE(missing.empty(), "rows no golden case or test cites: " << missing);
}
