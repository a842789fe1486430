"""Modules a one-file run does not import unless its file needs them (issue 15: a pre-commit run is mostly import).

Each is imported inside the branch that uses it, behind a cheap test: CTX202's stated-pool physics for a role that
states a pool, the init-container downloads for a pod with init containers, vLLM's bare-number JSON reading for a
refused value. The same runs with a file that needs each module import it, so the tests would notice a predicate
that never lets it load.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
LAZY = ("ctxlint.stated_pools", "ctxlint.adapters.init_downloads", "ctxlint.engines.json_suffixes")

_RUN_OF = ("import os, sys\n"
        "def report():\n"
        "    sys.stderr.write('LOADED ' + ' '.join(m for m in %r if m in sys.modules) + '\\n'); sys.stderr.flush()\n"
        "real_exit = os._exit\n"
        "os._exit = lambda code: (report(), real_exit(code))\n"  # the console script ends with os._exit
        "from ctxlint.cli_check import main\n"
        "sys.argv = ['ctxlint', 'check', '--isolated', '--fail-on', 'never', sys.argv[1]]\n"
        "try:\n    main()\nexcept SystemExit:\n    report(); raise\n")
_RUN = _RUN_OF % (LAZY,)
# kustomize's patch semantics: only for a base whose overlay patches (adapters/kustomize_overlays.py)
PATCHES = ("ctxlint.adapters.kustomize_patches", "ctxlint.adapters.kustomize_merge",
           "ctxlint.adapters.kustomize_patch_inputs")
REPLACEMENTS = "ctxlint.adapters.kustomize_replacements"  # only for an overlay with replacements


def _loaded(path: Path, run: str = _RUN) -> set:
    done = subprocess.run([sys.executable, "-c", run, str(path)], capture_output=True, text=True, cwd=REPO)
    line = next(l for l in done.stderr.splitlines() if l.startswith("LOADED"))
    return set(line.split()[1:])


@pytest.mark.parametrize("sample", ["samples/incident/deployment.yaml",
                                    "samples/kubernetes/llamacpp-ctx-fixed/deployment.yaml"])
def test_a_plain_file_imports_none_of_them(sample):
    assert _loaded(REPO / sample) == set()


def test_each_is_imported_where_a_file_needs_it(tmp_path):
    pod = tmp_path / "pod.yaml"
    pod.write_text("""apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  template:
    spec:
      initContainers:
      - name: fetch
        image: python:3.12
        command: ["huggingface-cli", "download", "Qwen/Qwen3-8B", "--local-dir", "/models/qwen"]
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "/models/qwen", "--num-gpu-blocks-override", "100000",
               "--kv-transfer-config", "{kv_role: 80m}"]
        resources: {limits: {nvidia.com/gpu: 1}}
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
""")
    assert _loaded(pod) == set(LAZY)


def test_kustomize_patches_are_imported_only_for_an_overlay_that_patches(tmp_path):
    (tmp_path / "base").mkdir()
    (tmp_path / "o").mkdir()
    (tmp_path / "base/kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    (tmp_path / "base/deployment.yaml").write_text("""apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "$(MODEL)"]
        env: [{name: MODEL, valueFrom: {configMapKeyRef: {name: runtime, key: MODEL}}}]
