// tilewright-opt: parse a pl program, run passes, verify, print. An mlir-opt for PTO tiles.
//
// Exit status: 0 success, 1 any diagnostic (or --expect mismatch), 2 usage error.
// The options live in opt/options.hpp (one table); this file runs them, stage by stage:
// read → split into chunks → per chunk: parse, check the pipeline order, run the passes
// (with their instruments), compare or print → reports.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "opt/diagnostic_verifier.hpp"
#include "opt/options.hpp"
#include "tilewright/interp/driver.hpp"
#include "opt/reports.hpp"
#include "opt/split_input.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/pipeline_check.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"
#include "tilewright/text/roundtrip.hpp"
#include "tilewright/text/source.hpp"
#include "tilewright/version.hpp"

#ifdef TILEWRIGHT_TOOL_ALLOCATOR_NAME
constexpr const char* allocator_name = TILEWRIGHT_TOOL_ALLOCATOR_NAME;  // tilewright_use_tool_allocator
#else
constexpr const char* allocator_name = "system";
#endif

namespace {

using namespace tilewright;
using opt::Options;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Reads `path` ("-": standard input) into `out`; when it cannot, says why, in plain words.
std::optional<std::string> read_file(const std::string& path, std::string& out) {
  try {
    out = text::read_source(path);
    return std::nullopt;
  } catch (const ir::Error& e) {
    return e.diagnostic().message;
  }
}

bool write_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

void list_passes() {
  std::cout << "passes (factory name, CamelCase name):\n";
  for (const auto& p : passes::all_passes()) {
    std::string_view summary = passes::summary_of(p.info.name);
    std::cout << "  " << p.info.factory << " (" << p.info.name << ")\n      "
              << (summary.empty() ? std::string_view("(no description)") : summary) << "\n      requires "
              << p.info.required.to_string() << "\n      produces " << p.info.produced.to_string() << "\n";
    if (!p.info.inert_without.empty())
      std::cout << "      does nothing without " << p.info.inert_without.to_string() << "\n";
  }
  std::cout << "pipelines:\n  default:";
  const char* sep = " ";
  for (const auto& p : passes::default_pipeline()) {
    std::cout << sep << p.info.factory;
    sep = ", ";
  }
  std::cout << "\n";
}

pass::AnyPass pass_named(const std::string& name) {
  auto p = passes::find_pass(name);
  if (p) return *p;
  std::vector<std::string_view> names;
  auto all = passes::all_passes();
  for (const auto& q : all) names.insert(names.end(), {q.info.factory, q.info.name});
  std::string_view near = opt::detail::nearest(passes::pass_key(name), names);
  opt::usage_error("unknown pass '" + name + "'" + (near.empty() ? "" : " (did you mean '" + std::string(near) + "'?)") +
                   "; see --list-passes");
}

// The passes named by --pipeline and --passes, in that order. Every pass name on the command
// line is checked here, before any input is read, so a typo is a usage error.
pass::Pipeline build_pipeline(const Options& o) {
  pass::Pipeline pipeline;
  if (o.default_pipeline)
    for (auto& p : passes::default_pipeline()) pipeline.add(p);
  for (const auto& name : o.passes) pipeline.add(pass_named(name));
  for (const auto* list : {&o.print_ir_before, &o.print_ir_after})
    for (const auto& name : *list) pass_named(name);
  if (!o.expect.empty() && o.split_input_file)
    opt::usage_error("--expect compares one program; it cannot be combined with --split-input-file");
  return pipeline;
}

pass::PassContext make_context(const Options& o) {
  pass::PassContext ctx;
  ctx.backend = *backend::backend_by_name(o.backend);
  ctx.max_expansion = o.max_expansion;
  return ctx;
}

interp::EquivalenceOptions equivalence_options(const Options& o) {
  interp::EquivalenceOptions e;
  e.seed = o.seed;
  e.trials = o.trials;
  e.dims = o.dims;
  return e;
}

// --expect-equivalent: FILE is the reference, the result the candidate.
int compare_semantics(const Options& o, const ir::Program& result, const std::string& file_name) {
  std::string source;
  if (auto why = read_file(o.expect_equivalent, source)) {
    std::cerr << "tilewright-opt: error: " << *why << "\n";
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
    auto chosen = interp::default_entry(*program);
    if (!chosen) opt::usage_error("--run: the program has several functions; name one with --entry=NAME");
    entry = *chosen;
  }
  try {
    interp::RunResult r = interp::run_entry(program, entry, o.inputs, o.outputs, o.seed, o.dims);
    for (const auto& n : r.notes) std::cerr << ir::render(interp::as_diagnostic(n));
    if (r.note_count > r.notes.size()) std::cerr << "(" << r.note_count - r.notes.size() << " more warnings)\n";
    std::cout << r.summary;
  } catch (const interp::RunError& e) {
    throw ir::Error(interp::as_diagnostic(e));
  }
  return 0;
}

bool names_pass(const std::vector<std::string>& names, const pass::PassInfo& info) {
  for (const auto& n : names)
    if (n == info.name || passes::pass_key(n) == info.factory) return true;
  return false;
}

void dump(std::string_view when, const pass::PassInfo& info, const ir::Program& p) {
  std::cerr << "# -----// IR Dump " << when << " " << info.name << " (" << info.factory << ") //----- #\n"
            << text::print(p) << "\n";
}

// The --print-ir-* dumps, the round trip of --verify=roundtrip (timed as verification).
pass::Instruments make_instruments(const Options& o, opt::TimingReport& timing) {
  pass::Instruments instruments;
  bool want_before = o.print_ir_before_all || !o.print_ir_before.empty() || o.print_ir_after_change;
  if (want_before) {
    auto before_program = std::make_shared<ir::Program>();
    instruments.before = [&o, before_program](const pass::PassInfo& info, const ir::Program& p) {
      *before_program = p;
      if (o.print_ir_before_all || names_pass(o.print_ir_before, info)) dump("Before", info, p);
    };
    instruments.after = [&o, before_program](const pass::PassInfo& info, const ir::Program& p) {
      bool print = o.print_ir_after_all || names_pass(o.print_ir_after, info);
      // Unchanged passes hand back their input; a rebuilt but equal program is no change either.
      if (!print && o.print_ir_after_change)
        print = p != *before_program && ir::structural_difference(p, *before_program).has_value();
      if (print) dump("After", info, p);
    };
  } else if (o.print_ir_after_all || !o.print_ir_after.empty()) {
    instruments.after = [&o](const pass::PassInfo& info, const ir::Program& p) {
      if (o.print_ir_after_all || names_pass(o.print_ir_after, info)) dump("After", info, p);
    };
  }
  if (o.verify == pass::VerifyLevel::roundtrip) {
    pass::Instruments checked = text::roundtrip_instrument({});
    auto print_after = instruments.after;
    instruments.after = [print_after, check = checked.after, &timing](const pass::PassInfo& info, const ir::Program& p) {
      if (print_after) print_after(info, p);
      auto start = Clock::now();
      check(info, p);
      timing.add_verify(ms_since(start));
    };
  }
  if (o.verify_semantic) instruments = interp::semantic_instrument(equivalence_options(o), instruments);
  return instruments;
}

// Where a result goes: stdout, or the -o file (written once, at the end).
struct Output {
  std::string text;
  bool any = false;
  void add(std::string_view chunk) {
    text += chunk;
    any = true;
  }
  // A whole printed program: taken over, not copied, when it is the first (a 100k-statement
  // kernel prints 10-14 MB, and the programs are still alive beside it).
  void add_program(std::string&& printed) {
    if (text.empty()) text = std::move(printed);
    else text += printed;
    text += '\n';
    any = true;
  }
};

// One chunk's run: the diagnostics it produced (at most one error, with its notes) and its
// printed result. Spans are moved to the chunk's place in the original file.
struct ChunkRun {
  std::vector<ir::Diagnostic> diagnostics;
  std::optional<std::string> printed;
  bool failed = false;
};

ir::Diagnostic located_in_file(ir::Diagnostic d, int first_line, const std::string& file_name) {
  auto shift = [&](ir::Span& s) {
    if (s.known() && s.file_name() == file_name) s.line += first_line - 1;
  };
  shift(d.span);
  for (auto& note : d.notes) shift(note.second);
  return d;
}

// Compares with --expect; the diagnostic says where, on each side, the first difference is.
std::optional<ir::Diagnostic> compare_with_expected(const Options& o, const ir::Program& result) {
  std::string expected_text;
  if (auto why = read_file(o.expect, expected_text))
    return ir::Diagnostic{ir::Severity::error, ir::ErrorKind::user, "", *why, {}, {}};
  ir::Program expected = text::parse_program(expected_text, o.expect);
  // The DSL re-assigns names where the IR has fresh ones: the same program, so both sides
  // are compared in SSA form (a no-op on a program already in it).
  pass::PassContext scratch;
  const pass::AnyPass to_ssa = pass_named("ConvertToSSA");
  expected = to_ssa.run(expected, scratch);
  const ir::Program compared = to_ssa.run(result, scratch);
  if (!ir::structural_difference(compared, expected)) return std::nullopt;
  // Compare the printed result, parsed back, so that its statements have line numbers in the
  // text the user sees (-o FILE, or what tilewright-opt prints).
  const std::string result_name = o.output.empty() || o.output == "-" ? "the result" : o.output;
  const std::string printed = text::print(result);
  ir::Program reparsed = to_ssa.run(text::parse_program(printed, result_name), scratch);
  ir::StructuralEqual cmp;
  cmp(reparsed, expected);
  const std::string difference = cmp.first_difference().empty() ? *ir::structural_difference(compared, expected)
                                                                 : cmp.first_difference();
  ir::Diagnostic d{ir::Severity::error, ir::ErrorKind::user, "", "result differs from " + o.expect + ": " + difference,
                   {}, {}};
  auto line_text = [](std::string_view text, int line) {
    std::size_t begin = 0;
    for (int l = 1; l < line && begin != std::string_view::npos; ++l) {
      begin = text.find('\n', begin);
      if (begin != std::string_view::npos) ++begin;
    }
    if (begin == std::string_view::npos) return std::string();
    std::size_t end = text.find('\n', begin);
    std::string_view t = text.substr(begin, end == std::string_view::npos ? end : end - begin);
    std::size_t first = t.find_first_not_of(' ');
    return std::string(first == std::string_view::npos ? t : t.substr(first));
  };
  const auto& [mine, theirs] = cmp.first_difference_location();
  if (mine.known())
    d.notes.emplace_back("in " + result_name + ", line " + std::to_string(mine.line) + ": " + line_text(printed, mine.line),
                         ir::Span{});
  if (theirs.known())
    d.notes.emplace_back("in " + o.expect + ", line " + std::to_string(theirs.line) + ": " +
                             line_text(expected_text, theirs.line),
                         ir::Span{});
  return d;
}

using Counts = std::map<std::string, std::uint64_t>;  // pass::Statistics' keys, summed over chunks

// A pass that breaks an invariant on an input whose properties were taken on trust (--assume)
// most likely met an input without them: when the input fails an assumed property's verifier,
// that is the error to report — located in the user's text — not the pass's.
std::optional<ir::Diagnostic> false_assumption(const Options& o, const ir::Program& input) {
  if (o.assume.empty()) return std::nullopt;
  ir::Diagnostics problems = pass::verify(o.assume, input);
  if (problems.empty()) return std::nullopt;
  std::string flag;
  o.assume.for_each([&](pass::Property p) { flag += (flag.empty() ? "" : ",") + std::string(pass::name_of(p)); });
  ir::Diagnostic d = problems.front();
  d.kind = ir::ErrorKind::user;
  d.message = "the input does not hold what --assume=" + flag + " declares: " + d.message +
              "; fix the input, or drop the property from --assume so that the pipeline check finds the pass "
              "that establishes it";
  return d;
}

// The programs of a run are freed by the process's exit, not node by node (a 100k-statement
// kernel's teardown is a fifth of its run), as compilers do with their ASTs. Held from a
// static, they stay reachable, so LeakSanitizer does not count them.
void keep_until_exit(ir::Program program) {
  static auto* kept = new std::vector<ir::Program>;
  if (program) kept->push_back(std::move(program));
}

ChunkRun run_chunk(const Options& o, const pass::Pipeline& passes, opt::Chunk chunk, const std::string& file_name,
                   Counts& stats, opt::TimingReport& timing) {
  ChunkRun run;
  auto fail = [&](ir::Diagnostic d) {
    run.diagnostics.push_back(located_in_file(std::move(d), chunk.first_line, file_name));
    run.failed = true;
    return run;
  };
  ir::Program program;
  ir::Program result;
  try {
    auto start = Clock::now();
    program = text::parse_program(chunk.text, file_name);
    timing.add_parse(ms_since(start));

    // The order check: which pass needs what the input lacks, with the verifiers' findings
    // and the pass that establishes it (passes/pipeline_check.hpp); --verify=none skips it.
    if (o.verify != pass::VerifyLevel::none || !o.require.empty()) {
      ir::Diagnostics check =
          passes::check_pipeline(passes, program, {o.assume, o.require, o.verify != pass::VerifyLevel::none});
      for (auto& d : check) run.diagnostics.push_back(located_in_file(std::move(d), chunk.first_line, file_name));
      if (passes::has_error(run.diagnostics)) {
        run.failed = true;
        return run;
      }
    }
    const pass::Pipeline& pipeline = passes;

    pass::PassContext ctx = make_context(o);
    std::vector<pass::PassTiming> timings;
    try {
      result = pipeline.run(program, ctx, o.verify, make_instruments(o, timing), &timings);
    } catch (...) {
      for (const auto& [key, n] : ctx.stats.counts()) stats[key] += n;
      throw;
    }
    for (const auto& t : timings) {
      timing.add_pass(t.pass, t.milliseconds);
      timing.add_verify(t.verify_milliseconds);
    }
    for (const auto& [key, n] : ctx.stats.counts()) stats[key] += n;

    // The interpreter's modes report instead of printing the program.
    if (!o.expect_equivalent.empty()) {
      run.failed = compare_semantics(o, result, file_name) != 0;
      return run;
    }
    if (o.run) {
      run_entry(o, result);
      return run;
    }

    // With --expect the result is printed only when -o asks for it, and written even when
    // it differs, so that it can be looked at.
    start = Clock::now();
    if (o.expect.empty() || !o.output.empty()) run.printed = text::print(result);
    timing.add_output(ms_since(start));
    if (!o.expect.empty())
      if (auto difference = compare_with_expected(o, result)) return fail(std::move(*difference));
  } catch (const ir::Error& e) {
    if (e.diagnostic().kind == ir::ErrorKind::internal && program)
      if (auto wrong = false_assumption(o, program)) return fail(std::move(*wrong));
    return fail(e.diagnostic());
  }
  keep_until_exit(std::move(program));
  keep_until_exit(std::move(result));
  return run;
}

// `file:line:col: error: …` with the source line and caret; a diagnostic without a location
// is prefixed by the file name.
std::string render(const ir::Diagnostic& d, std::string_view source, const std::string& file_name) {
  if (!d.span.known()) return (d.severity == ir::Severity::note ? "" : file_name + ": ") + ir::render(d);
  return ir::render(d, d.span.file_name() == file_name ? source : std::string_view());
}

int run(const Options& o) {
  pass::Pipeline pipeline = build_pipeline(o);
  std::string source;
  if (auto why = read_file(o.input, source)) {
    std::cerr << "tilewright-opt: error: " << *why << "\n";
    return 1;
  }
  const std::string file_name = o.input == "-" ? "<stdin>" : o.input;

  std::vector<opt::Chunk> chunks =
      o.split_input_file ? opt::split_input(source) : std::vector<opt::Chunk>{opt::Chunk{source, 1}};
  Counts stats;
  opt::TimingReport timing;
  Output output;
  bool failed = false;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    ChunkRun run = run_chunk(o, pipeline, chunks[i], file_name, stats, timing);
    if (o.verify_diagnostics) {
      std::vector<opt::ExpectationError> malformed;
      auto expected = opt::parse_expectations(chunks[i].text, chunks[i].first_line, malformed);
      for (const auto& m : malformed)
        std::cerr << file_name << ":" << m.line << ":" << m.column << ": error: " << m.message << "\n";
      std::string problems = opt::verify_diagnostics(std::move(expected), run.diagnostics, file_name);
      std::cerr << problems;
      failed = failed || !problems.empty() || !malformed.empty();
    } else {
      for (const auto& d : run.diagnostics) std::cerr << render(d, source, file_name);
      failed = failed || run.failed;
    }
    if (i > 0) output.add(std::string(opt::split_marker) + "\n");
    if (run.printed) output.add_program(std::move(*run.printed));
  }

  if (o.time_passes) std::cerr << timing.text();
  if (!o.time_passes_json.empty() && !write_file(o.time_passes_json, timing.json())) {
    std::cerr << "tilewright-opt: error: cannot write '" << o.time_passes_json << "'\n";
    failed = true;
  }
  if (o.stats || !o.stats_json.empty()) {
    std::vector<std::string_view> order;
    for (const auto& p : pipeline.passes()) order.push_back(p.info.name);
    auto counters = opt::ordered_counters(stats, order);
    if (o.stats) std::cerr << opt::stats_text(counters);
    if (!o.stats_json.empty() && !write_file(o.stats_json, opt::stats_json(counters))) {
      std::cerr << "tilewright-opt: error: cannot write '" << o.stats_json << "'\n";
      failed = true;
    }
  }

  if (o.output.empty() || o.output == "-") {
    std::cout << output.text;
  } else if (output.any || !failed) {
    if (!write_file(o.output, output.text)) {
      std::cerr << "tilewright-opt: error: cannot write '" << o.output << "'\n";
      return 1;
    }
  }
  return failed ? 1 : 0;
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
      std::cout << "tilewright-opt " << version() << " (malloc: " << allocator_name << ")\n";
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
