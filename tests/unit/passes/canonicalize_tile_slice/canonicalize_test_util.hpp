#pragma once
// Shared helpers of the CanonicalizeTileSlice unit tests: one-program modules around InCore
// functions in the printed form, running the pass, comparing with an edited copy of the input,
// and reading a rejection's diagnostic.
#include <doctest/doctest.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

namespace canonicalize_test {

using namespace tilewright;

inline const std::string incore =
    "    @pl.function(type=pl.FunctionType.InCore, level=pl.Level.CHIP_DIE, "
    "role=pl.Role.SubWorker)\n";

// A one-program module around `functions` (decorated functions, indented by four spaces).
inline std::string program_text(const std::string& functions) {
  return "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n" + functions;
}

inline ir::Program parse(const std::string& text) {
  return text::parse_program(text, "canonicalize_test.pto");
}

inline ir::Program canonicalize(const ir::Program& p) {
  pass::PassContext ctx;
  return passes::canonicalize_tile_slice(p, ctx);
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A change to one line of a program text: the line whose text (indentation aside) starts with
// `line` — it must be the only one — becomes the lines of `becomes`, indented like it; an empty
// `becomes` deletes it.
struct LineEdit {
  std::string_view line;
  std::string_view becomes;
};

inline std::string edited(const std::string& text, std::initializer_list<LineEdit> edits) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  std::vector<std::string> replaced(lines.size());
  std::vector<bool> touched(lines.size(), false);
  for (const auto& e : edits) {
    std::size_t found = lines.size(), matches = 0;
    for (std::size_t k = 0; k < lines.size(); ++k) {
      std::string_view body = std::string_view(lines[k]).substr(lines[k].find_first_not_of(' '));
      if (body.starts_with(e.line)) found = k, ++matches;
    }
    REQUIRE_MESSAGE(matches == 1,
                    "the edit `" << e.line << "` must match exactly one line, matched " << matches);
    const std::string indent = lines[found].substr(0, lines[found].find_first_not_of(' '));
    std::istringstream repl{std::string(e.becomes)};
    for (std::string l; std::getline(repl, l);) replaced[found] += indent + l + "\n";
    touched[found] = true;
  }
  std::string out;
  for (std::size_t k = 0; k < lines.size(); ++k) out += touched[k] ? replaced[k] : lines[k] + "\n";
  return out;
}

// Runs the pass on the InCore function `before` and compares the result with `before` changed
// by `edits`: structurally, and as printed text (both sides go through the printer).
inline void check_rewrite(const std::string& before, std::initializer_list<LineEdit> edits) {
  auto result = canonicalize(parse(program_text(incore + before)));
  auto expected = parse(program_text(incore + edited(before, edits)));
  auto difference = ir::structural_difference(result, expected);
  CHECK_MESSAGE(!difference, difference.value_or("") << "\n" << text::print(result));
  CHECK(text::print(result) == text::print(expected));
}

// The pass leaves `function` exactly as it is: the very same program object.
inline void check_unchanged(const std::string& function) {
  auto before = parse(program_text(incore + function));
  auto after = canonicalize(before);
  CHECK_MESSAGE(after == before, text::print(after));
}

// The diagnostic the pass raises on the InCore function `function`.
inline ir::Diagnostic error_of(const std::string& function) {
  auto p = parse(program_text(incore + function));
  try {
    canonicalize(p);
  } catch (const ir::Error& e) {
    return e.diagnostic();
  }
  FAIL("the pass accepted a program it must reject");
  return {};
}

// The diagnostic the parser raises on the InCore function `function`: programs well-typed IR
// cannot hold never reach the pass.
inline ir::Diagnostic parse_error_of(const std::string& function) {
  try {
    parse(program_text(incore + function));
  } catch (const ir::Error& e) {
    return e.diagnostic();
  }
  FAIL("the parser accepted a program it must refuse");
  return {};
}

// An accumulator kernel: Left [m, 64] and Right [64, n] operands `a`, `b` loaded through Mat,
// and `acc`, a [rows, cols] FP32 Acc tile; `body` follows and returns. Line 12 is `acc`.
inline std::string acc_kernel(int rows, int cols, int m, int n, const std::string& body) {
  auto dims = [](int r, int c) { return "[" + std::to_string(r) + ", " + std::to_string(c) + "]"; };
  const std::string parent = dims(rows, cols), lhs = dims(m, 64), rhs = dims(64, n);
  return "    def kernel(x: pl.Tensor[" + lhs + ", pl.FP16], w: pl.Tensor[" + rhs +
         ", pl.FP16], flag: pl.Scalar[pl.INDEX], "
         "out: pl.Out[pl.Tensor[" +
         parent + ", pl.FP32]]) -> pl.Tensor[" + parent +
         ", pl.FP32]:\n"
         "        xm: pl.Tile[" +
         lhs + ", pl.FP16, pl.Mem.Mat] = pl.tile.load(x, [0, 0], " + lhs + ", " + lhs +
         ", target_memory=pl.Mem.Mat)\n"
         "        a: pl.Tile[" +
         lhs +
         ", pl.FP16, pl.Mem.Left] = pl.tile.move(xm, target_memory=pl.Mem.Left)\n"
         "        wm: pl.Tile[" +
         rhs + ", pl.FP16, pl.Mem.Mat] = pl.tile.load(w, [0, 0], " + rhs + ", " + rhs +
         ", target_memory=pl.Mem.Mat)\n"
         "        b: pl.Tile[" +
         rhs +
         ", pl.FP16, pl.Mem.Right] = pl.tile.move(wm, target_memory=pl.Mem.Right)\n"
         "        acc: pl.Tile[" +
         parent + ", pl.FP32, pl.Mem.Acc] = pl.tile.create(" + parent +
         ", dtype=pl.FP32, target_memory=pl.Mem.Acc)\n" + body;
}

inline const std::string l0c_phrase = "not contiguous in L0C's block layout";

}  // namespace canonicalize_test
