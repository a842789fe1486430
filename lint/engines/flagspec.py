"""The shape of a per-engine flag table.

Each engine module (flags_vllm, flags_sglang, ...) builds an EngineSpec from
FlagSpec rows. The parser only reads these tables, so adding a flag never
touches parsing code; `with_defaults` lays a table's defaults under a command's settings.
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Any, Optional

from ..records import field, record
from .result import Setting

# Value kinds: "int", "float", "str", "bool", "json", "list" (nargs "+"), "choice".
# takes: "none" (store_true / BooleanOptionalAction), "one", "optional" (nargs "?"), "many" (nargs "+"),
# "any" (nargs "*": no value is a value too, the empty list).


@record(frozen=True)
class FlagSpec:
    name: str  # canonical snake_case field name, as the engine's config calls it
    spellings: tuple[str, ...]
    kind: str = "str"
    default: Any = None
    takes: str = "one"
    negatives: tuple[str, ...] = ()  # spellings that set a bool to False (`--no-x`)
    env: tuple[str, ...] = ()  # env vars the engine reads for this flag
    int_rule: Optional[str] = None  # overrides the engine's int rule (see suffixes.read_int)
    choices: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # what the linter uses it for: "context", "kv_pool", "role", ...
    doc: str = ""  # source / meaning, with [U] when not re-read in the engine's code
    # kind "json": before this release the engine read a value that is no JSON object as KEY=INT pairs
    # (vLLM's deprecated nullable_kvs; `--limit-mm-per-prompt image=1`), and it refuses them since
    kvs_until: Optional[str] = None
    # kind "json": from this release the engine expands bare human-readable numbers (`80m`, `1K`) in the JSON
    # before reading it (vLLM's dataclass-typed config flags; engines/json_suffixes.py); earlier ones refuse them
    json_suffixes_since: Optional[str] = None
    # kind "bool": before this release the switch also took `=true` / `=false` (vLLM's StoreBoolean,
    # nargs "?"), refused since it became a BooleanOptionalAction switch
    explicit_until: Optional[str] = None
    # (release, value): before this release the default was `value` (trtllm-serve's --backend before 1.0);
    # default_at resolves it by release, as Problem.refused_by resolves a value refused since a release
    default_until: Optional[tuple[str, Any]] = None
    # The first release whose parser has no such flag: argparse exits there ("unrecognized arguments"), and the
    # setting does nothing (engines/parse.py reports it, CTX301). `instead`: what those releases take for it.
    removed_in: Optional[str] = None
    instead: str = ""
    # The first release whose parser has the flag again after removed_in (vLLM 0.33's `--disable-log-requests`, the
    # inverse EnableDisableAction gives `--enable-log-requests`): refused only from removed_in until it
    restored_in: Optional[str] = None
    # kind "int": the rule earlier releases read the value with, oldest first: ((release, rule), ...) says "before
    # `release`, `rule`" (suffixes.read_int), int_rule from the last release on. vLLM's --max-model-len was a plain
    # int before its human-readable suffixes, then took `auto` later still (engines/int_eras.py reports the text an
    # earlier release refuses or reads otherwise).
    int_eras: tuple[tuple[str, str], ...] = ()
    # ((spelling, release), ...): spellings (in `spellings` or `negatives`) the engine's parser has only from
    # `release` on, an alias added later; earlier releases exit on it (flag_values.late_spellings, CTX301)
    spelled_since: tuple[tuple[str, str], ...] = ()
    # ((choice, release), ...): choices (in `choices`) the engine's parser has only from `release` on; earlier
    # releases exit on them ("invalid choice"; flag_values.late_choices)
    choices_since: tuple[tuple[str, str], ...] = ()

    def gone_at(self, release: Optional[str]) -> Optional[bool]:
        """Has this engine release dropped the flag (removed_in, and not restored_in)? None when the release is not
        known."""
        if self.removed_in is None:
            return False
        from .result import from_release

        gone = from_release(self.removed_in, release)
        if gone and self.restored_in is not None:
            return not from_release(self.restored_in, release)
        return gone

    def default_at(self, release: Optional[str]) -> tuple[Any, ...]:
        """The default of this engine release: one value; each release's (the earlier first) when the release
        is not known, or is a pre-release of the one the default changed at (it landed during them)."""
        if self.default_until is None:
            return (self.default,)
        from ctxlint.versions import parse_version

        since, before = self.default_until
        parsed, at = parse_version(release) if release else None, parse_version(since)
        if parsed is None or ((parsed.pre is not None or parsed.dev is not None) and
                              _final(parsed.release) == _final(at.release)):
            return (before, self.default)
        return (self.default,) if parsed >= at else (before,)


def _final(release: tuple[int, ...]) -> tuple[int, ...]:
    """A release without its trailing zeros (1.0 is 1.0.0)."""
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    return release


@record(frozen=True)
class EngineEnv:
    """An environment variable that changes engine behaviour but is no flag."""

    name: str
    kind: str = "str"
    default: Any = None
    doc: str = ""


@record(frozen=True)
class EngineSpec:
    engine: str
    flags: tuple[FlagSpec, ...]
    int_rule: str = "argparse"
    float_rule: str = "argparse"
    underscore_equals_dash: bool = False  # vLLM's FlexibleArgumentParser rewrites `--a_b` to `--a-b`
    # The release from which the engine parses with a copy of vLLM's FlexibleArgumentParser (`--a_b` read as `--a-b`,
    # `--json-arg.key value` as JSON; underscore_equals_dash and dotted_json): earlier ones are plain argparse and
    # exit on such words (LMDeploy from 0.9.2)
    flexible_since: Optional[str] = None
    allow_abbrev: bool = False  # argparse prefix matching (`--tp` for `--tp-size`)
    attached_short: bool = False  # `-O3`-style single-letter flag with glued value
    # llama.cpp looks each word up whole (`--ctx-size=8192` names no flag) and exits on it; the others split at `=`
    splits_equals: bool = True
    env_prefix_all: bool = False  # TGI: every flag also read from its SCREAMING_CASE env var
    env_empty_unset: bool = False  # an env var set to "" is no value (vllm_tgis_adapter: `if not env_val`)
    engine_env: tuple[EngineEnv, ...] = ()
    config_flags: tuple[str, ...] = ()  # canonical names whose value is a config file path
    config_overrides_cli: bool = False  # TRT-LLM: extra_llm_api_options keys beat the CLI
    dotted_json: bool = False  # vLLM: `--hf-overrides.rope_scaling.factor 4` sets a JSON key
    # Settings the launcher passes to the engine itself, whatever its command line says (its own code, no flag):
    # Dynamo's TRT-LLM worker runs the PyTorch backend. Read as stated (origin "launcher"); a config file beats them.
    launcher_settings: tuple[tuple[str, Any], ...] = ()
    # Config-file keys (snake_case) known to be no argument of this parser: another tool's (SGLang's benchmark
    # scripts'). The config file turns every key into a flag, so the engine exits on one (engines/config.py).
    foreign_keys: frozenset = frozenset()
    # The engine's own launcher parses this table's flags and exits on any other: another engine's flag given to it
    # is refused (engines/foreign_flags.py; not Dynamo's or the router's front doors, whose parsers differ)
    refuses_foreign: bool = False
    # The engine's parser exits on any flag it has not, and ctxlint keeps its whole list (TGI's launcher: clap;
    # engines/tgi_args.py): an unknown flag is refused, by release where some releases have it
    refuses_unknown: bool = False
    # Pairs of settings the engine exits on when both are set, from a release on: (kept, refused, since, why),
    # the second the one to drop (flag_values.exclusive_settings)
    exclusive: tuple[tuple[str, str, str, str], ...] = ()
    # (true words, false words) a bool flag's value is read with, lower-cased, where the engine's own set differs
    # from flag_values' (transformers' string_to_bool: TRL's vllm-serve); empty: flag_values' set
    bool_words: tuple = ()
    # a config file's keys are the fields' own names only, other keys refused (TRL's TrlParser; flags_trl)
    exact_config_keys: bool = False
    # argparse counts the option strings an abbreviation matches, not the actions: where a table lists two long
    # spellings of one argparse action (HfArgumentParser's `--a_b` and `--a-b`), a prefix of both is ambiguous
    abbrev_by_spelling: bool = False
    lookup: dict[str, FlagSpec] = field(default_factory=dict, compare=False, repr=False)
    names: dict[str, FlagSpec] = field(default_factory=dict, compare=False, repr=False)  # by_name's index
    # What every command of this engine reads beyond its own flags (parse_invocation), made once
    # per table instead of per command: the flags read from the environment, and each default as
    # its Setting (frozen, so one is shared by every command that leaves the flag out).
    env_flags: list[FlagSpec] = field(default_factory=list, compare=False, repr=False)
    defaults: list[tuple[str, Setting]] = field(default_factory=list, compare=False, repr=False)
    # `defaults` as a dict, the first of a name kept, in their order (with_defaults, below, merges it in C)
    default_settings: dict[str, Setting] = field(default_factory=dict, compare=False, repr=False)
    removed: list[FlagSpec] = field(default_factory=list, compare=False, repr=False)  # flags with removed_in
    late: list[FlagSpec] = field(default_factory=list, compare=False, repr=False)  # flags with spelled_since
    late_words: set = field(default_factory=set, compare=False, repr=False)  # their spellings banded by release
    late_choices: list[FlagSpec] = field(default_factory=list, compare=False, repr=False)  # with choices_since
    # the names of `removed`, `late` and `late_choices`: a command that sets none of them (most) is not scanned
    # against each list (flag_values.removed_flags, late_spellings, late_choices)
    removed_names: set = field(default_factory=set, compare=False, repr=False)
    late_names: set = field(default_factory=set, compare=False, repr=False)
    late_choice_names: set = field(default_factory=set, compare=False, repr=False)

    def __post_init__(self) -> None:
        for f in self.flags:
            for s in f.spellings + f.negatives:
                self.lookup.setdefault(s, f)
            self.names.setdefault(f.name, f)  # the first flag of a name, as a scan would find
            if f.env:
                self.env_flags.append(f)
            if f.removed_in and f not in self.removed:
                self.removed.append(f)
            if f.spelled_since and f not in self.late:
                self.late.append(f)
                self.late_words.update(word for word, _ in f.spelled_since)
            if f.choices_since and f not in self.late_choices:
                self.late_choices.append(f)
            if f.default is not None:
                self.defaults.append((f.name, Setting(f.default, "", None, None, "default", None)))
        self.defaults.extend((name, Setting(value, str(value), None, None, "launcher", None))
                             for name, value in self.launcher_settings)
        for name, setting in self.defaults:
            self.default_settings.setdefault(name, setting)
        self.removed_names.update(f.name for f in self.removed)
        self.late_names.update(f.name for f in self.late)
        self.late_choice_names.update(f.name for f in self.late_choices)

    def find(self, spelling: str) -> tuple[Optional[FlagSpec], Optional[str]]:
        """Spec for a typed flag (without `=value`), and an error if ambiguous."""
        if spelling in self.lookup:
            return self.lookup[spelling], None
        if self.underscore_equals_dash and spelling.startswith("--"):
            spelling = "--" + spelling[2:].replace("_", "-")  # rewritten before argparse sees it
            if spelling in self.lookup:
                return self.lookup[spelling], None
        if self.allow_abbrev and spelling.startswith("--") and len(spelling) > 3:
            # A spelling a later release added is no prefix target: the table lists only the flags ctxlint reads,
            # so `--device` would stand for 0.31's `--device-memory-utilization` where vLLM 0.28-0.30 reads it as
            # `--device-ids` and 0.31 on as ambiguous (vllm-0.30.0/vllm/engine/arg_utils.py:1081, 0.31.0 :1137 and
            # :1327): such a word stays unknown, as before the alias was listed
            hits = {self.lookup[s].name: s for s in starting_with(self, spelling) if s not in self.late_words}
            if self.abbrev_by_spelling and len(hits) == 1:
                hits = {s: s for s in starting_with(self, spelling)}
            if len(hits) == 1:
                return self.lookup[next(iter(hits.values()))], None
            if len(hits) > 1:
                return None, f"ambiguous option: {spelling} could match {', '.join(sorted(hits.values()))}"
        return None, None

    def spelled(self, spelling: str, flag: FlagSpec) -> str:
        """The full spelling of `flag` that `spelling` (as `find` matched it) stands for."""
        if self.underscore_equals_dash and spelling.startswith("--"):
            spelling = "--" + spelling[2:].replace("_", "-")
        if spelling in flag.spellings or spelling in flag.negatives:
            return spelling
        return next((s for s in flag.spellings + flag.negatives if s.startswith(spelling)), flag.spellings[0])

    def by_name(self, name: str) -> Optional[FlagSpec]:
        # A dict, not a scan of ~85 flags: rules ask for every engine argument of every role.
        return self.names.get(name)


_SORTED: dict[int, tuple] = {}  # id(spec) -> (spec, its lookup's size, its spellings sorted, each one's place in it)


def starting_with(spec: EngineSpec, prefix: str) -> list[str]:
    """The spellings of `spec.lookup` that start with `prefix`, in the lookup's order: a range of them sorted,
    found by bisection (an unknown flag of an abbreviating parser scanned every spelling of its table)."""
    known = _SORTED.get(id(spec))
    if known is None or known[0] is not spec or known[1] != len(spec.lookup):  # held: its id is not reused
        if len(_SORTED) >= 256:
            _SORTED.clear()
        known = _SORTED[id(spec)] = (spec, len(spec.lookup), sorted(spec.lookup),
                                     {s: k for k, s in enumerate(spec.lookup)})
    ordered, place = known[2], known[3]
    found = []
    for k in range(bisect_left(ordered, prefix), len(ordered)):
        if not ordered[k].startswith(prefix):
            break
        found.append(ordered[k])
    return sorted(found, key=place.__getitem__) if len(found) > 1 else found


def F(name: str, *spellings: str, **kw: Any) -> FlagSpec:
    """Short constructor used by the tables; converts list arguments to tuples."""
    for k in ("negatives", "env", "choices", "tags"):
        if k in kw and isinstance(kw[k], (list, str)):
            kw[k] = (kw[k],) if isinstance(kw[k], str) else tuple(kw[k])
    if kw.get("kind") == "bool" and "takes" not in kw:
        kw["takes"] = "none"
    if kw.get("kind") == "list" and "takes" not in kw:
        kw["takes"] = "many"
    return FlagSpec(name, tuple(spellings), **kw)


def B(name: str, *spellings: str, inverse_since: str = "", **kw: Any) -> FlagSpec:
    """A BooleanOptionalAction flag: `--x` / `--no-x`. `inverse_since`: the release from which the engine's
    parser also pairs `--enable-x` with `--disable-x` (vLLM's EnableDisableAction): each inverse is a negative
    spelling banded from that release (FlagSpec.spelled_since)."""
    neg = tuple("--no-" + s[2:] for s in spellings if s.startswith("--"))
    if inverse_since:
        flips = {"--enable-": "--disable-", "--disable-": "--enable-"}
        inverses = tuple(flips[p] + s[len(p):] for s in spellings for p in flips if s.startswith(p))
        neg += inverses
        kw["spelled_since"] = tuple(kw.get("spelled_since", ())) + tuple((s, inverse_since) for s in inverses)
    return F(name, *spellings, kind="bool", negatives=neg, **kw)


def with_defaults(settings: dict[str, Setting], spec: EngineSpec) -> dict[str, Setting]:
    """`settings`, then each default of a setting not among them, in the defaults' order (the first of a name):
    what adding the defaults one by one gives, in three dict operations in C (a copy, the defaults over it, which
    keeps the place of every key already there, then the settings back over them) instead of a Python loop over
    the table's ~30-40 defaults for every command."""
    merged = dict(settings)
    merged.update(spec.default_settings)  # made with `defaults` (EngineSpec.__post_init__), which nothing changes
    merged.update(settings)
    return merged
