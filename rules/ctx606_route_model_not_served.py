"""A route sends a model name the engine behind it does not serve.

Why:
    vLLM and LMDeploy answer only to the names they serve (`--served-model-name`,
    LMDeploy's `--model-name`, else the model as given, and LoRA adapter names);
    any other name gets HTTP 404 "model ... does not exist". A gateway route whose
    upstream model name differs from what its backend serves fails every request,
    often after a rename on one side only.
    SGLang, TGI, TensorRT-LLM's trtllm-serve and a llama-server that loads one model
    ignore the request's model name, so a different name still reaches the model
    and is not reported; SGLang reads a name with a colon (`qwen3:8b`) as
    `base:adapter` and fails it unless that LoRA adapter is loaded (from 0.5.9;
    0.5.4 to 0.5.8 only with LoRA enabled, older releases never), a served
    name with a colon too before 0.5.23. An engine
    ctxlint cannot identify is not reported, nor a llama-server in router mode
    (`--models-dir`, `--models-preset`), whose names ctxlint cannot read.

Example (bad):
    ```yaml
    kind: KongPlugin
    plugin: ai-proxy
    config:
      model: {name: Qwen3.5-35B-A3B, provider: openai,
              options: {upstream_url: http://vllm-gptoss:8000/v1/chat/completions}}
    # the engine: --served-model-name gpt-oss-20b
    ```

Example (good):
    ```yaml
      model: {name: gpt-oss-20b, ...}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Optional

from ctxlint.findings import Problem
from ctxlint.rules._stack import route_text

if TYPE_CHECKING:  # the stack module loads only for runs with gateways (engine.py)
    from ctxlint.model import Deployment
    from ctxlint.stack import StackView

ID = "CTX606"
NAME = "route-model-not-served"
SEVERITY = "error"
SCOPE = "stack"
TAGS = ()
INPUTS = ("model", "roles[].engine_args", "routes")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


# What each engine does with a request's `model` that it does not serve (read from each engine's server code):
# - vLLM refuses it: vllm==0.34.0:vllm/entrypoints/serve/engine/serving.py `_check_model` (called first by the chat,
#   completion and responses handlers) returns HTTP 404 NotFoundError "The model `X` does not exist. Valid aliases:
#   ..." unless the name is a served name, a loaded LoRA adapter or (VLLM_ALLOW_RUNTIME_LORA_UPDATING) a resolvable one.
# - LMDeploy refuses it: lmdeploy==0.18.0:lmdeploy/serve/openai/endpoints/common.py `validate_request` returns HTTP 404
#   "The model 'X' does not exist." unless it is in utils.py `get_model_list` (--model-name, else the model path, and
#   the adapter names).
# - SGLang ignores it: sglang==0.5.23:sglang/srt/entrypoints/openai/serving_base.py `handle_request` validates the
#   messages, not the model (serving_chat.py/serving_completions.py `_validate_request`); only
#   `_parse_model_parameter` reads it, as "base:adapter" when it holds a colon and is not the served name, and the
#   adapter then fails in managers/tokenizer_manager.py `_validate_and_resolve_lora` ("LoRA adapter 'Y' was requested,
#   but LoRA is not enabled", a ValueError that handle_request answers with HTTP 400). /v1/models/{model} is the only
#   404 (http_server.py retrieve_model). Older releases do not: sglang 0.4.6 (srt/openai_api/adapter.py) up to
#   0.5.3.post1 (entrypoints/openai/serving_base.py) never parse the name; 0.5.4 to 0.5.8 parse it, but
#   managers/tokenizer_manager.py drops the adapter unless LoRA is enabled (`if self.server_args.enable_lora and
#   obj.lora_path`), which --lora-paths turns on (server_args.py); 0.5.9 is the first to raise "LoRA is not enabled".
# - TGI ignores it: huggingface/text-generation-inference@db931fcf42da018a3657580c64bf2720f167f9ab:router/src/server.rs
#   `chat_completions` only echoes it (`Some("tgi") | None => info.model_id`, else the name as sent).
# - llama-server with one model ignores it: ggml-org/llama.cpp@fb4026604c67c682f552337ec9b91eced0abd35a:
#   tools/server/server-context.cpp `handle_completions_impl` sets `oaicompat_model = ctx_server.model_name` and never
#   reads the request's. In router mode (no model given: --models-dir / --models-preset) it routes by name, and an
#   unknown one gets HTTP 400 "model 'X' not found" (ggml-org/llama.cpp@40103380c0e579b976d6d19509bdada4d6aed8a5:
#   tools/server/server-models.cpp `router_validate_model`), but those names are not in the checked files.
# - trtllm-serve ignores it: NVIDIA/TensorRT-LLM@e7f7345e31e574b5d0918b756b871882c7346b3c:
#   tensorrt_llm/serve/openai_server.py `openai_chat`/`openai_completion` never read `request.model` and answer with
#   `model=self.model`.
_REFUSES = {
    "vllm": ("vLLM", 'HTTP 404 "The model `{name}` does not exist"', "add it with --served-model-name"),
    "lmdeploy": ("LMDeploy", "HTTP 404 \"The model '{name}' does not exist.\"", "set it with --model-name"),
}


def _refusal(dep: Deployment, upstream: str) -> Optional[str]:
    """What the engine answers a request for `upstream`, which it does not serve; None when it answers anyway."""
    from ctxlint.stack import served_names
    engine = dep.engine.name.value if dep.engine.name is not None else None
    if engine in _REFUSES:
        label, answer, fix = _REFUSES[engine]
        return f"{label} answers every request with {answer.format(name=upstream)}; use the served name, or {fix}"
    if engine == "sglang":
        adapter = _sglang_adapter(dep, upstream)
        if adapter and adapter not in served_names(dep):
            return (f"SGLang reads it as base:adapter and fails every request with HTTP 400 (LoRA adapter "
                    f"{adapter!r} is not loaded); use the served name, or no colon (SGLang ignores any other name)")
    return None


def _sglang_adapter(dep: Deployment, upstream: str) -> Optional[str]:
    """The LoRA adapter an SGLang release reads from a requested name, which fails unless it is loaded (see above);
    a release ctxlint cannot read is taken as a current one. sglang 0.5.4 to 0.5.22 split any name at its first
    colon, the served name too (serving_base.py `_parse_model_parameter`); 0.5.23 keeps the served name whole,
    and reads `<served name>:<adapter>` after it."""
    from ctxlint.versions import parse_version
    version = parse_version(dep.engine.version.value) if dep.engine.version is not None else None
    if ":" not in upstream or version is not None and version < parse_version("0.5.4"):
        return None
    if version is not None and version < parse_version("0.5.9") and \
            not any(r.arg("lora_paths") is not None for r in dep.roles):
        return None  # LoRA not enabled: the adapter is dropped (--enable-lora: not reported, stack.py)
    if version is None or version >= parse_version("0.5.23"):
        served = _sglang_served(dep)
        if upstream == served:
            return None
        if served and upstream.startswith(f"{served}:"):
            return upstream[len(served) + 1:].strip() or None
    return upstream.split(":", 1)[1].strip() or None


def _sglang_served(dep: Deployment) -> Optional[str]:
    """SGLang's one served name: --served-model-name, else the model path."""
    for role in dep.roles:
        name = role.arg("served_model_name")
        if name is not None and isinstance(name.value, str):
            return name.value
    return str(dep.model.id.value) if dep.model.id is not None else None


