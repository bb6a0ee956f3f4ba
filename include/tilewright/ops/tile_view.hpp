#pragma once
// tile.* view and reshaping ops: slice, reshape, reinterpret_view, set_validshape,
// transpose_view, transpose, assemble, concat (+ scatter_update, tget_scale_addr rows).
#include "tilewright/ops/builder.hpp"
#include "tilewright/ops/deduce.hpp"

namespace tilewright::ops {

namespace deduce {

inline Type slice(const DeduceInput& in) {
  const TileType& src = tile_arg(in, 0);
  auto shape = static_shape_arg(in, 1);
  auto offset = index_tuple(in, 2);
  if (offset.size() != shape.size() || shape.size() != src.shape.size())
    fail(in, "shape " + dims_text(shape) + " and offset " + dims_text(offset) +
                 " must both have the source rank " + std::to_string(src.shape.size()));
  std::vector<Expr> requested;
  if (has_arg(in, 3)) requested = index_tuple(in, 3);
  if (!requested.empty() && requested.size() != shape.size())
    fail(in, "valid_shape " + dims_text(requested) + " must have rank " + std::to_string(shape.size()));
  TileView v = default_view();
  if (src.view) {
    v.blayout = src.view->blayout;
    v.slayout = src.view->slayout;
    v.fractal = src.view->fractal;
    v.pad = src.view->pad;
    v.compact = src.view->compact;
  } else {
    v.blayout = ir::shape_blayout(shape);
  }
  v.valid_shape = window_read_valid(in, src.shape, ir::valid_shape(src), offset, shape,
                                    requested.empty() ? nullptr : &requested, /*exact=*/true, false);
  if (auto pad = kw<ir::PadValue>(in, "pad_value")) v.pad = *pad;
  if (has_arg(in, 4)) {
    std::vector<bool> drop(shape.size(), false);
    for (const auto& a : literal_tuple(in, 4)) {
      auto axis = ir::const_int(a);
      auto rank = static_cast<std::int64_t>(shape.size());
      if (!axis || *axis < -rank || *axis >= rank)
        fail(in, "drop_dims entries must be constant axes in [" + std::to_string(-rank) + ", " +
                     std::to_string(rank) + "), got " + expr_text(a));
      auto k = static_cast<std::size_t>(*axis < 0 ? *axis + rank : *axis);
      if (!is_const(shape[k], 1)) fail(in, "drop_dims axis " + std::to_string(k) + " of " + dims_text(shape) + " is not a unit dim");
      drop[k] = true;
    }
    std::vector<Expr> s, vs;
    for (std::size_t k = 0; k < shape.size(); ++k)
      if (!drop[k]) { s.push_back(shape[k]); vs.push_back(v.valid_shape[k]); }
    while (s.size() < 2) { s.insert(s.begin(), idx(1)); vs.insert(vs.begin(), idx(1)); }
    shape = std::move(s);
    v.valid_shape = std::move(vs);
  }
  return tile(shape, src.dtype, v);
}

// ComputeReshapeValidShape.
inline std::vector<Expr> reshape_valid(const DeduceInput& in, const std::vector<Expr>& valid,
                                       const std::vector<Expr>& from, const std::vector<Expr>& to,
                                       bool row_major) {
  if (ir::loosely_equal(valid, from)) return to;
  for (const auto& d : valid)
    if (is_const(d, 0)) return std::vector<Expr>(to.size(), idx(0));
  // Only unit axes added or removed: non-unit axes map one to one.
  {
    std::vector<std::size_t> a, b;
    for (std::size_t i = 0; i < from.size(); ++i) if (!is_const(from[i], 1)) a.push_back(i);
    for (std::size_t i = 0; i < to.size(); ++i) if (!is_const(to[i], 1)) b.push_back(i);
    bool same = a.size() == b.size();
    for (std::size_t i = 0; same && i < a.size(); ++i) same = same_dim(from[a[i]], to[b[i]]);
    if (same) {
      std::vector<Expr> out(to.size(), idx(1));
      for (std::size_t i = 0; i < a.size(); ++i) out[b[i]] = valid[a[i]];
      return out;
    }
  }
  auto describe = [&] {
    return "valid region " + dims_text(valid) + " of " + dims_text(from) +
           " is not a rectangle in the new shape " + dims_text(to);
  };
  if (!row_major) fail(in, describe() + " (a partially valid column-major tile can only gain or lose unit axes)");
  // Contiguous row-major prefix: ones, one partial axis k, then full axes.
  std::size_t k = 0;
  while (k < valid.size() && is_const(valid[k], 1)) ++k;
  if (k == valid.size()) k = valid.size() - 1;
  for (std::size_t j = k + 1; j < valid.size(); ++j)
    if (!same_dim(valid[j], from[j])) fail(in, describe());
  auto tail = static_product(std::vector<Expr>(from.begin() + static_cast<std::ptrdiff_t>(k) + 1, from.end()));
  if (!tail) fail(in, describe());
  // Find the new axis m whose trailing product is the same tail; or, with a constant
  // element count, the axis the count fills partially.
  std::int64_t p = 1;
  for (std::size_t m = to.size(); m-- > 0;) {
    std::vector<Expr> out(to.size(), idx(1));
    for (std::size_t j = m + 1; j < to.size(); ++j) out[j] = to[j];
    if (p == *tail) {
      out[m] = valid[k];
      return out;
    }
    if (auto vk = ir::const_int(valid[k])) {
      std::int64_t n = *vk * *tail;
      auto tm = ir::const_int(to[m]);
      if (tm && n % p == 0 && n / p <= *tm) {
        out[m] = idx(n / p);
        return out;
      }
    }
    auto c = ir::const_int(to[m]);
    if (!c) break;
    p *= *c;
  }
  fail(in, describe());
}

inline Type reshape(const DeduceInput& in) {
  const TileType& src = tile_arg(in, 0);
  auto shape = tuple_values(in, 1);
  for (const auto& d : shape) {
    auto* s = ir::as<ir::ScalarType>(d->type);
    if (!s || !ir::is_integer(s->dtype)) fail(in, "shape entries must be integer scalars, got " + dims_text(shape));
  }
  auto a = static_product(src.shape), b = static_product(shape);
  if (a && b && *a != *b)
    fail(in, "cannot reshape " + dims_text(src.shape) + " (" + std::to_string(*a) + " elements) to " +
                 dims_text(shape) + " (" + std::to_string(*b) + " elements)");
  TileView se = ir::effective_view(src);
  TileView v = default_view();
  v.valid_shape = reshape_valid(in, se.valid_shape, src.shape, shape, se.blayout == TileLayout::row_major);
  v.blayout = ir::shape_blayout(shape);
  v.pad = se.pad;
  v.compact = se.compact;
  return tile(shape, src.dtype, v);
}

inline Type reinterpret_view(const DeduceInput& in) {
  const TileType& src = tile_arg(in, 0);
  DataType dt = required_dtype(in, "dtype");
  TileView v = ir::effective_view(src);
  std::size_t rank = src.shape.size();
  if (rank == 0) fail(in, "needs a tile of rank >= 1, got a rank-0 tile");
  if (v.valid_shape.size() != rank)
    fail(in, "source valid_shape " + dims_text(v.valid_shape) + " does not have the rank of its shape " +
                 dims_text(src.shape));
  if (v.slayout != TileLayout::none_box)
    fail(in, "source must have a flat (none_box) layout; move it to a flat layout first");
  if (v.blayout == TileLayout::none_box || (v.blayout == TileLayout::col_major && rank < 2))
    fail(in, "source must be row-major, or column-major with rank >= 2");
  if (!v.stride.empty()) fail(in, "source must not carry an explicit stride");
  if (v.start_offset && !is_const(v.start_offset, 0)) fail(in, "source must start at offset 0");
  std::size_t axis = v.blayout == TileLayout::row_major ? rank - 1 : rank - 2;
  int from = ir::storage_bits(src.dtype), to = ir::storage_bits(dt);
  auto scale = [&](const Expr& d) -> Expr {
    if (from == to) return d;
    if (auto c = ir::const_int(d)) {
      if ((*c * from) % to != 0)
        fail(in, "dim " + std::to_string(*c) + " of " + dtype_text(src.dtype) + " is not a whole number of " +
                     dtype_text(dt) + " elements");
      return idx(*c * from / to);
    }
    if (from % to == 0) return mul(d, idx(from / to));
    return binary(ir::BinaryOp::FloorDiv, mul(d, idx(from)), idx(to));
  };
  std::vector<Expr> shape = src.shape;
  std::vector<Expr> valid = v.valid_shape;
  if (has_arg(in, 1)) {
    shape = tuple_values(in, 1);
    auto a = static_product(src.shape), b = static_product(shape);
    if (a && b && *a * from != *b * to)
      fail(in, "shape " + dims_text(shape) + " of " + dtype_text(dt) + " does not cover the same bytes as " +
                   dims_text(src.shape) + " of " + dtype_text(src.dtype));
    if (ir::loosely_equal(valid, src.shape)) {
      valid = shape;
    } else if (shape.size() == rank) {
      valid[axis] = scale(valid[axis]);
    } else {
      fail(in, "a partially valid source can only be reinterpreted at its own rank");
    }
  } else {
    shape[axis] = scale(shape[axis]);
    valid[axis] = scale(valid[axis]);
  }
  v.valid_shape = valid;
  if (v.pad == ir::PadValue::max || v.pad == ir::PadValue::min) v.pad = ir::PadValue::null;
  v.stride.clear();
  v.start_offset = nullptr;
  return tile(shape, dt, v, src.memory);
}

inline Type set_validshape(const DeduceInput& in) {
  const TileType& src = tile_arg(in, 0);
  if (src.shape.size() != 2) fail(in, "only 2-D tiles are supported, got " + dims_text(src.shape));
  for (std::size_t i = 1; i <= 2; ++i) {
    index_arg(in, i);
    auto c = ir::const_int(arg(in, i));
    auto d = ir::const_int(src.shape[i - 1]);
    if (c && (*c < 0 || (d && *c > *d)))
      fail(in, "valid extent " + std::to_string(*c) + " is outside [0, " + expr_text(src.shape[i - 1]) + "]");
  }
  TileView v = ir::effective_view(src);
  v.valid_shape = {arg(in, 1), arg(in, 2)};
  return tile(src.shape, src.dtype, v, src.memory);
}

inline TileLayout flip(TileLayout l) {
  return l == TileLayout::row_major ? TileLayout::col_major
         : l == TileLayout::col_major ? TileLayout::row_major
                                       : l;
}

inline Type transpose_view(const DeduceInput& in) {
  const TileType& src = tile_arg(in, 0);
  if (src.shape.size() < 2) fail(in, "needs rank >= 2, got " + dims_text(src.shape));
  TileView v = ir::effective_view(src);
  auto shape = src.shape;
  std::size_t n = shape.size();
  std::swap(shape[n - 2], shape[n - 1]);
  std::swap(v.valid_shape[n - 2], v.valid_shape[n - 1]);
  v.blayout = flip(v.blayout);
  v.slayout = flip(v.slayout);
  return tile(shape, src.dtype, v, src.memory);
}

inline Type transpose(const DeduceInput& in) {
  const TileType& src = tile_arg(in, 0);
  auto rank = static_cast<std::int64_t>(src.shape.size());
  if (rank < 2) fail(in, "needs rank >= 2, got " + dims_text(src.shape));
  std::size_t axes[2];
  for (std::size_t i = 0; i < 2; ++i) {
    auto a = ir::const_int(arg(in, i + 1));
    if (!a || *a < -rank || *a >= rank)
      fail(in, arg_label(in, i + 1) + " must be a constant axis in [" + std::to_string(-rank) + ", " +
                   std::to_string(rank) + "), got " + expr_text(arg(in, i + 1)));
    axes[i] = static_cast<std::size_t>(*a < 0 ? *a + rank : *a);
  }
  if (axes[0] == axes[1]) fail(in, "axis1 and axis2 must differ, both are " + std::to_string(axes[0]));
  if (has_arg(in, 3)) {
    const TileType& tmp = tile_arg(in, 3);
    if (tmp.dtype != src.dtype || tmp.shape.size() != src.shape.size())
      fail(in, "tmp " + type_text(arg(in, 3)->type) + " must have the input's dtype and rank");
  }
  auto shape = src.shape;
  std::swap(shape[axes[0]], shape[axes[1]]);
  return tile(shape, src.dtype, default_view());
}

// InferWriteValidShapeUnion (ExactSubview): the union must be an origin-anchored rectangle.
inline std::vector<Expr> write_union(const DeduceInput& in, const std::vector<Expr>& shape,
                                     const std::vector<Expr>& tv, const std::vector<Expr>& off,
                                     const std::vector<Expr>& sv) {
  std::size_t n = shape.size();
  auto proven = [](std::optional<bool> b) { return b && *b; };
  bool empty = false, inside = true, covers = true;
  for (std::size_t i = 0; i < n; ++i) {
    empty = empty || is_const(sv[i], 0);
    inside = inside && proven(prove_le(add(off[i], sv[i]), tv[i]));
    covers = covers && is_const(off[i], 0) && proven(prove_le(tv[i], sv[i]));
  }
  if (empty || inside || ir::loosely_equal(tv, shape)) return tv;
  if (covers) {
    std::vector<Expr> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(min(shape[i], sv[i]));
    return out;
  }
  // Growth along one axis by a write that spans the target's extent on every other axis.
  for (std::size_t d = 0; d < n; ++d) {
    bool ok = proven(prove_le(off[d], tv[d]));
    for (std::size_t i = 0; ok && i < n; ++i)
      if (i != d) ok = is_const(off[i], 0) && same_dim(sv[i], tv[i]);
    if (ok) {
      auto out = tv;
      out[d] = min(shape[d], max(tv[d], add(off[d], sv[d])));
      return out;
    }
  }
  fail(in, "writing valid " + dims_text(sv) + " at offset " + dims_text(off) + " into target valid " +
               dims_text(tv) + " does not leave a rectangular valid region anchored at the origin");
}

inline Type assemble(const DeduceInput& in) {
  const TileType& dst = tile_arg(in, 0);
  const TileType& src = tile_arg(in, 1);
  const auto& off = index_literal(in, 2);
  reject_negative_offsets(in, off);
  bool downcast = src.dtype == DataType::FP32 && (dst.dtype == DataType::BF16 || dst.dtype == DataType::FP16);
  if (src.dtype != dst.dtype && !downcast)
    fail(in, "source dtype " + dtype_text(src.dtype) + " must equal the target dtype " + dtype_text(dst.dtype) +
                 " (only FP32 into BF16/FP16 converts)");
  TileView v = ir::effective_view(dst);
  if (src.shape.size() == dst.shape.size() && off.size() == dst.shape.size()) {
    for (std::size_t i = 0; i < off.size(); ++i) {
      auto end = checked_end(in, off[i], src.shape[i], i);
      auto lim = ir::const_int(dst.shape[i]);
      if (end && lim && *end > *lim)
        fail(in, "source " + dims_text(src.shape) + " at offset " + dims_text(off) +
                     " does not fit the target " + dims_text(dst.shape));
    }
    v.valid_shape = write_union(in, dst.shape, ir::valid_shape(dst), off, ir::valid_shape(src));
  } else {
    v.valid_shape = dst.shape;
  }
  return tile(dst.shape, dst.dtype, v, dst.memory);
}

inline Type concat(const DeduceInput& in) {
  const TileType& a = tile_arg(in, 0);
  const TileType& b = tile_arg(in, 1);
  if (a.shape.size() != 2 || b.shape.size() != 2)
    fail(in, "both sources must be 2-D, got " + dims_text(a.shape) + " and " + dims_text(b.shape));
  if (a.dtype != b.dtype) fail(in, "sources must share a dtype, got " + dtype_text(a.dtype) + " and " + dtype_text(b.dtype));
  if (auto le = prove_le(a.shape[0], b.shape[0]), ge = prove_le(b.shape[0], a.shape[0]);
      (le && !*le) || (ge && !*ge))
    fail(in, "row counts differ: " + dims_text(a.shape) + " and " + dims_text(b.shape));
  return tile({a.shape[0], add(a.shape[1], b.shape[1])}, a.dtype, default_view());
}

}  // namespace deduce

inline void register_tile_view_ops(Registry& r) {
  using M = ir::MemorySpace;
  using K = KwargKind;
  const std::string f = "transform";
  add(r, OpRow("tile.slice", {"input", "shape", "offset", "valid_shape", "drop_dims"}).optional_from(3)
             .kw("pad_value", K::pad_value).out_inherit().noacc().family(f).deduce(deduce::slice));
  add(r, OpRow("tile.reshape", {"input", "shape"}).out_inherit().noacc().family(f).deduce(deduce::reshape));
  add(r, OpRow("tile.reinterpret_view", {"data", "shape"}).optional_from(1).required("dtype", K::dtype)
             .keyword_args_from(1)
             .out_inherit().noacc().family(f).deduce(deduce::reinterpret_view));
  add(r, OpRow("tile.transpose", {"input", "axis1", "axis2", "tmp"}).optional_from(3)
             .out_inherit().nis().family(f).deduce(deduce::transpose));
  add(r, OpRow("tile.transpose_view", {"input"}).out_inherit().noacc().family(f).deduce(deduce::transpose_view));
  add(r, OpRow("tile.assemble", {"target", "source", "offset"}).out_inherit()
             .effect(0, ArgEffect::read_write).family(f).deduce(deduce::assemble));
  add(r, OpRow("tile.set_validshape", {"tile", "valid_rows", "valid_cols"}).out_inherit().noacc()
             .family(f).deduce(deduce::set_validshape));
  add(r, OpRow("tile.concat", {"src0", "src1"}).vec_in({0, 1}).out(M::Vec).func().nis().family(f)
             .deduce(deduce::concat));
  add(r, OpRow("tile.scatter_update", {"input", "index", "src"}).kw("dim", K::integer)
             .vec_in({0, 1, 2}).out(M::Vec).reuse(0).effect(0, ArgEffect::read_write).family(f));
  add(r, OpRow("tile.tget_scale_addr", {"dst_scale", "src"}).out_inherit().reuse(0)
             .effect(0, ArgEffect::write).family("matmul_mx"));
}

}  // namespace tilewright::ops
