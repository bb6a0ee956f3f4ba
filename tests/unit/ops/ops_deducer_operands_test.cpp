// Every deducer looks at its operands before it indexes them (issue 10: "deducers check their
// operands before indexing them"). Each registered op with a deducer is called with every
// arity from none to one past its maximum, with tiles of rank 0 to 3, with scalars where
// tiles belong and tiles where scalars belong, and with a few hundred seeded random mixes of
// operands: each call gives a type or a *user* error that names the op — never a crash, an
// internal error or a foreign exception.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ops_test_util.hpp"

using namespace ops_test;

namespace {

std::vector<ir::Expr> operand_pool() {
  return {
      tile("t0", std::vector<ir::Expr>{}, DataType::FP32),  // rank 0
      tile("t1", {16}, DataType::FP32),
      tile("t2", {16, 16}, DataType::FP32),
      tile("t2h", {16, 16}, DataType::FP16, MemorySpace::Mat),
      tile("t3", {2, 16, 16}, DataType::FP32),
      tile("ti", {16, 16}, DataType::INT32),
      tile("tacc", {16, 16}, DataType::FP32, MemorySpace::Acc),
      tensor("x2", {16, 16}, DataType::FP32),
      tensor("x0", {}, DataType::FP32),
      ir::make_var("s", ir::scalar_type(DataType::INDEX)),
      ir::make_var("f", ir::scalar_type(DataType::FP32)),
      ir::make_var("b", ir::scalar_type(DataType::BOOL)),
      I(0),
      I(-1),
      I(16),
      ir::make_float(1.5),
      tup(std::vector<ir::Expr>{}),
      tup({0}),
      tup({0, 0}),
      tup({16, 16}),
      tup({0, 0, 0}),
      tup({2, 16, 16}),
      ir::make_var("p", ir::marker_type(ir::Marker::Ptr)),
  };
}

// A value of the kwarg's kind, as text would spell it.
ir::AttrValue plausible(const ops::KwargSpec& k) {
  switch (k.kind) {
    case ops::KwargKind::integer:
    case ops::KwargKind::pipe_type:
    case ops::KwargKind::cast_mode:
    case ops::KwargKind::atomic_type: return std::int64_t{0};
    case ops::KwargKind::boolean: return false;
    case ops::KwargKind::string: return std::string("unspecified");
    case ops::KwargKind::floating: return 0.0;
    case ops::KwargKind::dtype: return DataType::FP16;
    case ops::KwargKind::memory_space: return MemorySpace::Vec;
    case ops::KwargKind::tensor_layout: return ir::TensorLayout::ND;
    case ops::KwargKind::tile_layout: return TileLayout::row_major;
    case ops::KwargKind::pad_value: return ir::PadValue::zero;
    case ops::KwargKind::expr: return I(0);
    case ops::KwargKind::any: return std::int64_t{0};
  }
  return std::int64_t{0};
}

// "" when the call gave a type or a user error naming the op; else what went wrong.
std::string misbehaviour(const ops::OpInfo& op, const std::vector<ir::Expr>& args, const ir::Kwargs& kwargs) {
  try {
    auto t = ops::deduce_type(op, args, kwargs, {});
    if (!t || !*t) return "returned no type";
    return {};
  } catch (const ir::Error& e) {
    if (e.diagnostic().kind != ir::ErrorKind::user) return "internal error: " + e.diagnostic().message;
    if (e.diagnostic().message.find(op.name) == std::string::npos)
      return "an error that does not name the op: " + e.diagnostic().message;
    return {};
  } catch (const std::exception& e) {
    return std::string("foreign exception: ") + e.what();
  }
}

std::string describe(const std::vector<ir::Expr>& args) {
  std::string s = "(";
  for (std::size_t i = 0; i < args.size(); ++i)
    s += (i ? ", " : "") + (ir::is_var_like(args[i]) ? std::string(ir::name_hint(args[i])) : std::string("<expr>"));
  return s + ")";
}

}  // namespace

TEST_CASE("deducers: every op, every arity, rank 0..3 and wrong kinds give a type or a user error") {
  const auto pool = operand_pool();
  std::mt19937 rng(20261201);
  int ops_seen = 0;
  ops::builtin_registry().for_each([&](const ops::OpInfo& op) {
    if (!op.deduce) return;
    ++ops_seen;
    int most = op.max_args < 0 ? op.min_args + 3 : op.max_args + 1;
    ir::Kwargs plain, filled;
    for (const auto& k : op.kwargs) filled.emplace_back(k.name, plausible(k));
    for (const ir::Kwargs* kw : {&plain, &filled}) {
      for (int n = 0; n <= most; ++n) {
        // Homogeneous operands: one pool entry in every position (rank 0 tiles, scalars, ...).
        for (const auto& e : pool) {
          std::vector<ir::Expr> args(static_cast<std::size_t>(n), e);
          auto why = misbehaviour(op, args, *kw);
          CHECK_MESSAGE(why.empty(), op.name << describe(args) << ": " << why);
        }
        // Random mixes.
        for (int k = 0; k < 40; ++k) {
          std::vector<ir::Expr> args;
          for (int i = 0; i < n; ++i) args.push_back(pool[rng() % pool.size()]);
          auto why = misbehaviour(op, args, *kw);
          CHECK_MESSAGE(why.empty(), op.name << describe(args) << ": " << why);
        }
      }
    }
  });
  CHECK(ops_seen > 80);
}

TEST_CASE("deducers: a rank-0 tile is refused by name, not indexed") {
  auto t0 = tile("t0", std::vector<ir::Expr>{}, DataType::FP32);
  std::string e = error_of([&] { call("tile.reinterpret_view", {t0}, {{"dtype", DataType::INT32}}); });
  CHECK(e.find("tile.reinterpret_view") != std::string::npos);
  CHECK(e.find("rank") != std::string::npos);
}
