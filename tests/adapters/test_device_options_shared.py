"""A workload on several device options (SkyPilot any_of, dstack, Akash) reads its script once for the options whose
containers differ only in their device (workload.read_alike); the result must be what reading each option's
container by itself (read_container) gives, on generated tasks and on every file of the samples and the corpus."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.adapters import adapt_file, device_options, workload
from ctxlint.loader import parse_text
from tests.adapters.kit import adapt

ROOT = Path(__file__).resolve().parents[2]
CORPUS = Path("/work/shared/corpus/real")
DEVICES = ["A100", "A100-80GB", "H100", "L4", "A10G", "tpu-v5e-8", "tpu-v6e-4", "inf2.24xlarge", "Gaudi2", "MI300X",
           "unknown-card"]
SCRIPTS = [
    "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE",
    "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --tensor-parallel-size $TP",  # parallel not known
    "CUDA_VISIBLE_DEVICES=0,1 vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
    "CUDA_VISIBLE_DEVICES=2,3 vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 4096",
    "llama-server -m /models/q.gguf -c 16384 --n-gpu-layers 99",  # llama.cpp splits layers over the count
    "docker run --rm -e VLLM_CPU_KVCACHE_SPACE=40 public.ecr.aws/q9t5s3a7/vllm-cpu-release-repo:v0.9.1 "
    "--model Qwen/Qwen2.5-7B-Instruct --max-model-len 9000",
    "python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B-Instruct --tp 8 --nnodes 2 --context-length 65536",
    "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len x --max-num-seqs lots",  # refused values: diagnostics
    "echo no engine here",
]


def _per_container(containers):
    return [workload.read_container(c) for c in containers]


def _both(loaded, monkeypatch):
    """The adapters' result with the shared reading, then with each option read by itself."""
    shared = adapt_file(loaded)
    with monkeypatch.context() as m:
        m.setattr(device_options, "read_alike", _per_container)
        alone = adapt_file(loaded)
    return shared, alone


def _same(shared, alone):
    assert shared.deployments == alone.deployments
    assert shared.diagnostics == alone.diagnostics
    assert repr(shared.deployments) == repr(alone.deployments)


def _sky(options, count_style, script, nodes, env_tp):
    if count_style == "map":
        accel = "{" + ", ".join(f"{d}:{n}" if n else f"{d}: null" for d, n in options) + "}"
    else:
        accel = "[" + ", ".join(f"{d}:{n}" if n else d for d, n in options) + "]"
    body = "\n".join("  " + line for line in script.split("\n"))
    envs = f"envs:\n  TP: {env_tp}\n" if env_tp else ""
    return f"name: t\nnum_nodes: {nodes}\n{envs}resources:\n  accelerators: {accel}\nrun: |\n{body}\n"


@settings(max_examples=150, deadline=None)
@given(options=st.lists(st.tuples(st.sampled_from(DEVICES), st.sampled_from([None, 1, 2, 4, 8])), min_size=1,
                        max_size=4, unique_by=lambda o: o[0]),
       count_style=st.sampled_from(["map", "list"]), script=st.sampled_from(SCRIPTS), nodes=st.sampled_from([1, 2]),
       env_tp=st.sampled_from([None, 2]))
def test_skypilot_options_read_together_equal_each_read_alone(options, count_style, script, nodes, env_tp):
    import _pytest.monkeypatch
    with _pytest.monkeypatch.MonkeyPatch.context() as mp:
        _same(*_both(parse_text(_sky(options, count_style, script, nodes, env_tp), "sky.yaml"), mp))


@pytest.mark.parametrize("gpu", ["H100,H200:8", "A100:2", "24GB..:1..2", "{name: [A100, H100, L4], count: 4}",
                                 "MI300X,H100:2..8", "tpu-v5e-8"])
@pytest.mark.parametrize("script", SCRIPTS[:4])
def test_dstack_options_read_together_equal_each_read_alone(gpu, script, monkeypatch):
    text = (f"type: service\nname: s\nport: 8000\ncommands:\n  - {script.splitlines()[0]}\n"
            f"resources:\n  gpu: {gpu}\n")
    _same(*_both(parse_text(text, "s.dstack.yml"), monkeypatch))


AKASH = """\
version: "2.0"
services:
  vllm:
    image: vllm/vllm-openai:v0.8.4
    command: [bash, -c]
    args: ["vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 32768 --tensor-parallel-size 2"]
profiles:
  compute:
    vllm:
      resources:
        gpu:
          units: 2
          attributes:
            vendor:
              nvidia:
                - model: a100
                - model: h100
                  ram: 80Gi
                - model: rtx4090
deployment:
  vllm:
    dcloud: {profile: vllm, count: 1}
"""


def test_akash_options_read_together_equal_each_read_alone(monkeypatch):
    _same(*_both(parse_text(AKASH, "deploy.yaml"), monkeypatch))
    assert len(adapt(AKASH).deployments) == 3


def _files():
    roots = [ROOT / "samples"] + ([CORPUS] if CORPUS.is_dir() else [])
    for root in roots:
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith((".yaml", ".yml")):
                    yield Path(dirpath) / name


def test_samples_and_corpus_read_together_equal_each_read_alone(monkeypatch):
    read = 0
    for path in _files():
        text = path.read_text(encoding="utf-8", errors="replace")
        if "accelerators" not in text and "gpu" not in text:
            continue
        _same(*_both(parse_text(text, str(path)), monkeypatch))
        read += 1
    assert read > 10


def test_options_on_devices_alike_are_read_once(monkeypatch):
    reads = []
    real = workload._Reader.read
    monkeypatch.setattr(workload._Reader, "read", lambda self: reads.append(1) or real(self))
    text = "resources:\n  accelerators: {L4:1, A10G:1, A100:1, H100:2}\nrun: vllm serve m --max-model-len 8192\n"
    assert len(adapt(text, "task.yaml").deployments) == 4
    assert len(reads) == 2  # the three one-GPU options together, the two-GPU one (its own SKYPILOT_NUM_GPUS_PER_NODE)
