"""`ctxlint config show`: the effective settings and where each came from."""
from __future__ import annotations

import json
from typing import Any, List, Optional, TextIO, Tuple

from tabulate import tabulate


def write_config(path: Optional[str], rows: List[Tuple[str, Any, str]], stream: TextIO, fmt: str = "text") -> None:
    if fmt == "json":
        data = {"config_file": path, "settings": [{"key": k, "value": v, "source": s} for k, v, s in rows]}
        stream.write(json.dumps(data, indent=2) + "\n")
        return
    stream.write(f"config file: {path or '(none: defaults only)'}\n")
    table = [(key, _show(value), source) for key, value, source in rows]
    stream.write(tabulate(table, headers=["setting", "value", "source"], tablefmt="simple") + "\n")


def _show(value: Any) -> str:
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True) if value else ("{}" if isinstance(value, dict) else "[]")
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)
