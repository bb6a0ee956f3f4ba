// A user's rules added to a shipped pass's rule set (passes::with_rules, issue 36): each added
// rule is tried wherever the pass walks — also where the pass has a fast path of its own — and
// is counted under the pass's name; the pass's own rules still run.
#include <doctest/doctest.h>

#include <string>
#include <type_traits>

#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/passes/fold_no_op_reshape/pass.hpp"
#include "tilewright/passes/with_rules.hpp"
#include "tilewright/rewrite/rule.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

using namespace tilewright;

// Named, not anonymous: the folder's sources are compiled as one translation unit.
namespace with_rules_test {

namespace rw = tilewright::rewrite;
using rw::placeholders::_x;

// An expression rule: `tile.muls(x, 1.0)` is `x`.
inline constexpr auto fold_muls_by_one =
    rw::rule("fold-muls-by-one", rw::call<"tile.muls">(_x, rw::const_float(1.0)), _x);

const std::string header = "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n"
                           "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, "
                           "role=pl.Role.SubWorker)\n";

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace with_rules_test

using namespace with_rules_test;

// The shipped sets have no expression rule, so CanonicalizeTileSlice may keep a statement
// without nested statements as it is, never visiting its expressions; a set with one may not.
static_assert(!passes::canonicalize::CanonicalizeWalker::has_expression_rules);
static_assert(passes::canonicalize::BasicCanonicalizeWalker<
              std::remove_cvref_t<decltype(rw::concat(passes::canonicalize::canonicalize_rules,
                                                      rw::rule_set(fold_muls_by_one)))>>::has_expression_rules);

TEST_CASE("issue 36: an expression rule added to CanonicalizeTileSlice is tried on statements its fast path keeps") {
  // A canonical slice (so the pass walks the function) and, on a statement without nested
  // statements, the expression the added rule rewrites.
  const std::string text = header + R"(    def kernel(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[32, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [32, 64], [32, 64], target_memory=pl.Mem.Vec)
        s: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.slice(t, [16, 32], [16, 32])
        e: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.exp(s)
        m: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(e, 1.0)
        o: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(m, [0, 0], out)
        return o
)";
  const ir::Program before = text::parse_program(text, "with_rules.pto");

  // The shipped pass leaves this function as it is.
  pass::PassContext plain;
  CHECK(passes::canonicalize_tile_slice(before, plain) == before);

  constexpr auto extended = passes::with_rules(passes::canonicalize_tile_slice, fold_muls_by_one);
  static_assert(decltype(extended)::info.name == "CanonicalizeTileSlice");
  pass::PassContext ctx;
  const ir::Program after = extended(before, ctx);
  const std::string printed = text::print(after);
  CHECK_FALSE(has(printed, "pl.tile.muls"));
  CHECK(has(printed, "m: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = e"));
  CHECK(ctx.stats.get("CanonicalizeTileSlice.fold-muls-by-one: tried") == 1);
  CHECK(ctx.stats.get("CanonicalizeTileSlice.fold-muls-by-one: applied") == 1);
  // The pass's own rules were offered the slice's readers as before.
  CHECK(ctx.stats.get("CanonicalizeTileSlice.copy-unaligned-vec-operand: tried") ==
        plain.stats.get("CanonicalizeTileSlice.copy-unaligned-vec-operand: tried"));
}

TEST_CASE("issue 36: a rule added to CanonicalizeTileSlice also sees functions without a slice") {
  const std::string text = header + R"(    def kernel(x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        m: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 1.0)
        o: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(m, [0, 0], out)
        return o
)";
  const ir::Program before = text::parse_program(text, "with_rules.pto");
  pass::PassContext ctx;
  const ir::Program after = passes::with_rules(passes::canonicalize_tile_slice, fold_muls_by_one)(before, ctx);
  CHECK_FALSE(has(text::print(after), "pl.tile.muls"));
  CHECK(ctx.stats.get("CanonicalizeTileSlice.fold-muls-by-one: applied") == 1);
}

TEST_CASE("issue 36: a rule added to FlattenTileNdTo2D runs on the flattened operands, next to the pass's rules") {
  const std::string text = header + R"(    def kernel(x: pl.Tensor[[2, 8, 16], pl.FP32], out: pl.Out[pl.Tensor[[2, 8, 16], pl.FP32]]) -> pl.Tensor[[2, 8, 16], pl.FP32]:
        a: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0, 0], [2, 8, 16], [2, 8, 16], target_memory=pl.Mem.Vec)
        m: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.muls(a, 1.0)
        e: pl.Tile[[2, 8, 16], pl.FP32, pl.Mem.Vec] = pl.tile.exp(m)
        o: pl.Tensor[[2, 8, 16], pl.FP32] = pl.tile.store(e, [0, 0, 0], out)
        return o
)";
  const ir::Program before = text::parse_program(text, "with_rules.pto");
  pass::PassContext ctx;
  const ir::Program after = passes::with_rules(passes::flatten_tile_nd_to_2d, fold_muls_by_one)(before, ctx);
  const std::string printed = text::print(after);
  CHECK_FALSE(has(printed, "pl.tile.muls"));
  CHECK(has(printed, "m: pl.Tile[[16, 16], pl.FP32, pl.Mem.Vec] = a"));
  CHECK(has(printed, "pl.tile.exp(m)"));
  CHECK(ctx.stats.get("FlattenTileNdTo2D.fold-muls-by-one: applied") == 1);
  // The pass's own rules still lowered the load and the store.
  pass::PassContext plain;
  const std::string shipped = text::print(passes::flatten_tile_nd_to_2d(before, plain));
  CHECK(has(shipped, "pl.tile.muls(a, 1.0)"));
  CHECK(has(printed, "pl.tile.load(x, [0, 0, 0], [2, 8, 16], [2, 8, 16]"));
  CHECK(ctx.stats.get("FlattenTileNdTo2D.functions changed") == 1);
}

TEST_CASE("issue 36: a rule added to FoldNoOpReshape is counted under the pass") {
  const std::string text = header + R"(    def kernel(x: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]) -> pl.Tensor[[16, 32], pl.FP32]:
        t: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 32], [16, 32], target_memory=pl.Mem.Vec)
        m: pl.Tile[[16, 32], pl.FP32, pl.Mem.Vec] = pl.tile.muls(t, 1.0)
        o: pl.Tensor[[16, 32], pl.FP32] = pl.tile.store(m, [0, 0], out)
        return o
)";
  const ir::Program before = text::parse_program(text, "with_rules.pto");
  pass::PassContext ctx;
  const ir::Program after = passes::with_rules(passes::fold_no_op_reshape, fold_muls_by_one)(before, ctx);
  CHECK_FALSE(has(text::print(after), "pl.tile.muls"));
  CHECK(ctx.stats.get("FoldNoOpReshape.fold-muls-by-one: applied") == 1);
  CHECK(ctx.stats.get("FoldNoOpReshape.fold-no-op-reshape: tried") == 0);  // no reshape to offer it
}
