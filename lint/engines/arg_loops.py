"""A launcher's option-parsing loop, and the assignments in it that only the script's caller can make happen:

    MODEL_PATH="deepseek-ai/DeepSeek-R1"
    while getopts "m:e:h" opt; do
        case $opt in
            m) MODEL_PATH="$OPTARG" ;;
        esac
    done

`getopts` returns non-zero once no option is left (bash manual, Bourne Shell Builtins: "When the end of options
is encountered, getopts exits with a return value greater than zero"), and `while [[ $# -gt 0 ]]` (or
`while (( "$#" ))`, `while [ -n "$1" ]`) tests the positional parameters: run without arguments, such a loop's
body never runs. That is the reading a script's `${1:-default}` already gets here (word_expansion: the default of
a variable nothing sets), so an assignment in the loop whose value is only the caller's words (`$OPTARG`, `$2`,
`${1#*=}`) leaves the variable as it was before the loop: the script's own default, which a caller may override.
Any other assignment in the loop (`--big) TP=8`) is still one that may or may not run, unknown after it.
Only a condition that tests the arguments (`getopts`, `[`, `[[`, `test`, an arithmetic `(( ))`) makes such a loop:
`until curl -s localhost:$1/health; do ...` or `while read -r x <<< "$1"` name an argument but may run without any.
"""
from __future__ import annotations

from typing import Iterable

_ARGS = frozenset({"#", "@", "*", "OPTARG"})  # the references that make a loop's condition about the arguments
_TESTS = frozenset({"[", "[[", "test", "getopts"})  # the commands such a condition runs (or `(( ))`: no command word)


def parses_arguments(words: Iterable) -> bool:
    """Does a `while`/`until` condition (its words after the keyword) read the script's arguments?"""
    words = list(words)
    lead = next((w for w in words if _text(w) != "!"), None)  # `while ! [ -z "$1" ]`
    if lead is not None and all(p.kind == "lit" for p in lead.parts) and _text(lead) not in _TESTS:
        return False  # a command of its own (`curl ... $1`, `read ... <<< "$1"`): it may hold without arguments
    for w in words:
        for part in w.parts:
            if part.kind == "lit" and any(run[0] == "getopts" for run in part.runs):
                return True
            if part.kind == "var" and part.style == "shell" and (part.name in _ARGS or part.name.isdigit()):
                return True
    return False


def _text(word) -> str:
    return "".join(run[0] for p in word.parts if p.kind == "lit" for run in p.runs)


def callers_only(token) -> bool:
    """Is a `NAME=value` token's value made only of the script's caller's words (`$OPTARG`, `$2`, `${1#*=}`)
    and literal text, with at least one such word?"""
    refs = token.unresolved
    return bool(refs) and len(refs) == len(token.refs) and all(
        r.style == "shell" and (r.name == "OPTARG" and r.why in ("", "sourced") or r.name.isdigit() and not r.why)
        for r in refs)
