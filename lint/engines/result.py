"""Result types of parse_invocation: settings with spans, and problems as data."""
from __future__ import annotations

from typing import Any, Optional

from ..records import field, record
from .tokens import VarRef

Span = tuple[int, int]


@record(frozen=True)
class Setting:
    value: Any
    raw_text: str  # the value as the engine receives it
    token_index: Optional[int]  # index of the value token (None for env/default)
    value_span: Optional[Span]  # source span of the value text (None for env/default)
    origin: str  # "flag" | "env" | "default" | "config-file" | "launcher" (EngineSpec.launcher_settings)
    flag_spelling: Optional[str]  # as typed (`-tp`, `--max_model_len`) or the env var name
    flag_index: Optional[int] = None  # index of the flag token
    flag_span: Optional[Span] = None
    item: Optional[int] = None  # list form: the item value_span is in
    note: str = ""  # how the value was read (integer suffixes, abbreviations)
    flag_item: Optional[int] = None  # list form: the item flag_span is in


@record(frozen=True)
class Problem:
    """An unknown flag, a bad value, an unresolved reference, a duplicate."""

    message: str
    token_index: Optional[int]
    span: Optional[Span]
    item: Optional[int] = None
    flag: Optional[str] = None  # canonical name or the typed spelling
    other_index: Optional[int] = None  # duplicates: index of the earlier flag token
    other_span: Optional[Span] = None
    ref: Optional[VarRef] = None
    fix: Optional[tuple[str, str]] = None  # (text at span, its mechanical replacement): see findings.Fix
    since: Optional[str] = None  # the engine refuses the value from this release on; earlier ones read it
    until: Optional[str] = None  # the engine refuses the value before this release; it and later ones read it
    effect: str = ""  # what a release that refuses does, when it is no exit at startup (engine_refusals.refusal)

    def refused_by(self, release: Optional[str]) -> Optional[bool]:
        """Does this engine release refuse the value? None when the release is not known and the
        answer depends on it. With both `since` and `until`, the releases from `since` until `until` refuse it
        (a flag dropped and later restored, FlagSpec.restored_in)."""
        if self.since is not None and self.until is not None:
            after, later = from_release(self.since, release), from_release(self.until, release)
            return None if after is None or later is None else after and not later
        if self.until is not None:
            later = from_release(self.until, release)
            return None if later is None else not later
        return True if self.since is None else from_release(self.since, release)


def from_release(since: str, release: Optional[str]) -> Optional[bool]:
    """Is `release` the release `since` or a later one? None when it is not known."""
    from ctxlint.versions import parse_version

    parsed = parse_version(release) if release else None
    if parsed is None:
        return None
    at = parse_version(since)  # its release candidates count too (`v0.10.0rc1`)
    return parsed >= at or parsed.release[:len(at.release)] == at.release


@record(frozen=True)
class Invocation:
    engine: str
    launcher: Optional[str]
    subcommand: Optional[str]
    model: Optional[Setting]
    settings: dict[str, Setting]
    positionals: tuple[int, ...] = ()
    unknown_flags: tuple[Problem, ...] = ()
    duplicates: tuple[Problem, ...] = ()
    errors: tuple[Problem, ...] = ()
    unresolved: tuple[Problem, ...] = ()
    config_file: Optional[Setting] = None
    engine_env: dict[str, str] = field(default_factory=dict)
    # the token index of the word naming the model when its value is not known (a `--model` value, or the
    # positional an engine reads as its model): engines/model_folder.py may still read its folder name
    model_word: Optional[int] = None

    def value(self, name: str, default: Any = None) -> Any:
        s = self.settings.get(name)
        return default if s is None else s.value

    @property
    def disaggregation_role(self) -> Optional[str]:
        """"prefill", "decode", "both" or None, from whichever marker the engine uses."""
        for key in ("disaggregation_mode", "role", "server_role"):
            v = self.value(key)
            if isinstance(v, str) and v.lower() in ("prefill", "decode", "context", "generation"):
                return {"context": "prefill", "generation": "decode"}.get(v.lower(), v.lower())
        if self.value("is_prefill_worker") is True:
            return "prefill"
        if self.value("is_decode_worker") is True:
            return "decode"
        kv = self.value("kv_transfer_config")
        if isinstance(kv, dict) and isinstance(kv.get("kv_role"), str):
            return {"kv_producer": "prefill", "kv_consumer": "decode", "kv_both": "both"}.get(kv["kv_role"])
        return None
