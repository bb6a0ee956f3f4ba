#pragma once
// CanonicalizeTileSlice's rule set, one rule per consumer family. A statement is offered to
// the rules rooted at its op in this order and the first that rewrites it wins (the order of
// the catalog: extract fold, matmul operand, col_expand operand, unaligned operand), then to
// the two SSA-escape rules, which look at aliases and yields.
#include "tilewright/passes/canonicalize_tile_slice/rules/col_expand.hpp"
#include "tilewright/passes/canonicalize_tile_slice/rules/extract_fold.hpp"
#include "tilewright/passes/canonicalize_tile_slice/rules/matmul_operand.hpp"
#include "tilewright/passes/canonicalize_tile_slice/rules/ssa_escape.hpp"
#include "tilewright/passes/canonicalize_tile_slice/rules/unaligned_operand.hpp"
#include "tilewright/rewrite/rule.hpp"

namespace tilewright::passes::canonicalize {

inline constexpr auto canonicalize_rules =
    rewrite::rule_set(FoldSliceIntoExtract{}, MatSliceMatmulOperand{}, ColExpandOperandCopy{},
                      UnalignedOperandCopy{}, unaligned_alias_copy, UnalignedYieldCopy{});

using CanonicalizeRules = std::remove_const_t<decltype(canonicalize_rules)>;

}  // namespace tilewright::passes::canonicalize
