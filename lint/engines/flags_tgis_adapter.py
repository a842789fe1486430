"""`python -m vllm_tgis_adapter`: vLLM behind TGIS's gRPC API (OpenShift AI's "vLLM ServingRuntime for KServe").

Source: opendatahub-io/vllm-tgis-adapter@df3596ae59854c7e7efaf9fee3c3ace9623c95ee. src/vllm_tgis_adapter/
__main__.py builds vLLM's own parser (`make_arg_parser`, vllm.entrypoints.openai.cli_args) inside an
EnvVarArgumentParser, adds TGIS's arguments (`add_tgis_args`) and maps them onto vLLM's
(`postprocess_tgis_args`) before the engine starts, so every vLLM flag is read, and:

- every argument falls back to the env var of its dest, upper-cased (`_to_env_var`: MAX_MODEL_LEN,
  TENSOR_PARALLEL_SIZE, MODEL_NAME, ...) when that var is set and not empty (`_switch_action_default` makes it
  the argparse default, which argparse converts with the argument's type; the command line wins);
- `--model-name` replaces `--model`; `--max-sequence-length` is `--max-model-len` (a different
  `--max-model-len` is a ValueError); `--num-gpus` / `--num-shard` are `--tensor-parallel-size` (different from
  each other, or from a tensor parallel size other than 1, a ValueError); `--quantize` is `--quantization`
  (a different one a ValueError); `--max-batch-size` is ignored, with a warning (tgis_utils/args.py).
"""
from __future__ import annotations

from typing import Dict, List

from .flags_vllm import FLAGS as _VLLM_FLAGS
from .flags_vllm import SPEC_ as _VLLM
from .flagspec import EngineSpec, F
from .result import Problem, Setting

MODEL, CTX, PAR = "model", "context", "parallel"

_TGIS = (  # add_tgis_args; what it maps each onto is `postprocess` below
    F("model_name", "--model-name", tags=MODEL, doc="replaces --model"),
    F("max_sequence_length", "--max-sequence-length", kind="int", tags=CTX, doc="is --max-model-len"),
    F("max_new_tokens", "--max-new-tokens", kind="int", default=1024, doc="the gRPC API's output cap"),
    F("max_batch_size", "--max-batch-size", kind="int", doc="ignored, with a warning"),
    F("max_concurrent_requests", "--max-concurrent-requests", kind="int", doc="ignored, with a warning"),
    F("dtype_str", "--dtype-str", doc="is --dtype"),
    F("quantize", "--quantize", choices=("awq", "gptq", "squeezellm"), tags=MODEL, doc="is --quantization"),
    F("num_gpus", "--num-gpus", kind="int", tags=PAR, doc="is --tensor-parallel-size"),
    F("num_shard", "--num-shard", kind="int", tags=PAR, doc="is --tensor-parallel-size"),
    F("grpc_port", "--grpc-port", kind="int", default=8033),
    F("tls_cert_path", "--tls-cert-path"), F("tls_key_path", "--tls-key-path"),
    F("tls_client_ca_cert_path", "--tls-client-ca-cert-path"),
    F("adapter_cache", "--adapter-cache"), F("prefix_store_path", "--prefix-store-path"),
    F("speculator_name", "--speculator-name"),
)


def _with_env(f):
    """The row with its env fallback. A switch is left without one: a store_true switch reads the var as
    "true"/"1" and a BooleanOptionalAction switch (most of vLLM's) keeps the var's text as its value, for vLLM's
    config to read by rules of its own: neither is what the parser's bool reading would say."""
    if f.kind == "bool":
        return f
    return F(f.name, *f.spellings, kind=f.kind, default=f.default, takes=f.takes, negatives=f.negatives,
             env=(f.name.upper(),), int_rule=f.int_rule, choices=f.choices, tags=f.tags, doc=f.doc,
             kvs_until=f.kvs_until, removed_in=f.removed_in, instead=f.instead, int_eras=f.int_eras)


SPEC_ = EngineSpec("vllm", tuple(_with_env(f) for f in _VLLM_FLAGS + _TGIS), int_rule="argparse",
                   underscore_equals_dash=True, allow_abbrev=True, attached_short=True, engine_env=_VLLM.engine_env,
                   config_flags=("config",), dotted_json=True, env_empty_unset=True)

# (TGIS's name, vLLM's it becomes, the vLLM values it may meet without an error (None: any), the adapter's error)
_RENAMES = (("model_name", "model", None, ""),
            ("max_sequence_length", "max_model_len", (), "Inconsistent max_model_len and max_sequence_length"),
            ("quantize", "quantization", (), "Inconsistent quantize and quantization"),
            ("dtype_str", "dtype", ("auto",), "Inconsistent dtype and dtype_str"))


def postprocess(settings: Dict[str, Setting]) -> List[Problem]:
    """Put TGIS's settings where vLLM reads them, as `postprocess_tgis_args` does; the ValueErrors it raises
    (the adapter exits before the engine starts) as problems at the TGIS setting."""
    problems: List[Problem] = []
    for tgis, vllm, allowed, error in _RENAMES:
        given = settings.get(tgis)
        if given is None or given.value in (None, ""):
            continue
        other = settings.get(vllm)
        if allowed is not None and other is not None and other.origin != "default" \
                and other.value not in allowed and other.value != given.value:
            problems.append(_clash(given, f"{_said(given)} and {_said(other)} differ: the adapter exits "
                                          f"(\"{error} arg values\")", tgis))
        settings[vllm] = given
    gpus, shard = settings.get("num_gpus"), settings.get("num_shard")
    num = gpus if gpus is not None and gpus.value is not None else shard
    if num is None or num.value is None:
        return problems
    if gpus is not None and shard is not None and None not in (gpus.value, shard.value) \
            and gpus.value != shard.value:
        problems.append(_clash(shard, f"{_said(gpus)} and {_said(shard)} differ: the adapter exits "
                                      "(\"Inconsistent num_gpus and num_shard arg values\")", "num_shard"))
    tp = settings.get("tensor_parallel_size")
    if tp is not None and tp.origin != "default" and tp.value not in (None, 1, num.value):
        problems.append(_clash(num, f"{_said(tp)} and {_said(num)} differ: the adapter exits (\"Inconsistent "
                                    "tensor_parallel_size and num_gpus/num_shard arg values\")", num.flag_spelling))
    settings["tensor_parallel_size"] = num
    return problems


def _said(s: Setting) -> str:
    return f"{s.flag_spelling} {s.raw_text}" if s.origin == "flag" else f"env {s.flag_spelling}={s.raw_text}"


def _clash(at: Setting, message: str, flag) -> Problem:
    return Problem(message, at.token_index, at.value_span, at.item, flag)
