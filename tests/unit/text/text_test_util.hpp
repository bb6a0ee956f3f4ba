#pragma once
// Helpers of the text-layer tests: parsing a snippet, the located diagnostic a bad one
// gives, and a program skeleton to put a function body in.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

namespace text_test {

using namespace tilewright;

inline ir::Program parse(std::string_view src) { return text::parse_program(src, "t.pto"); }

// "line:col: message" of the user diagnostic a parse gives; fails the test if it parses.
// With `origin`, the diagnostic must also come from that layer, located in the parsed file.
inline std::string error_of(std::string_view src, std::string_view origin = {}) {
  try {
    parse(src);
  } catch (const ir::Error& e) {
    const auto& d = e.diagnostic();
    CHECK(d.kind == ir::ErrorKind::user);
    CHECK(d.span.known());
    if (!origin.empty()) {
      CHECK(d.origin == origin);
      CHECK(d.span.file_name() == "t.pto");
    }
    return std::to_string(d.span.line) + ":" + std::to_string(d.span.column) + ": " + d.message;
  }
  FAIL("expected a parse error");
  return {};
}

inline bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

// A one-function program; `body` is indented by 8 spaces per line already.
inline std::string program(std::string_view body, std::string_view sig = "self, x: pl.Tensor[[16, 16], pl.FP32]",
                           std::string_view ret = "", std::string_view deco = "@pl.function") {
  std::string s = "import pypto.language as pl\n\n@pl.program\nclass P:\n    ";
  s += deco;
  s += "\n    def f(";
  s += sig;
  s += ")";
  s += ret;
  s += ":\n";
  s += body;
  return s;
}

inline const ir::FunctionNode& fn(const ir::Program& p, std::string_view name = "f") {
  auto f = ir::find_function(*p, name);
  REQUIRE(f);
  return *f;
}

inline std::vector<ir::Stmt> body(const ir::FunctionNode& f) { return ir::body_stmts(f.body); }

// The Call on the right of the function's `k`-th statement (an Assign or an Eval).
inline const ir::Call& call_at(const ir::Program& p, std::size_t k) {
  auto st = body(fn(p));
  REQUIRE(k < st.size());
  const ir::Expr* e = nullptr;
  if (auto* a = ir::as<ir::Assign>(st[k])) e = &a->value;
  if (auto* v = ir::as<ir::Eval>(st[k])) e = &v->expr;
  REQUIRE(e);
  auto* c = ir::as<ir::Call>(*e);
  REQUIRE(c);
  return *c;
}

// Print → parse → print gives the same bytes and a structurally equal program.
inline void check_reads_back(const ir::Program& p) {
  std::string once = text::print(p);
  ir::Program again = text::parse_program(once, "<printed>");
  CHECK_MESSAGE(!ir::structural_difference(p, again), once);
  CHECK(text::print(again) == once);
}

}  // namespace text_test
