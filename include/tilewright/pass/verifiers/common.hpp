#pragma once
// Helpers shared by the property verifiers.
#include <string>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/ir/walk.hpp"

namespace tilewright::pass::verifiers {

inline ir::Diagnostic property_error(std::string_view rule, std::string message, ir::Span span) {
  return ir::Diagnostic{ir::Severity::error, ir::ErrorKind::internal, std::string(rule),
                        std::move(message), std::move(span), {}};
}

inline std::string callee_name(const ir::Call& c) {
  return c.callee.is_function() ? c.callee.function.str() : std::string(ir::op_name(c.callee.op));
}
inline bool is_tile_op(const ir::Call& c) noexcept { return !c.callee.is_function() && ir::is_tile_op(c.callee.op); }

}  // namespace tilewright::pass::verifiers
