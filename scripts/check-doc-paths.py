#!/usr/bin/env python3
"""Every repository path a document names must exist.

Usage: check-doc-paths.py ROOT FILE.md...  Prints each missing path as FILE:LINE: PATH and
exits 1 when there is one. A path is a `backticked` word or a link target that starts with a
top-level folder or file of the repository (include/, tests/, docs/, scripts/, …); build
outputs (build/…), placeholders (<name>, …, *) and URLs are not checked.
"""
import os
import re
import sys

root = sys.argv[1]
tops = {e for e in os.listdir(root) if not e.startswith(".")} - {"build"}
tops |= {".ci"}
candidate = re.compile(r"`([^`\s]+)`|\]\(([^)\s#]+)")
code_span = re.compile(r"`[^`]*`")
missing = 0
for doc in sys.argv[2:]:
    base = os.path.dirname(os.path.abspath(doc))
    in_fence = False
    for number, line in enumerate(open(doc, encoding="utf-8"), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        for match in candidate.finditer(line):
            # `[](const auto& m)` in code is a C++ lambda, not a link.
            if match.group(2) and (in_fence or any(s.start() < match.start() < s.end()
                                                   for s in code_span.finditer(line))):
                continue
            path = match.group(1) or match.group(2)
            if "://" in path or any(c in path for c in "<>*…$%{}") or path.startswith("build"):
                continue
            path = path.rstrip(".,:;)")
            first = path.split("/")[0]
            if match.group(2):  # a link: relative to the document
                target = os.path.normpath(os.path.join(base, path))
            elif first in tops and ("/" in path or "." in path):
                target = os.path.join(root, path)
            else:
                continue
            if not os.path.exists(target):
                print("%s:%d: %s does not exist" % (doc, number, path))
                missing += 1
sys.exit(1 if missing else 0)
