"""Split command lines into tokens that remember their exact source spans.

Two entry points:

* `split_shell(text, resolver)` for a shell string (compose `command:` string,
  SkyPilot `run:` script, the script of `sh -c`), with quotes, escapes,
  continuations, comments, chains (`&&`, `||`, `;`, `|`, `&`), `exec`/`env`
  prefixes, `FOO=1 cmd` assignments and `$VAR`/`${VAR}` references.
* `split_list(items, resolver)` (execform.py) for a Kubernetes `command` + `args`
  list: each item is one token (spans are offsets inside that item), `$(VAR)` is
  expanded the Kubernetes way, and `["/bin/sh", "-c", "script"]` is unwrapped
  so the script's tokens point inside item 2.

Nothing here raises on odd input: problems come back as data.
"""
from __future__ import annotations

from itertools import chain, repeat
from typing import Optional

from ctxlint.lazyre import lazy_compile

from .arith import arithmetic
from .command_strings import Locals, assigned, command_word, partial_value
from .compose_pass import compose_interpolated, shell_stage
from .gotemplate import lookup_key
from .heredoc_scripts import body_commands
from .heredocs import HereBody
from . import shellarrays
from .lexer import Op, Word, lex
from .shell_commands import no_command
from .outer_expansion import restored, script_of
from .shell_eval import eval_words, evaluated_commands
from .tokens import SHELLS, Command, EnvAssign, Resolver, SplitProblem, SplitResult, Token, VarRef  # noqa: F401

_ASSIGN = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Compose interpolates `${NAME}`, `${NAME:-default}`, `${NAME-default}`, `${NAME:?err}` and `$NAME`
# in every string of the file, exec-form list items included; `$$` is a literal `$`.
# Words that start a command without being its program.
_KEYWORDS = {"then", "do", "else", "elif", "if", "while", "until", "!", "{", "}", "time"}
_FLOW_START = {"if", "while", "until", "for", "case", "select"}
_FLOW_END = {"fi", "done", "esac"}
_BRANCH_WORDS = _FLOW_START | _FLOW_END | {"then", "elif", "else"}  # what branches.Branches follows
_MAX_DEPTH = 6


def no_resolver(_name: str) -> Optional[str]:
    return None


class SplitContext:
    """Per-split state: resolver, script-local assignments, collected refs."""

    def __init__(self, resolver: Optional[Resolver], item: Optional[int], go: bool = False,
                 defaults: bool = False) -> None:
        self.resolver = resolver or no_resolver
        self.go = go  # Go template actions are references (see gotemplate.py)
        self.defaults = defaults  # `${X:-default}` of a variable set neither here nor by the resolver: the default
        self.script = defaults  # a launcher script's own text (a shell reads it), whatever `source` does to defaults
        self.sourced = False  # a `source FILE` was met (shell_commands.no_command)
        self.local = Locals()  # name -> value (None: not known), and partly known command strings
        self.refs: list[VarRef] = []
        self.problems: list[SplitProblem] = []
        self.item = item
        # Inside `if`/`while`/`for`/`case` (or after `&&`/`||`) an assignment may or may not run, or
        # run many times: the variable's value is not known there (a loop's TP=$((TP*2)), an else).
        self.flow = 0
        self.conditional = False
        self.unsure: set[str] = set()
        # bash arrays (engines/shellarrays.py): (elements, whether unknown ones may follow), None when not known
        self.arrays: dict[str, Optional[tuple[list[Token], bool]]] = {}

    def lookup(self, name: str) -> Optional[str]:
        if name in self.local:
            value = self.local[name]
            return value if value is not None or not self.local.scoped else self.local.known(name)[0]
        try:
            value = self.resolver(name)
        except Exception:  # a caller's resolver must not crash the linter
            value = None
        return value if isinstance(value, str) else None


class _Unexpanded:
    """What `_expand_word(..., expand=False)` reads of its context: the list item the words are in."""

    __slots__ = ("item",)

    def __init__(self, item: Optional[int]) -> None:
        self.item = item


