// Throughput of everything a pipeline run is made of — building, parsing and printing a
// program, structural equality, the identity walk every pass is measured against, and the
// passes, each on the workload made for it — on generated programs of 1k, 10k and 100k
// statements (kernel_generator.hpp). docs/benchmarks.md has the numbers.
//
// Benchmarks are named <what>/<workload>/<statements>. Counters:
//   stmts        statements in the program (the generator rounds the size up to whole blocks)
//   stmts/s      statements processed per second
//   time/stmt    seconds per statement (shown with SI prefixes: 250n = 250 ns)
//   alloc/stmt   heap bytes allocated per statement in one run
//   peak/stmt    highest extra heap in use during one run, per statement
//   ir/stmt      heap bytes a built or parsed program keeps alive, per statement (build, and
//                the identity walk on upstream's kernels)
//
// TILEWRIGHT_BENCH_MAX_STATEMENTS=<n> drops the sizes above n (the CI smoke run uses 10000).
// TILEWRIGHT_BENCH_COLD_CACHE=1 evicts the caches before every timed run (cold_cache.hpp).
// TILEWRIGHT_BENCH_KEEP_HEAP=1 keeps freed memory in the process (heap_policy.hpp).
// What a run returns is destroyed outside the timed region, as in the file mode: the time is
// the work of producing it, not of freeing the previous program.
//
// <pass>/pypto_file/<n> and identity_walk/pypto_file/<n> run on the kernels upstream printed
// (../shared/perf/<pass>_<n>.pto, or $TILEWRIGHT_PERF_DIR), parsed outside the timed loop:
// the same measurement as the upstream timings in that folder's README. Skipped, saying so,
// when the folder is absent.
//
// Under `valgrind --tool=callgrind --instr-atstart=no` only the timed loops are instrumented,
// so callgrind's total is the instruction count of the measured work (docs/benchmarks.md).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tilewright/ir/mutate.hpp"
#include "tilewright/ir/structural_equal.hpp"
#include "tilewright/passes/canonicalize_tile_slice/pass.hpp"
#include "tilewright/passes/flatten_tile_nd_to_2d/pass.hpp"
#include "tilewright/passes/fold_no_op_reshape/pass.hpp"
#include "tilewright/passes/materialize_tensor_strides/pass.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"

#include "allocation_counter.hpp"
#include "callgrind.hpp"
#include "cold_cache.hpp"
#include "identity_walk.hpp"
#include "kernel_generator.hpp"

