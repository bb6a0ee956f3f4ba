#!/usr/bin/env bash
# Set up, build tilewright-opt (Release) and lower a bundled example kernel through the
# default pipeline.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$TILEWRIGHT_ROOT"

bash scripts/setup.sh

tw_step "configure build/ (Release, tools only)"
tw_configure build \
  -DCMAKE_CXX_COMPILER="$GXX" \
  -DCMAKE_BUILD_TYPE=Release \
  -DTILEWRIGHT_BUILD_TOOLS=ON \
  -DTILEWRIGHT_BUILD_TESTS=OFF \
  -DTILEWRIGHT_BUILD_BENCHMARKS=OFF \
  -DTILEWRIGHT_BUILD_EXAMPLES=OFF \
  -DTILEWRIGHT_WERROR=OFF \
  -DTILEWRIGHT_SANITIZE=

tw_step "build tilewright-opt"
cmake --build build --target tilewright-opt -j "$JOBS"

tw_step "tilewright-opt examples/kernels/batched_rows_3d.pto --pipeline=default --stats"
build/bin/tilewright-opt examples/kernels/batched_rows_3d.pto --pipeline=default --stats
