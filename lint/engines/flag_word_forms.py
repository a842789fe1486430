"""Flag words whose text is more than a flag's name and its value, read apart from parse.py's `_Parser`, whose
state they take: a `--flag=value` word given to a parser that splits no `=` (llama.cpp: `whole_word`), vLLM's and
LMDeploy's dotted `--json-arg.key.sub value` that sets a key inside a JSON flag (`dotted_json_key`). Few command
lines hold one, so parse.py imports this only when one does.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from .result import Problem, Setting
from .suffixes import read_int

if TYPE_CHECKING:
    from .parse import _Parser


def whole_word(p: _Parser, i: int, name: str) -> int:
    """A `--flag=value` word given to a parser that splits no `=` (llama.cpp): no flag has that name, so it sets
    nothing, and when the part before `=` is a flag the engine exits on it for certain (an unknown name alone
    proves nothing: the tables list only the flags ctxlint reads)."""
    tok, text = p.toks[i], p.toks[i].text
    said = text.replace("_", "-") if text.startswith("--") else text  # as common/arg.cpp prints it
    f = p.spec.find(said.partition("=")[0])[0]
    if f is not None:
        value = text[len(name) + 1:]
        p.errors.append(Problem(f"invalid argument: {said} (the engine looks each word up whole and splits "
                                f"no \"=\": write {said.partition('=')[0]} and {value or 'its value'} as two words)",
                                i, (tok.start, tok.end), tok.item, f.name))
    p.unknown.append(Problem(f"unrecognized argument {said}", i, (tok.start, tok.end), tok.item, name))
    p._unres(i, name)
    return i + 1


def dotted_json_key(p: _Parser, i: int, name: str, eq: str, attached: str) -> int:
    """vLLM `--json-arg.key.sub value`: merged into the JSON flag's dict."""
    tok = p.toks[i]
    base, *keys = name.rstrip("+").split(".")
    f, _ = p.spec.find(base)
    if eq:
        vidx, raw, vspan = i, attached, tok.span_of(len(name) + 1, len(tok.text))
    elif i + 1 < len(p.toks):
        vidx, raw = i + 1, p.toks[i + 1].text
        vspan = (p.toks[i + 1].start, p.toks[i + 1].end)
    else:
        vidx, raw, vspan = None, "", None
    if f is None or f.kind != "json" or not keys or vidx is None:
        p.unknown.append(Problem(f"unrecognized argument {name}", i, (tok.start, tok.end), tok.item, name))
        return i + (2 if vidx is not None and vidx != i else 1)
    # plain argparse, before it, has no option of that name (a flag itself that late: late_spellings says so)
    if p.spec.flexible_since and f.name not in p.spec.late_names:
        p.errors.append(Problem(f"unrecognized arguments: {name} (a dotted argument sets a key inside "
                                f"{f.spellings[0]} from {p.spec.flexible_since} on; earlier releases "
                                "have no such flag)", i, (tok.start, tok.end), tok.item, f.name,
                                until=p.spec.flexible_since))
    try:
        value: Any = json.loads(raw)
    except ValueError:  # then human_readable_int (vLLM's; LMDeploy's copy keeps the string), then the string
        r = read_int("vllm", raw) if p.spec.engine == "vllm" else None
        value = r.value if r is not None and r.ok else raw
    if name.endswith("+"):
        value = raw.split(",")
    prev = p.settings.get(f.name)
    merged = dict(prev.value) if prev is not None and isinstance(prev.value, dict) else {}
    node = merged
    for k in keys[:-1]:
        node = node.setdefault(k, {}) if isinstance(node.get(k, {}), dict) else node
    node[keys[-1]] = (node.get(keys[-1], []) + value) if name.endswith("+") and \
        isinstance(node.get(keys[-1]), list) else value
    vitem = p.toks[vidx].item
    p.settings[f.name] = Setting(merged, raw, vidx, vspan, "flag", name, i, (tok.start, tok.end),
                                 vitem, f"{name} sets {'.'.join(keys)} inside {base}", tok.item)
    return i + 1 if vidx == i else vidx + 1
