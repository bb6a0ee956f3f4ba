// Every example in docs/passes/*.md is a test. An example is two consecutive fenced blocks:
//
//   ```pl before <pass>[,<pass>…] [--backend=<name>]
//   <a whole program, exactly as tilewright-opt prints it>
//   ```
//   ```pl after
//   <the printed result>
//   ```
//
// or, for an example that fails, the second block is ```text error``` holding what
// tilewright-opt writes to stderr for that input saved as `example.pto`: the rendered
// diagnostic with its source line and caret, or the pipeline-order error.
//
// An example runs the way `tilewright-opt --passes=<pass> [--backend=…] example.pto` runs it:
// the input provides the properties its verifiers confirm, the pipeline order is checked
// against them, and each pass's produced properties are verified. The result must print as
// the `after` block byte for byte and be structurally equal to it parsed. The `before` block
// must itself be printer output (print(parse(before)) == before), so that readers copy the
// form the tools emit. Pass names are the snake_case factory names or the CamelCase ones.
// Other fenced blocks (sh, cpp, plain ```pl without `before`) are prose and ignored.
// docs/README.md states the same convention for authors.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/pipeline_check.hpp"

#include "golden_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace tilewright;

struct FencedBlock {
  int line = 0;      // of the opening fence, 1-based
  std::string info;  // what follows the opening ```
  std::string body;  // without the final newline
};

std::vector<FencedBlock> fenced_blocks(const std::string& markdown) {
  std::vector<FencedBlock> out;
  std::istringstream in(markdown);
  std::string line;
  std::optional<FencedBlock> open;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.starts_with("```")) {
      if (open) open->body += line + "\n";
      continue;
    }
    if (open) {
      if (!open->body.empty()) open->body.pop_back();
      out.push_back(std::move(*open));
      open.reset();
    } else {
      open = FencedBlock{number, golden::trim(line.substr(3)), {}};
    }
  }
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

struct Example {
  const FencedBlock& before;
  const FencedBlock& expectation;  // `pl after` or `text error`
};

// Parses, checks the order like tilewright-opt does, runs with basic verification.
// Returns the result, or fills `rendered` with the diagnostic as the CLI renders it.
std::optional<ir::Program> run_example(const Example& e, std::string& rendered) {
  std::vector<std::string> head = words(e.before.info);  // pl before <passes> [--backend=…]
  REQUIRE_MESSAGE(head.size() >= 3, "`pl before` needs a pass name");
  pass::Pipeline pipeline;
  std::istringstream names(head[2]);
  for (std::string name; std::getline(names, name, ',');) {
    auto p = passes::find_pass(name);
    REQUIRE_MESSAGE(p.has_value(), "unknown pass '" << name << "'");
    pipeline.add(*p);
  }
  pass::PassContext ctx;
  for (std::size_t i = 3; i < head.size(); ++i) {
    REQUIRE_MESSAGE(head[i].starts_with("--backend="), "unknown option '" << head[i] << "'");
    auto b = backend::backend_by_name(head[i].substr(10));
    REQUIRE_MESSAGE(b.has_value(), "unknown backend in '" << head[i] << "'");
    ctx.backend = *b;
  }
  try {
    ir::Program program = text::parse_program(e.before.body, "example.pto");
    ir::Diagnostics check = passes::check_pipeline(pipeline, program, {});  // tilewright-opt's check
    if (passes::has_error(check)) {
      rendered = passes::render_check(check, "example.pto", e.before.body);
      return std::nullopt;
    }
    return pipeline.run(program, ctx, pass::VerifyLevel::basic);
  } catch (const ir::Error& error) {
    rendered = ir::render(error.diagnostic(), e.before.body);
    return std::nullopt;
  }
}

void check_example(const Example& e) {
  std::string rendered;
  std::optional<ir::Program> result = run_example(e, rendered);
  if (e.expectation.info == "text error") {
    REQUIRE_MESSAGE(!result.has_value(), "expected an error, the pass succeeded");
    CHECK(rendered == e.expectation.body + "\n");
    return;
  }
  REQUIRE_MESSAGE(result.has_value(), rendered);
  CHECK(text::print(text::parse_program(e.before.body, "example.pto")) == e.before.body);
  ir::Program after = text::parse_program(e.expectation.body, "after.pto");
  auto difference = ir::structural_difference(*result, after);
  CHECK_MESSAGE(!difference.has_value(), (difference ? *difference : std::string()));
  CHECK(text::print(*result) == e.expectation.body);
}

std::vector<fs::path> pass_pages() {
  std::vector<fs::path> out;
  for (const auto& entry :
       fs::directory_iterator(fs::path(TILEWRIGHT_SOURCE_DIR) / "docs" / "passes"))
    if (entry.path().extension() == ".md") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("docs: every before/after example of docs/passes/*.md holds") {
  auto pages = pass_pages();
  REQUIRE_FALSE(pages.empty());
  for (const auto& page : pages) {
    CAPTURE(page.filename().string());
    std::vector<FencedBlock> blocks = fenced_blocks(golden::slurp(page));
    int examples = 0;
    for (std::size_t i = 0; i < blocks.size(); ++i) {
      if (!blocks[i].info.starts_with("pl before")) continue;
      int line = blocks[i].line;
      CAPTURE(line);
      REQUIRE_MESSAGE(i + 1 < blocks.size(),
                      "a `pl before` block needs a `pl after` or `text error` block next");
      const FencedBlock& next = blocks[i + 1];
      REQUIRE_MESSAGE((next.info == "pl after" || next.info == "text error"),
                      "a `pl before` block is followed by `"
                          << next.info << "`, not `pl after` or `text error`");
      check_example({blocks[i], next});
      ++examples;
      ++i;
    }
    CHECK_MESSAGE(examples > 0, "a pass page without a tested example");
  }
}

// The scanner itself: a page's blocks are found with their info strings and bodies.
TEST_CASE("docs: fenced blocks are split by their fences") {
  auto blocks = fenced_blocks(
      "text\n```pl before fold_no_op_reshape\na\nb\n```\nmore\n```pl after\nc\n```\n");
  REQUIRE(blocks.size() == 2);
  CHECK(blocks[0].line == 2);
  CHECK(blocks[0].info == "pl before fold_no_op_reshape");
  CHECK(blocks[0].body == "a\nb");
  CHECK(blocks[1].info == "pl after");
  CHECK(blocks[1].body == "c");
}
