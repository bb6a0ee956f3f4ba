#pragma once
// The FlattenTileNdTo2D driver: a RuleWalker on the shared type-mapping mutator, whose type
// map sends every static >2D tile type to its merged 2D form (FL-09, FL-10, FL-13). Because
// the Mutator retypes a Var by minting one replacement used everywhere, Vars, loop iter_args
// and return_vars, and If return_vars all get the 2D type consistently (FL-40…FL-45) without
// a rule; the rules handle the ops whose operands or structure change, through the Rewriter
// the RuleWalker hands them (which also applies the Var rebinds they make). The names of a
// column-packed accumulator (FL-64, FL-65) get the packed type instead, the same way, so one
// chain stays one buffer of one type across blocks and loop carries.
#include <utility>

#include "tilewright/ir/type_map.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/rules.hpp"
#include "tilewright/rewrite/driver.hpp"

namespace tilewright::passes::flatten {

// Over any rule set (the pass runs `flatten_rules`; the rule benchmark compares others).
template <class Rules>
class BasicFlattenWalker : public rewrite::RuleWalker<BasicFlattenWalker<Rules>, Rules, FlattenContext,
                                                      ir::TypeMappingMutator<BasicFlattenWalker<Rules>>> {
  using Base = rewrite::RuleWalker<BasicFlattenWalker<Rules>, Rules, FlattenContext,
                                   ir::TypeMappingMutator<BasicFlattenWalker<Rules>>>;

 public:
  using Base::Base;
  using Base::context;
  using Base::substitute;

  ir::Expr mutate_definition(const ir::Expr& e) {
    const AccPack* pack = context().packing().of(e.get());
    if (!pack) return Base::mutate_definition(e);
    auto* t = ir::tile_type(e);
    auto fields = ir::map_children(e->v, *this);  // an iter_arg's initial value
    ir::Expr fresh = ir::make_expr(fields ? std::move(*fields) : e->v, pack->tile_type(t ? t->memref : nullptr), e->span);
    substitute(e, fresh);
    return fresh;
  }

  // Symbols inside and tuple elements first, then the 2D form of a flattenable tile.
  ir::Type map_type(const ir::Type& t) {
    ir::Type out = Base::map_type(t);
    if (auto* tile = ir::as<ir::TileType>(out); tile && is_flattenable(*tile)) out = flattened_tile_type(*tile);
    return out;
  }
};

using FlattenWalker = BasicFlattenWalker<FlattenRules>;

}  // namespace tilewright::passes::flatten
