#pragma once
// --time-passes and --stats, in LLVM's layouts, and their JSON forms for machines.
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilewright::opt {

// Wall times of one run (every chunk of a --split-input-file run added up), in pipeline order.
class TimingReport {
 public:
  void add_parse(double ms) { parse_ += ms; }
  void add_verify(double ms) { verify_ += ms; }
  void add_output(double ms) { output_ += ms; }
  void add_pass(std::string_view name, double ms) {
    for (auto& p : passes_)
      if (p.first == name) {
        p.second += ms;
        return;
      }
    passes_.emplace_back(std::string(name), ms);
  }

  // LLVM's -time-passes table, wall time only: one line per stage with its share of the
  // total, in the order the stages ran.
  [[nodiscard]] std::string text() const {
    const double total = total_ms();
    std::string out =
        "===-------------------------------------------------------------------------===\n"
        "                      ... Pass execution timing report ...\n"
        "===-------------------------------------------------------------------------===\n";
    out += format("  Total Execution Time: %.4f seconds (%.4f wall clock)\n\n", total / 1000, total / 1000);
    out += "   ---Wall Time---  --- Name ---\n";
    auto line = [&](double ms, std::string_view name) {
      out += format("   %.4f (%5.1f%%)  ", ms / 1000, total > 0 ? 100 * ms / total : 0.0);
      out += name;
      out += '\n';
    };
    line(parse_, "parse");
    for (const auto& [name, ms] : passes_) line(ms, name);
    line(verify_, "verify");
    line(output_, "print");
    line(total, "Total");
    return out;
  }

  [[nodiscard]] std::string json() const {
    nlohmann::ordered_json passes = nlohmann::ordered_json::array();
    for (const auto& [name, wall] : passes_) passes.push_back({{"name", name}, {"wall", wall}});
    nlohmann::ordered_json out = {{"unit", "ms"}, {"parse", parse_}, {"passes", std::move(passes)},
                                  {"verify", verify_}, {"print", output_}, {"total", total_ms()}};
    return out.dump(2) + "\n";
  }

 private:
  double parse_ = 0, verify_ = 0, output_ = 0;
  std::vector<std::pair<std::string, double>> passes_;

  [[nodiscard]] double total_ms() const {
    double t = parse_ + verify_ + output_;
    for (const auto& p : passes_) t += p.second;
    return t;
  }
  template <class... A>
  static std::string format(const char* f, A... a) {
    char buf[256];
    std::snprintf(buf, sizeof buf, f, a...);
    return buf;
  }
};

// One counter of --stats: `<pass>.<name>` and a sentence saying what it counts. The passes
// publish "<rule>: applied" / "<rule>: tried" (rewrite/driver.hpp) and "functions changed"
// (pass/pass.hpp); any other counter is described by its own words.
struct Counter {
  std::string name;
  std::string description;
  std::uint64_t value = 0;
};

inline Counter describe_counter(std::string_view pass, std::string_view key, std::uint64_t value) {
  auto ends = [&](std::string_view suffix) { return key.size() > suffix.size() && key.ends_with(suffix); };
  std::string base(pass);
  if (ends(": applied")) {
    std::string rule(key.substr(0, key.size() - 9));
    return {base + "." + rule, "statements rewritten by " + rule, value};
  }
  if (ends(": tried")) {
    std::string rule(key.substr(0, key.size() - 7));
    return {base + "." + rule + ".tried", "statements " + rule + " was tried on", value};
  }
  if (key == "functions changed") return {base + ".functions-changed", "functions the pass changed", value};
  std::string name(key);
  for (char& c : name)
    if (c == ' ' || c == ':') c = '-';
  return {base + "." + name, std::string(key), value};
}

// The counters of `counts` ("<pass>.<key>" -> value, as pass::Statistics keeps them), passes
// in pipeline order (`passes`), then any pass not in it.
inline std::vector<Counter> ordered_counters(const std::map<std::string, std::uint64_t>& counts,
                                             const std::vector<std::string_view>& passes) {
  std::vector<Counter> out;
  std::vector<bool> taken(counts.size(), false);
  auto take = [&](std::string_view pass) {
    std::size_t i = 0;
    for (const auto& [key, value] : counts) {
      std::string_view k = key;
      if (!taken[i] && k.size() > pass.size() && k.starts_with(pass) && k[pass.size()] == '.') {
        taken[i] = true;
        out.push_back(describe_counter(pass, k.substr(pass.size() + 1), value));
      }
      ++i;
    }
  };
  for (auto pass : passes) take(pass);
  std::size_t i = 0;
  for (const auto& [key, value] : counts) {
    if (!taken[i]) {
      std::string_view k = key;
      std::size_t dot = k.find('.');
      out.push_back(describe_counter(k.substr(0, dot), dot == std::string_view::npos ? k : k.substr(dot + 1), value));
    }
    ++i;
  }
  return out;
}

// LLVM's -stats layout: `value name - description`, values right-aligned, names padded;
// counters that stayed zero are left out.
inline std::string stats_text(const std::vector<Counter>& counters) {
  std::size_t value_width = 1, name_width = 1;
  for (const auto& c : counters) {
    if (!c.value) continue;
    value_width = std::max(value_width, std::to_string(c.value).size());
    name_width = std::max(name_width, c.name.size());
  }
  std::string out =
      "===-------------------------------------------------------------------------===\n"
      "                          ... Statistics Collected ...\n"
      "===-------------------------------------------------------------------------===\n\n";
  for (const auto& c : counters) {
    if (!c.value) continue;
    std::string v = std::to_string(c.value);
    out += std::string(value_width - v.size(), ' ') + v + " " + c.name + std::string(name_width - c.name.size(), ' ') +
           " - " + c.description + "\n";
  }
  return out;
}

// Every counter, zeros included, as one JSON object in the same order.
inline std::string stats_json(const std::vector<Counter>& counters) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const auto& c : counters) out[c.name] = c.value;
  return out.dump(2) + "\n";
}

}  // namespace tilewright::opt