def check(view: StackView, options) -> Iterator[Problem]:
    upstream = view.route.upstream_model
    if view.serves_name is True and upstream is not None:
        yield from _served_but_split(view, str(upstream.value))
    if view.serves_name is not False or upstream is None:
        return
    from ctxlint.stack import served_names, where
    refused = [(d, _refusal(d, str(upstream.value))) for d in view.deployments]
    refused = [(d, why) for d, why in refused if why is not None]
    if not refused:  # every engine behind it answers any name (or is not one ctxlint knows): not a failure
        return
    served = "; ".join(f"{d.display_name or '(unnamed)'} ({where(d.source)}) serves "
                       f"{', '.join(served_names(d)) or 'no name ctxlint can read'}" for d, _ in refused)
    yield Problem(
        f"the {route_text(view)} sends the model name {upstream.value!r} upstream, which the engine behind it does "
        f"not serve: {served}. {'; '.join(dict.fromkeys(why for _, why in refused))}",
        upstream.source, view.route.label, evidence=view.evidence)


def _served_but_split(view: StackView, upstream: str) -> Iterator[Problem]:
    """An SGLang release that reads the served name itself as base:adapter (a served name with a colon, 0.5.9 to
    0.5.22; 0.5.4 to 0.5.8 with LoRA enabled): every request for it fails."""
    from ctxlint.stack import _loads_adapters, served_names, where
    for dep in view.deployments:
        engine = dep.engine.name.value if dep.engine.name is not None else None
        adapter = _sglang_adapter(dep, upstream) if engine == "sglang" and upstream in served_names(dep) else None
        if adapter and adapter not in served_names(dep) and not _loads_adapters(dep):  # (or loaded at run time)
            yield Problem(
                f"the {route_text(view)} sends the model name {upstream!r} upstream, the name "
                f"{dep.display_name or '(unnamed)'} ({where(dep.source)}) serves, but SGLang "
                f"{dep.engine.version.value if dep.engine.version is not None else ''} reads a name with a colon as "
                f"base:adapter and fails every request with HTTP 400 (LoRA adapter {adapter!r} is not loaded); serve "
                "a name without a colon (--served-model-name), or use SGLang 0.5.23 or later, which keeps the served "
                "name whole", view.route.upstream_model.source, view.route.label, evidence=view.evidence)
