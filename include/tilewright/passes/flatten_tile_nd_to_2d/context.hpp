#pragma once
// What FlattenTileNdTo2D's rules share besides the Rewriter every rule receives: the backend
// and the analysis's plans (batched-matmul routes and drops, packed accumulators).
//
// Rules see the statement after the walker substituted its operands and mapped its types
// (see walker.hpp); the rewriter has the statement as written too (rw.original()): the
// pre-flatten tile dims of a store, the ND target of an assemble. A rule that gives a
// statement's result a new type (re-deduction can differ from the mapped annotation) goes
// through rw.replace, which re-types and rebinds the Var for later uses.
#include <cstdint>

#include "tilewright/backend/backend.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/analysis.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/op_ids.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/shape.hpp"
#include "tilewright/rewrite/rewriter.hpp"

namespace tilewright::passes::flatten {

class FlattenContext {
 public:
  explicit FlattenContext(backend::BackendInfo backend, const FunctionAnalysis* analysis = nullptr)
      : backend_(backend), analysis_(analysis ? analysis : &no_analysis()) {}

  [[nodiscard]] const backend::BackendInfo& backend() const noexcept { return backend_; }
  [[nodiscard]] const BatchMatmulPlan& batch_plan() const noexcept { return analysis_->batch; }
  [[nodiscard]] const AccPacking& packing() const noexcept { return analysis_->packing; }
  // The geometry the analysis computed (and checked) for the batched matmul `site`, or null.
  [[nodiscard]] const BatchGeometry* batch_geometry_of(const ir::StmtNode* site) const {
    auto it = analysis_->geometries.find(site);
    return it == analysis_->geometries.end() ? nullptr : &it->second;
  }

  // Loads of a >2D tile that no rule rewrites: the walker's type mapping alone gives them the
  // 2D tile (FL-13). Counted so that --stats accounts for every retyped load.
  void count_retyped_load() noexcept { ++retyped_loads_; }
  [[nodiscard]] std::uint64_t retyped_loads() const noexcept { return retyped_loads_; }

 private:
  static const FunctionAnalysis& no_analysis() {
    static const FunctionAnalysis none;
    return none;
  }

  backend::BackendInfo backend_;
  const FunctionAnalysis* analysis_;
  std::uint64_t retyped_loads_ = 0;
};

// The original result type / the type of argument `i` of the statement being rewritten,
// before flattening.
inline const ir::TileType* original_result_tile(const rewrite::Rewriter& rw) noexcept {
  return ir::tile_type(rw.original_value());
}
inline const ir::TileType* original_arg_tile(const rewrite::Rewriter& rw, std::size_t i) noexcept {
  const ir::Call* call = rw.original_call();
  return call && i < call->args.size() ? ir::tile_type(call->args[i]) : nullptr;
}

}  // namespace tilewright::passes::flatten
