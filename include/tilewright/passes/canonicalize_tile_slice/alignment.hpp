#pragma once
// CT-12…CT-15: may a Vec slice stay a zero-copy view, or must a vector op get a copy?
//
// PTO vector instructions need 32-byte aligned operands. A slice that is not copied starts at
//   base + (row * base_cols + col) * storage_bits
// inside its base tile, so `math::window_address_bits` decides — modulo 256 bits — from the
// base tile's MemRef offset, its column extent and dtype, and the two offsets. A symbolic
// offset is reduced to a *known multiple* (CT-14), found by following scalar SSA definitions
// through aliases, + , - and *: `bi * 16` is a multiple of 16, so an FP32 column offset of
// `bi * 16` moves by 64-byte steps and stays aligned. Whatever cannot be proven is copied.
#include <cstdint>
#include <optional>

#include "tilewright/ir/geometry.hpp"
#include "tilewright/math/alignment.hpp"
#include "tilewright/passes/canonicalize_tile_slice/slice.hpp"

namespace tilewright::passes::canonicalize {

// CT-14, memoized per Var so each scalar definition is followed once per function.
class KnownMultiples {
 public:
  explicit KnownMultiples(const ByVar<ir::Expr>& scalar_defs) : defs_(&scalar_defs) {}

  // A number in [1, 256] that divides every value `e` can take.
  std::int64_t of(const ir::Expr& e) { return of(e, 0); }

 private:
  // A definition chain deeper than this is treated as unknown (a conservative answer: the
  // slice is copied) rather than risking the stack.
  static constexpr int max_depth = 512;

  std::int64_t of(const ir::Expr& e, int depth) {
    if (auto c = ir::const_int(e)) return math::known_multiple_of_constant(*c);
    if (depth > max_depth) return math::k_unknown_multiple;
    if (ir::is_var_like(e)) {
      auto def = defs_->find(e.get());
      if (def == defs_->end()) return math::k_unknown_multiple;  // parameter, loop variable, …
      auto [it, fresh] = memo_.emplace(e.get(), math::k_unknown_multiple);  // also the cycle guard
      if (!fresh) return it->second;
      const std::int64_t m = of(def->second, depth + 1);
      memo_[e.get()] = m;
      return m;
    }
    if (auto* b = ir::as<ir::Binary>(e)) {
      switch (b->op) {
        case ir::BinaryOp::Add:
          return math::known_multiple_add(of(b->lhs, depth + 1), of(b->rhs, depth + 1));
        case ir::BinaryOp::Sub:
          return math::known_multiple_sub(of(b->lhs, depth + 1), of(b->rhs, depth + 1));
        case ir::BinaryOp::Mul:
          return math::known_multiple_mul(of(b->lhs, depth + 1), of(b->rhs, depth + 1));
        default:
          break;
      }
    }
    return math::k_unknown_multiple;
  }

  const ByVar<ir::Expr>* defs_;
  ByVar<std::int64_t> memo_;
};

// CT-13: true when the zero-copy address of `window` is provably on a 32-byte boundary.
inline bool is_provably_aligned(const Window& window, KnownMultiples& multiples) {
  const ir::TileType* base = ir::tile_type(window.base);
  if (!base || base->shape.size() != 2) return false;
  const std::int64_t element_bits = math::storage_bits(base->dtype);
  // No MemRef yet: the allocator will place the tile aligned.
  std::optional<std::int64_t> base_bits = 0;
  if (auto* memref = ir::as<ir::MemRef>(base->memref))
    base_bits = math::base_offset_bits(ir::const_int(memref->offset));
  auto fact = [&](const ir::Expr& offset) {
    auto c = ir::const_int(offset);
    return c ? math::index_fact::constant(*c) : math::index_fact::symbolic(multiples.of(offset));
  };
  return math::is_provably_aligned(base_bits, fact(window.row), fact(window.col),
                                   ir::const_int(base->shape[1]), element_bits);
}

}  // namespace tilewright::passes::canonicalize
