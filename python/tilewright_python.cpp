// The Python module `tilewright`, over the compiled mode (src/tilewright.cpp is linked in).
//
//   import tilewright
//   from tilewright import passes
//   program = tilewright.parse(text)             # the pl text PyPTO prints
//   program = passes.flatten_tile_nd_to_2d()(program)
//   print(program)                               # pl text again
//   outputs = program.run(inputs={"x": numpy_array})
//
// The passes, the pass context and the pipeline follow the shape of PyPTO's own bindings
// (`passes.<factory>()` returns a callable pass; `with passes.PassContext(...)` sets the
// verification level for what runs inside). Errors: a user error (malformed text, a program a
// pass cannot lower, a bad input array) raises ValueError with the located message, source
// line and caret; a broken internal check raises tilewright.InternalError. docs/python.md.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tilewright/interp/driver.hpp"
#include "tilewright/interp/equivalence.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/pass/pipeline.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/pipeline_check.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"
#include "tilewright/text/roundtrip.hpp"
#include "tilewright/text/source.hpp"
#include "tilewright/version.hpp"

namespace py = pybind11;
using namespace tilewright;

namespace {

// A program, and the text it was read from: the diagnostics of every pass run on it (and on
// what those passes return) point into that text.
struct Program {
  ir::Program ir;
  std::shared_ptr<const std::string> source;
  std::string file_name;
};

// Raised for a broken internal check: a bug in tilewright, never the user's input.
struct InternalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string rendered(const ir::Diagnostics& ds, const Program* origin) {
  std::string out;
  for (const auto& d : ds) {
    bool ours = origin && origin->source && d.span.file_name() == origin->file_name;
    out += ir::render(d, ours ? std::string_view(*origin->source) : std::string_view());
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Runs `f`, turning the library's errors into Python's: ValueError for the user's, InternalError
// for ours. `origin` is the program whose text the diagnostics point into.
template <class F>
auto guarded(const Program* origin, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const ir::Error& e) {
    std::string text = rendered({e.diagnostic()}, origin);
    if (e.diagnostic().kind == ir::ErrorKind::internal) throw InternalError(text);
    throw py::value_error(text);
  } catch (const interp::RunError& e) {
    throw py::value_error(rendered({interp::as_diagnostic(e)}, origin));
  }
}

// ---- passes.PassContext -----------------------------------------------------------------

enum class Verification : std::uint8_t { none, basic, roundtrip, semantic };

struct PassTimingRow {
  std::string pass;
  double milliseconds, verify_milliseconds;
};

// What the passes run inside a `with passes.PassContext(...)` block share: the verification
// level, the backend, the expansion limit; it collects their statistics and timings.
struct Context {
  Verification level = Verification::basic;
  std::string backend = "none";
  std::uint64_t max_expansion = 1'000'000;
  std::uint64_t seed = 1;
  int trials = 16;
  std::map<std::string, std::uint64_t> stats;
  std::vector<PassTimingRow> timings;
};

// The innermost `with` block's context; passes called outside any use a fresh default one.
std::vector<std::shared_ptr<Context>>& context_stack() {
  static std::vector<std::shared_ptr<Context>> stack;
  return stack;
}

std::shared_ptr<Context> current_context() {
  auto& stack = context_stack();
  return stack.empty() ? std::make_shared<Context>() : stack.back();
}

std::string backend_names() {
  return "none, ascend910b, ascend950";
}

std::shared_ptr<Context> make_context(Verification level, const std::string& backend, std::uint64_t max_expansion,
                                      std::uint64_t seed, int trials) {
  if (!backend::backend_by_name(backend))
    throw py::value_error("unknown backend '" + backend + "'; the backends are " + backend_names());
  if (trials < 1) throw py::value_error("trials must be at least 1, got " + std::to_string(trials));
  auto c = std::make_shared<Context>();
  c->level = level;
  c->backend = backend;
  c->max_expansion = max_expansion;
  c->seed = seed;
  c->trials = trials;
  return c;
}

// Runs `passes` on `input` as tilewright-opt does: the order checked against what the input's
// verifiers accept (unless the level is none), each pass's produced properties verified, the
// round trip or the interpreter's check after each pass at those levels.
Program run_passes(const std::vector<pass::AnyPass>& list, const Program& input, Context& c) {
  pass::Pipeline pipeline(list);
  ir::Program result = guarded(&input, [&] {
    if (c.level != Verification::none) {
      ir::Diagnostics check = passes::check_pipeline(pipeline, input.ir, {});
      if (passes::has_error(check)) throw py::value_error(rendered(check, &input));
    }
    pass::PassContext ctx;
    ctx.backend = *backend::backend_by_name(c.backend);
    ctx.max_expansion = c.max_expansion;
    pass::Instruments instruments;
    if (c.level == Verification::roundtrip) instruments = text::roundtrip_instrument();
    if (c.level == Verification::semantic) {
      interp::EquivalenceOptions eo;
      eo.seed = c.seed;
      eo.trials = c.trials;
      instruments = interp::semantic_instrument(eo);
    }
    const pass::VerifyLevel level = c.level == Verification::none        ? pass::VerifyLevel::none
                                    : c.level == Verification::roundtrip ? pass::VerifyLevel::roundtrip
                                                                         : pass::VerifyLevel::basic;
    std::vector<pass::PassTiming> timings;
    ir::Program out;
    std::exception_ptr failure;
    {
      // The passes touch no Python object: other threads may run meanwhile.
      py::gil_scoped_release unlocked;
      try {
        out = pipeline.run(input.ir, ctx, level, instruments, &timings);
      } catch (...) {
        failure = std::current_exception();
      }
    }
    // A failed run's counters are kept too: they say how far it got.
    for (const auto& [key, n] : ctx.stats.counts()) c.stats[key] += n;
    if (failure) std::rethrow_exception(failure);
    for (const auto& t : timings) c.timings.push_back({std::string(t.pass), t.milliseconds, t.verify_milliseconds});
    return out;
  });
  return Program{std::move(result), input.source, input.file_name};
}

// ---- Program ----------------------------------------------------------------------------

Program parse(const std::string& text, const std::string& file_name) {
  Program p{nullptr, std::make_shared<const std::string>(text), file_name};
  p.ir = guarded(&p, [&] {
    py::gil_scoped_release unlocked;
    return text::parse_program(*p.source, file_name);
  });
  return p;
}

Program parse_file(const std::string& path) {
  std::string text = guarded(nullptr, [&] { return text::read_source(path); });
  return parse(text, path);
}

std::string print(const Program& p) {
  return guarded(&p, [&] { return text::print(p.ir); });
}

std::vector<std::string> function_names(const Program& p) {
  std::vector<std::string> out;
  for (const auto& f : p.ir->functions) out.push_back(f->name);
  return out;
}

pass::Property property_named(const std::string& name) {
  if (auto p = pass::property_by_name(name)) return *p;
  std::string all;
  for (std::size_t i = 0; i < pass::property_count; ++i)
    all += (all.empty() ? "" : ", ") + std::string(pass::name_of(static_cast<pass::Property>(i)));
  throw py::value_error("unknown property '" + name + "'; the properties are " + all);
}

std::vector<std::string> names_of(pass::PropertySet set) {
  std::vector<std::string> out;
  set.for_each([&](pass::Property p) { out.emplace_back(pass::name_of(p)); });
  return out;
}

// NumPy → the interpreter's arrays: any numeric array or Python number, read as float64.
interp::NpyArray to_array(const std::string& name, const py::handle& value) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(value);
  if (!a) throw py::value_error("input '" + name + "' is not a number or a numeric array");
  interp::NpyArray out;
  for (py::ssize_t k = 0; k < a.ndim(); ++k) out.shape.push_back(static_cast<std::int64_t>(a.shape(k)));
  out.data.assign(a.data(), a.data() + a.size());
  return out;
}

// The interpreter's arrays → NumPy, in the dtype .npy files get for the element type.
py::array to_numpy(const interp::NpyArray& a) {
  std::vector<py::ssize_t> shape(a.shape.begin(), a.shape.end());
  py::array_t<double> values(shape);
  std::copy(a.data.begin(), a.data.end(), values.mutable_data());
  const char* dtype = "float32";
  switch (a.dtype) {
    case interp::DataType::FP16: dtype = "float16"; break;
    case interp::DataType::BOOL: dtype = "bool"; break;
    case interp::DataType::INT8: dtype = "int8"; break;
    case interp::DataType::INT16: dtype = "int16"; break;
    case interp::DataType::INT32: dtype = "int32"; break;
    case interp::DataType::INT64: case interp::DataType::INDEX: dtype = "int64"; break;
    case interp::DataType::UINT8: dtype = "uint8"; break;
    case interp::DataType::UINT16: dtype = "uint16"; break;
    case interp::DataType::UINT32: dtype = "uint32"; break;
    case interp::DataType::UINT64: dtype = "uint64"; break;
    default: break;  // FP32, BF16 and the FP8 formats: float32 holds every value exactly
  }
  return values.attr("astype")(dtype);
}

std::map<std::string, std::int64_t, std::less<>> dims_of(const std::optional<std::map<std::string, std::int64_t>>& dims) {
  std::map<std::string, std::int64_t, std::less<>> out;
  if (dims)
    for (const auto& [name, v] : *dims) {
      if (v < 0) throw py::value_error("dims: the value of " + name + " must be non-negative, got " + std::to_string(v));
      out.emplace(name, v);
    }
  return out;
}

py::dict run(const Program& p, const std::optional<py::dict>& inputs, const std::optional<std::string>& entry,
             std::uint64_t seed, const std::optional<std::map<std::string, std::int64_t>>& dims) {
  interp::NamedArrays given;
  if (inputs)
    for (const auto& [key, value] : *inputs) {
      std::string name = py::str(key);
      given.emplace(name, to_array(name, value));
    }
  std::string function;
  if (entry) {
    function = *entry;
  } else if (auto chosen = interp::default_entry(*p.ir)) {
    function = *chosen;
  } else {
    std::string names;
    for (const auto& n : function_names(p)) names += (names.empty() ? "" : ", ") + n;
    throw py::value_error("the program has several functions (" + names + "); name the one to run with entry=");
  }
  interp::RunOutcome r = guarded(&p, [&] {
    py::gil_scoped_release unlocked;
    return interp::run_function(p.ir, function, given, seed, dims_of(dims));
  });
  // What the interpreter noticed (an undefined element stored into a valid region) is a warning.
  for (const auto& n : r.notes)
    if (PyErr_WarnEx(PyExc_RuntimeWarning, rendered({interp::as_diagnostic(n)}, &p).c_str(), 1) != 0)
      throw py::error_already_set();
  py::dict out;
  for (const auto& o : r.outputs) out[py::str(o.name)] = to_numpy(o.value);
  return out;
}

struct Equivalence {
  interp::EquivalenceReport report;
  [[nodiscard]] std::string status() const {
    switch (report.status) {
      case interp::EquivalenceReport::Status::equivalent: return "equivalent";
      case interp::EquivalenceReport::Status::different: return "different";
      case interp::EquivalenceReport::Status::unsupported: return "unsupported";
      case interp::EquivalenceReport::Status::cannot_run: return "cannot_run";
    }
    return "unknown";
  }
};

Equivalence equivalent(const Program& reference, const Program& candidate, int trials, std::uint64_t seed,
                       const std::optional<std::map<std::string, std::int64_t>>& dims) {
  if (trials < 1) throw py::value_error("trials must be at least 1, got " + std::to_string(trials));
  interp::EquivalenceOptions eo;
  eo.trials = trials;
  eo.seed = seed;
  eo.dims = dims_of(dims);
  return Equivalence{guarded(&candidate, [&] {
    py::gil_scoped_release unlocked;
    return interp::check_equivalent(reference.ir, candidate.ir, eo);
  })};
}

// ---- passes.Pass, passes.PassPipeline -----------------------------------------------------

struct Pass {
  pass::AnyPass erased;
  Program operator()(const Program& p) const { return run_passes({erased}, p, *current_context()); }
};

struct PassPipeline {
  std::vector<pass::AnyPass> list;
  Program run(const Program& p) const { return run_passes(list, p, *current_context()); }
  [[nodiscard]] std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& q : list) out.emplace_back(q.info.name);
    return out;
  }
};

