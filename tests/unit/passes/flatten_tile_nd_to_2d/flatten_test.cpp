// FlattenTileNdTo2D on programs written here: the rows of the FL catalog that no golden case
// pins (seed 003 behaviours, rejections, identities, spans), plus the seed's own examples.
// The golden corpus (tests/golden, 87 cases) covers the printed forms upstream agrees on.
#include <doctest/doctest.h>

#include <memory>
#include <string>

#include "flatten_test_util.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/registry.hpp"

using namespace tilewright;

using namespace flatten_test;

TEST_CASE("FL-09/FL-13/FL-22/FL-38: the seed example [2, 3, 4] becomes [6, 4], the store keeps the ND partition") {
  auto before = parse(program_text(incore + R"(    def main_incore_0(x: pl.Tensor[[2, 3, 4], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        x_tile: pl.Tile[[2, 3, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 3, 4], [2, 3, 4], target_memory=pl.Mem.Vec)
        y_tile: pl.Tile[[2, 3, 4], pl.FP32, pl.Mem.Vec] = pl.tile.add(x_tile, x_tile)
        out_1: pl.Tensor[[2, 3, 4], pl.FP32] = pl.tile.store(y_tile, [0, 0, 0], out_0)
        return out_1)"));
  auto after = flatten(before);
  auto stmts = body_of(after);
  CHECK(ints(tile_of(stmts[0]).shape) == std::vector<std::int64_t>{6, 4});
  CHECK(ints(tile_of(stmts[1]).shape) == std::vector<std::int64_t>{6, 4});
  // The load keeps its tensor-rank window; no tile.reshape is inserted.
  auto* load = ir::as<ir::Call>(ir::as<ir::Assign>(stmts[0])->value);
  CHECK(ints(ir::as<ir::MakeTuple>(load->args[2])->elements) == std::vector<std::int64_t>{2, 3, 4});
  CHECK(stmts.size() == 4);
  auto* store = ir::as<ir::Call>(ir::as<ir::Assign>(stmts[2])->value);
  REQUIRE(store->args.size() == 4);
  CHECK(ints(ir::as<ir::MakeTuple>(store->args[3])->elements) == std::vector<std::int64_t>{2, 3, 4});
  // The add's operands are the flattened load's Var (one replacement per Var).
  auto* add = ir::as<ir::Call>(ir::as<ir::Assign>(stmts[1])->value);
  CHECK(add->args[0] == ir::as<ir::Assign>(stmts[0])->var);
  CHECK(pass::verify(pass::Property::TileOps2D, after).empty());
}

// Issue 35 (upstream's tests compare def-use structure): seed 000's input re-assigns the
// parameter; the rebuilt store gets a result Var of its own, which the return then reads,
// and the parameter stays the store's destination. A 2D store in a function the pass does
// not change keeps its statement.
TEST_CASE("FL-22: a store that re-assigns a parameter gets a result Var of its own") {
  auto before = parse(program_text(incore + R"(    def main_incore_0(x: pl.Tensor[[2, 3, 4], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        x_tile: pl.Tile[[2, 3, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 3, 4], [2, 3, 4], target_memory=pl.Mem.Vec)
        out_0: pl.Tensor[[2, 3, 4], pl.FP32] = pl.tile.store(x_tile, [0, 0, 0], out_0)
        return out_0)"));
  auto after = flatten(before);
  const ir::Expr& param = after->functions[0]->params[1].var;
  CHECK(param == before->functions[0]->params[1].var);
  auto stmts = body_of(after);
  auto* store = ir::as<ir::Assign>(stmts[1]);
  REQUIRE(store);
  CHECK(store->var != param);
  CHECK(ir::name_hint(store->var) == "out_0");
  CHECK(stmts[1]->span.line == body_of(before)[1]->span.line);  // the statement it replaces
  CHECK(ir::as<ir::Call>(store->value)->args[2] == param);
  CHECK(ir::as<ir::Return>(stmts[2])->values[0] == store->var);
  CHECK(pass::verify(pass::Property::SSAForm, after).empty());

  auto flat = parse(program_text(incore + R"(    def main_incore_0(x: pl.Tensor[[6, 4], pl.FP32], out_0: pl.Out[pl.Tensor[[6, 4], pl.FP32]]) -> pl.Tensor[[6, 4], pl.FP32]:
        x_tile: pl.Tile[[6, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [6, 4], [6, 4], target_memory=pl.Mem.Vec)
        out_0: pl.Tensor[[6, 4], pl.FP32] = pl.tile.store(x_tile, [0, 0], out_0)
        return out_0)"));
  CHECK(flatten(flat) == flat);
}

TEST_CASE("FL-49/FL-10/FL-24/FL-43: the seed's chunked loop keeps the dynamic tail through the flatten") {
  auto before = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[4, S, 512], pl.FP16], b: pl.Scalar[pl.INDEX], out_0: pl.Out[pl.Tensor[[4, S, 512], pl.FP32]]) -> pl.Tensor[[4, S, 512], pl.FP32]:
        for c, (o,) in pl.range(0, S, 16, init_values=(out_0,)):
            valid: pl.Scalar[pl.INDEX] = pl.min(16, S - c)
            t: pl.Tile[[1, 16, 512], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[1, valid, 512])] = pl.tile.load(x, [b, c, 0], [1, 16, 512], [1, valid, 512], target_memory=pl.Mem.Vec)
            u: pl.Tile[[1, 16, 512], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, valid, 512])] = pl.tile.cast(t, target_type=pl.FP32, mode='round')
            o2: pl.Tensor[[4, S, 512], pl.FP32] = pl.tile.store(u, [b, c, 0], o)
            o_rv: pl.Tensor[[4, S, 512], pl.FP32] = pl.yield_(o2)
        return o_rv)",
                                   "S = pl.dynamic(\"S\")\n\n"));
  auto after = flatten(before);
  const std::string printed = text::print(after);
  // The physical chunk is static [16, 512]; the runtime tail `valid` survives as the row extent.
  CHECK(contains(printed, "t: pl.Tile[[16, 512], pl.FP16, pl.Mem.Vec, pl.TileView(valid_shape=[valid, 512])]"));
  CHECK(contains(printed, "u: pl.Tile[[16, 512], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[valid, 512])]"));
  // Seed 003: the store's partition window is what the tile writes — its valid rows.
  CHECK(contains(printed, "pl.tile.store(u, [b, c, 0], o, [1, valid, 512])"));
  CHECK(pass::verify(pass::Property::TileOps2D, after).empty());
  // The pass did not synthesize a loop: still exactly one For.
  std::size_t loops = 0;
  ir::for_each_stmt(after->functions[0]->body, [&](const ir::Stmt& s) { loops += ir::as<ir::For>(s) != nullptr; });
  CHECK(loops == 1);
}

