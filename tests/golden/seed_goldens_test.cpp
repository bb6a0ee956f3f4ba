// This project's own golden cases for the behaviour only seed 003 describes (catalog §6 D6,
// D7: column-packed batched accumulators, logical row windows, the loop-carry repair and
// their rejections), which the upstream corpus deliberately leaves out. They live in the
// repository (tests/golden/seed/), in the corpus's format, and were written by reading the
// seed: the inputs follow its examples, and every expected output was checked line by line
// against the forms the seed pins (the [M, B*N] Acc allocation, the page windows
// [0, b*N], the one offset tuple a window and its write-back share, the per-page drain
// stores). An error case's NAME.error holds the WHOLE message, not a key phrase.
//
// Each result is also held to the TileOps2D verifier and to print → parse → print, and so
// is every successful case of the upstream flatten corpus.
#include <doctest/doctest.h>

#include "golden_support.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/verify.hpp"

namespace {

using namespace tilewright;

const golden::fs::path seed_corpus = golden::fs::path(TILEWRIGHT_SOURCE_DIR) / "tests" / "golden" / "seed";

void check_well_formed(const ir::Program& result) {
  auto problems = pass::verify(pass::Property::TileOps2D, result);
  CHECK_MESSAGE(problems.empty(), (problems.empty() ? std::string() : problems.front().message));
  const std::string printed = text::print(result);
  auto reparsed = text::parse_program(printed, "result.pto");
  CHECK(text::print(reparsed) == printed);
}

}  // namespace

// FL-25, FL-27, FL-59, FL-62, FL-64a…e, FL-65, FL-66, BK-02, BK-03 (each case's NAME.ids).
TEST_CASE("seed goldens: flatten_tile_nd_to_2d (seed 003's packed accumulators, row windows, carry repair)") {
  const std::string folder = "flatten_tile_nd_to_2d";
  auto names = golden::cases(folder, seed_corpus);
  REQUIRE(names.size() >= 20);
  for (const auto& name : names) {
    CAPTURE(name);
    auto base = seed_corpus / folder / name;
    CAPTURE(golden::trim(golden::slurp(base.string() + ".ids")));
    golden::Outcome out = golden::run_case(folder, name, seed_corpus);
    if (golden::fs::exists(base.string() + ".error")) {
      REQUIRE_MESSAGE(out.error.has_value(), "expected the error of " << name << ".error");
      CHECK(out.error->kind == ir::ErrorKind::user);
      CHECK(out.error->message == golden::trim(golden::slurp(base.string() + ".error")));
      continue;
    }
    REQUIRE_MESSAGE(!out.error.has_value(), (out.error ? out.error->message : std::string()));
    const std::string expected = golden::slurp(base.string() + ".expected.pto");
    CHECK(out.printed == expected);
    auto difference = ir::structural_difference(out.program, text::parse_program(expected, name));
    CHECK_MESSAGE(!difference, difference.value_or(""));
    check_well_formed(out.program);
  }
}

// FL-67…FL-72 on the upstream corpus: every flatten result the golden test compares is also
// TileOps2D and reads back.
TEST_CASE("golden: every flatten_tile_nd_to_2d result satisfies TileOps2D") {
  if (!golden::fs::is_directory(golden::root() / "flatten_tile_nd_to_2d")) {
    MESSAGE("skipped: the golden corpus is not at " << golden::root().string());
    return;
  }
  std::size_t checked = 0;
  for (const auto& name : golden::cases("flatten_tile_nd_to_2d")) {
    CAPTURE(name);
    golden::Outcome out = golden::run_case("flatten_tile_nd_to_2d", name);
    if (out.error) continue;
    check_well_formed(out.program);
    ++checked;
  }
  CHECK(checked >= 100);
}
