// tilewright-opt: parse a pl program, run passes, verify, print. An mlir-opt for PTO tiles.
//
// Exit status: 0 success, 1 any diagnostic (or --expect mismatch), 2 usage error.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"
#include "tilewright/text/roundtrip.hpp"
#include "tilewright/tilewright.hpp"

namespace {

using namespace tilewright;

constexpr std::string_view usage_text =
    "usage: tilewright-opt [FILE|-] [options]\n"
    "\n"
    "Parses a pl program (PyPTO's printed IR), runs passes, verifies and prints the result.\n"
    "\n"
    "options:\n"
    "  --passes=a,b,...        run these passes in order (factory or CamelCase names)\n"
    "  --pipeline=default      run the default tile-lowering pipeline\n"
    "  --backend=NAME          none (default, unlimited), ascend910b or ascend950\n"
    "  --verify=LEVEL          none, basic (default: verify produced properties after each\n"
    "                          pass) or roundtrip (also print -> parse -> compare)\n"
    "  --expect=FILE           compare the result with FILE structurally; exit 1 on a difference\n"
    "  --print-after-all       print the program after every pass (to stderr)\n"
    "  --time-passes           report the time each pass took (to stderr)\n"
    "  --stats                 report pass statistics (to stderr)\n"
    "  --list-passes           list the available passes and exit\n"
    "  -o FILE                 write the result to FILE instead of stdout\n"
    "  --help, --version\n";

struct Options {
  std::string input = "-";
  std::vector<std::string> passes;
  bool default_pipeline = false;
  std::string backend = "none";
  pass::VerifyLevel verify = pass::VerifyLevel::basic;
  std::string expect;
  bool print_after_all = false;
  bool time_passes = false;
  bool stats = false;
  std::string output;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::cerr << "tilewright-opt: error: " << message << "\n(run tilewright-opt --help for usage)\n";
  std::exit(2);
}

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  while (!s.empty()) {
    auto comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    s.remove_prefix(comma + 1);
  }
  return out;
}

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

Options parse_args(int argc, char** argv) {
  Options o;
  bool have_input = false;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    auto value_of = [&](std::string_view flag) -> std::optional<std::string> {
      if (a.starts_with(flag) && a.size() > flag.size() && a[flag.size()] == '=')
        return std::string(a.substr(flag.size() + 1));
      return std::nullopt;
    };
    if (a == "--help" || a == "-h") {
      std::cout << usage_text;
      std::exit(0);
    } else if (a == "--version") {
      std::cout << "tilewright-opt " << version() << "\n";
      std::exit(0);
    } else if (a == "--list-passes") {
      for (const auto& p : passes::all_passes())
        std::cout << p.info.factory << " (" << p.info.name << ")\n  requires " << p.info.required.to_string()
                  << "\n  produces " << p.info.produced.to_string() << "\n";
      std::exit(0);
    } else if (auto v = value_of("--passes")) {
      for (auto& p : split_commas(*v)) o.passes.push_back(p);
    } else if (auto v = value_of("--pipeline")) {
      if (*v != "default") usage_error("unknown pipeline '" + *v + "' (the only pipeline is 'default')");
      o.default_pipeline = true;
    } else if (auto v = value_of("--backend")) {
      if (!backend::backend_by_name(*v)) usage_error("unknown backend '" + *v + "' (expected none, ascend910b or ascend950)");
      o.backend = *v;
    } else if (auto v = value_of("--verify")) {
      if (*v == "none") o.verify = pass::VerifyLevel::none;
      else if (*v == "basic") o.verify = pass::VerifyLevel::basic;
      else if (*v == "roundtrip") o.verify = pass::VerifyLevel::roundtrip;
      else usage_error("unknown verification level '" + *v + "' (expected none, basic or roundtrip)");
    } else if (auto v = value_of("--expect")) {
      o.expect = *v;
    } else if (a == "--print-after-all") {
      o.print_after_all = true;
    } else if (a == "--time-passes") {
      o.time_passes = true;
    } else if (a == "--stats") {
      o.stats = true;
    } else if (a == "-o") {
      if (i + 1 >= argc) usage_error("-o needs a file name");
      o.output = argv[++i];
    } else if (a.starts_with("-") && a != "-") {
      usage_error("unknown option '" + std::string(a) + "'");
    } else {
      if (have_input) usage_error("more than one input file ('" + o.input + "' and '" + std::string(a) + "')");
      o.input = std::string(a);
      have_input = true;
    }
  }
  return o;
}

int run(const Options& o) {
  std::string source;
  if (!read_file(o.input, source)) {
    std::cerr << "tilewright-opt: error: cannot read '" << o.input << "'\n";
    return 1;
  }
  const std::string file_name = o.input == "-" ? "<stdin>" : o.input;

  pass::Pipeline pipeline;
  if (o.default_pipeline)
    for (auto& p : passes::default_pipeline()) pipeline.add(p);
  for (const auto& name : o.passes) {
    auto p = passes::find_pass(name);
    if (!p) usage_error("unknown pass '" + name + "' (see --list-passes)");
    pipeline.add(*p);
  }

  try {
    ir::Program program = text::parse_program(source, file_name);
    pipeline = pass::Pipeline(pipeline.passes(), pass::verified_properties(program));
    if (auto problem = pipeline.check_order()) {
      std::cerr << file_name << ": error: " << *problem << "\n";
      return 1;
    }

    pass::PassContext ctx;
    ctx.backend = *backend::backend_by_name(o.backend);
    pass::Instruments instruments;
    if (o.print_after_all)
      instruments.after = [](const pass::PassInfo& info, const ir::Program& p) {
        std::cerr << "// ----- after " << info.name << " -----\n" << text::print(p) << "\n";
      };
    if (o.verify == pass::VerifyLevel::roundtrip) instruments = text::roundtrip_instrument(instruments);
    std::vector<pass::PassTiming> timings;
    ir::Program result = pipeline.run(program, ctx, o.verify, instruments, o.time_passes ? &timings : nullptr);

    if (o.time_passes)
      for (const auto& t : timings) std::fprintf(stderr, "%10.3f ms  %.*s\n", t.milliseconds, static_cast<int>(t.pass.size()), t.pass.data());
    if (o.stats)
      for (const auto& [key, n] : ctx.stats.counts()) std::cerr << key << ": " << n << "\n";

    if (!o.expect.empty()) {
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

    std::string printed = text::print(result);
    if (o.output.empty()) {
      std::cout << printed << "\n";
    } else {
      std::ofstream out(o.output, std::ios::binary);
      out << printed;
      if (!out) {
        std::cerr << "tilewright-opt: error: cannot write '" << o.output << "'\n";
        return 1;
      }
    }
    return 0;
  } catch (const ir::Error& e) {
    std::cerr << ir::render(e.diagnostic(), e.diagnostic().span.file_name() == file_name ? std::string_view(source)
                                                                                          : std::string_view());
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_args(argc, argv));
  } catch (const std::exception& e) {
    std::cerr << "tilewright-opt: internal error: " << e.what() << "\n";
    return 1;
  }
}