def _expand_word(word: Word, ctx: SplitContext, expand: bool = True, command: bool = False,
                 partials: bool = False) -> list[Token]:
    """Cook one word into one or more tokens (unquoted expansions field-split). A partly known command string
    (command_strings.py) gives its words where typed when the word is a command's first (`command`), or is one
    another reading parses again (`partials`: an `sh -c` script, `eval`'s words)."""
    if not expand or all(part.kind == "lit" for part in word.parts):
        # No expansion, so no field splitting: the token is the word as typed (the general
        # path below gives the same, one tuple per character slower). A `{{ if }}` the word is inside
        # was typed elsewhere.
        runs = [run for part in word.parts if part.style != "go-if" for run in part.runs]
        if not runs and not word.had_quotes:
            return []
        start, end = word.span()
        if len(runs) == 1:  # most words: one run of literals
            text, starts, ends = runs[0]
            return [Token(text, start, end, starts, ends, (), ctx.item)]
        return [Token("".join([run[0] for run in runs]), start, end, tuple(chain.from_iterable([run[1] for run in runs])),
                      tuple(chain.from_iterable([run[2] for run in runs])), (), ctx.item)]
    chars: list[tuple[str, int, int, bool]] = []  # (char, start, end, splittable)
    refs: list[VarRef] = []
    vanish = False  # `"${A[@]}"` of an empty array: no word at all
    carried: list[VarRef] = []  # an array element's own references, where the element is typed
    for part in word.parts:
        if part.kind == "lit" or not expand:
            for text, starts, ends in part.runs:
                chars.extend(zip(text, starts, ends, repeat(False)))
            continue
        start = min(chain.from_iterable([run[1] for run in part.runs]))
        end = max(chain.from_iterable([run[2] for run in part.runs]))
        if part.style == "go-if":  # no text of its own: the word is there only when the condition holds
            refs.append(VarRef(part.name, part.style, start, end, None, None, ctx.item))
            continue
        array = shellarrays.lookup(part.name, ctx) if part.style == "shell" and "[" in part.name else None
        if array is not None:  # each element where it is typed; `"${A[@]}"` still one word per element
            elements, joined, more = array
            vanish = vanish or (part.quoted and not elements and not joined and not more)
            for k, element in enumerate(elements):
                if k:
                    chars.append((" ", start, end, not (part.quoted and joined)))
                chars.extend(zip(element.text, element.starts, element.ends, repeat(not part.quoted)))
                carried.extend(element.refs)
            if not more:
                refs.append(VarRef(part.name, part.style, start, end, " ".join(t.text for t in elements), None,
                                   ctx.item))
                continue
            if elements:  # the unknown rest: the reference itself, a word of its own
                chars.append((" ", start, end, True))
        partial = partial_value(part, ctx.local, partials) if command or partials else None
        if partial is not None:  # its words where they are typed, its unknown references with them
            ctx.refs.append(VarRef(part.name, part.style, start, end, None, None, ctx.item, "set"))
            chars.extend(zip(partial.text, partial.starts, partial.ends, repeat(not part.quoted)))
            carried.extend(partial.refs)
            continue
        name = lookup_key(part.name) if part.style == "go" else part.name
        value = ctx.lookup(name) if part.kind == "var" else arithmetic(part.name, ctx.lookup)
        typed = _default(part) if value is None and ctx.defaults and part.name.split("[")[0] not in ctx.local \
            else None
        if typed is not None:
            value = typed[0]
        why = "" if value is not None or part.style != "shell" else \
            "set" if part.name in ctx.local else "sourced" if ctx.sourced else ""
        ref = VarRef(part.name, part.style, start, end, value, part.default, ctx.item, why)
        refs.append(ref)
        if typed is not None:  # the default's characters where they are typed
            chars.extend((c, a, b, not (part.quoted or typed[3])) for c, a, b in zip(*typed[:3]))
        elif value is None:  # keep the reference text itself, at its own positions
            for text, starts, ends in part.runs:
                chars.extend(zip(text, starts, ends, repeat(False)))
        else:
            chars.extend((c, start, end, not part.quoted) for c in value)
    ctx.refs.extend(refs)
    if vanish and not chars:
        return []
    pieces: list[list[tuple[str, int, int, bool]]] = [[]]
    for ch in chars:
        if ch[3] and ch[0] in " \t\n":
            pieces.append([])
        else:
            pieces[-1].append(ch)
    keep_empty = word.had_quotes and len(pieces) == 1
    out = []
    for piece in pieces:
        if not piece and not keep_empty:
            continue
        if len(pieces) == 1:  # the usual case: the token is the word as typed
            start, end = word.span()
        else:
            start, end = min(c[1] for c in piece), max(c[2] for c in piece)
        mine = tuple(r for r in refs if r.style == "go-if" or r.start < end and r.end > start) or ()
        if carried and piece:  # an element's references are where the element is typed
            low, high = min(c[1] for c in piece), max(c[2] for c in piece)
            mine += tuple(r for r in carried if r.start < high and r.end > low)
        out.append(Token("".join(c[0] for c in piece), start, end,
                         tuple(c[1] for c in piece), tuple(c[2] for c in piece), mine, ctx.item))
    return out


