#pragma once
// The FlattenTileNdTo2D driver: a RuleWalker whose type hook maps every static >2D tile type
// to its merged 2D form (FL-09, FL-10, FL-13). Because the Mutator retypes a Var by minting
// one replacement used everywhere, Vars, loop iter_args and return_vars, and If return_vars
// all get the 2D type consistently (FL-40…FL-45) without a rule; the rules handle the ops
// whose operands or structure change. Before the rules see a statement the walker records
// the statement as written in the context; afterwards it applies the Var rebinds they made.
// The names of a column-packed accumulator (FL-64, FL-65) get the packed type instead, the
// same way, so one chain stays one buffer of one type across blocks and loop carries.
#include <unordered_map>
#include <utility>

#include "tilewright/passes/flatten_tile_nd_to_2d/rules.hpp"
#include "tilewright/rewrite/driver.hpp"

namespace tilewright::passes::flatten {

class FlattenWalker : public rewrite::RuleWalker<FlattenWalker, FlattenRules, FlattenContext> {
 public:
  FlattenWalker(FlattenRules rules, FlattenContext& ctx) : RuleWalker(std::move(rules), ctx) {
    ctx.set_resolver([this](const ir::Expr& e) { return mutate_expr(e); });
  }
  // The context holds a pointer back to this walker.
  FlattenWalker(const FlattenWalker&) = delete;
  FlattenWalker& operator=(const FlattenWalker&) = delete;

  ir::Expr mutate_definition(const ir::Expr& e) {
    const AccPack* pack = context().packing().of(e.get());
    if (!pack) return ir::Mutator<FlattenWalker>::mutate_definition(e);
    auto* t = ir::tile_type(e);
    auto fields = ir::map_children(e->v, *this);  // an iter_arg's initial value
    ir::Expr fresh = ir::make_expr(fields ? std::move(*fields) : e->v, pack->tile_type(t ? t->memref : nullptr), e->span);
    substitute(e, fresh);
    return fresh;
  }

  ir::Type mutate_type(const ir::Type& t) {
    if (!t) return t;
    // Types are shared between Vars, Calls and signatures: map each node once. The entry
    // keeps its key alive, so a freed type's address can never alias a live one.
    if (auto it = mapped_.find(t.get()); it != mapped_.end()) return it->second.second;
    ir::Type out = ir::Mutator<FlattenWalker>::mutate_type(t);  // symbols inside, tuple elements
    if (auto* tile = ir::as<ir::TileType>(out); tile && is_flattenable(*tile)) out = flattened_tile_type(*tile);
    mapped_.emplace(t.get(), std::pair{t, out});
    return out;
  }

  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt& original) {
    if (!ir::stmt_call(original)) return rebuilt;
    context().begin(original);
    ir::Stmt out = RuleWalker::rewrite_stmt(rebuilt, original);
    for (auto& [from, to] : context().take_rebinds()) substitute(from, std::move(to));
    return out;
  }

 private:
  std::unordered_map<const ir::TypeNode*, std::pair<ir::Type, ir::Type>> mapped_;
};

}  // namespace tilewright::passes::flatten
