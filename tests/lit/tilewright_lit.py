"""The lit test format of tilewright's suite (loaded by lit.cfg.py).

tilewright-opt prints the `#` comments that lead a statement (they are part of the IR), so a
FileCheck directive written inside a function body would reappear in the output and match
itself: such a test could never fail. The format refuses it. Directives belong above the
program (top-level comments are not printed).
"""
import re

import lit.formats
import lit.Test

_prefix_option = re.compile(r"--check-prefix(?:es)?[= ]([\w,-]+)")


def directive_inside_body(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    prefixes = {"CHECK"}
    for line in lines:
        if "RUN:" in line:
            for match in _prefix_option.finditer(line):
                prefixes.update(p for p in match.group(1).split(",") if p)
    directive = re.compile(r"^\s+#\s*(%s)(-[A-Z0-9-]+)?:" % "|".join(map(re.escape, sorted(prefixes))))
    for number, line in enumerate(lines, 1):
        if directive.match(line):
            return ("%s:%d: FileCheck directive inside a function body; tilewright-opt prints "
                    "statement comments, so it would match itself. Move it above the program."
                    % (path, number))
    return None


class TilewrightShTest(lit.formats.ShTest):
    def execute(self, test, litConfig):
        if test.getSourcePath().endswith(".pto"):
            problem = directive_inside_body(test.getSourcePath())
            if problem:
                return lit.Test.Result(lit.Test.FAIL, problem)
        return super().execute(test, litConfig)
