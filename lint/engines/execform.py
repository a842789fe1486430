"""Kubernetes and Compose exec-form lists (`command` + `args`): each item one word, as the container
runtime passes it, with `$(NAME)` (Kubernetes) or `${NAME}` (Compose) references expanded, Go template
actions read as references where the operator renders them (KServe), and an `sh -c SCRIPT` item handed to
the shell splitter (shellwords.py)."""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

from .command_prefixes import shell_script_index, strip_prefixes
from .compose_pass import COMPOSE_REF as _COMPOSE_REF, compose_interpolated, shell_stage
from .gotemplate import OPEN, VALUE, action_at, lookup_key
from .shellwords import split_text
from .tokens import Command, EnvAssign, Resolver, SplitProblem, SplitResult, Token, VarRef, typed
from .word_expansion import SplitContext, no_resolver

_K8S_REF = lazy_compile(r"\$\$|\$\(([-._A-Za-z][-._A-Za-z0-9]*)\)")
# A shell-style `${NAME}` or `$NAME` in a Kubernetes exec-form item: Kubernetes expands only `$(NAME)` in command
# and args ("Variable references $(VAR_NAME) are expanded using the container's environment",
# kubernetes/kubernetes@815c3d8f70473678341a03abc0a6fb7bab000d3c:staging/src/k8s.io/api/core/v1/types.go,
# Container.Args; tryReadVariableName reads only `$(`, kubernetes/kubernetes@02604f7db394870a4f9af9deb7e457274a0aa7ee:
# third_party/forked/golang/expansion/expand.go) and no shell runs, so the engine gets the text as written: a
# reference of style "k8s-literal" whose value is that text (an engine that refuses it still refuses it: CTX301).
_SHELL_STYLE = lazy_compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def _expanded_item(text: str, index: int, ctx: SplitContext, compose: bool, k8s: bool = False) -> Token:
    """One list item as one token, with Kubernetes `$(NAME)` (or compose `${NAME}`) expanded, and with
    go=True its Go template actions read as gotemplate.py says: a value is a reference, a control action
    renders nothing, and an item holding a `{{ if }}` is there only when it holds."""
    out: list[tuple[str, int, int]] = []
    refs: list[VarRef] = []
    pos = 0
    at = text.find("{{") if ctx.go else -1
    while at >= 0:
        found = action_at(text, at)
        if found is not None:
            _item_refs(text, pos, at, index, ctx, compose, out, refs, k8s)
            end, body, kind = found
            if kind == OPEN:
                refs.append(VarRef(body, "go-if", at, end, None, None, index))
            elif kind == VALUE:
                value = ctx.lookup(lookup_key(body))
                refs.append(VarRef(body, "go", at, end, value, None, index))
                if value is None:  # the action as typed, at its own positions
                    out.extend((c, k, k + 1) for k, c in enumerate(text[at:end], at))
                else:
                    out.extend((c, at, end) for c in value)
            pos = end  # `{{ else }}` and `{{ end }}` render nothing
        at = text.find("{{", at + 2 if found is None else found[0])
    _item_refs(text, pos, len(text), index, ctx, compose, out, refs, k8s)
    ctx.refs.extend(refs)
    return Token("".join(c for c, _, _ in out), 0, len(text),
                 tuple(s for _, s, _ in out), tuple(e for _, _, e in out), tuple(refs), index)


def _item_refs(text: str, pos: int, stop: int, index: int, ctx: SplitContext, compose: bool,
               out: list[tuple[str, int, int]], refs: list[VarRef], k8s: bool = False) -> None:
    """text[pos:stop] onto `out`, its `$(NAME)` (compose: `${NAME}`) references expanded; `k8s`: a shell-style
    reference in the text Kubernetes passes as written is recorded, with that text as its value."""
    for m in (_COMPOSE_REF if compose else _K8S_REF).finditer(text, pos, stop):
        if k8s:
            _literal_refs(text, pos, m.start(), index, refs)
        out.extend((c, k, k + 1) for k, c in enumerate(text[pos:m.start()], pos))
        if m.group(0) == "$$":  # both escape a literal `$` as `$$`
            out.append(("$", m.start(), m.end()))
        else:
            name = m.group(1) or (m.group(4) if compose else None)
            default = m.group(3) if compose and m.group(2) in (":-", "-") else None
            # `${NAME:+word}` depends on whether the host sets NAME: never guessed.
            value = None if compose and "+" in (m.group(2) or "") else ctx.lookup(name)
            refs.append(VarRef(name, "shell" if compose else "k8s", m.start(), m.end(), value, default, index))
            chunk = m.group(0) if value is None else value
            if value is None:
                out.extend((c, k, k + 1) for k, c in enumerate(chunk, m.start()))
            else:
                out.extend((c, m.start(), m.end()) for c in chunk)
        pos = m.end()
    if k8s:
        _literal_refs(text, pos, stop, index, refs)
    out.extend((c, k, k + 1) for k, c in enumerate(text[pos:stop], pos))


