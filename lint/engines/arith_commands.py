"""`(( EXPR ))` and `let EXPR...`: bash's arithmetic commands, which assign in the current shell.

bash evaluates the expression as `$(( ))` does and its assignment operators change the variable (bash manual, Shell
Arithmetic: `id++ id--` and `++id --id`, `= *= /= %= += -= <<= >>= &= ^= |=`; Conditional Constructs, `((...))`;
Bash Builtins, `let`). Read as a command before, `(( L++ ))` left L as it was and `((L=L*2))` set it to the text
`L*2` (a false CTX301 where `--max-model-len $L` followed). One update of one variable by integers this module
evaluates (arith.py: + - * / % and parentheses, every variable a known integer) gives its new value; any other
assignment in the expression (a comma list, `<<=`, an unset or unknown variable, which bash reads as 0 but the
environment may set) leaves the variables it assigns unknown, and inside a loop or branch, or after `&&`/`||`, every
one is unknown, as a plain assignment there is. An expression that assigns nothing (`(( i < 3 ))`) changes nothing.
"""
from __future__ import annotations

import re
from typing import Optional, Sequence

from ctxlint.lazyre import lazy_compile

from .arith import arithmetic
from .lex_words import Op, Word
from .shell_commands import may_update

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_LEADS = frozenset({"do", "then", "else", "{", "!"})
# one update: `++L`, `L--`, `L = EXPR`, `L += EXPR` (`==` is a comparison, never `=`)
_ONE = lazy_compile(rf"\s*(?:(\+\+|--)\s*({_NAME})|({_NAME})\s*(\+\+|--)|({_NAME})\s*([-+*/%]?)=(?!=)(.*))\s*", re.S)
# every variable an expression may assign (`a = b++`, `x <<= 2`, `i++, j--`)
# (an array element's, `L[0] = 3`, is the variable's: `$L` is L[0])
_ASSIGNED = lazy_compile(rf"({_NAME})(?:\[[^]]*\])?\s*(?:\+\+|--|(?:<<|>>|[-+*/%&^|])?=(?!=))|(?:\+\+|--)\s*({_NAME})")


def raw(word: Word) -> str:
    """A word as the arithmetic reads it: its characters, `$X` references as typed."""
    return "".join(run[0] for part in word.parts for run in part.runs)


def arith_command(texts: Sequence[str], ctx, unsure: bool) -> None:
    """Apply the expressions `texts` (one for `(( ))`, one a word for `let`) to the script's variables."""
    for text in texts:
        names = {a or b for a, b in _ASSIGNED.findall(text)}
        if not names:
            continue
        one = _ONE.fullmatch(text) if len(names) == 1 and "," not in text else None
        value = None if one is None or unsure else _updated(one, ctx)  # known only for one name
        for name in sorted(names):
            if _refused(name, ctx):
                continue  # `(( L=5 ))` with L readonly: it fails, L keeps its value (bash 5.2.15: `let` alike)
            ctx.local[name] = value
            if unsure:
                ctx.unsure.add(name)


def null_exits(words: Sequence[Word], semis: Sequence[int], ctx) -> bool:
    """Whether an arithmetic command (`(( ... ))`, `let`) surely expands `${A:?msg}` of an A the script set to "":
    bash writes msg and a non-interactive shell exits there, as for a command's word (word_expansion.py). `semis`:
    a `for (( e1; e2; e3 ))` head's `;` (the words before each), of which only e1 and e2 surely run before the body
    (bash manual, Looping Constructs: expr1, then expr2 until it is zero, expr3 after each run of the body); bash
    5.2.15 exits at `for ((i=${A:?x}; ...))` and `for ((i=0; i<${A:?x}; i++))` with A="", not at a `for ((...;
    i+=${A:?x}))` whose body breaks first. An A the script did not set (the caller's) is not known: no exit."""
    sure = words[:semis[1]] if len(semis) >= 2 else words
    for word in sure:
        for part in word.parts:
            if part.kind != "var" or part.style != "shell" or part.default is not None or part.name not in ctx.local:
                continue
            if "".join(run[0] for run in part.runs).startswith(f"${{{part.name}:?") and ctx.lookup(part.name) == "":
                return True
    return False


def _names(text: str) -> set:
    """The names an arithmetic text assigns."""
    return {a or b for a, b in _ASSIGNED.findall(text)}


