// FoldNoOpReshape on hand-built IR (the golden corpus covers the printed cases; these pin
// identities and the signature fields).
#include <doctest/doctest.h>

#include "tilewright/passes/fold_no_op_reshape/pass.hpp"
#include "ir_test_util.hpp"

using namespace tilewright;

namespace {
using ir_test::dims;
}  // namespace

namespace {
// lhs = tile.reshape(src, shape) with both tiles in allocations `src_base`/`lhs_base`.
ir::Program reshape_program(ir::Expr src_base, ir::Expr lhs_base, std::vector<ir::Expr> lhs_shape,
                            ir::FunctionType kind = ir::FunctionType::InCore) {
  auto memref = [](ir::Expr base) {
    return ir::make_expr(ir::MemRef{std::move(base), ir::make_int(0), 16384, false, 1, nullptr},
                         ir::marker_type(ir::Marker::MemRefType));
  };
  auto src_t = ir::make_tile_type(dims({64, 64}), ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec, memref(src_base));
  auto lhs_t = ir::make_tile_type(lhs_shape, ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec, memref(lhs_base));
  auto src = ir::make_var("a", src_t), lhs = ir::make_var("b", lhs_t);
  auto body = ir::make_seq({ir::make_stmt(ir::Assign{lhs, ir::make_call(ir::intern_op("tile.reshape"), {src, ir::make_tuple(lhs_shape)}, {}, lhs_t)}),
                            ir::make_stmt(ir::Return{{lhs}})});
  return ir::make_program("P", {ir::make_function(ir::FunctionNode{"k", {ir::Param{src, ir::ParamDirection::In}}, {lhs_t}, body, kind, {}, {}, {}, {}})});
}
}  // namespace

TEST_CASE("FR-02/FR-03: a reshape within one allocation and one signature becomes an alias") {
  pass::PassContext ctx;
  auto base = ir::make_var("mem_vec_0", ir::marker_type(ir::Marker::Ptr));
  auto before = reshape_program(base, base, dims({64, 64}));
  auto after = passes::fold_no_op_reshape(before, ctx);
  REQUIRE(after != before);
  auto* a = ir::as<ir::Assign>(ir::as<ir::Seq>(after->functions[0]->body)->stmts[0]);
  CHECK(a->var == ir::as<ir::Assign>(ir::as<ir::Seq>(before->functions[0]->body)->stmts[0])->var);  // same LHS Var
  CHECK(a->value == before->functions[0]->params[0].var);
  CHECK(ctx.stats.get("FoldNoOpReshape.fold-no-op-reshape: applied") == 1);
}

TEST_CASE("FR-04/FR-01: different roots, different signatures and non-InCore functions are left alone") {
  pass::PassContext ctx;
  auto base = ir::make_var("mem_vec_0", ir::marker_type(ir::Marker::Ptr));
  auto other = ir::make_var("mem_vec_1", ir::marker_type(ir::Marker::Ptr));
  auto different_root = reshape_program(base, other, dims({64, 64}));
  CHECK(passes::fold_no_op_reshape(different_root, ctx) == different_root);
  auto different_shape = reshape_program(base, base, dims({4096, 1}));
  CHECK(passes::fold_no_op_reshape(different_shape, ctx) == different_shape);
  auto opaque = reshape_program(base, base, dims({64, 64}), ir::FunctionType::Opaque);
  CHECK(passes::fold_no_op_reshape(opaque, ctx) == opaque);
}

TEST_CASE("FR-05: the signature reads rank-1 tiles as one row and ignores axes beyond two") {
  auto row = ir::make_tile_type(dims({64}), ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec);
  auto row2 = ir::make_tile_type(dims({1, 64}), ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec);
  CHECK(ops::from_tile_type(*ir::as<ir::TileType>(row)) == ops::from_tile_type(*ir::as<ir::TileType>(row2)));
  auto col = ir::make_tile_type(dims({64, 1}), ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec);
  CHECK_FALSE(ops::from_tile_type(*ir::as<ir::TileType>(col)) == ops::from_tile_type(*ir::as<ir::TileType>(row2)));
}
