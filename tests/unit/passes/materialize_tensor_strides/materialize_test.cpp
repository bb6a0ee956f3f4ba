// MaterializeTensorStrides on hand-built IR (the golden corpus covers the printed cases;
// these pin identities, errors and verifier pairing).
#include <doctest/doctest.h>

#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"
#include "ir_test_util.hpp"

using namespace tilewright;

namespace {
using ir_test::dims;
ir::Type dn_tensor(std::vector<ir::Expr> shape, ir::TensorLayout layout = ir::TensorLayout::DN) {
  return ir::make_tensor_type(std::move(shape), ir::DataType::FP32, ir::TensorView{{}, {}, layout, ir::PadValue::null});
}
ir::Program identity_program(ir::Type t) {
  auto x = ir::make_var("x", t);
  return ir::make_program("P", {ir::make_function(ir::FunctionNode{"f", {ir::Param{x, ir::ParamDirection::In}}, {t},
                                                                   ir::make_stmt(ir::Return{{x}}), ir::FunctionType::Opaque,
                                                                   {}, {}, {}, {}})});
}
std::vector<std::int64_t> stride_of(const ir::Type& t) {
  std::vector<std::int64_t> out;
  for (const auto& s : ir::as<ir::TensorType>(t)->view->stride) out.push_back(*ir::const_int(s));
  return out;
}
}  // namespace

TEST_CASE("MT-03/MT-12/MT-14: DN strides are materialized on params and returns; strict verifier then passes") {
  pass::PassContext ctx;
  auto before = identity_program(dn_tensor(dims({2, 4, 8})));
  CHECK(pass::verify(pass::Property::TensorViewCanonical, before).front().message.find("stride is empty") != std::string::npos);
  auto after = passes::materialize_tensor_strides(before, ctx);
  const auto& f = after->functions[0];
  CHECK(stride_of(f->params[0].var->type) == std::vector<std::int64_t>{32, 1, 4});
  CHECK(stride_of(f->return_types[0]) == std::vector<std::int64_t>{32, 1, 4});
  CHECK(ir::as<ir::Return>(f->body)->values[0] == f->params[0].var);  // MT-11: one new Var per old Var
  CHECK(pass::verify(pass::Property::TensorViewCanonical, after).empty());
  CHECK(passes::materialize_tensor_strides(after, ctx) == after);  // MT-13: idempotent, same object
}

TEST_CASE("MT-03: symbolic DN [K, N] gets stride [1, K] with the same K") {
  pass::PassContext ctx;
  auto K = ir::make_var("K", ir::scalar_type(ir::DataType::INDEX));
  auto after = passes::materialize_tensor_strides(identity_program(dn_tensor({K, ir::make_int(8)})), ctx);
  const auto& stride = ir::as<ir::TensorType>(after->functions[0]->params[0].var->type)->view->stride;
  CHECK(*ir::const_int(stride[0]) == 1);
  CHECK(stride[1] == K);
}

TEST_CASE("MT-04/MT-05/MT-06: ND fill keeps pad; bare and explicit tensors keep their identity") {
  pass::PassContext ctx;
  auto padded = ir::make_tensor_type(dims({8, 16}), ir::DataType::FP32, ir::TensorView{{}, {}, ir::TensorLayout::ND, ir::PadValue::zero});
  auto after = passes::materialize_tensor_strides(identity_program(padded), ctx);
  auto* t = ir::as<ir::TensorType>(after->functions[0]->params[0].var->type);
  CHECK(stride_of(after->functions[0]->params[0].var->type) == std::vector<std::int64_t>{16, 1});
  CHECK(t->view->pad == ir::PadValue::zero);
  auto bare = identity_program(ir::make_tensor_type(dims({8, 16}), ir::DataType::FP32));
  CHECK(passes::materialize_tensor_strides(bare, ctx) == bare);
  auto explicit_dn = identity_program(ir::make_tensor_type(dims({2, 4}), ir::DataType::FP32,
                                                           ir::TensorView{{}, dims({1, 8}), ir::TensorLayout::DN, ir::PadValue::null}));
  CHECK(passes::materialize_tensor_strides(explicit_dn, ctx) == explicit_dn);
}

TEST_CASE("MT-08: blocked NZ gets row-major strides; unblocked NZ is an internal error saying 'not blocked'") {
  pass::PassContext ctx;
  auto blocked = ir::make_tensor_type(dims({1, 16, 16, 16, 32}), ir::DataType::INT8,
                                      ir::TensorView{{}, {}, ir::TensorLayout::NZ, ir::PadValue::null});
  auto after = passes::materialize_tensor_strides(identity_program(blocked), ctx);
  CHECK(stride_of(after->functions[0]->params[0].var->type) == std::vector<std::int64_t>{131072, 8192, 512, 32, 1});
  auto unblocked = identity_program(dn_tensor(dims({64, 128}), ir::TensorLayout::NZ));
  try {
    (void)passes::materialize_tensor_strides(unblocked, ctx);
    FAIL("expected an error");
  } catch (const ir::Error& e) {
    CHECK(e.diagnostic().kind == ir::ErrorKind::internal);
    CHECK(e.diagnostic().message.find("not blocked") != std::string::npos);
  }
}

TEST_CASE("TVS-03: DN on a rank-1 tensor is rejected with 'rank >= 2'") {
  pass::PassContext ctx;
  try {
    (void)passes::materialize_tensor_strides(identity_program(dn_tensor(dims({8}))), ctx);
    FAIL("expected an error");
  } catch (const ir::Error& e) {
    CHECK(e.diagnostic().message.find("rank >= 2") != std::string::npos);
  }
}