""")
    (tmp_path / "o/kustomization.yaml").write_text(
        "resources: [../base]\nconfigMapGenerator: [{name: runtime, literals: [MODEL=Qwen/Qwen3-8B]}]\n")
    run = _RUN_OF % (PATCHES + (REPLACEMENTS,),)
    assert _loaded(REPO / "samples/incident/deployment.yaml", run) == set()
    assert _loaded(tmp_path / "base/deployment.yaml", run) == set()  # an overlay without patches
    with (tmp_path / "o/kustomization.yaml").open("a") as out:
        out.write("images: [{name: vllm/vllm-openai, newTag: v0.11.0}]\n")
    assert _loaded(tmp_path / "base/deployment.yaml", run) == set(PATCHES)
    with (tmp_path / "o/kustomization.yaml").open("a") as out:
        out.write("replacements: [{source: {kind: ConfigMap, name: runtime, fieldPath: data.MODEL}, targets: "
                  "[{select: {kind: Deployment}, fieldPaths: ['spec.template.spec.containers.[name=vllm].image']}]}]\n")
    assert _loaded(tmp_path / "base/deployment.yaml", run) == set(PATCHES) | {REPLACEMENTS}


def test_the_compute_class_reader_is_imported_only_for_a_pod_that_names_a_class(tmp_path):
    # every run sets its files for GKE compute classes (adapters/run_classes.py); the reader itself, only for a pod
    # whose node selector names a class
    run = _RUN_OF % (("ctxlint.adapters.compute_classes",),)
    assert _loaded(REPO / "samples/incident/deployment.yaml", run) == set()
    pod = tmp_path / "pod.yaml"
    pod.write_text("""apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "Qwen/Qwen3-8B"]
        resources: {limits: {nvidia.com/gpu: 1}}
      nodeSelector: {cloud.google.com/compute-class: gpu-l4-x1}
""")
    assert _loaded(pod, run) == {"ctxlint.adapters.compute_classes"}


def test_the_nodepool_reader_is_imported_only_for_a_pod_that_names_a_nodepool(tmp_path):
    # as the compute class reader: a pod whose node selector names a Karpenter NodePool (karpenter.sh/nodepool)
    run = _RUN_OF % (("ctxlint.adapters.karpenter_pools",),)
    assert _loaded(REPO / "samples/incident/deployment.yaml", run) == set()
    pod = tmp_path / "pod.yaml"
    pod.write_text("""apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: ["--model", "Qwen/Qwen3-8B"]
        resources: {limits: {nvidia.com/gpu: 1}}
      nodeSelector: {karpenter.sh/nodepool: gpu}
""")
    assert _loaded(pod, run) == {"ctxlint.adapters.karpenter_pools"}


def test_a_workload_file_with_no_kustomization_above_reads_no_kustomize_module(tmp_path):
    # every engine workload asks whether its file is a kustomize patch (adapters/kustomize_patch_files.py): a few
    # `stat`s, and the overlay reader only where a kustomization is above the file
    overlays = ("ctxlint.adapters.kustomize_overlays", "ctxlint.adapters.kustomize_names")
    run = _RUN_OF % (overlays,)
    sample = REPO / "samples/kubernetes/llamacpp-ctx-fixed/deployment.yaml"  # a Deployment running llama.cpp
    assert _loaded(sample, run) == set()
    (tmp_path / "kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    (tmp_path / "deployment.yaml").write_bytes(sample.read_bytes())
    assert _loaded(tmp_path / "deployment.yaml", run) == set(overlays)


def test_the_srun_request_reader_is_imported_only_for_a_command_under_srun(tmp_path):
    run = _RUN_OF % (("ctxlint.adapters.srun_request",),)
    assert _loaded(REPO / "samples/incident/deployment.yaml", run) == set()
    script = tmp_path / "serve.sh"
    script.write_text("#!/bin/bash\nsrun --gres=gpu:h100:1 vllm serve Qwen/Qwen3-8B --max-model-len 8192\n")
    assert _loaded(script, run) == {"ctxlint.adapters.srun_request"}


# A native manifest states no command line: none of the shell reader, the engine-argument parser, the flag tables,
# the Kubernetes adapters or llama.cpp's slot physics (each once imported by every run: the `ctxlint.engines`
# package's front door, the pod-template gate's table, CTX302's flag lookup, CTX309's module level).
COMMAND_LINES = ("ctxlint.engines.shellwords", "ctxlint.engines.lexer", "ctxlint.engines.execform",
                 "ctxlint.engines.parse", "ctxlint.engines.detect", "ctxlint.engines.flags_sglang",
                 "ctxlint.adapters.pod_templates", "ctxlint.adapters.kubernetes", "ctxlint.physics.llamacpp")


def test_a_native_manifest_imports_no_command_line_reader():
    run = _RUN_OF % (COMMAND_LINES,)
    assert _loaded(REPO / "samples/incident/deployment.yaml", run) == set()
    # the same run on a pod that launches llama.cpp with several slots needs each of them
    sample = REPO / "samples/kubernetes/llamacpp-ctx-too-large/deployment.yaml"
    assert _loaded(sample, run) == set(COMMAND_LINES) - {"ctxlint.engines.flags_sglang", "ctxlint.adapters.pod_templates"}


def test_the_engines_front_door_loads_each_name_from_its_module():
    done = subprocess.run([sys.executable, "-c", """
