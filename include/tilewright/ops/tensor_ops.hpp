#pragma once
// tensor.* ops the kernels and the passes use: view, create, reshape, full, the
// element-wise arithmetic the orchestration level writes, and the split-reshape pair.
#include <algorithm>
#include <functional>
#include <optional>

#include "tilewright/ir/index_arith.hpp"
#include "tilewright/ops/builder.hpp"
#include "tilewright/ops/deduce.hpp"

namespace tilewright::ops {

namespace deduce {

// Packed strides of `shape` in `layout` (ND row-major; DN swaps the trailing pair; a rank-1
// DN view packs as ND), by the one recurrence of math/strides.hpp.
inline std::vector<Expr> canonical_strides(const std::vector<Expr>& shape, ir::TensorLayout layout) {
  return ir::packed_strides(shape, layout == ir::TensorLayout::DN && shape.size() >= 2);
}

// Canonical = unit stride on the innermost axis (last for ND, penultimate for DN) and each
// further axis in memory order at least as far apart as the span of the previous one.
inline bool strides_canonical(const std::vector<Expr>& stride, const std::vector<Expr>& shape,
                              ir::TensorLayout layout) {
  if (stride.empty()) return true;
  std::size_t n = shape.size();
  if (stride.size() != n || n == 0) return false;
  std::vector<std::size_t> order;
  if (layout == ir::TensorLayout::DN && n >= 2) order = {n - 2, n - 1};
  for (std::size_t k = n; k-- > 0;)
    if (!(layout == ir::TensorLayout::DN && n >= 2 && k + 2 >= n)) order.push_back(k);
  if (!is_const(stride[order[0]], 1)) return false;
  for (std::size_t i = 0; i + 1 < order.size(); ++i)
    if (prove_le(mul(stride[order[i]], shape[order[i]]), stride[order[i + 1]]) == false) return false;
  return true;
}

// The `shape` operand of an op that makes a tensor: integer scalars (a type's dims are).
inline std::vector<Expr> tensor_shape_arg(const DeduceInput& in, std::size_t i) {
  auto shape = tuple_values(in, i);
  for (const auto& d : shape) {
    auto* s = ir::as<ir::ScalarType>(d->type);
    if (!s || !ir::is_integer(s->dtype))
      fail(in, "shape entries must be integer scalars, but " + expr_text(d) + " is not");
  }
  return shape;
}

inline Type tensor_view(const DeduceInput& in) {
  const TensorType& src = tensor_arg(in, 0);
  auto layout_kw = kw<ir::TensorLayout>(in, "layout");
  if (!has_arg(in, 1) && !layout_kw) fail(in, "needs a new shape or a layout=");
  ir::TensorLayout from = src.view ? src.view->layout : ir::TensorLayout::ND;
  ir::TensorLayout to = layout_kw.value_or(from);
  for (auto l : {from, to}) {
    if (l == ir::TensorLayout::NZ || l == ir::TensorLayout::MX_A_ZZ || l == ir::TensorLayout::MX_B_NN)
      fail(in, "layout " + std::string(ir::name_of(l)) + " cannot be viewed; only ND and DN are supported");
  }
  std::vector<Expr> src_stride = src.view ? src.view->stride : std::vector<Expr>{};
  if (!strides_canonical(src_stride, src.shape, from))
    fail(in, "source strides " + dims_text(src_stride) + " are not canonical for " + dims_text(src.shape));
  const auto& sv = ir::valid_shape(src);
  bool partial = !ir::loosely_equal(sv, src.shape);
  ir::TensorView v{};
  v.layout = to;
  v.pad = src.view ? src.view->pad : ir::PadValue::null;
  std::vector<Expr> shape;
  if (has_arg(in, 1)) {
    shape = tensor_shape_arg(in, 1);
    for (const auto& d : shape)
      if (auto c = ir::const_int(d); c && *c <= 0) fail(in, "shape " + dims_text(shape) + " must be positive");
    auto a = static_product(src.shape), b = static_product(shape);
    if (a && b && *a != *b)
      fail(in, "cannot view " + dims_text(src.shape) + " (" + std::to_string(*a) + " elements) as " +
                   dims_text(shape) + " (" + std::to_string(*b) + " elements)");
    if (!src_stride.empty() && !ir::loosely_equal(src_stride, canonical_strides(src.shape, from)))
      fail(in, "reshaping needs a packed source; strides " + dims_text(src_stride) + " leave gaps");
    v.stride = canonical_strides(shape, to);
    if (has_arg(in, 2)) {
      v.valid_shape = tuple_values(in, 2);
      // An empty tuple is "fully valid" (upstream prints one when only a pad is carried).
      if (!v.valid_shape.empty() && v.valid_shape.size() != shape.size())
        fail(in, "valid_shape " + dims_text(v.valid_shape) + " must have the rank of " + dims_text(shape));
    } else if (partial) {
      fail(in, "source valid shape " + dims_text(sv) + " is partial; pass the collapsed valid shape explicitly");
    } else {
      v.pad = ir::PadValue::null;
    }
  } else {
    shape = src.shape;
    v.valid_shape = sv;
    if (to != from) {
      if (shape.size() < 2) fail(in, "changing the layout needs rank >= 2, got " + dims_text(shape));
      std::size_t n = shape.size();
      std::swap(shape[n - 2], shape[n - 1]);
      std::swap(v.valid_shape[n - 2], v.valid_shape[n - 1]);
      if (!src_stride.empty()) {
        v.stride = src_stride;
        std::swap(v.stride[n - 2], v.stride[n - 1]);
      }
    } else {
      v.stride = src_stride;
    }
    if (v.stride.empty()) v.stride = canonical_strides(shape, to);
  }
  return ir::make_tensor_type(shape, src.dtype, v, src.memref, src.distributed);
}

inline Type tensor_create(const DeduceInput& in) {
  auto shape = tensor_shape_arg(in, 0);
  DataType dt = required_dtype(in, "dtype");
  auto layout = kw<ir::TensorLayout>(in, "layout").value_or(ir::TensorLayout::ND);
  std::optional<ir::TensorView> view;
  if (layout != ir::TensorLayout::ND) view = ir::TensorView{{}, {}, layout, ir::PadValue::null};
  return ir::make_tensor_type(shape, dt, view);
}

inline Type tensor_reshape(const DeduceInput& in) {
  const TensorType& src = tensor_arg(in, 0);
  auto shape = tensor_shape_arg(in, 1);
  auto a = static_product(src.shape), b = static_product(shape);
  if (a && b && *a != *b)
    fail(in, "cannot reshape " + dims_text(src.shape) + " (" + std::to_string(*a) + " elements) to " +
                 dims_text(shape) + " (" + std::to_string(*b) + " elements)");
  if (!ir::loosely_equal(ir::valid_shape(src), src.shape))
    fail(in, "source valid shape " + dims_text(ir::valid_shape(src)) + " is partial; use tensor.view with a valid shape");
  return ir::make_tensor_type(shape, src.dtype);
}

inline Type tensor_full(const DeduceInput& in) {
  auto shape = tensor_shape_arg(in, 0);
  return ir::make_tensor_type(shape, required_dtype(in, "dtype"));
}

inline Type tensor_binary(const DeduceInput& in) {
  const TensorType& a = tensor_arg(in, 0);
  if (auto* b = ir::tensor_type(arg(in, 1))) {
    auto shape = broadcast_shapes(a.shape, b->shape);
    if (!shape) fail(in, "shapes " + dims_text(a.shape) + " and " + dims_text(b->shape) + " do not broadcast");
    return ir::make_tensor_type(*shape, ir::promote(a.dtype, b->dtype));
  }
  scalar_arg(in, 1);
  return ir::make_tensor_type(a.shape, a.dtype);
}

// A window of a tensor: the `shape` it asks for at `offset`, in the source's dtype. Strides
// and memref are not carried (a later pass materializes strides); a view is kept only for a
// partial valid region (the requested one, cut by a partial source) or a pad value.
inline Type tensor_slice(const DeduceInput& in) {
  const TensorType& src = tensor_arg(in, 0);
  auto shape = index_tuple(in, 1);
  auto offset = index_tuple(in, 2);
  if (shape.size() != src.shape.size() || offset.size() != src.shape.size())
    fail(in, "shape " + dims_text(shape) + " and offset " + dims_text(offset) + " must both have the source rank " +
                 std::to_string(src.shape.size()) + " (source " + dims_text(src.shape) + ")");
  for (const auto& d : shape)
    if (auto c = ir::const_int(d); c && *c <= 0) fail(in, "shape " + dims_text(shape) + " must be positive");
  std::vector<Expr> requested;
  if (has_arg(in, 3)) requested = index_tuple(in, 3);  // an empty tuple: the whole window
  if (!requested.empty() && requested.size() != shape.size())
    fail(in, "valid_shape " + dims_text(requested) + " must have rank " + std::to_string(shape.size()));
  auto pad = kw<ir::PadValue>(in, "pad_value");
  const bool clamp = kw_flag(in, "clamp") || !requested.empty() || pad.has_value();
  std::vector<Expr> valid = window_read_valid(in, src.shape, ir::valid_shape(src), offset, shape,
                                              requested.empty() ? nullptr : &requested, /*exact=*/true, clamp);
  if (has_arg(in, 4)) {
    std::vector<std::size_t> drop;
    for (const auto& d : literal_tuple(in, 4)) {
      auto k = ir::const_int(d);
      if (!k || *k < 0 || static_cast<std::size_t>(*k) >= shape.size() || !is_const(shape[static_cast<std::size_t>(*k)], 1))
        fail(in, "drop_dims may name only axes of extent 1 in " + dims_text(shape) + ", got " + expr_text(d));
      drop.push_back(static_cast<std::size_t>(*k));
    }
    std::sort(drop.begin(), drop.end(), std::greater<>());
    drop.erase(std::unique(drop.begin(), drop.end()), drop.end());
    for (std::size_t k : drop) {
      shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(k));
      valid.erase(valid.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  ir::PadValue inherited = src.view ? src.view->pad : ir::PadValue::null;
  std::optional<ir::TensorView> view;
  const bool partial = !ir::loosely_equal(valid, shape);
  if (partial || pad || inherited != ir::PadValue::null)
    view = ir::TensorView{partial ? valid : std::vector<Expr>{}, {}, ir::TensorLayout::ND, pad.value_or(inherited)};
  return ir::make_tensor_type(shape, src.dtype, view, nullptr, src.distributed);
}

// Reductions of one axis (`axis`, counted from the end when negative; `keep_dim` keeps it as
// extent 1). The reduced axis is valid on its one element, the others as in the input.
inline Type tensor_reduce(const DeduceInput& in, int default_axis, bool arg_index) {
  const TensorType& src = tensor_arg(in, 0);
  const auto rank = static_cast<std::int64_t>(src.shape.size());
  std::int64_t axis = kw<std::int64_t>(in, "axis").value_or(default_axis);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    fail(in, "axis " + std::to_string(kw<std::int64_t>(in, "axis").value_or(default_axis)) +
                 " is out of range for " + dims_text(src.shape));
  const auto& sv = ir::valid_shape(src);
  reject_empty_valid(in, sv);
  const bool keep = kw<bool>(in, "keep_dim").value_or(true);
  std::vector<Expr> shape, valid;
  for (std::int64_t k = 0; k < rank; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (k != axis) {
      shape.push_back(src.shape[i]);
      valid.push_back(sv[i]);
    } else if (keep) {
      shape.push_back(idx(1));
      valid.push_back(idx(1));
    }
  }
  const DataType dt = arg_index ? DataType::INT32 : src.dtype;
  if (shape.empty()) return ir::scalar_type(dt);
  std::optional<ir::TensorView> view;
  if (!ir::loosely_equal(valid, shape)) view = ir::TensorView{valid, {}, ir::TensorLayout::ND, ir::PadValue::null};
  return ir::make_tensor_type(shape, dt, view);
}

inline Type tensor_read(const DeduceInput& in) {
  const TensorType& t = tensor_arg(in, 0);
  check_element_indices(in, t.shape.size(), "tensor");
  return ir::scalar_type(t.dtype);
}

inline Type tensor_write(const DeduceInput& in) {
  const TensorType& t = tensor_arg(in, 0);
  check_element_indices(in, t.shape.size(), "tensor");
  check_written_value(in, t.dtype, "tensor");
  return arg(in, 0)->type;
}

}  // namespace deduce

inline void register_tensor_ops(Registry& r) {
  using K = KwargKind;
  const std::string f = "tensor";
  add(r, OpRow("tensor.view", {"input", "shape", "valid_shape"}).optional_from(1).kw("layout", K::tensor_layout)
             .out_inherit().noacc().family(f).deduce(deduce::tensor_view));
  add(r, OpRow("tensor.create", {"shape"}).required("dtype", K::dtype)
             .kw("layout", K::tensor_layout, ir::TensorLayout::ND).kw("manual_dep", K::boolean, false)
             .kw("init_value", K::floating).unified_name("create_tensor").family(f)
             .deduce(deduce::tensor_create));
  add(r, OpRow("tensor.reshape", {"input", "shape"}).out_inherit().noacc().family(f).deduce(deduce::tensor_reshape));
  add(r, OpRow("tensor.full", {"shape", "value"}).required("dtype", K::dtype).keyword_args_from(1)
             .bare_number_keywords().family(f).deduce(deduce::tensor_full));
  for (const char* n : {"tensor.sub", "tensor.mul", "tensor.div", "tensor.maximum", "tensor.minimum",
                        "tensor.adds", "tensor.subs", "tensor.muls", "tensor.divs"})
    add(r, OpRow(n, {"lhs", "rhs"}).family(f).deduce(deduce::tensor_binary));
  // A tensor.add of a number literal prints as `pl.tensor.adds` (upstream's printer).
  add(r, OpRow("tensor.add", {"lhs", "rhs"}).number_operand_name("tensor.adds").family(f)
             .deduce(deduce::tensor_binary));
  for (const char* n : {"tensor.aiv_shard", "tensor.aic_gather"})
    add(r, OpRow(n, {"tensor"}).kw("split", K::integer).kwarg_implied_by_split_aiv("split")
               .family("cross_core"));
  add(r, OpRow("tensor.alloc", {"memory_space", "size"}).kw("pinned", K::boolean, false)
             .memory_space_arg(0).family(f)
             .deduce([](const DeduceInput&) { return ir::marker_type(ir::Marker::Ptr); }));
  add(r, OpRow("tensor.reinterpret_view", {"data", "shape"}).optional_from(1).required("dtype", K::dtype)
             .keyword_args_from(1).family(f));
  add(r, OpRow("tensor.slice", {"input", "shape", "offset", "valid_shape", "drop_dims"}).optional_from(3)
             .kw("pad_value", K::pad_value).kw("clamp", K::boolean).out_inherit().family(f)
             .deduce(deduce::tensor_slice));
  add(r, OpRow("tensor.read", {"tensor", "indices"}).family(f).deduce(deduce::tensor_read));
  add(r, OpRow("tensor.write", {"tensor", "indices", "value"}).effect(0, ArgEffect::read_write).family(f)
             .deduce(deduce::tensor_write));
  struct Reduction {
    const char* name;
    int axis;
    bool arg_index;
  };
  for (Reduction d : {Reduction{"tensor.row_sum", -1, false}, Reduction{"tensor.row_max", -1, false},
                      Reduction{"tensor.row_min", -1, false}, Reduction{"tensor.row_prod", -1, false},
                      Reduction{"tensor.col_sum", -2, false}, Reduction{"tensor.col_max", -2, false},
                      Reduction{"tensor.col_min", -2, false}, Reduction{"tensor.col_prod", -2, false},
                      Reduction{"tensor.row_argmax", -1, true}, Reduction{"tensor.row_argmin", -1, true},
                      Reduction{"tensor.col_argmax", -2, true}, Reduction{"tensor.col_argmin", -2, true}})
    add(r, OpRow(d.name, {"input"}).kw("axis", K::integer).kw("keep_dim", K::boolean)
               .family(f).deduce([d](const DeduceInput& in) { return deduce::tensor_reduce(in, d.axis, d.arg_index); }));
  for (const char* n : {"tensor.assemble", "tensor.transpose", "tensor.matmul", "tensor.exp"})
    add(r, OpRow(n, {}).variadic().open_kwargs().family(f));
  add(r, OpRow("tensor.cast", {}).variadic().open_kwargs().kw("mode", K::cast_mode).family(f));
}

}  // namespace tilewright::ops
