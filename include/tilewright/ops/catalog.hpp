#pragma once
// The built-in op catalog: every tile.* op of the upstream table plus the tensor.*,
// system.*, pld.* and array.* ops kernels use. Built once on first use; callers that add
// their own ops copy it (`Registry mine = builtin_registry(); mine.add(...)`).
#include "tilewright/config.hpp"
#include "tilewright/ops/registry.hpp"

namespace tilewright::ops {

// Adds every built-in op to `r`.
TILEWRIGHT_API void register_builtin_ops(Registry& r);
// The registry of the built-in ops, built on first use.
TILEWRIGHT_API const Registry& builtin_registry();

}  // namespace tilewright::ops

#if TILEWRIGHT_DEFINITIONS
#include "tilewright/ops/system_ops.hpp"
#include "tilewright/ops/tensor_ops.hpp"
#include "tilewright/ops/tile_elementwise.hpp"
#include "tilewright/ops/tile_matmul.hpp"
#include "tilewright/ops/tile_memory.hpp"
#include "tilewright/ops/tile_other.hpp"
#include "tilewright/ops/tile_reduce.hpp"
#include "tilewright/ops/tile_view.hpp"

namespace tilewright::ops {

TILEWRIGHT_API void register_builtin_ops(Registry& r) {
  register_tile_memory_ops(r);
  register_tile_view_ops(r);
  register_tile_elementwise_ops(r);
  register_tile_reduce_ops(r);
  register_tile_matmul_ops(r);
  register_tile_other_ops(r);
  register_tensor_ops(r);
  register_system_ops(r);
}

TILEWRIGHT_API const Registry& builtin_registry() {
  static const Registry registry = [] {
    Registry r;
    register_builtin_ops(r);
    return r;
  }();
  return registry;
}

}  // namespace tilewright::ops
#endif  // TILEWRIGHT_DEFINITIONS
