// CanonicalizeTileSlice's one error (CT-19…CT-24): a matmul accumulator that is a window of an
// Acc tile the MAD cannot write. The verdict and its message, the window map that resolves the
// destination operand back to its window (aliases, views and in-place ops read from the
// registry, loop carries, loop results, if-merges), the loop back edge, every silent limit, and
// the failure contract.
#include <string>

#include <doctest/doctest.h>

#include "canonicalize_test_util.hpp"
#include "tilewright/passes/canonicalize_tile_slice/analysis.hpp"

using namespace canonicalize_test;

// ---- CT-19…CT-24: the message, and the window map
// In acc_kernel bodies the first body line is line 13 of the program text.

TEST_CASE(
    "CT-19/CT-19m/CT-19n/CT-21: the rejection names the op, both extents and the column-packed spelling, "
    "at the call") {
  auto d = error_of(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
  CHECK(d.kind == ir::ErrorKind::user);
  CHECK(d.origin == "CanonicalizeTileSlice");
  CHECK(contains(d.message, l0c_phrase));
  CHECK(d.message.starts_with(
      "tile.matmul_acc: the accumulator is a 16x32 row window of a 32x32 Acc (L0C) tile"));
  CHECK(contains(d.message, "allocate 16x64 and use tile.slice(acc, [16, 32], [0, i * 32])"));
  CHECK(contains(d.message, "span every row of its parent tile"));
  CHECK(contains(d.message, "a compiler pass may have created this window"));
  // The phrases upstream's newest test of this rejection matches (CT-19m).
  for (const char* phrase : {"Pack the accumulator along columns rather than rows", "may not appear in the kernel source",
                             "FlattenTileNdTo2D packs the pages of a batched accumulator along columns",
                             "batch_matmul_acc"})
    CHECK_MESSAGE(contains(d.message, phrase), phrase);
  CHECK(d.span.line == 14);  // the matmul_acc
  CHECK(d.span.file_name() == "canonicalize_test.pto");
}

TEST_CASE("CT-19n: no packing advice when the parent does not split into whole windows") {
  auto d = error_of(acc_kernel(
      48, 32, 32, 32,
      R"(        acc_win: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [32, 32], [16, 0])
        acc_new: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[48, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
  CHECK(contains(d.message, "32x32 row window of a 48x32 Acc (L0C) tile"));
  CHECK_FALSE(contains(d.message, "allocate"));
}

TEST_CASE("CT-23: a bare accumulating statement is checked like an assignment") {
  auto d = error_of(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)"));
  CHECK(contains(d.message, l0c_phrase));
  CHECK(d.span.line == 14);
}

TEST_CASE("CT-23: an alias and a same-extent view of the window resolve back to it") {
  auto alias = error_of(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        dst: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = acc_win
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(dst, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
  CHECK(contains(alias.message, l0c_phrase));
  CHECK(alias.span.line == 15);
  auto view = error_of(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        dst: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.reshape(acc_win, [16, 32])
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(dst, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
  CHECK(contains(view.message, l0c_phrase));
  CHECK(view.span.line == 15);
}

TEST_CASE("CT-23: a view that changes the extent is not followed, so the check stays silent") {
  check_unchanged(acc_kernel(
      32, 32, 32, 16,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        dst: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.reshape(acc_win, [32, 16])
        acc_new: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(dst, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
}

TEST_CASE("CT-23: a hoisted window reaches the matmul through the loop carry") {
  auto d = error_of(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        for k, (c,) in pl.range(4, init_values=(acc_win,)):
            c2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c, a, b)
            c_rv: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(c2)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(c_rv, [0, 0], out)
        return out2
)"));
  CHECK(contains(d.message, l0c_phrase));
  CHECK(d.span.line == 15);
}

TEST_CASE("CT-23: a loop result names the window only when the carry keeps it") {
  // Exit edge bound (the yield names the initializer's window): the later matmul is checked.
  auto d = error_of(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        for k, (c,) in pl.range(4, init_values=(acc_win,)):
            c_rv: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(c)
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_rv, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
  CHECK(d.span.line == 16);
  // The yield names another window: a zero-trip loop would return the initializer, so the
  // result names neither and stays unchecked.
  check_unchanged(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        other: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, 0])
        for k, (c,) in pl.range(4, init_values=(acc_win,)):
            c_rv: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(other)
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c_rv, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
}

TEST_CASE("CT-23: an if-merge names a window only when both arms yield the same one") {
  auto d = error_of(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        same: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        if flag == 0:
            r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(acc_win)
        else:
            r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(same)
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(r, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
  CHECK(d.span.line == 19);
  check_unchanged(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        other: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, 0])
        if flag == 0:
            r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(acc_win)
        else:
            r: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(other)
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(r, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)"));
}

namespace {
// An accepted full-row window carried into a loop whose body writes it and then yields a
// row window of another accumulator: the back edge hands the MAD that window on trip 2.
std::string back_edge_kernel(const std::string& loop_header, const std::string& yield) {
  return acc_kernel(
      16, 64, 16, 32,
      R"(        acc2: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        good: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, 0])
)" + loop_header +
          R"(
            c2: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(c, a, b)
            bad: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc2, [16, 32], [16, 0])
)" + yield +
          R"(
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)");
}
}  // namespace

TEST_CASE(
    "CT-24: the back edge is checked when the loop provably runs twice, blaming the in-body "
    "matmul") {
  auto d = error_of(back_edge_kernel(
      "        for k, (c,) in pl.range(4, init_values=(good,)):",
      "            c_rv: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(bad)"));
  CHECK(contains(d.message, "16x32 row window of a 32x32 Acc (L0C) tile"));
  CHECK(d.span.line == 16);
}

TEST_CASE(
    "CT-24: one trip, a symbolic trip count or a while loop never take the back edge as proven") {
  check_unchanged(back_edge_kernel(
      "        for k, (c,) in pl.range(1, init_values=(good,)):",
      "            c_rv: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(bad)"));
  check_unchanged(back_edge_kernel(
      "        for k, (c,) in pl.range(0, 8, 8, init_values=(good,)):",
      "            c_rv: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(bad)"));
  check_unchanged(back_edge_kernel(
      "        for k, (c,) in pl.range(flag, init_values=(good,)):",
      "            c_rv: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(bad)"));
  check_unchanged(back_edge_kernel(
      "        for (k, c) in pl.while_(init_values=(0, good)):\n            pl.cond(k < flag)",
      "            k2: pl.Scalar[pl.INDEX] = k + 1\n"
      "            k_rv, c_rv = pl.yield_(k2, bad)"));
}

TEST_CASE("CT-24: a carry the body only reads is not checked on its back edge") {
  check_unchanged(acc_kernel(
      16, 64, 16, 32,
      R"(        acc2: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        good: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [0, 0])
        for k, (c,) in pl.range(4, init_values=(good,)):
            bad: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc2, [16, 32], [16, 0])
            c_rv: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.yield_(bad)
        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)"));
}

// ---- the failure contract ------------------------------------------------------------------

TEST_CASE("CT-02: a rejection comes before any rewrite; the input program is untouched") {
  auto before = parse(program_text(
      incore +
      acc_kernel(
          32, 32, 16, 32,
          R"(        t: pl.Tile[[16, 8], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 8], dtype=pl.FP32, target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 1], [0, 1])
        y: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(s, 2.0)
        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)")));
  const std::string printed = text::print(before);
  const ir::Stmt body = before->functions[0]->body;
  pass::PassContext ctx;
  CHECK_THROWS_WITH_AS(passes::canonicalize_tile_slice(before, ctx),
                       doctest::Contains(l0c_phrase.c_str()), ir::Error);
  CHECK(text::print(before) == printed);
  CHECK(before->functions[0]->body == body);
  CHECK(ctx.stats.get("CanonicalizeTileSlice.copy-unaligned-vec-operand: applied") ==
        0);  // no rule ran
}


// ---- CT-19…CT-21: the verdict, window by window ---------------------------------------------

namespace {
// `acc_new = matmul_acc(acc_win, a, b)` with acc_win = slice(acc, window, offset) of a
// [rows, cols] Acc tile; `slice_args` is what follows `acc, ` in the slice call.
std::string one_window(int rows, int cols, int win_rows, int win_cols,
                       const std::string& slice_args) {
  const std::string w = "[" + std::to_string(win_rows) + ", " + std::to_string(win_cols) + "]";
  const std::string p = "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
  return acc_kernel(rows, cols, win_rows, win_cols,
                    "        acc_win: pl.Tile[" + w +
                        ", pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, " + slice_args +
                        ")\n"
                        "        acc_new: pl.Tile[" +
                        w +
                        ", pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)\n"
                        "        out2: pl.Tensor[" +
                        p +
                        ", pl.FP32] = pl.tile.store(acc, [0, 0], out)\n"
                        "        return out2\n");
}
}  // namespace

TEST_CASE(
    "CT-19/CT-21: a window over every row, or inside one 16-column block, is accepted; a row "
    "window wider than a block, or one straddling two blocks, is rejected") {
  // Accepted (the program comes back as it was: nothing else to do).
  check_unchanged(one_window(16, 64, 16, 32, "[16, 32], [0, 32]"));  // spans every row
  check_unchanged(one_window(32, 16, 16, 16, "[16, 16], [16, 0]"));  // one block column
  check_unchanged(one_window(32, 32, 16, 16, "[16, 16], [16, 16]"));  // the second block column
  check_unchanged(one_window(32, 32, 16, 8, "[16, 8], [0, 20]"));     // cols 20…27: one block
  // Rejected.
  auto rows = error_of(one_window(32, 32, 16, 32, "[16, 32], [16, 0]"));
  CHECK(contains(rows.message, l0c_phrase));
  CHECK(contains(rows.message, "16x32 row window of a 32x32 Acc (L0C) tile"));
  auto straddle = error_of(one_window(32, 32, 16, 16, "[16, 16], [16, 8]"));  // cols 8…23
  CHECK(contains(straddle.message, l0c_phrase));
  CHECK(contains(straddle.message, "16x16 row window of a 32x32 Acc (L0C) tile"));
  CHECK(contains(straddle.message, "allocate 16x32 and use tile.slice(acc, [16, 16], [0, i * 16])"));
}

TEST_CASE("CT-19: a narrow window at a dynamic column cannot be shown inside one block: rejected") {
  auto d = error_of(acc_kernel(
      32, 32, 16, 16,
      R"(        c: pl.Scalar[pl.INDEX] = flag * 16
        acc_win: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], [16, c])
        acc_new: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)"));
  CHECK(contains(d.message, l0c_phrase));
  CHECK(d.span.line == 15);
}

TEST_CASE(
    "CT-19: scoped by the registry's output_reuses_input — tile.gemv_acc is checked, its "
    "message names it") {
  // gemv's result is valid on its first row only, so the accumulator window is sliced with
  // that valid region (4-arg slice, CT-20): tile.gemv_acc's deduction requires it.
  auto d = error_of(
      R"(    def kernel(x: pl.Tensor[[1, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> pl.Tensor[[32, 32], pl.FP32]:
        xm: pl.Tile[[1, 64], pl.FP16, pl.Mem.Mat, pl.TileView(blayout=pl.TileLayout.row_major, slayout=pl.TileLayout.none_box)] = pl.tile.load(x, [0, 0], [1, 64], [1, 64], target_memory=pl.Mem.Mat)
        a: pl.Tile[[1, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(xm, target_memory=pl.Mem.Left)
        wm: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Mat)
        b: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(wm, target_memory=pl.Mem.Right)
        acc: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.create([32, 32], dtype=pl.FP32, target_memory=pl.Mem.Acc)
        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0], [1, 32])
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.gemv_acc(acc_win, a, b, acc_phase='unspecified')
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)");
  CHECK(d.message.starts_with("tile.gemv_acc: the accumulator is a 16x32 row window"));
  CHECK(contains(d.message, l0c_phrase));
}

TEST_CASE("CT-19n: without whole windows, the message still names a column slice that works") {
  auto d = error_of(one_window(48, 32, 32, 32, "[32, 32], [16, 0]"));
  CHECK(contains(d.message, "32x32 row window of a 48x32 Acc (L0C) tile"));
  CHECK(contains(d.message, l0c_phrase));
  CHECK(contains(d.message, "each window spans all 48 rows: tile.slice(acc, [48, 32], [0, j])"));
  CHECK(contains(d.message, "a compiler pass may have created this window"));
}

TEST_CASE(
    "CT-20/CT-07: a valid_shape slice is a window for the check, though it is never rewritten") {
  auto d = error_of(one_window(32, 32, 16, 32, "[16, 32], [16, 0], [16, 32]"));
  CHECK(contains(d.message, l0c_phrase));
  CHECK(d.span.line == 14);
  // A program whose only slice is such a window is still checked: the check is in the sweep,
  // before the pass looks for canonical slices (CT-02).
}

TEST_CASE("CT-22 (D11): a chained slice resolves to its parent and its summed offset") {
  // [32, 32] at [0, 0], then [16, 16] at [16, 8] of it: cols 8…23 of acc, straddling.
  auto d = error_of(acc_kernel(
      32, 32, 16, 16,
      R"(        outer: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [32, 32], [0, 0])
        acc_win: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(outer, [16, 16], [16, 8])
        acc_new: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)"));
  CHECK(contains(d.message, "16x16 row window of a 32x32 Acc (L0C) tile"));
  // The same window one block further right (cols 16…31) is accepted.
  check_unchanged(acc_kernel(
      32, 32, 16, 16,
      R"(        outer: pl.Tile[[32, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [32, 32], [0, 0])
        acc_win: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(outer, [16, 16], [16, 16])
        acc_new: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)"));
}

// ---- CT-19/CT-23: what the check cannot prove stays silent ----------------------------------

TEST_CASE("CT-19 (silent limit): a window of a parent whose row count is symbolic is not judged") {
  // A window's own extent is always static (tile.slice's shape holds positive ConstInts, ir_ops
  // B.3.2: the parser refuses `[n, 32]`), so the symbolic case the check leaves alone is the
  // parent's: an Acc tile arriving with `m` rows.
  check_unchanged(
      "    def kernel(acc: pl.Tile[[m, 32], pl.FP32, pl.Mem.Acc], x: pl.Tensor[[16, 64], pl.FP16], "
      "w: pl.Tensor[[64, 32], pl.FP16], m: pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[32, 32], pl.FP32]]) -> "
      "pl.Tensor[[32, 32], pl.FP32]:\n"
      R"(        xm: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        a: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(xm, target_memory=pl.Mem.Left)
        wm: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Mat)
        b: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(wm, target_memory=pl.Mem.Right)
        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)");
  // A symbolic tile.slice shape is refused by the parser.
  CHECK(contains(parse_error_of(acc_kernel(32, 32, 16, 32, R"(        acc_win: pl.Tile[[flag, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [flag, 32], [16, 0])
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)")).message,
                 "positive integer constants"));
}

TEST_CASE("CT-19 (silent limit): a window arriving as a function parameter carries no window") {
  check_unchanged(
      R"(    def kernel(acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc], x: pl.Tensor[[16, 64], pl.FP16], w: pl.Tensor[[64, 32], pl.FP16], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        xm: pl.Tile[[16, 64], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [16, 64], [16, 64], target_memory=pl.Mem.Mat)
        a: pl.Tile[[16, 64], pl.FP16, pl.Mem.Left] = pl.tile.move(xm, target_memory=pl.Mem.Left)
        wm: pl.Tile[[64, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], [64, 32], [64, 32], target_memory=pl.Mem.Mat)
        b: pl.Tile[[64, 32], pl.FP16, pl.Mem.Right] = pl.tile.move(wm, target_memory=pl.Mem.Right)
        acc_new: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul_acc(acc_win, a, b)
        out2: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(acc_new, [0, 0], out)
        return out2
)");
}

TEST_CASE(
    "CT-23 (silent limits): reinterpret_view of an Acc window never type-checks, transpose_view of a non-square "
    "window swaps the extent, tile.transpose and tile.extract copy — none is followed") {
  // reinterpret_view of an Acc window: Acc tiles are in the blocked L0C layout and
  // reinterpret_view takes only flat (none_box) sources, so deduction refuses it and the
  // window map never meets such an edge.
  CHECK(contains(parse_error_of(acc_kernel(32, 32, 16, 32, R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        dst: pl.Tile[[16, 32], pl.INT32, pl.Mem.Acc] = pl.tile.reinterpret_view(acc_win, dtype=pl.INT32)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)")).message,
                 "flat (none_box) layout"));
  // transpose_view of a non-square window: [32, 16] is not the window's extent.
  check_unchanged(acc_kernel(
      32, 32, 32, 16,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        dst: pl.Tile[[32, 16], pl.FP32, pl.Mem.Acc] = pl.tile.transpose_view(acc_win)
        pl.tile.matmul_acc(dst, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)"));
  // Square windows: the fresh-buffer ops are not followed, the view is (same bytes, same extent).
  const std::string straddle =
      "        acc_win: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 16], "
      "[16, 8])\n";
  const std::string tail =
      "        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)\n"
      "        return out2\n";
  // (The extract itself is folded onto acc by CT-08: accepted, not unchanged.)
  CHECK_NOTHROW(canonicalize(parse(program_text(
      incore + acc_kernel(32, 32, 16, 16,
                          straddle +
                              "        dst: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = "
                              "pl.tile.extract(acc_win, 0, 0, [16, 16], "
                              "target_memory=pl.Mem.Acc)\n"
                              "        pl.tile.matmul_acc(dst, a, b)\n" +
                              tail)))));
  check_unchanged(acc_kernel(32, 32, 16, 16,
                             straddle +
                                 "        dst: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = "
                                 "pl.tile.transpose(acc_win, 0, 1)\n"
                                 "        pl.tile.matmul_acc(dst, a, b)\n" +
                                 tail));
  auto d = error_of(acc_kernel(32, 32, 16, 16,
                               straddle +
                                   "        dst: pl.Tile[[16, 16], pl.FP32, pl.Mem.Acc] = "
                                   "pl.tile.transpose_view(acc_win)\n"
                                   "        pl.tile.matmul_acc(dst, a, b)\n" +
                                   tail));
  CHECK(contains(d.message, l0c_phrase));
  CHECK(d.span.line == 15);
}

TEST_CASE("CT-23: set_validshape keeps the window; so does a chained accumulation") {
  auto d = error_of(acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        dst: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc, pl.TileView(valid_shape=[16, 32])] = pl.tile.set_validshape(acc_win, 16, 32)
        pl.tile.matmul_acc(dst, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)"));
  CHECK(contains(d.message, l0c_phrase));
  CHECK(d.span.line == 15);
}

namespace {
// The analysis of `function`'s body under `registry`: throws the CT-19 error or returns.
void analyze_with(const std::string& function, const ops::Registry& registry) {
  auto p = parse(program_text(incore + function));
  (void)passes::canonicalize::analyze_slices(p->functions[0]->body, registry);
}
}  // namespace

TEST_CASE(
    "CT-19/CT-23: the destination and the storage edges are read from registry flags, never an "
    "op list") {
  const std::string through_reshape = acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        dst: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.reshape(acc_win, [16, 32])
        pl.tile.matmul_acc(dst, a, b)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)");
  const ops::Registry& builtin = ops::builtin_registry();
  CHECK_THROWS_WITH(analyze_with(through_reshape, builtin), doctest::Contains(l0c_phrase.c_str()));
  // tile.matmul_acc without its output_reuses_input row: no destination, nothing to check.
  ops::Registry no_destination = builtin;
  ops::OpInfo acc_row = *builtin.find("tile.matmul_acc");
  acc_row.flags.output_reuses_input = -1;
  no_destination.add(acc_row);
  CHECK_NOTHROW(analyze_with(through_reshape, no_destination));
  // tile.reshape as a copy into a fresh buffer (not in-place safe): the edge is gone.
  ops::Registry reshape_copies = builtin;
  ops::OpInfo reshape_row = *builtin.find("tile.reshape");
  reshape_row.flags.inplace_safe = false;
  reshape_copies.add(reshape_row);
  CHECK_NOTHROW(analyze_with(through_reshape, reshape_copies));
  // An op the pass has never heard of, declared to accumulate into operand 0, is checked:
  // here tile.muls, given that flag in a copy of the registry.
  ops::Registry muls_accumulates = builtin;
  ops::OpInfo muls_row = *builtin.find("tile.muls");
  muls_row.flags.output_reuses_input = 0;
  muls_accumulates.add(muls_row);
  const std::string muls_into_window = acc_kernel(
      32, 32, 16, 32,
      R"(        acc_win: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.slice(acc, [16, 32], [16, 0])
        scaled: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.muls(acc_win, 2.0)
        out2: pl.Tensor[[32, 32], pl.FP32] = pl.tile.store(acc, [0, 0], out)
        return out2
)");
  CHECK_NOTHROW(analyze_with(muls_into_window, builtin));
  CHECK_THROWS_WITH(analyze_with(muls_into_window, muls_accumulates),
                    doctest::Contains("tile.muls: the accumulator is a 16x32 row window"));
}
