// CanonicalizeTileSlice's rewrites on programs written here (CT-01…CT-18): properties and
// identity, slice parsing and peeling, each consumer rule, the alignment arithmetic, the SSA
// escapes and dead slices. The accumulator check (CT-19…CT-24) has its own file, the seed's
// examples typed as the seed writes them another; the golden corpus (tests/golden, 68 cases)
// adds the printed forms upstream agrees on.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <doctest/doctest.h>

#include "canonicalize_test_util.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/registry.hpp"

using namespace canonicalize_test;

// ---- CT-01…CT-03: properties, scope, identity ---------------------------------------------------

TEST_CASE("CT-01: names, level and the property-preserving contract") {
  using P = pass::Property;
  constexpr auto info = passes::CanonicalizeTileSlice::info;
  CHECK(info.name == "CanonicalizeTileSlice");
  CHECK(info.factory == "canonicalize_tile_slice");
  CHECK(info.level == pass::PassLevel::function);
  const pass::PropertySet expected{P::SSAForm, P::SplitIncoreOrch, P::IncoreTileOps, P::TileOps2D,
                                   P::NormalizedStmtStructure};
  CHECK(info.required == expected);
  CHECK(info.produced == expected);
  CHECK(info.invalidated.empty());
  REQUIRE(passes::find_pass("canonicalize_tile_slice").has_value());
  CHECK(passes::find_pass("CanonicalizeTileSlice")->info.factory == "canonicalize_tile_slice");
  // Seed position: after FlattenTileNdTo2D's tile stage, whose output it accepts.
  auto pipeline =
      pass::make_pipeline(pass::declared_input<P::SSAForm, P::SplitIncoreOrch, P::IncoreTileOps,
                                               P::NormalizedStmtStructure>{},
                          passes::flatten_tile_nd_to_2d, passes::canonicalize_tile_slice);
  (void)pipeline;
}

TEST_CASE(
    "CT-02/CT-03/CT-10: functions without a canonical slice, or where nothing changes (an aligned "
    "Vec slice, a Mat slice read by tile.move), keep their identity") {
  // No slice at all.
  check_unchanged(
      R"(    def kernel(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        out2: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return out2
)");
  // An aligned Vec slice read by a vector op and a Mat slice read by tile.move: both stay.
  check_unchanged(
      R"(    def kernel(x: pl.Tensor[[32, 64], pl.FP32], y: pl.Tensor[[32, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 32], [16, 32])
        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        ym: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(y, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat)
        ms: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(ym, [16, 64], [16, 0])
        v: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(ms, target_memory=pl.Mem.Vec)
        out2: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(e, [0, 0], out)
        return out2
)");
}

TEST_CASE("CT-01/CT-03: in a program, only the rewritten InCore function is a new object") {
  const std::string unaligned_body =
      R"(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 2.0)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)";
  auto before = parse(program_text(incore + "    def a_kernel(" + unaligned_body +
                                   "    @pl.function(type=pl.FunctionType.AIV, level=pl.Level.AIV, "
                                   "role=pl.Role.SubWorker)\n    def b_vector(" +
                                   unaligned_body + "    @pl.function\n    def c_opaque(self, " +
                                   unaligned_body));
  pass::PassContext ctx;
  auto after = passes::canonicalize_tile_slice(before, ctx);
  REQUIRE(after != before);
  CHECK(after->functions[0] != before->functions[0]);  // InCore: rewritten
  CHECK(after->functions[1] != before->functions[1]);  // AIV: rewritten
  CHECK(after->functions[2] == before->functions[2]);  // Opaque: never scanned
  CHECK(ctx.stats.get("CanonicalizeTileSlice.copy-unaligned-vec-operand: applied") == 2);
  CHECK(ctx.stats.get("CanonicalizeTileSlice.functions changed") == 2);
  CHECK(pass::verify(passes::CanonicalizeTileSlice::info.produced, after).empty());
}

// ---- the seed's examples -------------------------------------------------------------------

TEST_CASE(
    "CT-08 (seed example): the offset-0 batch-page slice folds into the extract that reads it") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[32, 512], pl.INT8], ko: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 256], pl.INT8]]) -> pl.Tensor[[32, 256], pl.INT8]:
        x_mat: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 512], [32, 512], target_memory=pl.Mem.Mat)
        lhs_slice: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [0, 0])
        a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(lhs_slice, 0, ko, [32, 256], target_memory=pl.Mem.Left)
        v: pl.Tile[[32, 256], pl.INT8, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        out2: pl.Tensor[[32, 256], pl.INT8] = pl.tile.store(v, [0, 0], out)
        return out2
)",
      {{"lhs_slice:", ""},
       {"a:",
        "a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] "
        "= pl.tile.extract(x_mat, 0, ko, [32, 256], target_memory=pl.Mem.Left)"}});
}

TEST_CASE("CT-08 (seed): a page offset of [32, 0] lands in the extract's row index") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[64, 512], pl.INT8], ko: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 256], pl.INT8]]) -> pl.Tensor[[32, 256], pl.INT8]:
        x_mat: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 512], [64, 512], target_memory=pl.Mem.Mat)
        page: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
        a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(page, 0, ko, [32, 256], target_memory=pl.Mem.Left)
        v: pl.Tile[[32, 256], pl.INT8, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        out2: pl.Tensor[[32, 256], pl.INT8] = pl.tile.store(v, [0, 0], out)
        return out2
)",
      {{"page:", ""},
       {"a:",
        "a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] "
        "= pl.tile.extract(x_mat, 32, ko, [32, 256], target_memory=pl.Mem.Left)"}});
}

