#pragma once
// The passes this library ships, by name, and the default pipeline. This is the only file
// besides the umbrella header that names every pass folder.
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/passes/convert_to_ssa/pass.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/passes/fold_no_op_reshape/pass.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"

namespace tilewright::passes {

inline std::vector<pass::AnyPass> all_passes() {
  return {pass::erase(ConvertToSSA{}), pass::erase(FlattenTileNdTo2D{}), pass::erase(MaterializeTensorStrides{}),
          pass::erase(FoldNoOpReshape{}), pass::erase(CanonicalizeTileSlice{})};
}

// One line per pass, for `tilewright-opt --list-passes`; a pass added to all_passes() gets its
// line here (the lit suite checks that none is missing).
inline std::string_view summary_of(std::string_view pass_name) {
  static constexpr std::pair<std::string_view, std::string_view> lines[] = {
      {"ConvertToSSA", "gives re-assigned names fresh SSA names and turns loop and branch carries into iter_args, yields and return vars"},
      {"FlattenTileNdTo2D", "lowers >2-D tile ops of InCore functions to the 2-D tile ops the hardware executes"},
      {"MaterializeTensorStrides", "gives every tensor view explicit strides derived from its layout (ND, DN, blocked NZ)"},
      {"FoldNoOpReshape", "folds a tile.reshape whose source and result share one buffer and signature into an assignment"},
      {"CanonicalizeTileSlice", "folds canonical tile.slices into their consumers and drops the slices left dead"},
  };
  for (const auto& [name, line] : lines)
    if (name == pass_name) return line;
  return {};
}

// Accepts the Python factory name (`materialize_tensor_strides`) or upstream's CamelCase
// name (`MaterializeTensorStrides`).
inline std::optional<pass::AnyPass> find_pass(std::string_view name) {
  for (auto& p : all_passes())
    if (p.info.factory == name || p.info.name == name) return p;
  return std::nullopt;
}

// The passes that lower a kernel before memory allocation, in upstream's order:
// ConvertToSSA first, as upstream's pipeline starts (the DSL re-assigns names; every later
// pass requires SSA form, and on SSA input it changes nothing); FlattenTileNdTo2D right
// after tile ops exist (seeds 000/003: after
// ConvertTensorToTileOps, before ExpandMixedKernel / InitMemRef), MaterializeTensorStrides
// late, once tile memory is inferred. FoldNoOpReshape is not among them: it needs MemRefs,
// which exist only after allocation.
inline std::vector<pass::AnyPass> default_pipeline() {
  return {pass::erase(ConvertToSSA{}), pass::erase(FlattenTileNdTo2D{}), pass::erase(MaterializeTensorStrides{})};
}

}  // namespace tilewright::passes
