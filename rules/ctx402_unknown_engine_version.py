"""No usable engine version where a known engine defect's trigger holds: ctxlint cannot tell whether it applies.

Why:
    CTX401 known-engine-defect needs the engine version to decide whether a
    known defect applies. A missing version, or a tag such as `latest` or
    `nightly`, is not a pass: the configuration triggers the defect and the
    version might be affected. Pin the version (the image tag or the manifest's
    spec.engine.version) so the check can decide.

Example (bad):
    ```yaml
    advertised: {context_window: 1048576}
    engine: {name: sglang}                    # which release?
    serving:
      disaggregation: prefill-decode
      roles:
        - {role: prefill, kv_pool_tokens: 681280}
        - {role: decode, kv_pool_tokens: 2040000}
    ```

Example (good):
    ```yaml
    advertised: {context_window: 1048576}
    engine: {name: sglang, version: "0.5.22"}
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

ID = "CTX402"
NAME = "unknown-engine-version"
SEVERITY = "info"
SCOPE = "deployment"
TAGS = ()
INPUTS = ("disaggregation", "engine", "roles[].context_length", "roles[].pool", "roles[].capacity", "roles[].engine_args",
          "advisories")
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(dep: Deployment, options) -> Iterator[Problem]:
    version_val = dep.engine.version
    if version_val is not None and parse_version(version_val.value) is not None:
        return
    where = version_val or dep.engine.name
    if where is None:
        return
    written = f"the engine version {version_val.value!r} is not a version" if version_val is not None \
        else "no engine version is given"
    for advisory, why in triggered(dep):
        yield Problem(
            f"{written}, so ctxlint cannot tell whether {advisory.id} applies: {advisory.title} "
            f"(affects {label(engine_id(dep))} {advisory.ranges()}; {advisory.fix()}). This deployment triggers "
            f"it: {'; '.join(why)}. Pin the version (spec.engine.version or the image tag). References: "
            f"{references(advisory)}",
            where.source, dep.display_name)
