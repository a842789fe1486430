"""A suffixed engine value that the engine reads as a different number than the rest of the deployment says.

Why:
    The same suffix means different numbers on different engines: vLLM reads
    `128k` as 128,000 and `128K` as 131,072; SGLang reads `1M` as 1,000,000
    and wants `1Mi` for 1,048,576; llama.cpp's std::stoi reads `128k` as 128.
    When the other reading is exactly a number written elsewhere in the
    deployment (the advertised window, another role's context), the author
    meant that number and the engine serves a different one: prompts between
    the two are refused, or the window silently shrinks.

    llama.cpp reads every integer flag with std::stoi, which stops at the
    first character that is no digit and drops the rest without a word:
    `-c 32k` is a 32-token context, `1e5` is 1, `8192tokens` is 8192. Any
    such value is reported, with the number the text means where it is
    certain enough to write (`32k` -> 32768; 32000 if k meant thousands).

Example (bad):
    ```yaml
    advertised: {context_window: 1048576}
    engine: {name: sglang}
    serving:
      roles:
        - role: unified
          engine_args: {context_length: 1M}   # SGLang: 1,000,000
    ```

Example (good):
    ```yaml
    advertised: {context_window: 1048576}
    engine: {name: sglang}
    serving:
      roles:
        - role: unified
          engine_args: {context_length: 1048576}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, List, Optional, Tuple

from ctxlint.engines.values import as_int, int_rule, settings_read_with
from ctxlint.findings import Problem
from ctxlint.lazyre import lazy_compile
from ctxlint.model import Deployment, Val, fmt
from ctxlint.rules._engine import engine_id, label

ID = "CTX302"
NAME = "suffix-read-differently"
SEVERITY = "warning"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "advertised.max_output_tokens", "gateway.max_prompt_tokens", "engine",
          "model", "roles[].context_length", "roles[].kv_pool_tokens", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

_SUFFIXED = lazy_compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT])(i?)\s*$")
_POWER = {"k": 1, "m": 2, "g": 3, "t": 4}
_STOI = lazy_compile(r"[ \t\n\r\f\v]*([+-]?\d+)")  # what std::stoi reads (suffixes.read_stoi)
_SCIENTIFIC = lazy_compile(r"^\d+(?:\.\d+)?[eE]\+?\d+$")
_GROUPED = lazy_compile(r"^\d{1,3}(?:,\d{3})+$|^\d{1,3}(?:_\d{3})+$")
_UNIT = lazy_compile(r"^\d+(?:\s*[A-Za-z]+|\.0*)$")


def check(dep: Deployment, options) -> Iterator[Problem]:
    engine = engine_id(dep)
    if engine is None:
        return
    truncated = set()
    for name, val, value, rest in _truncated_values(dep, engine):
        truncated.add(val.source)
        yield Problem(_truncated(engine, name, _text(val), value, rest, _other_values(dep, val)),
                      val.source, dep.display_name)
    for name, val, value in _suffixed_values(dep, engine):
        if val.source in truncated:
            continue
        text = _text(val)
        others = _other_values(dep, val)
        if value in others:
            continue  # the engine's reading agrees with the deployment
        for alt in sorted(_readings(text) - {value}):
            if alt in others:
                yield Problem(
                    f"{label(engine)} reads {name} = {text} as {fmt(value)}, but {others[alt]} is "
                    f"{fmt(alt)} (what {text} means under the other suffix convention): they differ by "
                    f"{fmt(abs(alt - value))} tokens. Write the plain integer you mean ({fmt(alt)})",
                    val.source, dep.display_name)
                break


def _text(val: Val[Any]) -> str:
    return val.raw or (val.value if isinstance(val.value, str) else str(val.value))


def _suffixed_values(dep: Deployment, engine: str) -> Iterator[Tuple[str, Val[Any], int]]:
    suffixed = _SUFFIXED.match
    for role in dep.roles:
        # a suffixed text first (few are), then whether the engine reads the setting as an integer: int_rule (three
        # calls) was asked of every argument of every role
        candidates: List[Tuple[str, Optional[Val[Any]]]] = [
            (k, v) for k, v in role.engine_args if suffixed(_text(v)) and int_rule(engine, k) is not None]
        if dep.input_format != "native":  # the manifest's own token counts follow ctxlint's rule, not the engine's
            candidates += [(k, v) for k, v in (("context_length", role.context_length),
                                               ("kv_pool_tokens", role.kv_pool_tokens))
                           if v is not None and suffixed(_text(v))]
        for name, val in candidates:
            value = as_int(engine, name, val.value)
            if value is not None:
                yield name, val, value


def _truncated_values(dep: Deployment, engine: str) -> Iterator[Tuple[str, Val[Any], int, str]]:
    """Integer settings that std::stoi reads only the start of: (name, value, what it reads, what it drops).
    ggml-org/llama.cpp@145b6280d6aa1890e22457143dad0badb3fd6820:common/arg.cpp common_params_parse_ex passes
    every int flag's text, and its LLAMA_ARG_* variable's, through `handler_int(params, std::stoi(val))`,
    which parses leading blanks, a sign and digits and ignores the rest."""
    if not any(role.engine_args for role in dep.roles):
        return  # nothing to read: the engine's flag table is not loaded for a manifest that states no flags
    stoi = settings_read_with(engine, "stoi")
    if not stoi:
        return
    seen = set()
    for role in dep.roles:
        for name, val in role.engine_args:
            if val.source in seen or name not in stoi:
                continue
            seen.add(val.source)
            match = _STOI.match(_text(val))
            rest = _text(val)[match.end():] if match else ""
            if rest.strip():  # trailing blanks change nothing
                yield name, val, int(match.group(1)), rest


def _truncated(engine: str, name: str, text: str, value: int, rest: str, others: Dict[int, str]) -> str:
    head = f"{label(engine)} reads {name} = {text!r} as {fmt(value)} (std::stoi stops at {rest.rstrip()!r})"
    meant, why = _meant(text.strip(), value, others)
    if meant is None:
        return f"{head}: write the integer you mean in plain digits"
    if meant == value:
        return f"{head}: write {meant}, so that nothing is silently dropped"
    return f"{head}: write {meant}{why}"


def _meant(text: str, value: int, others: Dict[int, str]) -> Tuple[Optional[int], str]:
    """The number a stoi-truncated text means, with why, or None when no reading is certain enough to write."""
    if _SUFFIXED.match(text):
        readings = _readings(text)
        for alt in sorted(readings):
            if alt in others:
                return alt, f" ({others[alt]} is {fmt(alt)})"
        number, letter, iec = _SUFFIXED.match(text).groups()
        if iec or "." in number:
            return max(readings), ""
        decimal = int(number) * 1000 ** _POWER[letter.lower()]
        return max(readings), f" ({number} x {1024 ** _POWER[letter.lower()]:,}; {decimal} if {letter} meant " \
                              f"{1000 ** _POWER[letter.lower()]:,})"
    if _SCIENTIFIC.match(text) and float(text).is_integer():
        return int(float(text)), ""
    if _GROUPED.match(text):
        return int(text.replace(",", "").replace("_", "")), ""
    if _UNIT.match(text):  # `8192tokens`, `4096.0`: the digits are the number
        return value, ""
    return None, ""


def _readings(text: str) -> set:
    """Every number the text means under some engine's suffix rule."""
    m = _SUFFIXED.match(text)
    number, letter, iec = m.groups()
    power = _POWER[letter.lower()]
    if iec:  # Ki, Mi, Gi, Ti are binary wherever they are accepted
        return {int(float(number) * 1024 ** power)}
    readings = {int(float(number) * 1000 ** power)}
    if "." not in number:
        readings.add(int(number) * 1024 ** power)
    return readings


def _other_values(dep: Deployment, skip: Val[Any]) -> Dict[int, str]:
    """Token counts written elsewhere in the deployment, by value, with what they are."""
    found: Dict[int, str] = {}

    def add(val: Optional[Val[Any]], what: str) -> None:
        if val is not None and val.source != skip.source and isinstance(val.value, int) \
                and not isinstance(val.value, bool):
            found.setdefault(val.value, what)

    add(dep.advertised.context_window, "the advertised window")
    add(dep.advertised.max_output_tokens, "the advertised max output")
    add(dep.gateway.max_prompt_tokens, "the gateway cap")
    add(dep.model.max_position_embeddings, "the model's max_position_embeddings")
    for role in dep.roles:
        add(role.context_length, f"the {role.label} context length")
        add(role.kv_pool_tokens, f"the {role.label} KV pool")
    return found
