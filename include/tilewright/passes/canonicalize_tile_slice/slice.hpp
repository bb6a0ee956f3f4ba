#pragma once
// What CanonicalizeTileSlice knows about one `tile.slice`: the window it names (CT-04/CT-05).
//
// `v = tile.slice(src, shape, [row, col])` is a zero-copy view of `src`. A slice of a slice
// is peeled: its window is stated against the first tile in the chain that is not itself a
// recorded slice, with the offsets summed, so every rewrite can read that tile directly.
//   s1 = slice(lm, [24, 256], [8, 0]);  s2 = slice(s1, [16, 256], [4, 0])
//   → s2 names lm at (12, 0)
#include <optional>
#include <string_view>

#include "tilewright/ir/index_arith.hpp"
#include "tilewright/ir/node_map.hpp"

namespace tilewright::passes::canonicalize {

inline constexpr std::string_view pass_name = "CanonicalizeTileSlice";

// A rectangle of `base` starting at (row, col); its extent is the type of whatever names it.
struct Window {
  ir::Expr base;  // Var-like, never itself a recorded slice
  ir::Expr row;
  ir::Expr col;
  // Reached through a loop carry: exact on the loop's first trip only (the carry names what
  // the body yields afterwards). The accumulator check covers the other trips itself (CT-24);
  // an address proof cannot rely on it.
  bool first_trip_only = false;

  // Provably the same bytes: the same parent and offsets that are one expression or equal
  // constants (CT-23).
  [[nodiscard]] bool same_as(const Window& o) const noexcept {
    auto same = [](const ir::Expr& a, const ir::Expr& b) {
      if (a == b) return true;
      auto ca = ir::const_int(a), cb = ir::const_int(b);
      return ca && cb && *ca == *cb;
    };
    return base == o.base && same(row, o.row) && same(col, o.col);
  }
};

// A canonical three-operand slice: the ones this pass rewrites.
struct Slice {
  ir::Expr var;   // the slice result
  Window window;  // against the first tile of its chain that is not a canonical slice
  // Where its bytes really start: `window` when that tile is an allocation of its own; when it
  // is itself a view (a valid_shape slice, an alias or view op over a slice), the window
  // composed down to the allocation — or nullopt when that cannot be traced. Address and
  // layout verdicts read this, rewrites read `window`.
  std::optional<Window> physical;

  [[nodiscard]] const ir::TileType& type() const noexcept { return *ir::tile_type(var); }
  [[nodiscard]] std::optional<ir::MemorySpace> memory() const noexcept { return type().memory; }
  [[nodiscard]] bool is_mat() const noexcept { return memory() == ir::MemorySpace::Mat; }
  // CT-01: the pass runs before memory inference, so an unset space will become Vec.
  [[nodiscard]] bool is_vec_or_unset() const noexcept {
    return !memory() || *memory() == ir::MemorySpace::Vec;
  }
};

// Key: the Var node. Values keep their own handles, so the maps never dangle.
template <class T>
using ByVar = ir::NodeMap<T>;
using VarSet = ir::NodeSet;

// The node is read before the table: the operands asked about are mostly at hand (a value
// being analyzed, a Var defined a few statements up), while a large table's probe is a miss.
// Callers pass over a call's closed arguments (ir::Call::arg_is_closed) without asking.
template <class T>
const T* find_by_var(const ByVar<T>& map, const ir::Expr& e) noexcept {
  if (!ir::is_var_like(e)) return nullptr;
  auto it = map.find(e.get());
  return it == map.end() ? nullptr : &it->second;
}

// What `var = value` says when `value` slices a Var at a two-element offset: the window
// against the sliced Var itself, and whether the slice is canonical — exactly (src, shape,
// offset), a plain window the rewrites may use — or carries valid_shape / drop_dims too
// (CT-07), still a window for the Acc check (CT-20). `constants` maps scalar Vars bound to a
// ConstInt, so a literal offset that went through SSA is read as the literal again (CT-06).
struct SliceRead {
  Window window;
  bool canonical = false;
};
inline std::optional<SliceRead> read_slice(const ir::Expr& value, ir::OpId slice_op,
                                           const ByVar<ir::Expr>& constants) {
  auto* call = ir::as<ir::Call>(value);
  if (!call || call->callee.op != slice_op || call->args.size() < 3) return std::nullopt;
  const ir::Expr& src = call->args[0];
  auto* offset = ir::as<ir::MakeTuple>(call->args[2]);
  if (!ir::is_var_like(src) || !offset || offset->elements.size() != 2) return std::nullopt;
  auto literal = [&](const ir::Expr& e) {
    const ir::Expr* c = find_by_var(constants, e);
    return c ? *c : e;
  };
  return SliceRead{Window{src, literal(offset->elements[0]), literal(offset->elements[1])},
                   call->args.size() == 3};
}

// `w`, a window against its source, stated against the base of `parent`, the source's own
// window when it has one: a chained slice peeled, offsets summed.
inline Window peeled(const Window& w, const Window* parent, const ir::Span& span) {
  if (!parent) return w;
  return Window{parent->base, ir::index_add(parent->row, w.row, span),
                ir::index_add(parent->col, w.col, span), parent->first_trip_only};
}

}  // namespace tilewright::passes::canonicalize