def _default(part) -> Optional[tuple[str, tuple[int, ...], tuple[int, ...], bool]]:
    """(text, starts, ends, quoted) of the default in `${NAME:-default}` (or `-`, `:=`, `=`) when it is
    plain text, at its own positions; None for an empty default or one that expands or escapes
    something (`${A:-$B}`): what the shell would make of those is not read here."""
    default = part.default
    if not default or part.kind != "var" or len(part.runs) != 1:
        return None
    raw, starts, ends = part.runs[0]
    begin = len(raw) - 1 - len(default)
    if begin < 0 or raw[begin:-1] != default or not raw.endswith("}"):
        return None
    quoted = len(default) >= 2 and default[0] == default[-1] and default[0] in "'\""
    if quoted:
        default, begin = default[1:-1], begin + 1
    if not default or any(c in default for c in "$`\\'\""):
        return None
    end = begin + len(default)
    return default, starts[begin:end], ends[begin:end], quoted


def strip_prefixes(tokens: list[Token], env: list[EnvAssign], wrappers: list[str]) -> list[Token]:
    """Drop `exec`, `env A=B`, `nohup`, `sudo -E`... in front of the program."""
    i = 0
    while i < len(tokens):
        t = tokens[i].text
        if t == "command" and i + 1 < len(tokens) and tokens[i + 1].text in ("-v", "-V"):
            break  # `command -v vllm` looks the program up (shell_commands.no_command), it runs nothing
        if t in _KEYWORDS or t in ("exec", "nohup", "command"):
            if t not in ("{", "}", "!"):
                wrappers.append(t)
            i += 1
        elif t in ("env", "/usr/bin/env") or t == "sudo":
            wrappers.append(t)
            i += 1
            while i < len(tokens) and (tokens[i].text.startswith("-") or _ASSIGN.match(tokens[i].text)):
                if _ASSIGN.match(tokens[i].text):
                    env.append(EnvAssign(tokens[i].text.split("=", 1)[0], tokens[i]))
                elif tokens[i].text in ("-u", "-C", "-S", "-g") and i + 1 < len(tokens):
                    i += 1  # option with a separate argument
                i += 1
        elif _ASSIGN.match(t):
            env.append(EnvAssign(t.split("=", 1)[0], tokens[i]))
            i += 1
        else:
            break
    return tokens[i:]


# Programs that run a command with the caller's environment: Slurm's and MPI's launchers (srun exports the
# whole environment by default), and process wrappers. Not ssh, docker or kubectl exec: their shell's
# variables are another machine's or container's.
_PASSING_WRAPPERS = frozenset({"srun", "mpirun", "mpiexec", "timeout", "numactl", "setsid", "taskset", "nice",
                               "ionice", "stdbuf", "time", "chrt"})


