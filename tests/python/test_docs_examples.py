"""Every before/after example of docs/passes/*.md, run through the Python API.

The same examples are C++ tests (tests/golden/docs_examples_test.cpp): here they check that
`passes.<factory>()(program)` inside a PassContext does what tilewright-opt does — the same
printed result, and for a refused input the same located message, source line and caret.
"""
import pathlib
import re

import pytest

import tilewright
from tilewright import passes

from conftest import ROOT


def examples():
    found = []
    for page in sorted((ROOT / "docs/passes").glob("*.md")):
        blocks, current = [], None
        for number, line in enumerate(page.read_text().splitlines(), 1):
            if line.startswith("```"):
                if current is None:
                    current = (number, line[3:].strip(), [])
                else:
                    blocks.append(current)
                    current = None
            elif current is not None:
                current[2].append(line)
        for (line, info, body), (_, second, expected) in zip(blocks, blocks[1:]):
            words = info.split()
            if words[:2] != ["pl", "before"] or second not in ("pl after", "text error"):
                continue
            backend = next((w.split("=", 1)[1] for w in words[3:] if w.startswith("--backend=")), "none")
            found.append(pytest.param("\n".join(body) + "\n", words[2].split(","), backend, second,
                                      "\n".join(expected), id=f"{page.stem}:{line}"))
    return found


EXAMPLES = examples()


def test_every_pass_has_an_example():
    covered = set()
    for case in EXAMPLES:
        for name in case.values[1]:
            covered.add(passes.get_pass(name).get_name())
    assert covered >= {"ConvertToSSA", "FlattenTileNdTo2D", "MaterializeTensorStrides", "FoldNoOpReshape",
                       "CanonicalizeTileSlice"}


def cli_message(text):
    # tilewright-opt prefixes a diagnostic without a location with the file's name.
    return re.sub(r"^example\.pto: (?!\d)", "", text, flags=re.M)


@pytest.mark.parametrize("before,pass_names,backend,kind,expected", EXAMPLES)
def test_docs_example(before, pass_names, backend, kind, expected):
    program = tilewright.parse(before, "example.pto")
    assert str(program) == before.rstrip("\n"), "a docs example's input is printer output"
    pipeline = passes.PassPipeline()
    for name in pass_names:
        pipeline.add_pass(passes.get_pass(name))
    with passes.PassContext(backend=backend):
        if kind == "pl after":
            result = pipeline.run(program)
            assert str(result) == expected
            tilewright.assert_structural_equal(result, tilewright.parse(expected))
        else:
            # A pass-ordering invariant the input breaks is upstream's InternalError (MT-07).
            error = tilewright.InternalError if "internal error:" in expected.splitlines()[0] else ValueError
            with pytest.raises(error) as raised:
                pipeline.run(program)
            assert str(raised.value) == cli_message(expected)