TEST_CASE("FL-10: merged valid shapes fold constants and keep symbols in order") {
  auto S = ir::make_var("S", ir::scalar_type(ir::DataType::INDEX));
  auto T = ir::make_var("T", ir::scalar_type(ir::DataType::INDEX));
  auto i = [](std::int64_t v) { return ir::make_int(v); };
  auto one = passes::flatten::merged_valid_shape({i(1), S, i(512)}, {});
  CHECK(one[0] == S);
  auto two = passes::flatten::merged_valid_shape({i(2), S, i(256)}, {});
  auto* mul = ir::as<ir::Binary>(two[0]);
  REQUIRE(mul);
  CHECK(ir::const_int(mul->lhs) == 2);
  CHECK(mul->rhs == S);
  auto st = passes::flatten::merged_valid_shape({S, T, i(8)}, {});
  REQUIRE(ir::as<ir::Binary>(st[0]));
  CHECK(ir::as<ir::Binary>(st[0])->lhs == S);
  CHECK(ir::as<ir::Binary>(st[0])->rhs == T);
  CHECK(ir::const_int(passes::flatten::merged_valid_shape({i(1), i(10), i(512)}, {})[0]) == 10);  // no widening
}

TEST_CASE("FL-09/FL-11: merged shapes and collapsed offsets, with their overflow and sign errors") {
  using passes::flatten::collapsed_offset;
  using passes::flatten::merged_shape;
  auto i = [](std::int64_t v) { return ir::make_int(v); };
  CHECK(ints(merged_shape({i(2), i(2), i(2), i(2), i(4)}, "test", {})) == std::vector<std::int64_t>{16, 4});
  CHECK(ints(collapsed_offset({i(2), i(0), i(0)}, {i(4), i(8), i(16)}, {})) == std::vector<std::int64_t>{16, 0});
  CHECK(ints(collapsed_offset({i(1), i(0), i(0)}, {i(2), i(4), i(5)}, {})) == std::vector<std::int64_t>{4, 0});
  // A symbolic batch index stays symbolic; x*1 and 0+x fold away.
  auto b = ir::make_var("b", ir::scalar_type(ir::DataType::INDEX));
  auto row = collapsed_offset({b, i(0), i(0)}, {i(4), i(1), i(16)}, {})[0];
  CHECK(row == b);
  CHECK_THROWS_WITH_AS(merged_shape({i(2), i(0), i(4)}, "test", {}), doctest::Contains("must be positive"), ir::Error);
  CHECK_THROWS_WITH_AS(merged_shape({i(std::int64_t{1} << 62), i(8), i(4)}, "test", {}),
                       doctest::Contains("integer overflow when computing merged dimension"), ir::Error);
  CHECK_THROWS_WITH_AS(collapsed_offset({i(1), i(INT64_MAX - 2), i(0)}, {i(2), i(4), i(8)}, {}),
                       doctest::Contains("integer overflow while canonicalizing index add"), ir::Error);
}

