// The file mode of tilewright-bench (file_mode.hpp):
//
//   tilewright-bench FILE.pto… [--passes=NAME[,NAME…]] [--repeat=N] [--cold-cache] [--keep-heap]
//
// Each stage runs once to warm up, then N times (default 5); best and median are wall times of
// the stage alone. The heap columns are of one run: bytes handed out and operator new calls, per
// statement (statements counted as upstream counts them: every statement of every function
// body, recursively, statement lists excepted). A pass runs alone on the parsed program, as
// upstream's timings were taken; by default the pass the file is named after
// (`canonicalize_tile_slice_10000.pto` → CanonicalizeTileSlice), or, for any other name, every
// shipped pass. --cold-cache evicts the caches before every run (cold_cache.hpp); --keep-heap
// keeps freed memory in the process instead of returning it to the kernel (heap_policy.hpp). A pass
// that rejects the program is reported with its diagnostic, and the exit code is 1.
#include "file_mode.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tilewright/ir/diagnostic.hpp"
#include "tilewright/pass/verify.hpp"
#include "tilewright/passes/registry.hpp"
#include "tilewright/text/parser.hpp"
#include "tilewright/text/printer.hpp"
#include "tilewright/text/source.hpp"

#include "allocation_counter.hpp"
#include "cold_cache.hpp"
#include "heap_policy.hpp"
#include "identity_walk.hpp"
#include "kernel_generator.hpp"

namespace tilewright::bench {
namespace {

struct FileOptions {
  std::vector<std::string> files;
  std::vector<std::string> passes;  // empty: chosen per file
  int repeat = 5;
  bool cold_cache = false;
  bool keep_heap = false;
};

constexpr std::string_view usage =
    "usage: tilewright-bench FILE.pto... [--passes=NAME[,NAME...]] [--repeat=N] [--cold-cache] [--keep-heap]\n"
    "       tilewright-bench [--benchmark_filter=REGEX] [--benchmark_...]   (the generated-program families)\n";

std::optional<std::string> parse_options(int argc, char** argv, FileOptions& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--passes=")) {
      std::string_view list = arg.substr(9);
      while (!list.empty()) {
        const std::size_t comma = list.find(',');
        const std::string_view name = list.substr(0, comma);
        if (!passes::find_pass(name)) return "unknown pass '" + std::string(name) + "' (tilewright-opt --list-passes lists them)";
        o.passes.emplace_back(name);
        list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
      }
    } else if (arg.starts_with("--repeat=")) {
      char* end = nullptr;
      const long n = std::strtol(argv[i] + 9, &end, 10);
      if (*end != '\0' || n < 1 || n > 1000) return "--repeat takes a count from 1 to 1000, not '" + std::string(arg.substr(9)) + "'";
      o.repeat = static_cast<int>(n);
    } else if (arg == "--cold-cache") {
      o.cold_cache = true;
    } else if (arg == "--keep-heap") {
      o.keep_heap = true;
    } else if (arg.starts_with("-")) {
      return "unknown option '" + std::string(arg) + "' with files (file mode takes --passes=…, --repeat=N, --cold-cache and --keep-heap; the --benchmark_… flags are for the generated-program families, without files)";
    } else {
      o.files.emplace_back(arg);
    }
  }
  return std::nullopt;
}

struct Sample {
  double best_ms = 0;
  double median_ms = 0;
  double bytes_per_stmt = 0;
  double allocs_per_stmt = 0;
  double kept_per_stmt = 0;  // of those bytes, what the result still holds once the stage returns
  double peak_per_stmt = 0;  // the most of them in use at one time during the stage
};

