// TileBufSignature read from IR tile types (FR-05, ir_ops.md C.1), quirks included.
#include "ops_test_util.hpp"
#include "tilewright/ops/tile_buf_signature.hpp"

using namespace ops_test;

namespace {
ops::TileBufSignature sig(std::vector<ir::Expr> shape, DataType dt, std::optional<MemorySpace> mem,
                          std::optional<ir::TileView> view = std::nullopt) {
  return ops::from_tile_type(*ir::as<ir::TileType>(ir::make_tile_type(std::move(shape), dt, std::move(view), mem)));
}
}  // namespace

TEST_CASE("signature: shape, space and dtype (FR-05)") {
  auto s = sig(dims({64, 64}), DataType::FP16, MemorySpace::Vec);
  CHECK(s.space == math::MemorySpace::Vec);
  CHECK(s.dtype == math::DataType::FP16);
  CHECK(s.rows == 64);
  CHECK(s.cols == 64);
  CHECK(s.v_row == 64);
  CHECK(s.v_col == 64);
  // FR-04: [64,64] vs [4096,1] differ.
  CHECK_FALSE(s == sig(dims({4096, 1}), DataType::FP16, MemorySpace::Vec));
  // Unset space reads as Vec; rank 1 is one row; trailing dims are ignored; symbolic → 32.
  CHECK(sig(dims({64, 64}), DataType::FP16, std::nullopt) == s);
  auto r1 = sig(dims({128}), DataType::FP32, MemorySpace::Vec);
  CHECK(r1.rows == 1);
  CHECK(r1.cols == 128);
  CHECK(sig(dims({4, 8, 16}), DataType::FP32, MemorySpace::Vec) == sig(dims({4, 8, 99}), DataType::FP32, MemorySpace::Vec));
  auto dyn = sig({sym("n"), I(16)}, DataType::FP32, MemorySpace::Vec);
  CHECK(dyn.rows == 32);
  CHECK(dyn.cols == 16);
}

TEST_CASE("signature: implicit views ignore the memory space's layout (FR-05 quirk)") {
  auto mat = sig(dims({32, 32}), DataType::FP16, MemorySpace::Mat);
  CHECK(mat.blayout == math::TileLayout::row_major);
  CHECK(mat.slayout == math::TileLayout::none_box);
  CHECK(mat.fractal == 512);
  auto acc = sig(dims({16, 16}), DataType::FP32, MemorySpace::Acc);
  CHECK(acc.fractal == 512);
  CHECK(sig(dims({16, 1}), DataType::FP32, MemorySpace::Vec).blayout == math::TileLayout::col_major);
  CHECK(sig(dims({1, 1}), DataType::FP32, MemorySpace::Vec).blayout == math::TileLayout::row_major);
}

TEST_CASE("signature: stored views and dynamic valid extents (FR-05)") {
  ir::TileView v = ir::implicit_view(dims({64, 64}), MemorySpace::Acc);
  v.valid_shape = {sym("a"), I(48)};
  v.compact = ir::CompactMode::normal;
  v.pad = ir::PadValue::zero;
  auto s = sig(dims({64, 64}), DataType::FP32, MemorySpace::Acc, v);
  CHECK(s.blayout == math::TileLayout::col_major);
  CHECK(s.slayout == math::TileLayout::row_major);
  CHECK(s.fractal == 1024);
  CHECK(s.compact == math::CompactMode::normal);
  CHECK(s.pad == math::PadValue::zero);
  CHECK(s.v_row_dynamic);
  CHECK(s.v_row == 64);
  CHECK(s.v_col == 48);
  CHECK_FALSE(s.v_col_dynamic);
  // Two different symbolic extents compare equal.
  ir::TileView w = v;
  w.valid_shape = {sym("b"), I(48)};
  CHECK(s == sig(dims({64, 64}), DataType::FP32, MemorySpace::Acc, w));
  // A stride is not part of the signature.
  ir::TileView strided = v;
  strided.stride = dims({64, 1});
  CHECK(s == sig(dims({64, 64}), DataType::FP32, MemorySpace::Acc, strided));
}
