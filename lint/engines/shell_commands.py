"""What a shell command does besides starting the program of its first word: builtins whose words are data
(`echo vllm serve ...`), and commands that set the script's variables to values it does not hold (`source`,
`read`, `for`); the cheap tests on lexed items (a function definition, `coproc`, a keyword, the `))` closing
`((`) that decide whether the slower readers run; and the lexed items cut into the groups that are each one
command (command_groups: at `;`, `&&`, `||`, `|`, `&` and line breaks, a redirect's target and a here-document's
body set apart, a function's definition a group of its own, an arithmetic command `(( ... ))` one group whose text
is its expression), which shellwords._build_commands reads in order."""
from __future__ import annotations

from typing import Optional, Sequence

from .heredocs import HereBody
from .lex_quotes import NAME
from .lex_words import Op, Word
from .tokens import SHELLS, Token

# Builtins whose words are data, not a command to run: `echo vllm serve ...` starts nothing.
_DATA_BUILTINS = {"echo", "printf", ":", "logger", "true", "false", "test", "[", "[[", "let", "unset", "shift", "done",
                  "fi", "esac",
                  # lookups: `command -v llama-server` (kept by strip_prefixes), `type -p`, `which`, `hash` find a
                  # program on the PATH without running it (sweep 11: a phantom role on an `elif` line)
                  "command", "type", "which", "hash", "whereis"}

# Commands that never return (GNU sleep takes `inf` and `infinity`; `tail -f /dev/null` waits for a line never
# written): run in the foreground at a script's top level, no later command of it ever starts.
_FOREVER = (("sleep", "inf"), ("sleep", "infinity"), ("tail", "-f", "/dev/null"))


def never_returns(words: list[str]) -> bool:
    """Do these literal words wait for ever (`sleep infinity`)? Before `;`, `&&` or `||`, nothing after them runs."""
    return len(words) <= 3 and tuple(w.lower() for w in words) in _FOREVER


def no_command(program: list[Token], ctx) -> bool:
    """A command that runs no program of its words (echo, printf, a `for` list), noting what it does to the
    script's variables: `source FILE` / `. FILE` may set any of them, so no `${X:-default}` is taken after it;
    `read A B` and `for A in ...` set theirs to values not in the script."""
    name = program[0].text
    if name in ("source", "."):
        target = program[1].text.rsplit("/", 1)[-1] if len(program) > 1 else ""
        if target not in _ENVIRONMENTS:  # a virtualenv's or conda's activation sets no engine's variables
            ctx.defaults, ctx.sourced = False, True
        return False  # the sourced file's name is no engine, but `source` may be followed by nothing else
    if name == "shift" and ctx.positional is not None:  # in a function call, or after `set --`: they move
        ctx.positional = ctx.positional.shifted(program)
        return True
    if name == "set" and len(program) > 1:  # `set -- WORDS`: the positional parameters from here on
        from .shell_set import set_positional  # rare: read only for a `set` with words

        set_positional(program, ctx)
        return True
    if name == "read":
        for t in program[1:]:
            if NAME.fullmatch(t.text):
                ctx.local[t.text] = None
        return True
    if name in ("for", "select"):
        if len(program) > 1 and NAME.fullmatch(program[1].text):
            ctx.local[program[1].text] = None
        return True
    return name in _DATA_BUILTINS


# Sourced files that set up an interpreter, not the launcher's settings: `.venv/bin/activate`, conda's hook
_ENVIRONMENTS = {"activate", "conda.sh", "activate.sh", "mamba.sh"}


# Cheap tests shellwords asks of a command list's lexed items before the work each guards
def defines(items: list) -> bool:
    """Might the items define a function (`NAME ()` or a `function` word)? A cheap test before shellfuncs."""
    before = None
    for it in items:
        if type(it) is Op:
            if it.text == ")" and type(before) is Op and before.text == "(":
                return True
        elif type(it) is Word and len(it.parts) == 1 and it.parts[0].runs and it.parts[0].runs[0][0] == "function":
            return True
        before = it
    return False


def coproc(items: list) -> bool:
    """Might the items hold bash's `coproc` (coprocs.py)? A cheap test before importing it."""
    return any(type(it) is Word and len(it.parts) == 1 and it.parts[0].runs and it.parts[0].runs[0][0] == "coproc"
               for it in items)


def literal(word: Word) -> str:
    """A word's text when it is plain literal characters (a keyword such as `fi`), else ""."""
    if not all(p.kind == "lit" and not p.quoted for p in word.parts):
        return ""
    return "".join(run[0] for p in word.parts for run in p.runs)