def _literal_refs(text: str, pos: int, stop: int, index: int, refs: list[VarRef]) -> None:
    if "$" in text[pos:stop]:
        refs.extend(VarRef(m.group(1) or m.group(2), "k8s-literal", m.start(), m.end(), m.group(0), None, index)
                    for m in _SHELL_STYLE.finditer(text, pos, stop))


def split_list(items: list[object], resolver: Optional[Resolver] = None, compose: bool = False,
               shell: Optional[Resolver] = None, go: bool = False, k8s: bool = False,
               argv: bool = False) -> SplitResult:
    """Split a Kubernetes/compose exec-form list (`command` + `args` joined).

    Token spans are offsets inside the item named by `Token.item`. compose=True expands
    compose's `${NAME}` references in each item instead of Kubernetes' `$(NAME)`; go=True reads Go
    template actions as references too (see split_shell); k8s=True (Kubernetes, no shell) records each `${NAME}`
    or `$NAME`, which Kubernetes passes as written, as a reference whose value is its own text. argv=True: the
    items are another program's arguments (an image's ENTRYPOINT runs them), so `sh -c` or `exec` is no shell
    nor prefix of theirs: one command of every item as typed.
    """
    if not isinstance(items, (list, tuple)):
        return SplitResult(problems=(SplitProblem("not a list", 0, 0),))
    texts = ["" if x is None else (x if isinstance(x, str) else _scalar(x)) for x in items]
    plain = [typed(t, i) for i, t in enumerate(texts)]
    head = strip_prefixes(list(plain), [], [])
    idx = None if argv else shell_script_index(head)
    if idx is None and not any("$" in t or go and "{{" in t for t in texts):
        return _words(plain, argv)
    ctx = SplitContext(resolver, None, go)
    try:
        if idx is not None:
            script_item = head[idx].item or 0
            from .shell_set import c_string_words  # `[sh, -c, SCRIPT, _, a, b]`: its `$@` is a b, as expanded

            words = list(head[:idx + 2])
            for t in head[idx + 2:]:
                ctx.item = t.item
                words.append(_expanded_item(t.text, t.item, ctx, compose, k8s and not compose)
                             if "$" in t.text or go and "{{" in t.text else t)
            ctx.positional = c_string_words(words, idx)
            ctx.item = script_item
            if compose and shell is not None:  # Compose interpolates the item, then the shell runs it
                text, base, host = compose_interpolated(texts[script_item], ctx.lookup)
                ctx.resolver = shell_stage(resolver, shell, host) or no_resolver
                commands = split_text(text, base, ctx, 1)
            else:
                commands = split_text(texts[script_item], None, ctx, 1)
            shell = " ".join(t.text for t in head[:idx])
            commands = [Command(c.tokens, c.env, (shell,) + c.wrappers, c.image, c.exported, c.arm,
                                image_gpus=c.image_gpus, branch=c.branch, background=c.background)
                        for c in commands]
        else:
            tokens = []
            for i, t in enumerate(texts):
                ctx.item = i
                # no `$` (nor a Go action's `{{`), no reference: the item as typed
                tokens.append(_expanded_item(t, i, ctx, compose, k8s and not compose)
                              if "$" in t or go and "{{" in t else plain[i])
            env: list[EnvAssign] = []
            wrappers: list[str] = []
            # Exec form runs no shell: only an explicit `env A=B` sets variables.
            program = tokens
            if tokens and tokens[0].text in ("env", "/usr/bin/env", "exec", "nohup") and not argv:
                program = strip_prefixes(tokens, env, wrappers)
            commands = [Command(tuple(program), tuple(env), tuple(wrappers))] if program else []
    except Exception as exc:  # defensive: report instead of raising
        ctx.problems.append(SplitProblem(f"internal splitter error: {exc!r}", 0, 0))
        commands = []
    return SplitResult(tuple(commands), tuple(ctx.refs), tuple(ctx.problems), frozenset(ctx.unsure))


def _words(tokens: list[Token], argv: bool) -> SplitResult:
    """split_list's exec form when no item holds a reference (nor a Go action) and no shell runs a script: each
    item its own token as typed, no reference, no problem, so no SplitContext (most manifests' lists)."""
    env: list[EnvAssign] = []
    wrappers: list[str] = []
    try:
        program = tokens
        if tokens and tokens[0].text in ("env", "/usr/bin/env", "exec", "nohup") and not argv:
            program = strip_prefixes(tokens, env, wrappers)
        commands = (Command(tuple(program), tuple(env), tuple(wrappers)),) if program else ()
    except Exception as exc:  # defensive, as split_list's
        return SplitResult(problems=(SplitProblem(f"internal splitter error: {exc!r}", 0, 0),))
    return SplitResult(commands)


def _scalar(x: object) -> str:
    # YAML may hand us ints/bools for items like `- 8`; argv sees their text.
    if isinstance(x, bool):
        return "true" if x else "false"
    return str(x)
