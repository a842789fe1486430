"""SGLang's layout of sliding-window layers, per release: a second, smaller pool for them (hybrid SWA
memory) or the whole context in every layer.

With hybrid SWA memory one token of the full pool costs
    full layers x full bytes + swa_full_tokens_ratio x window layers x window bytes
(the window layers' pool holds `--swa-full-tokens-ratio` x the full pool's tokens, 0.8 unless set:
sgl-project/sglang@v0.5.9:python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py
set_num_tokens_hybrid_swa, sgl-project/sglang@v0.5.23:python/sglang/srt/model_executor/pool_configurator.py
HybridSWAPoolConfigurator); without it every layer costs its bytes for every token. Which models get
it changed three times. Each release below was read in the package it published (sglang==X) and is
cited as sgl-project/sglang@vX:path. Between two releases read that differ, the
releases not read are not guessed: the window layers are counted whole there (the smaller pool).

- <= 0.4.9: no model by default; Llama 4 only with `--hybrid-kvcache-ratio h` (0.4.9-0.5.7).
- 0.4.9.post3-0.5.6: every model whose class defines get_attention_sliding_window_size (Gemma 2, 3,
  3n; gpt-oss from its first release), Llama 4 excepted, unless `--disable-hybrid-swa-memory`, which
  server_args sets for Gemma 2 from 0.4.10.post2 and for Gemma 2/3/3n and gpt-oss from 0.5.1.
- 0.5.7: MiMo-V2-Flash alone (is_hybrid_model), and the switch is read nowhere.
- 0.5.8 on: the architectures in is_hybrid_swa_model's list, unless the switch is set. Gemma 2/3 are
  in no release's list nor on main,
  sgl-project/sglang@001adf564fd332c285397a46a034ee2f93ba7515:python/sglang/srt/configs/model_config.py
  and the switch is still forced for them (so at 33da3fde13a8f578a9bcac973e9a5c74c8fd6d58 too):
  sgl-project/sglang@v0.5.23:python/sglang/srt/arg_groups/model_overrides/gemma2_gemma3.py
  (for Gemma 3 since sgl-project/sglang#8895, "Disable gemma3 for SWA due to CUDA illegal memory access").
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from ctxlint.versions import parse_version

from ..records import record
from .models import ModelArch

_SGL = "sgl-project/sglang@v"
_CFG, _ARGS = "python/sglang/srt/configs/model_config.py", "python/sglang/srt/server_args.py"
_RUNNER = "python/sglang/srt/model_executor/model_runner.py"
_GEMMA_OFF = f"{_SGL}0.5.23:python/sglang/srt/arg_groups/model_overrides/gemma2_gemma3.py"
LIST_SRC = f"{_SGL}0.5.8:{_CFG} is_hybrid_swa_model"
GENERIC_SRC = f"{_SGL}0.4.9.post3:{_RUNNER} (get_attention_sliding_window_size, Llama 4 excepted)"
DEFAULT_RATIO = 0.8


@record(frozen=True)
class Family:
    """Models SGLang treats alike. `since`/`until`: the releases from which, and from which no more,
    it gives them hybrid SWA memory by default; `source`: where; `whole`: why not outside that span;
    `unread`: (after, before) brackets of releases not read between two that differ; `served`: the
    first release with the model's code (the release read before it has none), when known."""
    name: str
    classes: tuple[str, ...]
    model_types: tuple[str, ...]
    since: str
    until: str | None
    source: str
    whole: str = ""
    unread: tuple[tuple[str, str], ...] = ()
    served: str | None = None


def _listed(release: str) -> str:
    return f"{_SGL}{release}:{_CFG} is_hybrid_swa_model"


