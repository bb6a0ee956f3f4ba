#pragma once
// FoldNoOpReshape (seed 002; FR-01…FR-06).
//
// After memory allocation a `tile.reshape` whose result lives in the same allocation as its
// source and declares the very same tile buffer (TileBufSignature) moves no data: the
// statement becomes a plain alias `lhs = src`.
#include "tilewright/ir/geometry.hpp"
#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/walk.hpp"
#include "tilewright/pass/pass.hpp"

namespace tilewright::passes {

// FR-05: the signature PTO's alloc_tile declaration would carry for this tile type.
inline math::tile_buf_signature tile_buf_signature(const ir::TileType& t) {
  std::optional<math::signature_view> view;
  if (t.view) {
    view = math::signature_view{ir::to_math(t.view->blayout), ir::to_math(t.view->slayout), t.view->fractal,
                                static_cast<math::pad_value>(t.view->pad),
                                static_cast<math::compact_mode>(t.view->compact), {}};
    for (const auto& d : t.view->valid_shape) {
      if (view->valid.size() == 2) break;  // axes beyond two are not part of the signature
      auto c = ir::const_int(d);
      view->valid.push_back(c ? math::maybe_i64(*c) : math::maybe_i64());
    }
  }
  auto dims = ir::maybe_dims(t.shape);
  std::optional<math::memory_space> space;
  if (t.memory) space = ir::to_math(*t.memory);
  return math::signature_from_dims(space, ir::to_math(t.dtype), std::span<const math::maybe_i64>(dims), view);
}

namespace fold_detail {

// The allocation a tile lives in: the Ptr Var at the root of its MemRef.
inline const ir::ExprNode* memref_root(const ir::TileType& t) noexcept {
  auto* m = ir::as<ir::MemRef>(t.memref);
  return m && m->base ? m->base.get() : nullptr;
}

// FR-02: the four conditions under which `lhs = tile.reshape(src, shape)` is a no-op.
inline ir::Expr foldable_source(const ir::Assign& a) {
  static const ir::OpId reshape = ir::intern_op("tile.reshape");
  auto* call = ir::as<ir::Call>(a.value);
  if (!call || call->callee.op != reshape || call->args.size() != 2) return nullptr;
  const ir::Expr& src = call->args[0];
  if (!ir::is_var_like(src)) return nullptr;
  auto* lhs_t = ir::as<ir::TileType>(a.var->type);
  auto* src_t = ir::as<ir::TileType>(src->type);
  if (!lhs_t || !src_t) return nullptr;
  const ir::ExprNode* root = memref_root(*lhs_t);
  if (!root || root != memref_root(*src_t)) return nullptr;
  if (!(tile_buf_signature(*lhs_t) == tile_buf_signature(*src_t))) return nullptr;
  return src;
}

struct Folder : ir::Mutator<Folder> {
  std::uint64_t folded = 0;
  ir::Stmt rewrite_stmt(const ir::Stmt& rebuilt, const ir::Stmt&) {
    auto* a = ir::as<ir::Assign>(rebuilt);
    if (!a) return rebuilt;  // FR-02: reshapes in an Eval are left alone
    ir::Expr src = foldable_source(*a);
    if (!src) return rebuilt;
    ++folded;
    return ir::make_stmt(ir::Assign{a->var, src}, rebuilt->span);  // FR-03
  }
};

}  // namespace fold_detail

struct FoldNoOpReshape : pass::FunctionPass<FoldNoOpReshape> {
  static constexpr pass::PassInfo info{
      "FoldNoOpReshape",
      "fold_no_op_reshape",
      pass::PassLevel::function,
      {pass::Property::SplitIncoreOrch, pass::Property::IncoreTileOps, pass::Property::HasMemRefs,
       pass::Property::TileOps2D},
      {},
      {}};

  // FR-01: only InCore/AIC/AIV functions; an unchanged body keeps the function object.
  ir::Function run_function(const ir::Function& f, pass::PassContext& ctx) const {
    if (!ir::is_incore(f->type) || !f->body) return f;
    fold_detail::Folder folder;
    ir::Stmt body = folder.mutate_stmt(f->body);
    ctx.stats.add(info.name, "reshapes folded", folder.folded);
    if (body == f->body) return f;
    ir::FunctionNode copy = *f;
    copy.body = std::move(body);
    return ir::make_function(std::move(copy));
  }
};

inline constexpr FoldNoOpReshape fold_no_op_reshape{};

}  // namespace tilewright::passes
