#pragma once
// The round-trip check: print → parse → structurally equal. It needs the text layer, so it
// lives here and is installed as a pipeline instrument by whoever wants it (the CLI, tests);
// passes never depend on the parser.
#include <optional>
#include <string>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

namespace tilewright::text {

// nullopt when the program survives its own text; else why not.
inline std::optional<std::string> roundtrip_problem(const ir::Program& program) {
  std::string printed = print(program);
  ir::Program reparsed;
  try {
    reparsed = parse_program(printed, "<roundtrip>");
  } catch (const ir::Error& e) {
    return "the printed program does not parse back: " + e.diagnostic().message;
  }
  return ir::structural_difference(program, reparsed);
}

inline pass::Instruments roundtrip_instrument(pass::Instruments base = {}) {
  auto after = base.after;
  base.after = [after](const pass::PassInfo& info, const ir::Program& program) {
    if (after) after(info, program);
    if (auto problem = roundtrip_problem(program))
      ir::throw_internal_error("roundtrip", "after " + std::string(info.name) +
                                                ": print -> parse -> compare failed: " + *problem);
  };
  return base;
}

}  // namespace tilewright::text