TEST_CASE(
    "CT-09 (seed example): an untiled matmul's Mat-slice operands become Left/Right extracts") {
  check_rewrite(
      R"(    def kernel(l: pl.Tensor[[16, 256], pl.BF16], r: pl.Tensor[[256, 64], pl.BF16], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:
        lhs_mat: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(l, [0, 0], [16, 256], [16, 256], target_memory=pl.Mem.Mat)
        rhs_mat: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(r, [0, 0], [256, 64], [256, 64], target_memory=pl.Mem.Mat)
        lhs_slice: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lhs_mat, [16, 256], [0, 0])
        rhs_slice: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(rhs_mat, [256, 64], [0, 0])
        c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice, rhs_slice)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return out2
)",
      {{"lhs_slice:", ""},
       {"rhs_slice:", ""},
       {"c:",
        "lhs_slice_textract: pl.Tile[[16, 256], pl.BF16, pl.Mem.Left, "
        "pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(lhs_mat, 0, 0, [16, 256], "
        "target_memory=pl.Mem.Left)\n"
        "rhs_slice_textract: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(rhs_mat, "
        "0, 0, [256, 64], target_memory=pl.Mem.Right)\n"
        "c: pl.Tile[[16, 64], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice_textract, "
        "rhs_slice_textract)"}});
}

TEST_CASE(
    "CT-11 (seed examples #1640, #2010): col_expand_mul operands with a dynamic offset or a column "
    "band are copied") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 256], pl.FP32], t_in: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 256], pl.FP32], h: pl.Tensor[[1, 64], pl.FP32], row_off: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[1, 256], pl.FP32]], out_hi: pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> tuple[pl.Tensor[[1, 256], pl.FP32], pl.Tensor[[16, 64], pl.FP32]]:
        local: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 256], [16, 256], target_memory=pl.Mem.Vec)
        gamma_t: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 256], [1, 256], target_memory=pl.Mem.Vec)
        row: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 256], [row_off, 0])
        scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row, gamma_t)
        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(t_in, [0, 0], [16, 128], [16, 128], target_memory=pl.Mem.Vec)
        hg: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(h, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Vec)
        hi: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        hi_scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, hg)
        o1: pl.Tensor[[1, 256], pl.FP32] = pl.tile.store(scaled, [0, 0], out)
        o2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(hi_scaled, [0, 0], out_hi)
        return o1, o2
)",
      {{"row:", ""},
       {"scaled:",
        "row_textract: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.extract(local, row_off, 0, "
        "[1, 256], target_memory=pl.Mem.Vec)\n"
        "scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row_textract, "
        "gamma_t)"},
       {"hi:", ""},
       {"hi_scaled:",
        "hi_textract: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 64, [16, 64], "
        "target_memory=pl.Mem.Vec)\n"
        "hi_scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi_textract, "
        "hg)"}});
}

TEST_CASE(
    "CT-12/CT-15 (seed example #1789): FP32 column 1 is copied for tile.muls, column 8 and a "
    "dynamic row stay views") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 16], pl.FP32], r: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]], out8: pl.Out[pl.Tensor[[16, 8], pl.FP32]], out_r: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> tuple[pl.Tensor[[16, 1], pl.FP32], pl.Tensor[[16, 8], pl.FP32], pl.Tensor[[1, 8], pl.FP32]]:
        local: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        head: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 1])
        scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)
        c8: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 8], [0, 8])
        s8: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(c8, 0.5)
        rw: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 8], [r, 8])
        sr: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(rw, 0.5)
        o1: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(scaled, [0, 0], out)
        o2: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(s8, [0, 0], out8)
        o3: pl.Tensor[[1, 8], pl.FP32] = pl.tile.store(sr, [0, 0], out_r)
        return o1, o2, o3
)",
      {{"head:", ""},
       {"scaled:",
        "head_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(local, 0, 1, [16, "
        "1], target_memory=pl.Mem.Vec)\n"
        "scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head_textract, 0.5)"}});
}

// ---- consumer rules: boundaries no golden pins ---------------------------------------------

TEST_CASE("CT-09/CT-10: gemv is not in the matmul list, so its Mat slice operand stays a view") {
  check_unchanged(
      R"(    def kernel(x: pl.Tensor[[1, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], out: pl.Out[pl.Tensor[[1, 32], pl.FP32]]) -> pl.Tensor[[1, 32], pl.FP32]:
        xm: pl.Tile[[1, 64], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)] = pl.tile.load(x, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Mat)
        a: pl.Tile[[1, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(xm, target_memory=pl.Mem.Left)
        wm: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Mat)
        ws: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.slice(wm, [64, 32], [0, 0])
        c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[1, 32])] = pl.tile.gemv(a, ws, acc_phase='unspecified')
        out2: pl.Tensor[[1, 32], pl.FP32] = pl.tile.store(c, [0, 0], out)
        return out2
)");
}

TEST_CASE("CT-12: one operand read twice gets one copy per read, and the stats count the rule") {
  auto before = parse(program_text(
      incore +
      R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 3])
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(s, s)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)"));
  pass::PassContext ctx;
  auto after = passes::canonicalize_tile_slice(before, ctx);
  auto stmts = ir::body_stmts(after->functions[0]->body);
  REQUIRE(stmts.size() == 6);  // t, two copies, the add, the store, the return: the slice is gone
  auto* add = ir::as<ir::Call>(ir::as<ir::Assign>(stmts[3])->value);
  CHECK(add->args[0] == ir::as<ir::Assign>(stmts[1])->var);
  CHECK(add->args[1] == ir::as<ir::Assign>(stmts[2])->var);
  CHECK(ctx.stats.get("CanonicalizeTileSlice.copy-unaligned-vec-operand: applied") == 1);
  CHECK(ctx.stats.get("CanonicalizeTileSlice.fold-slice-into-extract: applied") == 0);
  // Issue 17: the two copies of one slice are deduced once and share their type node.
  CHECK(ir::as<ir::Assign>(stmts[1])->var->type == ir::as<ir::Assign>(stmts[2])->var->type);
}