TEST_CASE("FL-32: the pass's own axis check, on hand-built IR that no deducer saw") {
  // Text never gets here (tile.transpose's deducer refuses the axis where it is written; lit
  // flatten_tile_nd_to_2d/error_transpose_axis_out_of_range); IR built in C++ can.
  auto i = [](std::int64_t v) { return ir::make_int(v); };
  auto tile = ir::make_tile_type({i(2), i(3), i(4)}, ir::DataType::FP32);
  auto a = ir::make_var("a", tile);
  const ir::Span at{std::make_shared<const std::string>("hand.pto"), 4, 9};
  auto transpose = [&](std::int64_t x, std::int64_t y) {
    return ir::make_call(ir::intern_op("tile.transpose"), {a, i(x), i(y)}, {}, tile, at);
  };
  auto axes = passes::flatten::transpose_axes(*ir::as<ir::Call>(transpose(-1, 1)), 3, at);
  CHECK(axes.first == 1);
  CHECK(axes.second == 2);
  try {
    passes::flatten::transpose_axes(*ir::as<ir::Call>(transpose(1, 3)), 3, at);
    FAIL("axis 3 of a rank-3 tile was accepted");
  } catch (const ir::Error& e) {
    CHECK(e.diagnostic().kind == ir::ErrorKind::user);
    CHECK(e.diagnostic().origin == "FlattenTileNdTo2D");
    CHECK(e.diagnostic().message == "axis 3 is out of range for rank 3 in tile.transpose");
    CHECK(e.diagnostic().span.line == 4);
  }
}

TEST_CASE("FL-24: a 2D tile whose rows fold several tensor axes stores through the walked window") {
  auto before = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[6, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 3, 8], pl.FP32]]) -> pl.Tensor[[2, 3, 8], pl.FP32]:
        a: pl.Tile[[6, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [6, 8], [6, 8], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[2, 3, 8], pl.FP32] = pl.tile.store(a, [0, 0, 0], out_0)
        return out_1)"));
  // [1, 6, 8] would ask an extent-3 axis for 6 rows; the window eats axis 1 whole instead.
  CHECK(contains(text::print(flatten(before)), "pl.tile.store(a, [0, 0, 0], out_0, [2, 3, 8])"));
}

TEST_CASE("FL-24: a partially valid chunk stores only its valid rows") {
  auto before = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[2, 64, 512], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 64, 512], pl.FP32]]) -> pl.Tensor[[2, 64, 512], pl.FP32]:
        a: pl.Tile[[1, 16, 512], pl.FP32, pl.Mem.Vec, pl.TileView(valid_shape=[1, 10, 512])] = pl.tile.load(x, [1, 48, 0], [1, 16, 512], [1, 10, 512], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[2, 64, 512], pl.FP32] = pl.tile.store(a, [1, 48, 0], out_0)
        return out_1)"));
  CHECK(contains(text::print(flatten(before)), "pl.tile.store(a, [1, 48, 0], out_0, [1, 10, 512])"));
}

