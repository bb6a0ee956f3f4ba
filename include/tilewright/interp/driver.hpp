#pragma once
// What the CLI's interpreter options do, as library calls:
//   --verify=semantic   semantic_instrument(): every pass checked against its input
//   --run               run_entry(): the entry function on random or .npy inputs
//   --dims=S=37,B=2     parse_dims()
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "tilewright/config.hpp"
#include "tilewright/interp/equivalence.hpp"
#include "tilewright/interp/npy.hpp"
#include "tilewright/pass/pipeline.hpp"

namespace tilewright::interp {

// "S=37,B=2" → {S: 37, B: 2}; nullopt (and `error`) on a malformed list.
inline std::optional<std::map<std::string, std::int64_t, std::less<>>> parse_dims(std::string_view text,
                                                                                   std::string& error) {
  std::map<std::string, std::int64_t, std::less<>> out;
  while (!text.empty()) {
    auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    auto eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == item.size()) {
      error = "expected NAME=VALUE, got '" + std::string(item) + "'";
      return std::nullopt;
    }
    std::string value(item.substr(eq + 1));
    char* end = nullptr;
    long long v = std::strtoll(value.c_str(), &end, 10);
    if (!end || *end || v < 0) {
      error = "the value of " + std::string(item.substr(0, eq)) + " must be a non-negative integer, got '" + value + "'";
      return std::nullopt;
    }
    out[std::string(item.substr(0, eq))] = v;
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// A pipeline instrument that checks every pass's result against its input with the
// interpreter, and stops the pipeline naming the pass that changed the meaning.
inline pass::Instruments semantic_instrument(EquivalenceOptions options, pass::Instruments base = {}) {
  auto before_program = std::make_shared<ir::Program>();
  auto before = base.before;
  auto after = base.after;
  base.before = [before, before_program](const pass::PassInfo& info, const ir::Program& p) {
    if (before) before(info, p);
    *before_program = p;
  };
  base.after = [after, before_program, options](const pass::PassInfo& info, const ir::Program& p) {
    if (after) after(info, p);
    if (p == *before_program) return;  // unchanged: nothing to check
    EquivalenceReport r = check_equivalent(*before_program, p, options);
    if (r.status == EquivalenceReport::Status::different)
      ir::throw_user_error("verify=semantic", "pass " + std::string(info.name) + " changed the meaning of the program: " + r.message);
    if (r.status == EquivalenceReport::Status::unsupported)
      ir::throw_user_error("verify=semantic", "cannot check pass " + std::string(info.name) + ": " + r.message);
  };
  return base;
}

// One run of a function on arrays in memory: what `run_entry` does with .npy files, and what
// the Python module's Program.run calls with NumPy arrays.
using NamedArrays = std::map<std::string, NpyArray, std::less<>>;

struct RunOutput {
  std::string name;       // the parameter's name, or return_<i>
  NpyArray value;
  std::size_t undefined;  // elements never written, given as 0
};

struct RunOutcome {
  std::vector<RunOutput> outputs;  // Out / InOut tensor parameters, then returned values
  std::vector<std::pair<std::string, const char*>> sources;  // per parameter: "given", "random", "undefined (Out)"
  std::vector<RunNote> notes;
  std::size_t note_count = 0;
};

// Runs `function` once. A tensor parameter named in `given` takes that array (its shape must
// be the parameter's), a scalar one a one-element array; every other parameter is random (an
// Out tensor starts undefined). A name in `given` that is no parameter is an error: a typo
// would otherwise leave that parameter random without a word.
TILEWRIGHT_API RunOutcome run_function(const ir::Program& program, const std::string& function,
                                       const NamedArrays& given, std::uint64_t seed,
                                       const std::map<std::string, std::int64_t, std::less<>>& dims);

// The function a run without a named entry means: the program's one Orchestration function,
// else its only function; nullopt when that leaves a choice.
inline std::optional<std::string> default_entry(const ir::ProgramNode& program) {
  const ir::FunctionNode* orchestration = nullptr;
  for (const auto& f : program.functions) {
    if (f->type != ir::FunctionType::Orchestration) continue;
    if (orchestration) return std::nullopt;
    orchestration = f.get();
  }
  if (orchestration) return orchestration->name;
  if (program.functions.size() == 1) return program.functions.front()->name;
  return std::nullopt;
}

struct RunResult {
  std::vector<std::string> written;  // output files
  std::vector<RunNote> notes;
  std::size_t note_count = 0;
  std::string summary;               // one line per output
};

// run_function with files: tensor parameters read NAME.npy from `inputs` when it exists,
// scalars NAME.npy (a 0-d or 1-element array). Afterwards every tensor parameter that is Out
// or InOut, and every returned value, is written to `outputs` as NAME.npy (undefined elements
// as 0, and counted in the summary).
TILEWRIGHT_API RunResult run_entry(const ir::Program& program, const std::string& function, const std::string& inputs,
                                   const std::string& outputs, std::uint64_t seed,
                                   const std::map<std::string, std::int64_t, std::less<>>& dims);

#if TILEWRIGHT_DEFINITIONS

namespace driver_detail {
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Values as NumPy prints a long array: the first and last three, "..." between.
inline std::string values_text(const std::vector<double>& v) {
  auto one = [](double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return std::string(buf);
  };
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v.size() > 6 && i == 3) {
      out += "..., ";
      i = v.size() - 3;
    }
    out += one(v[i]) + (i + 1 < v.size() ? ", " : "");
  }
  return out + "]";
}

// --inputs names a directory; its .npy files, by stem. A file that names no parameter is
// refused by run_function, as a given input that names none is.
inline NamedArrays read_inputs_dir(const std::string& inputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(inputs, ec))
    throw RunError(RunErrorKind::invalid, "--inputs: '" + inputs + "' " +
                                              (fs::exists(inputs, ec) ? "is not a directory" : "does not exist") +
                                              "; give the directory that holds NAME.npy per parameter");
  NamedArrays given;
  for (const auto& entry : fs::directory_iterator(inputs, ec))
    if (entry.path().extension() == ".npy")
      given.emplace(entry.path().stem().string(), npy_decode(slurp(entry.path()), entry.path().string()));
  return given;
}

