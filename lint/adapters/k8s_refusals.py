"""What the Kubernetes API server would refuse in an engine container, as CTX002 findings.

ctxlint reads a container leniently (a number in `args` is still a flag value), but a
manifest the API server refuses never launches: `kubectl apply` stops at `args: [...,
131072]` with "cannot unmarshal number into Go struct field Container.args of type
string". Saying so at the value is more useful than a capacity verdict on a workload that
will not exist. Only containers that run an engine are judged (kube-linter and kubeconform
cover the rest of the object), and only the fields ctxlint reads: `containers`,
`command`, `args`, `env[].name`/`env[].value` (core/v1 Container: []string and string).
"""
from __future__ import annotations

import datetime
from typing import List, Optional

from ctxlint.findings import Diagnostic
from ctxlint.lazyre import lazy_compile
from ctxlint.nodes import MAP, SCALAR, SEQ, STR_TAG, Node

SCHEMA_VIOLATION = "schema-violation"
_REFUSED = "the Kubernetes API server refuses this object"


def _what(node: Node) -> str:
    if node.kind == MAP:
        return "a mapping"
    if node.kind == SEQ:
        return "a list"
    value = node.value
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str) and not _read_as_string(node, None):  # a plain 1e6
        return f"the number {value} (Kubernetes' YAML reader, unlike PyYAML, takes a plain {value} as a float)"
    if isinstance(value, bytes):  # !!binary: go-yaml decodes it to this text
        value = value.decode("utf-8", "replace")
    elif isinstance(value, datetime.date):  # a timestamp: go-yaml keeps it as text
        value = value.isoformat()
    return f"the string {value!r}"


# go-yaml v2 resolves a plain `1e6` as a float (YAML 1.1, which PyYAML follows, needs a dot),
# and has no base-60 numbers: `1:20` is text to Kubernetes but 80 to PyYAML.
_GO_FLOAT = lazy_compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)$")
_SEXAGESIMAL = lazy_compile(r"^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$")


def _read_as_string(node: Node, written: Optional[str]) -> bool:
    """Does Kubernetes' YAML reader (go-yaml v2, via sigs.k8s.io/yaml) hand this scalar to a
    string field as a string? PyYAML and go-yaml disagree on timestamps (`2024-01-01`, kept as
    text), `!!binary` (decoded to a string), base-60 `1:20` (text) and a plain `1e6` (a number)."""
    if isinstance(node.value, str):
        return not (not node.style and node.tag == STR_TAG and _GO_FLOAT.match(node.value))
    if isinstance(node.value, (int, float)) and not isinstance(node.value, bool) and written is not None:
        return bool(_SEXAGESIMAL.match(written))
    return isinstance(node.value, (bytes, datetime.date))  # datetime.datetime is a date too


def _quote_hint(node: Node, text: Optional[str]) -> str:
    if node.kind != SCALAR or text is None:
        return ""
    return f"; quote it (\"{text}\")" if node.value is not None else "; remove it or write \"\""


def container_refusals(container: Node, file: str, text: str) -> List[Diagnostic]:
    """`command`/`args` that are not lists of strings, env values that are not strings."""
    out: List[Diagnostic] = []
    for key in ("command", "args"):
        node = container.get(key)
        if node is None or (node.kind == SCALAR and node.value is None):
            continue
        if node.kind != SEQ:
            out.append(Diagnostic(SCHEMA_VIOLATION, f"{_REFUSED}: `{key}` must be a list of strings, not "
                                  f"{_what(node)}; write it as a list (`{key}: [\"...\", \"...\"]`) or run a "
                                  "shell (`command: [sh, -c]`, `args: [\"...\"]`)", node.source(file)))
            continue
        for item in node.value:
            written = _written(item, text)
            if item.kind == SCALAR and _read_as_string(item, written):
                continue
            out.append(Diagnostic(SCHEMA_VIOLATION, f"{_REFUSED}: `{key}` items must be strings, and this one is "
                                  f"{_what(item)}{_quote_hint(item, written)}", item.source(file)))
    env = container.get("env")
    for item in env.value if env is not None and env.kind == SEQ else ():
        value = item.get("value") if item.kind == MAP else None
        if value is None or (value.kind == SCALAR and (value.value is None
                                                        or _read_as_string(value, _written(value, text)))):
            continue
        out.append(Diagnostic(SCHEMA_VIOLATION, f"{_REFUSED}: an env var's `value` must be a string, and this one "
                              f"is {_what(value)}{_quote_hint(value, _written(value, text))}", value.source(file)))
    return out


def containers_not_a_list(containers: Node, file: str) -> Diagnostic:
    return Diagnostic(SCHEMA_VIOLATION, f"{_REFUSED}: `containers` must be a list, not {_what(containers)}; "
                      "start each container with `- ` (this one was not checked)", containers.source(file))


def _written(node: Node, text: str) -> Optional[str]:
    """The scalar as typed (`0755`, not 493), for the quoting hint."""
    if node.kind != SCALAR:
        return None
    start, end = node.start_index, node.end_index
    written = text[start:end] if 0 <= start < end <= len(text) else ""
    return written if written and "\n" not in written else str(node.value)
