"""An AWS LMI image configured by env (lmi_env.py): OPTION_*, HF_MODEL_ID and TENSOR_PARALLEL_DEGREE read through
serving.properties' mapping, the vLLM of the tag's LMI release, every finding at its env entry."""
from __future__ import annotations

from ctxlint.adapters import adapt_file
from ctxlint.file_reader import parse_bytes
from helpers import run

IMAGE = "763104351884.dkr.ecr.us-west-2.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128"
ENV = """\
        - {name: HF_MODEL_ID, value: meta-llama/Llama-3.1-8B-Instruct}
        - {name: OPTION_MAX_MODEL_LEN, value: "131072"}
"""


def _deployment(env: str = ENV, image: str = IMAGE) -> str:
    return f"""\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: lmi
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-A10G}}
      containers:
      - name: lmi
        image: {image}
        env:
{env}        resources: {{limits: {{nvidia.com/gpu: 4}}}}
"""


def _at(text: str, source) -> str:
    return text.split("\n")[source.line - 1][source.col - 1:source.end_col - 1]


def _adapt(text: str):
    return adapt_file(parse_bytes(text.encode(), "d.yaml"))


def test_auto_from_lmi15_is_vllm_of_the_release_with_tp_max_the_pods_gpus(tmp_path):
    text = _deployment()
    (dep,) = _adapt(text).deployments
    (role,) = dep.roles
    assert (dep.engine.name.value, dep.engine.version.value) == ("vllm", "0.8.4")
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    assert role.parallelism.tensor.value == 4 and _at(text, role.parallelism.tensor.source) == "4"
    assert role.context_length.value == 131072 and _at(text, role.context_length.source) == '"131072"'
    (tmp_path / "d.yaml").write_text(text)
    r = run(["audit", str(tmp_path / "d.yaml")])
    assert "vllm 0.8.4" in r.out and "464,512 derived" in r.out  # was: no deployment at all


def test_hf_model_id_wins_over_option_model_id_and_tensor_parallel_degree_is_read():
    env = """\
        - {name: OPTION_MODEL_ID, value: other/model}
        - {name: HF_MODEL_ID, value: meta-llama/Llama-3.1-8B-Instruct}
        - {name: TENSOR_PARALLEL_DEGREE, value: "2"}
"""
    text = _deployment(env)
    (dep,) = _adapt(text).deployments
    assert dep.model.id.value == "meta-llama/Llama-3.1-8B-Instruct"
    assert _at(text, dep.model.id.source) == "meta-llama/Llama-3.1-8B-Instruct"
    assert dep.roles[0].parallelism.tensor.value == 2


def test_auto_before_lmi15_is_said_not_read(tmp_path):
    text = _deployment(image=IMAGE.replace("0.33.0-lmi15.0.0-cu128", "0.31.0-lmi13.0.0-cu124"))
    (tmp_path / "d.yaml").write_text(text)
    r = run(["check", str(tmp_path / "d.yaml")])
    assert r.out == (
        f"{tmp_path}/d.yaml:11:16: CTX008 [info] OPTION_ROLLING_BATCH is unset (`auto`): LMI 13 picks lmi-dist "
        "(LMI's vLLM fork), TensorRT-LLM or another handler by the image's features and the model's architecture; "
        "set OPTION_ROLLING_BATCH=vllm (or the engine you deploy) to have it checked (unresolved-value)\n")


def test_a_bad_option_is_said_at_its_env_entry(tmp_path):
    text = _deployment(ENV.replace('"131072"', "128k"))
    (tmp_path / "d.yaml").write_text(text)
    r = run(["check", "--select", "CTX002", str(tmp_path / "d.yaml")])
    assert r.out == f"{tmp_path}/d.yaml:14:47: CTX002 [error] env OPTION_MAX_MODEL_LEN=128k: not a whole number, " \
        "so LMI refuses to start (schema-violation)\n"


def test_tp_max_without_a_gpu_count_is_unknown_and_a_command_is_not_the_entrypoint(tmp_path):
    text = _deployment().replace("        resources: {limits: {nvidia.com/gpu: 4}}\n", "")
    (tmp_path / "d.yaml").write_text(text)
    r = run(["check", "--select", "CTX008", str(tmp_path / "d.yaml")])
    assert r.out == (
        f"{tmp_path}/d.yaml:11:16: CTX008 [info] values ctxlint cannot resolve: env TENSOR_PARALLEL_DEGREE is unset "
        "(`max`): LMI then uses every GPU the container sees, and the pod states no GPU count; the checks that need "
        "them are skipped (set them literally, or state the limits with ctxlint.io/* annotations) (unresolved-value)\n")
    other = _deployment().replace("        env:\n", "        command: [python3, app.py]\n        env:\n")
    assert not _adapt(other).deployments


def test_compose_the_lmi_release_and_a_tag_without_one(tmp_path):
    compose = """\
services:
  lmi:
    image: deepjavalibrary/djl-serving:0.34.0-lmi16.0.0-cu128
    environment:
      HF_MODEL_ID: meta-llama/Llama-3.1-8B-Instruct
      OPTION_TENSOR_PARALLEL_DEGREE: "2"
"""
    (dep,) = adapt_file(parse_bytes(compose.encode(), "compose.yaml")).deployments
    assert (dep.engine.version.value, dep.roles[0].parallelism.tensor.value) == ("0.10.2", 2)
    (tmp_path / "compose.yaml").write_text(compose.replace("0.34.0-lmi16.0.0-cu128", "0.36.0-lmi"))
    r = run(["check", str(tmp_path / "compose.yaml")])
    assert r.out == (
        f"{tmp_path}/compose.yaml:3:12: CTX008 [info] OPTION_ROLLING_BATCH is unset (`auto`): the image's tag names "
        "no LMI release (lmiN), and LMI's `auto` picks its engine by release and by the model's architecture; set "
        "OPTION_ROLLING_BATCH=vllm (or the engine you deploy) to have it checked (unresolved-value)\n")
