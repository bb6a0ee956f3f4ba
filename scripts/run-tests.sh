#!/usr/bin/env bash
# Set up, build and run every test:
#   build/        g++, Release, -Werror: unit, docs, golden (skipped without the corpus),
#                 lit, header check, CLI and compile-fail tests; benchmarks built and smoke-run
#   build-clang/  clang++-14, Debug, -Werror: everything built, tests run
#   consumers     add_subdirectory / find_package / FetchContent example projects
#   build-asan/   g++, Debug, -fsanitize=address,undefined: tests run
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

# --- g++, Release ---------------------------------------------------------------------------
tw_stage "g++ Release: configure and build build/"
tw_configure build "${common_args[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$GXX" \
  -DTILEWRIGHT_BUILD_EXAMPLES=ON \
  -DTILEWRIGHT_BUILD_BENCHMARKS=ON \
  -DTILEWRIGHT_HEADER_CHECK=ON \
  -DTILEWRIGHT_SANITIZE=
cmake --build build -j "$JOBS"
tw_stage "g++ Release: ctest"
run_ctest build

# --- benchmarks: prove tilewright-bench runs (built in build/ above) --------------------------
if compgen -G "benchmarks/*.cpp" >/dev/null; then
  tw_stage "benchmarks: smoke run (up to 10k statements; docs/benchmarks.md for real runs)"
  TILEWRIGHT_BENCH_MAX_STATEMENTS="${TILEWRIGHT_BENCH_MAX_STATEMENTS:-10000}" build/bin/tilewright-bench \
    --benchmark_filter="${TILEWRIGHT_BENCH_FILTER:-.}" \
    --benchmark_min_time="${TILEWRIGHT_BENCH_MIN_TIME:-0.01}"
fi

# --- clang++-14, Debug ----------------------------------------------------------------------
tw_stage "clang Debug: configure and build build-clang/"
tw_configure build-clang "${common_args[@]}" \
  -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER="$CLANGXX" \
  -DTILEWRIGHT_BUILD_EXAMPLES=ON \
  -DTILEWRIGHT_BUILD_BENCHMARKS=ON \
  -DTILEWRIGHT_HEADER_CHECK=ON \
  -DTILEWRIGHT_SANITIZE=
cmake --build build-clang -j "$JOBS"
tw_stage "clang Debug: ctest"
run_ctest build-clang

# --- consumers ------------------------------------------------------------------------------
tw_stage "consumers: add_subdirectory, find_package, FetchContent"
bash scripts/check-consumers.sh

# --- ASan + UBSan ---------------------------------------------------------------------------
# The header check and benchmarks add nothing under sanitizers: off, to save time.
tw_stage "asan+ubsan Debug: configure and build build-asan/"
tw_configure build-asan "${common_args[@]}" \
  -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_CXX_COMPILER="$GXX" \
  -DTILEWRIGHT_BUILD_EXAMPLES=OFF \
  -DTILEWRIGHT_BUILD_BENCHMARKS=OFF \
  -DTILEWRIGHT_HEADER_CHECK=OFF \
  -DTILEWRIGHT_SANITIZE=address,undefined
cmake --build build-asan -j "$JOBS"
tw_stage "asan+ubsan Debug: ctest"
run_ctest build-asan

tw_stage_done
echo
echo "run-tests: all stages passed in $((SECONDS - start))s"