TEST_CASE("CT-12, issue 17: copies share a type only where the extract's deduction reads the same") {
  // One slice type at two row offsets of a source valid on 10 of its 16 rows: the copy at
  // row 8 is valid on 2 rows, the one at row 0 on all 4 — the offsets are part of what the
  // shared deduction is keyed by, not only the types.
  auto before = parse(program_text(
      incore +
      R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[4, 1], pl.FP32]]) -> pl.Tensor[[4, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[10, 8])] = pl.tile.load(x, [0, 0], [16, 8], [10, 8], target_memory=pl.Mem.Vec)
        s0: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [4, 1], [0, 3])
        s1: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [4, 1], [4, 3])
        s2: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[2, 1])] = pl.tile.slice(t, [4, 1], [8, 3])
        y0: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(s0, s1)
        y: pl.Tile[[4, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(y0, s2)
        out2: pl.Tensor[[4, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)"));
  pass::PassContext ctx;
  auto after = passes::canonicalize_tile_slice(before, ctx);
  std::vector<ir::Expr> copies;
  ir::for_each_stmt(after->functions[0]->body, [&](const ir::Stmt& st) {
    if (auto* a = ir::as<ir::Assign>(st); a && ir::name_hint(a->var).ends_with("_textract")) copies.push_back(a->var);
  });
  REQUIRE(copies.size() == 3);
  auto valid_rows = [](const ir::Expr& v) { return ir::const_int(ir::valid_shape(*ir::tile_type(v))[0]); };
  CHECK(valid_rows(copies[0]) == 4);
  CHECK(valid_rows(copies[1]) == 4);
  CHECK(valid_rows(copies[2]) == 2);
  CHECK(copies[0]->type != copies[2]->type);
  CHECK(ir::structural_equal(copies[0]->type, copies[1]->type));
}

TEST_CASE(
    "CT-11/CT-12: a col_expand operand that is a safe identity copy is still checked for "
    "alignment") {
  // [1, 56] at (3, 1) of an FP32 [16, 64]: one row, so the in-place copy would not corrupt the
  // source, but it starts 4 bytes past a 32-byte boundary.
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 64], pl.FP32], g: pl.Tensor[[1, 56], pl.FP32], out: pl.Out[pl.Tensor[[1, 56], pl.FP32]]) -> pl.Tensor[[1, 56], pl.FP32]:
        t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
        gt: pl.Tile[[1, 56], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 56], [1, 56], target_memory=pl.Mem.Vec)
        s: pl.Tile[[1, 56], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [1, 56], [3, 1])
        r: pl.Tile[[1, 56], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(s, gt)
        out2: pl.Tensor[[1, 56], pl.FP32] = pl.tile.store(r, [0, 0], out)
        return out2
)",
      {{"s:", ""},
       {"r:",
        "s_textract: pl.Tile[[1, 56], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 3, 1, [1, 56], "
        "target_memory=pl.Mem.Vec)\n"
        "r: pl.Tile[[1, 56], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_add(s_textract, gt)"}});
}

// ---- CT-13…CT-15: the alignment arithmetic -------------------------------------------------

namespace {
ir::Expr tile_var(const std::string& name, std::vector<std::int64_t> shape, ir::DataType dt,
                  ir::Expr memref = nullptr) {
  std::vector<ir::Expr> dims;
  for (auto d : shape) dims.push_back(ir::make_int(d));
  return ir::make_var(name, ir::make_tile_type(std::move(dims), dt, std::nullopt,
                                               ir::MemorySpace::Vec, std::move(memref)));
}
ir::Expr index_var(const std::string& name) {
  return ir::make_var(name, ir::scalar_type(ir::DataType::INDEX));
}
ir::Expr binary(ir::BinaryOp op, ir::Expr a, ir::Expr b) {
  return ir::make_expr(ir::Binary{op, std::move(a), std::move(b)},
                       ir::scalar_type(ir::DataType::INDEX));
}
bool aligned(const ir::Expr& base, ir::Expr row, ir::Expr col,
             const passes::canonicalize::ByVar<ir::Expr>& defs = {}) {
  passes::canonicalize::KnownMultiples multiples(defs);
  return passes::canonicalize::is_provably_aligned({base, std::move(row), std::move(col)},
                                                   multiples);
}
ir::Expr i(std::int64_t v) { return ir::make_int(v); }
}  // namespace

TEST_CASE("CT-13/CT-15: the worked residues, including the ones no golden case spells") {
  auto int4 = tile_var("t", {16, 128}, ir::DataType::INT4);
  CHECK(aligned(int4, i(0), i(64)));  // 64 * 4 = 256 bits
  CHECK_FALSE(aligned(int4, i(0), i(32)));
  auto fp16 = tile_var("t", {16, 64}, ir::DataType::FP16);
  CHECK(aligned(fp16, i(0), i(16)));
  CHECK_FALSE(aligned(fp16, i(0), i(8)));
  auto fp32_12 = tile_var("t", {8, 12}, ir::DataType::FP32);
  CHECK_FALSE(aligned(fp32_12, i(1), i(0)));  // 12 * 32 = 384 ≡ 128
  CHECK(aligned(fp32_12, i(2), i(0)));
  CHECK(aligned(fp32_12, i(2), i(8)));        // 0 + 256
  CHECK(aligned(fp32_12, i(1), i(4)));        // the residues add up: 128 + 128 ≡ 0
  CHECK_FALSE(aligned(fp32_12, i(1), i(2)));  // 128 + 64
}

