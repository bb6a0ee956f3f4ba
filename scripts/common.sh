# Sourced by the other scripts: repo root, parallelism, generator.
# shellcheck shell=bash disable=SC2034  # variables are used by the sourcing scripts
TILEWRIGHT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# 2 cores, shared: never more than -j2 unless told otherwise.
JOBS="${JOBS:-2}"
GENERATOR_ARGS=()
if command -v ninja >/dev/null 2>&1; then
  GENERATOR_ARGS=(-G Ninja)
fi

# configure <build dir> <cmake args...> — reuses an existing build dir of the same generator.
tw_configure() {
  local dir="$1"
  shift
  local gen=("${GENERATOR_ARGS[@]}")
  if [[ -f "$dir/CMakeCache.txt" ]]; then
    gen=()   # keep whatever generator the directory was made with
  fi
  cmake -S "$TILEWRIGHT_ROOT" -B "$dir" "${gen[@]}" "$@"
}

tw_step() {
  printf '\n==== %s ====\n' "$*"
}

# Compilers used by the scripts (override with TILEWRIGHT_GXX / TILEWRIGHT_CLANGXX).
GXX="${TILEWRIGHT_GXX:-g++}"
CLANGXX="${TILEWRIGHT_CLANGXX:-clang++-14}"