def _refused(name: str, ctx) -> bool:
    """Is an arithmetic assignment to `name` refused as readonly (shell_readonly.refused: then bash keeps the value;
    a name that may be readonly, or another shell, leaves it unknown)?"""
    if not (ctx.readonly and name in ctx.readonly):
        return False
    from .shell_readonly import refused

    return refused(ctx, name)


def _updated(one, ctx):
    """The variable's new value (a string), or None when it is not decidable here."""
    return _new_value(one, ctx.lookup)


def _new_value(one, lookup):
    prefix, pre_name, post_name, postfix, name, op, expr = one.groups()
    if name is None:
        name = pre_name or post_name
        return arithmetic(f"$(({name} {'+' if (prefix or postfix) == '++' else '-'} 1))", lookup)
    if _ASSIGNED.search(expr):
        return None  # `L = M++`: M changes too
    return arithmetic(f"$(({name} {op} ({expr})))" if op else f"$(({expr}))", lookup)


def assigning_value(expr: str, lookup) -> tuple:
    """For `$(( expr ))`: whether the expression assigns, and then its value (a string) or None. bash's value of an
    assignment is the new value, of `L++` / `L--` the old one (bash manual, Shell Arithmetic: "id++ id-- variable
    post-increment and post-decrement"); one update of one known integer is evaluated, any other is unknown."""
    names = {a or b for a, b in _ASSIGNED.findall(expr)}
    if not names:
        return False, None
    one = _ONE.fullmatch(expr) if len(names) == 1 and "," not in expr else None
    if one is None:
        return True, None
    if one.group(4):  # `L++`: the value before the update, when the update is one ctxlint evaluates
        return True, arithmetic(f"$(({one.group(3)}))", lookup) if _new_value(one, lookup) is not None else None
    return True, _new_value(one, lookup)