// --outputs names a directory, made if missing: a file there is refused before the run.
inline void check_outputs_dir(const std::string& outputs) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(outputs, ec) && !fs::is_directory(outputs, ec))
    throw RunError(RunErrorKind::invalid, "--outputs: '" + outputs +
                                              "' is a file, not a directory; give a directory to write NAME.npy into");
  fs::create_directories(outputs, ec);
  if (ec) throw RunError(RunErrorKind::invalid, "--outputs: cannot create '" + outputs + "': " + ec.message());
}
}  // namespace driver_detail

TILEWRIGHT_API RunOutcome run_function(const ir::Program& program, const std::string& function,
                                       const NamedArrays& given, std::uint64_t seed,
                                       const std::map<std::string, std::int64_t, std::less<>>& dims) {
  ir::Function f = ir::find_function(*program, function);
  if (!f) throw RunError(RunErrorKind::invalid, "the program has no function '" + function + "'");
  auto where = [](const NpyArray& a, const std::string& name) {
    return a.source.empty() ? "input '" + name + "'" : "'" + a.source + "'";
  };
  for (const auto& input : given) {
    // (clang 14 cannot capture a structured binding in a lambda: a plain reference.)
    const std::string& name = input.first;
    const NpyArray& array = input.second;
    bool names_param = std::any_of(f->params.begin(), f->params.end(),
                                   [&](const ir::Param& p) { return ir::name_hint(p.var) == name; });
    if (!names_param) {
      std::string params;
      for (const auto& p : f->params) params += (params.empty() ? "" : ", ") + std::string(ir::name_hint(p.var));
      throw RunError(RunErrorKind::invalid, where(array, name) + " names no parameter of '" + f->name + "' (its parameters: " +
                                                params + "); rename it after a parameter or remove it");
    }
  }
  RunOutcome out;
  RunOptions ro;
  ro.dims = dims;
  Interpreter run(program, ro);
  Rng rng(seed);
  std::vector<Value> args;
  std::vector<std::shared_ptr<Buffer>> buffers;
  std::vector<TensorAccess> views;
  for (const auto& p : f->params) {
    std::string name(ir::name_hint(p.var));
    auto it = given.find(name);
    const NpyArray* a = it == given.end() ? nullptr : &it->second;
    const bool scalar = ir::as<ir::ScalarType>(p.var->type) != nullptr;
    out.sources.emplace_back(name, a ? "given"
                                     : p.direction == ir::ParamDirection::Out && !scalar ? "undefined (Out)"
                                                                                          : "random");
    if (auto* st = ir::as<ir::ScalarType>(p.var->type)) {
      double v = static_cast<double>(rng.range(0, 8));
      if (a) {
        if (a->data.size() != 1)
          throw RunError(RunErrorKind::invalid, where(*a, name) + ": scalar parameter '" + name + "' needs one value, the input has shape " + dims_string(a->shape), p.var->span);
        v = a->data[0];
      }
      args.push_back(Scalar{st->dtype, store_rounded(v, st->dtype), true});
      buffers.push_back(nullptr);
      views.emplace_back();
      continue;
    }
    TensorAccess acc = run.tensor_access(p.var->type, p.var->span);
    auto b = std::make_shared<Buffer>();
    b->name = name;
    b->dtype = acc.dtype;
    b->data.assign(run_allocation(acc.extent(), "parameter '" + name + "' " + dims_string(acc.shape), p.var->span), 0.0);
    b->defined.assign(b->data.size(), 0);
    if (a) {
      if (a->shape != acc.shape)
        throw RunError(RunErrorKind::invalid, where(*a, name) + ": shape " + dims_string(a->shape) + " does not match parameter '" + name +
                                                  "' of shape " + dims_string(acc.shape), p.var->span);
      Dims idx(acc.shape.size(), 0);
      for (std::size_t i = 0; i < a->data.size(); ++i) {
        std::int64_t addr = 0;
        for (std::size_t k = 0; k < idx.size(); ++k) addr += idx[k] * acc.strides[k];
        b->data[static_cast<std::size_t>(addr)] = store_rounded(a->data[i], acc.dtype);
        b->defined[static_cast<std::size_t>(addr)] = 1;
        ops_detail::next_index(idx, acc.shape);
      }
    } else if (p.direction != ir::ParamDirection::Out) {
      for (auto& x : b->data) x = equivalence_detail::random_element(rng, acc.dtype);
      std::fill(b->defined.begin(), b->defined.end(), 1);
    }
    args.push_back(TensorRef{b});
    buffers.push_back(b);
    views.push_back(acc);
  }
  std::vector<Value> results = run.call(function, args);
  out.notes = run.notes();
  out.note_count = run.note_count();
  auto through_view = [&](const Buffer& b, const TensorAccess& acc) {
    NpyArray a;
    a.dtype = acc.dtype;
    a.shape = acc.shape;
    std::size_t undefined = 0;
    Dims idx(acc.shape.size(), 0);
    for (std::int64_t i = 0; i < element_count(acc.shape); ++i) {
      std::int64_t addr = 0;
      for (std::size_t k = 0; k < idx.size(); ++k) addr += idx[k] * acc.strides[k];
      auto at = static_cast<std::size_t>(addr);
      bool def = at < b.data.size() && b.defined[at];
      undefined += !def;
      a.data.push_back(def ? b.data[at] : 0.0);
      ops_detail::next_index(idx, acc.shape);
    }
    return RunOutput{b.name, std::move(a), undefined};
  };
  for (std::size_t i = 0; i < f->params.size(); ++i) {
    if (!buffers[i] || f->params[i].direction == ir::ParamDirection::In) continue;
    out.outputs.push_back(through_view(*buffers[i], views[i]));
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    std::string name = "return_" + std::to_string(i);
    if (const Scalar* s = results[i].scalar()) {
      out.outputs.push_back({name, NpyArray{s->dtype, {}, {s->defined ? s->value : 0.0}, {}}, std::size_t{!s->defined}});
    } else if (const TensorRef* t = results[i].tensor()) {
      bool param = false;
      for (const auto& b : buffers) param = param || b == t->buffer;
      if (param) continue;
      const ir::Type& rt = f->return_types.size() > i ? f->return_types[i] : ir::unknown_type();
      RunOutput o = through_view(*t->buffer, run.tensor_access(rt, f->span));
      o.name = name;
      out.outputs.push_back(std::move(o));
    } else if (const Tile* t = results[i].tile()) {
      std::size_t undefined = 0;
      NpyArray a{t->dtype, t->shape, {}, {}};
      for (std::size_t k = 0; k < t->size(); ++k) {
        undefined += !t->defined[k];
        a.data.push_back(t->defined[k] ? t->data[k] : 0.0);
      }
      out.outputs.push_back({name, std::move(a), undefined});
    }
  }
  return out;
}

