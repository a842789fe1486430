"""An input that breaks its schema: the ctxlint/v1 manifest, or Kubernetes' for an engine container.

Why:
    A missing `context_window`, a role whose `replicas` is a string or an engine
    name outside the known list means ctxlint cannot check the deployment as
    written. Each violation is reported at the offending node with its logical
    path, e.g. `spec.serving.roles[1].replicas`; the most relevant error comes
    first. Also reported here: roles that contradict the serving mode (prefill
    and decode roles without `disaggregation: prefill-decode`, or the reverse).
    `ctxlint schema` prints the schema for editors (yaml-language-server).

    In Kubernetes objects, an engine container the API server would refuse is
    reported here at the offending value: `command`/`args` that are not lists
    of strings (`args: [--max-model-len, 131072]` needs `"131072"`), an env
    var `value` that is not a string, `containers` written as a mapping. Such
    a workload never launches, whatever its capacity. So is a `configMapKeyRef`
    to a key the ConfigMap (of the same file or a sibling one) lacks, unless
    it is `optional: true`: the kubelet does not start the container. A
    workload (`kind: Deployment`, ...) that runs an engine but has no
    `apiVersion` is reported at its `kind` (kubectl refuses the file: "apiVersion
    not set"), and its deployment is still read. An OME InferenceService's
    `spec.runtime` that is not a mapping with a string `name` (`runtime:
    srt-x` for `runtime: {name: srt-x}`) is reported at the value: OME's CRD
    refuses it.

    In Akash SDL files, what Akash refuses in the fields ctxlint reads is
    reported the same way: a `command`, `args` or `env` that is not a list,
    GPU `units`, `ram` or `interface` it cannot parse, a GPU option without a
    `model`, a `deployment` entry naming a service or compute profile that
    does not exist, a `count` below 1, and an SDL without `deployment`.

    In Baseten Truss configs, what Truss refuses at `truss push` in the fields
    ctxlint reads: a `resources.accelerator` name Truss does not know (case
    matters: `h100`) or a count below 1, a `start_command` that is missing or
    not one string, and in `trt_llm` a missing `build` or
    `checkpoint_repository`, a base model or quantization type Truss does not
    know, integers out of their range or written as strings, and v1 build
    fields (`build.max_seq_len`) under `inference_stack: v2`.

Example (bad):
    ```yaml
    spec:
      advertised: {}              # context_window is required
      serving:
        roles: [{role: unified, replicas: "two"}]
    ```

Example (good):
    ```yaml
    spec:
      advertised: {context_window: 131072}
      serving:
        roles: [{role: unified, replicas: 2}]
    ```

Options:
    None.
"""
from __future__ import annotations

from typing import Iterator, Sequence

from ctxlint.findings import Diagnostic, Problem
from ctxlint.rules._common import from_diagnostics

ID = "CTX002"
NAME = "schema-violation"
SEVERITY = "error"
SCOPE = "input"
TAGS = ()
INPUTS = ("schema",)
OPTIONS = {"type": "object", "additionalProperties": False, "properties": {}}


def check(diagnostics: Sequence[Diagnostic], options) -> Iterator[Problem]:
    return from_diagnostics(diagnostics, NAME)