TEST_CASE("CT-13: MemRef byte offsets — concrete, the -1 planning sentinel, symbolic") {
  auto memref = [](ir::Expr offset) {
    auto base = ir::make_var("mem_vec_0", ir::marker_type(ir::Marker::Ptr));
    return ir::make_expr(ir::MemRef{base, std::move(offset), 1024, false, 1, nullptr},
                         ir::marker_type(ir::Marker::MemRefType));
  };
  CHECK_FALSE(aligned(tile_var("t", {16, 16}, ir::DataType::FP32, memref(i(16))), i(0), i(0)));
  CHECK(aligned(tile_var("t", {16, 16}, ir::DataType::FP32, memref(i(64))), i(0), i(0)));
  CHECK(aligned(tile_var("t", {16, 16}, ir::DataType::FP32, memref(i(-1))), i(0), i(0)));
  CHECK(aligned(tile_var("t", {16, 16}, ir::DataType::FP32, memref(i(16))), i(0),
                i(4)));  // 128 + 128
  CHECK_FALSE(
      aligned(tile_var("t", {16, 16}, ir::DataType::FP32, memref(index_var("off"))), i(0), i(0)));
}

TEST_CASE("CT-13: a base that is not a static 2-D tile cannot be proven") {
  CHECK_FALSE(aligned(tile_var("t", {4, 16, 16}, ir::DataType::FP32), i(0), i(0)));
  auto n = index_var("n");
  auto symbolic_cols = ir::make_var(
      "t", ir::make_tile_type({i(16), n}, ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec));
  CHECK(aligned(symbolic_cols, i(0), i(8)));        // row 0: the pitch is not needed
  CHECK_FALSE(aligned(symbolic_cols, i(1), i(0)));  // row 1: it is
}

TEST_CASE(
    "CT-14: known multiples through scalar SSA: +, -, *, aliases, constants, and what stops them") {
  auto bi = index_var("bi"), bj = index_var("bj");
  auto c16 = index_var("c16"), c8 = index_var("c8"), alias = index_var("alias"),
       diff = index_var("diff");
  passes::canonicalize::ByVar<ir::Expr> defs;
  defs.emplace(c16.get(), binary(ir::BinaryOp::Mul, bi, i(16)));
  defs.emplace(c8.get(), binary(ir::BinaryOp::Mul, i(8), bj));
  defs.emplace(alias.get(), c16);
  defs.emplace(diff.get(), binary(ir::BinaryOp::Sub, alias, c8));
  passes::canonicalize::KnownMultiples m(defs);
  CHECK(m.of(i(0)) == 256);
  CHECK(m.of(i(-32)) == 32);
  CHECK(m.of(i(96)) == 32);
  CHECK(m.of(bi) == 1);  // a parameter
  CHECK(m.of(c16) == 16);
  CHECK(m.of(alias) == 16);
  CHECK(m.of(diff) == 8);
  CHECK(m.of(binary(ir::BinaryOp::Mul, c16, c8)) == 128);
  CHECK(m.of(binary(ir::BinaryOp::Mul, c16, i(64))) == 256);    // capped
  CHECK(m.of(binary(ir::BinaryOp::FloorDiv, c16, i(2))) == 1);  // not followed
  // FP32 columns: a multiple of 8 is aligned (8 * 32 = 256 bits), of 4 is not.
  auto t = tile_var("t", {16, 64}, ir::DataType::FP32);
  CHECK(aligned(t, i(0), diff, defs));
  CHECK_FALSE(aligned(t, i(0), binary(ir::BinaryOp::Mul, bi, i(4)), defs));
  // A dynamic row over an FP32 row of 8: pitch 256 bits, any row is aligned.
  CHECK(aligned(tile_var("t", {32, 8}, ir::DataType::FP32), bi, i(0), defs));
}

TEST_CASE(
    "CT-14: a definition cycle or a very deep chain is answered conservatively, not by recursion "
    "without end") {
  auto a = index_var("a"), b = index_var("b");
  passes::canonicalize::ByVar<ir::Expr> defs;
  defs.emplace(a.get(), binary(ir::BinaryOp::Mul, b, i(32)));
  defs.emplace(b.get(), binary(ir::BinaryOp::Mul, a, i(32)));
  passes::canonicalize::KnownMultiples cyclic(defs);
  CHECK(cyclic.of(a) == 256);  // b is met again while being computed: 1 * 32 * 32, capped
  std::vector<ir::Expr> chain{binary(ir::BinaryOp::Mul, index_var("p"), i(64))};
  passes::canonicalize::ByVar<ir::Expr> deep;
  for (int k = 0; k < 5000; ++k) {
    auto v = index_var(std::to_string(k).insert(0, 1, 'v'));  // g++ 12 -O3: "v" + to_string warns (-Wrestrict)
    deep.emplace(v.get(), chain.back());
    chain.push_back(v);
  }
  passes::canonicalize::KnownMultiples bounded(deep);
  CHECK(bounded.of(chain.back()) == 1);  // too deep to follow: unknown
  CHECK(bounded.of(chain[10]) == 64);    // a short chain still is
}

// ---- CT-16/CT-17: escapes --------------------------------------------------------------------

TEST_CASE(
    "CT-17a: a slice initializing two carries of one loop is copied once; aligned initializers "
    "stay") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 2])
        k: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 8])
        for i, (p, q, r) in pl.range(2, init_values=(s, s, k)):
            p2: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(p, q)
            p_rv, q_rv, r_rv = pl.yield_(p2, q, r)
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(p_rv, r_rv)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)",
      {{"s:", ""},
       {"for ",
        "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 2, [16, 1], "
        "target_memory=pl.Mem.Vec)\n"
        "for i, (p, q, r) in pl.range(2, init_values=(s_textract, s_textract, k)):"}});
}

TEST_CASE("CT-17a/CT-18: a Mat slice carried into a loop is read by it and is kept") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[32, 64], pl.FP16], out: pl.Out[pl.Tensor[[16, 64], pl.FP16]]) -> pl.Tensor[[16, 64], pl.FP16]:
        xm: pl.Tile[[32, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Mat)
        s: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(xm, [16, 64], [16, 0])
        d: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(xm, [16, 64], [0, 0])
        for i, (c,) in pl.range(2, init_values=(s,)):
            c_rv: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.yield_(c)
        v: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(c_rv, target_memory=pl.Mem.Vec)
        out2: pl.Tensor[[16, 64], pl.FP16] = pl.tile.store(v, [0, 0], out)
        return out2
)",
      {{"d:", ""}});
}

