// A downstream compiler's own tile op, registered in the PassContext's registry, flows through
// FlattenTileNdTo2D's generic rule (FL-38) and survives printing and parsing (issue 12).
#include <doctest/doctest.h>

#include <string>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

using namespace tilewright;

namespace {

// `mylib.scale(tile, factor)`: a Vec tile op outside `tile.`, declared a member of the tile
// family so the passes treat it like a built-in one, and row-wise (each row of the result is
// the same row of the operand, scaled), so FlattenTileNdTo2D may re-create it on 2D tiles.
// Its result is its operand's tile. `mylib.shuffle` is the same op not declared row-wise.
ops::Registry with_scale() {
  ops::Registry r = ops::builtin_registry();
  for (const char* name : {"mylib.scale", "mylib.shuffle"}) {
    ops::OpRow row(name, {"tile", "factor"});
    if (std::string_view(name) == "mylib.scale") row.rowwise();
    ops::add(r, row
                  .in_family(ir::OpFamily::tile)
                  .vec_in({0})
                  .out(ir::MemorySpace::Vec)
                  .deduce([](const ops::DeduceInput& in) {
                    const ir::TileType* t = ir::tile_type(in.args[0]);
                    if (!t) ir::throw_user_error("mylib.scale", "mylib.scale expects a tile", in.span);
                    return ir::make_tile_type(t->shape, t->dtype, std::nullopt, t->memory);
                  }));
  }
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

// FL-08, FL-38, issue 34: the generic rule re-creates only row-wise ops; a downstream op that
// does not say it is one is refused on a >2D tile, located, rather than guessed at.
TEST_CASE("issue 34: a custom tile op not declared row-wise is refused on a >2D tile") {
  const ops::Registry mine = with_scale();
  std::string text = kernel;
  text.replace(text.find("mylib.scale"), std::string("mylib.scale").size(), "mylib.shuffle");
  ir::Program before = text::parse_program(text, "shuffle.pto", mine);
  pass::PassContext ctx;
  ctx.use_registry(mine);
  try {
    (void)passes::flatten_tile_nd_to_2d(before, ctx);
    FAIL("the pass re-created an op it knows nothing about on 2D tiles");
  } catch (const ir::Error& e) {
    CHECK(e.diagnostic().kind == ir::ErrorKind::user);
    CHECK(contains(e.what(), "mylib.shuffle is not supported on >2D tiles ([2, 8, 16])"));
    CHECK(e.diagnostic().span.line == 9);
  }
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

namespace {

// `mylib.mix(tile, factor, mode=...)`: its row carries the spellings of its own, as the
// built-in rows do (ops::TextForm) — a name for the number-operand form, a unified `pl.mix`,
// and a cast-mode kwarg spelled by name.
ops::Registry with_mix() {
  ops::Registry r = ops::builtin_registry();
  ops::add(r, ops::OpRow("mylib.mix", {"tile", "factor"})
                  .in_family(ir::OpFamily::tile)
                  .kw("mode", ops::KwargKind::cast_mode, std::int64_t{0})
                  .number_operand_name("mylib.mixs").unified_name("mix")
                  .vec_in({0})
                  .out(ir::MemorySpace::Vec)
                  .deduce([](const ops::DeduceInput& in) { return in.args[0]->type; }));
  return r;
}

std::string mix_kernel(const std::string& call) {
  return R"(# pypto.program: Mix
import pypto.language as pl

@pl.program
class Mix:
    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)
    def kernel(x: pl.Tensor[[16, 16], pl.FP32], out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]]) -> pl.Tensor[[16, 16], pl.FP32]:
        a: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 16], [16, 16], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = )" +
         call + R"(
        out_1: pl.Tensor[[16, 16], pl.FP32] = pl.tile.store(s, [0, 0], out_0)
        return out_1
)";
}

const ir::Call& value_of_s(const ir::Program& p) {
  const ir::Call* found = nullptr;
  ir::for_each_stmt(p->functions[0]->body, [&](const ir::Stmt& st) {
    if (auto* a = ir::as<ir::Assign>(st); a && ir::name_hint(a->var) == "s") found = ir::as<ir::Call>(a->value);
  });
  REQUIRE(found);
  return *found;
}

}  // namespace

TEST_CASE("issue 17: a downstream row's text forms drive both the parser and the printer") {
  const ops::Registry mine = with_mix();
  const ir::OpId mix = ir::intern_op("mylib.mix");
  // The unified name and the number-operand name both read as the row's op; the cast mode
  // is read by name into the integer the row declares.
  for (const char* call : {"pl.mix(a, 2.0, mode='round')", "pl.mylib.mixs(a, 2.0, mode='round')",
                           "pl.mylib.mix(a, 2.0, mode='round')"}) {
    CAPTURE(call);
    ir::Program p = text::parse_program(mix_kernel(call), "mix.pto", mine);
    const ir::Call& c = value_of_s(p);
    CHECK(c.callee.op == mix);
    const auto* mode = ir::kwarg_as<std::int64_t>(c.kwargs, "mode");
    REQUIRE(mode);
    CHECK(*mode == static_cast<std::int64_t>(ir::CastMode::round));
  }
  ir::Program p = text::parse_program(mix_kernel("pl.mix(a, 2.0, mode='round')"), "mix.pto", mine);
  // Printed through the row: the number operand picks the row's name for that form, the
  // mode prints by name, and the text reads back as the same program.
  const std::string printed = text::print(p, mine);
  CHECK(contains(printed, "= pl.mylib.mixs(a, 2.0, mode='round')"));
  CHECK(ir::structural_equal(text::parse_program(printed, "mix_printed.pto", mine), p));
  // The built-in catalog knows no such row: its printer spells the plain call.
  CHECK(contains(text::print(p), "= pl.mylib.mix(a, 2.0, mode=2)"));
}
