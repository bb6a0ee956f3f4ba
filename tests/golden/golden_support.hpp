#pragma once
// Reading the golden corpus (../shared/golden, see its README): NAME.pto is the input,
// NAME.args the pass to run, NAME.expected.pto the printed result or NAME.error a phrase
// the diagnostic must contain.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "tilewright/pass/pipeline.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

namespace golden {

namespace fs = std::filesystem;

inline fs::path root() { return fs::path(TILEWRIGHT_GOLDEN_DIR); }

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// Case names (file stems without .pto) of a folder of `corpus`, sorted.
inline std::vector<std::string> cases(const std::string& folder, const fs::path& corpus = root()) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(corpus / folder)) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(".pto") && !name.ends_with(".expected.pto")) out.push_back(name.substr(0, name.size() - 4));
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct Outcome {
  std::string printed;  // the printed result when the pass succeeded
  tilewright::ir::Program program;  // the result itself, for structural comparison
  std::optional<tilewright::ir::Diagnostic> error;
};

// Runs the passes named in NAME.args (with its backend) on NAME.pto.
inline Outcome run_case(const std::string& folder, const std::string& name, const fs::path& corpus = root()) {
  using namespace tilewright;
  fs::path base = corpus / folder / name;
  std::string args = trim(slurp(base.string() + ".args"));
  pass::Pipeline pipeline;
  pass::PassContext ctx;
  std::size_t pos = 0;
  while (pos < args.size()) {
    std::size_t end = args.find(' ', pos);
    std::string word = args.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    if (word.starts_with("--passes=")) {
      std::string list = word.substr(9);
      std::size_t p = 0;
      while (p <= list.size()) {
        std::size_t c = list.find(',', p);
        std::string one = list.substr(p, c == std::string::npos ? std::string::npos : c - p);
        if (auto found = passes::find_pass(one)) pipeline.add(*found);
        else throw std::runtime_error("golden case names unknown pass '" + one + "'");
        if (c == std::string::npos) break;
        p = c + 1;
      }
    } else if (word.starts_with("--backend=")) {
      ctx.backend = *backend::backend_by_name(word.substr(10));
    }
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  Outcome out;
  try {
    ir::Program program = text::parse_program(slurp(base.string() + ".pto"), base.string() + ".pto");
    out.program = pipeline.run(program, ctx, pass::VerifyLevel::none);
    out.printed = text::print(out.program);
  } catch (const ir::Error& e) {
    out.error = e.diagnostic();
  }
  return out;
}

}  // namespace golden
