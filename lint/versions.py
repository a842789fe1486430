"""Engine versions, compared the PEP 440 way without the `packaging` dependency.

Versions come from manifests and image tags: "0.5.21", "v0.11.0",
"0.19.1rc1.dev301+g60995c05b", "0.4.5.post2", "3.3.6-dev0". Anything that is
not a version ("latest", "nightly", "main") parses to None, which rules treat
as unknown, never as "not affected".
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Optional, Tuple

from ctxlint.lazyre import lazy_compile

_VERSION = lazy_compile(
    r"""^\s*v?(?P<release>\d+(?:\.\d+)*)
        (?:[-_.]?(?P<pre>a|alpha|b|beta|rc|c|pre|preview)[-_.]?(?P<pre_n>\d*))?
        (?:[-_.]?(?:post|rev|r)[-_.]?(?P<post>\d*)|-(?P<post_implicit>\d+))?
        (?:[-_.]?dev[-_.]?(?P<dev>\d*))?
        (?:\+[a-z0-9]+(?:[-_.][a-z0-9]+)*)?\s*$""",
    re.IGNORECASE | re.VERBOSE)
_PRE = {"a": 0, "alpha": 0, "b": 1, "beta": 1, "c": 2, "rc": 2, "pre": 2, "preview": 2}
_INF = float("inf")


class Version:
    """A parsed version; ordering follows PEP 440 (dev < pre < final < post)."""

    def __init__(self, text: str, release: Tuple[int, ...], pre: Optional[Tuple[int, int]],
                 post: Optional[int], dev: Optional[int]) -> None:
        self.text, self.release, self.pre, self.post, self.dev = text, release, pre, post, dev
        self._sort_key = self._compute_key()  # compared hundreds of times per deployment: once

    def _key(self) -> tuple:
        return self._sort_key

    def _compute_key(self) -> tuple:
        release = self.release
        while len(release) > 1 and release[-1] == 0:  # 1.0 == 1.0.0
            release = release[:-1]
        # A dev release of a final version sorts before its pre-releases.
        if self.pre is None and self.post is None and self.dev is not None:
            pre: tuple = (-_INF, 0)
        else:
            pre = self.pre if self.pre is not None else (_INF, 0)
        post = self.post if self.post is not None else -_INF
        dev = self.dev if self.dev is not None else _INF
        return release, pre, post, dev

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Version) and self._key() == other._key()

    # All four written out rather than by functools.total_ordering: the capacity rules compare
    # versions ~80,000 times on the real corpus, and its __le__ is __lt__ then __eq__.
    def __lt__(self, other: "Version") -> bool:
        return self._sort_key < other._sort_key

    def __le__(self, other: "Version") -> bool:
        return self._sort_key <= other._sort_key

    def __gt__(self, other: "Version") -> bool:
        return self._sort_key > other._sort_key

    def __ge__(self, other: "Version") -> bool:
        return self._sort_key >= other._sort_key

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Version({self.text!r})"

    def __str__(self) -> str:
        return self.text


def parse_version(value: Any) -> Optional[Version]:
    """A Version, or None when the text is not one (tags like "latest", empty, junk)."""
    if type(value) is str:  # the common case, first: ~100,000 calls on the real corpus
        return _parse_text(value)
    if isinstance(value, bool) or value is None:
        return None
    return _parse_text(str(value))


@lru_cache(maxsize=4096)  # the same few tags are parsed ~1,300 times a file; Version is never mutated
def _parse_text(text: str) -> Optional[Version]:
    # Most texts are a bare release ("0.8.5", "v0.11.0") or no version at all ("latest"): both are read
    # without _VERSION, whose compile (~1 ms, the largest of a run's patterns) a run then pays only for
    # a tag with a pre-, post- or dev part. The shortcuts give what the pattern gives (test_versions).
    digits = text[1:] if text[:1] in ("v", "V") else text
    if digits.isascii() and digits.replace(".", "").isdigit() and "" not in digits.split("."):
        return Version(text, tuple(int(p) for p in digits.split(".")), None, None, None)
    bare = text.lstrip()  # the pattern's `\s*`: str.isspace's characters, as strip's
    if not (bare[1:2] if bare[:1] in ("v", "V") else bare[:1]).isdecimal():  # `v?` then `\d`
        return None
    m = _VERSION.match(text)
    if not m:
        return None
    release = tuple(int(p) for p in m.group("release").split("."))
    pre = None
    if m.group("pre"):
        pre = (_PRE[m.group("pre").lower()], int(m.group("pre_n") or 0))
    post = None
    if m.group("post") is not None or m.group("post_implicit") is not None:
        post = int(m.group("post") or m.group("post_implicit") or 0)
    dev = int(m.group("dev") or 0) if m.group("dev") is not None else None
    return Version(text.strip(), release, pre, post, dev)


def in_range(version: Version, introduced: Optional[str], fixed: Optional[str]) -> bool:
    """introduced <= version < fixed; a missing bound is open."""
    low = parse_version(introduced) if introduced else None
    high = parse_version(fixed) if fixed else None
    return (low is None or version >= low) and (high is None or version < high)
