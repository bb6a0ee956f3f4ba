#!/usr/bin/env bash
# Prove the three ways to consume tilewright: add_subdirectory, find_package (after
# `cmake --install` into a temporary prefix) and FetchContent. Builds in /tmp and runs each.
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
cd "$TILEWRIGHT_ROOT"

work="$(mktemp -d /tmp/tilewright-consumers.XXXXXX)"
trap 'rm -rf "$work"' EXIT

cxx_args=(-DCMAKE_CXX_COMPILER="$GXX" -DCMAKE_BUILD_TYPE=Release)

check() {   # check <name> <extra cmake args...>
  local name="$1"
  shift
  echo "--- consumer: $name"
  cmake -S "examples/$name" -B "$work/$name" "${GENERATOR_ARGS[@]}" "${cxx_args[@]}" "$@" \
    >"$work/$name.configure.log" || { cat "$work/$name.configure.log"; return 1; }
  cmake --build "$work/$name" -j "$JOBS"
  local out
  out="$("$work/$name/consumer")"
  echo "$out"
  [[ "$out" == *"tilewright "* ]] || { echo "unexpected output from $name" >&2; return 1; }
  if [[ -e "$work/$name/consumer_compiled" ]]; then   # the compiled mode, where the example has one
    out="$("$work/$name/consumer_compiled")"
    echo "$out"
    [[ "$out" == *"(compiled): tilewright "*"def k("* ]] ||
      { echo "unexpected output from $name/consumer_compiled" >&2; return 1; }
  fi
}

# 1. add_subdirectory: must not drag in tests/tools (they are OFF for a subproject).
check consume_add_subdirectory
if [[ -e "$work/consume_add_subdirectory/tilewright-build/bin/tilewright-opt" ]] ||
   grep -q 'TILEWRIGHT_BUILD_TESTS:BOOL=ON' "$work/consume_add_subdirectory/CMakeCache.txt"; then
  echo "consume_add_subdirectory: tilewright built its tests/tools as a subproject" >&2
  exit 1
fi

# 2. install into a prefix, then find_package.
echo "--- install tilewright into $work/prefix"
cmake -S . -B "$work/install-build" "${GENERATOR_ARGS[@]}" "${cxx_args[@]}" \
  -DTILEWRIGHT_BUILD_TESTS=OFF -DTILEWRIGHT_BUILD_TOOLS=OFF \
  -DTILEWRIGHT_BUILD_BENCHMARKS=OFF -DTILEWRIGHT_BUILD_EXAMPLES=OFF \
  -DCMAKE_INSTALL_PREFIX="$work/prefix" >"$work/install.configure.log" ||
  { cat "$work/install.configure.log"; exit 1; }
cmake --build "$work/install-build" -j "$JOBS"
cmake --install "$work/install-build" >/dev/null
test -f "$work/prefix/include/tilewright/tilewright.hpp"
test -f "$work/prefix/share/cmake/tilewright/tilewrightConfig.cmake"
test -f "$work/prefix/share/cmake/tilewright/tilewrightConfigVersion.cmake"
test -f "$work/prefix/share/cmake/tilewright/tilewrightTargets.cmake"
test -f "$work/prefix/share/cmake/tilewright/TilewrightCompiled.cmake"
test -f "$work/prefix/share/tilewright/src/tilewright.cpp"
check consume_find_package -DCMAKE_PREFIX_PATH="$work/prefix"
# It must have used the installed copy, not the source tree.
grep -q "tilewright_DIR:PATH=$work/prefix/share/cmake/tilewright" \
  "$work/consume_find_package/CMakeCache.txt"

# 3. FetchContent.
check consume_fetchcontent

echo "consumers: all three OK"
