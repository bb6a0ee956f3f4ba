// Runs the library's MaterializeTensorStrides, then our own FoldMulsByOne, on a kernel in
// pl text, and prints the result with the pass statistics.
//   tilewright-example-custom_rule [kernel.pto]
#include <fstream>
#include <iostream>
#include <sstream>

#include <tilewright/pass/pipeline.hpp>
#include <tilewright/pass/verify.hpp>
#include <tilewright/passes/materialize_tensor_strides/pass.hpp>
#include <tilewright/text/parser.hpp>
#include <tilewright/text/printer.hpp>

#include "fold_muls_by_one.hpp"

namespace tw = tilewright;

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : TILEWRIGHT_EXAMPLE_KERNEL;
  std::ifstream in(path);
  if (!in) {
    std::cerr << "cannot read " << path << "\n";
    return 2;
  }
  std::stringstream source;
  source << in.rdbuf();
  try {
    tw::ir::Program program = tw::text::parse_program(source.str(), path, tw::ops::builtin_registry());
    // The kernel arrives already in SSA form, split into InCore and orchestration functions,
    // with 2-D tile ops whose memory is known: what MaterializeTensorStrides requires. The
    // pipeline declares that, and make_pipeline checks at compile time that every pass's
    // requirements are met by the declared input or an earlier pass.
    using P = tw::pass::Property;
    using input = tw::pass::declared_input<P::SSAForm, P::SplitIncoreOrch, P::IncoreTileOps, P::TileOps2D,
                                           P::TileMemoryInferred, P::NormalizedStmtStructure>;
    // What is declared is checked at run time too.
    if (auto problems = tw::pass::verify(input::set, program); !problems.empty()) {
      for (const auto& d : problems) std::cerr << d.message << "\n";
      return 1;
    }
    auto pipeline = tw::pass::make_pipeline(input{}, tw::passes::materialize_tensor_strides,
                                            my_compiler::fold_muls_by_one_pass);
    tw::pass::PassContext ctx;
    program = pipeline(program, ctx);
    std::cout << tw::text::print(program) << "\n";
    for (const auto& [key, value] : ctx.stats.counts()) std::cout << "# " << key << " = " << value << "\n";
  } catch (const tw::ir::Error& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
  return 0;
}