namespace {

using namespace tilewright;
using bench::Workload;

std::vector<std::size_t> sizes() {
  std::size_t max = 100'000;
  if (const char* env = std::getenv("TILEWRIGHT_BENCH_MAX_STATEMENTS"))
    max = std::strtoull(env, nullptr, 10);
  std::vector<std::size_t> out;
  for (std::size_t n : {1'000, 10'000, 100'000})
    if (n <= max) out.push_back(n);
  return out;
}

// The generated program a benchmark runs on, built outside the timed loop; its printed text
// and an independently built twin only when a benchmark asks for them. Only the input of the
// running benchmark is kept: at 100k statements one input with its twin and text is ~0.3 GB,
// and rebuilding one takes well under a second.
class Input {
 public:
  // The chain is one chain per kernel: a single kernel makes it as long as the program.
  Input(Workload w, std::size_t n)
      : options_{w, n, w == Workload::slice_chain ? std::size_t{1} : std::size_t{8}},
        program_(bench::generate_program(options_)),
        statements_(bench::count_statements(program_)) {}
  Input(const Input&) = delete;
  Input& operator=(const Input&) = delete;

  [[nodiscard]] const ir::Program& program() const noexcept { return program_; }
  [[nodiscard]] std::size_t statements() const noexcept { return statements_; }
  const std::string& text() {
    if (!text_) text_ = text::print(program_);
    return *text_;
  }
  const ir::Program& twin() {
    if (!twin_) twin_ = bench::generate_program(options_);
    return twin_;
  }

  static Input& get(Workload w, std::size_t n) {
    static std::unique_ptr<Input> current;
    if (!current || current->options_.workload != w || current->options_.statements != n) {
      current.reset();  // free the previous input before building the next
      current = std::make_unique<Input>(w, n);
    }
    return *current;
  }

 private:
  bench::GeneratorOptions options_;
  ir::Program program_;
  std::size_t statements_;
  std::optional<std::string> text_;
  ir::Program twin_;
};

// Runs `op` once with the heap counted, then in the timed loop uncounted, and reports the
// per-statement counters. Each run's result is destroyed with the timer (and callgrind's
// instrumentation) paused: dropping a program is the caller's cost, paid whichever pass made
// it, and an identity walk, which returns its input, would never pay it.
template <class Op>
void measure(benchmark::State& state, std::size_t statements, Op&& op) {
  const bench::AllocationCounters before = bench::allocation_counters();
  bench::reset_peak();
  {
    auto result = op();
    benchmark::DoNotOptimize(result);
  }
  const bench::AllocationCounters after = bench::allocation_counters();
  static const bool cold = bench::cold_cache_from_environment();
  bench::count_allocations(false);
  if (cold) bench::evict_caches();
  bench::instrument(true);
  for (auto _ : state) {
    std::optional<decltype(op())> result(op());
    benchmark::DoNotOptimize(*result);
    // Between two runs, untimed: the result dropped, the caches evicted for the next one.
    state.PauseTiming();
    bench::instrument(false);
    result.reset();
    if (cold) bench::evict_caches();
    bench::instrument(true);
    state.ResumeTiming();
  }
  bench::instrument(false);
  bench::count_allocations(true);
  const auto n = static_cast<double>(statements);
  using C = benchmark::Counter;
  state.counters["stmts"] = n;
  state.counters["stmts/s"] = C(n, C::kIsIterationInvariantRate);
  state.counters["time/stmt"] =
      C(n, static_cast<C::Flags>(C::kIsIterationInvariantRate | C::kInvert));
  state.counters["alloc/stmt"] =
      C(static_cast<double>(after.allocated - before.allocated) / n);
  state.counters["peak/stmt"] = C(static_cast<double>(after.peak - before.live) / n);
}

using bench::identity_walk;

void bm_build(benchmark::State& state, Workload w, std::size_t n) {
  const std::size_t statements = Input::get(w, n).statements();
  measure(state, statements, [&] { return bench::generate_program({w, n}); });
  const std::size_t live_before = bench::allocation_counters().live;
  ir::Program kept = bench::generate_program({w, n});
  state.counters["ir/stmt"] = static_cast<double>(bench::allocation_counters().live - live_before) /
                              static_cast<double>(statements);
}

void bm_parse(benchmark::State& state, Workload w, std::size_t n) {
  Input& in = Input::get(w, n);
  const std::string& source = in.text();
  if (!ir::structural_equal(text::parse_program(source, "bench.pto"), in.program()))
    return state.SkipWithError("the printed program does not parse back to itself");
  measure(state, in.statements(), [&] { return text::parse_program(source, "bench.pto"); });
}

void bm_print(benchmark::State& state, Workload w, std::size_t n) {
  Input& in = Input::get(w, n);
  measure(state, in.statements(), [&] { return text::print(in.program()); });
}

void bm_structural_equal(benchmark::State& state, Workload w, std::size_t n) {
  Input& in = Input::get(w, n);
  const ir::Program& twin = in.twin();
  if (!ir::structural_equal(in.program(), twin))
    return state.SkipWithError("the generator is not deterministic");
  measure(state, in.statements(), [&] { return ir::structural_equal(in.program(), twin); });
}

void bm_identity_walk(benchmark::State& state, Workload w, std::size_t n) {
  Input& in = Input::get(w, n);
  if (identity_walk(in.program()) != in.program())
    return state.SkipWithError("the identity walk changed the program");
  measure(state, in.statements(), [&] { return identity_walk(in.program()); });
}

template <class Pass>
void bm_pass(benchmark::State& state, const Pass& pass, Workload w, std::size_t n) {
  Input& in = Input::get(w, n);
  pass::PassContext check;
  if (pass(in.program(), check) == in.program())
    return state.SkipWithError("the pass found nothing to rewrite");
  measure(state, in.statements(), [&] {
    pass::PassContext ctx;
    return pass(in.program(), ctx);
  });
}

// A kernel upstream printed for `pass` at `n` statements, parsed once, with the heap bytes its
// IR keeps alive; null when absent.
struct PerfInput {
  ir::Program program;
  std::size_t ir_bytes = 0;
};
const PerfInput* perf_file(std::string_view pass, std::size_t n) {
  static std::map<std::string, PerfInput> parsed;
  namespace fs = std::filesystem;
  const char* env = std::getenv("TILEWRIGHT_PERF_DIR");
  const fs::path dir = env ? fs::path(env) : fs::path(TILEWRIGHT_PERF_DIR);
  const fs::path file = dir / (std::string(pass) + "_" + std::to_string(n) + ".pto");
  auto it = parsed.find(file.string());
  if (it == parsed.end()) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return nullptr;
    const std::string text(std::istreambuf_iterator<char>(in), {});
    parsed.clear();  // one input at a time: a 100k program is large
    const std::size_t live_before = bench::allocation_counters().live;
    ir::Program program = text::parse_program(text, file.string());
    const std::size_t ir_bytes = bench::allocation_counters().live - live_before;
    it = parsed.emplace(file.string(), PerfInput{std::move(program), ir_bytes}).first;
  }
  return &it->second;
}

template <class Pass>
void bm_pass_on_file(benchmark::State& state, const Pass& pass, std::size_t n, bool walk_only) {
  const PerfInput* input = perf_file(Pass::info.factory, n);
  if (!input) return state.SkipWithError("no ../shared/perf file for this pass and size");
  const ir::Program* program = &input->program;
  const std::size_t statements = bench::count_statements(*program);
  if (walk_only) {
    measure(state, statements, [&] { return identity_walk(*program); });
    // What the walk reads per statement: a program stays in a cache level while this many
    // bytes per statement, times its statements, fit there.
    state.counters["ir/stmt"] = static_cast<double>(input->ir_bytes) / static_cast<double>(statements);
    return;
  }
  measure(state, statements, [&] {
    pass::PassContext ctx;
    return pass(*program, ctx);
  });
}

// `<pass>/pypto_file/<n>` and `identity_walk/pypto_file/<pass>/<n>` for the upstream kernels.
template <class Pass>
void register_pass_on_perf_files(const Pass& pass) {
  for (std::size_t n : sizes())
    for (bool walk_only : {false, true}) {
      const std::string name = walk_only ? "identity_walk/pypto_file/" + std::string(Pass::info.factory) + "/" +
                                               std::to_string(n)
                                         : std::string(Pass::info.name) + "/pypto_file/" + std::to_string(n);
      benchmark::RegisterBenchmark(name.c_str(), [&pass, n, walk_only](benchmark::State& state) {
        bm_pass_on_file(state, pass, n, walk_only);
      })->Unit(benchmark::kMillisecond);
    }
}

template <class Run>
void register_family(const std::string& what, std::initializer_list<Workload> workloads, Run run) {
  for (Workload w : workloads)
    for (std::size_t n : sizes()) {
      std::string name =
          what + "/" + std::string(bench::workload_name(w)) + "/" + std::to_string(n);
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        run(state, w, n);
      })->Unit(benchmark::kMillisecond);
    }
}

