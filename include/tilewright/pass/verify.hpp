#pragma once
// Property → verifier. `verify(set, program)` runs the verifier of every property in the set.
// `verify(Property, …)` is compiled once in the compiled mode (tilewright/config.hpp).
#include "tilewright/config.hpp"
#include "tilewright/pass/property.hpp"
#include "tilewright/pass/verifiers/memory.hpp"
#include "tilewright/pass/verifiers/ssa_form.hpp"
#include "tilewright/pass/verifiers/structure.hpp"
#include "tilewright/pass/verifiers/tensor_view_canonical.hpp"
#include "tilewright/pass/verifiers/tile_ops_2d.hpp"

namespace tilewright::pass {

// The findings of `p`'s verifier on `program`; empty when it holds.
TILEWRIGHT_API ir::Diagnostics verify(Property p, const ir::Program& program);

#if TILEWRIGHT_DEFINITIONS
TILEWRIGHT_API ir::Diagnostics verify(Property p, const ir::Program& program) {
  switch (p) {
    case Property::SSAForm: return verifiers::verify_ssa_form(program);
    case Property::SplitIncoreOrch: return verifiers::verify_split_incore_orch(program);
    case Property::IncoreTileOps: return verifiers::verify_incore_tile_ops(program);
    case Property::TileOps2D: return verifiers::verify_tile_ops_2d(program);
    case Property::TileMemoryInferred: return verifiers::verify_tile_memory_inferred(program);
    case Property::NormalizedStmtStructure: return verifiers::verify_normalized_stmt_structure(program);
    case Property::HasMemRefs: return verifiers::verify_has_memrefs(program);
    case Property::TensorViewCanonical: return verifiers::verify_tensor_view_canonical(program, true);
  }
  return {};
}
#endif  // TILEWRIGHT_DEFINITIONS

inline ir::Diagnostics verify(PropertySet set, const ir::Program& program) {
  ir::Diagnostics out;
  set.for_each([&](Property p) {
    auto d = verify(p, program);
    out.insert(out.end(), d.begin(), d.end());
  });
  return out;
}

// The properties whose verifiers accept `program`: what a program read from text provides
// to the first pass of a pipeline (tilewright-opt checks the pipeline order against it).
inline PropertySet verified_properties(const ir::Program& program) {
  PropertySet out;
  for (std::size_t i = 0; i < property_count; ++i)
    if (auto p = static_cast<Property>(i); verify(p, program).empty()) out = out | PropertySet{p};
  return out;
}

}  // namespace tilewright::pass