TEST_CASE("CT-17b: an unaligned slice yielded by a branch is copied inside that branch") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], flag: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        if flag == 0:
            s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
            r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.yield_(s)
        else:
            z: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 0])
            r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.yield_(z)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(r, [0, 0], out)
        return out2
)",
      {{"s:", ""},
       {"r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.yield_(s)",
        "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, [16, 1], "
        "target_memory=pl.Mem.Vec)\n"
        "r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.yield_(s_textract)"}});
}

TEST_CASE(
    "CT-16: an alias of an aligned Vec slice, or of a Mat slice at an odd column, stays an alias") {
  check_unchanged(
      R"(    def kernel(x: pl.Tensor[[16, 16], pl.FP32], m: pl.Tensor[[32, 128], pl.FP16], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 8])
        a: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = s
        y: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.muls(a, 3.0)
        mm: pl.Tile[[32, 128], pl.FP16, pl.Mem.Mat] = pl.tile.load(m, [0, 0], [32, 128], [32, 128], target_memory=pl.Mem.Mat)
        ms: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.slice(mm, [16, 64], [16, 1])
        am: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = ms
        v: pl.Tile[[16, 64], pl.FP16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(am, target_memory=pl.Mem.Vec)
        out2: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)");
}

// ---- CT-18: dead slices -------------------------------------------------------------------

TEST_CASE("CT-05/CT-18: a chain is peeled to its base and dies from its end; a link something else still reads stays") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[64, 128], pl.BF16], out: pl.Out[pl.Tensor[[48, 128], pl.BF16]], out_a: pl.Out[pl.Tensor[[16, 128], pl.BF16]]) -> tuple[pl.Tensor[[48, 128], pl.BF16], pl.Tensor[[16, 128], pl.BF16]]:
        lm: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
        s1: pl.Tile[[48, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lm, [48, 128], [16, 0])
        s2: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(s1, [32, 128], [8, 0])
        s3: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(s2, [16, 128], [4, 0])
        a: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(s3, 0, 0, [16, 128], target_memory=pl.Mem.Left)
        v: pl.Tile[[48, 128], pl.BF16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(s1, target_memory=pl.Mem.Vec)
        av: pl.Tile[[16, 128], pl.BF16, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        o1: pl.Tensor[[48, 128], pl.BF16] = pl.tile.store(v, [0, 0], out)
        o2: pl.Tensor[[16, 128], pl.BF16] = pl.tile.store(av, [0, 0], out_a)
        return o1, o2
)",
      {{"s2:", ""},
       {"s3:", ""},
       {"a:",
        "a: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] "
        "= pl.tile.extract(lm, 28, 0, [16, 128], target_memory=pl.Mem.Left)"}});
}

TEST_CASE(
    "CT-07/CT-18: a valid_shape slice is never dropped, even unread, and is not peeled by a "
    "canonical one") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[64, 128], pl.BF16], out: pl.Out[pl.Tensor[[16, 128], pl.BF16]]) -> pl.Tensor[[16, 128], pl.BF16]:
        lm: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
        n: pl.Tile[[32, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lm, [32, 128], [16, 0], [32, 128])
        s: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(n, [16, 128], [8, 0])
        unread: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lm, [16, 128], [0, 0], [16, 128])
        a: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(s, 0, 0, [16, 128], target_memory=pl.Mem.Left)
        av: pl.Tile[[16, 128], pl.BF16, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        o: pl.Tensor[[16, 128], pl.BF16] = pl.tile.store(av, [0, 0], out)
        return o
)",
      {{"s:", ""},
       {"a:",
        "a: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] "
        "= pl.tile.extract(n, 8, 0, [16, 128], target_memory=pl.Mem.Left)"}});
}

TEST_CASE("CT-18, issue 13: the rule walk counts the slice reads of what it produces, as a recount would") {
  // The dead-slice sweep reads these counts instead of walking the rewritten body again. A
  // chain folded into an extract (s2 no longer read; s1 still read by s2, until s2 dies) and
  // a loop initializer redirected to a copy (s no longer read).
  auto p = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[64, 128], pl.BF16], y: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 128], pl.BF16]], out_b: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> tuple[pl.Tensor[[16, 128], pl.BF16], pl.Tensor[[16, 1], pl.FP32]]:
        lm: pl.Tile[[64, 128], pl.BF16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 128], [64, 128], target_memory=pl.Mem.Mat)
        s1: pl.Tile[[48, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lm, [48, 128], [16, 0])
        s2: pl.Tile[[16, 128], pl.BF16, pl.Mem.Mat] = pl.tile.slice(s1, [16, 128], [8, 0])
        a: pl.Tile[[16, 128], pl.BF16, pl.Mem.Left, pl.TileView(blayout=pl.TileLayout.row_major)] = pl.tile.extract(s2, 0, 0, [16, 128], target_memory=pl.Mem.Left)
        av: pl.Tile[[16, 128], pl.BF16, pl.Mem.Vec] = pl.tile.move(a, target_memory=pl.Mem.Vec)
        o1: pl.Tensor[[16, 128], pl.BF16] = pl.tile.store(av, [0, 0], out)
        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(y, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 2])
        for i, (c,) in pl.range(2, init_values=(s,)):
            c2: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(c, c)
            c_rv: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.yield_(c2)
        o2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(c_rv, [0, 0], out_b)
        return o1, o2
)"));
  const ir::Stmt& body = p->functions[0]->body;
  const ops::Registry& registry = ops::builtin_registry();
  passes::canonicalize::SliceAnalysis analysis;  // the walk runs it
  passes::canonicalize::CanonicalizeContext context(analysis, registry);
  passes::canonicalize::CanonicalizeWalker walker(passes::canonicalize::canonicalize_rules, context, analysis, registry);
  ir::Stmt rewritten = walker.run(body);
  CHECK(analysis.same_slices_as(passes::canonicalize::analyze_slices(body, registry)));
  REQUIRE(rewritten != body);
  auto counted = walker.take_reads();
  REQUIRE(counted.has_value());
  CHECK(passes::canonicalize::same_reads(*counted, passes::canonicalize::count_slice_reads(rewritten, analysis)));
  REQUIRE(counted->slices.size() == analysis.slices.size());
  auto uses_of = [&](std::string_view name) -> std::int64_t {
    for (const auto& [var, slice] : analysis.slices)
      if (ir::name_hint(slice.var) == name) return counted->slices[analysis.position(var)].reads;
    FAIL("no slice " << name);
    return -1;
  };
  CHECK(uses_of("s1") == 1);
  CHECK(uses_of("s2") == 0);
  CHECK(uses_of("s") == 0);
  CHECK(counted->listed() == 3);
  // The facts of a slice stand at its position in program order.
  std::size_t i = 0;
  for (const auto& entry : analysis.slices) CHECK(analysis.position(entry.first) == i++);
  CHECK(analysis.position(nullptr) == passes::canonicalize::SliceAnalysis::none);
  // And a recount that differs is told apart.
  auto off = *counted;
  ++off.slices.front().reads;
  CHECK_FALSE(passes::canonicalize::same_reads(off, *counted));
}