TEST_CASE("FL-24: stores no partition window describes are rejected with the fix") {
  auto store_into = [](const std::string& tile, const std::string& tensor, const std::string& offsets) {
    return program_text(incore + "    def kernel(x: pl.Tensor[" + tile + ", pl.FP32], out_0: pl.Out[pl.Tensor[" + tensor +
                        ", pl.FP32]]) -> pl.Tensor[" + tensor + ", pl.FP32]:\n" +
                        "        a: pl.Tile[" + tile + ", pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], " + tile + ", " +
                        tile + ", target_memory=pl.Mem.Vec)\n" + "        out_1: pl.Tensor[" + tensor +
                        ", pl.FP32] = pl.tile.store(a, " + offsets + ", out_0)\n        return out_1");
  };
  // Seed 003's example: 12 rows into [2, 2, 4, 8] — axis 2 takes 4, 3 rows cannot fill axis 1.
  auto d = error_of(store_into("[12, 8]", "[2, 2, 4, 8]", "[0, 0, 0, 0]"));
  CHECK(contains(d.message, "tile.store cannot lower a 12x8 tile into this tensor"));
  CHECK(contains(d.message, "must fill axis 1 (extent 2) a whole number of times, but 3 rows remain"));
  CHECK(contains(d.message, "pl.range/pl.parallel"));
  CHECK(d.span.line == 9);
  CHECK(contains(error_of(store_into("[6, 8]", "[2, 3, 8]", "[0, 1, 0]")).message,
                 "tile.store fills axis 1 (extent 3) completely, so it must start at offset 0"));
  CHECK(contains(error_of(store_into("[6, 8]", "[2, 3, 8]", "[1, 0, 0]")).message,
                 "tile.store writes 2 rows at offset 1 of axis 0, whose extent is 2; the write runs past the tensor"));
  CHECK(contains(error_of(store_into("[6, 8]", "[2, 3, 12]", "[0, 0, 8]")).message,
                 "tile.store writes 8 columns at offset 8 of an axis whose extent is 12; the write runs past the tensor"));
  CHECK(contains(error_of(store_into("[12, 8]", "[2, 3, 8]", "[0, 0, 0]")).message,
                 "tile.store writes a 12x8 tile into a tensor whose leading axes hold only 6 rows"));
}

TEST_CASE("FL-36: a reshape to >2D gets the merged 2D target and the store keeps the ND window") {
  auto before = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[4, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[4, 2, 8], pl.FP32]]) -> pl.Tensor[[4, 2, 8], pl.FP32]:
        x_tile: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [4, 8], [4, 8], target_memory=pl.Mem.Vec)
        r3: pl.Tile[[4, 1, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(x_tile, [4, 1, 8])
        r16: pl.Tile[[4, 2, 8], pl.INT16, pl.Mem.Vec] = pl.tile.reinterpret_view(x_tile, dtype=pl.INT16, shape=[4, 2, 8])
        out_1: pl.Tensor[[4, 2, 8], pl.FP32] = pl.tile.store(r3, [0, 0, 0], out_0)
        return out_1)"));
  const std::string printed = text::print(flatten(before));
  CHECK(contains(printed, "r3: pl.Tile[[4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.reshape(x_tile, [4, 8])"));
  CHECK(contains(printed, "r16: pl.Tile[[8, 8], pl.INT16, pl.Mem.Vec] = pl.tile.reinterpret_view(x_tile, dtype=pl.INT16, shape=[8, 8])"));
  // No flat_tile safety-net reshape: the producer is already 2D.
  CHECK_FALSE(contains(printed, "flat_tile"));
  CHECK(contains(printed, "pl.tile.store(r3, [0, 0, 0], out_0, [4, 1, 8])"));
}

TEST_CASE("FL-23: a store whose tile is still >2D (hand-built IR) reshapes it to 2D first") {
  // The rule is driven directly: the walker would have flattened the operand already.
  auto p = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[2, 3, 4], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 3, 4], pl.FP32]]) -> pl.Tensor[[2, 3, 4], pl.FP32]:
        a: pl.Tile[[2, 3, 4], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 3, 4], [2, 3, 4], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[2, 3, 4], pl.FP32] = pl.tile.store(a, [0, 0, 0], out_0)
        return out_1)"));
  const ir::Stmt store = body_of(p)[1];
  passes::flatten::FlattenContext ctx(backend::none());
  auto applied = rewrite::rewrite_post_order(rewrite::rule_set(passes::flatten::flatten_store_nd_tile), store,
                                             ops::builtin_registry(), ctx);
  CHECK(applied.counters[0].applied == 1);
  auto stmts = ir::body_stmts(applied.node);
  REQUIRE(stmts.size() == 2);
  auto* reshape = ir::as<ir::Assign>(stmts[0]);
  CHECK(ir::name_hint(reshape->var) == "flat_tile");
  CHECK(ints(ir::tile_type(reshape->var)->shape) == std::vector<std::int64_t>{6, 4});
  auto* st = ir::stmt_call(stmts[1]);
  CHECK(st->args[0] == reshape->var);
  CHECK(ints(ir::as<ir::MakeTuple>(st->args[3])->elements) == std::vector<std::int64_t>{2, 3, 4});
}

