"""Nodes of another file merged into this file's objects keep their own file and position."""
from __future__ import annotations

from ctxlint.adapters.crd_common import clone, merge_patch
from ctxlint.adapters.scalar_spans import ScalarSpans
from ctxlint.loader import parse_text
from ctxlint.model import Source
from ctxlint.nodes import ForeignNode, adopt

RUNTIME = """\
containers:
  - name: kserve-container
    args: ["--port=8080", "--max-model-len=131072"]
"""
SERVICE = """\
# the service's file
containers:
  - name: kserve-container
    env: [{name: A, value: "1"}]
"""


def test_adopted_nodes_report_their_own_file_inside_another_files_merge():
    runtime = parse_text(RUNTIME, "runtime.yaml").documents[0].root
    service = parse_text(SERVICE, "isvc.yaml").documents[0].root
    foreign = adopt(runtime, ScalarSpans("runtime.yaml", RUNTIME))
    merged = merge_patch(foreign, service)
    container = merged.dig("containers", 0)
    spans = ScalarSpans("isvc.yaml", SERVICE)  # the reader holds the service file's spans
    arg = container.dig("args", 1)
    # a span inside the scalar, aligned on the runtime file's text (the quote is skipped)
    assert spans.source(arg, len("--max-model-len="), len("--max-model-len=131072")) == Source(
        "runtime.yaml", 3, 44, "containers[0].args[1]", 3, 50)
    assert arg.source("isvc.yaml") == Source("runtime.yaml", 3, 27, "containers[0].args[1]", 3, 51)
    # the service's own values stay in its file, and a key of the runtime is the runtime's
    assert container.dig("env", 0, "value").source("isvc.yaml").file == "isvc.yaml"
    assert container.keys["args"].source("isvc.yaml") == Source("runtime.yaml", 3, 5, "containers[0].args", 3, 9)
    # a clone (as merge_patch makes them) stays foreign, with its spans
    copy = clone(arg, value="x")
    assert type(copy) is ForeignNode and copy.source("isvc.yaml").file == "runtime.yaml"
    assert type(merged) is ForeignNode and merged.source("isvc.yaml").file == "runtime.yaml"
