// tilewright-bench's main: the file mode when files are named (file_mode.hpp), otherwise the
// Google Benchmark families, whose own flags (--benchmark_filter=…) apply and whose parser
// rejects any other argument.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "file_mode.hpp"
#include "heap_policy.hpp"

int main(int argc, char** argv) {
  if (tilewright::bench::wants_file_mode(argc, argv)) return tilewright::bench::run_file_mode(argc, argv);
  if (tilewright::bench::keep_heap_from_environment() && !tilewright::bench::keep_freed_memory()) {
    std::fprintf(stderr, "tilewright-bench: error: TILEWRIGHT_BENCH_KEEP_HEAP needs glibc's mallopt, which this build lacks\n");
    return 2;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
