"""How one engine flag's text becomes its value: conversion by the flag's kind, and the fixes and partial values
the parser offers when that goes wrong.

`convert` reads a value as the engine's parser would (int and float with the engine's suffix rules, booleans,
JSON, choices); `switch_fix` spells `--x=true` / `--x=false` of a switch the way the engine accepts; and
`known_json_part` keeps the known keys of a JSON value some of whose strings hold an unresolved reference; and
`quotes_removed` says when a refused JSON value lost quotes to a shell that read the command line again.
They are apart from parse.py, which walks the tokens and decides which text belongs to which flag, because
they look at one value only; the engine config-file reader (config.py) converts its values with `convert` too.
"""
from __future__ import annotations

import json
from bisect import bisect_left
from typing import Any, Optional, Sequence

from .flagspec import EngineSpec, FlagSpec
from .kv_pairs import kv_pairs
from .result import Problem, Setting
from .suffixes import read_float, read_int
from .tokens import Token

_TRUE = {"1", "true", "yes", "on", "enabled"}
_FALSE = {"0", "false", "no", "off", "disabled"}


def convert(spec: EngineSpec, f: FlagSpec, text: str) -> tuple[Any, Optional[str], str]:
    """(value, error, note) for text given to flag f."""
    kind = f.kind
    if kind == "int":
        r = read_int(f.int_rule or spec.int_rule, text)
        return r.value, r.error, r.note
    if kind == "float":
        v, err = read_float(spec.float_rule, text)
        return v, err, ""
    if kind == "bool":
        low = text.strip().lower()
        if spec.bool_words:  # the engine's own words (EngineSpec.bool_words), read without stripping
            low = text.lower()
            if low in spec.bool_words[0]:
                return True, None, ""
            if low in spec.bool_words[1]:
                return False, None, ""
            return None, f"invalid boolean value: {text!r} (expected one of yes/no, true/false, t/f, y/n, 1/0)", ""
        if low in _TRUE:
            return True, None, ""
        if low in _FALSE:
            return False, None, ""
        return None, f"invalid boolean value: {text!r}", ""
    if kind == "json":
        try:
            return json.loads(text), None, ""
        except ValueError as exc:
            pairs = kv_pairs(text) if f.kvs_until else None
            if pairs is not None:  # what the releases before kvs_until read (refused_since)
                return pairs, f"invalid JSON: {exc}; write {json.dumps(pairs)} ({spec.engine} read KEY=VALUE " \
                              f"pairs before {f.kvs_until})", ""
            if f.json_suffixes_since:  # what the releases from json_suffixes_since read (json_suffixes.refused_until)
                from .json_suffixes import read_expanded
                value, expanded = read_expanded(text)
                if expanded is not None:
                    return value, f"invalid JSON: {exc}; write {expanded} ({spec.engine} expands bare " \
                                  f"human-readable numbers in it from {f.json_suffixes_since} on)", ""
            return None, f"invalid JSON: {exc}", ""
    if kind == "list":
        return [text], None, ""
    if f.choices and text not in f.choices:
        return text, f"invalid choice: {text!r} (choose from {', '.join(f.choices)})", ""
    return text, None, ""


def switch_fix(f: FlagSpec, name: str, attached: str) -> Optional[str]:
    """`--x=true` -> `--x`, `--x=false` -> `--no-x` (and `--no-x=false` -> `--x`) for a switch
    that takes no value, when the engine has that spelling; None when the meaning is not certain
    (`--x=0`, or a switch without a negative spelling, where the fix would be deleting it)."""
    word = attached.strip().lower()
    if word == "true":
        return name
    if word != "false":
        return None
    if name in f.negatives:
        positive = "--" + name[len("--no-"):] if name.startswith("--no-") else ""
        return positive if positive in f.spellings else None
    negative = "--no-" + name[2:] if name.startswith("--") else ""
    return negative if negative in f.negatives else None


