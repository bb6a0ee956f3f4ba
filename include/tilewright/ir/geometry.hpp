#pragma once
// The bridge from IR values to the integer geometry of math/: Expr dims as known-or-symbolic
// integers (the IR keeps the symbols; math sees "unknown"). The enums need no bridge: they
// are math's own (math/enums.hpp).
#include <vector>

#include "tilewright/ir/expr.hpp"
#include "tilewright/math/math.hpp"

namespace tilewright::ir {

inline std::vector<math::maybe_i64> maybe_dims(const std::vector<Expr>& dims) {
  std::vector<math::maybe_i64> out;
  out.reserve(dims.size());
  for (const auto& d : dims) {
    auto c = const_int(d);
    out.push_back(c ? math::maybe_i64(*c) : math::maybe_i64());
  }
  return out;
}

}  // namespace tilewright::ir
