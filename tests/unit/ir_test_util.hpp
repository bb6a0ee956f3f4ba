#pragma once
// Small builders the hand-built-IR tests share.
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "tilewright/ir/expr.hpp"

namespace ir_test {

// A shape of constant extents.
inline std::vector<tilewright::ir::Expr> dims(std::initializer_list<std::int64_t> ds) {
  std::vector<tilewright::ir::Expr> out;
  for (auto d : ds) out.push_back(tilewright::ir::make_int(d));
  return out;
}

// A fresh Var of `value`'s type, to assign `value` to.
inline tilewright::ir::Expr var_for(const char* name, const tilewright::ir::Expr& value) {
  return tilewright::ir::make_var(name, value->type);
}

}  // namespace ir_test
