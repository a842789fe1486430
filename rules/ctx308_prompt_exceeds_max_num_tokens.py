"""TensorRT-LLM without chunked prefill accepting prompts longer than max_num_tokens: they are rejected.

Why:
    trtllm-serve's PyTorch backend puts a whole prompt in one batch unless
    `enable_chunked_prefill` is on (default off), and rejects longer prompts
    with HTTP 400 "The sum of prompt length (X), query length (Y) should not
    exceed max_num_tokens (Z)". max_num_tokens defaults to 8,192, so a
    long-context deployment that leaves both at their defaults serves only
    short prompts (engines.md §4.2, §12.12). The longest prompt is the
    smallest of the advertised window (or gateway cap), max_input_len and
    max_seq_len. A role whose extra_llm_api_options file is not in the
    manifest is not judged: the file may set either, and it overrides the
    command line (CTX008 names it). A decode (generation) role of a
    disaggregated deployment is not judged: TensorRT-LLM skips the check for
    generation-only requests (tensorrt_llm/llmapi/llm.py). A context-parallel
    role (cp_size, or the LLM-API key context_parallel_size) splits a prompt
    over its cp_size ranks before the check: it compares prompt / cp_size
    with max_num_tokens, so it takes prompts up to max_num_tokens x cp_size.

    The check is the PyTorch backend's, and PyTorch is trtllm-serve's default
    only from TensorRT-LLM 1.0: before, a command without `--backend pytorch`
    served a TensorRT engine, which has no such check. So a role that names
    no backend is judged when its release is 1.0 or later; with an unknown
    release (a `latest` tag, a custom image) the two defaults disagree and it
    is not judged, as with other defaults that changed between releases
    (state the image tag, or `--backend pytorch`). Dynamo's TensorRT-LLM
    worker always runs PyTorch.

Example (bad):
    ```yaml
    advertised: {context_window: 131072}
    engine: {name: trtllm}
    serving:
      roles:
        - role: unified
          context_length: 131072
          engine_args: {max_num_tokens: 8192}
    ```

Example (good):
    ```yaml
    advertised: {context_window: 131072}
    engine: {name: trtllm}
    serving:
      roles:
        - role: unified
          context_length: 131072
          engine_args: {max_num_tokens: 8192, enable_chunked_prefill: true}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

from ctxlint.findings import Problem
from ctxlint.model import DECODE, Deployment, Source, fmt
from ctxlint.rules._common import max_prompt
from ctxlint.rules._engine import bool_arg, engine_context, engine_id, first_arg, int_arg, shown

ID = "CTX308"
NAME = "prompt-exceeds-max-num-tokens"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("advertised.context_window", "gateway.max_prompt_tokens", "engine", "roles[].context_length",
          "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

DEFAULT_MAX_NUM_TOKENS = 8192  # trtllm-serve / BuildConfig default
BACKEND = None  # trtllm-serve's --backend flag: its default depends on the release (bound on the first TRT-LLM role)


def check(dep: Deployment, options) -> Iterator[Problem]:
    global BACKEND
    if engine_id(dep) != "trtllm":
        return
    if BACKEND is None:  # flags_trtllm is ~0.9 ms of import: a run with no TRT-LLM deployment never pays it
        from ctxlint.engines.flags_trtllm import SPEC_
        BACKEND = SPEC_.by_name("backend")
    for role in dep.roles:
        if role.settings_unread is not None:
            continue  # enable_chunked_prefill or max_num_tokens may be in it, and it beats the command line
        if _generation_server(role):
            continue  # a generation-only request skips the check (llmapi/llm.py BaseLLM._check_arguments)
        chunked = bool_arg(role, "enable_chunked_prefill")
        backend = first_arg(role, "backend")  # as given (or as Dynamo's worker sets it), else the release's default
        if (chunked is not None and chunked[0]) or \
                (backend[1].value if backend is not None else _default_backend(dep)) != "pytorch":
            continue
        limits: List[Tuple[int, str, Source]] = []
        prompt = max_prompt(dep)
        if prompt is not None:
            limits.append(prompt)
        ctx = engine_context("trtllm", role)
        if ctx is not None:
            limits.append((ctx[0] - 1, f"{ctx[2]} {shown(ctx[1], ctx[0])} minus one output token", ctx[1].source))
        max_input = int_arg("trtllm", role, "max_input_len")
        if max_input is not None:
            limits.append((max_input[0], f"max_input_len {shown(max_input[1], max_input[0])}", max_input[1].source))
        if not limits:
            continue
        longest, what, where = min(limits, key=lambda item: item[0])
        budget = int_arg("trtllm", role, "max_num_tokens")
        tokens = budget[0] if budget else DEFAULT_MAX_NUM_TOKENS
        # TensorRT-LLM compares `prompt_len / cp_size + query_len` with max_num_tokens: a context-parallel
        # role splits the prompt over its cp_size ranks first (NVIDIA/TensorRT-LLM@4c05a74891e4df8066f08ed4ce14b09
        # 72abe4e25:tensorrt_llm/llmapi/llm.py BaseLLM._check_arguments; cp_size is LlmArgs.context_parallel_size)
        cp = int_arg("trtllm", role, "cp_size")
        parts = cp[0] if cp is not None and cp[0] > 1 else 1
        if longest <= tokens * parts:
            continue
        named = f"max_num_tokens {shown(budget[1], tokens)}" if budget else f"the default max_num_tokens {fmt(tokens)}"
        if parts == 1:
            head, above, raise_to = f"{fmt(longest)} > {fmt(tokens)}", f"any prompt above {named}", longest
        else:
            head = f"{fmt(longest)} / cp_size {shown(cp[1], parts)} > {fmt(tokens)}"
            above = (f"any prompt whose length over its {parts} context-parallel ranks exceeds {named} (a prompt "
                     f"above {fmt(tokens)} x {parts} = {fmt(tokens * parts)} tokens)")
            raise_to = -(-longest // parts)
        yield Problem(
            f"{head}: the {role.label} role accepts prompts up to {fmt(longest)} tokens "
            f"({what}) but without chunked prefill TensorRT-LLM rejects {above} with HTTP 400 "
            f"(\"should not exceed max_num_tokens\"). Set enable_chunked_prefill: true, or raise max_num_tokens "
            f"to {fmt(raise_to)}",
            budget[1].source if budget else where, dep.display_name)


def _default_backend(dep: Deployment) -> Optional[str]:
    """trtllm-serve's default backend in the deployment's release (flags_trtllm: PyTorch from 1.0), None when
    the release is not known and the releases' defaults disagree."""
    release = dep.engine.version.value if dep.engine.version is not None else None
    defaults = BACKEND.default_at(str(release) if release is not None else None)
    return defaults[0] if len(defaults) == 1 else None


def _generation_server(role) -> bool:
    """A decode role TensorRT-LLM itself serves as one (Dynamo's `--disaggregation-mode decode`, flag or
    DYN_TRTLLM_DISAGGREGATION_MODE; trtllm-serve's `--server_role GENERATION` or `generation_servers`); a worker
    marked decode only by its deployment (Dynamo's subComponentType) runs aggregated without the flag, and
    checks the prompt."""
    if role.kind != DECODE:
        return False
    for key in ("disaggregation_mode", "server_role"):
        marker = role.arg(key)
        if marker is not None and str(marker.value).lower() in ("decode", "generation"):
            return True
    return role.role.raw == "generation_servers"
