#pragma once
// The passes this library ships, by name, and the default pipeline. This is the only file
// besides the umbrella header that names every pass folder.
#include <optional>
#include <string_view>
#include <vector>

#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/passes/fold_no_op_reshape/pass.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"

namespace tilewright::passes {

inline std::vector<pass::AnyPass> all_passes() {
  return {pass::erase(FlattenTileNdTo2D{}), pass::erase(MaterializeTensorStrides{}), pass::erase(FoldNoOpReshape{}),
          pass::erase(CanonicalizeTileSlice{})};
}

// Accepts the Python factory name (`materialize_tensor_strides`) or upstream's CamelCase
// name (`MaterializeTensorStrides`).
inline std::optional<pass::AnyPass> find_pass(std::string_view name) {
  for (auto& p : all_passes())
    if (p.info.factory == name || p.info.name == name) return p;
  return std::nullopt;
}

// The passes that lower a kernel before memory allocation, in upstream's order:
// FlattenTileNdTo2D runs right after tile ops exist (seeds 000/003: after
// ConvertTensorToTileOps, before ExpandMixedKernel / InitMemRef), MaterializeTensorStrides
// late, once tile memory is inferred. FoldNoOpReshape is not among them: it needs MemRefs,
// which exist only after allocation.
inline std::vector<pass::AnyPass> default_pipeline() {
  return {pass::erase(FlattenTileNdTo2D{}), pass::erase(MaterializeTensorStrides{})};
}

}  // namespace tilewright::passes
