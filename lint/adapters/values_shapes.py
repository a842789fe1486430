"""The shapes that tell which chart a mapping of Helm values is for, where the chart is read by a module of its
own (helm_production_stack.py, helm_modelservice.py, app_template.py, unmodelled.py): helm_values.read_values tests them first and imports
a chart's module only for its values, so a one-file check of other values never imports it (issue 15); values
no chart claims are read for engine command lines (values_commands.py), imported the same way."""
from __future__ import annotations

from ctxlint.model import DECODE, PREFILL
from ctxlint.nodes import MAP, SEQ, Node


def is_production_stack(root: Node) -> bool:
    """vLLM production-stack's values: `servingEngineSpec.modelSpec`, a list of the models it serves."""
    specs = root.dig("servingEngineSpec", "modelSpec") if root.kind == MAP else None
    return specs is not None and specs.kind == SEQ and bool(specs.value)


def is_modelservice(root: Node) -> bool:
    """llm-d-modelservice's values: `modelArtifacts` beside a `decode` or `prefill` section with containers."""
    return root.get("modelArtifacts") is not None and any(
        (part := root.get(section)) is not None and part.kind == MAP and part.get("containers") is not None
        for section in (DECODE, PREFILL))


def is_app_template(root: Node) -> bool:
    """bjw-s app-template's values (or another chart's on bjw-s's common library): `controllers`, a mapping of
    controllers of which one holds a `containers` mapping."""
    controllers = root.get("controllers") if root.kind == MAP else None
    return controllers is not None and controllers.kind == MAP and any(
        c.kind == MAP and (c.get("containers") is not None and c.get("containers").kind == MAP)
        for c in controllers.value.values())


def is_ollama_chart(root: Node) -> bool:
    """otwld/ollama-helm's values: an `ollama` section beside `image.repository` naming Ollama's image (an engine
    ctxlint does not model: unmodelled.read says so)."""
    image = root.get("image") if root.kind == MAP else None
    repo = image.get("repository") if image is not None and image.kind == MAP else None
    section = root.get("ollama")
    return repo is not None and "ollama" in str(repo.value).lower() and section is not None and section.kind == MAP


# The top-level keys of the charts helm_values.py reads itself (and of their operator and router values, which
# start no engine): values holding one are that chart's, never read again for command lines (values_commands.py).
_KNOWN_KEYS = ("servingEngineSpec", "routerSpec", "catalog", "resourceProfiles", "sampleApplication",
               "modelservice", "vllm_engine_args", "sglang_server_args", "tgi_engine_args", "env_vars", "global")


def has_known_keys(root: Node) -> bool:
    return root.kind == MAP and any(key in root.value for key in _KNOWN_KEYS)
