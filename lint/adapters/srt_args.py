"""How srtctl turns an SGLang or vLLM role's config into the worker's command line, for its switches.

srtctl renders `backend.<engine>_config.<mode>` as flags (NVIDIA/srt-slurm@c88ef731636890ff6385a783e152c1790e15b194:
src/srtctl/backends/sglang.py and vllm.py `_config_to_cli_args`, keys sorted, `_` read as `-`): a YAML `true` is
the bare `--key`, a `false` or a null passes nothing (the engine keeps its default, so `enable-prefix-caching:
false` leaves vLLM's prefix caching on), a list is `--key a b`, anything else `--key str(value)`. A string is
passed as its text whatever it says: `enforce-eager: "false"` is `--enforce-eager false`, and a sweep's `{ep}`
(core/sweep.py expand_template: `str(value)`, so a YAML `true` in the sweep becomes the string "True") gives
`--enable-expert-parallel True`. The worker's parser is plain argparse over those words (ai-dynamo/dynamo@
d3aac630420843f3550c50d5f6e5721ef87a7cf9:components/src/dynamo/sglang/args.py `sglang_only_parser.parse_args`,
ai-dynamo/dynamo@000a36a7399ab3fa8e27d9537d8b1f5020e34db4:components/src/dynamo/vllm/args.py
`vllm_parser.parse_args`; `vllm serve` and `sglang.launch_server` likewise), so a word after a switch that takes
no value is a stray argument it exits on ("unrecognized arguments: True"), and `--no-enable-prefix-caching` is
the negative switch: off.

`switch_words` splits the config: the keys whose rendering is a bare flag, nothing, or a word after a switch are
given to the engine's command-line parser as those words (engines/parse.py reads negatives, `nargs "?"` values and
vLLM's StoreBoolean eras as argparse does); every other key stays a config value (srt_recipe.py), read as before.
A key ctxlint has no flag for stays a config value too, a null or `false` one dropped, as srtctl passes nothing.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from ctxlint.engines.config import config_key
from ctxlint.engines.flagspec import EngineSpec
from ctxlint.engines.result import Invocation, Problem

from ..records import replace


def switch_words(spec: EngineSpec, data: Dict[str, Any]) -> Tuple[Dict[str, Any], List[str], Dict[str, str]]:
    """(the config values left, the command-line words srtctl passes for the rest, in its sorted order, each flag
    word -> the config key it renders)."""
    kept: Dict[str, Any] = {}
    words: List[str] = []
    keys: Dict[str, str] = {}
    for key in sorted(data, key=str):
        value = data[key]
        if value is None or value is False:
            continue  # `elif value is not None` / `if value:`: nothing passed
        flag = spec.find("--" + str(key).replace("_", "-"))[0] or config_key(spec, str(key))[0]
        switch = flag is not None and flag.takes == "none"
        if flag is not None and (value is True or switch and isinstance(value, (str, int, float))):
            word = "--" + str(key).replace("_", "-")
            keys[word] = str(key)
            words.append(word)
            if value is not True:
                words.append(str(value))
            continue
        kept[key] = value
    return kept, words, keys


def stray_refused(inv: Invocation, words: List[str], keys: Dict[str, str]) -> Invocation:
    """`inv` with each word srtctl placed after a switch that takes no value refused, as the worker's argparse
    refuses it; the problem names the switch's setting, so its place is the config key's."""
    if not inv.positionals:
        return inv
    errors = []
    for index in inv.positionals:
        flag_word = words[index - 1] if index > 0 else ""
        key = keys.get(flag_word, "")
        setting = config_key_name(inv, flag_word)
        errors.append(Problem(
            f"unrecognized arguments: {words[index]} (srtctl passes `{key}: {words[index]!r}` as `{flag_word} "
            f"{words[index]}`: a string, a sweep's `{{name}}` too, is passed as its text, and {flag_word} is a switch "
            "that takes no value; it is on as a YAML true and off as false or absent)", None, None, flag=setting))
    return replace(inv, positionals=(), errors=inv.errors + tuple(errors))


def config_key_name(inv: Invocation, flag_word: str) -> str:
    """The setting a flag word of the command line set (its canonical name), or the word."""
    return next((name for name, s in inv.settings.items() if s.origin == "flag" and s.flag_spelling == flag_word),
                flag_word)