TEST_CASE("FL-05: a >2D tile with a dynamic physical dim names both fixes and points at the statement") {
  auto d = error_of(program_text(incore + R"(    def kernel(x: pl.Tensor[[4, 8, 16], pl.FP32], n: pl.Scalar[pl.INDEX], out_0: pl.Out[pl.Tensor[[4, 8, 16], pl.FP32]]) -> pl.Tensor[[4, 8, 16], pl.FP32]:
        a: pl.Tile[[n, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [n, 8, 16], [n, 8, 16], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[4, 8, 16], pl.FP32] = pl.tile.store(a, [0, 0, 0], out_0)
        return out_1)"));
  CHECK(d.kind == ir::ErrorKind::user);
  CHECK(d.origin == "FlattenTileNdTo2D");
  CHECK(contains(d.message, "tile op 'tile.load' has a dynamic (non-constant) dimension 0"));
  CHECK(contains(d.message, "cannot be flattened to 2D"));
  CHECK(contains(d.message, "pl.parallel"));
  CHECK(contains(d.message, "reshap"));
  CHECK(d.span.line == 8);
  CHECK(d.span.file_name() == "flatten_test.pto");
}

TEST_CASE("FL-05/FL-04: a dynamic 2D tile is fine and the function comes back as the same object") {
  auto before = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[64, 16], pl.FP32], n: pl.Scalar[pl.INDEX], out_0: pl.Out[pl.Tensor[[64, 16], pl.FP32]]) -> pl.Tensor[[64, 16], pl.FP32]:
        a: pl.Tile[[n, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [n, 16], [n, 16], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[64, 16], pl.FP32] = pl.tile.store(a, [0, 0], out_0)
        return out_1)"));
  CHECK(flatten(before) == before);
}

TEST_CASE("FL-07a: an assemble whose offset is not a literal tuple is rejected (hand-built IR)") {
  using namespace ir;
  auto i = [](std::int64_t v) { return make_int(v); };
  auto t3 = make_tile_type({i(4), i(8), i(16)}, DataType::FP32, std::nullopt, MemorySpace::Vec);
  auto p3 = make_tile_type({i(1), i(8), i(16)}, DataType::FP32, std::nullopt, MemorySpace::Vec);
  auto tuple_t = make_type(TupleType{{scalar_type(DataType::INDEX), scalar_type(DataType::INDEX), scalar_type(DataType::INDEX)}});
  auto acc = make_var("acc", t3), page = make_var("page", p3), off = make_var("off", tuple_t), out = make_var("out", t3);
  auto body = make_seq({make_stmt(Assign{out, make_call(intern_op("tile.assemble"), {acc, page, off}, {}, t3)}, Span{nullptr, 3, 9})});
  auto prog = make_program("P", {make_function(FunctionNode{"k", {Param{acc, ParamDirection::In}, Param{page, ParamDirection::In}, Param{off, ParamDirection::In}},
                                                            {}, body, FunctionType::InCore, {}, {}, {}, {}})});
  pass::PassContext ctx;
  try {
    passes::flatten_tile_nd_to_2d(prog, ctx);
    FAIL("expected FL-07a");
  } catch (const Error& e) {
    CHECK(contains(e.diagnostic().message, "tile.assemble requires a tile source and a literal offset tuple"));
    CHECK(e.diagnostic().span.line == 3);
  }
}

