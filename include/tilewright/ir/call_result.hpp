#pragma once
// The type a call of one of the program's functions has in its caller.
//
// A function's return types may name its scalar parameters (`-> pl.Tensor[[n, 64], …]` for
// `n: pl.Scalar[pl.INDEX]`). At a call site those stand for the call's arguments: the
// callee's Vars mean nothing in the caller, no text could name them there, and a printed
// caller would read back with whatever its own scope binds to the name.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/ir/mutate.hpp"

namespace tilewright::ir {

// `returns` with every scalar parameter of `params` that the matching argument of `args`
// (also scalar) can stand for replaced by that argument. Types that name no parameter come
// back as the very same objects.
inline std::vector<Type> returns_at_call(const std::vector<Param>& params, std::vector<Type> returns,
                                         const std::vector<Expr>& args) {
  auto binds = [&](std::size_t i) {
    return params[i].var && args[i] && as<ScalarType>(params[i].var->type) && as<ScalarType>(args[i]->type);
  };
  const std::size_t n = std::min(params.size(), args.size());
  std::size_t first = 0;
  while (first < n && !binds(first)) ++first;
  if (first == n) return returns;  // the common call: no mutator (its slot tables are ~12 KB) built
  IdentityMutator bind;
  for (std::size_t i = first; i < n; ++i)
    if (binds(i)) bind.substitute(params[i].var, args[i]);
  for (auto& t : returns) t = bind.mutate_type(t);
  return returns;
}

}  // namespace tilewright::ir
