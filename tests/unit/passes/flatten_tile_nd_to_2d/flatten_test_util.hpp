#pragma once
// Shared helpers of the FlattenTileNdTo2D unit tests: one-function programs in the printed
// form, running the pass (optionally with a backend), and reading the result back.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

namespace flatten_test {

using namespace tilewright;

// A one-function program: `dynamics` are `X = pl.dynamic("X")` lines, `function` the
// decorated function, indented by four spaces.
inline std::string program_text(const std::string& function, const std::string& dynamics = "") {
  return "# pypto.program: P\nimport pypto.language as pl\n\n" + dynamics + "@pl.program\nclass P:\n" + function;
}

inline const std::string incore =
    "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, role=pl.Role.SubWorker)\n";

// `def kernel(<signature>):` and its body, in a one-function InCore program.
inline std::string kernel(const std::string& signature, const std::string& body) {
  return program_text(incore + "    def kernel(" + signature + ":\n" + body);
}

inline ir::Program parse(const std::string& text) { return text::parse_program(text, "flatten_test.pto"); }

inline ir::Program flatten(const ir::Program& p, backend::BackendInfo backend = backend::none()) {
  pass::PassContext ctx;
  ctx.backend = backend;
  return passes::flatten_tile_nd_to_2d(p, ctx);
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// The diagnostic the pass raises on `p`.
inline ir::Diagnostic error_of(const ir::Program& p, backend::BackendInfo backend = backend::none()) {
  try {
    flatten(p, backend);
  } catch (const ir::Error& e) {
    return e.diagnostic();
  }
  FAIL("the pass accepted a program it must reject");
  return {};
}
inline ir::Diagnostic error_of(const std::string& text, backend::BackendInfo backend = backend::none()) {
  return error_of(parse(text), backend);
}

// The top-level statements of the first function's body.
inline std::vector<ir::Stmt> body_of(const ir::Program& p) { return ir::body_stmts(p->functions[0]->body); }

inline const ir::TileType& tile_of(const ir::Stmt& s) { return *ir::tile_type(ir::as<ir::Assign>(s)->var); }

inline std::vector<std::int64_t> ints(const std::vector<ir::Expr>& dims) {
  std::vector<std::int64_t> out;
  for (const auto& d : dims) out.push_back(ir::const_int(d).value_or(-1));
  return out;
}

}  // namespace flatten_test
