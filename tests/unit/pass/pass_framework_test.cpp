// Pass framework: property sets, compile-time and run-time pipeline checks, verifiers.
#include <doctest/doctest.h>

#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/registry.hpp"
#include "ir_test_util.hpp"

using namespace tilewright;
using pass::Property;

namespace {
using ir_test::dims;
ir::Program one_function(ir::Stmt body, std::vector<ir::Param> params = {}) {
  return ir::make_program("P", {ir::make_function(ir::FunctionNode{"k", std::move(params), {}, std::move(body),
                                                                   ir::FunctionType::InCore, {}, {}, {}, {}})});
}
struct NeedsTileOps2D {
  static constexpr pass::PassInfo info{"NeedsTileOps2D", "needs_tile_ops_2d", pass::PassLevel::program,
                                       {Property::TileOps2D}, {}, {}};
  ir::Program operator()(const ir::Program& p, pass::PassContext&) const { return p; }
};
struct MakesTileOps2D {
  static constexpr pass::PassInfo info{"MakesTileOps2D", "makes_tile_ops_2d", pass::PassLevel::program,
                                       {}, {Property::TileOps2D}, {}};
  ir::Program operator()(const ir::Program& p, pass::PassContext&) const { return p; }
};
}  // namespace

TEST_CASE("property sets") {
  constexpr pass::PropertySet a{Property::SSAForm, Property::TileOps2D};
  static_assert(a.contains(Property::SSAForm) && !a.contains(Property::HasMemRefs));
  static_assert((a - pass::PropertySet{Property::SSAForm}) == pass::PropertySet{Property::TileOps2D});
  CHECK(a.to_string() == "{SSAForm, TileOps2D}");
}

TEST_CASE("make_pipeline accepts a sound order; the run-time pipeline names the missing property") {
  auto ok = pass::make_pipeline(MakesTileOps2D{}, NeedsTileOps2D{});
  auto declared = pass::make_pipeline(pass::declared_input<Property::TileOps2D>{}, NeedsTileOps2D{});
  pass::PassContext ctx;
  auto p = one_function(ir::make_seq({}));
  CHECK(ok(p, ctx) == p);
  CHECK(declared(p, ctx) == p);
  pass::Pipeline bad({pass::erase(NeedsTileOps2D{})});
  auto problem = bad.check_order();
  REQUIRE(problem);
  CHECK(problem->find("NeedsTileOps2D requires {TileOps2D}") != std::string::npos);
  CHECK_FALSE(pass::Pipeline({pass::erase(NeedsTileOps2D{})}, {Property::TileOps2D}).check_order());
}

TEST_CASE("FL-68/FL-71: the TileOps2D verifier flags >2D tile results and arguments") {
  auto t3 = ir::make_tile_type(dims({2, 3, 4}), ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec);
  auto x = ir::make_var("x", t3), y = ir::make_var("y", t3);
  auto prog = one_function(ir::make_seq({ir::make_stmt(ir::Assign{y, ir::make_call(ir::intern_op("tile.exp"), {x}, {}, t3)})}),
                           {ir::Param{x, ir::ParamDirection::In}});
  auto d = pass::verify(Property::TileOps2D, prog);
  REQUIRE(d.size() == 2);
  CHECK(d[0].origin == "TileOps2D");
  CHECK(d[0].message == "Tile op 'tile.exp' in InCore function 'k' produces >2D tile (should have been flattened to 2D)");
  CHECK(d[1].message == "Tile op 'tile.exp' in InCore function 'k' has >2D tile argument (should have been flattened to 2D)");
}

TEST_CASE("FL-67/FL-69/FL-70/FL-72: loads are exempt, transpose needs 4 args, assemble a 2D offset") {
  auto t3 = ir::make_tile_type(dims({2, 3, 4}), ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec);
  auto t2 = ir::make_tile_type(dims({8, 8}), ir::DataType::FP32, std::nullopt, ir::MemorySpace::Vec);
  auto tensor = ir::make_var("src", ir::make_tensor_type(dims({2, 3, 4}), ir::DataType::FP32));
  auto a = ir::make_var("a", t3), b = ir::make_var("b", t2), c = ir::make_var("c", t2), d = ir::make_var("d", t2);
  auto offs = ir::make_tuple(dims({0, 0, 0}));
  auto prog = one_function(
      ir::make_seq({ir::make_stmt(ir::Assign{a, ir::make_call(ir::intern_op("tile.load"), {tensor, offs, offs, offs}, {}, t3)}),
                    ir::make_stmt(ir::Assign{c, ir::make_call(ir::intern_op("tile.transpose"), {b, ir::make_int(0), ir::make_int(1)}, {}, t2)}),
                    ir::make_stmt(ir::Assign{d, ir::make_call(ir::intern_op("tile.assemble"), {c, b, offs}, {}, t2)})}),
      {ir::Param{tensor, ir::ParamDirection::In}, ir::Param{b, ir::ParamDirection::In}});
  auto diags = pass::verify(Property::TileOps2D, prog);
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].message.find("has 3 arguments (expected 4") != std::string::npos);
  CHECK(diags[1].message.find("has a rank-3 offset (expected 2: row, col") != std::string::npos);
}

TEST_CASE("SSAForm: a second definition of a Var is reported") {
  auto t = ir::scalar_type(ir::DataType::INDEX);
  auto x = ir::make_var("x", t);
  auto prog = one_function(ir::make_seq({ir::make_stmt(ir::Assign{x, ir::make_int(1)}), ir::make_stmt(ir::Assign{x, ir::make_int(2)})}));
  auto d = pass::verify(Property::SSAForm, prog);
  REQUIRE(d.size() == 1);
  CHECK(d[0].message.find("'x' is assigned more than once, violating SSA form") != std::string::npos);
}

TEST_CASE("passes are found by factory and CamelCase name") {
  CHECK(passes::find_pass("materialize_tensor_strides"));
  CHECK(passes::find_pass("FoldNoOpReshape"));
  CHECK_FALSE(passes::find_pass("no_such_pass"));
}
