#!/usr/bin/env bash
# Set up, build and run every test:
#   build/        g++, Debug, -Werror: unit, docs, golden (skipped without the corpus), lit,
#                 CLI, example and compile-fail tests; the Python module and its pytest suite;
#                 tilewright-bench built and smoke-run
#   build-O3/     g++, Release (-O3), -Werror: the default configuration a user builds —
#                 tilewright-opt and the examples — plus the header check (every public header
#                 on its own), then the lit suite, the CLI and example tests on those binaries.
#                 g++ 12's -O3-only warnings (-Warray-bounds, -Wrestrict) fire here. The test
#                 binaries are not rebuilt at -O3: they would double the CI time, and the Debug
#                 and ASan builds run them
#   build-asan/   clang++-14, Debug, -Werror, -fsanitize=address,undefined: tests run
#                 (one build covers clang's warnings and both sanitizers)
#   build-fuzz/   clang++-14 libFuzzer + ASan/UBSan: the structured fuzzer, a bounded deterministic run
#   consumers     add_subdirectory / find_package / FetchContent example projects
# Fails (non-zero) at the first failure. Uses at most -j2 (JOBS=…). Prints how long each stage
# took at the end, whether it passed or not.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$TILEWRIGHT_ROOT"

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export CTEST_OUTPUT_ON_FAILURE=1

common_args=(
  -DTILEWRIGHT_BUILD_TESTS=ON
  -DTILEWRIGHT_BUILD_TOOLS=ON
  -DTILEWRIGHT_WERROR=ON
)
if [[ -n "${TILEWRIGHT_GOLDEN_DIR:-}" ]]; then
  common_args+=("-DTILEWRIGHT_GOLDEN_DIR=$TILEWRIGHT_GOLDEN_DIR")
fi

run_ctest() {
  ctest --test-dir "$1" --output-on-failure --no-tests=error -j "$JOBS"
}

start=$SECONDS
trap tw_stage_report EXIT

tw_stage "setup"
bash scripts/setup.sh

# --- g++, Debug ------------------------------------------------------------------------------
tw_stage "g++ Debug: configure and build build/"
tw_configure build "${common_args[@]}" \
  -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER="$GXX" \
  -DTILEWRIGHT_BUILD_EXAMPLES=ON \
  -DTILEWRIGHT_BUILD_BENCHMARKS=ON \
  -DTILEWRIGHT_BUILD_PYTHON=ON \
  "-DPython3_EXECUTABLE=$PYTHON3" \
  -DTILEWRIGHT_HEADER_CHECK=OFF \
  -DTILEWRIGHT_SANITIZE=
cmake --build build -j "$JOBS"
tw_stage "g++ Debug: ctest"
run_ctest build

# --- benchmarks: prove tilewright-bench runs (built in build/ above, unoptimised) -------------
if compgen -G "benchmarks/*.cpp" >/dev/null; then
  tw_stage "benchmarks: smoke run (up to 1k statements, Debug; docs/benchmarks.md for real runs)"
  TILEWRIGHT_BENCH_MAX_STATEMENTS="${TILEWRIGHT_BENCH_MAX_STATEMENTS:-1000}" build/bin/tilewright-bench \
    --benchmark_filter="${TILEWRIGHT_BENCH_FILTER:-.}" \
    --benchmark_min_time="${TILEWRIGHT_BENCH_MIN_TIME:-0.01}"
  build/bin/tilewright-bench examples/kernels/batched_rows_3d.pto --passes=flatten_tile_nd_to_2d --repeat=1 --cold-cache --keep-heap
fi

# --- g++, Release (-O3): the default user configuration, and the header check ----------------
tw_stage "g++ Release (-O3 -Werror): tools, examples, header check in build-O3/"
tw_configure build-O3 "${common_args[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$GXX" \
  -DTILEWRIGHT_BUILD_EXAMPLES=ON \
  -DTILEWRIGHT_BUILD_BENCHMARKS=OFF \
  -DTILEWRIGHT_HEADER_CHECK=ON \
  -DTILEWRIGHT_SANITIZE=
cmake --build build-O3 -j "$JOBS" --target tilewright-opt tilewright-example-custom_rule tilewright-header-check
tw_stage "g++ Release: lit, CLI and example tests"
ctest --test-dir build-O3 --output-on-failure --no-tests=error -j "$JOBS" -R '^(lit|cli\..*|example\..*)$'
build-O3/bin/tilewright-opt examples/kernels/batched_rows_3d.pto --pipeline=default >/dev/null

# --- clang++-14, Debug, ASan + UBSan ----------------------------------------------------------
# The header check and benchmarks add nothing under sanitizers (the g++ stages have them): off.
tw_stage "clang asan+ubsan Debug: configure and build build-asan/"
tw_configure build-asan "${common_args[@]}" \
  -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER="$CLANGXX" \
  -DTILEWRIGHT_BUILD_EXAMPLES=ON \
  -DTILEWRIGHT_BUILD_BENCHMARKS=OFF \
  -DTILEWRIGHT_HEADER_CHECK=OFF \
  -DTILEWRIGHT_SANITIZE=address,undefined
cmake --build build-asan -j "$JOBS"
tw_stage "clang asan+ubsan Debug: ctest"
run_ctest build-asan

# --- structured fuzzing: a bounded, deterministic run (docs/fuzzing.md) ------------------------
# The structured mutator from the seed corpus, every oracle on (round trip, the default pipeline
# with only located user errors, the interpreter's equivalence check after each pass,
# idempotence): FUZZ_RUNS inputs from seed 1, so a red run is reproducible.
fuzz_runs="${FUZZ_RUNS:-30000}"
tw_stage "clang libFuzzer: structured fuzzing, $fuzz_runs inputs from seed 1"
tw_configure build-fuzz \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$CLANGXX" \
  -DTILEWRIGHT_BUILD_FUZZERS=ON \
  -DTILEWRIGHT_BUILD_TESTS=OFF \
  -DTILEWRIGHT_BUILD_TOOLS=OFF \
  -DTILEWRIGHT_BUILD_EXAMPLES=OFF \
  -DTILEWRIGHT_HEADER_CHECK=OFF \
  -DTILEWRIGHT_WERROR=ON
cmake --build build-fuzz -j "$JOBS" --target tilewright-fuzz-structured
fuzz_work="$(mktemp -d)"
cp tests/corpus/*.pto tests/fuzz/corpus/* "$fuzz_work"/
fuzz_status=0
build-fuzz/bin/tilewright-fuzz-structured "$fuzz_work" -runs="$fuzz_runs" -seed=1 -timeout=10 \
  -rss_limit_mb=2048 -max_len=8192 -artifact_prefix="$fuzz_work/" -print_final_stats=1 \
  >"$fuzz_work/fuzz.log" 2>&1 || fuzz_status=$?
# libFuzzer's coverage chatter is long; its summary and any violation are at the end.
grep -v -E '^  NEW_FUNC' "$fuzz_work/fuzz.log" | tail -n 40 || true
if ((fuzz_status != 0)); then
  # The violation and the whole program it was found on (the tail above may cut them).
  sed -n '/^property violated/,/^---------------$/p' "$fuzz_work/fuzz.log" >&2 || true
  echo "fuzz: the structured fuzzer found a violation (exit $fuzz_status); the input is saved in $fuzz_work" >&2
  exit "$fuzz_status"
fi
rm -rf "$fuzz_work"

# --- consumers ------------------------------------------------------------------------------
tw_stage "consumers: add_subdirectory, find_package, FetchContent"
bash scripts/check-consumers.sh

tw_stage_done
echo
echo "run-tests: all stages passed in $((SECONDS - start))s"