TEST_CASE(
    "CT-18, issue 13: a slice that dies inside a loop is removed from the loop's list; the "
    "statements around it that hold no dead slice are the same objects") {
  // The sweep rebuilds only the lists that define a dead slice and the statements holding
  // them (the walk notes both), and reads no other statement.
  const std::string before = R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        for i, (acc,) in pl.range(2, init_values=(out,)):
            s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
            y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 2.0)
            acc2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], acc)
            acc_rv: pl.Tensor[[16, 1], pl.FP32] = pl.yield_(acc2)
        return acc_rv
)";
  check_rewrite(before,
                {{"s:", ""},
                 {"y:",
                  "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, [16, 1], "
                  "target_memory=pl.Mem.Vec)\n"
                  "y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s_textract, 2.0)"}});
  auto p = parse(program_text(incore + before));
  auto q = canonicalize(p);
  const auto& in = ir::as<ir::Seq>(p->functions[0]->body)->stmts;
  const auto& out = ir::as<ir::Seq>(q->functions[0]->body)->stmts;
  REQUIRE(in.size() == 4);
  REQUIRE(out.size() == 4);
  CHECK(out[0] == in[0]);
  CHECK(out[1] == in[1]);
  CHECK(out[2] != in[2]);  // the loop: its list lost `s`
  CHECK(out[3] == in[3]);
  auto* loop = ir::as<ir::For>(out[2]);
  REQUIRE(loop);
  const auto& body = ir::as<ir::Seq>(loop->body)->stmts;
  CHECK(body.size() == 4);  // the copy, y, the store, the yield
  CHECK(body[2] == ir::as<ir::Seq>(ir::as<ir::For>(in[2])->body)->stmts[2]);
}

TEST_CASE(
    "CT-18, issue 13: dead slices at the top and inside a loop both go; the top list is edited "
    "in place, and the input program is left as it was") {
  // The walk's fresh result is the sole owner of its top list, which the sweep edits in
  // place (ir::unique_list); the loop's list is rebuilt. The input shares statements with the
  // result, and must read the same afterwards.
  const std::string before = R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        top: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 3])
        z: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(top, 0.5)
        for i, (acc,) in pl.range(2, init_values=(out,)):
            s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
            y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(s, z)
            acc2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], acc)
            acc_rv: pl.Tensor[[16, 1], pl.FP32] = pl.yield_(acc2)
        return acc_rv
)";
  check_rewrite(before,
                {{"top:", ""},
                 {"z:",
                  "top_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 3, [16, 1], "
                  "target_memory=pl.Mem.Vec)\n"
                  "z: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(top_textract, 0.5)"},
                 {"s:", ""},
                 {"y:",
                  "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, [16, 1], "
                  "target_memory=pl.Mem.Vec)\n"
                  "y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.add(s_textract, z)"}});
  auto p = parse(program_text(incore + before));
  const std::string printed = text::print(p);
  auto q = canonicalize(p);
  CHECK(text::print(p) == printed);
  CHECK(ir::as<ir::Seq>(p->functions[0]->body)->stmts.size() == 5);
  CHECK(ir::as<ir::Seq>(q->functions[0]->body)->stmts.size() == 5);  // top out, its copy in
}

