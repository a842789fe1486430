"""The file a here-document writes when its redirect names it through a variable (heredocs.py):

    EXTRA_LLM_API_FILE=/tmp/config.yml
    cat << EOF > ${EXTRA_LLM_API_FILE}
    kv_cache_config:
      dtype: fp8
    EOF
    trtllm-serve ... --extra_llm_api_options ${EXTRA_LLM_API_FILE}

(NVIDIA's TensorRT-LLM deployment guides, docs/source/deployment-guide/quick-start-recipe-*.md). The engine's
own word is resolved by the script's splitter; the redirect's is resolved here, by the same rule for values
that are certain: a variable's value is the one its last assignment before the here-document's line left, an
assignment at the script's top level (not inside an `if`, a loop, a `case` or a function body, not after
`&&`/`||`) whose value is a literal or expands only variables known the same way (`"$DIR/config.yml"`). A
variable assigned anywhere else before the line (a branch, `read`, `for`, `unset`, `${X:=...}`), or never
assigned, is not known, and a path that needs it is not resolved: the file is then one the manifest does not
hold (CTX008), as before. Only a script with a `$` in a here-document's target pays for this module.
"""
from __future__ import annotations

import re
import shlex
from typing import Dict, Optional

from ctxlint.lazyre import lazy_compile
from ctxlint.lines import after_break

from .heredocs import _LINE_END, _START, _flow_after, find_end

Values = Dict[str, Optional[str]]  # None: assigned in a way whose value is not certain

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
# a line that is one plain assignment (bash: `export`/`readonly`/`declare -x` assign at the top level too)
_ASSIGNMENT = lazy_compile(rf"[ \t]*(?:(?:export|readonly|declare(?:[ \t]+-[a-zA-Z]+)*)[ \t]+)?({_NAME})=(\S*)"
                           r"[ \t]*(?:#.*)?")
# anything else that may set a name: an assignment inside a longer line, `read`, `for`, `unset`, `${X:=v}`
_ANY_ASSIGN = lazy_compile(rf"(?:^|(?<=[\s;&|(]))({_NAME})\+?=")
_OTHER_SETTERS = lazy_compile(rf"\b(?:read(?:[ \t]+-\S+)*|for|unset|local|typeset|declare[ \t]+-\S+)"
                              rf"((?:[ \t]+{_NAME})+)|\$\{{({_NAME}):?=")
_REFERENCE = lazy_compile(rf"\$\{{({_NAME})\}}|\$({_NAME})")
_FUNCTION = lazy_compile(rf"[ \t]*(?:function[ \t]+{_NAME}|{_NAME}[ \t]*\(\))[ \t]*(?:\(\))?[ \t]*\{{?[ \t]*$")


def resolve(target: str, script: str, at: int) -> Optional[str]:
    """`target` (a redirect's path, quotes removed) with each `$NAME`/`${NAME}` replaced by the value the script
    certainly gives it before index `at`; None when one is not certain or the path has another expansion."""
    return substitute(target, known_values(script, at))


def substitute(text: str, values: Values) -> Optional[str]:
    """`text` with its plain references replaced by `values`; None when one has no certain value, or when
    `text` has an expansion other than a plain reference (`${X:-d}`, `$(...)`, a backquote, `$1`)."""
    missing = []

    def value(m: re.Match) -> str:
        found = values.get(m.group(1) or m.group(2))
        if found is None:
            missing.append(m.group(0))
            return ""
        return found

    out = _REFERENCE.sub(value, text)
    return None if missing or "$" in out or "`" in out else out


def substitute_known(text: str, values: Values) -> str:
    """`text` with the references `values` knows replaced, the others left as typed (a later line's words)."""
    def value(m: re.Match) -> str:
        found = values.get(m.group(1) or m.group(2))
        return m.group(0) if found is None else found

    return _REFERENCE.sub(value, text)


def known_values(script: str, stop: int) -> Values:
    """The variables the script's lines before index `stop` assign, here-document bodies skipped."""
    values: Values = {}
    at, flow, braces = 0, 0, 0
    opening = False  # a function's name line without its `{`: the next line's lone `{` opens its body
    while at < stop:
        line_end = _LINE_END.search(script, at)
        end = line_end.start() if line_end is not None else len(script)
        line = script[at:min(end, stop)]
        plain = _ASSIGNMENT.fullmatch(line)
        if plain is not None and not flow and not braces:
            values[plain.group(1)] = _value(plain.group(2), values)
        elif "=" in line or any(w in line for w in ("read", "for", "unset", "local", "typeset", "declare")):
            for m in _ANY_ASSIGN.finditer(line):
                values[m.group(1)] = None
            for m in _OTHER_SETTERS.finditer(line):
                for name in (m.group(1) or "").split() + ([m.group(2)] if m.group(2) else []):
                    values[name] = None
        function = _FUNCTION.match(line)
        if function and not line.rstrip().endswith("{"):
            opening = True  # `setup()` then `{` on its own line: one body, not two
        elif function or (opening and line.strip() == "{") or (braces and line.rstrip().endswith("{")):
            braces += 1
            opening = False
        elif braces and line.strip() in ("}", "};"):
            braces -= 1
        flow = _flow_after(line, flow)
        if line_end is None:
            break
        at = after_break(script, end)
        start = _START.search(line)
        if start is not None:  # its body is data, not lines of the script
            word = next(g for g in start.group(2, 3, 5) if g is not None)
            body_end, after = find_end(script, at, word, start.group(1) == "-")
            if body_end is None:
                break
            at = after
    return values


def _value(word: str, values: Values) -> Optional[str]:
    """An assignment's value as the shell leaves it: a single-quoted word as typed, else its references
    replaced (and its quotes removed); None when that is not certain."""
    try:
        parts = shlex.split(word, posix=True)
    except ValueError:
        return None
    if len(parts) > 1:
        return None
    if word.startswith("'") and word.endswith("'") and word.count("'") == 2:
        return word[1:-1]
    if "'" in word:  # a mix of quotings: not worth the guess
        return None
    return substitute(parts[0] if parts else "", values)
