// CanonicalizeTileSlice: the six examples of seed 004, typed as the seed writes them — its
// names, its column alignment, `shape=` as a keyword, calls broken over two lines — inside a
// function that loads their sources and stores their results. The seed shows statement
// fragments; the function around them is ours. The seed's "after" blocks name the copies
// differently from the pass (`lhs_left` for `lhs_slice_textract`), so results are compared
// structurally, which maps Var names (catalog §0); and it writes tile types without the view
// an op deduces (a Left tile's row-major blocks), so views are erased on both sides first.
// All six are already in SSA form.
//
// The last test checks that every CT row is pinned by a test of our own that cites it.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "canonicalize_test_util.hpp"
#include "tilewright/ir/mutate.hpp"

using namespace canonicalize_test;

namespace {

// The program with every tile type's view dropped.
struct EraseViews : ir::Mutator<EraseViews> {
  ir::Type mutate_type(const ir::Type& t) {
    ir::Type rebuilt = Mutator::mutate_type(t);
    auto* tile = ir::as<ir::TileType>(rebuilt);
    if (!tile || !tile->view) return rebuilt;
    return ir::make_tile_type(tile->shape, tile->dtype, std::nullopt, tile->memory, tile->memref);
  }
};
ir::Program without_views(const ir::Program& p) {
  std::vector<ir::Function> functions;
  for (const auto& f : p->functions) functions.push_back(EraseViews{}.mutate_function(f));
  return ir::make_program(p->name, std::move(functions));
}

// `signature` opens the function, `setup` loads the sources, `fragment` is the seed's text,
// `tail` stores the results and returns. The pass must turn `before` into `after`.
void check_seed_example(const std::string& signature, const std::string& setup,
                        const std::string& before, const std::string& after,
                        const std::string& tail) {
  auto wrap = [&](const std::string& fragment) {
    return program_text(incore + signature + setup + fragment + tail);
  };
  auto result = without_views(canonicalize(parse(wrap(before))));
  auto expected = without_views(parse(wrap(after)));
  auto difference = ir::structural_difference(result, expected);
  CHECK_MESSAGE(!difference, difference.value_or("") << "\n" << text::print(result));
}

}  // namespace

TEST_CASE("CT-08 (seed 004, example 1): the offset-0 batch-page slice folds into tile.extract") {
  check_seed_example(
      "    def kernel(x: pl.Tensor[[32, 512], pl.INT8], ko: pl.Scalar[pl.INDEX], out: "
      "pl.Out[pl.Tensor[[32, 256], pl.INT8]]) -> pl.Tensor[[32, 256], pl.INT8]:\n",
      "        x_mat: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [32, 512], "
      "[32, 512], target_memory=pl.Mem.Mat)\n",
      R"(        lhs_slice: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [0, 0])
        a:         pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
            lhs_slice, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
)",
      R"(        a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
            x_mat, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
)",
      "        v: pl.Tile[[32, 256], pl.INT8, pl.Mem.Vec] = pl.tile.move(a, "
      "target_memory=pl.Mem.Vec)\n"
      "        out2: pl.Tensor[[32, 256], pl.INT8] = pl.tile.store(v, [0, 0], out)\n"
      "        return out2\n");
}

TEST_CASE(
    "CT-08 (seed 004, example 2): a page at [32, 0] turns extract(slice, 0, ko, …) into "
    "extract(x_mat, 32, ko, …)") {
  check_seed_example(
      "    def kernel(x: pl.Tensor[[64, 512], pl.INT8], ko: pl.Scalar[pl.INDEX], out: "
      "pl.Out[pl.Tensor[[32, 256], pl.INT8]]) -> pl.Tensor[[32, 256], pl.INT8]:\n",
      "        x_mat: pl.Tile[[64, 512], pl.INT8, pl.Mem.Mat] = pl.tile.load(x, [0, 0], [64, 512], "
      "[64, 512], target_memory=pl.Mem.Mat)\n",
      R"(        lhs_slice: pl.Tile[[32, 512], pl.INT8, pl.Mem.Mat] = pl.tile.slice(x_mat, [32, 512], [32, 0])
        a:         pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
            lhs_slice, 0, ko, shape=[32, 256], target_memory=pl.Mem.Left)
)",
      R"(        a: pl.Tile[[32, 256], pl.INT8, pl.Mem.Left] = pl.tile.extract(
            x_mat, 32, ko, shape=[32, 256], target_memory=pl.Mem.Left)
)",
      "        v: pl.Tile[[32, 256], pl.INT8, pl.Mem.Vec] = pl.tile.move(a, "
      "target_memory=pl.Mem.Vec)\n"
      "        out2: pl.Tensor[[32, 256], pl.INT8] = pl.tile.store(v, [0, 0], out)\n"
      "        return out2\n");
}