def command_updates(words: Sequence[Word], first: str, ctx) -> Optional[list]:
    """What a command's words assign besides its plain assignments, from the values before it runs (the caller
    applies them after it: apply_updates): each `$(( ))` that assigns (`x=$(( L++ ))` sets x to 4 and L to 5),
    and an assignment to a variable with the integer attribute (`declare -i N=4*2` is 8; then `N+=1` adds, 9: bash
    manual, Bash Builtins, declare -i: "arithmetic evaluation is performed when the variable is assigned a value";
    Shell Parameters: with it, += adds). [(name, new value or None, whether a plain assignment of the command
    overrides it)], or None when a `$(( ))` assigns a readonly name: the command never runs. A value ctxlint cannot
    evaluate is unknown. `+i` drops the attribute; a function's `local -i` is its local's, gone at the return
    (shellfuncs.call). `first`: the command's first word, after `then`, `do` and the like."""
    if not may_update(words, first, ctx):
        return []  # the common case: nothing more to read
    out: list = []
    pending: dict = {}
    assigning: list = []  # the `$(( ))` texts that assign

    def lookup(name):
        return pending[name] if name in pending else ctx.lookup(name)

    def update(text, overridden):
        names = {a or b for a, b in _ASSIGNED.findall(text)}
        one = _ONE.fullmatch(text) if len(names) == 1 and "," not in text else None
        value = None if one is None else _new_value(one, lookup)
        for name in sorted(names):
            pending[name] = value
            out.append((name, value, overridden))

    for word in words:
        for part in word.parts:
            if part.kind == "cmd" and part.name.startswith("$((") and part.name.endswith("))") \
                    and _ASSIGNED.search(part.name):
                names = {a or b for a, b in _ASSIGNED.findall(part.name[3:-2])}
                if any(_refused(name, ctx) for name in sorted(names)):
                    # `x=$(( L++ ))` with L readonly: an expansion error, so bash (5.2.15, checked) runs nothing of
                    # the command, L keeps its value, x is not set, and the rest of the line is dropped as after a
                    # failed plain assignment (shell_readonly.py); the caller reads nothing of it
                    if ctx.bash and all(ctx.readonly.get(n) is True for n in names if n in ctx.readonly) \
                            and not (ctx.flow or ctx.conditional):
                        ctx.discard = True
                    return None
                update(part.name[3:-2], True)
                assigning.append(part.name)
    texts = [raw(w) for w in words]
    if out:
        # bash expands a command's words in order, each `$(( ))` assigning as it goes: in `x=$(( L++ )) y=$(( L++ ))`
        # y is 4097, in `vllm ... $(( L++ )) --x $L` the --x is 4097 (bash 5.2.15, checked), while the words here
        # are read with the values before the command. A name a `$(( ))` updates and the command reads again is
        # unknown in it and after it (before, y and --x were read as 4096): a value guessed is never one bash gives
        bare = [re.sub(rf"^{_NAME}\+?=", "", t) for t in texts]  # `L=$(( L++ ))`'s own L is no read (apply_updates)
        for text in assigning:  # each `$(( ))` that assigns is one read of its names (`L=L*2` reads L once)
            bare = [t.replace(text, " ") for t in bare]
        for name in {entry[0] for entry in out}:
            ref = lazy_compile(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])")
            reads = sum(len(ref.findall(t)) for t in bare) + sum(name in _names(text) for text in assigning)
            if reads > 1:
                ctx.local[name] = None
                if ctx.flow or ctx.conditional:
                    ctx.unsure.add(name)
                out = [(n, None if n == name else v, o) for n, v, o in out]
    lead = 0
    while lead < len(texts) and texts[lead] in _LEADS:  # `then N+=1`
        lead += 1
    # `export L=2*4096`, `readonly L+=1` assign as `declare` does: with the integer attribute, evaluated (8192; bash
    # manual, Bash Builtins, export/readonly take name=value; bash 5.2.15 checked; neither takes -i)
    declaring = lead < len(texts) and texts[lead] in ("declare", "typeset", "local", "export", "readonly")
    if declaring:
        options = [t for t in texts[lead + 1:] if re.fullmatch(r"[-+][a-zA-Z]+", t)]
        names = [t.split("=", 1)[0] for t in texts[lead + 1:] if re.fullmatch(rf"{_NAME}(?:\+?=.*)?", t, re.S)]
        if any(o[0] == "-" and "i" in o for o in options):
            ctx.integers.update(names)
            if ctx.flow or ctx.conditional:  # `true || declare -i L`: L may not have the attribute after it
                ctx.__dict__.setdefault("maybe_integers", set()).update(names)
        elif any(o[0] == "+" and "i" in o for o in options):
            ctx.integers.difference_update(names)
    rest = texts[lead + declaring:] if ctx.integers else []
    if not declaring and not all(re.fullmatch(rf"{_NAME}\+?=.*", t, re.S) for t in rest):
        rest = []  # `L=7 true`: an assignment before a command is the command's only (bash 5.2.15: L stays 4096)
    for text in rest:
        found = re.fullmatch(rf"({_NAME})(\+?)=(.*)", text, re.S)
        if found is None:
            if declaring:
                continue
            break  # the command's program: its arguments assign nothing
        name, plus, value = found.groups()
        if name in ctx.integers and not (ctx.readonly and name in ctx.readonly):
            if name in ctx.__dict__.get("maybe_integers", ()):
                pending[name] = None  # evaluated or kept as text, as the `declare -i` before ran or not
                out.append((name, None, False))
                continue
            update(f"{name} {plus}= {value}" if value.strip() else f"{name} = 0", False)
    return out


def apply_updates(updates: list, words: Sequence[Word], ctx, unsure: bool) -> None:
    """Set what command_updates found, after the command: a `$(( ))`'s update loses to the command's own
    assignment of the name (`L=$(( L++ ))` leaves L the old value, as bash assigns after expanding)."""
    own = {t.split("=", 1)[0].rstrip("+") for t in (raw(w) for w in words) if re.match(rf"{_NAME}\+?=", t)}
    for name, value, overridden in updates:
        if overridden and name in own:
            continue
        ctx.local[name] = None if unsure else value
        if unsure:
            ctx.unsure.add(name)


def arith_close(seq: list, pos: int):
    """The first `)` of the `))` typed together that closes the `((` whose second `(` is seq[pos], or None when a
    lone `)` closes it first (then the `((` are two subshells)."""
    depth = 0
    for i in range(pos + 1, len(seq) - 1):
        it = seq[i]
        if type(it) is Op and it.text == "(":
            depth += 1
        elif type(it) is Op and it.text == ")":
            if depth:
                depth -= 1
                continue
            after = seq[i + 1]
            return it if type(after) is Op and after.text == ")" and after.start == it.end else None
    return None