TEST_CASE("FL-14: a natural NZ Mat load whose window is not a band of rows is rejected, not mis-collapsed") {
  auto d = error_of(program_text(incore + R"(    def kernel(x: pl.Tensor[[4, 16, 32], pl.FP16], out_0: pl.Out[pl.Tensor[[4, 16, 32], pl.FP16]]) -> pl.Tensor[[4, 16, 32], pl.FP16]:
        m: pl.Tile[[2, 8, 32], pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0, 0], [2, 8, 32], [2, 8, 32], target_memory=pl.Mem.Mat)
        v: pl.Tile[[2, 8, 32], pl.FP16, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major, slayout=pl.TileLayout.row_major)] = pl.tile.move(m, target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[4, 16, 32], pl.FP16] = pl.tile.store(v, [0, 0, 0], out_0)
        return out_1)"));
  CHECK(contains(d.message, "not one contiguous band of rows"));
  CHECK(d.span.line == 8);
}

TEST_CASE("FL-03: a failing pass leaves its input untouched") {
  // The first statements are flattenable; the error sits at the end of the body.
  const std::string text = program_text(incore + R"(    def kernel(x: pl.Tensor[[2, 4, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 4, 8], pl.FP32]]) -> pl.Tensor[[2, 4, 8], pl.FP32]:
        a: pl.Tile[[2, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 4, 8], [2, 4, 8], target_memory=pl.Mem.Vec)
        b: pl.Tile[[2, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        s: pl.Tile[[1, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.slice(b, [1, 4, 8], [1, 0, 0])
        out_1: pl.Tensor[[2, 4, 8], pl.FP32] = pl.tile.store(b, [0, 0, 0], out_0)
        return out_1)");
  auto before = parse(text);
  const std::string printed_before = text::print(before);
  const ir::Function f = before->functions[0];
  const ir::Stmt body = f->body;
  pass::PassContext ctx;
  CHECK_THROWS_WITH_AS(passes::flatten_tile_nd_to_2d(before, ctx), doctest::Contains("tile.slice is not supported on >2D tiles"),
                       ir::Error);
  CHECK(before->functions[0] == f);
  CHECK(f->body == body);
  CHECK(text::print(before) == printed_before);
  CHECK(ir::structural_equal(before, parse(text)));
  // No rule ran: the analysis rejected the function before the rewrite.
  CHECK(ctx.stats.get("FlattenTileNdTo2D.flatten-generic-tile-op: tried") == 0);
}

TEST_CASE("FL-02: non-InCore functions and unchanged InCore functions come back as the same objects") {
  auto before = parse(program_text(R"(    @pl.function
    def opaque(x: pl.Tensor[[2, 4, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 4, 8], pl.FP32]]) -> pl.Tensor[[2, 4, 8], pl.FP32]:
        a: pl.Tile[[2, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 4, 8], [2, 4, 8], target_memory=pl.Mem.Vec)
        out_1: pl.Tensor[[2, 4, 8], pl.FP32] = pl.tile.store(a, [0, 0, 0], out_0)
        return out_1
)" + incore + R"(    def two_d(x: pl.Tensor[[32, 64], pl.FP32], out_0: pl.Out[pl.Tensor[[32, 64], pl.FP32]]) -> pl.Tensor[[32, 64], pl.FP32]:
        a: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        b: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        out_1: pl.Tensor[[32, 64], pl.FP32] = pl.tile.store(b, [0, 0], out_0)
        return out_1)"));
  CHECK(flatten(before) == before);
}

TEST_CASE("FL-48: rewritten and synthesized statements keep the user's spans") {
  auto before = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[2, 3, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 8, 3], pl.FP32]]) -> pl.Tensor[[2, 8, 3], pl.FP32]:
        a: pl.Tile[[2, 3, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 3, 8], [2, 3, 8], target_memory=pl.Mem.Vec)
        t: pl.Tile[[2, 8, 3], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(a, 1, 2)
        out_1: pl.Tensor[[2, 8, 3], pl.FP32] = pl.tile.store(t, [0, 0, 0], out_0)
        return out_1)"));
  const ir::Stmt original_transpose = body_of(before)[1];
  const ir::Expr original_t = ir::as<ir::Assign>(original_transpose)->var;
  auto stmts = body_of(flatten(before));
  // load, then create, pool, 2 × (slice, slice, transpose, assemble), then store and return.
  REQUIRE(stmts.size() == 13);
  for (std::size_t k = 1; k <= 10; ++k) {
    CAPTURE(k);
    CHECK(stmts[k]->span.line == original_transpose->span.line);
    CHECK(ir::stmt_call_expr(stmts[k])->get()->span.line == ir::stmt_call_expr(original_transpose)->get()->span.line);
  }
  // The Var that replaces `t` keeps its span; the store reads it.
  const ir::Expr final_t = ir::as<ir::Assign>(stmts[10])->var;
  CHECK(final_t->span.line == original_t->span.line);
  CHECK(final_t->span.column == original_t->span.column);
  CHECK(ir::stmt_call(stmts[11])->args[0] == final_t);
}

TEST_CASE("FL-68/FL-71/FL-72: the TileOps2D verifier rejects the unflattened program and accepts the result") {
  auto before = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[2, 3, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 8, 3], pl.FP32]]) -> pl.Tensor[[2, 8, 3], pl.FP32]:
        a: pl.Tile[[2, 3, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 3, 8], [2, 3, 8], target_memory=pl.Mem.Vec)
        e: pl.Tile[[2, 3, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        t: pl.Tile[[2, 8, 3], pl.FP32, pl.Mem.Vec] = pl.tile.transpose(e, 1, 2)
        out_1: pl.Tensor[[2, 8, 3], pl.FP32] = pl.tile.store(t, [0, 0, 0], out_0)
        return out_1)"));
  auto problems = pass::verify(pass::Property::TileOps2D, before);
  std::string all;
  for (const auto& d : problems) all += d.message + "\n";
  CHECK(contains(all, "Tile op 'tile.exp' in InCore function 'kernel' produces >2D tile (should have been flattened to 2D)"));
  CHECK(contains(all, "Tile op 'tile.exp' in InCore function 'kernel' has >2D tile argument"));
  CHECK(contains(all, "tile.transpose in InCore function 'kernel' has 3 arguments (expected 4"));
  auto after = flatten(before);
  CHECK(pass::verify(pass::Property::TileOps2D, after).empty());
  CHECK(pass::verify(pass::Property::SSAForm, after).empty());
  CHECK(pass::verify(pass::Property::NormalizedStmtStructure, after).empty());
}

