#pragma once
// What a pass is: a type with a static PassInfo (names, level, property sets) and a call
// operator from Program to Program. Passes that work one function at a time implement
// `run_function` and get their program-level operator from FunctionPass.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/backend/backend.hpp"
#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/ops/catalog.hpp"
#include "tilewright/pass/property.hpp"

namespace tilewright::pass {

enum class PassLevel : std::uint8_t { function, program };

struct PassInfo {
  std::string_view name;     // upstream's CamelCase name, e.g. "FlattenTileNdTo2D"
  std::string_view factory;  // the Python factory name, e.g. "flatten_tile_nd_to_2d"
  PassLevel level = PassLevel::function;
  PropertySet required;
  PropertySet produced;
  PropertySet invalidated;
  // Required properties without which the pass finds nothing to do rather than doing
  // something wrong (FoldNoOpReshape without MemRefs): the order check notes their absence
  // instead of refusing, unless the user asks for them to be verified.
  PropertySet inert_without{};
};

// Counters a pass reports (rules tried/applied, functions changed, …), printed by --stats.
class Statistics {
 public:
  void add(std::string_view pass, std::string_view counter, std::uint64_t n = 1) {
    counts_[std::string(pass) + "." + std::string(counter)] += n;
  }
  [[nodiscard]] const std::map<std::string, std::uint64_t>& counts() const noexcept { return counts_; }
  [[nodiscard]] std::uint64_t get(std::string_view key) const {
    auto it = counts_.find(std::string(key));
    return it == counts_.end() ? 0 : it->second;
  }

 private:
  std::map<std::string, std::uint64_t> counts_;
};

// What every pass of a pipeline run shares: the backend's capacities, the statistics sink,
// and the op registry the passes build calls and deduce types through — the built-in
// catalog unless the embedding compiler hands its own (a copy of it plus its ops).
struct PassContext {
  backend::BackendInfo backend = backend::none();
  Statistics stats;
  // The most statements a lowering that unrolls at compile time may emit for one function
  // (FlattenTileNdTo2D's transposes and batched matmuls; `--max-expansion=N`); 0: no limit.
  std::uint64_t max_expansion = 1'000'000;

  [[nodiscard]] const ops::Registry& registry() const noexcept { return *registry_; }
  // The registry must outlive every run that uses this context.
  void use_registry(const ops::Registry& registry) noexcept { registry_ = &registry; }

 private:
  const ops::Registry* registry_ = &ops::builtin_registry();
};

template <class P>
concept Pass = requires(const P& p, const ir::Program& prog, PassContext& ctx) {
  { P::info } -> std::convertible_to<PassInfo>;
  { p(prog, ctx) } -> std::same_as<ir::Program>;
};

// Maps `run_function` over the functions of a program. Unchanged functions come back as
// the same objects, and a program with no changed function is returned as itself.
template <class Derived>
struct FunctionPass {
  ir::Program operator()(const ir::Program& program, PassContext& ctx) const {
    std::vector<ir::Function> functions;
    functions.reserve(program->functions.size());
    bool changed = false;
    for (const auto& f : program->functions) {
      ir::Function next = static_cast<const Derived&>(*this).run_function(f, ctx);
      if (next != f) {
        changed = true;
        ctx.stats.add(Derived::info.name, "functions changed");
      }
      functions.push_back(std::move(next));
    }
    if (!changed) return program;
    return ir::make_program(program->name, std::move(functions));
  }
};

}  // namespace tilewright::pass