TEST_CASE(
    "CT-09 (seed 004, example 3): an untiled matmul's Mat-slice operands become Left and Right "
    "extracts") {
  check_seed_example(
      "    def kernel(l: pl.Tensor[[16, 256], pl.BF16], r: pl.Tensor[[256, 64], pl.BF16], out: "
      "pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n",
      "        lhs_mat: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(l, [0, 0], [16, 256], "
      "[16, 256], target_memory=pl.Mem.Mat)\n"
      "        rhs_mat: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(r, [0, 0], [256, "
      "64], [256, 64], target_memory=pl.Mem.Mat)\n",
      R"(        lhs_slice: pl.Tile[[16, 256], pl.BF16, pl.Mem.Mat] = pl.tile.slice(lhs_mat, [16, 256], [0, 0])
        rhs_slice: pl.Tile[[256, 64], pl.BF16, pl.Mem.Mat] = pl.tile.slice(rhs_mat, [256, 64], [0, 0])
        c:         pl.Tile[[16, 64],  pl.FP32, pl.Mem.Acc] = pl.tile.matmul(lhs_slice, rhs_slice)
)",
      R"(        lhs_left:  pl.Tile[[16, 256], pl.BF16, pl.Mem.Left]  = pl.tile.extract(
            lhs_mat, 0, 0, shape=[16, 256], target_memory=pl.Mem.Left)
        rhs_right: pl.Tile[[256, 64], pl.BF16, pl.Mem.Right] = pl.tile.extract(
            rhs_mat, 0, 0, shape=[256, 64], target_memory=pl.Mem.Right)
        c:         pl.Tile[[16, 64],  pl.FP32, pl.Mem.Acc]   = pl.tile.matmul(lhs_left, rhs_right)
)",
      "        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(c, [0, 0], out)\n"
      "        return out2\n");
}

TEST_CASE(
    "CT-11 (seed 004, example 4, #1640): a dynamic-offset row read by col_expand_mul is "
    "materialized into a fresh tile") {
  check_seed_example(
      "    def kernel(x: pl.Tensor[[16, 256], pl.FP32], g: pl.Tensor[[1, 256], pl.FP32], row_off: "
      "pl.Scalar[pl.INDEX], out: pl.Out[pl.Tensor[[1, 256], pl.FP32]]) -> pl.Tensor[[1, 256], "
      "pl.FP32]:\n",
      "        local: pl.Tile[[16, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 256], "
      "[16, 256], target_memory=pl.Mem.Vec)\n"
      "        gamma_t: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 256], "
      "[1, 256], target_memory=pl.Mem.Vec)\n",
      R"(        row:    pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [1, 256], [row_off, 0])
        scaled: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row, gamma_t)
)",
      R"(        row_ext: pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
            local, row_off, 0, shape=[1, 256], target_memory=pl.Mem.Vec)
        scaled:  pl.Tile[[1, 256], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(row_ext, gamma_t)
)",
      "        out2: pl.Tensor[[1, 256], pl.FP32] = pl.tile.store(scaled, [0, 0], out)\n"
      "        return out2\n");
}

