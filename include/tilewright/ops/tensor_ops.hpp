#pragma once
// tensor.* ops the kernels and the passes use: view, create, reshape, full, the
// element-wise arithmetic the orchestration level writes, and the split-reshape pair.
#include <optional>

#include "tilewright/math/strides.hpp"
#include "tilewright/ops/builder.hpp"
#include "tilewright/ops/deduce.hpp"

namespace tilewright::ops {

namespace deduce {

// Packed strides of `shape` in `layout` (ND row-major; DN swaps the trailing pair; a rank-1
// DN view packs as ND), by the one recurrence of math/strides.hpp.
inline std::vector<Expr> canonical_strides(const std::vector<Expr>& shape, ir::TensorLayout layout) {
  std::vector<Expr> s(shape.size());
  const bool dn = layout == ir::TensorLayout::DN && shape.size() >= 2;
  math::packed_strides_into(s, shape, dn, idx(1),
                            [](const Expr& a, const Expr& b) { return std::optional<Expr>(mul(a, b)); });
  return s;
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
    shape = tuple_values(in, 1);
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
  auto shape = tuple_values(in, 0);
  for (const auto& d : shape) {
    auto* s = ir::as<ir::ScalarType>(d->type);
    if (!s || !ir::is_integer(s->dtype)) fail(in, "shape entries must be integer scalars, got " + dims_text(shape));
  }
  DataType dt = required_dtype(in, "dtype");
  auto layout = kw<ir::TensorLayout>(in, "layout").value_or(ir::TensorLayout::ND);
  std::optional<ir::TensorView> view;
  if (layout != ir::TensorLayout::ND) view = ir::TensorView{{}, {}, layout, ir::PadValue::null};
  return ir::make_tensor_type(shape, dt, view);
}

inline Type tensor_reshape(const DeduceInput& in) {
  const TensorType& src = tensor_arg(in, 0);
  auto shape = tuple_values(in, 1);
  auto a = static_product(src.shape), b = static_product(shape);
  if (a && b && *a != *b)
    fail(in, "cannot reshape " + dims_text(src.shape) + " (" + std::to_string(*a) + " elements) to " +
                 dims_text(shape) + " (" + std::to_string(*b) + " elements)");
  if (!ir::loosely_equal(ir::valid_shape(src), src.shape))
    fail(in, "source valid shape " + dims_text(ir::valid_shape(src)) + " is partial; use tensor.view with a valid shape");
  return ir::make_tensor_type(shape, src.dtype);
}

inline Type tensor_full(const DeduceInput& in) {
  auto shape = tuple_values(in, 0);
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
  for (const char* n : {"tensor.slice", "tensor.assemble", "tensor.read", "tensor.write", "tensor.transpose",
                        "tensor.matmul", "tensor.exp"})
    add(r, OpRow(n, {}).variadic().open_kwargs().family(f));
  add(r, OpRow("tensor.cast", {}).variadic().open_kwargs().kw("mode", K::cast_mode).family(f));
}

}  // namespace tilewright::ops
