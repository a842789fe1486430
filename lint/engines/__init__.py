"""Engine command lines: shell splitting with spans, engine detection, flag specs, parsing.

Typical use::

    res = split_list(command + args, env.get)       # or split_shell(text, env.get)
    for cmd in res.commands:
        for d in detect(cmd.tokens, image, args_only=not command):
            inv = parse_invocation(d.engine, cmd.tokens, env, d.launcher, d.subcommand, d.args_start)
"""
from __future__ import annotations

from .config import apply_config
from .detect import Detection, detect
from .parse import parse_invocation
from .result import Invocation, Problem, Setting
from .execform import split_list
from .images import engine_from_image, image_entrypoint_is_engine
from .shellwords import split_shell
from .specs import ENGINES, spec_for
from .suffixes import IntReading, read_int
from .tokens import Command, EnvAssign, SplitProblem, SplitResult, Token, VarRef

__all__ = [
    "Command", "Detection", "apply_config", "ENGINES", "EnvAssign", "IntReading", "Invocation", "Problem", "Setting",
    "SplitProblem", "SplitResult", "Token", "VarRef", "detect", "engine_from_image",
    "image_entrypoint_is_engine", "parse_invocation", "read_int", "spec_for", "split_list", "split_shell",
]