def known_json_part(token, offset: int = 0) -> Optional[dict]:
    """A JSON object value whose unresolved references all sit inside string values (`'{"kv_role":"kv_producer",
    "kv_ip":"'$IP'"}'`, vLLM's own disaggregated_prefill.sh): the object without the keys they touch, so its
    known keys (the KV role that marks a prefill server) still count. None when a reference reaches a key or the
    object's shape."""
    import json

    spans = [(r.start, r.end) for r in token.unresolved]
    starts = token.starts or range(len(token.text))
    text = "".join("\x00" if any(a <= s < b for a, b in spans) else c
                   for c, s in zip(token.text[offset:], starts[offset:]))  # offset: after `--flag=`
    try:
        data = json.loads(text.replace("\x00", "\\u0000"), object_pairs_hook=_no_marked_keys)
    except (ValueError, RecursionError):  # _MarkedKey is a ValueError
        return None
    if not isinstance(data, dict):
        return None
    try:
        return {k: v for k, v in data.items() if not _marked(v)}
    except RecursionError:  # parsed, but too deep to walk: unknown, never an error
        return None


class _MarkedKey(ValueError):
    pass


def _no_marked_keys(pairs):
    if any("\x00" in k for k, _ in pairs):
        raise _MarkedKey()
    return dict(pairs)


def _marked(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_marked(v) for v in value.values())
    if isinstance(value, list):
        return any(_marked(v) for v in value)
    return False


def removed_flags(spec: EngineSpec, settings: dict[str, Setting]) -> list[Problem]:
    """A refusal, at the flag as typed, for every flag given that later releases of the engine dropped
    (FlagSpec.removed_in): argparse exits on it there; earlier releases read it (Problem.since), and so do those
    from FlagSpec.restored_in on (Problem.until)."""
    if spec.removed_names.isdisjoint(settings):  # none of them set (most commands): nothing to scan
        return []
    out = []
    for f in spec.removed:
        s = settings.get(f.name)
        if s is None or s.origin != "flag" or s.flag_index is None:
            continue
        value = json.dumps(s.value) if isinstance(s.value, (dict, int, float)) and not isinstance(s.value, bool) \
            else s.value if isinstance(s.value, str) and s.value and not s.value.isspace() else "..."
        # an abbreviating parser takes a dropped spelling for a prefix of the flags that replaced it
        prefix = f"{s.flag_spelling}-"
        longer = _kept_spellings(spec, prefix) if spec.allow_abbrev else []
        head = f"ambiguous option: {s.flag_spelling} could match {', '.join(longer)}" if len(longer) > 1 else \
            f"unrecognized arguments: {s.flag_spelling}"
        back = f", back in {f.restored_in}" if f.restored_in else ""
        out.append(Problem(f"{head} (dropped in {f.removed_in}{back}: "
                           f"{f.instead.replace('{value}', value)})", s.flag_index, s.flag_span, s.flag_item,
                           f.name, since=f.removed_in, until=f.restored_in))
    return out


_KEPT: dict[int, tuple] = {}  # id(spec) -> (spec, the spellings of its flags no release dropped, sorted)


def _kept_spellings(spec: EngineSpec, prefix: str) -> list[str]:
    """The spellings starting with `prefix` of the flags of `spec` that are not dropped (FlagSpec.removed_in), sorted;
    the sorted list is made once per table (each dropped flag given scanned every flag against every dropped one)."""
    known = _KEPT.get(id(spec))
    if known is None or known[0] is not spec:  # held: its id is not reused meanwhile
        if len(_KEPT) >= 256:
            _KEPT.clear()
        # by identity: `in` on the list compares records field by field, ~0.4 ms a dropped flag
        known = _KEPT[id(spec)] = (spec, sorted(x for g in spec.flags if all(g is not r for r in spec.removed)
                                                for x in g.spellings))
    kept = known[1]
    found = []
    for k in range(bisect_left(kept, prefix), len(kept)):
        if not kept[k].startswith(prefix):
            break
        found.append(kept[k])
    return found


def late_spellings(spec: EngineSpec, settings: dict[str, Setting]) -> list[Problem]:
    """A refusal, at the flag as typed, for every spelling given that the engine's parser has only from a later
    release (FlagSpec.spelled_since): earlier releases exit on it ("unrecognized arguments"; Problem.until)."""
    if spec.late_names.isdisjoint(settings):  # none of them set (most commands): nothing to scan
        return []
    out = []
    for f in spec.late:
        s = settings.get(f.name)
        if s is None or s.origin != "flag" or s.flag_index is None or not s.flag_spelling:
            continue
        typed = spec.spelled(s.flag_spelling, f)
        since = dict(f.spelled_since).get(typed)
        if since is None:
            continue
        older = f.spellings[0] if typed in f.spellings else "--no-" + f.spellings[0][2:]
        # a flag all of whose spellings are late (vLLM 0.34's --enable-extensible-kv-cache) has none to name
        instead = "earlier releases have no such flag" if older in dict(f.spelled_since) \
            else f"earlier releases take {older}"
        out.append(Problem(f"unrecognized arguments: {s.flag_spelling} (a spelling from {since} on: {instead})",
                           s.flag_index, s.flag_span, s.flag_item, f.name, until=since))
    return out


