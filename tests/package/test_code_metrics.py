"""The house figures of ``benchmarks.code_metrics``: markers counted in comments, ``Any`` in annotations."""

from __future__ import annotations

import ast

from benchmarks.code_metrics import any_aliases, any_annotations, comment_noise

SOURCE = """
from typing import Any
Number = Any
x = [1, 2]  # fmt: skip
y = f(x)  # noqa: E731
z = g(x)  # noqa: E731  (a reason)
w = h(x)  # type: ignore[attr-defined]  # a reason
doc = "# noqa in a string is no comment"


def f(a: Number, b: int, *rest: Any) -> dict[str, Any]:
    c: Any = a
    return {"c": c}
"""


def test_markers_are_counted_in_comments_only_with_their_reasons() -> None:
    found = comment_noise(SOURCE)
    assert found["# fmt: skip"] == 1 and found["# fmt: skip with a reason"] == 0
    assert found["# noqa"] == 2 and found["# noqa with a reason"] == 1
    assert found["# type: ignore"] == 1 and found["# type: ignore with a reason"] == 1


def test_any_is_counted_in_annotations_an_alias_where_it_is_used() -> None:
    tree = ast.parse(SOURCE)
    assert any_aliases(tree) == {"Number"}
    assert any_annotations(tree, set()) == 4  # a: Number, *rest: Any, -> dict[str, Any], c: Any
    imported = ast.parse(
        "from .kernel import Number\n\ndef g(n: Number, m: 'Number') -> int:\n    return 0\n"
    )
    assert any_annotations(imported, {"Number"}) == 2 and any_annotations(imported, set()) == 0
