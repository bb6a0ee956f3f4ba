// tilewright-bench's main: the file mode when files are named (file_mode.hpp), otherwise the
// Google Benchmark families, whose own flags (--benchmark_filter=…) apply and whose parser
// rejects any other argument.
#include <benchmark/benchmark.h>

#include "file_mode.hpp"

int main(int argc, char** argv) {
  if (tilewright::bench::wants_file_mode(argc, argv)) return tilewright::bench::run_file_mode(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
