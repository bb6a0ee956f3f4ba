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
#include <string>
#include <vector>

#include "../fuzz/roundtrip_property.hpp"

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

std::size_t replay(const fs::path& dir) {
  std::size_t parsed = 0;
  for (const auto& file : files_in(dir)) {
    CAPTURE(file.filename().string());
    std::ifstream in(file, std::ios::binary);
    std::string text(std::istreambuf_iterator<char>(in), {});
    auto outcome = tilewright::fuzz::check_roundtrip(text, file.string());
    CHECK_MESSAGE(!outcome.violation, outcome.violation.value_or(""));
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
