#pragma once
// INDEX arithmetic that folds what it can: constants multiply out (unless the product
// overflows, which stays symbolic rather than wrapping), and ×1 disappears (MT-10).
#include "tilewright/ir/expr.hpp"
#include "tilewright/math/checked.hpp"

namespace tilewright::ir {

inline Expr index_mul(const Expr& a, const Expr& b, Span span = {}) {
  auto ca = const_int(a);
  auto cb = const_int(b);
  if (ca && cb)
    if (auto product = math::checked_mul(*ca, *cb)) return make_int(*product, DataType::INDEX, span);
  if (ca && *ca == 1) return b;
  if (cb && *cb == 1) return a;
  return make_expr(Binary{BinaryOp::Mul, a, b}, scalar_type(DataType::INDEX), std::move(span));
}

inline Expr index_add(const Expr& a, const Expr& b, Span span = {}) {
  auto ca = const_int(a);
  auto cb = const_int(b);
  if (ca && cb)
    if (auto sum = math::checked_add(*ca, *cb)) return make_int(*sum, DataType::INDEX, span);
  if (ca && *ca == 0) return b;
  if (cb && *cb == 0) return a;
  return make_expr(Binary{BinaryOp::Add, a, b}, scalar_type(DataType::INDEX), std::move(span));
}

}  // namespace tilewright::ir
