"""`coproc [NAME] COMMAND`: bash runs COMMAND asynchronously in a subshell, so it is read as `( COMMAND ) &` is.

Bash's manual (Coprocesses, gnu.org/software/bash/manual/html_node/Coprocesses.html): "A coprocess is executed
asynchronously in a subshell, as if the command had been terminated with the '&' control operator"; its syntax is
`coproc [NAME] command [redirections]`, where the word after `coproc` "is interpreted as NAME if it is not a
reserved word that introduces a compound command", and "If command is a simple command, NAME is not allowed". So
`coproc vllm serve M ...` starts vLLM (before, a command named `coproc`, no engine), and `coproc SRV { vllm serve
M ...; }` or `coproc SRV ( ... )` runs the group as a subshell: what it assigns is lost when it ends
(subshells.py), while the engine it starts runs with its values. Checked with bash 5.2.15: `coproc S { L=5; echo
"in $L"; }; cat <&"${S[0]}"; echo "after [$L]"` prints `in 5` and `after []`.

Done on the lexed items, before shell_commands.command_groups groups them (which asks `coproc` first): the `coproc`
word (and a compound's NAME) is dropped, and a brace group's `{` and its `}` become a subshell's `(` and `)`
(another compound, `coproc S while ...; done`, is read where it stands, in the script's shell); a simple
command is put in `( )` up to the operator that ends it (`coproc L=2` assigns nothing of the script's). dash has no
coproc (there it is a command not found, which starts nothing); the script is read as bash's, as for `[[`.
"""
from __future__ import annotations

from .lex_quotes import NAME
from .lex_words import Op, Word

# the reserved words that open a compound command (bash manual, Compound Commands); `((` and `( )` are operators
_COMPOUNDS = frozenset({"{", "while", "until", "if", "for", "case", "select", "[["})
# words after which a command may start (subshells.marked's list)
_STARTS = frozenset({"do", "then", "else", "{", "!", "in", "elif", "while", "until", "if", "time"})


def _plain(it: object) -> str:
    if type(it) is Word and len(it.parts) == 1 and it.parts[0].kind == "lit" and not it.parts[0].quoted \
            and len(it.parts[0].runs) == 1:
        return it.parts[0].runs[0][0]
    return ""


def unwrapped(items: list) -> list:
    """The items with each `coproc [NAME]` at a command's start read as a subshell run in the background."""
    out: list = []
    start = True  # may a command start here?
    i, n = 0, len(items)
    while i < n:
        it = items[i]
        if start and _plain(it) == "coproc" and i + 1 < n:
            nxt, after = items[i + 1], items[i + 2] if i + 2 < n else None
            # NAME is the word after `coproc` when a compound command follows it, never a simple command's first
            opens = _plain(nxt) in _COMPOUNDS or type(nxt) is Op and nxt.text == "("
            named = not opens and NAME.fullmatch(_plain(nxt)) is not None and (
                _plain(after) in _COMPOUNDS or type(after) is Op and after.text == "(")
            i += 2 if named else 1  # the command (or its compound) follows, at a command's start
            group = i if _plain(items[i]) == "{" else None
            close = _closing(items, group) if group is not None else None
            if group is not None and close is not None:  # `{ ...; }` run as `( ... )`
                items = list(items)
                brace, end = items[group], items[close]
                items[group] = Op("(", *brace.span())
                items[close] = Op(")", *end.span())
            elif i < n and not opens and group is None:  # a simple command: its own subshell too, `( COMMAND )`
                stop = next((k for k in range(i, n) if type(items[k]) is Op and not items[k].text.startswith(
                    "redir:")), n)
                if stop > i:  # (bash 5.2.15: `L=1; coproc L=2; wait` leaves 1; so does `coproc f` of an f that sets L)
                    at = it.span()
                    last = items[stop - 1]
                    end = last.end if type(last) is Op else last.span()[1] if type(last) is Word else at[1]
                    items = items[:i] + [Op("(", *at)] + items[i:stop] + [Op(")", end, end)] + items[stop:]
                    n += 2
            continue
        out.append(it)
        start = _starts_after(it)
        i += 1
    return out


def _closing(items: list, at: int):
    """The index of the `}` that closes the brace group whose `{` is at `at` (a `{` or `}` word at a command's
    start, nested groups counted), or None."""
    depth, start = 0, True
    for k in range(at, len(items)):
        it = items[k]
        word = _plain(it) if start else ""
        if word == "{":
            depth += 1
        elif word == "}":
            depth -= 1
            if depth == 0:
                return k
        start = _starts_after(it)
    return None


def _starts_after(it) -> bool:
    """Does a command start after this item? After an operator that is no redirection, a word of _STARTS, or
    anything else the lexer gives (a here-document body)."""
    if type(it) is Op:
        return not it.text.startswith("redir:")
    if type(it) is Word:
        return _plain(it) in _STARTS
    return True
