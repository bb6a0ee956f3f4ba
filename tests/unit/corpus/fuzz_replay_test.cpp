// Replays the fuzzer's seed corpus and every crash reproducer found so far
// (tests/fuzz/corpus/), plus the corpus of our own programs (tests/corpus/), through the
// property the fuzzer checks (tests/fuzz/roundtrip_property.hpp) — without libFuzzer, so every
// build (g++, clang, ASan+UBSan) re-checks each reproducer. A file may be rejected by the
// parser; what it may not do is crash, throw anything but a user Diagnostic, or break the
// print → parse → print round trip.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "../../fuzz/roundtrip_property.hpp"
#include "../../fuzz/structured_mutator.hpp"

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> files_in(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_regular_file() && entry.path().filename().string().front() != '.' &&
        entry.path().extension() != ".md")  // a folder's README is not an input
      out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::size_t replay(const fs::path& dir) {
  std::size_t parsed = 0;
  for (const auto& file : files_in(dir)) {
    CAPTURE(file.filename().string());
    std::string text = read(file);
    auto outcome = tilewright::fuzz::check_roundtrip(text, file.string());
    CHECK_MESSAGE(!outcome.violation, outcome.violation.value_or(""));
    if (!outcome.violation && outcome.parsed) {
      auto bad = tilewright::fuzz::check_pipeline(outcome.program);
      CHECK_MESSAGE(!bad, bad.value_or(""));
    }
    parsed += outcome.parsed;
  }
  return parsed;
}

const fs::path kSource(TILEWRIGHT_SOURCE_DIR);

}  // namespace

TEST_CASE("fuzz replay: seed corpus and crash reproducers keep the round-trip property") {
  auto files = files_in(kSource / "tests" / "fuzz" / "corpus");
  REQUIRE(!files.empty());
  std::size_t parsed = replay(kSource / "tests" / "fuzz" / "corpus");
  // Seeds are valid programs; reproducers are mostly not. Both kinds must be present.
  CHECK(parsed > 0);
  CHECK(parsed < files.size());
}

TEST_CASE("fuzz replay: the corpus of our own programs keeps the round-trip property") {
  std::size_t parsed = replay(kSource / "tests" / "corpus");
  CHECK(parsed >= 60);
}

TEST_CASE("fuzz replay: the property reports violations instead of hiding them") {
  using tilewright::fuzz::check_roundtrip;
  // Rejected with a diagnostic: not a violation.
  auto rejected = check_roundtrip("@pl.function\ndef f(x: pl.Nope) -> None:\n    pass");
  CHECK(!rejected.parsed);
  CHECK(!rejected.violation);
  // Parsed and round-trips.
  auto ok = check_roundtrip("@pl.function\ndef f(x: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:\n    return x");
  CHECK(ok.parsed);
  CHECK(!ok.violation);
  CHECK(ok.printed.find("def f(self, x: pl.Scalar[pl.INT32])") != std::string::npos);
}

TEST_CASE("fuzz replay: a seeded structured-mutation run over our programs keeps the whole property") {
  // The structured fuzzer's mutator, run a few times per program with a fixed seed: mutants
  // that parse must round-trip and get through the pipeline with located user errors only.
  tilewright::fuzz::StructuredMutator mutator(20261201);
  std::size_t mutants = 0, parsed = 0;
  for (const auto& file : files_in(kSource / "tests" / "corpus")) {
    std::string text = read(file);
    for (int k = 0; k < 8; ++k) {
      std::string mutant = mutator.mutate(text);
      CAPTURE(file.filename().string());
      CAPTURE(mutant);
      auto outcome = tilewright::fuzz::check_roundtrip(mutant, "<mutant>");
      CHECK_MESSAGE(!outcome.violation, outcome.violation.value_or(""));
      if (!outcome.violation && outcome.parsed) {
        ++parsed;
        auto bad = tilewright::fuzz::check_pipeline(outcome.program);
        CHECK_MESSAGE(!bad, bad.value_or(""));
      }
      ++mutants;
    }
  }
  CHECK(mutants >= 400);
  CHECK(parsed > mutants / 10);  // the mutants reach past the parser, not only the lexer
}