FAMILIES = (
    Family("Gemma 2", ("Gemma2ForCausalLM",), ("gemma2",), "0.4.9.post3", "0.4.10.post2", GENERIC_SRC,
           f"--disable-hybrid-swa-memory forced from 0.4.10.post2 ({_SGL}0.4.10.post2:{_ARGS}; {_GEMMA_OFF}), and in "
           f"no is_hybrid_swa_model list", (("0.4.9", "0.4.9.post3"),)),
    Family("Gemma 3", ("Gemma3ForCausalLM", "Gemma3ForConditionalGeneration", "Gemma3nForCausalLM",
                       "Gemma3nForConditionalGeneration"), ("gemma3", "gemma3_text", "gemma3n", "gemma3n_text"),
           "0.4.9.post3", "0.5.1", GENERIC_SRC,
           f"--disable-hybrid-swa-memory forced from 0.5.1 ({_SGL}0.5.1:{_ARGS}; {_GEMMA_OFF}), and in no "
           f"is_hybrid_swa_model list", (("0.4.9", "0.4.9.post3"), ("0.4.10.post2", "0.5.1"))),
    Family("gpt-oss", ("GptOssForCausalLM",), ("gpt_oss",), "0.5.8", None, LIST_SRC,
           f"the releases before force --disable-hybrid-swa-memory (0.5.1-0.5.6, {_SGL}0.5.1:{_ARGS}) or have no "
           "rule for it (0.5.7)"),
    # the published Llama 4 checkpoints are Llama4ForConditionalGeneration (their text config says llama4_text);
    # Llama4ForCausalLM is in no release's list
    Family("Llama 4", ("Llama4ForConditionalGeneration",), ("llama4", "llama4_text"), "0.5.8", None, LIST_SRC,
           f"the releases before only with --hybrid-kvcache-ratio ({_SGL}0.4.9:{_CFG} is_hybrid_model)"),
    Family("MiMo-V2-Flash", ("MiMoV2FlashForCausalLM",), ("mimo_v2_flash",), "0.5.7", None,
           f"{_SGL}0.5.7:{_CFG} is_hybrid_model; {LIST_SRC}", served="0.5.7"),
    Family("MiMo-V2", ("MiMoV2ForCausalLM",), ("mimo_v2",), "0.5.11", None, _listed("0.5.11"), served="0.5.11"),
    Family("Step-3.5", ("Step3p5ForCausalLM",), ("step3p5",), "0.5.9", None, _listed("0.5.9"), served="0.5.9"),
    Family("Step-3.7", ("Step3p7ForConditionalGeneration",), ("step3p7",), "0.5.13", None, _listed("0.5.13"),
           served="0.5.13"),
    Family("Gemma 4", ("Gemma4ForCausalLM", "Gemma4ForConditionalGeneration"), ("gemma4", "gemma4_text"), "0.5.11",
           None, _listed("0.5.11"), served="0.5.11"),
    # the encoder-free Gemma 4 12B: its code (models/gemma4_unified.py, the gemma4 text model) and its place in
    # the list both from 0.5.13, neither in 0.5.12.post1
    Family("Gemma 4 Unified", ("Gemma4UnifiedForConditionalGeneration",), ("gemma4_unified", "gemma4_unified_text"),
           "0.5.13", None, _listed("0.5.13"), served="0.5.13"),
    Family("Laguna", ("LagunaForCausalLM",), ("laguna",), "0.5.12", None, _listed("0.5.12"), served="0.5.12"),
)
# With --enable-hierarchical-cache server_args forces the switch (and a ratio of 1.0): MiMo-V2 in
# 0.5.8-0.5.13 (not since 0.5.14), Step-3.5 and Step-3.7 in every release that serves them
# (sgl-project/sglang@v0.5.9:python/sglang/srt/server_args.py, @v0.5.23:python/sglang/srt/arg_groups/overrides.py).
_HICACHE = {"MiMo-V2-Flash": ("0.5.8", "0.5.14"), "MiMo-V2": ("0.5.8", "0.5.14"), "Step-3.5": ("0.5.9", None),
            "Step-3.7": ("0.5.13", None)}
# gpt-oss with trtllm_mha as its prefill or decode backend, the default on SM100 GPUs: the switch is
# forced in 0.5.8-0.5.9 ("TODO: support swa kv indices translation"), not from 0.5.10.
_TRTLLM = ("0.5.8", "0.5.10", f"{_SGL}0.5.8:{_ARGS}")


@record(frozen=True)
class SwaLayout:
    whole: bool            # the window layers hold the whole context (no SWA pool)
    ratio: float           # the SWA pool's tokens per full-pool token, when not whole
    note: str              # which rule applied, and where SGLang says so
    error: str = ""        # a setting SGLang refuses: no pool at all


def family_of(arch: ModelArch) -> Family | None:
    """By the config's class names, else by model_type (the catalog has no classes)."""
    names = arch.architectures
    for fam in FAMILIES:
        if names and any(n in fam.classes for n in names) or not names and arch.model_type in fam.model_types:
            return fam
    return None


def _v(text: str | None):
    return parse_version(text) if text else None


def _within(v, lo: str | None, hi: str | None) -> bool:
    return (lo is None or v >= parse_version(lo)) and (hi is None or v < parse_version(hi))


