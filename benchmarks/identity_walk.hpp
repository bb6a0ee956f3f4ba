#pragma once
// The identity walk: what any Mutator-based pass costs before it rewrites anything. Shared by
// the Google Benchmark families and the file mode.
#include <utility>
#include <vector>

#include "tilewright/ir/function.hpp"
#include "tilewright/ir/mutate.hpp"

namespace tilewright::bench {

inline ir::Program identity_walk(const ir::Program& program) {
  std::vector<ir::Function> functions;
  functions.reserve(program->functions.size());
  bool changed = false;
  for (const auto& f : program->functions) {
    ir::IdentityMutator m;
    functions.push_back(m.mutate_function(f));
    changed |= functions.back() != f;
  }
  return changed ? ir::make_program(program->name, std::move(functions)) : program;
}

}  // namespace tilewright::bench