def shell_script_index(tokens: list[Token]) -> Optional[int]:
    """Index of the script word when tokens are `sh [opts] -c [opts] [--] SCRIPT ...`.

    As in bash/dash, -c only says "read commands from the first operand": the
    script is the first word that is not an option (`bash -lc -- "..."`).
    """
    if not tokens:
        return None
    if tokens[0].text.rsplit("/", 1)[-1] in _PASSING_WRAPPERS:
        # `srun --nodes=2 bash -c "..."`, `timeout 1h sh -c '...'`: the wrapper runs the shell with this
        # shell's environment, so the script is read as the wrapper's own (sweep 11: open-r1's serve_r1.slurm)
        j = next((k for k in range(1, len(tokens)) if tokens[k].text.rsplit("/", 1)[-1] in SHELLS), None)
        inner = shell_script_index(tokens[j:]) if j is not None else None
        return j + inner if inner is not None else None
    if tokens[0].text.rsplit("/", 1)[-1] not in SHELLS:
        return None
    saw_c, i = False, 1
    while i < len(tokens):
        t = tokens[i].text
        if t == "--":
            i += 1
            break
        if t in ("-o", "+o"):
            i += 2
            continue
        if t.startswith("--") or (len(t) > 1 and t[0] in "-+" and t[1:].isalpha()):
            saw_c = saw_c or (t[0] == "-" and not t.startswith("--") and "c" in t[1:])
            i += 1
            continue
        break
    return i if saw_c and i < len(tokens) else None


def _literal(word: Word) -> str:
    """A word's text when it is plain literal characters (a keyword such as `fi`), else ""."""
    if not all(p.kind == "lit" and not p.quoted for p in word.parts):
        return ""
    return "".join(run[0] for p in word.parts for run in p.runs)


def _build_commands(items: list[object], ctx: SplitContext, depth: int) -> list[Command]:
    commands: list[Command] = []
    current: list[Word] = []
    skip_next = False
    groups: list[tuple[list[Word], Optional[bool]]] = []  # (words, after && or ||), or (a HereBody, None)
    after_logic = False
    for it in items + [Op(";", 0, 0)]:
        if isinstance(it, Op):
            if it.text.startswith("redir:"):
                skip_next = True  # the next word is the redirect target (or a here-document body, lexer.py)
                continue
            if current:
                groups.append((current, after_logic))
            current = []
            after_logic = it.text in ("&&", "||")
        elif skip_next:
            skip_next = False
            if isinstance(it, HereBody):  # a script of its own, after its line's commands (None: not a command)
                groups.append((it, None))  # type: ignore[arg-type]
        else:
            current.append(it)  # type: ignore[arg-type]
    for words, conditional in groups:
        if conditional is None:
            if depth < _MAX_DEPTH:
                commands.extend(body_commands(words, ctx, depth, _expand_word, split_text))
            continue
        first = _literal(words[0]) if words else ""
        if first in _FLOW_END:
            ctx.flow = max(0, ctx.flow - 1)
        elif first in _FLOW_START:
            ctx.flow += 1
        if first in _BRANCH_WORDS:
            ctx.local.branches.step(first)
        ctx.conditional = conditional
        commands.extend(_command_from_words(words, ctx, depth))
    return commands