TILEWRIGHT_API RunResult run_entry(const ir::Program& program, const std::string& function, const std::string& inputs,
                                   const std::string& outputs, std::uint64_t seed,
                                   const std::map<std::string, std::int64_t, std::less<>>& dims) {
  namespace fs = std::filesystem;
  NamedArrays given = inputs.empty() ? NamedArrays{} : driver_detail::read_inputs_dir(inputs);
  if (!outputs.empty()) driver_detail::check_outputs_dir(outputs);
  RunOutcome r = run_function(program, function, given, seed, dims);
  RunResult out;
  out.notes = std::move(r.notes);
  out.note_count = r.note_count;
  std::string sources;
  for (const auto& [name, origin] : r.sources)
    sources += (sources.empty() ? "" : ", ") + name + " " +
               (std::string_view(origin) == "given" ? "from " + given.find(name)->second.source
                                                     : std::string(origin));
  out.summary = "inputs: " + (sources.empty() ? std::string("none") : sources) + "\n";
  for (const auto& o : r.outputs) {
    out.summary += o.name + ": " + dims_string(o.value.shape) + " " + std::string(ir::name_of(o.value.dtype)) +
                   (o.undefined ? ", " + std::to_string(o.undefined) + " undefined element(s) written as 0" : "") + " " +
                   driver_detail::values_text(o.value.data) + "\n";
    if (outputs.empty()) continue;
    fs::path file = fs::path(outputs) / (o.name + ".npy");
    std::ofstream stream(file, std::ios::binary);
    stream << npy_encode(o.value);
    if (!stream) throw RunError(RunErrorKind::invalid, "--outputs: cannot write '" + file.string() + "'");
    out.written.push_back(file.string());
  }
  return out;
}

#endif  // TILEWRIGHT_DEFINITIONS

}  // namespace tilewright::interp
