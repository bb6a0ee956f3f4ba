// A downstream compiler's own tile op, registered in the PassContext's registry, flows through
// FlattenTileNdTo2D's generic rule (FL-38) and survives printing and parsing (issue 12).
#include <doctest/doctest.h>

#include <string>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

using namespace tilewright;

namespace {

// `mylib.scale(tile, factor)`: a Vec tile op outside `tile.`, declared a member of the tile
// family so the passes treat it like a built-in one. Its result is its operand's tile.
ops::Registry with_scale() {
  ops::Registry r = ops::builtin_registry();
  ops::add(r, ops::OpRow("mylib.scale", {"tile", "factor"})
                  .in_family(ir::OpFamily::tile)
                  .vec_in({0})
                  .out(ir::MemorySpace::Vec)
                  .deduce([](const ops::DeduceInput& in) {
                    const ir::TileType* t = ir::tile_type(in.args[0]);
                    if (!t) ir::throw_user_error("mylib.scale", "mylib.scale expects a tile", in.span);
                    return ir::make_tile_type(t->shape, t->dtype, std::nullopt, t->memory);
                  }));
  return r;
}

const std::string kernel = R"(# pypto.program: Scale
import pypto.language as pl

@pl.program
class Scale:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(x: pl.Tensor[[2, 8, 16], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 8, 16], pl.FP32]]) -> pl.Tensor[[2, 8, 16], pl.FP32]:
        a: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 8, 16], [2, 8, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.mylib.scale(a, 2.0)
        out_1: pl.Tensor[[2, 8, 16], pl.FP32] = pl.tile.store(s, [0, 0, 0], out_0)
        return out_1
)";

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("FL-38, issue 12: a custom tile op registered in the PassContext is flattened by the generic rule") {
  const ops::Registry mine = with_scale();
  CHECK(ir::is_tile_op(ir::intern_op("mylib.scale")));
  ir::Program before = text::parse_program(kernel, "scale.pto", mine);

  pass::PassContext ctx;
  ctx.use_registry(mine);
  ir::Program after = passes::flatten_tile_nd_to_2d(before, ctx);
  const std::string printed = text::print(after);
  CHECK(contains(printed, "s: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.mylib.scale(a, 2.0)"));
  CHECK(contains(printed, "pl.tile.store(s, [0, 0, 0], out_0, [2, 8, 16])"));
  CHECK(ctx.stats.get("FlattenTileNdTo2D.flatten-generic-tile-op: applied") == 1);

  // What the pass wrote reads back as the same program, through the same registry.
  ir::Program reparsed = text::parse_program(printed, "scale_after.pto", mine);
  CHECK(ir::structural_equal(reparsed, after));
  // The 2D result is what the TileOps2D verifier accepts.
  CHECK(pass::verify(pass::PropertySet{pass::Property::TileOps2D}, after).empty());
}

TEST_CASE("issue 12: without the op in its registry the default context cannot build it") {
  const ops::Registry mine = with_scale();
  ir::Program before = text::parse_program(kernel, "scale.pto", mine);
  pass::PassContext ctx;  // the built-in catalog: no mylib.scale
  try {
    (void)passes::flatten_tile_nd_to_2d(before, ctx);
    FAIL("the pass built an op its registry does not have");
  } catch (const ir::Error& e) {
    CHECK(contains(e.what(), "mylib.scale"));
    CHECK(contains(e.what(), "registry"));
  }
}
