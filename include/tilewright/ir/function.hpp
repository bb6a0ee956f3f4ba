#pragma once
// Functions and programs.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "tilewright/ir/stmt.hpp"

namespace tilewright::ir {

struct Param {
  BOOST_HANA_DEFINE_STRUCT(Param, (Expr, var), (ParamDirection, direction));
};

struct FunctionNode {
  BOOST_HANA_DEFINE_STRUCT(FunctionNode, (std::string, name), (std::vector<Param>, params),
                           (std::vector<Type>, return_types), (Stmt, body),
                           (FunctionType, type), (std::optional<Level>, level),
                           (std::optional<Role>, role), (Kwargs, attrs), (Span, span));
};

struct ProgramNode {
  BOOST_HANA_DEFINE_STRUCT(ProgramNode, (std::string, name), (std::vector<Function>, functions));
};

// The level and role a function type implies. Upstream fills them in when it builds the
// function; a level or role given explicitly must agree with them.
struct ImpliedPlacement {
  Level level;
  Role role;
};
constexpr std::optional<ImpliedPlacement> implied_placement(FunctionType t) noexcept {
  switch (t) {
    case FunctionType::Orchestration: return ImpliedPlacement{Level::CHIP, Role::Orchestrator};
    case FunctionType::InCore: return ImpliedPlacement{Level::CHIP_DIE, Role::SubWorker};
    case FunctionType::AIC: return ImpliedPlacement{Level::AIC, Role::SubWorker};
    case FunctionType::AIV: return ImpliedPlacement{Level::AIV, Role::SubWorker};
    case FunctionType::Group: return ImpliedPlacement{Level::CORE_GROUP, Role::SubWorker};
    default: return std::nullopt;
  }
}

inline Function make_function(FunctionNode f) { return std::make_shared<const FunctionNode>(std::move(f)); }

// Functions are kept sorted by name, as upstream's program map is; lookups and equality
// then pair functions by position.
inline Program make_program(std::string name, std::vector<Function> functions) {
  std::stable_sort(functions.begin(), functions.end(),
                   [](const Function& a, const Function& b) { return a->name < b->name; });
  return std::make_shared<const ProgramNode>(ProgramNode{std::move(name), std::move(functions)});
}

inline Function find_function(const ProgramNode& p, std::string_view name) noexcept {
  for (const auto& f : p.functions)
    if (f->name == name) return f;
  return nullptr;
}

}  // namespace tilewright::ir
