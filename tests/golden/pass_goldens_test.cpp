// Golden before/after tests for the passes, over upstream's printed corpus. Each case's
// catalog IDs are listed in its NAME.ids file; the assertion is byte equality with the
// printed output upstream produced, or an error containing upstream's key phrase.
#include <doctest/doctest.h>

#include "golden_support.hpp"

namespace {

void check_folder(const std::string& folder) {
  auto names = golden::cases(folder);
  REQUIRE_FALSE(names.empty());
  for (const auto& name : names) {
    CAPTURE(name);
    auto base = golden::root() / folder / name;
    auto ids = golden::trim(golden::slurp(base.string() + ".ids"));
    CAPTURE(ids);
    golden::Outcome out = golden::run_case(folder, name);
    if (std::filesystem::exists(base.string() + ".error")) {
      std::string phrase = golden::trim(golden::slurp(base.string() + ".error"));
      REQUIRE_MESSAGE(out.error.has_value(), "expected an error containing: " << phrase);
      CHECK_MESSAGE(out.error->message.find(phrase) != std::string::npos, out.error->message);
    } else {
      REQUIRE_MESSAGE(!out.error.has_value(), (out.error ? out.error->message : std::string()));
      CHECK(out.printed == golden::slurp(base.string() + ".expected.pto"));
    }
  }
}

}  // namespace

// MT-01…MT-13, TVS-02/03/07: every case of the MaterializeTensorStrides corpus.
TEST_CASE("golden: materialize_tensor_strides") { check_folder("materialize_tensor_strides"); }

// FR-01…FR-06: every case of the FoldNoOpReshape corpus.
TEST_CASE("golden: fold_no_op_reshape") { check_folder("fold_no_op_reshape"); }
