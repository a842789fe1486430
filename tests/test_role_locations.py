"""A finding about one role is placed at that role's own values: its model (whence an engine default), not
the first role's (sweep 39: two launches in a script, a prefill and a decode LeaderWorkerSet)."""
from __future__ import annotations

import json

from ctxlint.model import Deployment, ModelFacts, Role, Source, Val
from ctxlint.records import replace
from tests.helpers import run

TWO_SGLANG = """\
#!/bin/bash
python -m sglang.launch_server \\
    --model-path Qwen/Qwen3-8B \\
    --max-total-tokens 8192 --port 8000 &
sleep 5
python -m sglang.launch_server \\
    --model-path Qwen/Qwen3-8B \\
    --max-total-tokens 4096 --port 8001 &
"""

TWO_VLLM = """\
#!/bin/bash
vllm serve Qwen/Qwen3-8B --kv-cache-memory-bytes 1G --port 8000 &
sleep 5
vllm serve Qwen/Qwen3-8B --kv-cache-memory-bytes 2G --port 8001 &
"""

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: %(name)s}
spec:
  replicas: 1
  leaderWorkerTemplate:
    size: 1
    workerTemplate:
      spec:
        containers:
          - name: engine
            image: vllm/vllm-openai:v0.11.2
            command:
              - bash
              - -c
              - |
                vllm serve Qwen/Qwen3-8B %(args)s \\
                  --kv-transfer-config '{"kv_connector":"P2pNcclConnector","kv_role":"%(kv_role)s"}'
            resources:
              limits: {nvidia.com/gpu: "1"}
"""


def _lines(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    result = run(["check", "--format", "json", str(path)])
    return [(f["rule"], f["line"], f["column"], f["message"].split(":")[0]) for f in json.loads(result.out)["findings"]]


def test_each_sglang_launch_default_context_at_its_own_model(tmp_path):
    found = [f for f in _lines(tmp_path, "two.sh", TWO_SGLANG) if f[0] == "CTX201"]
    assert [f[1:3] for f in found] == [(3, 18), (7, 18)]


def test_each_vllm_launch_default_context_at_its_own_model(tmp_path):
    found = [f for f in _lines(tmp_path, "two.sh", TWO_VLLM) if f[0] == "CTX201"]
    assert [f[1:3] for f in found] == [(2, 12), (4, 12)]


def test_decode_default_context_at_the_decode_workload(tmp_path):
    prefill = LWS % {"name": "prefill", "args": "--max-model-len 10000", "kv_role": "kv_producer"}
    decode = LWS % {"name": "decode", "args": "--port 8001", "kv_role": "kv_consumer"}
    found = [f for f in _lines(tmp_path, "pd.yaml", prefill + "---\n" + decode) if f[0] == "CTX108"]
    # the decode's own `vllm serve` model (the second document), not the prefill's at line 17
    assert found == [("CTX108", 38, 28, "decode context length 40,960 differs from prefill 10,000 (line 17)")]


def _src(line, end_line=0):
    return Source("f.yaml", line, 1, end_line=end_line, end_col=1)


def test_model_source_falls_back_to_the_role_when_the_model_is_another_roles():
    first = Role(Val("prefill", _src(5)), source=_src(5, 20))
    second = Role(Val("decode", _src(21)), source=_src(21, 40))
    model = Val("m", _src(8))  # written in the first role's span, and neither role has a model argument
    dep = Deployment("f.yaml", _src(1), "kubernetes", roles=(first, second), model=ModelFacts(id=model))
    assert dep.model_source(first) == model.source
    assert dep.model_source(second) == second.source
    # a model named outside every role (a native manifest's spec.model.id) stays the place for each
    outside = replace(dep, model=ModelFacts(id=Val("m", _src(3))))
    assert outside.model_source(second) == _src(3)