// A warm-up run, whose heap use is counted, then `o.repeat` timed runs of `op`, uncounted,
// each after evicting the caches when asked.
template <class Op>
Sample measure_stage(const FileOptions& o, std::size_t statements, Op&& op) {
  using Clock = std::chrono::steady_clock;
  Sample s;
  {
    reset_peak();
    const AllocationCounters before = allocation_counters();
    auto warm = op();
    const AllocationCounters after = allocation_counters();
    const auto n = static_cast<double>(std::max<std::size_t>(statements, 1));
    s.bytes_per_stmt = static_cast<double>(after.allocated - before.allocated) / n;
    s.allocs_per_stmt = static_cast<double>(after.allocations - before.allocations) / n;
    // `warm` is alive here: what the stage allocated and did not free is what its result keeps.
    s.kept_per_stmt = static_cast<double>(after.live > before.live ? after.live - before.live : 0) / n;
    s.peak_per_stmt = static_cast<double>(after.peak > before.live ? after.peak - before.live : 0) / n;
  }
  std::vector<double> ms;
  count_allocations(false);
  for (int i = 0; i < o.repeat; ++i) {
    if (o.cold_cache) evict_caches();
    const auto start = Clock::now();
    auto result = op();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  count_allocations(true);
  std::sort(ms.begin(), ms.end());
  s.best_ms = ms.front();
  s.median_ms = ms[ms.size() / 2];
  return s;
}

void print_row(const std::string& stage, const Sample& s, const std::string& note = {}) {
  std::printf("  %-34s %11.3f %11.3f %12.1f %12.1f %12.1f %11.2f%s%s\n", stage.c_str(), s.best_ms, s.median_ms,
              s.bytes_per_stmt, s.peak_per_stmt, s.kept_per_stmt, s.allocs_per_stmt, note.empty() ? "" : "  ", note.c_str());
}

// The pass a file is named after (`<factory>_<n>.pto`), if any.
std::vector<pass::AnyPass> passes_for(const std::string& file, const FileOptions& o) {
  std::vector<pass::AnyPass> out;
  if (!o.passes.empty()) {
    for (const auto& name : o.passes) out.push_back(*passes::find_pass(name));
    return out;
  }
  const std::string stem = std::filesystem::path(file).stem().string();
  for (auto& p : passes::all_passes())
    if (stem.starts_with(std::string(p.info.factory) + "_")) out.push_back(p);
  if (out.empty()) out = passes::all_passes();
  return out;
}

int bench_file(const std::string& file, const FileOptions& o) {
  std::string source;
  ir::Program program;
  try {
    source = text::read_source(file);
    program = text::parse_program(source, file);
  } catch (const ir::Error& e) {
    std::fprintf(stderr, "%s", ir::render(e.diagnostic(), source).c_str());
    return 1;
  }
  const std::size_t statements = count_statements(program);
  std::printf("%s: %zu statements, %d runs after a warm-up, malloc: %s\n", file.c_str(), statements,
              o.repeat, allocator_name);
  std::printf("  %-34s %11s %11s %12s %12s %12s %11s\n", "stage", "best ms", "median ms", "heap B/stmt",
              "peak B/stmt", "kept B/stmt", "news/stmt");
  print_row("parse", measure_stage(o, statements, [&] { return text::parse_program(source, file); }));
  print_row("identity walk", measure_stage(o, statements, [&] { return identity_walk(program); }));
  int status = 0;
  for (const auto& p : passes_for(file, o)) {
    ir::Program result;
    try {
      pass::PassContext ctx;
      result = p.run(program, ctx);
    } catch (const ir::Error& e) {
      std::printf("  %-34.*s rejects the program:\n", static_cast<int>(p.info.name.size()), p.info.name.data());
      std::fprintf(stderr, "%s", ir::render(e.diagnostic(), source).c_str());
      status = 1;
      continue;
    }
    const Sample pass_sample = measure_stage(o, statements, [&] {
      pass::PassContext ctx;
      return p.run(program, ctx);
    });
    print_row(std::string(p.info.name), pass_sample, result == program ? "(changed nothing)" : "");
    print_row("  verify what it produced", measure_stage(o, statements, [&] {
                return pass::verify(p.info.produced, result);
              }));
  }
  print_row("print", measure_stage(o, statements, [&] { return text::print(program); }));
  return status;
}

}  // namespace

bool wants_file_mode(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (argv[i][0] != '-') return true;
  return false;
}

int run_file_mode(int argc, char** argv) {
  FileOptions o;
  if (auto error = parse_options(argc, argv, o)) {
    std::fprintf(stderr, "tilewright-bench: error: %s\n%.*s", error->c_str(), static_cast<int>(usage.size()), usage.data());
    return 2;
  }
  if (o.keep_heap && !keep_freed_memory()) {
    std::fprintf(stderr, "tilewright-bench: error: --keep-heap needs glibc's mallopt, which this build lacks\n");
    return 2;
  }
  int status = 0;
  for (const auto& file : o.files) status = std::max(status, bench_file(file, o));
  return status;
}

}  // namespace tilewright::bench
