"""TGI without prefill chunking and max_batch_prefill_tokens below max_input_tokens: it refuses to start.

Why:
    Without prefill chunking a whole prompt is one prefill batch, so TGI
    requires "`max_batch_prefill_tokens` must be >= `max_input_tokens`. Given:
    P and I" (router, backends/v3/src/main.rs; the launcher of TGI 2.x checked
    it unconditionally). Chunking is on by default in TGI 3 but off when
    PREFILL_CHUNKING=0, with speculation, or with an attention backend other
    than flashinfer/flashdecoding (e.g. ATTENTION=paged)
    (server/text_generation_server/models/model.py); TGI 2.4.1 has it off
    unless PREFILL_CHUNKING=1, and defaults max_batch_prefill_tokens to
    min(4096, max_position_embeddings), so a longer max_input_tokens alone is
    refused.

Example (bad):
    ```yaml
    engine: {name: tgi, version: "3.3.4"}
    serving:
      roles:
        - role: unified
          engine_args: {max_input_tokens: 16384, max_batch_prefill_tokens: 4096, PREFILL_CHUNKING: "0"}
    ```

Example (good):
    ```yaml
    engine: {name: tgi, version: "3.3.4"}
    serving:
      roles:
        - role: unified
          engine_args: {max_input_tokens: 16384, max_batch_prefill_tokens: 16384, PREFILL_CHUNKING: "0"}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Optional

from ctxlint.findings import Problem
from ctxlint.physics.context_tgi import TGI_CHUNKING_ATTENTION, tgi_image_attention
from ctxlint.model import Deployment, Role, fmt
from ctxlint.rules._engine import TGI_INPUT_NAMES, bool_arg, engine_id, first_arg, int_arg, shown
from ctxlint.versions import parse_version

ID = "CTX307"
NAME = "prefill-tokens-below-input-tokens"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("engine", "model", "roles[].engine_args")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}

CHUNKING_SINCE = parse_version("3.0.0")  # TGI 3 turned prefill chunking on by default
# TGI 2.4.1 added it, off unless PREFILL_CHUNKING=1 (server/text_generation_server/models/globals.py), and moved
# this check to the router (backends/v3/src/main.rs), which skips it when the backend chunks
CHUNKING_FROM = parse_version("2.4.1")


def check(dep: Deployment, options) -> Iterator[Problem]:
    if engine_id(dep) != "tgi":
        return
    for role in dep.roles:
        given = int_arg("tgi", role, *TGI_INPUT_NAMES)
        if given is None:
            continue
        prefill = int_arg("tgi", role, "max_batch_prefill_tokens", "MAX_BATCH_PREFILL_TOKENS")
        if prefill is None:
            default = _default_prefill(dep)
            if default is None or default[0] >= given[0]:
                continue
            value, text, where = default[0], default[1], given[1].source
        elif prefill[0] >= given[0]:
            continue
        else:
            value, text, where = prefill[0], shown(prefill[1], prefill[0]), prefill[1].source
        why = _no_chunking(dep, role)
        if why is None:
            continue
        yield Problem(
            f"{fmt(value)} < {fmt(given[0])}: the {role.label} max_batch_prefill_tokens {text} is below {given[2]} "
            f"{shown(given[1], given[0])} without prefill chunking ({why}); TGI refuses to start "
            f"(\"`max_batch_prefill_tokens` must be >= `max_input_tokens`\"). Raise max_batch_prefill_tokens to "
            f"{fmt(given[0])}, or lower {given[2]}", where, dep.display_name)


def _default_prefill(dep: Deployment) -> Optional[tuple]:
    """TGI 2.4.1-2.x's launcher default, min(4096, max_position_embeddings) (launcher/src/main.rs at v2.4.1,
    huggingface/text-generation-inference@d2ed52f531cf8098ca62375248e007022eaadc65); earlier 2.x releases
    default it to max_input_tokens + 50 (never below), TGI 3's depends on the GPU's compute."""
    version = parse_version(dep.engine.version.value) if dep.engine.version is not None else None
    positions = getattr(dep.arch, "max_position_embeddings", None)
    if version is None or not CHUNKING_FROM <= version < CHUNKING_SINCE or not positions:
        return None
    value = min(4096, positions)
    return value, f"default (= {fmt(value)}: TGI {version}'s min(4096, max_position_embeddings))"


def _no_chunking(dep: Deployment, role: Role) -> Optional[str]:
    version = parse_version(dep.engine.version.value) if dep.engine.version is not None else None
    if version is not None and version < CHUNKING_FROM:
        return f"TGI {version} predates prefill chunking"
    chunking = bool_arg(role, "PREFILL_CHUNKING", "prefill_chunking")
    if chunking is not None and not chunking[0]:
        return f"{chunking[2]} is off"
    if chunking is None and version is not None and version < CHUNKING_SINCE:
        return f"TGI {version} has it off unless PREFILL_CHUNKING=1"
    attention = first_arg(role, "ATTENTION", "attention")
    if attention is not None and str(attention[1].value).lower() not in TGI_CHUNKING_ATTENTION:
        return f"ATTENTION={attention[1].value} does not support it"
    image = str(dep.engine.version.raw) if dep.engine.version is not None else ""
    if attention is None and tgi_image_attention(image, version) is not None:
        return f"the image {image} sets ATTENTION=paged"  # Dockerfile_amd, Dockerfile_intel before 3.0.2
    speculate = int_arg("tgi", role, "speculate", "SPECULATE")
    if speculate is not None and speculate[0] > 0:
        return "speculation turns it off"
    return None
