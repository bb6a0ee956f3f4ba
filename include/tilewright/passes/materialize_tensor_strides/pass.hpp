#pragma once
// MaterializeTensorStrides (seed 001; MT-01…MT-13).
//
// Every tensor type that carries a view with an empty stride gets the packed stride of its
// layout written out: ND (and the MX packs) row-major, DN column-major over the trailing
// pair, NZ row-major over its blocked rank-5 shape. Bare tensors, explicit strides and all
// other types keep their identity. Calls keep their own (now materialized) result type and
// are never re-deduced: re-deduction would undo the 2D load types FlattenTileNdTo2D wrote.
// The whole pass is one type mapping on the shared ir::TypeMappingMutator (each distinct type
// node materialized once); no rule is needed, since no statement changes but through types.
#include "tilewright/ir/geometry.hpp"
#include "tilewright/ir/index_arith.hpp"
#include "tilewright/ir/type_map.hpp"
#include "tilewright/math/strides.hpp"
#include "tilewright/pass/pass.hpp"

namespace tilewright::passes {

namespace materialize_detail {

// Packed strides of `shape` under `layout`, symbolic dims kept as symbols (MT-03/04).
inline std::vector<ir::Expr> packed_strides(const std::vector<ir::Expr>& shape, ir::TensorLayout layout,
                                            const ir::Span& span) {
  const std::size_t n = shape.size();
  const bool dn = layout == ir::TensorLayout::DN;
  if (dn && n == 1)  // a rank-0 tensor has no strides in any layout
    ir::throw_user_error("MaterializeTensorStrides",
                         math::dn_rank_message({math::strides_errc::dn_rank_below_two, n, 0}) +
                             "; annotate a rank-1 tensor as ND",
                         span);
  return ir::packed_strides(shape, dn);
}

// The pass is one type mapping (materialized once per distinct type node), plus the span of
// the statement or expression being walked for its one diagnostic.
class Materializer : public ir::TypeMappingMutator<Materializer> {
 public:
  explicit Materializer(const ir::Span& fallback) : fallback_span_(fallback) {}

  // map_type keeps scalars, and rebuilds a tuple only when an element changed: the walk may
  // skip constants and tuples of them (ir::Mutator::constants_stay).
  static constexpr bool constant_types_stay = true;

  void at(const ir::Span& span) { current_span_ = span.known() ? span : fallback_span_; }

  ir::Type map_type(const ir::Type& t) {
    if (auto* tensor = ir::as<ir::TensorType>(t)) return materialize(*tensor, t);
    if (ir::as<ir::TupleType>(t)) return TypeMappingMutator::map_type(t);  // MT-12: rebuilt only if an element changed
    return t;
  }

  // The span of what is being walked, noted on the way down (the walk's entry for every
  // child), for the diagnostic raised in map_type.
  using TypeMappingMutator::changed_child;
  ir::Expr changed_child(const ir::Expr& e) {
    if (e) at(e->span);
    return TypeMappingMutator::changed_child(e);
  }
  ir::Stmt changed_child(const ir::Stmt& s) {
    if (s) at(s->span);
    return TypeMappingMutator::changed_child(s);
  }

 private:
  ir::Type materialize(const ir::TensorType& tensor, const ir::Type& t) {
    if (!tensor.view) return t;  // MT-02: bare tensor = implicit packed ND
    const ir::TensorView& view = *tensor.view;
    if (view.layout == ir::TensorLayout::NZ) {  // MT-08: checked before the stride short-cut
      auto dims = ir::maybe_dims(tensor.shape);
      if (!math::is_blocked_nz_shape(std::span<const math::maybe_i64>(dims), ir::byte_width(tensor.dtype))) {
        // Seed 001 and MT-08: a tensor gets NZ only from BlockNzTensorViews, in blocked form, so an
        // unblocked one means that pass did not run first: a pass-ordering invariant, reported as
        // upstream's InternalError, located at the annotation when it has one (issue 35).
        ir::throw_internal_error(
            "MaterializeTensorStrides",
            "NZ layout is tile-only and not allowed on a tensor type unless blocked, and this view is not "
            "blocked (the rank-5 form [B, C/c0, R/16, 16, c0] that BlockNzTensorViews produces): that pass "
            "must run first; or annotate the tensor as pl.TensorLayout.ND or DN and produce NZ on a tile",
            current_span_);
      }
    }
    if (!view.stride.empty()) return t;  // MT-06: explicit strides are kept, unvalidated
    ir::TensorView next = view;
    next.stride = packed_strides(tensor.shape, view.layout, current_span_);
    return ir::make_tensor_type(tensor.shape, tensor.dtype, std::move(next), tensor.memref,
                                tensor.distributed);  // MT-09: memref, pad, distributed kept
  }

  ir::Span fallback_span_;
  ir::Span current_span_;
};

}  // namespace materialize_detail

struct MaterializeTensorStrides {
  static constexpr pass::PassInfo info{
      "MaterializeTensorStrides",
      "materialize_tensor_strides",
      pass::PassLevel::program,
      {pass::Property::SSAForm, pass::Property::SplitIncoreOrch, pass::Property::IncoreTileOps,
       pass::Property::TileOps2D, pass::Property::TileMemoryInferred, pass::Property::NormalizedStmtStructure},
      {pass::Property::SSAForm, pass::Property::SplitIncoreOrch, pass::Property::IncoreTileOps,
       pass::Property::TileOps2D, pass::Property::TileMemoryInferred, pass::Property::NormalizedStmtStructure,
       pass::Property::TensorViewCanonical},
      {}};

  // MT-01: every function, whatever its kind. MT-13: an unchanged program is returned as
  // itself, so a second run is the identity.
  ir::Program operator()(const ir::Program& program, pass::PassContext& ctx) const {
    std::vector<ir::Function> functions;
    functions.reserve(program->functions.size());
    bool changed = false;
    for (const auto& f : program->functions) {
      materialize_detail::Materializer m(f->span);
      ir::Function next = m.mutate_function(f);
      if (next != f) {
        changed = true;
        ctx.stats.add(info.name, "functions changed");
      }
      functions.push_back(std::move(next));
    }
    return changed ? ir::make_program(program->name, std::move(functions)) : program;
  }
};

inline constexpr MaterializeTensorStrides materialize_tensor_strides{};

}  // namespace tilewright::passes
