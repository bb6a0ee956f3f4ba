#pragma once
// The passes this library ships, by name, and the default pipeline. This is the only file
// besides the umbrella header that names every pass folder.
//
// In the compiled mode (tilewright/config.hpp) all_passes, find_pass and default_pipeline are
// compiled in src/tilewright.cpp, so a driver that takes its passes from here, by name, does
// not compile the passes itself.
#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/config.hpp"
#include "tilewright/pass/pipeline.hpp"

namespace tilewright::passes {

// Every pass this library ships.
TILEWRIGHT_API std::vector<pass::AnyPass> all_passes();
// Accepts the Python factory name (`materialize_tensor_strides`), the same in kebab case as
// mlir-opt users type pass names (`materialize-tensor-strides`), or upstream's CamelCase name
// (`MaterializeTensorStrides`).
TILEWRIGHT_API std::optional<pass::AnyPass> find_pass(std::string_view name);

// A pass name as find_pass compares it with the factory names: kebab case read as snake case.
inline std::string pass_key(std::string_view name) {
  std::string key(name);
  std::replace(key.begin(), key.end(), '-', '_');
  return key;
}
// The passes that lower a kernel before memory allocation, in upstream's order.
TILEWRIGHT_API std::vector<pass::AnyPass> default_pipeline();

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

}  // namespace tilewright::passes

#if TILEWRIGHT_DEFINITIONS
#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/passes/convert_to_ssa/pass.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/passes/fold_no_op_reshape/pass.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"

namespace tilewright::passes {

TILEWRIGHT_API std::vector<pass::AnyPass> all_passes() {
  return {pass::erase(ConvertToSSA{}), pass::erase(FlattenTileNdTo2D{}), pass::erase(MaterializeTensorStrides{}),
          pass::erase(FoldNoOpReshape{}), pass::erase(CanonicalizeTileSlice{})};
}

TILEWRIGHT_API std::optional<pass::AnyPass> find_pass(std::string_view name) {
  const std::string key = pass_key(name);
  for (auto& p : all_passes())
    if (p.info.factory == key || p.info.name == name) return p;
  return std::nullopt;
}

// The passes that lower a kernel before memory allocation, in upstream's order:
// ConvertToSSA first, as upstream's pipeline starts (the DSL re-assigns names; every later
// pass requires SSA form, and on SSA input it changes nothing); FlattenTileNdTo2D right
// after tile ops exist (seeds 000/003: after
// ConvertTensorToTileOps, before ExpandMixedKernel / InitMemRef), MaterializeTensorStrides
// late, once tile memory is inferred. FoldNoOpReshape is not among them: it needs MemRefs,
// which exist only after allocation.
TILEWRIGHT_API std::vector<pass::AnyPass> default_pipeline() {
  return {pass::erase(ConvertToSSA{}), pass::erase(FlattenTileNdTo2D{}), pass::erase(MaterializeTensorStrides{})};
}

}  // namespace tilewright::passes
#endif  // TILEWRIGHT_DEFINITIONS
