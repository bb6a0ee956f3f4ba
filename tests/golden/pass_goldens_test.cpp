// Golden before/after tests for the passes, over upstream's printed corpus. Each case's
// catalog IDs are listed in its NAME.ids file; the assertion is byte equality with the
// printed output upstream produced, or an error containing upstream's key phrase.
#include <doctest/doctest.h>

#include "golden_support.hpp"
#include "tilewright/ir/structural_equal.hpp"

namespace {

// A case upstream lowers into a program that computes something else, which tilewright
// refuses instead (issue 34; the pass's doc page says why): its name, and a phrase of the
// refusal.
struct Refused {
  std::string_view name;
  std::string_view phrase;
};

// Cases whose name starts with `skip_prefix` are left to a test of their own. `structural`
// also compares the result with the parsed expectation (Vars matched by definition).
void check_folder(const std::string& folder, std::string_view skip_prefix = {}, bool structural = false,
                  std::initializer_list<Refused> refused = {}) {
  auto names = golden::cases(folder);
  REQUIRE_FALSE(names.empty());
  for (const auto& name : names) {
    if (!skip_prefix.empty() && name.starts_with(skip_prefix)) continue;
    CAPTURE(name);
    auto base = golden::root() / folder / name;
    auto ids = golden::trim(golden::slurp(base.string() + ".ids"));
    CAPTURE(ids);
    golden::Outcome out = golden::run_case(folder, name);
    const Refused* unsound = nullptr;
    for (const auto& r : refused)
      if (r.name == name) unsound = &r;
    if (unsound) {
      CHECK_MESSAGE(out.error.has_value(), "upstream's lowering changes what this case computes; expected a refusal containing: " << unsound->phrase);
      if (out.error) CHECK_MESSAGE(out.error->message.find(unsound->phrase) != std::string::npos, out.error->message);
    } else if (std::filesystem::exists(base.string() + ".error")) {
      std::string phrase = golden::trim(golden::slurp(base.string() + ".error"));
      // CHECK, not REQUIRE: one failing case must not hide the others.
      CHECK_MESSAGE(out.error.has_value(), "expected an error containing: " << phrase);
      if (out.error) CHECK_MESSAGE(out.error->message.find(phrase) != std::string::npos, out.error->message);
    } else {
      CHECK_MESSAGE(!out.error.has_value(), (out.error ? out.error->message : std::string()));
      if (out.error) continue;
      std::string expected = golden::slurp(base.string() + ".expected.pto");
      CHECK(out.printed == expected);
      if (!structural) continue;
      auto reparsed = tilewright::text::parse_program(expected, base.string() + ".expected.pto");
      auto difference = tilewright::ir::structural_difference(out.program, reparsed);
      CHECK_MESSAGE(!difference, difference.value_or(""));
    }
  }
}

}  // namespace

// MT-01…MT-13, TVS-02/03/07: every case of the MaterializeTensorStrides corpus.
TEST_CASE("golden: materialize_tensor_strides") { check_folder("materialize_tensor_strides"); }

// FR-01…FR-06: every case of the FoldNoOpReshape corpus.
TEST_CASE("golden: fold_no_op_reshape") { check_folder("fold_no_op_reshape"); }

// CT-01…CT-22 (the rows seeds and upstream agree on): every CanonicalizeTileSlice case.
TEST_CASE("golden: canonicalize_tile_slice") { check_folder("canonicalize_tile_slice", {}, true); }

// FL-02…FL-63, BK-01: every FlattenTileNdTo2D case, the 32 batched-matmul ones included.
// FL-10: upstream merges the valid regions [2, s, 256] and [s, t, 8] into [2*s, 256] and
// [s*t, 8], the first rows of the flattened tile, which are other elements than the region's
// (docs/passes/flatten_tile_nd_to_2d.md, "Where the pass refuses").
TEST_CASE("golden: flatten_tile_nd_to_2d") {
  check_folder("flatten_tile_nd_to_2d", {}, true,
               {{"vec_load_dynamic_valid_times_const", "is not one band of rows"},
                {"vec_load_two_dynamic_valid_dims", "is not one band of rows"}});
}
