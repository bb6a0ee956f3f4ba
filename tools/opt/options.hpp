#pragma once
// tilewright-opt's command line: every option is one row of `option_table` (name, value,
// help, what it sets), and both the parser and --help read that table.
//
// Adding an option is a local change:
//   1. a field in `Options` (with its default),
//   2. a row in `option_table`: {"--name", "VALUE", "help", [](Options& o, std::string_view v) {…}}
//      — VALUE empty for a switch (`--name`), non-empty for `--name=VALUE`; call
//      `usage_error(…)` from the lambda to reject a bad value,
//   3. the code in tilewright-opt.cpp that reads the field.
// Rows are listed in the order --help shows them.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <functional>
#include <map>
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/backend/backend.hpp"
#include "tilewright/pass/pipeline.hpp"

namespace tilewright::opt {

struct Options {
  std::string input = "-";
  std::vector<std::string> passes;
  bool default_pipeline = false;
  std::string backend = "none";
  std::uint64_t max_expansion = pass::PassContext{}.max_expansion;
  pass::VerifyLevel verify = pass::VerifyLevel::basic;
  pass::PropertySet assume;   // input properties taken as given
  pass::PropertySet require;  // input properties verified before anything runs
  std::string expect;
  bool split_input_file = false;
  bool verify_diagnostics = false;
  std::vector<std::string> print_ir_before;  // pass names, as given
  std::vector<std::string> print_ir_after;
  bool print_ir_before_all = false;
  bool print_ir_after_all = false;
  bool print_ir_after_change = false;
  bool time_passes = false;
  std::string time_passes_json;
  bool stats = false;
  std::string stats_json;
  std::string output;  // empty or "-": stdout
  bool help = false;
  bool version = false;
  bool list_passes = false;
  // The reference interpreter (docs/interpreter.md).
  bool verify_semantic = false;
  std::string expect_equivalent;
  int trials = 16;
  std::uint64_t seed = 1;
  std::map<std::string, std::int64_t, std::less<>> dims;
  bool run = false;
  std::string entry;
  std::string inputs;
  std::string outputs;
};

// A bad command line: printed as `tilewright-opt: error: …`, exit status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void usage_error(const std::string& message) { throw UsageError(message); }

inline std::vector<std::string> split_commas(std::string_view s) {
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

// `SSAForm,TileOps2D` → the set; an unknown name is a usage error naming the valid ones.
inline pass::PropertySet property_list(std::string_view flag, std::string_view v) {
  pass::PropertySet out;
  for (const auto& name : split_commas(v)) {
    auto p = pass::property_by_name(name);
    if (!p) {
      std::string known;
      for (std::size_t i = 0; i < pass::property_count; ++i)
        known += (i ? ", " : "") + std::string(pass::name_of(static_cast<pass::Property>(i)));
      usage_error("unknown property '" + name + "' in " + std::string(flag) + " (expected " + known + ")");
    }
    out = out | pass::PropertySet{*p};
  }
  return out;
}

struct OptionSpec {
  std::string_view name;   // "--passes"; "-o" is the one option whose value is the next argument
  std::string_view value;  // the value's name in --help ("a,b,..."); empty for a switch
  std::string_view help;   // '\n' continues the text on an indented line
  void (*apply)(Options&, std::string_view value);
};

inline constexpr OptionSpec option_table[] = {
    {"--passes", "a,b,...", "run these passes in this order (factory or CamelCase names)",
     [](Options& o, std::string_view v) {
       for (auto& p : split_commas(v)) o.passes.push_back(std::move(p));
     }},
    {"--pipeline", "default", "run the default tile-lowering pipeline (before any --passes)",
     [](Options& o, std::string_view v) {
       if (v != "default") usage_error("unknown pipeline '" + std::string(v) + "' (the only pipeline is 'default')");
       o.default_pipeline = true;
     }},
    {"--backend", "NAME", "none (default, unlimited), ascend910b or ascend950",
     [](Options& o, std::string_view v) {
       if (!backend::backend_by_name(v))
         usage_error("unknown backend '" + std::string(v) + "' (expected none, ascend910b or ascend950)");
       o.backend = std::string(v);
     }},
    {"--max-expansion", "N", "at most N statements from compile-time unrolls per function\n(default 1000000; 0: no limit)",
     [](Options& o, std::string_view v) {
       std::uint64_t n = 0;
       auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
       if (ec != std::errc() || end != v.data() + v.size())
         usage_error("--max-expansion needs a count of statements, got '" + std::string(v) + "'");
       o.max_expansion = n;
     }},
    {"--verify", "LEVEL",
     "none (no property checks), basic (default: check the pipeline\norder, verify produced properties after each pass), roundtrip\n(also print -> parse -> compare) or semantic (basic, and run each\npass's input and result on random inputs with the interpreter;\nname the pass that changed the meaning)",
     [](Options& o, std::string_view v) {
       if (v == "none") o.verify = pass::VerifyLevel::none;
       else if (v == "basic") o.verify = pass::VerifyLevel::basic;
       else if (v == "roundtrip") o.verify = pass::VerifyLevel::roundtrip;
       else if (v == "semantic") o.verify = pass::VerifyLevel::basic, o.verify_semantic = true;
       else usage_error("unknown verification level '" + std::string(v) + "' (expected none, basic, roundtrip or semantic)");
     }},
    {"--assume", "P1,P2", "take these properties of the input as given, unverified\n(e.g. --assume=HasMemRefs; see --list-passes)",
     [](Options& o, std::string_view v) { o.assume = o.assume | property_list("--assume", v); }},
    {"--require", "P1,P2", "verify these properties of the input first; refuse it, with\nthe verifier's findings, when one does not hold",
     [](Options& o, std::string_view v) { o.require = o.require | property_list("--require", v); }},
    {"--expect", "FILE",
     "compare the result with FILE structurally, both in SSA form;\nexit 1 on a difference, showing the differing statement of each side",
     [](Options& o, std::string_view v) { o.expect = std::string(v); }},
    {"--expect-equivalent", "FILE",
     "run every function FILE and the result both define on --trials\nrandom input sets; exit 1 on the first difference",
     [](Options& o, std::string_view v) { o.expect_equivalent = std::string(v); }},
    {"--trials", "N", "input sets per function (default 16)",
     [](Options& o, std::string_view v) {
       int n = 0;
       auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
       if (ec != std::errc() || end != v.data() + v.size() || n < 1) usage_error("--trials needs a positive count, got '" + std::string(v) + "'");
       o.trials = n;
     }},
    {"--seed", "S", "seed of the random inputs (default 1)",
     [](Options& o, std::string_view v) {
       std::uint64_t n = 0;
       auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
       if (ec != std::errc() || end != v.data() + v.size()) usage_error("--seed needs a number, got '" + std::string(v) + "'");
       o.seed = n;
     }},
    {"--dims", "S=37,B=2", "fix dynamic dimensions instead of drawing them",
     [](Options& o, std::string_view v) {
       for (const auto& item : split_commas(v)) {
         auto eq = item.find('=');
         std::int64_t n = -1;
         if (eq != std::string::npos && eq > 0) {
           auto parsed = std::from_chars(item.data() + eq + 1, item.data() + item.size(), n);
           if (parsed.ec != std::errc() || parsed.ptr != item.data() + item.size()) n = -1;
         }
         if (n < 0) usage_error("--dims expects NAME=VALUE pairs with non-negative values, got '" + item + "'");
         o.dims[item.substr(0, eq)] = n;
       }
     }},
    {"--run", "", "execute the entry function (after the passes) and summarise\nits outputs instead of printing the program",
     [](Options& o, std::string_view) { o.run = true; }},
    {"--entry", "NAME", "--run: the function to execute (default: the one\norchestration function, or the only function)",
     [](Options& o, std::string_view v) { o.entry = std::string(v); }},
    {"--inputs", "DIR", "--run: read parameter NAME from DIR/NAME.npy when present\n(else random; Out parameters start undefined)",
     [](Options& o, std::string_view v) { o.inputs = std::string(v); }},
    {"--outputs", "DIR", "--run: write Out/InOut parameters and returned values to\nDIR/NAME.npy",
     [](Options& o, std::string_view v) { o.outputs = std::string(v); }},
    {"--split-input-file", "",
     "treat each part of the input between lines `# -----` as its own\nprogram; outputs are joined by the same line",
     [](Options& o, std::string_view) { o.split_input_file = true; }},
    {"--verify-diagnostics", "",
     "check the diagnostics against `# expected-error {{...}}` comments\n(also expected-warning/-note, @+N, @-N, @above, @below, @unknown)",
     [](Options& o, std::string_view) { o.verify_diagnostics = true; }},
    {"--print-ir-before", "PASS,...", "print the program before these passes (to stderr)",
     [](Options& o, std::string_view v) {
       for (auto& p : split_commas(v)) o.print_ir_before.push_back(std::move(p));
     }},
    {"--print-ir-after", "PASS,...", "print the program after these passes (to stderr)",
     [](Options& o, std::string_view v) {
       for (auto& p : split_commas(v)) o.print_ir_after.push_back(std::move(p));
     }},
    {"--print-ir-before-all", "", "print the program before every pass (to stderr)",
     [](Options& o, std::string_view) { o.print_ir_before_all = true; }},
    {"--print-ir-after-all", "", "print the program after every pass (to stderr)",
     [](Options& o, std::string_view) { o.print_ir_after_all = true; }},
    {"--print-ir-after-change", "", "print the program after every pass that changed it (to stderr)",
     [](Options& o, std::string_view) { o.print_ir_after_change = true; }},
    {"--print-after-all", "", "the same as --print-ir-after-all",
     [](Options& o, std::string_view) { o.print_ir_after_all = true; }},
    {"--time-passes", "", "report the wall time of parsing, each pass, verification and\nprinting (to stderr)",
     [](Options& o, std::string_view) { o.time_passes = true; }},
    {"--time-passes-json", "FILE", "write the same times to FILE as JSON",
     [](Options& o, std::string_view v) { o.time_passes_json = std::string(v); }},
    {"--stats", "", "report what the passes did: statements rewritten per rule,\nfunctions changed (to stderr)",
     [](Options& o, std::string_view) { o.stats = true; }},
    {"--stats-json", "FILE", "write every counter, zeros included, to FILE as JSON",
     [](Options& o, std::string_view v) { o.stats_json = std::string(v); }},
    {"--list-passes", "", "list the passes, what each does and what `default` runs, and exit",
     [](Options& o, std::string_view) { o.list_passes = true; }},
    {"-o", "FILE", "write the result to FILE (`-`: stdout, the default)",
     [](Options& o, std::string_view v) { o.output = std::string(v); }},
    {"--help", "", "show this help and exit", [](Options& o, std::string_view) { o.help = true; }},
    {"--version", "", "show the version and exit", [](Options& o, std::string_view) { o.version = true; }},
};

namespace detail {

// The options whose values add up (lists); any other option given twice is a mistake the
// command line must not resolve silently by keeping the last value.
inline bool accumulates(std::string_view name) {
  for (std::string_view n : {"--passes", "--assume", "--require", "--dims", "--print-ir-before", "--print-ir-after"})
    if (n == name) return true;
  return false;
}

inline const OptionSpec* find_option(std::string_view name) {
  for (const auto& spec : option_table)
    if (spec.name == name) return &spec;
  return nullptr;
}

inline std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

// The nearest of `candidates` to `name`, at most two edits away (and fewer than half its
// length, so that a short word does not "resemble" everything), else empty.
inline std::string_view nearest(std::string_view name, std::span<const std::string_view> candidates) {
  std::string_view best;
  std::size_t best_distance = std::min<std::size_t>(3, name.size() / 2 + 1);
  for (std::string_view c : candidates) {
    std::size_t d = edit_distance(name, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

// " (did you mean '--stats'?)" for a near miss, else "".
inline std::string suggestion(std::string_view name) {
  const OptionSpec* best = nullptr;
  std::size_t best_distance = 3;  // at most two edits away
  for (const auto& spec : option_table) {
    std::size_t d = edit_distance(name, spec.name);
    if (d < best_distance) best = &spec, best_distance = d;
  }
  return best ? " (did you mean '" + std::string(best->name) + (best->value.empty() ? "" : "=") + "'?)" : "";
}

}  // namespace detail

// Builds --help from the table: "  --name=VALUE   help", continuation lines aligned.
inline std::string usage_text() {
  constexpr std::size_t help_column = 26;
  std::string out =
      "usage: tilewright-opt [FILE|-] [options]\n"
      "\n"
      "Parses a pl program (PyPTO's printed IR), runs passes, verifies and prints the result.\n"
      "\n"
      "options:\n";
  for (const auto& spec : option_table) {
    std::string left = "  " + std::string(spec.name);
    if (!spec.value.empty()) left += (spec.name == "-o" ? " " : "=") + std::string(spec.value);
    left += left.size() + 2 <= help_column ? std::string(help_column - left.size(), ' ') : "\n" + std::string(help_column, ' ');
    out += left;
    for (char c : spec.help) {
      out += c;
      if (c == '\n') out += std::string(help_column, ' ');
    }
    out += '\n';
  }
  return out;
}

// `-h` is --help; `-` alone is stdin; anything else not starting with '-' is the input file.
inline Options parse_args(std::span<const char* const> args) {
  Options o;
  bool have_input = false;
  std::map<std::string_view, std::string_view> given;  // single-valued options seen, with their values
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string_view a = args[i];
    if (a == "-h") a = "--help";
    if (a.empty() || a[0] != '-' || a == "-") {
      if (have_input) usage_error("more than one input file ('" + o.input + "' and '" + std::string(a) + "')");
      o.input = std::string(a);
      have_input = true;
      continue;
    }
    std::size_t eq = a.find('=');
    std::string_view name = a.substr(0, eq);
    const OptionSpec* spec = detail::find_option(name);
    if (!spec) usage_error("unknown option '" + std::string(name) + "'" + detail::suggestion(name));
    std::optional<std::string_view> value;
    if (eq != std::string_view::npos) value = a.substr(eq + 1);
    if (spec->value.empty()) {
      if (value) usage_error("option '" + std::string(name) + "' takes no value");
    } else {
      if (!value && spec->name == "-o" && i + 1 < args.size()) value = args[++i];
      if (!value || value->empty())
        usage_error("option '" + std::string(name) + "' needs a value: " + std::string(name) +
                    (spec->name == "-o" ? " " : "=") + std::string(spec->value));
    }
    if (!spec->value.empty() && !detail::accumulates(spec->name)) {
      auto [it, first] = given.emplace(spec->name, *value);
      if (!first)
        usage_error("option '" + std::string(name) + "' is given twice ('" + std::string(it->second) + "' and '" +
                    std::string(*value) + "'); give it once");
    }
    spec->apply(o, value.value_or(std::string_view()));
  }
  return o;
}

}  // namespace tilewright::opt
