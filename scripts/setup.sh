#!/usr/bin/env bash
# Install what tilewright needs to build and test on Debian 12 (bookworm). Idempotent: only
# missing packages are installed, and `apt-get update` runs only if something is missing.
set -euo pipefail

# llvm-14-tools: lit, FileCheck, not and split-file for tests/lit (python3 runs lit).
# pybind11-dev, python3-dev: the Python module (python/); python3-numpy, python3-pytest: its tests.
# libmimalloc-dev: the malloc tilewright-opt and tilewright-bench link (TILEWRIGHT_TOOL_ALLOCATOR).
packages=(
  build-essential cmake ninja-build g++ clang-14
  libboost-dev doctest-dev libbenchmark-dev
  llvm-14-tools python3 libclang-rt-14-dev nlohmann-json3-dev
  pybind11-dev python3-dev python3-numpy python3-pytest
  libmimalloc-dev
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg -s "$pkg" >/dev/null 2>&1; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all packages present"
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo)
  else
    echo "setup: missing packages (${missing[*]}) and not root, no sudo: install them yourself" >&2
    exit 1
  fi
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
