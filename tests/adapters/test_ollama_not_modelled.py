"""Ollama, a serving engine ctxlint does not model: one CTX008 note where its server starts, never a deployment."""
from __future__ import annotations

from tests.helpers import run

NOTE = "CTX008 [info] Ollama serves here ({what}), an engine ctxlint does not model: this server is not checked{nor} " \
       "(ctxlint checks vLLM, SGLang, TGI, TensorRT-LLM, llama.cpp and LMDeploy) (unresolved-value)\n"


def check(tmp_path, name: str, text: str) -> str:
    (tmp_path / name).write_text(text)
    result = run(["check", "--isolated", str(tmp_path / name)])
    assert "0 deployments" in result.err
    return result.out.replace(f"{tmp_path / name}:", "")


def test_a_kubernetes_container_of_the_ollama_image(tmp_path):
    pod = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: ollama}
spec:
  template:
    spec:
      containers:
      - name: ollama
        image: docker.io/ollama/ollama:0.6.2
        env:
        - {name: OLLAMA_CONTEXT_LENGTH, value: "8192"}
        - {name: OLLAMA_NUM_PARALLEL, valueFrom: {secretKeyRef: {name: s, key: k}}}
        resources: {limits: {nvidia.com/gpu: 1}}
      - name: pull
        image: curlimages/curl
        args: [http://localhost:11434/api/pull]
"""
    assert check(tmp_path, "ollama.yaml", pod) == "9:16: " + NOTE.format(
        what="the image docker.io/ollama/ollama:0.6.2",
        nor=", nor its OLLAMA_CONTEXT_LENGTH=8192 and OLLAMA_NUM_PARALLEL (a value not in the file)")
    # `serve` as the image's arguments is its own CMD; another subcommand starts no server
    assert check(tmp_path, "serve.yaml", pod.replace("env:\n", "args: [serve]\n        env:\n")).startswith("9:16: ")
    assert check(tmp_path, "list.yaml", pod.replace("env:\n", "args: [list]\n        env:\n")) == ""


def test_a_compose_service_and_a_script(tmp_path):
    compose = """\
services:
  ollama:
    image: ollama/ollama:latest
    environment:
      - OLLAMA_NUM_PARALLEL=4
  web:
    image: ghcr.io/open-webui/open-webui:main
    environment: [OLLAMA_BASE_URL=http://ollama:11434]
"""
    assert check(tmp_path, "compose.yaml", compose) == "3:12: " + NOTE.format(
        what="the image ollama/ollama:latest", nor=", nor its OLLAMA_NUM_PARALLEL=4")
    script = """\
#!/bin/bash
export OLLAMA_CONTEXT_LENGTH=32768
nohup ollama serve > /tmp/ollama.log 2>&1 &
sleep 5
ollama pull qwen2.5:7b
docker run -d --gpus=all -e OLLAMA_NUM_PARALLEL=2 -p 11434:11434 ollama/ollama:0.6.2
echo "ollama serve"
"""
    assert check(tmp_path, "start.sh", script) == \
        "3:7: " + NOTE.format(what="`ollama serve`", nor=", nor its OLLAMA_CONTEXT_LENGTH=32768") + \
        "6:66: " + NOTE.format(what="the image ollama/ollama:0.6.2", nor=", nor its OLLAMA_NUM_PARALLEL=2")


def test_the_ollama_helm_charts_values(tmp_path):
    values = """\
image:
  repository: ollama/ollama
  tag: ""
ollama:
  gpu: {enabled: true, type: nvidia, number: 1}
  models: {pull: [llama3.2]}
extraEnv:
  - {name: OLLAMA_CONTEXT_LENGTH, value: "16384"}
"""
    assert check(tmp_path, "values.yaml", values) == "2:15: " + NOTE.format(
        what="the image ollama/ollama, chart ollama-helm", nor=", nor its OLLAMA_CONTEXT_LENGTH=16384")
