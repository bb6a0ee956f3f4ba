// Issue 11: every `@pl.program` example of ../shared/seeds is kept in tests/lit/seeds/ (or its
// Inputs/) exactly as the seed writes it (the lit cases there lower those files). This test
// reads the seeds and checks that each example is there, word for word apart from the edits
// the seed itself asks for (listed below), so a copy cannot drift from its seed. Skipped, and
// reported, when the seeds are not next to the golden corpus.
#include <doctest/doctest.h>

#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "golden_support.hpp"

namespace {

namespace fs = std::filesystem;

fs::path seeds_dir() { return golden::root().parent_path() / "seeds"; }
fs::path copies_dir() { return fs::path(TILEWRIGHT_SOURCE_DIR) / "tests" / "lit" / "seeds"; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    out.push_back(line);
  }
  return out;
}

// Each `@pl.program` block of a seed: from the decorator to the last indented line of the class.
std::vector<std::string> programs_in(const std::string& seed) {
  std::vector<std::string> out;
  std::vector<std::string> lines = lines_of(seed);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i] != "@pl.program") continue;
    std::string block = lines[i] + "\n" + lines[i + 1] + "\n";
    std::size_t j = i + 2;
    for (; j < lines.size() && (lines[j].starts_with(" ") || lines[j].empty()); ++j) {
      if (lines[j].empty()) {
        std::size_t k = j;
        while (k < lines.size() && lines[k].empty()) ++k;
        if (k == lines.size() || !lines[k].starts_with(" ")) break;
      }
      block += lines[j] + "\n";
    }
    out.push_back(block);
    i = j;
  }
  return out;
}

// A copy without its header comment lines (and the lit directives among them).
std::string program_of_copy(const fs::path& p) {
  std::string out;
  for (const auto& line : lines_of(golden::slurp(p)))
    if (!line.starts_with("#")) out += line + "\n";
  return out;
}

// The edits a seed marks: its text says the rank>2 store carries the partition shapes as a
// 4th operand that its DSL listing leaves out, and spells the operand `(2, 3, 4)`.
const std::pair<std::string, std::string> seed_marked_edits[] = {
    {"        out_0 = pl.store(y_tile, [0, 0, 0], out_0)\n        return out_0\n",
     "        out_0 = pl.store(y_tile, [0, 0, 0], out_0, (2, 3, 4))\n        return out_0\n"},
};

}  // namespace

TEST_CASE("seeds: every @pl.program example is in tests/lit/seeds as the seed writes it") {
  if (!fs::is_directory(seeds_dir())) {
    MESSAGE("skipped: no seeds at " << seeds_dir().string());
    return;
  }
  std::set<std::string> copies;
  for (const auto& entry : fs::recursive_directory_iterator(copies_dir()))
    if (entry.path().extension() == ".pto") copies.insert(program_of_copy(entry.path()));
  std::size_t examples = 0;
  for (const auto& entry : fs::directory_iterator(seeds_dir())) {
    for (const std::string& program : programs_in(golden::slurp(entry.path()))) {
      ++examples;
      bool found = copies.count(program) > 0;
      for (const auto& [from, to] : seed_marked_edits)
        if (auto at = program.find(from); !found && at != std::string::npos && program.find("class After") != std::string::npos)
          found = copies.count(std::string(program).replace(at, from.size(), to)) > 0;
      CHECK_MESSAGE(found, entry.path().filename().string() << " has an example tests/lit/seeds/ lacks:\n" << program);
    }
  }
  CHECK(examples >= 4);  // seeds 000 and 003 each show FlattenTileNdTo2D's Before and After
}