def _ratio(settings: Mapping[str, Any], v) -> tuple[float, str]:
    """(--swa-full-tokens-ratio, why SGLang refuses it or "")."""
    raw = settings.get("swa_full_tokens_ratio")
    if raw is None:  # unset: 0.8 (a default of None with fallback 0.8 from 0.5.14)
        return DEFAULT_RATIO, ""
    try:
        r = float(raw) if not isinstance(raw, bool) else math.nan
    except (TypeError, ValueError, OverflowError):
        r = math.nan
    if not math.isfinite(r) or r <= 0:
        return DEFAULT_RATIO, (f"--swa-full-tokens-ratio {raw!r} is no positive number: SGLang refuses it, or its SWA "
                               "pool holds no token")
    if r > 1 and (v is None or v >= parse_version("0.5.7")):
        # "--swa-full-tokens-ratio should be in range (0, 1.0]":
        # sgl-project/sglang@v0.5.7:python/sglang/srt/server_args.py (0.5.6 has no such check)
        return DEFAULT_RATIO, (f"--swa-full-tokens-ratio {r:g} is above 1: SGLang"
                               + (" >= 0.5.7" if v is None else "") + " refuses to start (it must be in (0, 1])")
    return r, ""


def _llama4_opt_in(arch: ModelArch, settings: Mapping[str, Any], context: int | None, label: str) -> SwaLayout | None:
    """SGLang 0.4.9-0.5.7: Llama 4's window pool with --hybrid-kvcache-ratio h (a bare flag is 0.5) is
    ((1 - h) + h x chunk / context) x the full pool's tokens, when h > 0 and context > chunk
    (sgl-project/sglang@v0.4.9:python/sglang/srt/configs/model_config.py is_hybrid_model,
    @v0.4.9:python/sglang/srt/model_executor/model_runner.py set_num_token_hybrid)."""
    if "hybrid_kvcache_ratio" not in settings:
        return None
    h = settings["hybrid_kvcache_ratio"]
    h = 0.5 if h is None else h  # nargs="?", const=0.5
    chunk = arch.attention_chunk_size or 0
    try:
        h = float(h) if not isinstance(h, bool) else math.nan
    except (TypeError, ValueError, OverflowError):
        h = math.nan
    src = f"{_SGL}0.4.9:{_CFG} is_hybrid_model"
    if not math.isfinite(h) or h <= 0:
        return SwaLayout(True, DEFAULT_RATIO, f"{label}: --hybrid-kvcache-ratio {settings['hybrid_kvcache_ratio']!r} "
                         f"is not above 0, so Llama 4's chunked layers hold the whole context ({src})")
    if not context or not chunk or context <= chunk:
        return SwaLayout(True, DEFAULT_RATIO, f"{label}: --hybrid-kvcache-ratio applies when the context length "
                         f"exceeds the chunk ({chunk or '?'}); "
                         + ("it does not" if context else "the context length is unknown") + f" ({src})")
    ratio = (1 - h) + h * chunk / context
    if ratio <= 0:
        return SwaLayout(True, DEFAULT_RATIO, "", f"--hybrid-kvcache-ratio {h:g} leaves the chunked layers' pool "
                         f"{ratio:g} x the full pool: no token")
    return SwaLayout(False, ratio, f"{label}: Llama 4 with --hybrid-kvcache-ratio {h:g}: chunked layers' pool = "
                     f"((1 - {h:g}) + {h:g} x {chunk} / {context}) = {ratio:.4g} x the full pool's tokens ({src})")


def sglang_swa(arch: ModelArch, settings: Mapping[str, Any], version: str | None,
               context: int | None = None) -> SwaLayout:
    """The layout SGLang `version` (None: unknown) builds for `arch`'s window layers."""
    v = _v(version)
    label = f"SGLang {version}" if v is not None else "SGLang (version unknown)"
    ratio, refused = _ratio(settings, v)
    if refused:
        return SwaLayout(True, DEFAULT_RATIO, "", refused)
    fam = family_of(arch)
    if fam is None:
        who = "/".join(arch.architectures) or arch.model_type or arch.name
        return SwaLayout(True, ratio, f"{label}: {who} gets no SWA pool (not in is_hybrid_swa_model's list, "
                         f"{LIST_SRC}; nor before 0.5.8, {GENERIC_SRC})")
    if fam.name == "Llama 4" and v is not None and _within(v, "0.4.9", "0.5.8"):
        opt = _llama4_opt_in(arch, settings, context, label)
        if opt is not None:
            return opt
    whole, why = _default(fam, v, label)
    if not whole:
        whole, why = _switches(fam, settings, v, label, why)
    return SwaLayout(whole, ratio, why)


