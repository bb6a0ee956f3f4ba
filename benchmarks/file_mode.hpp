#pragma once
// `tilewright-bench FILE.pto…`: times the stages of a tilewright-opt run on real kernels —
// parse, the identity walk, each pass alone on the parsed program with the verification of
// what it produced, and print — and reports best and median wall time and the heap each
// allocates per statement, so a kernel can be compared with upstream's timings of the same
// file (../shared/perf/README.md takes them the same way: the pass call alone, warm).
namespace tilewright::bench {

// True when the command line names files (an argument not starting with '-'): then main
// runs the file mode instead of the Google Benchmark families.
bool wants_file_mode(int argc, char** argv);

// Returns the process exit code: 0, 1 when a file or a pass failed, 2 on a usage error.
int run_file_mode(int argc, char** argv);

}  // namespace tilewright::bench
