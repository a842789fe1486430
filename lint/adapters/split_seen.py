"""A container's exec-form list or command string split, its engines detected and their arguments parsed, once per
run for the same inputs.

Trees repeat a container's `command` + `args` word for word (overlays, one manifest per environment, a chart's
copies), and splitting them (execform.split_list: expansion, prefixes, an `sh -c` script's shell) was ~7% of a warm
run's bytecodes. What split_list returns is a function of the items' texts, its flags and what its resolvers answer:
its tokens are placed inside the items (Token.item), never in a file, and every part of the result is frozen. So a
result is reused when the texts and flags are the same and each name the earlier split looked up gets the same
answer now: asking the names again in the order that split asked them follows the split step by step (it asks its
next name from the texts, the flags and the answers so far), so a reused result is the one a fresh split would give.
The resolvers must be lookups without side effects (a container's environment, a compose project's variables, Helm
values): each answer is compared, its type too (`1` is no `"1"`).

A command string a shell reads (`shell_seen`: a Compose `command:`, a SkyPilot `run:`) is kept the same way, when no
script file runs it with words of its own and it sources no file (shell_script.py's launcher scripts: the files it
reads are a run's state).

The engine's arguments of a command split so (`parse_seen`) are parsed once too: parse_invocation is a function of
the engine, the tokens, the environment, the launcher, the subcommand and where the arguments start, and returns
frozen records (a later step that changes the settings copies them: engines/config.py, int_eras.py). The tokens are
those of a reused split, the same objects (held beside the result, so their id is not reused meanwhile); the
environment is keyed by its items, in order (the parse reads its names in order too), when every value is a string
or None. The engines a command's tokens name (`detect_seen`) are kept by the same tokens and the image (each caller
gets a list of its own).

Kept in the run (run_classes.RunClasses.memo), never across runs; outside a run, nothing is kept.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from ctxlint.adapters.run_classes import current
from ctxlint.engines import parse_invocation, split_list, split_shell
from ctxlint.engines.detect import Detection, detect
from ctxlint.engines.result import Invocation
from ctxlint.engines.tokens import Resolver, SplitResult

_TABLE_MAX = 4096  # distinct lists a run keeps; a run with more starts again (a miss, never a wrong hit)
_RESOLVER, _SHELL = 0, 1


def split_seen(items: List[Any], resolver: Resolver, compose: bool = False, shell: Optional[Resolver] = None,
               go: bool = False, k8s: bool = False, argv: bool = False) -> SplitResult:
    """split_list(items, resolver, compose, shell, go, k8s, argv), reused within the run (see the module)."""
    run = current()
    if run is None or any(type(t) is not str for t in items):  # a number or null item: rare, split as is
        return split_list(items, resolver, compose=compose, shell=shell, go=go, k8s=k8s, argv=argv)
    table: Dict[tuple, Tuple[list, SplitResult]] = run.memo.setdefault("split_seen", {})
    key = (tuple(items), compose, shell is not None, go, k8s, argv)
    known = table.get(key)
    asks = (resolver, shell)
    if known is not None and _same_answers(known[0], asks):
        return known[1]
    trace: List[Tuple[int, str, Any]] = []
    result = split_list(items, _traced(resolver, _RESOLVER, trace), compose=compose,
                        shell=_traced(shell, _SHELL, trace) if shell is not None else None, go=go, k8s=k8s,
                        argv=argv)
    if len(table) >= _TABLE_MAX:
        table.clear()
    table[key] = (trace, result)
    return result


def shell_seen(text: str, resolver: Resolver, k8s: bool, shell: Optional[Resolver], go: bool, defaults: bool,
               script: Optional[bool]) -> SplitResult:
    """split_shell(text, resolver, k8s=k8s, shell=shell, go=go, defaults=defaults, script=script), reused within the
    run (see the module)."""
    run = current()
    if run is None:
        return split_shell(text, resolver, k8s=k8s, shell=shell, go=go, defaults=defaults, script=script)
    table: Dict[tuple, Tuple[list, SplitResult]] = run.memo.setdefault("shell_seen", {})
    key = (text, k8s, shell is not None, go, defaults, script)
    known = table.get(key)
    if known is not None and _same_answers(known[0], (resolver, shell)):
        return known[1]
    trace: List[Tuple[int, str, Any]] = []
    result = split_shell(text, _traced(resolver, _RESOLVER, trace), k8s=k8s,
                         shell=_traced(shell, _SHELL, trace) if shell is not None else None, go=go,
                         defaults=defaults, script=script)
    if len(table) >= _TABLE_MAX:
        table.clear()
    table[key] = (trace, result)
    return result


def _traced(ask: Resolver, which: int, trace: List[Tuple[int, str, Any]]) -> Callable[[str], Any]:
    def traced(name: str) -> Any:
        answer = ask(name)
        trace.append((which, name, answer))
        return answer
    return traced


def _same_answers(trace: List[Tuple[int, str, Any]], asks: Tuple[Resolver, Optional[Resolver]]) -> bool:
    for which, name, answer in trace:
        now = asks[which](name)  # type: ignore[misc] - a shell answer is traced only when `shell` was given
        if now is not answer and (type(now) is not type(answer) or now != answer):
            return False
    return True


def parse_seen(engine: str, tokens: tuple, env: Mapping[str, Optional[str]], launcher: Optional[str],
               subcommand: Optional[str], start: int) -> Invocation:
    """parse_invocation(engine, tokens, env, launcher, subcommand, start), reused within the run (see the module)."""
    run = current()
    if run is None or type(tokens) is not tuple or any(v is not None and type(v) is not str for v in env.values()):
        return parse_invocation(engine, tokens, env, launcher, subcommand, start)
    table: Dict[tuple, Tuple[tuple, Invocation]] = run.memo.setdefault("parse_seen", {})
    key = (engine, id(tokens), launcher, subcommand, start, tuple(env.items()))
    known = table.get(key)
    if known is not None and known[0] is tokens:
        return known[1]
    inv = parse_invocation(engine, tokens, env, launcher, subcommand, start)
    if len(table) >= _TABLE_MAX:
        table.clear()
    table[key] = (tokens, inv)
    return inv


def detect_seen(tokens: tuple, image: Optional[str], args_only: bool) -> List[Detection]:
    """detect(tokens, image, args_only=args_only), reused within the run for the same tokens of a reused split (held
    beside the result) and the same image: a function of the tokens' texts and references, the image and the flag."""
    run = current()
    if run is None or type(tokens) is not tuple or (image is not None and type(image) is not str):
        return detect(tokens, image, args_only=args_only)
    table: Dict[tuple, Tuple[tuple, List[Detection]]] = run.memo.setdefault("detect_seen", {})
    key = (id(tokens), image, args_only)
    known = table.get(key)
    if known is None or known[0] is not tokens:
        if len(table) >= _TABLE_MAX:
            table.clear()
        known = table[key] = (tokens, detect(tokens, image, args_only=args_only))
    return list(known[1])
