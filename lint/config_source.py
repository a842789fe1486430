"""Read a config file into plain data plus a way to locate any key or value in it.

YAML goes through the same positioned loader as manifests, so every node has a
line and column. tomllib keeps no positions, so for pyproject.toml the location
of a key is recovered by a small scan of the `[tool.ctxlint...]` tables: good
enough to point at the offending line, which is what users need.
"""
from __future__ import annotations

import re
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ctxlint.lazyre import lazy_compile
from ctxlint.loader import PARSE_ERROR, parse_text
from ctxlint.nodes import MAP, SEQ, Node

Position = Tuple[int, int]


class ConfigError(ValueError):
    """An invalid or unreadable config: the CLI prints it and exits 2."""

    def __init__(self, message: str, file: Optional[str] = None, line: int = 0, col: int = 0) -> None:
        self.message, self.file, self.line, self.col = message, file, line, col
        where = file or ""
        if file and line:
            where += f":{line}:{col}" if col else f":{line}"
        super().__init__(f"{where}: {message}" if where else message)


class Located:
    """Config data and a locator: `position(["rules", "CTX106", "x"], key=True)` -> (line, col)."""

    def __init__(self, data: Dict[str, Any], file: str, locate: Callable[[Sequence[Any], bool], Position]) -> None:
        self.data, self.file, self._locate = data, file, locate

    def position(self, parts: Sequence[Any], key: bool = False) -> Position:
        return self._locate(list(parts), key)


def _error(message: str, file: str, line: int = 0, col: int = 0) -> Exception:
    return ConfigError(message, file, line, col)


def load_yaml(text: str, file: str) -> Located:
    loaded = parse_text(text, file)
    for diag in loaded.diagnostics:
        what = "invalid YAML in config" if diag.kind == PARSE_ERROR else "config"
        raise _error(f"{what}: {diag.message}", file, diag.source.line, diag.source.col)
    if len(loaded.documents) > 1:
        doc = loaded.documents[1].root
        raise _error("a config file holds one YAML document, found several", file, doc.line, doc.col)
    if not loaded.documents:
        return Located({}, file, lambda parts, key: (1, 1))
    root = loaded.documents[0].root
    if root.kind != MAP:
        raise _error("the config must be a mapping of settings", file, root.line, root.col)
    return Located(root.plain(), file, lambda parts, key: _node_position(root, parts, key))


def _node_position(root: Node, parts: Sequence[Any], key: bool) -> Position:
    node, parent = root, None
    for part in parts:
        parent = node
        child: Optional[Node] = None
        if node.kind == MAP:
            child = node.value.get(part)
        elif node.kind == SEQ and isinstance(part, int) and 0 <= part < len(node.value):
            child = node.value[part]
        if child is None:
            break
        node = child
    else:
        if key and parent is not None and parent.kind == MAP and parts and parts[-1] in parent.keys:
            node = parent.keys[parts[-1]]
    return node.line, node.col


_TOML_ERROR_AT = lazy_compile(r"\(at line (\d+), column (\d+)\)")
_HEADER = lazy_compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def toml_module():
    """tomllib (tomli before 3.11), imported only when a pyproject.toml is read (~3-8 ms)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def load_pyproject(text: str, file: str) -> Located:
    tomllib = toml_module()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = _TOML_ERROR_AT.search(str(exc))
        line, col = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
        if not match and "end of document" in str(exc):
            line, col = text.count("\n") + 1, 1
        raise _error(f"invalid TOML: {re.sub(r' ?[(]at [^)]*[)]', '', str(exc)).strip()}", file, line, col) from None
    section = data.get("tool", {}).get("ctxlint", {})
    lines = text.splitlines()
    return Located(section, file, lambda parts, key: _toml_position(lines, parts))


def _table_name(header: str) -> List[str]:
    return [p.strip().strip('"\'') for p in re.findall(r'"[^"]*"|\'[^\']*\'|[^.]+', header)]


def _toml_position(lines: Sequence[str], parts: Sequence[Any]) -> Position:
    """Best effort: the line of the deepest named key under [tool.ctxlint...]."""
    keys = [str(p) for p in parts if not isinstance(p, int)]
    best: Position = (0, 0)
    best_depth = -1
    table: List[str] = []
    for number, line in enumerate(lines, 1):
        header = _HEADER.match(line)
        if header:
            table = _table_name(header.group(1))
            if table[:2] == ["tool", "ctxlint"] and table[2:] == keys[: len(table) - 2] and len(table) - 3 > best_depth:
                best, best_depth = (number, line.index("[") + 1), len(table) - 3
            continue
        if table[:2] != ["tool", "ctxlint"]:
            continue
        scope = table[2:]
        if scope != keys[: len(scope)]:
            continue
        # Within the table, look for the remaining keys written as `a = `, `a.b = ` or inline `{a = `.
        for depth in range(len(keys) - 1, len(scope) - 1, -1):
            name = keys[depth]
            quoted = rf'(?:{re.escape(name)}|"{re.escape(name)}"|\'{re.escape(name)}\')'
            hit = re.search(rf"(^|[{{,.\s]){quoted}\s*[=.]", line)
            if hit and depth > best_depth:
                best, best_depth = (number, hit.start() + len(hit.group(1)) + 1), depth
                break
    return best if best_depth >= 0 else (1, 1)
