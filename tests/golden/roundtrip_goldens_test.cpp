// Text round trip over upstream's printed programs: parse, print, and get the same bytes
// back (text_format.md §7). Every pass input and expected output is a round-trip case too.
#include <doctest/doctest.h>

#include "golden_support.hpp"
#include "tilewright/ir/structural_equal.hpp"

namespace {

void check_roundtrip(const std::filesystem::path& file) {
  CAPTURE(file.string());
  std::string text = golden::slurp(file);
  tilewright::ir::Program program;
  try {
    program = tilewright::text::parse_program(text, file.string());
  } catch (const tilewright::ir::Error& e) {
    FAIL_CHECK(tilewright::ir::render(e.diagnostic(), text));
    return;
  }
  std::string printed = tilewright::text::print(program);
  CHECK(printed == text);
  // parse → print → parse is structurally equal.
  auto again = tilewright::text::parse_program(printed, "<reprinted>");
  CHECK_MESSAGE(tilewright::ir::structural_equal(program, again),
                tilewright::ir::structural_difference(program, again).value_or(""));
}

void check_folder(const std::string& folder, bool inputs_and_outputs) {
  for (const auto& name : golden::cases(folder)) {
    auto base = golden::root() / folder / name;
    check_roundtrip(base.string() + ".pto");
    if (inputs_and_outputs && std::filesystem::exists(base.string() + ".expected.pto"))
      check_roundtrip(base.string() + ".expected.pto");
  }
}

}  // namespace

TEST_CASE("roundtrip: whole programs printed by upstream") { check_folder("roundtrip", false); }
TEST_CASE("roundtrip: materialize_tensor_strides inputs and outputs") { check_folder("materialize_tensor_strides", true); }
TEST_CASE("roundtrip: fold_no_op_reshape inputs and outputs") { check_folder("fold_no_op_reshape", true); }
TEST_CASE("roundtrip: flatten_tile_nd_to_2d inputs and outputs") { check_folder("flatten_tile_nd_to_2d", true); }
TEST_CASE("roundtrip: canonicalize_tile_slice inputs and outputs") { check_folder("canonicalize_tile_slice", true); }
