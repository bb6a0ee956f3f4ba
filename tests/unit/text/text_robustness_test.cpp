// Issue 10, "no input crashes the tool": expressions far deeper than any program needs are
// refused where they are written, with every walk fine right at the limit; files the
// parser cannot read give plain user errors; diagnostics never echo raw control bytes and
// clip very long lines.
#include <cstdio>
#include <fstream>
#include <string>

#include "text_test_util.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/text/source.hpp"

using namespace text_test;

namespace {

// `s <op> s <op> ... <op> s` with `terms` terms, as the value of a scalar assignment.
std::string chain(const char* op, std::size_t terms, const char* dtype = "pl.INDEX") {
  std::string e = "s";
  e.reserve(terms * 8);
  for (std::size_t i = 1; i < terms; ++i) {
    e += ' ';
    e += op;
    e += ' ';
    e += 's';
  }
  return program(std::string("        r: pl.Scalar[") + dtype + "] = " + e + "\n        return r\n",
                 std::string("self, s: pl.Scalar[") + dtype + "]", std::string(" -> pl.Scalar[") + dtype + "]");
}

// `f(f(...f(s)...))`, `depth` calls deep.
std::string nested_calls(std::size_t depth) {
  std::string e;
  for (std::size_t i = 0; i < depth; ++i) e += "pl.min(s, ";
  e += "s";
  for (std::size_t i = 0; i < depth; ++i) e += ")";
  return program("        r: pl.Scalar[pl.INDEX] = " + e + "\n        return r\n", "self, s: pl.Scalar[pl.INDEX]",
                 " -> pl.Scalar[pl.INDEX]");
}

}  // namespace

TEST_CASE("100,000-term expressions are refused where they are written, not by a crash") {
  for (const char* op : {"+", "*", "|"}) {
    CAPTURE(op);
    std::string e = error_of(chain(op, 100000));
    CHECK(contains(e, "7:"));
    CHECK(contains(e, "nests more than 1000 operations"));
  }
  for (const char* op : {"and", "or"}) {
    CAPTURE(op);
    CHECK(contains(error_of(chain(op, 100000, "pl.BOOL")), "nests more than 1000 operations"));
  }
  // `**` is right-associative: the parser folds the chain from the right without recursing.
  CHECK(contains(error_of(chain("**", 20000)), "nests more than 1000 operations"));
  // Nested calls and brackets meet the nesting guard first.
  CHECK(contains(error_of(nested_calls(10000)), "nesting is too deep"));
}

TEST_CASE("at the expression depth limit, parse, print, equality, verification and passes all work") {
  // 1000 levels: 999 additions over one operand, plus the assignment's value itself.
  std::string text = chain("+", 1000);
  ir::Program p = parse(text);
  std::string printed = text::print(p);
  ir::Program again = text::parse_program(printed, "<printed>");
  CHECK_FALSE(ir::structural_difference(p, again));
  CHECK(text::print(again) == printed);
  pass::Pipeline pipeline;
  for (auto& pass : passes::default_pipeline()) pipeline.add(pass);
  pass::PassContext ctx;
  pipeline = pass::Pipeline(pipeline.passes(), pass::verified_properties(p));
  ir::Program lowered = pipeline.run(p, ctx, pass::VerifyLevel::basic, {}, nullptr);
  CHECK(lowered);
  // One more level is refused.
  CHECK(contains(error_of(chain("+", 1001)), "nests more than 1000 operations"));
  // The `**` chain at the limit reads back as the same right-leaning tree.
  ir::Program pw = parse(chain("**", 1000));
  CHECK_FALSE(ir::structural_difference(pw, text::parse_program(text::print(pw), "<printed>")));
}

TEST_CASE("source files: a directory, a missing file and a NUL byte are plain user errors") {
  auto refused = [](const std::string& path) {
    try {
      text::read_source(path);
    } catch (const ir::Error& e) {
      CHECK(e.diagnostic().kind == ir::ErrorKind::user);
      return e.diagnostic().message;
    }
    FAIL("expected read_source to refuse " << path);
    return std::string();
  };
  CHECK(contains(refused(TILEWRIGHT_SOURCE_DIR "/tests"), "it is a directory"));
  CHECK(contains(refused(TILEWRIGHT_SOURCE_DIR "/no/such/file.pto"), "cannot read"));
  std::string nul = program("        return x\n");
  nul.insert(nul.find("return"), std::string("\0", 1));
  std::string e = error_of(nul);
  CHECK(contains(e, "NUL byte"));
  try {
    parse(nul);
  } catch (const ir::Error& err) {
    std::string shown = ir::render(err.diagnostic(), nul);
    CHECK(shown.find('\0') == std::string::npos);
    CHECK(contains(shown, "?return x"));
  }
}