pass::AnyPass pass_named(const std::string& name) {
  if (auto p = passes::find_pass(name)) return *p;
  std::string all;
  for (const auto& p : passes::all_passes()) all += (all.empty() ? "" : ", ") + std::string(p.info.factory);
  throw py::value_error("unknown pass '" + name + "'; the passes are " + all);
}

}  // namespace

PYBIND11_MODULE(tilewright, m) {
  m.doc() = "tilewright: parse, lower and run the tile-level IR of the PTO instruction set (docs/python.md)";
  m.attr("__version__") = std::string(version());
  py::register_exception<InternalError>(m, "InternalError", PyExc_RuntimeError);

  py::class_<Program>(m, "Program", "A pl program: immutable; passes return new programs")
      .def("__str__", &print)
      .def("as_python", &print, "The program as pl text (Python syntax), as PyPTO prints it")
      .def("__repr__",
           [](const Program& p) {
             std::string names;
             for (const auto& n : function_names(p)) names += (names.empty() ? "" : ", ") + n;
             return "<tilewright.Program '" + p.ir->name + "': " + names + ">";
           })
      .def_property_readonly("name", [](const Program& p) { return p.ir->name; })
      .def_property_readonly("functions", &function_names, "The names of the program's functions, in order")
      .def("properties", [](const Program& p) { return names_of(pass::verified_properties(p.ir)); },
           "The IR properties whose verifiers accept the program")
      .def(
          "verify",
          [](const Program& p, const std::string& property) {
            std::vector<std::string> out;
            for (const auto& d : pass::verify(property_named(property), p.ir)) out.push_back(rendered({d}, &p));
            return out;
          },
          py::arg("property"), "The verifier's findings for one property: empty when it holds")
      .def("run", &run, py::arg("inputs") = py::none(), py::arg("entry") = py::none(), py::arg("seed") = 1,
           py::arg("dims") = py::none(),
           "Runs a function with the interpreter. inputs: {parameter name: array or number}; parameters not given are "
           "random (Out tensors undefined). Returns {name: numpy array} for every Out/InOut tensor and return_<i> for "
           "every returned value");

  m.def("parse", &parse, py::arg("text"), py::arg("file_name") = "<string>", "Reads pl text into a Program");
  m.def("parse_file", &parse_file, py::arg("path"), "Reads a .pto file into a Program");
  m.def(
      "structural_equal", [](const Program& a, const Program& b) { return !ir::structural_difference(a.ir, b.ir); },
      py::arg("a"), py::arg("b"), "True when the programs are the same up to the names of their variables");
  m.def(
      "assert_structural_equal",
      [](const Program& a, const Program& b) {
        if (auto difference = ir::structural_difference(a.ir, b.ir)) {
          PyErr_SetString(PyExc_AssertionError, ("programs differ: " + *difference).c_str());
          throw py::error_already_set();
        }
      },
      py::arg("a"), py::arg("b"),
      "Raises AssertionError naming the first difference when the programs are not structurally equal");

  py::class_<Equivalence>(m, "EquivalenceReport", "What equivalent() found; true when the programs agree")
      .def_property_readonly("ok", [](const Equivalence& e) { return e.report.ok(); })
      .def("__bool__", [](const Equivalence& e) { return e.report.ok(); })
      .def_property_readonly("status", &Equivalence::status)
      .def_property_readonly("message", [](const Equivalence& e) { return e.report.message; })
      .def_property_readonly("trials_run", [](const Equivalence& e) { return e.report.trials_run; })
      .def_property_readonly("functions", [](const Equivalence& e) { return e.report.functions; })
      .def("__repr__", [](const Equivalence& e) {
        return "<tilewright.EquivalenceReport " + e.status() + (e.report.message.empty() ? "" : ": " + e.report.message) +
               ">";
      });
  m.def("equivalent", &equivalent, py::arg("reference"), py::arg("candidate"), py::arg("trials") = 16,
        py::arg("seed") = 1, py::arg("dims") = py::none(),
        "Runs every function both programs define on random inputs and compares the outputs");

  // ---- tilewright.passes ----
  py::module_ ps = m.def_submodule("passes", "The passes, PassContext and PassPipeline");
  py::module_::import("sys").attr("modules")["tilewright.passes"] = ps;

  py::enum_<Verification>(ps, "VerificationLevel")
      .value("NONE", Verification::none, "no property checks")
      .value("BASIC", Verification::basic, "check the pipeline order; verify what each pass produces")
      .value("ROUNDTRIP", Verification::roundtrip, "BASIC, and print -> parse -> compare after each pass")
      .value("SEMANTIC", Verification::semantic, "BASIC, and run each pass's input and result with the interpreter");

  py::class_<Context, std::shared_ptr<Context>>(ps, "PassContext",
                                                "Settings for the passes run inside `with PassContext(...)`; "
                                                "collects their statistics and timings")
      .def(py::init(&make_context), py::arg("verification_level") = Verification::basic, py::arg("backend") = "none",
           py::arg("max_expansion") = 1'000'000, py::arg("seed") = 1, py::arg("trials") = 16)
      .def("__enter__",
           [](const std::shared_ptr<Context>& c) {
             context_stack().push_back(c);
             return c;
           })
      .def("__exit__",
           [](const std::shared_ptr<Context>& c, const py::args&) {
             auto& stack = context_stack();
             if (!stack.empty() && stack.back() == c) stack.pop_back();
           })
      .def_property_readonly("verification_level", [](const Context& c) { return c.level; })
      .def_property_readonly("backend", [](const Context& c) { return c.backend; })
      .def_property_readonly("stats", [](const Context& c) { return c.stats; },
                             "{'Pass.counter': count} summed over the passes run in this context")
      .def_property_readonly(
          "timings",
          [](const Context& c) {
            py::list out;
            for (const auto& t : c.timings)
              out.append(py::dict(py::arg("pass") = t.pass, py::arg("ms") = t.milliseconds,
                                  py::arg("verify_ms") = t.verify_milliseconds));
            return out;
          },
          "[{'pass', 'ms', 'verify_ms'}] per pass run in this context, in order");
  ps.def("current_context", &current_context, "The innermost active PassContext (a default one outside any)");

  py::class_<Pass>(ps, "Pass", "A pass: call it on a Program to get the transformed Program")
      .def("__call__", &Pass::operator(), py::arg("program"))
      .def("get_name", [](const Pass& p) { return std::string(p.erased.info.name); })
      .def("get_factory_name", [](const Pass& p) { return std::string(p.erased.info.factory); })
      .def("get_required_properties", [](const Pass& p) { return names_of(p.erased.info.required); })
      .def("get_produced_properties", [](const Pass& p) { return names_of(p.erased.info.produced); })
      .def("get_invalidated_properties", [](const Pass& p) { return names_of(p.erased.info.invalidated); })
      .def("__repr__", [](const Pass& p) { return "<tilewright.passes." + std::string(p.erased.info.factory) + "()>"; });

  py::class_<PassPipeline>(ps, "PassPipeline", "Passes run in order, their order checked against the input")
      .def(py::init<>())
      .def("add_pass", [](PassPipeline& pl, const Pass& p) { pl.list.push_back(p.erased); }, py::arg("pass_"))
      .def("run", &PassPipeline::run, py::arg("program"))
      .def("__call__", &PassPipeline::run, py::arg("program"))
      .def("get_pass_names", &PassPipeline::names);

  for (const auto& p : passes::all_passes()) {
    std::string doc = std::string(passes::summary_of(p.info.name)) + " (" + std::string(p.info.name) + ")";
    ps.def(
        std::string(p.info.factory).c_str(), [p] { return Pass{p}; }, doc.c_str());
  }
  ps.def("get_pass", [](const std::string& name) { return Pass{pass_named(name)}; }, py::arg("name"),
         "A pass by name: factory (flatten_tile_nd_to_2d), kebab-case or CamelCase");
  ps.def(
      "default_pipeline",
      [] {
        PassPipeline pl;
        pl.list = passes::default_pipeline();
        return pl;
      },
      "The passes that lower a kernel before memory allocation, in upstream's order");
}
