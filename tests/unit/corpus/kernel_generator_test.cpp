// The benchmark input generator (benchmarks/kernel_generator.hpp): sizes, determinism, the
// text round trip, and that each workload is the input its pass expects and has work in.
#include "../../../benchmarks/kernel_generator.hpp"

#include <doctest/doctest.h>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/passes/fold_no_op_reshape/pass.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

using namespace tilewright;
using bench::Workload;

namespace {

std::size_t count_calls(const ir::Program& p, std::string_view op) {
  std::size_t n = 0;
  for (const auto& f : p->functions)
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      auto* c = ir::stmt_call(s);
      n += c && !c->callee.is_function() && ir::op_name(c->callee.op) == op;
    });
  return n;
}

}  // namespace

TEST_CASE("generator: at least the requested statements, one block per kernel at most beyond") {
  for (Workload w : bench::all_workloads) {
    CAPTURE(bench::workload_name(w));
    auto one_block = bench::count_statements(bench::generate_program({w, 1, 1}));
    for (std::size_t n : {1, 60, 1000}) {
      CAPTURE(n);
      auto p = bench::generate_program({w, n, 4});
      std::size_t stmts = bench::count_statements(p);
      CHECK(stmts >= n);
      CHECK(stmts <= std::max(n, one_block * 4) + one_block * 4);
      REQUIRE(p->functions.size() == 5);
      for (std::size_t k = 0; k < 4; ++k)
        CHECK(p->functions[k]->type == (k % 2 ? ir::FunctionType::AIV : ir::FunctionType::InCore));
      CHECK(p->functions[4]->name == "main");
      CHECK(p->functions[4]->type == ir::FunctionType::Orchestration);
    }
  }
}

TEST_CASE("generator: deterministic, and the printed text parses back to the same program") {
  for (Workload w : bench::all_workloads) {
    CAPTURE(bench::workload_name(w));
    auto a = bench::generate_program({w, 200, 3});
    auto b = bench::generate_program({w, 200, 3});
    CHECK(a != b);
    auto difference = ir::structural_difference(a, b);
    CHECK_MESSAGE(!difference, (difference ? *difference : std::string()));
    std::string printed = text::print(a);
    auto reparsed = text::parse_program(printed, "generated.pto");
    difference = ir::structural_difference(a, reparsed);
    CHECK_MESSAGE(!difference, (difference ? *difference : std::string()));
    CHECK(text::print(reparsed) == printed);
  }
}

// MT-01/MT-11/MT-12: every function has tensors to materialize, in params, loop carries and
// branch merges; the result satisfies the strict verifier (MT-14).
TEST_CASE(
    "generator: strided_views is MaterializeTensorStrides input with work in every function") {
  auto p = bench::generate_program({Workload::strided_views, 300, 3});
  CHECK(pass::verify(passes::MaterializeTensorStrides::info.required, p).empty());
  CHECK_FALSE(pass::verify(pass::Property::TensorViewCanonical, p).empty());
  pass::PassContext ctx;
  auto after = passes::materialize_tensor_strides(p, ctx);
  CHECK(ctx.stats.get("MaterializeTensorStrides.functions changed") == p->functions.size());
  CHECK(pass::verify(pass::Property::TensorViewCanonical, after).empty());
}

// FR-02/FR-04: per block, three reshapes fold (same buffer and signature: straight, in the
// loop body, in a branch) and two stay (another signature; another buffer).
TEST_CASE(
    "generator: allocated_tiles is FoldNoOpReshape input with foldable and genuine reshapes") {
  auto p = bench::generate_program({Workload::allocated_tiles, 300, 2});
  CHECK(pass::verify(passes::FoldNoOpReshape::info.required, p).empty());
  std::size_t reshapes = count_calls(p, "tile.reshape");
  REQUIRE(reshapes % 5 == 0);
  pass::PassContext ctx;
  auto after = passes::fold_no_op_reshape(p, ctx);
  CHECK(count_calls(after, "tile.reshape") == reshapes / 5 * 2);
}

// FL-02/FL-13/FL-38/FL-43: 3-D and 4-D chains through loops and branches, flattened to 2-D.
TEST_CASE("generator: nd_tiles is FlattenTileNdTo2D input whose result is 2-D") {
  auto p = bench::generate_program({Workload::nd_tiles, 300, 2});
  CHECK(pass::verify(passes::FlattenTileNdTo2D::info.required, p).empty());
  CHECK_FALSE(pass::verify(pass::Property::TileOps2D, p).empty());
  pass::PassContext ctx;
  auto after = passes::flatten_tile_nd_to_2d(p, ctx);
  CHECK(pass::verify(pass::Property::TileOps2D, after).empty());
}

// CT-08/CT-09/CT-11/CT-12/CT-18: per block, six slices — two Mat matmul operands, a Mat page
// read by an extract in the loop, a dynamic-row Vec slice into col_expand_mul, FP32 column 3
// into muls — are rewritten away; FP32 columns 8..15 (32 bytes in) stay a zero-copy view.
TEST_CASE("generator: tile_slices is CanonicalizeTileSlice input where 5 of 6 slices go") {
  auto p = bench::generate_program({Workload::tile_slices, 300, 2});
  CHECK(pass::verify(passes::CanonicalizeTileSlice::info.required, p).empty());
  const std::size_t slices = count_calls(p, "tile.slice");
  REQUIRE(slices % 6 == 0);
  REQUIRE(slices > 0);
  pass::PassContext ctx;
  auto after = passes::canonicalize_tile_slice(p, ctx);
  CHECK(count_calls(after, "tile.slice") == slices / 6);
  // Per block 2 extracts were there (the page's folds into one of them); the matmul operands,
  // the dynamic row and the unaligned column each became a new one.
  CHECK(count_calls(p, "tile.extract") == slices / 6 * 2);
  CHECK(count_calls(after, "tile.extract") == slices / 6 * (2 + 4));
}

// CT-05/CT-08/CT-18: a chain of slices, each of the one before, folds into the one extract at
// its end (the first link's offset, row 16), and every link is removed.
TEST_CASE("generator: slice_chain folds into one extract of the loaded tile") {
  auto p = bench::generate_program({Workload::slice_chain, 300, 1});
  CHECK(count_calls(p, "tile.slice") >= 290);
  pass::PassContext ctx;
  auto after = passes::canonicalize_tile_slice(p, ctx);
  CHECK(count_calls(after, "tile.slice") == 0);
  REQUIRE(count_calls(after, "tile.extract") == 1);
  const std::string printed = text::print(after);
  CHECK(printed.find("pl.tile.extract(lm, 16, 0, [32, 128], target_memory=pl.Mem.Left)") !=
        std::string::npos);
}