TEST_CASE(
    "CT-11 (seed 004, example 5, #2010): t[:, 64:128] of a [16, 128] tile is not contiguous and "
    "is materialized") {
  check_seed_example(
      "    def kernel(x: pl.Tensor[[16, 128], pl.FP32], g: pl.Tensor[[1, 64], pl.FP32], out: "
      "pl.Out[pl.Tensor[[16, 64], pl.FP32]]) -> pl.Tensor[[16, 64], pl.FP32]:\n",
      "        t: pl.Tile[[16, 128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 128], [16, "
      "128], target_memory=pl.Mem.Vec)\n"
      "        gamma_t: pl.Tile[[1, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(g, [0, 0], [1, 64], "
      "[1, 64], target_memory=pl.Mem.Vec)\n",
      R"(        hi:     pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 64], [0, 64])
        scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi, gamma_t)
)",
      R"(        hi_ext: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
            t, 0, 64, shape=[16, 64], target_memory=pl.Mem.Vec)
        scaled: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.col_expand_mul(hi_ext, gamma_t)
)",
      "        out2: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(scaled, [0, 0], out)\n"
      "        return out2\n");
}

TEST_CASE(
    "CT-12/CT-15 (seed 004, example 6, #1789): FP32 column 1 is copied for tile.muls; column 8 "
    "and a dynamic row over an aligned pitch stay zero-copy") {
  const std::string signature =
      "    def kernel(x: pl.Tensor[[16, 16], pl.FP32], r: pl.Scalar[pl.INDEX], out: "
      "pl.Out[pl.Tensor[[16, 1], pl.FP32]]) -> pl.Tensor[[16, 1], pl.FP32]:\n";
  const std::string setup =
      "        local: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], "
      "[16, 16], target_memory=pl.Mem.Vec)\n";
  const std::string tail =
      "        out2: pl.Tensor[[16, 1], pl.FP32] = pl.tile.store(scaled, [0, 0], out)\n"
      "        return out2\n";
  check_seed_example(signature, setup,
                     R"(        head:   pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], [0, 1])
        scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)
)",
                     R"(        head_ext: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.extract(
            local, 0, 1, shape=[16, 1], target_memory=pl.Mem.Vec)
        scaled:   pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head_ext, 0.5)
)",
                     tail);
  // "By contrast": column 8 is 32 bytes in, and a dynamic row of a 64-byte pitch is aligned.
  for (const char* offset : {"[0, 8]", "[r, 0]"}) {
    CAPTURE(offset);
    const std::string fragment =
        "        head:   pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.slice(local, [16, 1], " +
        std::string(offset) +
        ")\n        scaled: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.muls(head, 0.5)\n";
    check_unchanged(signature + setup + fragment + tail);
  }
}

// ---- every row pinned -------------------------------------------------------------------------

namespace {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
}  // namespace

TEST_CASE("issue 13: every CT row is cited by the name of a CanonicalizeTileSlice test") {
  // Only test names count, and only in our own sources: the golden corpus is an extra check
  // that may be absent.
  static const std::regex test_name(R"(TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)\))");
  static const std::regex row(R"(CT-(\d\d)([a-z]?))");
  std::set<std::string> cited;
  // The pass's own test folder: deleting the pass deletes them with it.
  for (const auto& entry :
       fs::directory_iterator(fs::path(TILEWRIGHT_SOURCE_DIR) / "tests/unit/passes/canonicalize_tile_slice")) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = slurp(entry.path());
    for (auto t = std::sregex_iterator(text.begin(), text.end(), test_name);
         t != std::sregex_iterator(); ++t) {
      const std::string title = (*t)[1].str();
      for (auto r = std::sregex_iterator(title.begin(), title.end(), row);
           r != std::sregex_iterator(); ++r)
        cited.insert(r->str());
    }
  }
  std::string missing;
  auto want = [&](const std::string& id) {
    if (!cited.count(id)) missing += id + " ";
  };
  for (int i = 1; i <= 24; ++i) {
    char id[8];
    std::snprintf(id, sizeof id, "CT-%02d", i);
    if (i != 17) want(id);  // CT-17 is a heading: its rows are CT-17a…c
  }
  for (const char* sub : {"CT-17a", "CT-17b", "CT-17c", "CT-19m", "CT-19n"}) want(sub);
  CHECK_MESSAGE(missing.empty(), "rows no test name cites: " << missing);
}
