"""Readers shared by the gateway adapters (gw_*): values with their place in the file, also
inside a YAML document held in a string (a ConfigMap's `config.yaml: |`)."""
from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.adapters.workload_inputs import INVALID_TOKEN_COUNT
from ctxlint.findings import Diagnostic
from ctxlint.loader import parse_text
from ctxlint.model import Source, Val
from ctxlint.nodes import MAP, SCALAR, SEQ, Node

Where = Callable[[Node], Source]


def at_file(file: str) -> Where:
    return lambda node: node.source(file)


def embedded(node: Optional[Node], spans: ScalarSpans) -> Optional[Tuple[Node, Where]]:
    """The mapping a string scalar holds as YAML, and where each of its nodes is in the file."""
    if node is None or node.kind != SCALAR or not isinstance(node.value, str):
        return None
    inner = parse_text(node.value, spans.file)
    if inner.diagnostics or len(inner.documents) != 1 or inner.documents[0].root.kind != MAP:
        return None
    return inner.documents[0].root, spans.within(node)


def scalar(node: Optional[Node]) -> Any:
    return node.value if node is not None and node.kind == SCALAR else None


def items(node: Optional[Node]) -> list:
    return list(node.value) if node is not None and node.kind == SEQ else []


def entries(node: Optional[Node]) -> list:
    """(key, value node) of a mapping."""
    return list(node.value.items()) if node is not None and node.kind == MAP else []


def text(node: Optional[Node], where: Where) -> Optional[Val[str]]:
    value = scalar(node)
    return Val(value.strip(), where(node)) if isinstance(value, str) and value.strip() else None


def count(node: Optional[Node], where: Where, problems: Optional[List[Diagnostic]] = None) -> Optional[Val[int]]:
    """A positive integer, also written as a string of digits ("8192"). Anything else that is
    written there is recorded in `problems` as an invalid token count (CTX005) and ignored."""
    value = scalar(node)
    found = None
    if isinstance(value, str) and value.strip().isdigit() and int(value.strip()) > 0:
        found = Val(int(value.strip()), where(node), raw=value)
    elif isinstance(value, int) and not isinstance(value, bool) and value > 0:
        found = Val(value, where(node))
    if found is None and node is not None and value is not None and problems is not None:
        problems.append(Diagnostic(INVALID_TOKEN_COUNT, f"{node.path}: {value!r} is not a whole, positive token "
                                   "count; the gateway's limit is ignored by the checks", where(node)))
    return found


def flag(node: Optional[Node]) -> Optional[bool]:
    value = scalar(node)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None
