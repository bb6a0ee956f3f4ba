// FlattenTileNdTo2D: the catalog rows of issue 7 are each pinned somewhere. A row is pinned by
// a golden case whose NAME.ids lists it (the golden test runs every such case) or by a test
// here in tests/ that cites it. This test reads both and fails naming any row left unpinned.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

using namespace tilewright;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void collect_ids(const std::string& text, std::set<std::string>& out) {
  static const std::regex id(R"(FL-\d\d[a-d]?)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), id); it != std::sregex_iterator(); ++it)
    out.insert(it->str());
}

}  // namespace

TEST_CASE("FL-20: a load from an NZ tensor flattens the tile and leaves the source uncollapsed") {
  const std::string text = R"(# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(x: pl.Tensor[[2, 16, 32], pl.FP16, pl.TensorView(stride=[], layout=pl.TensorLayout.NZ)], out_0: pl.Out[pl.Tensor[[2, 16, 32], pl.FP16]]) -> pl.Tensor[[2, 16, 32], pl.FP16]:
        a: pl.Tile[[2, 16, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 32], [2, 16, 32], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[2, 16, 32], pl.FP16] = pl.tile.store(a, [0, 0, 0], out_0)
        return out_1)";
  const std::string expected = R"(# pypto.program: P
import pypto.language as pl

@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(x: pl.Tensor[[2, 16, 32], pl.FP16, pl.TensorView(stride=[], layout=pl.TensorLayout.NZ)], out_0: pl.Out[pl.Tensor[[2, 16, 32], pl.FP16]]) -> pl.Tensor[[2, 16, 32], pl.FP16]:
        a: pl.Tile[[32, 32], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 16, 32], [2, 16, 32], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[2, 16, 32], pl.FP16] = pl.tile.store(a, [0, 0, 0], out_0, [2, 16, 32])
        return out_1)";
  auto before = text::parse_program(text, "<fl-20>", ops::builtin_registry());
  pass::PassContext ctx;
  auto after = passes::flatten_tile_nd_to_2d(before, ctx);
  // No tensor.view: the NZ tensor is passed to the load as it is; only the tile is 2-D.
  CHECK(text::print(after) == expected);
  auto diff = ir::structural_difference(after, text::parse_program(expected, "<expected>", ops::builtin_registry()));
  CHECK_MESSAGE(!diff, diff.value_or(""));
}

// Reads the golden corpus: skipped (and counted as skipped by doctest) when it is absent.
TEST_CASE("issue 7: every FL row from 01 to 49 and 67 to 72 is pinned by a golden case or a test" *
          doctest::skip(!fs::is_directory(TILEWRIGHT_GOLDEN_DIR))) {
  std::set<std::string> pinned;
  for (const auto& entry : fs::directory_iterator(fs::path(TILEWRIGHT_GOLDEN_DIR) / "flatten_tile_nd_to_2d")) {
    // Batched-matmul cases are counted only when the batched lowering runs them.
    if (entry.path().extension() != ".ids" || entry.path().filename().string().starts_with("bmm_")) continue;
    collect_ids(slurp(entry.path()), pinned);
  }
  for (const char* dir : {"tests/unit", "tests/golden"})
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(TILEWRIGHT_SOURCE_DIR) / dir)) {
      // Every unit test folder; tests/golden itself only, as before the unit tests had folders.
      if (!entry.is_regular_file() || (std::string_view(dir) == "tests/golden" && entry.path().parent_path() != fs::path(TILEWRIGHT_SOURCE_DIR) / dir))
        continue;
      std::string text = slurp(entry.path());
      // In this file only the tests above count, not the lists below.
      if (entry.path().filename() == "rows_test.cpp") text = text.substr(0, text.find("TEST_CASE(\"issue 7"));
      collect_ids(text, pinned);
    }
  // Rows with no behaviour of their own here, and why.
  const std::set<std::string> not_applicable = {
      "FL-07",  // a heading: its rows are FL-07a…FL-07d
      "FL-08",  // seeds list it as a requirement; upstream checks nothing (catalog [M]), nor do we
      "FL-34",  // a transpose read only by batched matmuls: the lowering peels only transpose_view, so dead upstream too
  };
  std::set<std::string> wanted;
  for (int i = 1; i <= 72; ++i) {
    if (i > 49 && i < 67) continue;
    char buf[8];
    std::snprintf(buf, sizeof buf, "FL-%02d", i);
    wanted.insert(buf);
  }
  for (const char* sub : {"FL-07a", "FL-07b", "FL-07c", "FL-07d"}) wanted.insert(sub);
  std::string missing;
  for (const auto& id : wanted)
    if (!pinned.count(id) && !not_applicable.count(id)) missing += id + " ";
  CHECK_MESSAGE(missing.empty(), "rows no golden case or test cites: " << missing);
}
