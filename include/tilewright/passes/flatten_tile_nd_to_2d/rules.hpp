#pragma once
// FlattenTileNdTo2D's rule set: one rule per op family, tried on the statements rooted at
// their ops after the walker substituted operands and mapped types. The statements the
// batched-matmul plan drops and the addressing of packed accumulators come first (benefit
// 2); the generic rule comes last (benefit 0) for every other tile op. The local rewrites
// (create/full, reshape, store, assemble, the generic re-deduction) are declarative rules;
// loads, transposes and batched matmuls, which emit code shaped by the analysis, are
// hand-written. All receive the same Rewriter.
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/assemble.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/batch_matmul.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/create.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/dropped.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/generic.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/load.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/packed_accumulator.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/reshape.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/store.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules/transpose.hpp"
#include "tilewright/rewrite/rule.hpp"

namespace tilewright::passes::flatten {

inline constexpr auto flatten_rules =
    rewrite::rule_set(FlattenDroppedStatement{}, FlattenPackedAccumulator{}, FlattenMatmulOperandLoad{},
                      FlattenLoad{}, flatten_store_nd_tile,
                      flatten_store, flatten_create, flatten_assemble, FlattenTranspose{}, flatten_reshape,
                      FlattenBatchMatmul{}, flatten_generic_tile_op);

using FlattenRules = std::remove_const_t<decltype(flatten_rules)>;

}  // namespace tilewright::passes::flatten
