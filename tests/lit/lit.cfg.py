# lit configuration for tilewright's FileCheck suite (docs/testing.md explains how to add a case).
#
# Run it from CTest (`ctest -R lit`), through the configured build copy
# (`lit -sv build/tests/lit`), or straight from the source tree (`lit -sv tests/lit`). Tools
# are found, in this order: `--param NAME=PATH`; the values CMake wrote into
# build/tests/lit/lit.site.cfg.py; for tilewright-opt, `build/bin/tilewright-opt` of this
# checkout; for FileCheck, not and split-file, Debian's llvm-14-tools (/usr/lib/llvm-14/bin),
# then PATH.
import os
import re
import shutil
import sys

config.name = "tilewright"
config.suffixes = [".pto", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "README.md"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
repo_root = os.path.dirname(os.path.dirname(config.test_source_root))

# Without a site config (a run from the source tree) the Output/ folders go to build/, never
# next to the sources.
if getattr(config, "test_exec_root", None) is None:
    config.test_exec_root = os.path.join(repo_root, "build", "tests", "lit")


def tool(name, site_value, fallbacks):
    value = lit_config.params.get(name) or site_value
    candidates = [value] if value else fallbacks
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
        found = candidate and shutil.which(candidate)
        if found:
            return found
    lit_config.fatal(
        "tilewright lit suite: cannot find %s (tried %s). %s"
        % (name, ", ".join(c for c in candidates if c) or "nothing",
           "Build it (cmake --build build --target tilewright-opt) or pass --param tilewright_opt=PATH."
           if name == "tilewright_opt" else
           "Install llvm-14-tools (bash scripts/setup.sh) or pass --param %s=PATH." % name))


llvm_bin = "/usr/lib/llvm-14/bin"
tools = {
    "tilewright-opt": tool("tilewright_opt", getattr(config, "tilewright_opt", None),
                           [os.path.join(repo_root, "build", "bin", "tilewright-opt")]),
    "FileCheck": tool("filecheck", getattr(config, "filecheck", None),
                      [os.path.join(llvm_bin, "FileCheck"), "FileCheck-14", "FileCheck"]),
    "not": tool("not", getattr(config, "not_tool", None), [os.path.join(llvm_bin, "not"), "not"]),
    "split-file": tool("split_file", getattr(config, "split_file", None),
                       [os.path.join(llvm_bin, "split-file"), "split-file"]),
}

# A tool name is replaced only as a whole word at the start of a command, the way LLVM's
# ToolSubst does it: not inside a path (tools/tilewright-opt.cpp) nor a longer name.
for name, path in tools.items():
    config.substitutions.append((r"(?<![\w./-])%s(?![\w.-])" % re.escape(name), path))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%tilewright_src", repo_root))
config.substitutions.append(("%kernels", os.path.join(repo_root, "examples", "kernels")))

config.environment["TILEWRIGHT_LIT"] = "1"
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

# The test format: lit's internal shell, plus a guard against FileCheck directives inside a
# function body (see tilewright_lit.py). It lives in a module so lit's workers can load it.
sys.path.insert(0, config.test_source_root)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import tilewright_lit  # noqa: E402

config.test_format = tilewright_lit.TilewrightShTest(execute_external=False)
