#pragma once
// tile.* cube ops: matmul (+acc/bias), gemv (+acc/bias), MX matmul, batch_matmul (+acc).
// Results live in Acc with the (col_major, row_major, 1024) box layout; deducers stamp it.
#include "tilewright/ops/builder.hpp"
#include "tilewright/ops/deduce.hpp"

namespace tilewright::ops {

namespace deduce {

inline DataType accumulator_dtype(DataType a, DataType b) {
  return ir::is_float(a) && ir::is_float(b) ? DataType::FP32 : DataType::INT32;
}

inline bool provably_differs(const Expr& a, const Expr& b) {
  auto x = ir::const_int(a), y = ir::const_int(b);
  return x && y && *x != *y;
}

struct Product {
  std::vector<Expr> shape;  // [M, N]
  std::vector<Expr> valid;
  DataType acc;
};

// The common matrix-product rule over lhs (arg `l`) and rhs (arg `l + 1`).
inline Product matrix_product(const DeduceInput& in, std::size_t l) {
  const TileType& a = tile_arg(in, l);
  const TileType& b = tile_arg(in, l + 1);
  if (a.shape.size() != 2 || b.shape.size() != 2)
    fail(in, "lhs and rhs must be 2-D, got " + dims_text(a.shape) + " and " + dims_text(b.shape));
  if (provably_differs(a.shape[1], b.shape[0]))
    fail(in, "lhs " + dims_text(a.shape) + " and rhs " + dims_text(b.shape) + " disagree on K (" +
                 expr_text(a.shape[1]) + " vs " + expr_text(b.shape[0]) + ")");
  const auto& va = ir::valid_shape(a);
  const auto& vb = ir::valid_shape(b);
  if (prove_le(va[1], vb[0]) == false)
    fail(in, "rhs valid K " + expr_text(vb[0]) + " is smaller than lhs valid K " + expr_text(va[1]));
  if (a.dtype != b.dtype)
    fail(in, "lhs dtype " + dtype_text(a.dtype) + " must equal rhs dtype " + dtype_text(b.dtype));
  return {{a.shape[0], b.shape[1]}, {va[0], vb[1]}, accumulator_dtype(a.dtype, b.dtype)};
}

inline Type acc_tile(std::vector<Expr> shape, std::vector<Expr> valid, DataType dt, bool stamp_compact,
                     ir::CompactMode compact = ir::CompactMode::null) {
  TileView v = acc_view();
  // StampCompactForNarrowedAccRows: narrowed rows are stored compact unless proven full.
  if (stamp_compact && prove_le(shape[0], valid[0]) != true) compact = ir::CompactMode::normal;
  v.compact = compact;
  v.valid_shape = std::move(valid);
  return tile(std::move(shape), dt, v, MemorySpace::Acc);
}

inline Type matmul(const DeduceInput& in) {
  Product p = matrix_product(in, 0);
  return acc_tile(p.shape, p.valid, p.acc, true);
}

inline void check_accumulator(const DeduceInput& in, const TileType& acc, const Product& p) {
  if (acc.shape.size() != 2) fail(in, "acc must be 2-D, got " + dims_text(acc.shape));
  for (std::size_t i = 0; i < 2; ++i)
    if (provably_differs(acc.shape[i], p.shape[i]))
      fail(in, "acc shape " + dims_text(acc.shape) + " does not match the product shape " + dims_text(p.shape));
  const auto& av = ir::valid_shape(acc);
  for (std::size_t i = 0; i < 2; ++i)
    if (prove_le(p.valid[i], av[i]) == false)
      fail(in, "acc valid " + dims_text(av) + " does not cover the product valid " + dims_text(p.valid));
  if (acc.dtype != p.acc)
    fail(in, "acc dtype " + dtype_text(acc.dtype) + " must be the accumulator dtype " + dtype_text(p.acc));
}

inline Type matmul_acc(const DeduceInput& in) {
  const TileType& acc = tile_arg(in, 0);
  Product p = matrix_product(in, 1);
  if (has_arg(in, 3) && scalar_arg(in, 3) != DataType::BOOL)
    fail(in, "init_cond must be a BOOL scalar, got " + type_text(arg(in, 3)->type));
  check_accumulator(in, acc, p);
  return acc_tile(acc.shape, ir::valid_shape(acc), acc.dtype, false, ir::effective_view(acc).compact);
}

inline void check_bias(const DeduceInput& in, std::size_t i, const Expr& n, DataType dt) {
  const TileType& bias = tile_arg(in, i);
  if (bias.shape.size() != 2 || !is_const(bias.shape[0], 1) || provably_differs(bias.shape[1], n))
    fail(in, "bias must be [1, " + expr_text(n) + "], got " + dims_text(bias.shape));
  if (bias.dtype != dt) fail(in, "bias dtype " + dtype_text(bias.dtype) + " must be " + dtype_text(dt));
}

inline Type matmul_bias(const DeduceInput& in) {
  Product p = matrix_product(in, 0);
  check_bias(in, 2, p.shape[1], p.acc);
  return acc_tile(p.shape, p.valid, p.acc, true);
}

inline void check_acc_phase(const DeduceInput& in) {
  if (auto s = kw<std::string>(in, "acc_phase"); s && *s != "unspecified" && *s != "partial" && *s != "final")
    fail(in, "acc_phase must be 'unspecified', 'partial' or 'final', got '" + *s + "'");
}

// GEMV computes one row but the Acc box is 16 rows tall.
inline Type gemv_result(const DeduceInput& in, std::size_t l) {
  check_acc_phase(in);
  const TileType& a = tile_arg(in, l);
  if (a.shape.size() == 2 && !is_const(a.shape[0], 1))
    fail(in, "lhs must be a single row, got " + dims_text(a.shape));
  Product p = matrix_product(in, l);
  DataType d = tile_arg(in, l).dtype;
  if (d != DataType::INT8 && d != DataType::FP16 && d != DataType::BF16 && d != DataType::FP32)
    fail(in, "operands must be INT8, FP16, BF16 or FP32, got " + dtype_text(d));
  return acc_tile({idx(16), p.shape[1]}, {idx(1), p.valid[1]}, p.acc, false);
}

inline Type gemv_acc(const DeduceInput& in) {
  Type expect = gemv_result(in, 1);
  const TileType& acc = tile_arg(in, 0);
  const TileType& e = *ir::as<TileType>(expect);
  if (!ir::loosely_equal(acc.shape, e.shape) || acc.dtype != e.dtype ||
      !ir::loosely_equal(ir::valid_shape(acc), ir::valid_shape(e)))
    fail(in, "acc " + type_text(arg(in, 0)->type) + " must equal the gemv result " + type_text(expect));
  return acc_tile(acc.shape, ir::valid_shape(acc), acc.dtype, false, ir::effective_view(acc).compact);
}

inline Type gemv_bias(const DeduceInput& in) {
  Type t = gemv_result(in, 0);
  const TileType& bias = tile_arg(in, 2);
  if (bias.shape.empty() || !is_const(ir::valid_shape(bias)[0], 1))
    fail(in, "bias must have one valid row, got " + type_text(arg(in, 2)->type));
  return t;
}

// (lhs, lhs_scale, rhs, rhs_scale) starting at argument `l`.
inline Product mx_product(const DeduceInput& in, std::size_t l) {
  const TileType& a = tile_arg(in, l);
  const TileType& b = tile_arg(in, l + 2);
  for (std::size_t i : {l, l + 2})
    if (tile_arg(in, i).dtype != DataType::FP8E4M3FN)
      fail(in, arg_label(in, i) + " must be FP8E4M3FN, got " + dtype_text(tile_arg(in, i).dtype));
  for (std::size_t i : {l + 1, l + 3})
    if (tile_arg(in, i).dtype != DataType::FP8E8M0)
      fail(in, arg_label(in, i) + " must be FP8E8M0, got " + dtype_text(tile_arg(in, i).dtype));
  if (a.shape.size() != 2 || b.shape.size() != 2)
    fail(in, "lhs and rhs must be 2-D, got " + dims_text(a.shape) + " and " + dims_text(b.shape));
  if (provably_differs(a.shape[1], b.shape[0]))
    fail(in, "lhs " + dims_text(a.shape) + " and rhs " + dims_text(b.shape) + " disagree on K");
  auto check = [&](const Expr& d, std::int64_t m, const char* what) {
    if (auto c = ir::const_int(d); c && *c % m != 0)
      fail(in, std::string(what) + " = " + std::to_string(*c) + " must be a multiple of " + std::to_string(m));
  };
  check(a.shape[0], 16, "M");
  check(b.shape[1], 32, "N");
  check(a.shape[1], 64, "K");
  return {{a.shape[0], b.shape[1]}, {ir::valid_shape(a)[0], ir::valid_shape(b)[1]}, DataType::FP32};
}

inline Type matmul_mx(const DeduceInput& in) {
  Product p = mx_product(in, 0);
  return acc_tile(p.shape, p.valid, p.acc, false);
}
inline Type matmul_mx_acc(const DeduceInput& in) {
  const TileType& acc = tile_arg(in, 0);
  Product p = mx_product(in, 1);
  check_accumulator(in, acc, p);
  return acc_tile(acc.shape, ir::valid_shape(acc), acc.dtype, false, ir::effective_view(acc).compact);
}
inline Type matmul_mx_bias(const DeduceInput& in) {
  Product p = mx_product(in, 0);
  check_bias(in, 4, p.shape[1], DataType::FP32);
  return acc_tile(p.shape, p.valid, p.acc, false);
}

// Batch dims broadcast; the trailing two are the matrix dims.
inline std::vector<Expr> batch_product_shape(const DeduceInput& in, std::size_t l, DataType& acc) {
  const TileType& a = tile_arg(in, l);
  const TileType& b = tile_arg(in, l + 1);
  if (a.shape.size() < 2 || b.shape.size() < 2)
    fail(in, "lhs and rhs need rank >= 2, got " + dims_text(a.shape) + " and " + dims_text(b.shape));
  std::size_t na = a.shape.size(), nb = b.shape.size();
  if (provably_differs(a.shape[na - 1], b.shape[nb - 2]))
    fail(in, "lhs " + dims_text(a.shape) + " and rhs " + dims_text(b.shape) + " disagree on K (" +
                 expr_text(a.shape[na - 1]) + " vs " + expr_text(b.shape[nb - 2]) + ")");
  if (a.dtype != b.dtype)
    fail(in, "lhs dtype " + dtype_text(a.dtype) + " must equal rhs dtype " + dtype_text(b.dtype));
  std::vector<Expr> ba(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
  auto batch = broadcast_shapes(ba, bb);
  if (!batch)
    fail(in, "batch dims " + dims_text(ba) + " and " + dims_text(bb) + " do not broadcast");
  batch->push_back(a.shape[na - 2]);
  batch->push_back(b.shape[nb - 1]);
  acc = accumulator_dtype(a.dtype, b.dtype);
  return *batch;
}

inline Type batch_matmul(const DeduceInput& in) {
  DataType acc{};
  auto shape = batch_product_shape(in, 0, acc);
  return acc_tile(shape, shape, acc, false);
}

inline Type batch_matmul_acc(const DeduceInput& in) {
  const TileType& acc = tile_arg(in, 0);
  DataType dt{};
  auto shape = batch_product_shape(in, 1, dt);
  if (acc.shape.size() != shape.size())
    fail(in, "acc " + dims_text(acc.shape) + " must have the product shape " + dims_text(shape));
  for (std::size_t i = 0; i < shape.size(); ++i) {
    bool batch = i + 2 < shape.size();
    if (batch ? !same_dim(acc.shape[i], shape[i]) : provably_differs(acc.shape[i], shape[i]))
      fail(in, "acc " + dims_text(acc.shape) + " must have the product shape " + dims_text(shape));
  }
  if (acc.dtype != dt) fail(in, "acc dtype " + dtype_text(acc.dtype) + " must be the accumulator dtype " + dtype_text(dt));
  if (has_arg(in, 3) && scalar_arg(in, 3) != DataType::BOOL)
    fail(in, "init_cond must be a BOOL scalar, got " + type_text(arg(in, 3)->type));
  return acc_tile(acc.shape, acc.shape, acc.dtype, false);
}

}  // namespace deduce

inline void register_tile_matmul_ops(Registry& r) {
  using M = ir::MemorySpace;
  using K = KwargKind;
  const std::string mm = "matmul", mx = "matmul_mx", bm = "batch_matmul";
  add(r, OpRow("tile.matmul", {"lhs", "rhs"}).in(0, {M::Left}).in(1, {M::Right}).out(M::Acc).func().family(mm)
             .deduce(deduce::matmul));
  add(r, OpRow("tile.matmul_acc", {"acc", "lhs", "rhs", "init_cond"}).optional_from(3)
             .in(0, {M::Acc}).in(1, {M::Left}).in(2, {M::Right}).out(M::Acc).reuse(0).func()
             .effect(0, ArgEffect::read_write).family(mm).deduce(deduce::matmul_acc));
  add(r, OpRow("tile.matmul_bias", {"lhs", "rhs", "bias"}).in(0, {M::Left}).in(1, {M::Right}).in(2, {M::Bias})
             .out(M::Acc).func().family(mm).deduce(deduce::matmul_bias));
  add(r, OpRow("tile.gemv", {"lhs", "rhs"}).kw("acc_phase", K::string).in(0, {M::Left}).in(1, {M::Right})
             .out(M::Acc).func().family(mm).deduce([](const DeduceInput& in) { return deduce::gemv_result(in, 0); }));
  add(r, OpRow("tile.gemv_acc", {"acc", "lhs", "rhs"}).kw("acc_phase", K::string).in(0, {M::Acc})
             .in(1, {M::Left}).in(2, {M::Right}).out(M::Acc).reuse(0).func().effect(0, ArgEffect::read_write)
             .family(mm).deduce(deduce::gemv_acc));
  add(r, OpRow("tile.gemv_bias", {"lhs", "rhs", "bias"}).kw("acc_phase", K::string).in(0, {M::Left})
             .in(1, {M::Right}).in(2, {M::Bias}).out(M::Acc).func().family(mm).deduce(deduce::gemv_bias));
  add(r, OpRow("tile.matmul_mx", {"lhs", "lhs_scale", "rhs", "rhs_scale"}).in(0, {M::Left}).in(1, {M::LeftScale})
             .in(2, {M::Right}).in(3, {M::RightScale}).out(M::Acc).family(mx).deduce(deduce::matmul_mx));
  add(r, OpRow("tile.matmul_mx_acc", {"acc", "lhs", "lhs_scale", "rhs", "rhs_scale"}).in(0, {M::Acc})
             .in(1, {M::Left}).in(2, {M::LeftScale}).in(3, {M::Right}).in(4, {M::RightScale}).out(M::Acc)
             .reuse(0).effect(0, ArgEffect::read_write).family(mx).deduce(deduce::matmul_mx_acc));
  add(r, OpRow("tile.matmul_mx_bias", {"lhs", "lhs_scale", "rhs", "rhs_scale", "bias"}).in(0, {M::Left})
             .in(1, {M::LeftScale}).in(2, {M::Right}).in(3, {M::RightScale}).in(4, {M::Bias}).out(M::Acc)
             .family(mx).deduce(deduce::matmul_mx_bias));
  add(r, OpRow("tile.batch_matmul", {"lhs", "rhs"}).in(0, {M::Left}).in(1, {M::Right}).out(M::Acc).func()
             .family(bm).deduce(deduce::batch_matmul));
  // init_cond (catalog FL-13 signature, seed 003's single-allocation workaround): True
  // overwrites every page instead of accumulating, as tile.matmul_acc's does for one.
  add(r, OpRow("tile.batch_matmul_acc", {"acc", "lhs", "rhs", "init_cond"}).optional_from(3).in(0, {M::Acc}).in(1, {M::Left}).in(2, {M::Right})
             .out(M::Acc).reuse(0).func().effect(0, ArgEffect::read_write).family(bm)
             .deduce(deduce::batch_matmul_acc));
}

}  // namespace tilewright::ops
