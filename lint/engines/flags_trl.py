"""TRL's vLLM server for online RL (`trl vllm-serve`, `python -m trl.scripts.vllm_serve`).

Source: huggingface/trl@f2cd57710ae345ea6428ae95363267fcf38a3dc8:trl/scripts/vllm_serve.py. Its arguments are one
dataclass, ScriptArguments, parsed by TrlParser (transformers' HfArgumentParser), and each data-parallel rank
builds `vllm.LLM(...)` from them (`llm_worker`), so:

- only these fields are flags; HfArgumentParser registers `--max_model_len` and `--max-model-len` for each, keeps
  argparse's prefix abbreviation (which counts option strings: `--max` matches both spellings and is ambiguous,
  `--max_model` is read), and `parse_args_and_config` raises "Some specified arguments are not used by the
  HfArgumentParser" on any other word (vLLM's `--max-num-seqs` included): no field was ever removed in the file's
  58 revisions since 2025-03-21, so a flag missing here is refused by every release;
- the values TRL passes are vLLM's settings under the same names, its defaults included (gpu_memory_utilization
  0.9 is passed explicitly, whatever vLLM's own default; enforce_eager False, kv_cache_dtype and dtype "auto",
  max_model_len None: the model's);
- a bool field takes an optional value (`--enforce_eager`, `--enforce_eager true`: `string_to_bool`, nargs "?")
  only when its default is not None: `enable_prefix_caching: bool | None = None` gets no nargs and const, so
  `--enable_prefix_caching` alone exits ("expected one argument"; huggingface/transformers@002496228f0c:
  src/transformers/hf_argparser.py `_parse_dataclass_field`), as in every TRL release (its default was None in
  each);
- `data_parallel_size` ranks each hold a whole LLM of `tensor_parallel_size` GPUs (VLLM_DP_RANK ...), as vLLM's
  data parallelism does;
- the engine is the offline LLM class: vLLM's batch defaults for UsageContext.LLM_CLASS, not the OpenAI server's
  (`usage_context`, read by physics/vllm_batch.py).
"""
from __future__ import annotations

from typing import Iterable, List, Mapping, Sequence, Tuple

from .flagspec import EngineSpec, F
from .result import Problem

CTX, KV, MEM, PAR, MODEL = "context", "kv_pool", "memory", "parallel", "model"
LAUNCHER = "trl vllm-serve"


def _both(name: str) -> tuple:
    """HfArgumentParser's spellings of a field: `--a_b`, and `--a-b` for a name with `_`."""
    dashed = "--" + name.replace("_", "-")
    return ("--" + name,) if dashed == "--" + name else ("--" + name, dashed)


def _flag(field: str, setting: str = "", **kw) -> object:
    if kw.get("kind") == "bool":
        kw.setdefault("takes", "optional")
    return F(setting or field, *_both(field), **kw)


FLAGS = (
    _flag("model", tags=MODEL),
    _flag("revision", tags=MODEL),
    _flag("tensor_parallel_size", kind="int", default=1, tags=PAR),
    _flag("data_parallel_size", kind="int", default=1, tags=PAR),
    _flag("host", default="0.0.0.0"),
    _flag("port", kind="int", default=8000),
    _flag("gpu_memory_utilization", kind="float", default=0.9, tags=MEM),
    _flag("dtype", default="auto"),
    _flag("max_model_len", kind="int", tags=CTX),
    # default None: HfArgumentParser gives it no nargs "?", so it takes exactly one value (see above)
    _flag("enable_prefix_caching", kind="bool", takes="one", tags=KV),
    _flag("enforce_eager", kind="bool", default=False, tags=MEM),
    _flag("kv_cache_dtype", default="auto", tags=KV),
    _flag("trust_remote_code", kind="bool", default=False),
    _flag("log_level", default="info"),
    _flag("vllm_model_impl", "model_impl", default="vllm"),
    _flag("distributed_executor_backend", tags=PAR),
    _flag("speculative_config", kind="json"),
    # TrlParser.parse_args_and_config pops `--config PATH` and makes the YAML file's keys (the fields' names) the
    # defaults, the command line winning, as vLLM's --config file is read (config.apply_config)
    F("config", "--config"),
)

# transformers' string_to_bool, a bool field's type (huggingface/transformers@002496228f0c:
# src/transformers/hf_argparser.py): these words, case aside; any other (`on`, `enabled`) is refused
BOOL_WORDS = (frozenset({"yes", "true", "t", "y", "1"}), frozenset({"no", "false", "f", "n", "0"}))

