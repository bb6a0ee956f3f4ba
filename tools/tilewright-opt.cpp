// tilewright-opt: parse a pl program, run passes, verify, print. An mlir-opt for PTO tiles.
//
// Exit status: 0 success, 1 any diagnostic (or --expect mismatch), 2 usage error.
// The options live in opt/options.hpp (one table); this file runs them, stage by stage.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "opt/options.hpp"
#include "tilewright/interp/driver.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"
#include "tilewright/text/roundtrip.hpp"
#include "tilewright/tilewright.hpp"

namespace {

using namespace tilewright;
using opt::Options;

bool read_file(const std::string& path, std::string& out) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), {});
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out.assign(std::istreambuf_iterator<char>(in), {});
  return true;
}

void list_passes() {
  for (const auto& p : passes::all_passes())
    std::cout << p.info.factory << " (" << p.info.name << ")\n  requires " << p.info.required.to_string()
              << "\n  produces " << p.info.produced.to_string() << "\n";
}

// The passes named by --pipeline and --passes, in that order (names checked before reading
// any input, so a typo is a usage error).
pass::Pipeline build_pipeline(const Options& o) {
  pass::Pipeline pipeline;
  if (o.default_pipeline)
    for (auto& p : passes::default_pipeline()) pipeline.add(p);
  for (const auto& name : o.passes) {
    auto p = passes::find_pass(name);
    if (!p) opt::usage_error("unknown pass '" + name + "' (see --list-passes)");
    pipeline.add(*p);
  }
  return pipeline;
}

pass::PassContext make_context(const Options& o) {
  pass::PassContext ctx;
  ctx.backend = *backend::backend_by_name(o.backend);
  return ctx;
}

interp::EquivalenceOptions equivalence_options(const Options& o) {
  interp::EquivalenceOptions e;
  e.seed = o.seed;
  e.trials = o.trials;
  e.dims = o.dims;
  return e;
}

// A run the interpreter stopped, as a diagnostic pointing into the source.
ir::Error run_error(const interp::RunError& e) {
  ir::Diagnostic d;
  d.origin = "interp";
  d.message = e.what();
  d.span = e.span();
  return ir::Error(std::move(d));
}

// --expect-equivalent: FILE is the reference, the result the candidate.
int compare_semantics(const Options& o, const ir::Program& result, const std::string& file_name) {
  std::string source;
  if (!read_file(o.expect_equivalent, source)) {
    std::cerr << "tilewright-opt: error: cannot read '" << o.expect_equivalent << "'\n";
    return 1;
  }
  ir::Program reference = text::parse_program(source, o.expect_equivalent);
  interp::EquivalenceReport r = interp::check_equivalent(reference, result, equivalence_options(o));
  if (r.ok()) {
    std::cerr << file_name << ": equivalent to " << o.expect_equivalent << " on " << r.trials_run << " input sets ("
              << r.functions.size() << " function(s))\n";
    return 0;
  }
  std::cerr << file_name << ": error: "
            << (r.status == interp::EquivalenceReport::Status::different ? "result is not equivalent to "
                                                                         : "cannot compare with ")
            << o.expect_equivalent << ": " << r.message << "\n";
  return 1;
}

// --run: the entry function on random or given inputs.
int run_entry(const Options& o, const ir::Program& program) {
  std::string entry = o.entry;
  if (entry.empty()) {
    std::vector<std::string> orchestration;
    for (const auto& f : program->functions)
      if (f->type == ir::FunctionType::Orchestration) orchestration.push_back(f->name);
    if (orchestration.size() == 1) entry = orchestration.front();
    else if (program->functions.size() == 1) entry = program->functions.front()->name;
    else opt::usage_error("--run: the program has several functions; name one with --entry=NAME");
  }
  try {
    interp::RunResult r = interp::run_entry(program, entry, o.inputs, o.outputs, o.seed, o.dims);
    for (const auto& n : r.notes) {
      ir::Diagnostic d;
      d.severity = ir::Severity::warning;
      d.origin = "interp";
      d.message = n.message;
      d.span = n.span;
      std::cerr << ir::render(d);
    }
    if (r.note_count > r.notes.size()) std::cerr << "(" << r.note_count - r.notes.size() << " more warnings)\n";
    std::cout << r.summary;
  } catch (const interp::RunError& e) {
    throw run_error(e);
  }
  return 0;
}