def late_choices(spec: EngineSpec, settings: dict[str, Setting]) -> list[Problem]:
    """A refusal, at the value as typed, for every choice given that the engine's parser has only from a later
    release (FlagSpec.choices_since): earlier releases exit on it ("invalid choice"; Problem.until)."""
    if spec.late_choice_names.isdisjoint(settings):  # none of them set (most commands): nothing to scan
        return []
    out = []
    for f in spec.late_choices:
        s = settings.get(f.name)
        if s is None or s.origin != "flag" or s.token_index is None or not isinstance(s.value, str):
            continue
        added = dict(f.choices_since)
        since = added.get(s.value)
        if since is None:
            continue
        from .result import from_release

        # the choices of the release before `since`: those without a release, or with an earlier one
        older = [c for c in f.choices if c not in added or (added[c] != since and from_release(added[c], since))]
        out.append(Problem(f"argument {s.flag_spelling}: invalid choice: {s.value!r} (a choice from {since} on: "
                           f"earlier releases choose from {', '.join(older)})", s.token_index, s.value_span, s.item,
                           f.name, until=since))
    return out


def exclusive_settings(spec: EngineSpec, settings: dict[str, Setting], env_order: Sequence[str]) -> list[Problem]:
    """A refusal for each pair of settings in EngineSpec.exclusive that are both set, by flag or environment (the
    launcher checks the parsed values, whichever way each came): at the later of two flags or of two variables
    (`env_order`: the environment's names as written), at the one to drop when one is a flag and one a variable."""
    out = []
    for kept, dropped, since, why in spec.exclusive:
        a, b = settings.get(kept), settings.get(dropped)
        if a is None or b is None or a.origin not in _SET or b.origin not in _SET:
            continue
        at = b
        if a.origin == b.origin == "flag":
            at = a if (a.token_index or 0) > (b.token_index or 0) else b
        elif a.origin == b.origin == "env":
            at = a if _place(env_order, a.flag_spelling) > _place(env_order, b.flag_spelling) else b
        text = f"{_typed(b if at is a else a)} is set too ({why}): set only {a.flag_spelling}"
        name = kept if at is a else dropped
        if at.origin == "env":  # located at the variable's value by its name (workload_positions.problem_source)
            out.append(Problem(f"env {at.flag_spelling}: {text}", None, None, None, name, since=since))
        else:
            out.append(Problem(f"argument {at.flag_spelling}: {text}", at.token_index, at.value_span, at.item,
                               name, since=since))
    return out


_SET = ("flag", "env")


def _place(names: Sequence[str], name: Optional[str]) -> int:
    return names.index(name) if name in names else -1


def _typed(s: Setting) -> str:
    return f"{s.flag_spelling}={s.raw_text}" if s.origin == "env" else f"{s.flag_spelling} {s.raw_text}"


def quotes_removed(engine: str, token: Token, offset: int) -> str:
    """What to add to an invalid JSON value's message when a shell took quotes out of it: characters of the
    source are missing between two of the value's characters (quote removal inside the word; the quotes around a
    whole word leave no such gap). Written `{"kv_role":"kv_consumer"}` in a command line a shell reads again
    (KServe's preset `eval`s its args, preset_args.py; a `bash -c` script), the engine gets `{kv_role:kv_consumer}`,
    and the JSON error alone reads as if the file were wrong where it looks right. `offset`: where the value starts
    in the token (after `--flag=`)."""
    starts, ends = token.starts, token.ends
    text = token.text[offset:]
    if token.unresolved or len(starts) != len(token.text) or len(ends) != len(token.text):
        return ""
    if not any(starts[k] > ends[k - 1] for k in range(offset + 1, len(token.text))):
        return ""
    return (f"; {engine} receives {text!r}: the shell that runs the command line removed the quotes inside it "
            "(quote the JSON for that shell too, inside single quotes)")
