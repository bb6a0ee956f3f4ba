#pragma once
// CanonicalizeTileSlice, phase 3 (CT-18): canonical slices nobody reads any more are removed.
//
// Once its consumers read the base tile directly a slice is dead; a slice whose source is a
// slice only frees that source when it goes itself. Visiting the slices from last to first
// settles such chains in one pass over them: a dead slice returns its read of its source
// before the source is looked at. One count of the uses, one rebuild of the statement lists —
// no repeated sweeps. A slice something still reads (a consumer this pass leaves alone, such
// as tile.move of a Mat slice) stays, and so do non-canonical slices: they were never ours.
#include <unordered_set>

#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/passes/canonicalize_tile_slice/analysis.hpp"
#include "tilewright/rewrite/use_count.hpp"

namespace tilewright::passes::canonicalize {

namespace dead_detail {

using VarSet = std::unordered_set<const ir::ExprNode*>;

// Rebuilds statement lists without the dead definitions; expressions are not entered.
class DeadSliceDropper : public ir::Mutator<DeadSliceDropper> {
 public:
  explicit DeadSliceDropper(const VarSet& dead) : dead_(&dead) {}

  ir::Expr mutate_expr(const ir::Expr& e) { return e; }

  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& /*original*/) {
    auto* seq = ir::as<ir::Seq>(rebuilt);
    if (!seq) return rebuilt;
    std::vector<ir::Stmt> kept;
    kept.reserve(seq->stmts.size());
    for (const auto& s : seq->stmts)
      if (!is_dead(s)) kept.push_back(s);
    if (kept.size() == seq->stmts.size()) return rebuilt;
    return ir::make_seq(std::move(kept), rebuilt->span);
  }

  [[nodiscard]] bool is_dead(const ir::Stmt& s) const {
    auto* a = ir::as<ir::Assign>(s);
    return a && dead_->contains(a->var.get());
  }

 private:
  const VarSet* dead_;
};

}  // namespace dead_detail

inline ir::Stmt drop_dead_slices(const ir::Stmt& body, const SliceAnalysis& analysis) {
  rewrite::use_count_table uses = rewrite::count_uses(body);
  // The slices still defined in a statement list (only those can be taken out of one), each
  // with the operand it reads *now*: a loop initializer's redirection (CT-17a) may have
  // changed it, and a dying slice hands back the read it really makes.
  ByVar<const ir::ExprNode*> listed;
  ir::for_each_stmt(body, [&](const ir::Stmt& s) {
    if (auto* seq = ir::as<ir::Seq>(s))
      for (const auto& child : seq->stmts)
        if (auto* a = ir::as<ir::Assign>(child); a && analysis.slices.contains(a->var.get()))
          if (auto* call = ir::as<ir::Call>(a->value); call && !call->args.empty())
            listed.emplace(a->var.get(), call->args[0].get());
  });
  dead_detail::VarSet dead;
  for (auto it = analysis.order.rbegin(); it != analysis.order.rend(); ++it) {
    auto slice = listed.find(*it);
    if (slice == listed.end()) continue;
    if (auto count = uses.find(*it); count != uses.end() && count->second != 0) continue;
    dead.insert(*it);
    if (auto source = uses.find(slice->second); source != uses.end() && source->second > 0)
      --source->second;
  }
  if (dead.empty()) return body;
  dead_detail::DeadSliceDropper dropper(dead);
  return dropper.mutate_stmt(body);
}

}  // namespace tilewright::passes::canonicalize