TEST_CASE("diagnostics: a very long line shows a clipped window around the caret; CR-only text says so") {
  std::string digits(100000, '7');
  std::string text = program("        n = " + digits + "\n        return x\n");
  try {
    parse(text);
    FAIL("expected an error");
  } catch (const ir::Error& err) {
    CHECK(contains(err.diagnostic().message, "(100000 characters)"));
    CHECK(ir::render(err.diagnostic(), text).size() < 600);
  }
  // An error far along a long line: the excerpt starts with "..." and the caret still points at it.
  std::string zeros;
  for (int i = 0; i < 20000; ++i) zeros += "0, ";
  std::string wide = program("        n = [" + zeros + "@]\n        return x\n");
  try {
    parse(wide);
    FAIL("expected an error");
  } catch (const ir::Error& err) {
    std::string shown = ir::render(err.diagnostic(), wide);
    CHECK(shown.size() < 600);
    CHECK(contains(shown, "\n  ..."));
    auto caret = shown.rfind('^');
    auto line_start = shown.rfind('\n', caret) + 1;
    auto above = shown.rfind('\n', line_start - 2) + 1;
    CHECK(shown[above + (caret - line_start)] == '@');
  }
  std::string cr = "import pypto.language as pl\r@pl.program\rclass P:\r    pass\r";
  CHECK(contains(error_of(cr), "1:28: this text uses CR-only line endings"));
}

TEST_CASE("the printer declares a dynamic dimension read only by an expression, so it reads back") {
  auto p = parse(
      "import pypto.language as pl\nN = pl.dynamic(\"N\")\n\n@pl.program\nclass P:\n    @pl.function\n"
      "    def f(self, s: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:\n        r: pl.Scalar[pl.INDEX] = s + N\n"
      "        return r\n");
  std::string printed = text::print(p);
  CHECK(contains(printed, "N = pl.dynamic(\"N\")"));
  CHECK_FALSE(contains(printed, "__FREE_VAR"));
  check_reads_back(p);
}

TEST_CASE("a local named like a program-level dynamic dim takes a suffix, so later types still read the dim") {
  // Structured-fuzz finding (repro_14): `u`, undeclared in a parameter annotation, is an implicit
  // dim; the local tile `u` printed under its own name captured `u * N` on reparse.
  auto p = parse(
      "import pypto.language as pl\nN = pl.dynamic(\"N\")\n\n@pl.program\nclass P:\n    @pl.function\n"
      "    def f(self, x: pl.Tensor[[N, 64], pl.FP32], out: pl.Out[pl.Tensor[[N, 64], pl.FP32]]) -> "
      "pl.Tensor[[N, 64], pl.FP32]:\n"
      "        N: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [16, 64])\n"
      "        o = pl.tile.store(N, [0, 0], out)\n"
      "        return o\n");
  std::string printed = text::print(p);
  CHECK(contains(printed, "N = pl.dynamic(\"N\")"));
  CHECK(contains(printed, "N_1: pl.Tile[[16, 64]"));
  // The store's deduced type is out's, [N, 64]: printed after the local, its N is the dim.
  CHECK(contains(printed, "o: pl.Tensor[[N, 64], pl.FP32] = pl.tile.store(N_1, [0, 0], out)"));
  check_reads_back(p);
}

TEST_CASE("an enum kwarg held as a number no member has prints as that number and reads back") {
  // The printer used to squeeze the int64 into the enum's byte: 256 named member 0, 16 named '?'.
  for (const char* call : {"pl.system.sync_set(pipe=300, event_id=0)", "pl.system.sync_set(pipe=-1, event_id=0)"}) {
    auto p = parse(std::string("import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
                               "    def f(self):\n        ") +
                   call + "\n");
    CHECK(contains(text::print(p), call));
    check_reads_back(p);
  }
}

TEST_CASE("an INDEX constant assigned to a scalar of another dtype prints typed, so it is not re-stamped (§6.4)") {
  // Structured-fuzz finding (repro_16): `bf: pl.Scalar[pl.BF16] = pl.const(-2, pl.INDEX)` printed
  // as `= -2`, which reads back as the BF16 literal -2.0.
  for (const char* value : {"pl.const(-2, pl.INDEX)", "pl.const(7, pl.INDEX)"}) {
    auto p = parse(std::string("import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
                               "    def f(self) -> pl.Scalar[pl.BF16]:\n        bf: pl.Scalar[pl.BF16] = ") +
                   value + "\n        n: pl.Scalar[pl.INT32] = " + value + "\n        return bf\n");
    std::string printed = text::print(p);
    CHECK(contains(printed, std::string("bf: pl.Scalar[pl.BF16] = ") + value));
    CHECK(contains(printed, std::string("n: pl.Scalar[pl.INT32] = ") + value));
    check_reads_back(p);
  }
  // A bare literal is re-stamped, and prints as the constant it became.
  auto p = parse("import pypto.language as pl\n\n@pl.program\nclass P:\n    @pl.function\n"
                 "    def f(self) -> pl.Scalar[pl.BF16]:\n        bf: pl.Scalar[pl.BF16] = 2\n        return bf\n");
  CHECK(contains(text::print(p), "bf: pl.Scalar[pl.BF16] = pl.const(2.0, pl.BF16)"));
  check_reads_back(p);
}
