"""Parse an engine's argument tokens into canonical settings with spans.

Mirrors the engines' own parsers closely enough to agree on what a flag
means: last occurrence wins (argparse/click/clap), `--flag=value` and
`--flag value`, negative numbers as values, `--no-x` negatives, engine env
vars as a fallback below the command line, defaults last. Nothing raises.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence, Union

from ctxlint.lazyre import lazy_compile

from . import specs
from .flag_values import (convert, exclusive_settings, known_json_part, late_choices, late_spellings, quotes_removed,
                          removed_flags, switch_fix)
from .flagspec import EngineSpec, FlagSpec, with_defaults
from .int_eras import era_problem
from .kv_pairs import refused_since
from .model_arg import MODEL_KEYS, _model, model_keys  # noqa: F401  (MODEL_KEYS, model_keys re-exported)
from .result import Invocation, Problem, Setting, Span
from .suffixes import suffix_fix
from .tokens import Token, typed

_NEG_NUM = lazy_compile(r"-\d+(\.\d*)?([eE][-+]?\d+)?[kKmMgGtT]?$|-\.\d+$")


def _tok(t: Union[Token, str]) -> Token:
    if isinstance(t, Token):
        return t
    return typed("" if t is None else str(t))


def _flaglike(text: str) -> bool:
    return len(text) > 1 and text.startswith("-") and not _NEG_NUM.match(text)


_make_setting = None  # records.maker(Setting), made at the first flag read


def _setting_maker():
    global _make_setting
    from ..records import maker

    _make_setting = maker(Setting)
    return _make_setting


class _Parser:
    def __init__(self, spec: EngineSpec, tokens: list[Token]) -> None:
        self.spec, self.toks = spec, tokens
        self.start = 0  # the first word after the launcher (`vllm serve`, `-m vllm.entrypoints...`): run's start
        self.settings: dict[str, Setting] = {}
        self.positionals: list[int] = []
        self.unknown: list[Problem] = []
        self.dups: list[Problem] = []
        self.errors: list[Problem] = []
        self.unresolved: list[Problem] = []
        self.unknown_words: list[int] = []  # words not flags whose value is not known (no positional then)
        self.model_word: Optional[int] = None  # the model's word when its value is not known (model_arg.py)

    def _unres(self, idx: int, flag: Optional[str]) -> bool:
        refs = self.toks[idx].unresolved
        if any(r.style != "go-if" for r in refs):  # a value not known anyway: say whose it is, not its `{{ if }}`
            refs = tuple(r for r in refs if r.style != "go-if")
        for r in refs:
            self.unresolved.append(Problem(f"unresolved ${{{r.name}}}" if r.style != "command"
                                           else f"command substitution {r.name} not evaluated",
                                           idx, (r.start, r.end), self.toks[idx].item, flag, ref=r))
        return bool(refs)

    def _set(self, f: FlagSpec, value: Any, raw: str, vidx: Optional[int], vspan: Optional[Span],
             spelling: str, fidx: int, note: str = "") -> None:
        ft = self.toks[fidx]
        prev = self.settings.get(f.name)
        if prev is not None and prev.origin == "flag":
            if f.kind == "list" and prev.flag_index == fidx:
                value = list(prev.value) + list(value)
            else:
                self.dups.append(Problem(f"{spelling} given more than once; the last one wins", fidx,
                                         (ft.start, ft.end), ft.item, f.name, prev.flag_index, prev.flag_span))
        vitem = self.toks[vidx].item if vidx is not None else ft.item
        self.settings[f.name] = (_make_setting or _setting_maker())(  # Setting(...), without a class call
            value, raw, vidx, vspan, "flag", spelling, fidx, (ft.start, ft.end), vitem, note, ft.item)

    def run(self, start: int) -> None:
        self.start = start
        i, toks = start, self.toks
        while i < len(toks):
            text = toks[i].text
            if text == "--":
                self.positionals.extend(range(i + 1, len(toks)))
                break
            if not _flaglike(text):
                if not self._unres(i, None):
                    self.positionals.append(i)
                else:
                    self.unknown_words.append(i)
                i += 1
                continue
            i = self._flag(i)

    def _flag(self, i: int) -> int:
        tok, spec = self.toks[i], self.spec
        text = tok.text
        name, eq, attached = text.partition("=")
        if eq and not spec.splits_equals:
            from .flag_word_forms import whole_word  # only llama.cpp (no `=` split) pays for it
            return whole_word(self, i, name)
        if spec.dotted_json and name.startswith("--") and "." in name:
            from .flag_word_forms import dotted_json_key  # only a dotted flag word (vLLM, LMDeploy) pays for it
            return dotted_json_key(self, i, name, eq, attached)
        f, err = spec.find(name)
        note = ""
        att_at = len(name) + 1 if eq else None
        if f is None and not err and spec.attached_short and not text.startswith("--") and len(text) > 2:
            f, _ = spec.find(text[:2])  # `-O3`: single-letter flag with its value glued on
            if f is not None:
                name, eq, attached, att_at = text[:2], "=", text[2:], 2
        full = name
        if f is not None and name not in spec.lookup:
            full = spec.spelled(name, f)  # `--no-enable-prefix` is the negative `--no-enable-prefix-caching`
            note = f"{name} read as {full}"
            if spec.flexible_since and "_" in name:  # no option string holds a `_`: plain argparse matches none
                self.errors.append(Problem(
                    f"unrecognized arguments: {name} (a `_` in a flag's name is read as `-` from "
                    f"{spec.flexible_since} on; earlier releases take {full})", i, (tok.start, tok.end), tok.item,
                    f.name, until=spec.flexible_since))
        if f is None:
            msg = err or f"unrecognized argument {name}"
            nxt = i + 1 if not eq and i + 1 < len(self.toks) and not _flaglike(self.toks[i + 1].text) else None
            if err:  # argparse's "ambiguous option": the engine exits on it (CTX301), whatever the flag was for
                self.errors.append(Problem(f"argument {name}: {err}", i, (tok.start, tok.end), tok.item, name))
            self.unknown.append(Problem(msg, i, (tok.start, tok.end), tok.item, name, nxt))
            self._unres(i, name)
            return i + (2 if nxt is not None else 1)
        if f.takes == "none":
            value = full not in f.negatives
            if eq:
                fix = switch_fix(f, full, attached)
                word = attached.strip().lower() if f.explicit_until and full not in f.negatives else ""
                self.errors.append(Problem(f"argument {name}: ignored explicit argument {attached!r}",
                                           i, (tok.start, tok.end), tok.item, f.name, fix=(text, fix) if fix else None,
                                           since=f.explicit_until if word in ("true", "false") else None))
                if word in ("true", "false"):  # what the releases that read it set
                    value = (word == "true") == value
            elif f.explicit_until and full not in f.negatives and i + 1 < len(self.toks) \
                    and self.toks[i + 1].text.lower() in ("true", "false"):
                # StoreBoolean's nargs "?" took the next word as its value (`--enable-chunked-prefill false`); a
                # BooleanOptionalAction switch leaves it a stray argument, which argparse refuses
                # (vllm-project/vllm@99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b:vllm/engine/arg_utils.py)
                word_tok = self.toks[i + 1]
                self.errors.append(Problem(f"unrecognized arguments: {word_tok.text} (after {name}, a switch that "
                                           "takes no value)", i + 1, (word_tok.start, word_tok.end), word_tok.item,
                                           f.name, since=f.explicit_until))
                self._set(f, (word_tok.text.lower() == "true") == value, "", None, None, name, i, note)
                return i + 2
            self._set(f, value, "", None, None, name, i, note)
            return i + 1
        if eq:
            vidx, raw, vspan = i, attached, tok.span_of(att_at or 0, len(text))
            nxt = i + 1
        else:
            vals = self._take(i, f)
            if vals is None:
                self.errors.append(Problem(f"argument {name}: expected one argument", i,
                                           (tok.start, tok.end), tok.item, f.name))
                return i + 1
            if not vals:  # nargs "?" with no value: const; nargs "*": the empty list
                const = [] if f.takes == "any" else True if f.kind == "bool" else f.choices[0] if f.choices else None
                self._set(f, const, "", None, None, name, i, note)
                return i + 1
            if f.kind == "list" and len(vals) > 1:
                for k in vals:
                    self._unres(k, f.name)
                first, last = self.toks[vals[0]], self.toks[vals[-1]]
                span = (first.start, last.end) if first.item == last.item else (first.start, first.end)
                self._set(f, [self.toks[k].text for k in vals], " ".join(self.toks[k].text for k in vals),
                          vals[0], span, name, i, note)
                return vals[-1] + 1
            vidx = vals[0]
            vt = self.toks[vidx]
            raw, vspan, nxt = vt.text, (vt.start, vt.end), vidx + 1
        if self._unres(vidx, f.name):
            known = known_json_part(self.toks[vidx], len(self.toks[vidx].text) - len(raw)) \
                if f.kind == "json" and f.name == "kv_transfer_config" else None
            self._set(f, known, raw, vidx, vspan, name, i, "value not known: unresolved reference" if known is None
                      else "value partly unknown: its keys holding an unresolved reference are left out")
            return nxt
        value, verr, vnote = convert(spec, f, raw)
        if verr and f.kind == "json":
            verr += quotes_removed(spec.engine, self.toks[vidx], len(self.toks[vidx].text) - len(raw))
        if verr:
            from .json_suffixes import refused_until  # only a refused value pays for it
            fix = suffix_fix(f.int_rule or spec.int_rule, raw) if f.kind == "int" else None
            self.errors.append(Problem(f"argument {name}: {verr}", vidx, vspan, self.toks[vidx].item, f.name,
                                       fix=(raw, fix) if fix else None, since=refused_since(f, raw),
                                       until=refused_until(f, raw)))
        elif f.int_eras:  # read otherwise by earlier releases (int_eras.py)
            old = era_problem(f, f"argument {name}", raw, vidx, vspan, self.toks[vidx].item)
            self.errors.extend((old,) if old is not None else ())
        self._set(f, value, raw, vidx, vspan, name, i, "; ".join(x for x in (note, vnote) if x))
        return nxt

    def _option(self, text: str) -> bool:
        """Whether the engine reads the word as an option, not the value of the flag before it. argparse's
        `_parse_optional` makes a word that holds a blank and names no option (before any `=`) a positional word,
        which the option before it takes (`--served-model-name "--my model"`; CPython 3.11 Lib/argparse.py, run:
        engines/joined_words.py); llama.cpp takes the next word whatever it is (common/arg.cpp `argv[++i]`), and
        no option of its holds a blank."""
        if not _flaglike(text):
            return False
        rule = self.spec.int_rule
        name = text.partition("=")[0] if rule == "argparse" else text if rule == "stoi" else ""
        return not any(c.isspace() for c in name)

    def _take(self, i: int, f: FlagSpec) -> Optional[list[int]]:
        toks, j = self.toks, i + 1
        click = self.spec.int_rule == "click"
        if f.takes == "optional":
            ok = j < len(toks) and not self._option(toks[j].text) and (not f.choices or toks[j].text in f.choices)
            return [j] if ok else []
        if j >= len(toks) or (self._option(toks[j].text) and not click):
            return [] if f.takes == "any" else None  # nargs "*": the empty list
        if f.takes in ("many", "any"):
            out = [j]
            while j + 1 < len(toks) and not self._option(toks[j + 1].text):
                j += 1
                out.append(j)
            return out
        return [j]


def parse_invocation(engine: str, tokens: Sequence[Union[Token, str]], env: Optional[Mapping[str, Any]] = None,
                     launcher: Optional[str] = None, subcommand: Optional[str] = None,
                     start: int = 0) -> Invocation:
    """Parse tokens[start:] as `engine`'s arguments (program and subcommand excluded).

    env: the container's environment (name -> value; None/non-str values are
    treated as unknown). Token indexes in the result index `tokens`.
    """
    spec = specs.spec_for(engine, launcher, subcommand)
    toks = [_tok(t) for t in (tokens or [])]
    p = _Parser(spec, toks)
    try:
        p.run(max(0, start))
    except Exception as exc:  # defensive: a lint run must survive any input
        p.errors.append(Problem(f"internal parser error: {exc!r}", None, None))
    # a value not known that a later flag replaces is no unknown (a KServe runtime's `--max-model-len
    # {{.Annotations.ctx}}` before the InferenceService's own: argparse keeps the last)
    p.unresolved = [u for u in p.unresolved if not (
        u.flag in p.settings and p.settings[u.flag].origin == "flag" and p.settings[u.flag].value is not None
        and p.settings[u.flag].token_index != u.token_index)]
    if spec.removed:  # flags later releases dropped: refused there (FlagSpec.removed_in)
        p.errors.extend(removed_flags(spec, p.settings))
    if spec.late:  # spellings only later releases' parsers have: refused before (FlagSpec.spelled_since)
        p.errors.extend(late_spellings(spec, p.settings))
    if spec.late_choices:  # choices only later releases' parsers have: refused before (FlagSpec.choices_since)
        p.errors.extend(late_choices(spec, p.settings))
    if spec.refuses_foreign and p.unknown:  # another engine's flag: this parser exits on it (foreign_flags.py)
        from .foreign_flags import foreign_flags
        p.errors.extend(foreign_flags(spec.engine, p.unknown, spec.underscore_equals_dash))
    if spec.refuses_unknown and p.unknown:  # TGI's launcher (clap) exits on a flag it has not (tgi_args.py)
        from .tgi_args import judged, unknown_args
        if judged(launcher):
            p.errors.extend(unknown_args(p.unknown, launcher))
    if launcher == specs.TRL_LAUNCHER and (p.unknown or p.positionals):  # TrlParser raises on a word it did not
        from .flags_trl import unknown_args as trl_unknown  # parse (flags_trl)
        p.errors.extend(trl_unknown(p.unknown, p.positionals, toks))
    if launcher == specs.TRL_LAUNCHER and "config" in p.settings:  # TrlParser finds only the word `--config`
        from .flags_trl import config_word
        p.errors.extend(config_word(p.settings))
    if launcher == specs.TRL_LAUNCHER and "model" not in p.settings and "config" not in p.settings and not (
            p.unknown_words or p.positionals) and all(u.flag and spec.by_name(u.flag) for u in p.unresolved):
        from .flags_trl import no_model  # `model` has no default: argparse requires --model (flags_trl)
        p.errors.append(no_model(toks, start))
    env = env or {}
    for f in spec.env_flags:
        if f.name in p.settings:
            continue
        for var in f.env:
            val = env.get(var)
            if val == "" and spec.env_empty_unset:
                continue
            if isinstance(val, str):
                value, verr, note = convert(spec, f, val)
                if verr:
                    p.errors.append(Problem(f"env {var}: {verr}", None, None, None, f.name,
                                            since=refused_since(f, val)))
                p.settings[f.name] = Setting(value, val, None, None, "env", var, note=note)
                break
            if var in env:
                p.unresolved.append(Problem(f"env {var} has no literal value", None, None, None, f.name))
    if launcher == specs.TGIS_ADAPTER:  # its TGIS spellings are vLLM's settings (flags_tgis_adapter)
        from .flags_tgis_adapter import postprocess
        p.errors.extend(postprocess(p.settings))
    if spec.exclusive:  # settings the launcher refuses together (TGI's max_input_tokens and max_input_length)
        p.errors.extend(exclusive_settings(spec, p.settings, list(env)))
    model = _model(spec, p, launcher)
    p.settings = with_defaults(p.settings, spec)
    config = next((p.settings[c] for c in spec.config_flags if c in p.settings
                   and p.settings[c].origin != "default"), None)
    eng_env = {e.name: env[e.name] for e in spec.engine_env if isinstance(env.get(e.name), str)}
    return Invocation(spec.engine, launcher, subcommand, model, p.settings, tuple(p.positionals),
                      tuple(p.unknown), tuple(p.dups), tuple(p.errors), tuple(p.unresolved), config, eng_env,
                      p.model_word)
