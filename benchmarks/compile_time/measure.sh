#!/usr/bin/env bash
# Compile times of the translation units docs/benchmarks.md tracks, at -O2, in both build
# modes (docs/compiled_mode.md). Run from the repository root; prints seconds and peak KB.
#   bash benchmarks/compile_time/measure.sh [compiler]
set -euo pipefail
cxx="${1:-g++}"
flags=(-std=c++20 -O2 -Iinclude -Itools -c -o /dev/null)
probe() {  # probe <label> <source> [extra flags]
  local label="$1" src="$2"
  shift 2
  /usr/bin/time -f "$label: %e s, %M KB" "$cxx" "${flags[@]}" "$@" "$src"
}
probe "tilewright-opt.cpp, header-only" tools/tilewright-opt.cpp
probe "tilewright-opt.cpp, compiled" tools/tilewright-opt.cpp -DTILEWRIGHT_COMPILED=1
probe "src/tilewright.cpp (once)" src/tilewright.cpp -DTILEWRIGHT_COMPILED=1
probe "builder + one pass, header-only" benchmarks/compile_time/one_pass.cpp
probe "builder + one pass, compiled" benchmarks/compile_time/one_pass.cpp -DTILEWRIGHT_COMPILED=1
