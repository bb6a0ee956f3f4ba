// The golden corpus under the interpreter: for every rewrite case, upstream's input and
// upstream's expected output must compute the same thing. This checks the interpreter as
// much as the passes: a disagreement is a bug in one of them, never skipped.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "tilewright/interp/equivalence.hpp"
#include "tilewright/text/parser.hpp"

using namespace tilewright;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Cases investigated and found to differ because upstream's behaviour (which the golden
// records and the seeds specify) is not meaning-preserving. Each is reported on the board.
const std::map<std::string, std::string>& known_differences() {
  static const std::map<std::string, std::string> known = {
      {"vec_load_dynamic_valid_times_const",
       "FL-10 merges valid_shape [2, s, 256] of a [2, 16, 256] tile into [2*s, 256]; the valid elements of the "
       "3-D tile are rows 0..s-1 and 16..16+s-1 of the flattened [32, 256] tile, not rows 0..2s-1, so the "
       "flattened store writes rows the source never loaded and drops rows 16..16+s-1 (any s < 16)"},
  };
  return known;
}

struct Tally {
  int equivalent = 0;
  std::vector<std::string> unsupported, unreadable, different, known, vacuous;
};

Tally validate_folder(const std::string& folder) {
  Tally t;
  fs::path dir = fs::path(TILEWRIGHT_GOLDEN_DIR) / folder;
  std::vector<fs::path> inputs;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::string n = e.path().filename().string();
    if (n.ends_with(".pto") && !n.ends_with(".expected.pto")) inputs.push_back(e.path());
  }
  std::sort(inputs.begin(), inputs.end());
  for (const auto& in : inputs) {
    std::string stem = in.string().substr(0, in.string().size() - 4);
    fs::path expected = stem + ".expected.pto";
    if (!fs::exists(expected)) continue;  // an error case: no output to compare
    std::string name = in.stem().string();
    ir::Program a, b;
    try {
      a = text::parse_program(slurp(in), in.string());
      b = text::parse_program(slurp(expected), expected.string());
    } catch (const ir::Error& e) {
      t.unreadable.push_back(name + ": " + e.diagnostic().message);
      continue;
    }
    interp::EquivalenceOptions o;
    o.trials = 3;
    o.seed = 20261201;
    o.max_dim = 24;
    auto r = interp::check_equivalent(a, b, o);
    switch (r.status) {
      case interp::EquivalenceReport::Status::equivalent:
        ++t.equivalent;
        if (r.elements_compared == 0) t.vacuous.push_back(name);
        break;
      case interp::EquivalenceReport::Status::different:
        if (known_differences().count(name)) t.known.push_back(name);
        else t.different.push_back(name + ": " + r.message);
        break;
      default: t.unsupported.push_back(name + ": " + r.message); break;
    }
  }
  return t;
}

}  // namespace

TEST_CASE("interp golden: every rewrite case's input and expected output are equivalent") {
  if (!fs::is_directory(TILEWRIGHT_GOLDEN_DIR)) {
    MESSAGE("skipped: the golden corpus " << TILEWRIGHT_GOLDEN_DIR << " is absent");
    return;
  }
  for (std::string folder : {"flatten_tile_nd_to_2d", "materialize_tensor_strides", "fold_no_op_reshape",
                             "canonicalize_tile_slice"}) {
    CAPTURE(folder);
    Tally t = validate_folder(folder);
    MESSAGE(folder << ": " << t.equivalent << " equivalent, " << t.unsupported.size() << " not runnable, "
                   << t.unreadable.size() << " unreadable, " << t.different.size() << " different");
    for (const auto& u : t.unsupported) MESSAGE("  not runnable: " << u);
    for (const auto& u : t.unreadable) MESSAGE("  unreadable: " << u);
    for (const auto& v : t.vacuous) MESSAGE("  equivalent but nothing defined to compare: " << v);
    for (const auto& d : t.different) FAIL_CHECK("different: " << d);
    for (const auto& k : t.known) MESSAGE("  known difference (upstream behaviour): " << k << ": " << known_differences().at(k));
    CHECK(t.equivalent > 0);
    if (folder == "flatten_tile_nd_to_2d") CHECK(t.known.size() == known_differences().size());
  }
}
