#pragma once
// How an annotation meets the type its value deduces (text_format §6.4): in
// `x: T = value` the deduced type is x's type where T is silent; T wins only where it says
// something deduction cannot (a memref, a memory space or a view of a tile, the flattened
// shape FlattenTileNdTo2D prints, a tensor view, a scalar dtype for an INDEX value); any
// other disagreement in kind, dtype, rank or a static dim is an error in the text.
//
// One rule serves every place the text states a type next to a value: assignments, yield
// targets and return statements.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/ir/index_arith.hpp"
#include "tilewright/text/parse/values.hpp"

namespace tilewright::text::parser_detail {

struct Reconciled {
  Type type;            // the type the value's name gets
  bool annotation_wins = false;
  std::string problem;  // why the two cannot be one type; empty when they can
};

namespace annotation_detail {

// The element count of a static shape; nullopt when a dim is not static. A count past
// INT64_MAX saturates there (written "more than 2^63 - 1"): it still differs from any real one.
inline constexpr std::int64_t k_saturated = std::numeric_limits<std::int64_t>::max();

inline std::optional<std::int64_t> element_count(const std::vector<Expr>& shape) {
  std::int64_t n = 1;
  bool saturated = false;
  for (const auto& d : shape) {
    auto c = ir::const_int(d);
    if (!c || *c < 0) return std::nullopt;
    if (*c == 0) return 0;
    if (saturated || n > k_saturated / *c) saturated = true;
    else n *= *c;
  }
  return saturated ? k_saturated : n;
}

inline std::string count_text(std::int64_t n) {
  return n == k_saturated ? std::string("more than 2^63 - 1") : std::to_string(n);
}

inline std::string dtype_mismatch(ir::DataType ann, ir::DataType val) {
  return "its dtype is pl." + std::string(ir::name_of(ann)) + " but the value's is pl." +
         std::string(ir::name_of(val));
}

// Same rank: every static dim agrees. Another rank: the static element counts agree.
inline std::string shape_problem(const std::vector<Expr>& ann, const std::vector<Expr>& val,
                                 bool other_rank_ok) {
  if (ann.size() == val.size()) {
    for (std::size_t i = 0; i < ann.size(); ++i) {
      auto a = ir::const_int(ann[i]), v = ir::const_int(val[i]);
      if (a && v && *a != *v)
        return "dim " + std::to_string(i) + " is " + std::to_string(*a) + " but the value's is " +
               std::to_string(*v);
    }
    return {};
  }
  if (!other_rank_ok)
    return "it has rank " + std::to_string(ann.size()) + " but the value has rank " +
           std::to_string(val.size());
  auto a = element_count(ann), v = element_count(val);
  if (a && v && *a != *v)
    return "it holds " + count_text(*a) + " elements but the value holds " + count_text(*v);
  return {};
}

inline bool ptr_like(const Type& t) {
  auto* m = ir::as<ir::MarkerType>(t);
  return m && (m->kind == ir::Marker::Ptr || m->kind == ir::Marker::MemRefType);
}

}  // namespace annotation_detail

inline Reconciled reconcile_annotation(const Type& ann, const Type& val) {
  namespace d = annotation_detail;
  if (!ann || ir::as<ir::UnknownType>(ann)) return {val, false, {}};
  if (!val || ir::as<ir::UnknownType>(val)) return {ann, true, {}};
  if (d::ptr_like(ann) && d::ptr_like(val)) return {ann, true, {}};
  if (ann->v.index() != val->v.index()) return {val, false, "the value is of another kind"};

  if (auto* a = ir::as<ir::ScalarType>(ann)) {
    ir::DataType v = ir::as<ir::ScalarType>(val)->dtype;
    if (a->dtype == v) return {val, false, {}};
    // An INDEX value (an int literal, index arithmetic) takes the annotated dtype.
    if (v == ir::DataType::INDEX || ir::same_index_class(a->dtype, v)) return {ann, true, {}};
    return {val, false, d::dtype_mismatch(a->dtype, v)};
  }
  if (auto* a = ir::as<ir::TileType>(ann)) {
    const auto& v = *ir::as<ir::TileType>(val);
    if (a->dtype != v.dtype) return {val, false, d::dtype_mismatch(a->dtype, v.dtype)};
    if (auto p = d::shape_problem(a->shape, v.shape, /*other_rank_ok=*/true); !p.empty())
      return {val, false, p};
    bool same_shape = ir::loosely_equal(a->shape, v.shape);
    if (!a->memref && !a->memory && !a->view && same_shape) return {val, false, {}};
    // The annotation first; deduction fills what it leaves open. When deduction has nothing
    // to fill (the printer's usual `pl.Tile[[..], dtype, pl.Mem.Vec]` over a value without a
    // view), the merge is the annotation itself: no new type per line.
    if ((a->view || !v.view) && (a->memory || !v.memory)) return {ann, true, {}};
    std::optional<ir::TileView> view = a->view;
    if (!view && v.view) {
      if (same_shape) {
        view = v.view;
      } else {
        // The flattened form: the value's layout carries over to the new shape, its valid
        // region, strides and offset (written for the value's shape) do not. Dropping the
        // layout would make the text unstable: once a pass gives both sides one shape, the
        // reparse would merge the layout back in.
        const ir::TileView& w = *v.view;
        view = ir::TileView{{}, {}, nullptr, w.blayout, w.slayout, w.fractal, w.pad, w.compact};
      }
    }
    auto memory = a->memory ? a->memory : v.memory;
    return {ir::make_tile_type(a->shape, a->dtype, std::move(view), memory, a->memref), true, {}};
  }
  if (auto* a = ir::as<ir::TensorType>(ann)) {
    const auto& v = *ir::as<ir::TensorType>(val);
    if (a->distributed != v.distributed)
      return {val, false, a->distributed ? "it is distributed but the value is not"
                                         : "the value is distributed but it is not"};
    if (a->dtype != v.dtype) return {val, false, d::dtype_mismatch(a->dtype, v.dtype)};
    if (auto p = d::shape_problem(a->shape, v.shape, /*other_rank_ok=*/false); !p.empty())
      return {val, false, p};
    // An annotation may say more about a tensor's view than deduction does, never the
    // opposite of it: a store's result is its target tensor, and `o: [.., DN view] = store(.., nd)`
    // would have later writes through `o` address the buffer in another order than the
    // same writes through the store's deduced type (a fuzz finding: FlattenTileNdTo2D re-deduces).
    if (a->view) {
      const ir::TensorLayout theirs = v.view ? v.view->layout : ir::TensorLayout::ND;
      if (a->view->layout != theirs)
        return {val, false, "its layout is " + std::string(enum_names(a->view->layout).name(a->view->layout)) +
                                " but the value's is " + std::string(enum_names(theirs).name(theirs))};
      const bool explicit_strides = v.view && !v.view->stride.empty();
      const bool packed = theirs == ir::TensorLayout::ND || theirs == ir::TensorLayout::DN;
      const std::vector<Expr> value_strides =
          explicit_strides ? v.view->stride
          : packed         ? ir::packed_strides(v.shape, theirs == ir::TensorLayout::DN && v.shape.size() >= 2)
                           : std::vector<Expr>{};
      if (!a->view->stride.empty() && a->view->stride.size() == value_strides.size() &&
          !ir::loosely_equal(a->view->stride, value_strides))
        return {val, false, "its strides differ from the value's"};
    }
    // A bare annotation over a deduced view (a tensor.view's packed strides) keeps the view:
    // upstream's expected programs write `x: pl.Tensor[[6, 2], pl.FP16] = pl.tensor.view(...)`.
    if (a->memref || a->view) return {ann, true, {}};
    return {val, false, {}};
  }
  if (auto* a = ir::as<ir::ArrayType>(ann)) {
    const auto& v = *ir::as<ir::ArrayType>(val);
    if (a->dtype != v.dtype) return {val, false, d::dtype_mismatch(a->dtype, v.dtype)};
    if (a->extent != v.extent)
      return {val, false, "its extent is " + std::to_string(a->extent) + " but the value's is " +
                              std::to_string(v.extent)};
    return {val, false, {}};
  }
  if (auto* a = ir::as<ir::TupleType>(ann)) {
    const auto& v = *ir::as<ir::TupleType>(val);
    if (a->elements.size() != v.elements.size())
      return {val, false, "it has " + std::to_string(a->elements.size()) +
                              " elements but the value has " + std::to_string(v.elements.size())};
    std::vector<Type> out;
    bool wins = false;
    for (std::size_t i = 0; i < a->elements.size(); ++i) {
      Reconciled r = reconcile_annotation(a->elements[i], v.elements[i]);
      if (!r.problem.empty())
        return {val, false, "element " + std::to_string(i) + ": " + r.problem};
      wins = wins || r.annotation_wins;
      out.push_back(std::move(r.type));
    }
    return {wins ? ir::make_type(ir::TupleType{std::move(out)}) : val, wins, {}};
  }
  if (auto* a = ir::as<ir::MarkerType>(ann)) {
    if (a->kind != ir::as<ir::MarkerType>(val)->kind) return {val, false, "the value is another marker type"};
    return {val, false, {}};
  }
  return {val, false, {}};
}

}  // namespace tilewright::text::parser_detail
