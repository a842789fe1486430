"""An engine version with a known defect that this deployment's configuration triggers.

Why:
    Some engine bugs only bite in a particular configuration, and then quietly:
    SGLang's disaggregated prefill handed prompts longer than the prefill pool
    to decode as one-token stubs, and decode answered with HTTP 200 from other
    tenants' KV pages (the incident ctxlint exists for); vLLM admits a request
    longer than its KV pool and waits forever while /health stays green. The
    known defects, their affected versions, fixes and references live in
    lint/data/advisories.json; this rule reports each one whose version range
    contains the deployment's engine version and whose trigger holds. The
    finding points at the version.

Example (bad):
    ```yaml
    advertised: {context_window: 1048576}
    engine: {name: sglang, version: "0.5.21"}
    serving:
      disaggregation: prefill-decode
      roles:
        - {role: prefill, kv_pool_tokens: 681280}
        - {role: decode, kv_pool_tokens: 2040000}
    ```

Example (good):
    ```yaml
    advertised: {context_window: 600000}
    gateway: {max_prompt_tokens: 600000}        # below the prefill pool
    engine: {name: sglang, version: "0.5.21"}
    serving:
      disaggregation: prefill-decode
      roles:
        - {role: prefill, kv_pool_tokens: 681280}
        - {role: decode, kv_pool_tokens: 2040000}
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator

from ctxlint.findings import Problem
from ctxlint.model import Deployment
from ctxlint.rules._advisories import references, triggered
from ctxlint.rules._engine import engine_id, label
from ctxlint.versions import parse_version

ID = "CTX401"
NAME = "known-engine-defect"
SEVERITY = "error"
SCOPE = "deployment"
TAGS = ("security",)
INPUTS = ("disaggregation", "engine", "roles[].context_length", "roles[].pool", "roles[].capacity", "roles[].engine_args",
          "advisories")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    version_val = dep.engine.version
    version = parse_version(version_val.value) if version_val is not None else None
    if version is None:
        return  # CTX402 unknown-engine-version
    for advisory, why in triggered(dep):
        if not advisory.affects(version):
            continue
        yield Problem(
            f"{advisory.id}: {advisory.title}. {label(engine_id(dep))} {version} is affected "
            f"({advisory.ranges()}; {advisory.fix()}) and this deployment triggers it: {'; '.join(why)}. "
            f"{advisory.impact} {advisory.remedy} References: {references(advisory)}",
            version_val.source, dep.display_name)
