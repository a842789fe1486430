"""A pinned vLLM release without the model's architecture, which it refuses or runs only via a fallback.

Why:
    vLLM picks a model's code by the class in its config.json `architectures`, looked up in the
    release's model registry. A class added in a later release is unknown to an image pinned
    before it, and a capacity verdict for that release is moot: the engine never serves the
    model. Before 0.7.2 vLLM refuses outright ("Model architectures [...] are not supported for
    now", vllm-project/vllm@v0.7.1:vllm/model_executor/models/registry.py `_raise_for_unsupported`).
    From 0.7.2 it falls back to its Transformers backend, which runs the model only when the
    image's transformers library implements the class in a way vLLM can use, and otherwise stops
    with "<class> has no vLLM implementation and the Transformers implementation is not compatible
    with vLLM" (vllm-project/vllm@v0.7.2:vllm/model_executor/model_loader/utils.py
    `resolve_transformers_fallback`); an image usually ships a transformers as old as its vLLM.
    The first release of each class is read in the registries vLLM published
    (ctxlint.physics.vllm_archs); a class not listed there is never reported.

Example (bad):
    ```yaml
    spec:
      model: {id: openai/gpt-oss-20b}
      engine: {name: vllm, version: "0.9.2"}   # GptOssForCausalLM is registered from 0.10.1
    ```

Example (good):
    ```yaml
    spec:
      model: {id: openai/gpt-oss-20b}
      engine: {name: vllm, version: "0.10.1"}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment
from ctxlint.rules._engine import engine_id
from ctxlint.versions import parse_version

ID = "CTX310"
NAME = "model-not-in-release"
SEVERITY = "warning"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "model")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

FALLBACK = "0.7.2"  # the first release with the Transformers fallback (0.7.1's registry has no TransformersModel)


def check(dep: Deployment, options) -> Iterator[Problem]:
    version = dep.engine.version
    if engine_id(dep) != "vllm" or version is None or dep.arch is None:
        return
    pinned = parse_version(version.value)
    if pinned is None:
        return
    from ctxlint.physics.vllm_archs import first_release, source  # only a pinned vLLM with a resolved model pays

    found = first_release(dep.arch)
    # a pre-release of the first release may already have the class: only the releases before it are certain
    if found is None or parse_version(".".join(map(str, pinned.release))) >= parse_version(found[0]):
        return
    first, cls = found
    model = dep.model.id.value if dep.model.id is not None else getattr(dep.arch, "name", "the model")
    lacks = (f"vLLM {version.value} has no implementation of {cls} (the architecture of {model}): its model "
             f"registry gains it in {first} ({source(first)})")
    if pinned < parse_version(FALLBACK):
        outcome = f"so it refuses to load the model (\"Model architectures ['{cls}'] are not supported for now\")"
    else:
        outcome = (f"so it runs the model only through its Transformers fallback, if the image's transformers "
                   f"implements {cls} in a way vLLM can use, and otherwise stops (\"{cls} has no vLLM implementation "
                   "and the Transformers implementation is not compatible with vLLM\", 0.7.2's wording); ctxlint's "
                   "estimates assume vLLM's own implementation")
    yield Problem(f"{lacks}, {outcome}. Use vLLM {first} or later", version.source, dep.display_name)