def command_groups(items: list[object]) -> tuple:
    """(groups, arith, blocking, subshells, ends, redirects) of a text's items: each group (words, after `&&` or
    `||`), or (a HereBody, a function_defs.Defined or a subshells.Mark, None); `arith`: group -> the text of its
    `(( ... ))` and whether it reads as typed; `blocking`: the groups that never return, run in the foreground
    (`sleep infinity;`); `subshells`: whether the text has a `(` (then the items were marked, subshells.py); `ends`:
    the operator after each group (a line break is `;`: run_apart below); `redirects`: redirect_status.Redirects,
    the groups whose redirection may fail and the commands each here-document body is fed to (None: no redirection)."""
    current: list[Word] = []
    skip_next = False
    # (words, after && or ||), or (a HereBody or a function_defs.Defined, None)
    groups: list[tuple[list[Word], Optional[bool]]] = []
    after_logic = False
    blocking: set[int] = set()  # groups that never return, run in the foreground (`sleep infinity;`)
    ends: dict[int, str] = {}  # the operator after each group (run_apart)
    redirects = None  # a redirect_status.Redirects once a redirection is met
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
    # the groups of `(( ... ))`: arithmetic, no command (arith_commands.py): group -> (its text, decidable?, the
    # number of its words before each `;` in it)
    arith: dict[int, tuple[str, bool]] = {}
    # an open `((`: its text's pieces, whether they read as typed (no redirect, `;` or line break the lexer made
    # of `>`, `<<` or a new line), whether it runs in a pipeline's or `&`'s subshell, and its `&&`
    acc: Optional[list] = None
    semis: list = []
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
                arith[len(groups) - 1] = (" ".join(acc), clean and not piped, tuple(semis))
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
                if type(it) is Op and it.text == ";":  # `for (( e1; e2; e3 ))`: where each expression ends
                    semis.append(len(current))
            continue
        if isinstance(it, Op):
            if it.text.startswith("redir:"):
                skip_next = True  # the next word is the redirect target (or a here-document body, lexer.py)
                if redirects is None:
                    from .redirect_status import Redirects
                    redirects = Redirects()
                redirects.operator(it.text[6:], len(groups))
                continue
            kept = it.text == "(" and not current and after_logic  # `a && (( L++ ))`: the `((` runs after the `&&`
            # a line break right after `&&`/`||` (the lexer's `;`: a typed one there is a syntax error), blank lines
            # and comments included, is blank space to bash: `grep -q x f &&\n  L=6` runs L=6 only after the grep
            carried = it.text == ";" and after_logic and not current
            if current:
                groups.append((current, after_logic))
                redirects and redirects.command_ends(len(groups) - 1)
                if len(current) <= 3 and it.text in (";", "&&", "||") and never_returns([literal(w) for w in current]):
                    blocking.add(len(groups) - 1)
            ends.setdefault(len(groups) - 1, it.text)
            if not current and groups:  # a `case` arm's end (case_arms.py), as bash reads it:
                before = ends.get(len(groups) - 1)
                if it.text == ";;" and before == ";":  # `;;` on a line of its own ends the arm before it
                    ends[len(groups) - 1] = ";;"
                elif it.text == "&" and before in (";", ";;") and type(last) is Op and last.text in (";", ";;") \
                        and last.end == it.start:  # `;&`, `;;&` (the lexer's `;`/`;;` then `&`): a fall-through
                    ends[len(groups) - 1] = last.text + "&"
            current = []
            after_logic = it.text in _LOGIC or kept or carried
            # `((` typed together (`( (` are two subshells, subshells.py)
            opens = it.text == "(" and type(last) is Op and last.text == "(" and last.end == it.start
            if opens:  # (arith_commands.py: only a text with `((` imports it)
                from .arith_commands import arith_close
            close = arith_close(seq, pos) if opens else None
            if close is not None:  # not `((a); b)`, two subshells bash reads when no `))` closes the first
                acc, clean, open_logic, semis = [], True, after_logic, []
                piped = prior is not None and prior.text in ("|", "|&")
            prior = last if not opens else prior
            last = it
            continue
        elif skip_next:
            skip_next = False
            if isinstance(it, HereBody):  # a script of its own, after its line's commands (None: not a command)
                redirects.body(len(groups))  # (a body comes after its `<<`)
                groups.append((it, None))  # type: ignore[arg-type]
            elif redirects is not None:
                redirects.target(it)
        elif not isinstance(it, Word):  # a function's definition: a command of its own, that runs nothing
            if current:
                groups.append((current, after_logic))
            current, after_logic = [], False
            groups.append((it, None))  # type: ignore[arg-type]
        else:
            current.append(it)  # type: ignore[arg-type]
    return groups, arith, blocking, subshells, ends, redirects