# `usage_context`: the LLM class's batch defaults (vllm_batch.batch_defaults)
SPEC_ = EngineSpec("vllm", FLAGS, int_rule="argparse", allow_abbrev=True, config_flags=("config",),
                   launcher_settings=(("usage_context", "llm_class"),), bool_words=BOOL_WORDS,
                   exact_config_keys=True, abbrev_by_spelling=True)


def config_keys(spec: EngineSpec, data: Mapping, source: str) -> Tuple[dict, List[Problem]]:
    """The `--config` YAML's keys TRL applies, and a refusal for each other key. TrlParser pops `env` (its
    variables), then set_defaults_with_config sets the default of each parser action whose `dest` is a key (a
    field's own name, `max_model_len`: never `max-model-len`, which only the command line spells) and raises
    "Unknown arguments from config file" on the rest (huggingface/trl@f2cd5771:trl/scripts/utils.py; from TRL 0.19.0,
    trl@b773a4c1: earlier releases dropped such a key silently, so its value never applied either)."""
    kept: dict = {}
    refused: List[Problem] = []
    for key, value in data.items():
        if key == "env":
            continue
        if isinstance(key, str) and key != "config" and "-" not in key and "--" + key in spec.lookup:
            kept[key] = value
            continue
        hint = f" (TRL reads `{key.replace('-', '_')}`)" if isinstance(key, str) and "-" in key and \
            "--" + key.replace("-", "_") in spec.lookup else ""
        refused.append(Problem(f"{source or 'config'}: {key}: unknown argument from the config file{hint}: TRL's "
                               "vllm-serve exits with \"Unknown arguments from config file\" (TRL 0.19.0 and later; "
                               "earlier releases ignore the key)", None, None,
                               flag=key.replace("-", "_") if isinstance(key, str) else str(key)))
    return kept, refused


_EXITS = "it exits with \"Some specified arguments are not used by the HfArgumentParser\""


def unknown_args(unknown: Iterable[Problem], positionals: Sequence[int] = (), toks: Sequence = ()) -> List[Problem]:
    """A refusal at each word the parser does not take: HfArgumentParser leaves it unparsed and TrlParser raises
    before any engine starts. ScriptArguments has no positional field and no short option, so a single-dash word
    (vLLM's `-tp 2`) and a word no flag takes (a model named as `vllm serve` names it) are refused too; a negative
    number is never such a word (argparse reads it as a value, and the parser keeps it as one)."""
    out: List[Problem] = []
    for p in unknown:
        name = p.flag or ""
        if name.startswith("-") and not p.message.startswith("ambiguous option"):  # that one is said already
            out.append(Problem(f"unrecognized argument {name} (TRL's vllm-serve takes only its own flags: --model, "
                               "--tensor_parallel_size, --data_parallel_size, --gpu_memory_utilization, "
                               f"--max_model_len, ...; {_EXITS})", p.token_index, p.span, p.item, name))
    for k in positionals:
        tok = toks[k]
        out.append(Problem(f"unrecognized argument {tok.text} (TRL's vllm-serve takes no positional argument: a "
                           f"model is `--model {tok.text}`; {_EXITS}, or that --model is required when none is "
                           "given)", k, (tok.start, tok.end), tok.item, None))
    return out


def config_word(settings: dict) -> List[Problem]:
    """TrlParser takes the config file only from the exact word `--config` and the word after it
    (`args.index("--config")`, huggingface/trl@f2cd5771:trl/scripts/utils.py); `--config=trl.yaml` or an
    abbreviation (`--conf`) reaches HfArgumentParser, which has no such option and raises. Such a word is CTX301
    and its file is not read (the setting is dropped)."""
    s = settings["config"]
    if s.origin != "flag" or (s.flag_spelling == "--config" and s.token_index != s.flag_index):
        return []
    del settings["config"]
    typed = s.flag_spelling + ("=" + s.raw_text if s.token_index == s.flag_index else "")
    return [Problem(f"unrecognized argument {typed}"
                    f" (TRL's vllm-serve reads a config file only as the word `--config` followed by its path: "
                    f"`--config {s.raw_text}`; {_EXITS})", s.flag_index, s.flag_span, s.flag_item, "config")]


def no_model(toks: Sequence, start: int) -> Problem:
    """ScriptArguments.model has no default, so HfArgumentParser makes `--model` required and argparse exits
    without it ("the following arguments are required: --model"), unless a `--config` file gives it (then it is a
    default and no longer required). At the launch's first word after the program."""
    at = min(start, len(toks) - 1) if toks else None
    tok = toks[at] if at is not None and at >= 0 else None
    return Problem("the following arguments are required: --model (TRL's vllm-serve takes the model only from "
                   "--model or its --config file)", at if tok is not None else None,
                   (tok.start, tok.end) if tok is not None else None, tok.item if tok is not None else None, "model")
