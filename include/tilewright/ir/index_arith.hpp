#pragma once
// INDEX arithmetic that folds what it can: constants multiply out (unless the product
// overflows, which stays symbolic rather than wrapping), and ×1 disappears (MT-10).
#include <optional>
#include <vector>

#include "tilewright/ir/expr.hpp"
#include "tilewright/math/checked.hpp"
#include "tilewright/math/strides.hpp"

namespace tilewright::ir {

namespace index_detail {
// The INDEX constant `value`: an operand that already is one (x + 0, x × 1, 0 × x; offsets
// summed along a chain of slices mostly add 0, and a node per sum was most of that work),
// else a new node.
inline Expr index_constant(std::int64_t value, const Expr& a, const Expr& b, const Span& span) {
  for (const Expr* e : {&a, &b})
    if ((*e)->type == scalar_type(DataType::INDEX) && const_int(*e) == value) return *e;
  return make_int(value, DataType::INDEX, span);
}
}  // namespace index_detail

inline Expr index_mul(const Expr& a, const Expr& b, Span span = {}) {
  auto ca = const_int(a);
  auto cb = const_int(b);
  if (ca && cb)
    if (auto product = math::checked_mul(*ca, *cb))
      return index_detail::index_constant(*product, a, b, span);
  if (ca && *ca == 1) return b;
  if (cb && *cb == 1) return a;
  return make_expr(Binary{BinaryOp::Mul, a, b}, scalar_type(DataType::INDEX), std::move(span));
}

inline Expr index_add(const Expr& a, const Expr& b, Span span = {}) {
  auto ca = const_int(a);
  auto cb = const_int(b);
  if (ca && cb)
    if (auto sum = math::checked_add(*ca, *cb))
      return index_detail::index_constant(*sum, a, b, span);
  if (ca && *ca == 0) return b;
  if (cb && *cb == 0) return a;
  return make_expr(Binary{BinaryOp::Add, a, b}, scalar_type(DataType::INDEX), std::move(span));
}

// The strides of `shape` packed row-major, or with the trailing pair swapped when `dn` (the
// caller rules on a DN rank below two); symbolic dims stay symbols. Type deduction, the
// parser and MaterializeTensorStrides must agree on them to the node.
inline std::vector<Expr> packed_strides(const std::vector<Expr>& shape, bool dn) {
  std::vector<Expr> stride(shape.size());
  math::packed_strides_into(stride, shape, dn, make_int(1),
                            [](const Expr& a, const Expr& b) { return std::optional<Expr>(index_mul(a, b)); });
  return stride;
}

}  // namespace tilewright::ir
