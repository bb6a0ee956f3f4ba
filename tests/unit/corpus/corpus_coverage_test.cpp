// The corpus of our own programs (tests/corpus/*.pto, raw printer layout): every file parses,
// prints back byte for byte, survives parse → print → parse structurally, and together the
// files use every registry op and every statement, type, expression and function form the
// text format can carry (corpus_coverage.hpp lists them).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "../../fuzz/roundtrip_property.hpp"
#include "corpus_coverage.hpp"

namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<fs::path> corpus_files() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(fs::path(TILEWRIGHT_SOURCE_DIR) / "tests" / "corpus"))
    if (entry.path().extension() == ".pto") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("corpus: at least 60 programs of our own") { CHECK(corpus_files().size() >= 60); }

TEST_CASE("corpus: every program round-trips and is in raw printer layout") {
  for (const auto& file : corpus_files()) {
    CAPTURE(file.filename().string());
    std::string text = slurp(file);
    auto outcome = tilewright::fuzz::check_roundtrip(text, file.string());
    if (!outcome.parsed && !outcome.violation) {
      // Say why: the property only records that the text was rejected.
      try {
        (void)tilewright::text::parse_program(text, file.string());
      } catch (const tilewright::ir::Error& e) {
        FAIL_CHECK(tilewright::ir::render(e.diagnostic(), text));
      }
      continue;
    }
    CHECK_MESSAGE(!outcome.violation, outcome.violation.value_or(""));
    // The file itself is what the printer emits: print(parse(file)) == file.
    CHECK_MESSAGE(outcome.printed == text,
                  tilewright::fuzz::detail::first_difference(text, outcome.printed));
  }
}

TEST_CASE("corpus: covers every registry op, statement, type, expression and function form") {
  corpus::Collector collector;
  for (const auto& file : corpus_files()) {
    try {
      collector.program(*tilewright::text::parse_program(slurp(file), file.string()));
    } catch (const tilewright::ir::Error&) {
      // Reported by the round-trip case above.
    }
  }
  std::vector<std::string> required = corpus::required_features();
  std::vector<std::string> missing;
  std::size_t ops = 0, ops_covered = 0, covered_count = 0, unreachable = 0;
  for (const auto& f : required) {
    bool is_op = f.starts_with("op:");
    bool covered = collector.features.count(f) > 0;
    ops += is_op;
    ops_covered += is_op && covered;
    covered_count += covered;
    if (corpus::unreachable_from_text(f)) {
      ++unreachable;
      CHECK_MESSAGE(!covered, f << " is listed as unreachable from text, yet the corpus reaches it");
    } else if (!covered) {
      missing.push_back(f);
    }
  }
  std::string list;
  for (const auto& m : missing) list += "\n  " + m;
  MESSAGE("corpus covers " << ops_covered << "/" << ops << " registry ops and " << covered_count << "/"
                           << required.size() << " features (" << unreachable << " cannot be written as text)");
  CHECK_MESSAGE(missing.empty(), missing.size() << " features are used by no corpus program:" << list);
  // The op list really is the registry's: a registry that grows makes this test ask for more.
  CHECK(ops == tilewright::ops::builtin_registry().size());
}

TEST_CASE("corpus: the coverage collector sees what a program uses") {
  // A small program whose features are known exactly, so a collector that silently records
  // nothing cannot pass the coverage case above by accident.
  constexpr std::string_view text =
      "# pypto.program: P\nimport pypto.language as pl\n\n@pl.program\nclass P:\n"
      "    @pl.function(type=pl.FunctionType.AIV)\n"
      "    def f(self, x: pl.Tensor[[8, 8], pl.FP16], o: pl.Out[pl.Tensor[[8, 8], pl.FP16]]) -> pl.Tensor[[8, 8], pl.FP16]:\n"
      "        t: pl.Tile[[8, 8], pl.FP16, pl.Mem.Vec] = pl.tile.load(x, [0, 0], [8, 8], [8, 8], target_memory=pl.Mem.Vec)\n"
      "        for i in pl.unroll(2):\n"
      "            u: pl.Tile[[8, 8], pl.FP16, pl.Mem.Vec] = pl.tile.exp(t)\n"
      "        r: pl.Tensor[[8, 8], pl.FP16] = pl.tile.store(t, [0, 0], o)\n"
      "        return r";
  corpus::Collector collector;
  collector.program(*tilewright::text::parse_program(text));
  for (std::string_view f : {"op:tile.load", "op:tile.exp", "op:tile.store", "stmt:For.unroll", "function:type.AIV",
                             "function:param.Out", "type:Tile.memory.Vec", "type:Scalar.INDEX", "expr:Call.kwargs",
                             "expr:MakeTuple", "stmt:Return.values"})
    CHECK_MESSAGE(collector.features.count(std::string(f)) == 1, f);
  CHECK(collector.features.count("op:tile.add") == 0);
  CHECK(collector.features.count("stmt:While") == 0);
}