import sys
import ctxlint.engines as engines
assert "ctxlint.engines.shellwords" not in sys.modules
from ctxlint.engines import split_shell, Token
from ctxlint.engines.shellwords import split_shell as home
assert split_shell is home and Token.__module__ == "ctxlint.engines.tokens"
import importlib
for name in engines.__all__:
    assert getattr(engines, name) is getattr(importlib.import_module("ctxlint.engines." + engines._HOMES[name]), name)
try:
    engines.no_such_name
except AttributeError as e:
    print(e)
"""], capture_output=True, text=True, cwd=REPO)
    assert (done.returncode, done.stdout, done.stderr) == (
        0, "module 'ctxlint.engines' has no attribute 'no_such_name'\n", "")


SGLANG_MEMORY = ("ctxlint.physics.mem_sglang", "ctxlint.physics.reserve_sglang", "ctxlint.physics.vlm_sglang")


def test_sglang_memory_model_is_imported_only_for_an_sglang_budget():
    # physics/budget.py binds SGLang's memory model at the first SGLang budget, not at its own import
    run = _RUN_OF % (SGLANG_MEMORY,)
    assert _loaded(REPO / "samples/kubernetes/vllm-window-too-long/deployment.yaml", run) == set()
    assert _loaded(REPO / "samples/kubernetes/sglang-prefill-decode/deployment.yaml", run) == set(SGLANG_MEMORY)


def test_no_run_builds_a_typing_forward_reference():
    # typing.ForwardRef calls the builtin compile(), whose first call in a process initializes the AST types
    # (~10 M instructions, ~3% of a one-file check): a NamedTuple in a module with `from __future__ import
    # annotations`, or a string inside a subscript at module level, builds one. Every sample is checked.
    run = ("import os, sys, traceback\n"
           "seen = []\n"
           "def hook(event, args):\n"
           "    if event != 'compile':\n        return\n"
           "    stack = traceback.extract_stack()[:-1]\n"  # the frame that called compile() last
           "    if stack[-1].filename.endswith('typing.py') and stack[-1].name == '__init__':\n"  # ForwardRef's
           "        seen.append(next(f'{f.filename}:{f.lineno}' for f in reversed(stack) if not f.filename.endswith('typing.py')))\n"
           "sys.addaudithook(hook)\n"
           "def report():\n"
           "    sys.stderr.write('LOADED ' + ' '.join(sorted(set(seen))) + '\\n'); sys.stderr.flush()\n"
           "real_exit = os._exit\n"
           "os._exit = lambda code: (report(), real_exit(code))\n"
           "from ctxlint.cli_check import main\n"
           "sys.argv = ['ctxlint', 'check', '--isolated', '--fail-on', 'never', '-q', sys.argv[1]]\n"
           "try:\n    main()\nexcept SystemExit:\n    report(); raise\n")
    assert _loaded(REPO / "samples", run) == set()


PROCESSES = ("multiprocessing", "concurrent.futures", "ctxlint.parallel")


def test_a_run_that_stays_in_one_process_imports_no_process_machinery(monkeypatch):
    """--jobs defaults to auto: a file named alone (pre-commit's way) is checked without the parallel runner, and
    a directory too small for a second process (samples/incident: one file) without multiprocessing."""
    monkeypatch.delenv("PRE_COMMIT", raising=False)
    run = _RUN_OF % (PROCESSES,)
    assert _loaded(REPO / "samples/incident/deployment.yaml", run) == set()
    assert _loaded(REPO / "samples/incident", run) == {"ctxlint.parallel"}