# Which commands of a script's command list bash runs in a subshell of their own: those of an and-or list that ends
# in `&` (`a && b &`: both run in the background, bash manual, Lists: "the shell executes the command in the
# background in a subshell") and each command of a pipeline (bash manual, Pipelines: "Each command in a
# multi-command pipeline ... is executed in its own subshell"). What such a command assigns, or a failed assignment
# in it, stays in that subshell.
_LOGIC = frozenset({"&&", "||"})
_PIPES = frozenset({"|", "|&"})


def run_apart(ends: dict, groups: Sequence = ()) -> tuple:
    """(backgrounded, piped): the indices of the groups run in the background and of those in a pipeline, from
    `ends`, the operator after each group (a line break is `;`), and `groups` (command_groups'): a compound command
    (`{ ...; }`, `if ... fi`, a loop, `case`) that ends in `&` or stands in a pipeline is run apart whole, every group
    of it (`{ L=7; TP=2; } & TP=3`: bash runs the braces in a subshell, the TP=3 after them in the script)."""
    background: set = set()
    piped: set = set()
    start = 0  # where the and-or list being read starts
    for index in sorted(ends):
        op = ends[index]
        if op in _PIPES:
            piped.update((index, index + 1))
        if op == "&":
            background.update(range(start, index + 1))
        if op not in _LOGIC and op not in _PIPES:
            start = index + 1
    if (background or piped) and groups:
        # a compound is run apart when it is itself the job or a pipeline's element: its closing group is in the
        # job, or a `|` is right before or after it. A pipeline or `&` inside it (`{ echo | cat; f() { ...; }; }`,
        # whose first group opens the braces and ends in the `|`) leaves the rest of it in the script (bash 5.2.15
        # defines f there)
        spans = _compounds(groups)
        jobs = set(background)
        for index in list(background):
            span = spans.get(index)
            if span is not None and span.stop - 1 in jobs:
                background.update(span)
        for index in list(piped):
            span = spans.get(index)
            if span is not None and (ends.get(span.stop - 1) in _PIPES or ends.get(span.start - 1) in _PIPES):
                piped.update(span)
    return background, piped


_OPENS = frozenset({"{", "if", "while", "until", "for", "select", "case"})
_CLOSES = frozenset({"}", "fi", "done", "esac"})
_LEAD_WORDS = frozenset({"then", "do", "else", "elif", "!", "{", "if", "while", "until"})


def _compounds(groups: Sequence) -> dict:
    """Group index -> the range of groups of the compound command it opens or closes (a group's leading keywords,
    `then if x`, may open one; its first word, `done`, closes one)."""
    spans: dict = {}
    stack: list = []
    for index, (words, _) in enumerate(groups):
        if not isinstance(words, list) or not words:
            continue
        texts = [literal(w) for w in words]
        if texts[0] in _CLOSES and stack:
            opened = stack.pop()
            spans[opened] = spans[index] = range(opened, index + 1)
        for text in texts:
            if text in _OPENS:
                stack.append(index)
            if text not in _LEAD_WORDS:
                break
    return spans


compound_spans = _compounds  # (and_or.py)


def and_or_reader(groups: Sequence, ends: dict, redirected: frozenset = frozenset()) -> tuple:
    """(groups, reader): the groups with those of a `{ }` run after `&&`/`||` marked as may not run, and an
    and_or.AndOr that decides what a known status lets run (None: no such list). and_or.py is imported only for a
    text with an `&&` or `||`."""
    if not any(op in _LOGIC for op in ends.values()):
        return groups, None
    from .and_or import reader

    return reader(groups, ends, redirected)


def may_update(words, first: str, ctx) -> bool:
    """Whether a command's words may assign besides its plain assignments (arith_commands.command_updates): a
    `$(( ))` in a word, a declare/typeset/local, or a variable with the integer attribute. Asked of every command,
    so the arithmetic readers are imported only where it holds."""
    return bool(ctx.integers) or first in ("declare", "typeset", "local") or any(
        part.kind == "cmd" and "$((" in part.name for word in words for part in word.parts)


def runs_file(first: str) -> bool:
    """Might a command with this first word run a script file (script_calls.py)? A cheap test before it."""
    return first.startswith("./") or first.endswith((".sh", ".bash")) or first.rsplit("/", 1)[-1] in SHELLS
