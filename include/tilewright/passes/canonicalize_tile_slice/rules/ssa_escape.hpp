#pragma once
// CT-16, CT-17b: an unaligned Vec slice must not reach a vector op under another name. A
// plain alias of one is itself turned into the copy (the alias keeps its Var, so its readers
// need nothing); a yield of one copies it first, so the next iteration — or the code after
// the loop or branch — reads an aligned tile.
//   s = slice(t, [16, 1], [0, 1]);  a = s          →  a = extract(t, 0, 1, [16, 1],
//   target_memory=Vec) acc_rv = pl.yield_(s)                           →  s_textract = extract(…);
//   acc_rv = pl.yield_(s_textract)
// A loop initializer is the third escape (CT-17a); it needs the loop header and is handled by
// the walker (walker.hpp).
#include "tilewright/passes/canonicalize_tile_slice/context.hpp"
#include "tilewright/rewrite/rule.hpp"

namespace tilewright::passes::canonicalize {

namespace escape_detail {
using rewrite::placeholders::_x;
using rewrite::placeholders::_y;

// The slice `e` names when it is one that must be copied before a vector op reads it.
inline const Slice* unaligned_slice(CanonicalizeContext& ctx, const ir::Expr& e) {
  const Slice* s = ctx.slice_of(e);
  return s && ctx.needs_aligned_copy(*s) ? s : nullptr;
}
}  // namespace escape_detail

inline constexpr auto unaligned_alias_copy = rewrite::rule(
    "copy-unaligned-alias", rewrite::assign(escape_detail::_y, escape_detail::_x),
    rewrite::when<escape_detail::_x>(
        [](CanonicalizeContext& ctx, const ir::Stmt&, const ir::Expr& x) {
          return escape_detail::unaligned_slice(ctx, x) != nullptr;
        }),
    rewrite::with<escape_detail::_y, escape_detail::_x>(
        [](CanonicalizeContext& ctx, const ir::Stmt& root, const ir::Expr&, const ir::Expr& x) {
          // The alias keeps its Var (and so its readers); its value becomes the copy.
          return CanonicalizeContext::with_value(
              root, ctx.extract_call(*escape_detail::unaligned_slice(ctx, x), ir::MemorySpace::Vec,
                                     root->span));
        }));

struct UnalignedYieldCopy {
  static constexpr std::string_view name = "copy-unaligned-yield";
  static constexpr auto roots = rewrite::any_stmt;  // a yield runs no op

  ir::Stmt apply(CanonicalizeContext& ctx, rewrite::Rewriter& rw, const ir::Stmt& stmt) const {
    auto* yield = ir::as<ir::Yield>(stmt);
    if (!yield) return nullptr;
    std::vector<ir::Expr> values = yield->values;
    bool copied = false;
    for (auto& v : values) {
      const Slice* s = escape_detail::unaligned_slice(ctx, v);
      if (!s) continue;
      auto [copy, var] = ctx.extract_stmt(*s, ir::MemorySpace::Vec, stmt->span);
      rw.emit(std::move(copy));
      v = std::move(var);
      copied = true;
    }
    if (!copied) return nullptr;
    return ir::make_stmt(ir::Yield{std::move(values)}, stmt->span, stmt->comments);
  }
};

}  // namespace tilewright::passes::canonicalize
