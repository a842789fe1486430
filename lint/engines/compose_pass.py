"""Docker Compose's own pass over a command before any shell sees it: `$$` becomes `$` (the
container's shell variable), `${NAME:-default}` and `$NAME` take the file's value, and a name
Compose takes from the host stays unknown, never the container's variable of the same name."""
from __future__ import annotations

from typing import Optional

from ctxlint.lazyre import lazy_compile

from .tokens import Resolver

# `$$`, `${NAME}` / `${NAME:-default}` (and `-`, `?`, `+` forms), `$NAME`: shellwords reads list items with it too
COMPOSE_REF = lazy_compile(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def compose_interpolated(text: str, resolver: Resolver, defaults: bool = False) -> tuple[str, list[tuple[int, int]],
                                                                                   set[str]]:
    """`text` as Compose hands it on: `$$` is a literal `$` (for the container's shell), `${NAME:-d}`
    and `$NAME` take the file's value (`resolver`); with the span of `text` each character came from,
    and the names Compose takes from the host (not known: kept as written, never the container's).
    `defaults`: a name the resolver does not know takes its own `:-`/`-` default (the host as unknown, as
    adapters/compose.py reads the rest of a service), unless the default expands something itself."""
    out: list[tuple[str, int, int]] = []
    host: set[str] = set()
    pos = 0
    for m in COMPOSE_REF.finditer(text):
        out.extend((c, k, k + 1) for k, c in enumerate(text[pos:m.start()], pos))
        if m.group(0) == "$$":
            out.append(("$", m.start(), m.end()))
        else:
            name = m.group(1) or m.group(4)
            value = None if "+" in (m.group(2) or "") else resolver(name)
            if value is None and defaults and m.group(2) in (":-", "-") and "$" not in m.group(3):
                value = m.group(3)
            if value is None:
                host.add(name)
                out.extend((c, k, k + 1) for k, c in enumerate(m.group(0), m.start()))
            else:
                out.extend((c, m.start(), m.end()) for c in value)
        pos = m.end()
    out.extend((c, k, k + 1) for k, c in enumerate(text[pos:], pos))
    return "".join(c for c, _, _ in out), [(s, e) for _, s, e in out], host


def shell_stage(resolver: Optional[Resolver], shell: Optional[Resolver], host: set[str]) -> Optional[Resolver]:
    """The container's shell reads its own environment, never a host variable Compose left unset."""
    if shell is None:
        return resolver
    return lambda name: None if name in host else shell(name)