pass::Instruments make_instruments(const Options& o) {
  pass::Instruments instruments;
  if (o.print_after_all)
    instruments.after = [](const pass::PassInfo& info, const ir::Program& p) {
      std::cerr << "// ----- after " << info.name << " -----\n" << text::print(p) << "\n";
    };
  if (o.verify == pass::VerifyLevel::roundtrip) instruments = text::roundtrip_instrument(instruments);
  if (o.verify_semantic) instruments = interp::semantic_instrument(equivalence_options(o), instruments);
  return instruments;
}

void report(const Options& o, const pass::PassContext& ctx, const std::vector<pass::PassTiming>& timings) {
  if (o.time_passes)
    for (const auto& t : timings)
      std::fprintf(stderr, "%10.3f ms  %.*s\n", t.milliseconds, static_cast<int>(t.pass.size()), t.pass.data());
  if (o.stats)
    for (const auto& [key, n] : ctx.stats.counts()) std::cerr << key << ": " << n << "\n";
}

// Compares with --expect; 0 when structurally equal.
int compare_with_expected(const Options& o, const ir::Program& result, const std::string& file_name) {
  std::string expected_text;
  if (!read_file(o.expect, expected_text)) {
    std::cerr << "tilewright-opt: error: cannot read '" << o.expect << "'\n";
    return 1;
  }
  ir::Program expected = text::parse_program(expected_text, o.expect);
  if (auto diff = ir::structural_difference(result, expected)) {
    std::cerr << file_name << ": error: result differs from " << o.expect << ": " << *diff << "\n";
    return 1;
  }
  return 0;
}

int emit(const Options& o, const ir::Program& result) {
  std::string printed = text::print(result);
  if (o.output.empty()) {
    std::cout << printed << "\n";
    return 0;
  }
  std::ofstream out(o.output, std::ios::binary);
  out << printed;
  if (!out) {
    std::cerr << "tilewright-opt: error: cannot write '" << o.output << "'\n";
    return 1;
  }
  return 0;
}

int run(const Options& o) {
  pass::Pipeline pipeline = build_pipeline(o);
  std::string source;
  if (!read_file(o.input, source)) {
    std::cerr << "tilewright-opt: error: cannot read '" << o.input << "'\n";
    return 1;
  }
  const std::string file_name = o.input == "-" ? "<stdin>" : o.input;

  try {
    ir::Program program = text::parse_program(source, file_name);
    pipeline = pass::Pipeline(pipeline.passes(), pass::verified_properties(program));
    if (auto problem = pipeline.check_order()) {
      std::cerr << file_name << ": error: " << *problem << "\n";
      return 1;
    }
    pass::PassContext ctx = make_context(o);
    std::vector<pass::PassTiming> timings;
    ir::Program result = pipeline.run(program, ctx, o.verify, make_instruments(o), o.time_passes ? &timings : nullptr);
    report(o, ctx, timings);
    if (!o.expect.empty()) return compare_with_expected(o, result, file_name);
    if (!o.expect_equivalent.empty()) return compare_semantics(o, result, file_name);
    if (o.run) return run_entry(o, result);
    return emit(o, result);
  } catch (const ir::Error& e) {
    std::cerr << ir::render(e.diagnostic(), e.diagnostic().span.file_name() == file_name ? std::string_view(source)
                                                                                          : std::string_view());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o = opt::parse_args(std::span<const char* const>(argv + 1, argc > 0 ? argc - 1 : 0));
    if (o.help) {
      std::cout << opt::usage_text();
      return 0;
    }
    if (o.version) {
      std::cout << "tilewright-opt " << version() << "\n";
      return 0;
    }
    if (o.list_passes) {
      list_passes();
      return 0;
    }
    return run(o);
  } catch (const opt::UsageError& e) {
    std::cerr << "tilewright-opt: error: " << e.what() << "\n(run tilewright-opt --help for usage)\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tilewright-opt: internal error: " << e.what() << "\n";
    return 1;
  }
}
