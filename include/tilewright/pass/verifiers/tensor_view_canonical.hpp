#pragma once
// TensorViewCanonical (VC-01…VC-06): every tensor type reachable in every function carries
// a canonical view. Strict mode also demands materialized strides (what
// MaterializeTensorStrides establishes); weak mode accepts an empty stride.
//
// NZ on a tensor is legal only in the blocked rank-5 form (seed 001); an unblocked NZ view
// is reported here.
#include <unordered_set>

#include "tilewright/ir/geometry.hpp"
#include "tilewright/pass/verifiers/common.hpp"

namespace tilewright::pass::verifiers {

struct TensorViewProblem {
  std::string reason;  // empty: canonical
  // Explicit strides are the text's (MaterializeTensorStrides keeps them as written, MT-06),
  // so a contradictory one is the input's fault: a user error at the tensor, not a broken
  // invariant.
  bool user = false;
};

// Why a tensor type is not canonical; an empty reason when it is.
inline TensorViewProblem tensor_view_problem(const ir::TensorType& t, bool require_materialized) {
  if (!t.view) return {};  // VC-02: a bare tensor is implicitly packed ND
  const ir::TensorView& v = *t.view;
  auto shape = ir::maybe_dims(t.shape);
  if (v.layout == ir::TensorLayout::NZ &&
      !math::is_blocked_nz_shape(std::span<const math::maybe_i64>(shape), ir::byte_width(t.dtype)))
    return {"TensorType has NZ layout that is not blocked (NZ is legal on a tensor only in the blocked rank-5 "
            "form [B, C/c0, R/16, 16, c0])"};  // VC-03, seed 001
  if (v.stride.empty()) {
    if (require_materialized && !t.shape.empty())  // VC-04
      return {"TensorView.stride is empty (must be materialized via MaterializeTensorStrides before reaching "
              "this point)"};
    return {};
  }
  auto stride = ir::maybe_dims(v.stride);
  math::view_check check = math::check_canonical_view(shape, stride, v.layout, true);
  if (check.ok()) return {};
  std::string written = "[";
  for (std::size_t i = 0; i < stride.size(); ++i)
    written += (i ? ", " : "") + (stride[i] ? std::to_string(*stride[i]) : std::string("?"));
  return {"TensorView non-canonical: " + math::view_reason_text(check) + "; the strides " + written +
              "] were written in the program and are kept as written, so correct them or the layout",
          true};  // VC-05
}

inline ir::Diagnostics verify_tensor_view_canonical(const ir::Program& program, bool require_materialized) {
  ir::Diagnostics out;
  for (const auto& f : program->functions) {
    std::unordered_set<const ir::TypeNode*> seen;  // types are shared: check each once
    auto check_type = [&](auto& self, const ir::Type& type, const ir::Span& span) -> void {
      if (!type || !seen.insert(type.get()).second) return;
      if (auto* t = ir::as<ir::TensorType>(type)) {
        if (auto problem = tensor_view_problem(*t, require_materialized); !problem.reason.empty())
          out.push_back(ir::Diagnostic{ir::Severity::error,
                                       problem.user ? ir::ErrorKind::user : ir::ErrorKind::internal,
                                       "TensorViewCanonical", "in function '" + f->name + "': " + problem.reason,
                                       span, {}});
      } else if (auto* tup = ir::as<ir::TupleType>(type)) {
        for (const auto& e : tup->elements) self(self, e, span);
      }
    };
    for (const auto& p : f->params) check_type(check_type, p.var->type, p.var->span);
    for (const auto& r : f->return_types) check_type(check_type, r, f->span);
    ir::walk(
        f->body, [](const ir::Stmt&) { return true; },
        [&](const ir::Expr& e) {
          if (ir::is_var_like(e) || ir::as<ir::Call>(e)) check_type(check_type, e->type, e->span);
          return !ir::is_closed(e);  // constants and their tuples hold no Var or Call
        });
    ir::for_each_stmt(f->body, [&](const ir::Stmt& s) {
      auto defs = [&](const std::vector<ir::Expr>& vs) { for (const auto& v : vs) check_type(check_type, v->type, s->span); };
      if (auto* a = ir::as<ir::Assign>(s)) check_type(check_type, a->var->type, s->span);
      else if (auto* l = ir::as<ir::For>(s)) { defs(l->iter_args); defs(l->return_vars); }
      else if (auto* w = ir::as<ir::While>(s)) { defs(w->iter_args); defs(w->return_vars); }
      else if (auto* i = ir::as<ir::If>(s)) defs(i->return_vars);
    });
  }
  return out;
}

}  // namespace tilewright::pass::verifiers
