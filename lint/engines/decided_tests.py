"""An `if` whose condition the script itself decides: a branch that cannot run leaves no world.

    MAX_MODEL_LEN=""
    CMD="vllm serve $MODEL"
    if [ -n "${MAX_MODEL_LEN}" ]; then CMD+=" --max-model-len ${MAX_MODEL_LEN}"; fi
    eval "$CMD"

scalar_branches.py reads each branch of an `if` as a world of its own, because the condition usually depends on
what ctxlint cannot know (the hardware, the caller's environment). Here it does not: the script set the variable
to a literal, so `[ -n "" ]` is false (bash manual, Bash Conditional Expressions: `-n string` "True if the length
of string is non-zero", `-z` if it is zero, a lone `string` argument to `[`/`test` as `-n`), and the world where
`--max-model-len` gets no value (a CTX301 refusal) is one bash never enters. Only the plainest tests are decided:
`[ -n W ]`, `[ -z W ]`, `[ W ]`, their `[[ ]]` and `test` spellings, where W is literal text or one `$X`/`${X}`
whose value the script assigned outright (not from the caller, not inside another branch's doubt, and not once a
`source FILE` may have set it again: no test is decided after one, shell_commands.no_command; not a name a call's
prefix sets, `A=x f` or `A=x eval ...`, whose body sees that value, nor in an `sh -c` string a name of the outer
script, which the child shell sees only when it is exported: `ctx.undecided`, set by `hiding`), and a lone `true`,
`:` or `false` (`if false; then` switches a block off: bash manual, Bourne Shell Builtins, `true`/`false` return 0
and 1), or plain assignments (`if L=8192; then`: status 0, bash manual, Simple Command Expansion; and_or.py), each
without a redirection that may fail (redirect_status.py). The same tests decide an and-or list's statuses
(and_or.py: `[ -n "" ] && ...`). Anything else
(`!`, `-a`, comparisons, a `${X:-d}`, a test joined to another by `&&`, `||` or `;` before the `then`, a
test inside a loop or `case`) stays undecided: each branch a world, as before.
"""
from __future__ import annotations

from typing import Optional

_CLOSE = {"[": "]", "[[": "]]", "test": None}


def decide(words: list, ctx) -> Optional[bool]:
    """True or False when the `if`/`elif` command `words` (its keyword first) tests only what the script decides,
    else None."""
    texts = [_literal(w) for w in words[1:]]
    if len(texts) == 1 and texts[0] in ("true", ":", "false") and ctx.lone_test:
        return texts[0] != "false"  # `if false; then` (a block switched off): its status is the builtin's own
    if texts and "=" in (texts[0] or "=") and ctx.lone_test:  # `if L=8192; then`: an assignment's status, 0
        from .and_or import _plain_assignment
        if all(_plain_assignment(w, ctx) for w in words[1:]):
            return True
    if len(texts) < 2 or texts[0] not in _CLOSE:
        return None
    if not ctx.lone_test:  # `if A || B; then`, `if A && B`, `if A; B`: more than this test
        return None
    if ctx.sourced:  # `MAX_MODEL_LEN=""; source config.sh`: the file may set it
        return None
    close = _CLOSE[texts[0]]
    operands = words[2:]
    if close is not None:
        if texts[-1] != close:
            return None
        operands = operands[:-1]
    if len(operands) == 2 and _literal(operands[0]) in ("-n", "-z"):
        value = _value(operands[1], ctx)
        return None if value is None else (value != "") == (_literal(operands[0]) == "-n")
    if len(operands) == 1 and not (_literal(operands[0]) or "").startswith("-"):
        value = _value(operands[0], ctx)
        return None if value is None else value != ""
    return None


def _literal(word) -> Optional[str]:
    """The word's text when it is literal characters only (quotes removed), else None."""
    if any(part.kind != "lit" for part in word.parts):
        return None
    return "".join(run[0] for part in word.parts for run in part.runs)


def _value(word, ctx) -> Optional[str]:
    """The text the word expands to when the script decides it: literal, or one variable it assigned a known
    value (not forked by an earlier `if`, not unsure), else None."""
    text = _literal(word)
    if text is not None:
        return text
    if len(word.parts) != 1:
        return None
    part = word.parts[0]
    if part.kind != "var" or part.style != "shell" or part.default is not None or not part.name:
        return None
    raw = "".join(run[0] for run in part.runs)
    if raw not in (f"${part.name}", f"${{{part.name}}}"):
        return None  # ${X#p}, ${X/a/b}, ${#X}: an operator on the value
    local = ctx.local
    if part.name in ctx.unsure or part.name in local.forked or part.name in ctx.undecided:
        return None
    value, partial = local.known(part.name)
    return value if isinstance(value, str) and partial is None else None


def hiding(ctx, names) -> frozenset:
    """Make `names` undecided for what is read next (a call's body, an `eval` or `sh -c` string); returns the set
    to put back when it is read."""
    before = ctx.undecided
    ctx.undecided = before | frozenset(names)
    return before
