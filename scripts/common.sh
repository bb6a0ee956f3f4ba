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

# Stages with their wall times: `tw_stage NAME` closes the previous stage and opens NAME;
# `tw_stage_done` closes the last one; `tw_stage_report` (run it from an EXIT trap) prints the
# table, marking the stage that was still open — the one that failed.
TW_STAGE_NAMES=()
TW_STAGE_SECONDS=()
TW_STAGE_OPEN=""
TW_STAGE_START=0
tw_stage_done() {
  if [[ -n "$TW_STAGE_OPEN" ]]; then
    TW_STAGE_NAMES+=("$TW_STAGE_OPEN")
    TW_STAGE_SECONDS+=("$((SECONDS - TW_STAGE_START))")
    TW_STAGE_OPEN=""
  fi
}
tw_stage() {
  tw_stage_done
  TW_STAGE_OPEN="$*"
  TW_STAGE_START=$SECONDS
  tw_step "$*"
}
tw_stage_report() {
  local status=$?
  local failed="$TW_STAGE_OPEN" total=0 i
  tw_stage_done
  printf '\n==== stage times ====\n'
  for i in "${!TW_STAGE_NAMES[@]}"; do
    total=$((total + TW_STAGE_SECONDS[i]))
    printf '%6ds  %s%s\n' "${TW_STAGE_SECONDS[i]}" "${TW_STAGE_NAMES[i]}" \
      "$([[ $status -ne 0 && "${TW_STAGE_NAMES[i]}" == "$failed" ]] && echo '   <- failed')"
  done
  printf '%6ds  total\n' "$total"
}

# Compilers used by the scripts (override with TILEWRIGHT_GXX / TILEWRIGHT_CLANGXX).
GXX="${TILEWRIGHT_GXX:-g++}"
CLANGXX="${TILEWRIGHT_CLANGXX:-clang++-14}"

# The Python the module is built for and tested with: Debian's, whose numpy and pytest
# scripts/setup.sh installs (a pyenv or venv python3 earlier in PATH may have neither);
# override with TILEWRIGHT_PYTHON.
if [[ -z "${TILEWRIGHT_PYTHON:-}" && -x /usr/bin/python3 ]]; then
  PYTHON3=/usr/bin/python3
else
  PYTHON3="${TILEWRIGHT_PYTHON:-python3}"
fi
