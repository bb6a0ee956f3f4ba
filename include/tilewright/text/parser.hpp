#pragma once
// Parser for PyPTO's `pl` text (shared/spec/text_format.md), building tilewright IR
// (docs/ir.md).
//
//   ir::Program parse_program(std::string_view source, std::string file_name = "<input>",
//                             const ops::Registry& = ops::builtin_registry());
//
// Reads the raw printer layout, the ruff-formatted layout and the DSL sugar the seeds use.
// A lone `@pl.function` is a one-function program with an empty name. Every failure is an
// ir::Error carrying a user Diagnostic with origin "parser" and the offending token's span.
//
// Design notes (why, not what):
//  * Recursive descent straight over the token vector. Every loop consumes a token or stops
//    at a closing token, and every recursive production passes a depth guard, so arbitrary
//    input terminates in linear time without exhausting the stack.
//  * One Parser class, its productions defined by concept in text/parse/: token_cursor,
//    values and attributes, expressions, types, calls (with the DSL sugar), statements,
//    control_flow, module. parser_class.hpp declares them all.
//  * Functions are read in two phases: all signatures first, then all bodies. The printer
//    emits callees first, but user text need not, and `self.f(...)` needs f's return types.
//  * Python scoping: one name table per function. Plain reassignment reuses the Var (the
//    non-strict upstream behaviour); loop variables, iter_args and return vars are fresh.
//  * Yield-assignments (`r: T = pl.yield_(v)`) name the return vars of the innermost
//    enclosing for/while/if; the statement records them on a context stack and the
//    construct creates the Vars once its body is complete.
//  * Values that have no IR expression form (enum spellings, strings, dicts, scope
//    optimisation calls) travel as `PVal`s until a kwarg/attr/type consumer decides what
//    they mean; this keeps the expression grammar context-free.
#include <string>
#include <string_view>
#include <utility>

#include "tilewright/config.hpp"
#include "tilewright/ir/function.hpp"
#include "tilewright/ops/catalog.hpp"
#include "tilewright/ops/registry.hpp"

namespace tilewright::text {

// Parses a whole `pl` module: one `@pl.program` class or one `@pl.function`.
TILEWRIGHT_API ir::Program parse_program(std::string_view source, std::string file_name = "<input>",
                                         const ops::Registry& registry = ops::builtin_registry());

}  // namespace tilewright::text

#if TILEWRIGHT_DEFINITIONS
#include "tilewright/text/parse/attributes.hpp"
#include "tilewright/text/parse/calls.hpp"
#include "tilewright/text/parse/control_flow.hpp"
#include "tilewright/text/parse/expressions.hpp"
#include "tilewright/text/parse/module.hpp"
#include "tilewright/text/parse/parser_class.hpp"
#include "tilewright/text/parse/statements.hpp"
#include "tilewright/text/parse/types.hpp"

namespace tilewright::text {

TILEWRIGHT_API ir::Program parse_program(std::string_view source, std::string file_name,
                                         const ops::Registry& registry) {
  return parser_detail::Parser(source, std::move(file_name), registry).run();
}

}  // namespace tilewright::text
#endif  // TILEWRIGHT_DEFINITIONS