TEST_CASE("CT-02, issue 13: the look that leaves a function without slices alone finds one at any depth") {
  auto body_of = [](const std::string& function) { return parse(program_text(incore + function))->functions[0]->body; };
  const std::string head =
      "    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 8], pl.FP32]]) -> pl.Tensor[[16, 8], pl.FP32]:\n"
      "        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)\n";
  CHECK_FALSE(passes::canonicalize::assigns_a_slice(body_of(head + R"(        for i in pl.range(2):
            e: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        o: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return o
)")));
  CHECK(passes::canonicalize::assigns_a_slice(body_of(head + R"(        for i in pl.range(2):
            if i < 1:
                s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1], [16, 1])
        o: pl.Tensor[[16, 8], pl.FP32] = pl.tile.store(t, [0, 0], out)
        return o
)")));
}

TEST_CASE("CT-18, issue 13: a list nested in a list comes back flattened, as make_seq flattens") {
  // The parser never nests lists; the C++ builder may (ir::make_stmt(ir::Seq{...})). The
  // walk flattens as it rebuilds a list, so the result is the one of the flat program.
  const std::string text = program_text(incore + R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        e: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 2.0)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)");
  auto flat = parse(text);
  const auto& stmts = ir::as<ir::Seq>(flat->functions[0]->body)->stmts;
  REQUIRE(stmts.size() == 6);
  // [[t, e], s, y, out2, return] — an unchanged nested list before the first change —
  // and [t, e, s, [y, out2], return] — a nested list that changes.
  auto nest = [&](std::size_t from, std::size_t to) {
    std::vector<ir::Stmt> outer(stmts.begin(), stmts.begin() + static_cast<std::ptrdiff_t>(from));
    outer.push_back(ir::make_stmt(ir::Seq{std::vector<ir::Stmt>(stmts.begin() + static_cast<std::ptrdiff_t>(from),
                                                                stmts.begin() + static_cast<std::ptrdiff_t>(to))}));
    outer.insert(outer.end(), stmts.begin() + static_cast<std::ptrdiff_t>(to), stmts.end());
    ir::FunctionNode f = *flat->functions[0];
    f.body = ir::make_stmt(ir::Seq{std::move(outer)});
    return ir::make_program(flat->name, {ir::make_function(std::move(f))});
  };
  const auto expected = canonicalize(flat);
  for (const auto& nested : {nest(0, 2), nest(3, 5)}) {
    auto result = canonicalize(nested);
    auto difference = ir::structural_difference(result, expected);
    CHECK_MESSAGE(!difference, difference.value_or("") << "\n" << text::print(result));
    for (const auto& s : ir::as<ir::Seq>(result->functions[0]->body)->stmts) CHECK_FALSE(ir::as<ir::Seq>(s));
  }
}

TEST_CASE("CT-01: through the CLI's pipeline with verification, the result keeps every property") {
  auto before = parse(program_text(
      incore +
      R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 2.0)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)"));
  pass::Pipeline pipeline({*passes::find_pass("canonicalize_tile_slice")},
                          pass::verified_properties(before));
  REQUIRE_FALSE(pipeline.check_order().has_value());
  pass::PassContext ctx;
  auto after = pipeline.run(before, ctx, pass::VerifyLevel::basic);
  CHECK(after != before);
  CHECK(pass::verify(passes::CanonicalizeTileSlice::info.produced, after).empty());
}

// ---- CT-04…CT-08: what a slice is, and folding into extracts -------------------------------

TEST_CASE(
    "CT-04/CT-01: a slice whose memory space is not set yet (before InferTileMemorySpace) is "
    "treated as Vec") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32] = pl.tile.slice(t, [16, 1], [0, 1])
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 2.0)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)",
      {{"s:", ""},
       {"y:",
        "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 1, [16, 1], "
        "target_memory=pl.Mem.Vec)\n"
        "y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s_textract, 2.0)"}});
}

TEST_CASE(
    "CT-06: an offset bound to a literal, directly or through an alias, is read as the literal; "
    "the scalar assignments stay") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[17, 1], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        local: pl.Tile[[17, 1], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [17, 1], [17, 1], target_memory=pl.Mem.Vec)
        ro: pl.Scalar[pl.INDEX] = 1
        ro2: pl.Scalar[pl.INDEX] = ro
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [ro2, 0])
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)",
      {{"s:", ""},
       {"y:",
        "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(local, 1, 0, [16, "
        "1], target_memory=pl.Mem.Vec)\n"
        "y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s_textract)"}});
}

TEST_CASE(
    "CT-08: a Vec slice folds into an extract too, a symbolic index gains the offset, and two "
    "extracts of one slice both fold") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[32, 64], pl.FP32], ko: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[8, 8], pl.FP32]], out2: pl.Out[pl.Tensor[[8, 8], pl.FP32]]) -> tuple[pl.Tensor[[8, 8], pl.FP32], pl.Tensor[[8, 8], pl.FP32]]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 32], [8, 16])
        e1: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(s, ko, 0, [8, 8], target_memory=pl.Mem.Vec)
        e2: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(s, 4, 8, [8, 8], target_memory=pl.Mem.Vec)
        o1: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(e1, [0, 0], out)
        o2: pl.Tensor[[8, 8], pl.FP32] = pl.tile.store(e2, [0, 0], out2)
        return o1, o2
)",
      {{"s:", ""},
       {"e1:",
        "e1: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, ko + 8, 16, [8, 8], "
        "target_memory=pl.Mem.Vec)"},
       {"e2:",
        "e2: pl.Tile[[8, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 12, 24, [8, 8], "
        "target_memory=pl.Mem.Vec)"}});
}

// ---- CT-12/CT-17c: every kind of call ---------------------------------------------------------

TEST_CASE("CT-12/CT-17c: a bare statement and a call of another function get the copy too") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]], out_b: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 5])
        pl.tile.store(s, [0, 0], out_b)
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = self.scale(s)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def scale(v: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec]) -> pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec]:
        w: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(v, 2.0)
        return w
)",
      {{"s:", ""},
       {"pl.tile.store(s,",
        "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 5, [16, 1], "
        "target_memory=pl.Mem.Vec)\n"
        "pl.tile.store(s_textract, [0, 0], out_b)"},
       {"y:",
        "s_textract_1: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 5, [16, 1], "
        "target_memory=pl.Mem.Vec)\n"
        "y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = self.scale(s_textract_1)"}});
}

// ---- CT-13: where a slice's bytes start when its base is itself a view -----------------------

TEST_CASE(
    "CT-13/CT-07: a slice of a valid_shape slice is placed through that view: its offset and "
    "its parent's row pitch decide") {
  // n = columns 0…7 of an FP32 tile 12 wide. Row 1 of n is 12 * 4 = 48 bytes in, not 32: the
  // pitch is t's, not n's 8 columns.
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 12], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        t: pl.Tile[[16, 12], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 12], [16, 12], target_memory=pl.Mem.Vec)
        n: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 0], [16, 8])
        s: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(n, [1, 8], [1, 0])
        y: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        out2: pl.Tensor[[1, 8], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)",
      {{"s:", ""},
       {"y:",
        "s_textract: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(n, 1, 0, [1, 8], "
        "target_memory=pl.Mem.Vec)\n"
        "y: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s_textract)"}});
  // Row 2 of the same view is 96 bytes in: aligned, it stays a view.
  check_unchanged(
      R"(    def kernel(x: pl.Tensor[[16, 12], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        t: pl.Tile[[16, 12], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 12], [16, 12], target_memory=pl.Mem.Vec)
        n: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 0], [16, 8])
        s: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(n, [1, 8], [2, 0])
        y: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        out2: pl.Tensor[[1, 8], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)");
}