def _command_from_words(words: list[Word], ctx: SplitContext, depth: int) -> list[Command]:
    # Find the script word first so that it is not expanded by the outer level:
    # its references are expanded (once) when the inner script is split.
    tokens: list[Token] = []
    raw = _Unexpanded(ctx.item)  # unexpanded words read nothing else (no SplitContext built per command)
    raw_tokens = [_expand_word(w, raw, expand=False) for w in words]
    flat_raw = [t for ts in raw_tokens for t in ts]
    env: list[EnvAssign] = []
    wrappers: list[str] = []
    head = strip_prefixes(list(flat_raw), [], [])
    idx = _script_index(head)
    script_word = None
    if idx is not None and depth < _MAX_DEPTH:
        target = head[idx]
        for w, ts in zip(words, raw_tokens):
            if ts and ts[0] is target:
                script_word = w
    # A double-quoted `sh -c` script of a shell-read text, and `eval`'s words: the outer shell expands them, the
    # inner reading parses the result (outer_expansion.py), so they are expanded here, command strings included.
    outer = script_word is not None and script_word.dq and (depth > 0 or ctx.script) \
        and shell_script_index(head) is not None
    evaluated = eval_words(head, words, raw_tokens) if idx is None and head and head[0].text == "eval" \
        and depth < _MAX_DEPTH else ()
    command = command_word(head, words, raw_tokens, ctx.local) if not evaluated and idx is None \
        and (ctx.local.partial or ctx.local.scoped) else None
    for w, ts in zip(words, raw_tokens):
        if (w is script_word and not outer) or all(part.kind == "lit" for part in w.parts):
            tokens.extend(ts)  # nothing to expand: the tokens just made (immutable) are the same
        elif w is script_word or id(w) in evaluated:
            tokens.extend(_expand_word(w, ctx, partials=True))
        else:
            tokens.extend(_expand_word(w, ctx, command=w is command))
    program = strip_prefixes(tokens, env, wrappers)
    unsure = ctx.flow > 0 or ctx.conditional
    if not program:  # only assignments: they set script-local variables
        for a in env:
            assigned(ctx.local, a.name, a.token, unsure, ctx.conditional)
            if unsure:
                ctx.unsure.add(a.name)
        shellarrays.assign(words, ctx, unsure, _expand_word)
        return []
    if program[0].text in ("export", "readonly", "declare", "local", "typeset"):
        for t in program[1:]:
            if _ASSIGN.match(t.text):
                assigned(ctx.local, t.text.split("=", 1)[0], t, unsure, ctx.conditional)
                if unsure:
                    ctx.unsure.add(t.text.split("=", 1)[0])
        shellarrays.assign(words, ctx, unsure, _expand_word)
        return []
    if no_command(program, ctx):
        return []
    shellarrays.assign(words, ctx, unsure, _expand_word)  # `A+=(...)`: no assignment to the splitter
    shellarrays.changed(program, ctx)
    if evaluated and program[0].text == "eval":
        return evaluated_commands(program, ctx, depth + 1, unsure, split_text, env, wrappers)
    idx = _script_index(program)
    if idx is not None and script_word is not None and depth < _MAX_DEPTH:
        script = program[idx]
        shell = " ".join(t.text for t in program[:idx])
        base = list(zip(script.starts, script.ends))
        # a script shell's double-quoted `-c` string: that shell expands it first (compose splits its string
        # without a shell, Kubernetes passes list items as they are)
        outer_dq = script_word.dq and (depth > 0 or ctx.script)
        if shell_script_index(program) is None:  # `docker run ... IMAGE sh -c SCRIPT`: the container's shell
            return _container_script(program, script, base, ctx, depth, outer_dq, wrappers, shell)
        text, base, marks = script_of([script]) if outer else (script.text, base, {})
        inner = restored(split_text(text, base, ctx, depth + 1), marks)
        return [Command(c.tokens, tuple(env) + c.env, tuple(wrappers) + (shell,) + c.wrappers)
                for c in inner]
    return [Command(tuple(program), tuple(env), tuple(wrappers))]


def _script_index(tokens: list[Token]) -> Optional[int]:
    """The script word of `sh -c SCRIPT` (behind a wrapper too), or of `docker run ... IMAGE sh -c SCRIPT`."""
    found = shell_script_index(tokens)
    if found is not None or not tokens or tokens[0].text.rsplit("/", 1)[-1] not in ("docker", "podman", "nerdctl"):
        return found
    from .detect import image_entrypoint_is_engine  # only a `docker run` line asks
    from .docker_run import docker_script_index
    return docker_script_index(tokens, shell_script_index, image_entrypoint_is_engine)