TEST_CASE("FL-01/FL-38: pass identity, properties, pipeline position and rule statistics") {
  using pass::Property;
  constexpr const auto& info = passes::FlattenTileNdTo2D::info;
  static_assert(info.name == "FlattenTileNdTo2D" && info.factory == "flatten_tile_nd_to_2d");
  static_assert(info.required.contains(pass::PropertySet{Property::SSAForm, Property::IncoreTileOps}));
  static_assert(info.produced.contains(pass::PropertySet{Property::SSAForm, Property::TileOps2D}));
  static_assert(info.invalidated.empty());
  CHECK(passes::find_pass("flatten_tile_nd_to_2d"));
  CHECK(passes::find_pass("FlattenTileNdTo2D"));
  auto pipeline = passes::default_pipeline();
  REQUIRE(pipeline.size() >= 2);
  CHECK(pipeline[0].info.name == "ConvertToSSA");  // upstream's first pass, then flatten
  CHECK(pipeline[1].info.name == "FlattenTileNdTo2D");

  auto before = parse(program_text(incore + R"(    def kernel(x: pl.Tensor[[2, 4, 8], pl.FP32], out_0: pl.Out[pl.Tensor[[2, 4, 8], pl.FP32]]) -> pl.Tensor[[2, 4, 8], pl.FP32]:
        a: pl.Tile[[2, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 4, 8], [2, 4, 8], target_memory=pl.Mem.Vec)
        b: pl.Tile[[2, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.exp(a)
        c: pl.Tile[[2, 4, 8], pl.FP32, pl.Mem.Vec] = pl.tile.add(a, b)
        out_1: pl.Tensor[[2, 4, 8], pl.FP32] = pl.tile.store(c, [0, 0, 0], out_0)
        return out_1)"));
  pass::PassContext ctx;
  passes::flatten_tile_nd_to_2d(before, ctx);
  CHECK(ctx.stats.get("FlattenTileNdTo2D.flatten-generic-tile-op: applied") == 2);
  CHECK(ctx.stats.get("FlattenTileNdTo2D.flatten-store: applied") == 1);
  CHECK(ctx.stats.get("FlattenTileNdTo2D.flatten-load: applied") == 0);  // Vec: the type mapping suffices
  CHECK(ctx.stats.get("FlattenTileNdTo2D.loads retyped by the type mapping alone") == 1);
  CHECK(ctx.stats.get("FlattenTileNdTo2D.functions changed") == 1);
}