def _default(fam: Family, v, label: str) -> tuple[bool, str]:
    """(whole?, why) before any switch."""
    kind = "chunked" if fam.name == "Llama 4" else "window"
    span = f"only {fam.since} until {fam.until}" if fam.until else f"the releases from {fam.since}"
    why_whole = fam.whole or "the others do not"
    if v is None:
        if fam.until is None and fam.served == fam.since:
            return False, f"{label}: {fam.name} has hybrid SWA memory in every release that serves it ({fam.source})"
        return True, (f"{label}: {fam.name}'s {kind} layers counted whole: {span} give it a SWA pool ({fam.source}), "
                      f"{why_whole}; state the image tag")
    for after, before in fam.unread:
        if parse_version(after) < v < parse_version(before):
            return True, (f"{label} was not read: {after} and {before} differ for {fam.name}, so its {kind} layers are "
                          f"counted whole ({fam.source})")
    if _within(v, fam.since, fam.until):
        return False, f"{label}: {fam.name} gets hybrid SWA memory ({fam.source})"
    if fam.served and v < parse_version(fam.served):
        return True, f"{label} has no code for {fam.name} yet (from {fam.served}, {fam.source}): counted whole"
    return True, (f"{label}: {fam.name}'s {kind} layers hold the whole context: {span} give it a SWA pool "
                  f"({fam.source}), {why_whole}")


def _switches(fam: Family, settings: Mapping[str, Any], v, label: str, why: str) -> tuple[bool, str]:
    """What turns a default SWA pool off: the switch, hierarchical cache, gpt-oss on trtllm_mha."""
    if settings.get("disable_hybrid_swa_memory") is True:
        if v is not None and v == parse_version("0.5.7"):  # nothing in 0.5.7 reads it (sgl-project/sglang@v0.5.7)
            return False, f"{why}; 0.5.7 reads no --disable-hybrid-swa-memory"
        src = f"{_SGL}0.5.8:{_CFG} _derive_hybrid_model" if v is None or v >= parse_version("0.5.8") else GENERIC_SRC
        return True, f"{label}: --disable-hybrid-swa-memory: every layer holds the whole context ({src})"
    hicache = _HICACHE.get(fam.name)
    if hicache and settings.get("enable_hierarchical_cache") is True and (v is None or _within(v, *hicache)):
        return True, (f"{label}: --enable-hierarchical-cache forces --disable-hybrid-swa-memory for {fam.name} "
                      f"({_SGL}0.5.9:{_ARGS})")
    if fam.name == "gpt-oss" and (v is None or _within(v, _TRTLLM[0], _TRTLLM[1])):
        attn = settings.get("attention_backend")
        sides = (settings.get("prefill_attention_backend") or attn, settings.get("decode_attention_backend") or attn)
        if "trtllm_mha" in sides:
            return True, f"{label}: gpt-oss on trtllm_mha: --disable-hybrid-swa-memory forced ({_TRTLLM[2]})"
        if None in sides:
            return True, (f"{label}: gpt-oss with no --attention-backend: SGLang 0.5.8-0.5.9 pick trtllm_mha on SM100 "
                          f"GPUs and then force --disable-hybrid-swa-memory ({_TRTLLM[2]}); counted whole, set "
                          "--attention-backend to count the SWA pool")
    return False, why


def request_cap_note(settings: Mapping[str, Any], version: str | None) -> str:
    """A SWA pool sized from --max-running-requests when the radix cache is off: in 0.5.23, not in
    0.5.17 (sgl-project/sglang@v0.5.23:python/sglang/srt/model_executor/pool_configurator.py
    SWARequestCapPoolConfigurator). Not modelled, said."""
    v = _v(version)
    if (v is None or v > parse_version("0.5.17")) and settings.get("disable_radix_cache") is True \
            and settings.get("max_running_requests"):
        return ("SGLang 0.5.23 (and maybe 0.5.18-0.5.22) with --disable-radix-cache and --max-running-requests sizes "
                "the SWA pool from the request count, not the ratio: not modelled, the ratio is used")
    return ""


__all__ = ["FAMILIES", "Family", "SwaLayout", "family_of", "request_cap_note", "sglang_swa"]
