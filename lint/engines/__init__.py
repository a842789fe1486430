"""Engine command lines: shell splitting with spans, engine detection, flag specs, parsing.

Typical use::

    res = split_list(command + args, env.get)       # or split_shell(text, env.get)
    # detect: from ctxlint.engines.detect import detect
    for cmd in res.commands:
        for d in detect(cmd.tokens, image, args_only=not command):
            inv = parse_invocation(d.engine, cmd.tokens, env, d.launcher, d.subcommand, d.args_start)

The names below are loaded from their modules on first use (PEP 562): importing one submodule
(`ctxlint.engines.suffixes`, which a native manifest's rules need) must not pull in the shell lexer,
the parser and every flag table behind this package's front door (~40 modules, issue 15).

`detect` the function is not offered here: it shares its name with the submodule `detect`, and whichever
import of `ctxlint.engines.detect` came first would decide what `from ctxlint.engines import detect`
returns. Import it from `ctxlint.engines.detect`.
"""
from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {
    "apply_config": "config", "Detection": "detect", "parse_invocation": "parse",
    "Invocation": "result", "Problem": "result", "Setting": "result", "split_list": "execform",
    "engine_from_image": "images", "image_entrypoint_is_engine": "images", "split_shell": "shellwords",
    "ENGINES": "specs", "spec_for": "specs", "IntReading": "suffixes", "read_int": "suffixes",
    "Command": "tokens", "EnvAssign": "tokens", "SplitProblem": "tokens", "SplitResult": "tokens",
    "Token": "tokens", "VarRef": "tokens",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # the next lookup is a plain module attribute
    return value
