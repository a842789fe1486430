"""The lexer's items of a shell text cut into the groups that are each one command: at `;`, `&&`, `||`, `|`,
`&` and line breaks, a redirect's target and a here-document's body set apart, a function's definition a group
of its own, an arithmetic command `(( ... ))` one group whose text is its expression. shellwords._build_commands
reads the groups in order.
"""
from __future__ import annotations

from typing import Optional

from .heredocs import HereBody
from .lex_words import Op, Word
from .shell_commands import arith_close, coproc, defines, literal, never_returns


def command_groups(items: list[object]) -> tuple[list, dict[int, tuple[str, bool]], set[int], bool]:
    """(groups, arith, blocking, subshells) of a text's items: each group (words, after `&&` or `||`), or (a
    HereBody, a function_defs.Defined or a subshells.Mark, None); `arith`: group -> the text of its `(( ... ))` and
    whether it reads as typed; `blocking`: the groups that never return, run in the foreground (`sleep infinity;`);
    `subshells`: whether the text has a `(` (then the items were marked, subshells.py)."""
    current: list[Word] = []
    skip_next = False
    # (words, after && or ||), or (a HereBody or a function_defs.Defined, None)
    groups: list[tuple[list[Word], Optional[bool]]] = []
    after_logic = False
    blocking: set[int] = set()  # groups that never return, run in the foreground (`sleep infinity;`)
    if defines(items):
        from .function_defs import collapse  # only a text that defines a function pays for it

        items = collapse(items)
    if coproc(items):  # `coproc [NAME] COMMAND`: a subshell run in the background (coprocs.py)
        from .coprocs import unwrapped
        items = unwrapped(items)
    subshells = any(type(it) is Op and it.text == "(" for it in items)
    if subshells:  # only a text with a `(` imports subshells.py
        from .subshells import marked

        items = marked(items)
    # the groups of `(( ... ))`: arithmetic, no command (arith_commands.py): group -> (its text, decidable?)
    arith: dict[int, tuple[str, bool]] = {}
    # an open `((`: its text's pieces, whether they read as typed (no redirect, `;` or line break the lexer made
    # of `>`, `<<` or a new line), whether it runs in a pipeline's or `&`'s subshell, and its `&&`
    acc: Optional[list] = None
    clean = piped = open_logic = False
    last = prior = skip_op = close = None
    seq = items + [Op(";", 0, 0)]
    for pos, it in enumerate(seq):
        if it is skip_op:  # the second `)` of `))`
            continue
        if acc is not None:  # inside `(( ... ))`: every item is the expression's, to its `))`
            if it is close:
                after = seq[pos + 2] if pos + 2 < len(seq) else None
                piped = piped or (type(after) is Op and after.text in ("|", "|&", "&"))
                groups.append((current, open_logic))
                arith[len(groups) - 1] = (" ".join(acc), clean and not piped)
                current, acc, after_logic = [], None, False
                last = skip_op = seq[pos + 1]
                continue
            if isinstance(it, Word):
                from .arith_commands import raw

                current.append(it)
                acc.append(raw(it))
            elif type(it) is Op and it.text in ("(", ")", "&", "|", "&&", "||"):
                acc.append(it.text)
            else:  # a redirect's `>`, a line break, a here-document: not the text as typed
                clean = False
            continue
        if isinstance(it, Op):
            if it.text.startswith("redir:"):
                skip_next = True  # the next word is the redirect target (or a here-document body, lexer.py)
                continue
            kept = it.text == "(" and not current and after_logic  # `a && (( L++ ))`: the `((` runs after the `&&`
            if current:
                groups.append((current, after_logic))
                if len(current) <= 3 and it.text in (";", "&&", "||") and never_returns([literal(w) for w in current]):
                    blocking.add(len(groups) - 1)
            current = []
            after_logic = it.text in ("&&", "||") or kept
            # `((` typed together (`( (` are two subshells, subshells.py)
            opens = it.text == "(" and type(last) is Op and last.text == "(" and last.end == it.start
            close = arith_close(seq, pos) if opens else None
            if close is not None:  # not `((a); b)`, two subshells bash reads when no `))` closes the first
                acc, clean, open_logic = [], True, after_logic
                piped = prior is not None and prior.text in ("|", "|&")
            prior = last if not opens else prior
            last = it
            continue
        elif skip_next:
            skip_next = False
            if isinstance(it, HereBody):  # a script of its own, after its line's commands (None: not a command)
                groups.append((it, None))  # type: ignore[arg-type]
        elif not isinstance(it, Word):  # a function's definition: a command of its own, that runs nothing
            if current:
                groups.append((current, after_logic))
            current, after_logic = [], False
            groups.append((it, None))  # type: ignore[arg-type]
        else:
            current.append(it)  # type: ignore[arg-type]
    return groups, arith, blocking, subshells