def _container_script(program: list[Token], script: Token, base, ctx: SplitContext, depth: int, outer_dq: bool,
                      wrappers: list[str], shell: str) -> list[Command]:
    """A script a container's shell runs. Double-quoted, the host's shell expanded it first (its variables);
    otherwise its `$X` are the container's, which only `-e NAME=value` sets here. Its commands carry that
    environment (not the host's `NAME=value docker run` prefixes, which stay on the host)."""
    from .docker_run import docker_env, parse_run

    container_env = docker_env(program, EnvAssign)
    values = {a.name: (None if a.token.unresolved else a.value) for a in container_env}
    if outer_dq:
        # the host expanded the script, but what it left for the container (`\$LEN`, read here as `$LEN`) is the
        # container's: its `-e` variables first, then the host's (a name in both is rarely meant from the host)
        own = SplitContext(lambda name: values[name] if name in values else ctx.lookup(name), ctx.item, ctx.go)
    else:
        own = SplitContext(values.get, ctx.item, ctx.go)
    inner = split_text(script.text, base, own, depth + 1, outer_dq)
    ctx.refs.extend(own.refs)
    ctx.problems.extend(own.problems)
    run = parse_run([t.text for t in program])
    image = program[run.image] if run is not None else None  # its tag is the engine's release, as for `IMAGE ARGS`
    return [Command(c.tokens, tuple(container_env) + c.env, tuple(wrappers) + (shell,) + c.wrappers, image)
            for c in inner]


def split_text(text: str, base: Optional[list[tuple[int, int]]], ctx: SplitContext, depth: int,
               outer_dq: bool = False) -> list[Command]:
    items, problems = lex(text, base, k8s=ctx.item is not None, go=ctx.go, outer_dq=outer_dq)
    ctx.problems.extend(SplitProblem(m, s, e, ctx.item) for m, s, e in problems)
    return _build_commands(items, ctx, depth)


def split_shell(text: str, resolver: Optional[Resolver] = None, k8s: bool = False,
                shell: Optional[Resolver] = None, go: bool = False, defaults: bool = False,
                script: Optional[bool] = None) -> SplitResult:
    """Split a shell string into commands; spans are offsets into `text`.

    k8s=True also reads `$(NAME)` as a Kubernetes reference (use it for a
    string that came out of a Kubernetes command/args item). `shell`: the text is a Compose
    string, interpolated by Compose first (`resolver`), its shell then reading `shell`. go=True:
    Go template actions are references too (their values asked of `resolver` by gotemplate.lookup_key).
    defaults=True (a launcher script run as written): `${NAME:-default}` of a variable that
    neither the script nor `resolver` sets is its default, as the shell reads it. script: a shell
    reads the text (default: `defaults`), so its double-quoted `sh -c` strings are expanded by it first.
    """
    if not isinstance(text, str):
        return SplitResult(problems=(SplitProblem("not a string", 0, 0),))
    base, host = None, set()
    if shell is not None:
        text, base, host = compose_interpolated(text, resolver or no_resolver)
    ctx = SplitContext(shell_stage(resolver, shell, host), None, go, defaults)
    if script is not None:  # a shell reads the text itself (SkyPilot's `run:`), defaults taken or not
        ctx.script = script
    items, problems = lex(text, base, k8s=k8s, go=go)
    ctx.problems.extend(SplitProblem(m, s, e) for m, s, e in problems)
    try:
        commands = _build_commands(items, ctx, 0)
    except Exception as exc:  # defensive: odd input must never crash a lint run
        ctx.problems.append(SplitProblem(f"internal splitter error: {exc!r}", 0, len(text)))
        commands = []
    return SplitResult(tuple(commands), tuple(ctx.refs), tuple(ctx.problems), frozenset(ctx.unsure))


def commented(script: str, at: int) -> bool:
    """Whether a shell comment (`#` at the line's start or after a blank, outside quotes) hides position
    `at`: a `# pip install vllm==0.6.3` left above the real install names no installed version, and
    `echo "step #1" && pip install vllm==0.6.3` does."""
    quote, before, escaped = "", " ", False
    for ch in script[script.rfind("\n", 0, at) + 1:at]:
        if escaped:  # `\'` or `\#`: a plain character
            escaped = False
        elif ch == "\\" and quote != "'":
            escaped = True
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and before in " \t":
            return True
        before = ch
    return False