TEST_CASE(
    "CT-13/CT-11: through an alias of a slice, a view op that changes the extent, or a loop "
    "carry, a slice's start is not taken as an allocation's") {
  // Through an alias: composed exactly (t row 1 at 48 bytes), copied.
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 12], pl.FP32], out: pl.Out[pl.Tensor[[1, 8], pl.FP32]]) -> pl.Tensor[[1, 8], pl.FP32]:
        t: pl.Tile[[16, 12], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 12], [16, 12], target_memory=pl.Mem.Vec)
        w: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 8], [0, 0])
        a: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = w
        s: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(a, [1, 8], [1, 0])
        y: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        out2: pl.Tensor[[1, 8], pl.FP32] = pl.tile.store(y, [0, 0], out)
        return out2
)",
      {{"s:", ""},
       {"y:",
        "s_textract: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.extract(a, 1, 0, [1, 8], "
        "target_memory=pl.Mem.Vec)\n"
        "y: pl.Tile[[1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s_textract)"}});
  // A reshape to another extent, and a loop carry (the body may see another window on the
  // second trip): the start is unknown, so even a full-width identity-copy window of a
  // col_expand operand is copied.
  for (const char* view :
       {"v: pl.Tile[[8, 32], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(w, [8, 32])",
        "for i, (v,) in pl.range(2, init_values=(w,)):"}) {
    CAPTURE(view);
    const bool loop = std::string(view).starts_with("for");
    const std::string pad = loop ? "    " : "";
    const std::string vtype = loop ? "[16, 16]" : "[8, 32]";
    const std::string s_shape = loop ? "[1, 16]" : "[1, 32]";
    std::string body =
        "    def kernel(x: pl.Tensor[[16, 16], pl.FP32], g: pl.Tensor[[1, 32], pl.FP32], out: "
        "pl.Out[pl.Tensor[[1, 16], pl.FP32]]) -> pl.Tensor[[1, 16], pl.FP32]:\n"
        "        t: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], "
        "[16, 16], target_memory=pl.Mem.Vec)\n"
        "        gt: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 32], [1, "
        "32], target_memory=pl.Mem.Vec)\n"
        "        w: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 16], [0, 0])\n"
        "        " + std::string(view) + "\n";
    (void)vtype;
    if (loop) {
      body +=
          "            s: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(v, [1, 16], [1, 0])\n"
          "            h: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(gt, [1, 16], [0, 0])\n"
          "            c: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(s, h)\n"
          "            v_rv: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.yield_(v)\n"
          "        out2: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(c, [0, 0], out)\n";
    } else {
      body +=
          "        s: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(v, [1, 32], [1, 0])\n"
          "        c: pl.Tile[[1, 32], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(s, gt)\n"
          "        c2: pl.Tile[[1, 16], pl.FP32, pl.Mem.Vec] = pl.tile.slice(c, [1, 16], [0, 0])\n"
          "        out2: pl.Tensor[[1, 16], pl.FP32] = pl.tile.store(c2, [0, 0], out)\n";
    }
    body += "        return out2\n";
    (void)pad;
    (void)s_shape;
    auto result = canonicalize(parse(program_text(incore + body)));
    const std::string printed = text::print(result);
    CHECK_MESSAGE(contains(printed, "= pl.tile.extract(v, 1, 0, "), printed);
    CHECK_MESSAGE(contains(printed, "pl.tile.col_expand_mul(s_textract, "), printed);
  }
}

// ---- CT-17a/CT-18: a redirected loop initializer and the use counts -----------------------

TEST_CASE(
    "CT-17a/CT-18: a chained slice inside the loop reads the copy once the initializer is "
    "redirected; its death does not take the original slice with it") {
  // `s` initializes the carry and is read inside the loop (redirected to the copy) and after
  // it by a valid_shape slice (not redirected, never ours to drop). `dead` in the body reads
  // the copy and has no reader: it goes, and `s` must stay.
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 3])
        for i, (acc,) in pl.range(2, init_values=(s,)):
            dead: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s, [8, 1], [8, 0])
            nxt: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.adds(acc, 1.0)
            acc_rv: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.yield_(nxt)
        kept: pl.Tile[[8, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(s, [8, 1], [0, 0], [8, 1])
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(acc_rv, [0, 0], out)
        return out2
)",
      {{"for ",
        "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 3, [16, 1], "
        "target_memory=pl.Mem.Vec)\n"
        "for i, (acc,) in pl.range(2, init_values=(s_textract,)):"},
       {"dead:", ""}});
}

TEST_CASE("CT-17a: a while loop's initializer is copied before the loop") {
  check_rewrite(
      R"(    def kernel(x: pl.Tensor[[16, 8], pl.FP32], n: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:
        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 8], [16, 8], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 6])
        for (k, acc) in pl.while_(init_values=(0, s)):
            pl.cond(k < n)
            nxt: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(acc, 0.5)
            k2: pl.Scalar[pl.INDEX] = k + 1
            k_out, acc_out = pl.yield_(k2, nxt)
        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(acc_out, [0, 0], out)
        return out2
)",
      {{"s:", ""},
       {"for ",
        "s_textract: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(t, 0, 6, [16, 1], "
        "target_memory=pl.Mem.Vec)\n"
        "for (k, acc) in pl.while_(init_values=(0, s_textract)):"}});
}
