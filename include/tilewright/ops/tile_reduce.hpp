#pragma once
// tile.* reductions (row_* / col_*) and the broadcast family (row_expand*, col_expand*,
// expands).
#include "tilewright/ops/builder.hpp"
#include "tilewright/ops/deduce.hpp"
#include "tilewright/ops/tile_elementwise.hpp"

namespace tilewright::ops {

namespace deduce {

// Row reductions reduce the last axis to 1 and store the column vector column-major.
inline Type row_reduce(const DeduceInput& in, bool argmax) {
  const TileType& t = tile_arg(in, 0);
  if (t.shape.size() < 2) fail(in, "needs rank >= 2, got " + dims_text(t.shape));
  const TileType& tmp = tile_arg(in, 1);
  if (tmp.dtype != t.dtype || tmp.shape.size() != t.shape.size())
    fail(in, "tmp_tile " + type_text(arg(in, 1)->type) + " must match the input's dtype and rank");
  for (std::size_t i = 0; i < t.shape.size(); ++i) {
    if (argmax ? !same_dim(tmp.shape[i], t.shape[i]) : prove_le(t.shape[i], tmp.shape[i]) == false)
      fail(in, "tmp_tile shape " + dims_text(tmp.shape) + (argmax ? " must equal " : " must not be smaller than ") +
                   "the input shape " + dims_text(t.shape));
  }
  reject_empty_valid(in, ir::valid_shape(t));
  auto shape = t.shape;
  auto valid = ir::valid_shape(t);
  shape.back() = idx(1);
  valid.back() = idx(1);
  TileView v = default_view();
  v.blayout = TileLayout::col_major;
  v.valid_shape = valid;
  return tile(shape, argmax ? DataType::INT32 : t.dtype, v);
}

inline Type row_min(const DeduceInput& in) {
  require_dtype(in, 0, {DataType::INT16, DataType::INT32, DataType::FP16, DataType::FP32});
  TileView e = ir::effective_view(tile_arg(in, 0));
  if (e.blayout != TileLayout::row_major || e.slayout != TileLayout::none_box)
    fail(in, "input must be row_major / none_box; move it to Vec first");
  return row_reduce(in, false);
}

// Column reductions reduce the first axis to 1.
inline Type col_reduce(const DeduceInput& in, bool argmax) {
  const TileType& t = tile_arg(in, 0);
  if (t.shape.empty()) fail(in, "needs a tile of rank >= 1");
  if (has_arg(in, 1)) tile_arg(in, 1);
  reject_empty_valid(in, ir::valid_shape(t));
  auto shape = t.shape;
  auto valid = ir::valid_shape(t);
  shape.front() = idx(1);
  valid.front() = idx(1);
  TileView v = default_view();
  v.valid_shape = valid;
  return tile(shape, argmax ? DataType::INT32 : t.dtype, v);
}

// The broadcast operand is checked, the result follows the target.
inline Type expand_result(const TileType& target, const TileType& operand) {
  TileView v = default_view();
  v.valid_shape = ir::valid_shape(target);
  inherit_layout(v, target);
  return tile(target.shape, ir::promote(target.dtype, operand.dtype), v);
}

inline Type row_expand(const DeduceInput& in) {
  const TileType& t = tile_arg(in, 0);
  const TileType& rv = tile_arg(in, 1);
  if (t.shape.size() < 2 || rv.shape.size() < 2)
    fail(in, "tile and row_vec need rank >= 2, got " + dims_text(t.shape) + " and " + dims_text(rv.shape));
  if (!is_const(rv.shape.back(), 1))
    fail(in, "row_vec " + dims_text(rv.shape) + " must have a last dim of 1 (one value per row)");
  std::size_t r = t.shape.size() - 2, q = rv.shape.size() - 2;
  if (prove_le(t.shape[r], rv.shape[q]) == false || prove_le(rv.shape[q], t.shape[r]) == false)
    fail(in, "row_vec rows " + expr_text(rv.shape[q]) + " must equal the tile rows " + expr_text(t.shape[r]));
  if (has_arg(in, 2)) tile_arg(in, 2);
  return expand_result(t, rv);
}

inline Type col_expand(const DeduceInput& in) {
  const TileType& t = tile_arg(in, 0);
  const TileType& c = tile_arg(in, 1);
  if (!c.shape.empty() && !t.shape.empty() && prove_le(c.shape.back(), t.shape.back()) == false)
    fail(in, "col_tile " + dims_text(c.shape) + " is wider than the target " + dims_text(t.shape));
  return expand_result(t, c);
}

}  // namespace deduce

inline void register_tile_reduce_ops(Registry& r) {
  using M = ir::MemorySpace;
  const std::string red = "reduction", bc = "broadcast";
  auto row = [](const DeduceInput& in) { return deduce::row_reduce(in, false); };
  auto row_arg = [](const DeduceInput& in) { return deduce::row_reduce(in, true); };
  auto col = [](const DeduceInput& in) { return deduce::col_reduce(in, false); };
  auto col_arg = [](const DeduceInput& in) { return deduce::col_reduce(in, true); };
  for (const char* n : {"tile.row_sum", "tile.row_max", "tile.row_prod"})
    add(r, OpRow(n, {"tile", "tmp_tile"}).rowwise().vec_in({0, 1}).out(M::Vec).nis().family(red).deduce(row));
  add(r, OpRow("tile.row_min", {"tile", "tmp_tile"}).rowwise().vec_in({0, 1}).out(M::Vec).nis().family(red)
             .deduce(deduce::row_min));
  for (const char* n : {"tile.row_argmax", "tile.row_argmin"})
    add(r, OpRow(n, {"tile", "tmp_tile"}).rowwise().vec_in({0, 1}).out(M::Vec).nis().family(red).deduce(row_arg));
  add(r, OpRow("tile.col_sum", {"tile", "tmp_tile"}).optional_from(1).vec_in({0, 1}).out(M::Vec).family(red)
             .deduce(col));
  for (const char* n : {"tile.col_max", "tile.col_min", "tile.col_prod"})
    add(r, OpRow(n, {"tile"}).vec_in({0}).out(M::Vec).func().family(red).deduce(col));
  for (const char* n : {"tile.col_argmax", "tile.col_argmin"})
    add(r, OpRow(n, {"tile", "tmp_tile"}).vec_in({0, 1}).out(M::Vec).nis().family(red).deduce(col_arg));

  add(r, OpRow("tile.row_expand", {"target", "row_vec"}).rowwise().vec_in({0, 1}).out(M::Vec).noalias(1).family(bc)
             .deduce(deduce::row_expand));
  for (const char* n : {"tile.row_expand_sub", "tile.row_expand_div", "tile.row_expand_mul", "tile.row_expand_max",
                        "tile.row_expand_min", "tile.row_expand_expdif"})
    add(r, OpRow(n, {"tile", "row_vec"}).rowwise().vec_in({0, 1}).out(M::Vec).func().noalias(1).family(bc)
               .deduce(deduce::row_expand));
  add(r, OpRow("tile.row_expand_add", {"tile", "row_vec", "tmp"}).optional_from(2).rowwise().vec_in({0, 1, 2})
             .out(M::Vec).noalias(1).noalias(2).family(bc).deduce(deduce::row_expand));
  add(r, OpRow("tile.col_expand", {"target", "col_tile"}).vec_in({0, 1}).out(M::Vec).noalias(1).family(bc)
             .deduce(deduce::col_expand));
  for (const char* n : {"tile.col_expand_mul", "tile.col_expand_add", "tile.col_expand_div", "tile.col_expand_sub",
                        "tile.col_expand_max", "tile.col_expand_min", "tile.col_expand_expdif"})
    add(r, OpRow(n, {"target", "col_tile"}).vec_in({0, 1}).out(M::Vec).func().noalias(1).family(bc)
               .deduce(deduce::col_expand));
  add(r, OpRow("tile.expands", {"target", "scalar"}).rowwise().vec_in({0}).out(M::Vec).family(bc).deduce(deduce::expands));
}

}  // namespace tilewright::ops