// A pass object (an inline constexpr global of its header) on the workload made for it.
template <class Pass>
void register_pass(const Pass& pass, Workload w) {
  register_family(std::string(Pass::info.name), {w},
                  [&pass](benchmark::State& state, Workload workload, std::size_t n) {
                    bm_pass(state, pass, workload, n);
                  });
}

[[maybe_unused]] const bool registered = [] {
  constexpr auto views = Workload::strided_views;
  constexpr auto allocated = Workload::allocated_tiles;
  constexpr auto nd = Workload::nd_tiles;
  constexpr auto slices = Workload::tile_slices;
  constexpr auto chain = Workload::slice_chain;
  register_family("build", {views, allocated, nd, slices, chain}, bm_build);
  register_family("parse", {views, allocated, nd}, bm_parse);
  register_family("print", {views, allocated, nd}, bm_print);
  register_family("structural_equal", {views, allocated, nd}, bm_structural_equal);
  register_family("identity_walk", {views, allocated, nd, slices, chain}, bm_identity_walk);
  register_pass(passes::materialize_tensor_strides, views);
  register_pass(passes::fold_no_op_reshape, allocated);
  register_pass(passes::flatten_tile_nd_to_2d, nd);
  register_pass(passes::canonicalize_tile_slice, slices);
  register_pass(passes::canonicalize_tile_slice, chain);
  register_pass_on_perf_files(passes::materialize_tensor_strides);
  register_pass_on_perf_files(passes::fold_no_op_reshape);
  register_pass_on_perf_files(passes::flatten_tile_nd_to_2d);
  register_pass_on_perf_files(passes::canonicalize_tile_slice);
  return true;
}();

}  // namespace
