#pragma once
// The result of a store that re-assigns a parameter. SSAForm lets a function assign a
// parameter once at its top level (`out_0 = pl.tile.store(t, [0, 0, 0], out_0)`, seed 000's
// input); the Var on the left is then the parameter itself. Upstream rebuilds every tile.store
// of a function it flattens with a result Var of its own, so in its output the parameter is
// the store's destination only and the reads after the store take the new Var (printed
// `out_0_1` beside the parameter `out_0`). We do the same, so that the def-use structure of
// our output is upstream's; a store whose result already has a Var of its own needs nothing.
#include <unordered_set>

#include "tilewright/ir/function.hpp"
#include "tilewright/ir/mutate.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/op_ids.hpp"

namespace tilewright::passes::flatten {

namespace detail {

// Top-level statements only, through scopes (they are transparent): the verifier allows the
// parameter's assignment nowhere else, and inside a loop or branch a new Var would not reach
// the reads after it.
class StoreResultSplitter : public ir::Mutator<StoreResultSplitter> {
 public:
  StoreResultSplitter(const ir::FunctionNode& f, ir::OpId store) : store_(store) {
    for (const auto& p : f.params)
      if (p.var) params_.insert(p.var.get());
  }

  [[nodiscard]] bool wanted(const ir::Stmt& s) const {
    if (auto* q = ir::as<ir::Seq>(s)) {
      for (const auto& c : q->stmts)
        if (wanted(c)) return true;
      return false;
    }
    if (auto* sc = ir::as<ir::Scope>(s)) return wanted(sc->body);
    return splits(s);
  }

  ir::Stmt mutate_stmt(const ir::Stmt& s) {
    const bool nests = ir::as<ir::For>(s) || ir::as<ir::While>(s) || ir::as<ir::If>(s);
    depth_ += nests ? 1 : 0;
    ir::Stmt out = Mutator::mutate_stmt(s);
    depth_ -= nests ? 1 : 0;
    return out;
  }

  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& /*original*/) {
    if (depth_ > 0 || !splits(rebuilt)) return rebuilt;
    const auto& a = *ir::as<ir::Assign>(rebuilt);
    ir::Expr result = ir::make_var(std::string(ir::name_hint(a.var)), a.var->type, a.var->span);
    ir::Stmt out = ir::make_stmt(ir::Assign{result, a.value}, rebuilt->span, rebuilt->comments);
    substitute(a.var, std::move(result));  // the statements after this one read the result
    params_.erase(a.var.get());
    return out;
  }

 private:
  ir::OpId store_;
  std::unordered_set<const ir::ExprNode*> params_;
  int depth_ = 0;

  [[nodiscard]] bool splits(const ir::Stmt& s) const {
    auto* a = ir::as<ir::Assign>(s);
    auto* call = a ? ir::as<ir::Call>(a->value) : nullptr;
    return call && call->callee.op == store_ && params_.count(a->var.get());
  }
};

}  // namespace detail

// `body` with each top-level store into a re-assigned parameter given a result Var of its own.
inline ir::Stmt split_store_results(const ir::FunctionNode& f, const ir::Stmt& body, ir::OpId store) {
  detail::StoreResultSplitter splitter(f, store);
  if (!splitter.wanted(body)) return body;
  return splitter.mutate_stmt(body);
}

}  // namespace tilewright::passes::flatten
