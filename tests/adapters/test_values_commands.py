"""Engine command lines held in the values of a chart ctxlint has no reader for (values_commands.py).

The fixtures are modelled on two shapes seen in public repositories: a chart whose template hands a values
string to `sh -c` (surajssd/llm-k8s@HEAD configs/*/values.yaml, `cli: "vllm serve ..."`), and vLLM's own
example chart, whose `image.command` is the container's exec-form command
(vllm-project/vllm examples/online_serving/chart-helm/values.yaml).
"""
from __future__ import annotations

from helpers import run
from tests.adapters.kit import adapt, at

CLI = """\
single:
  enabled: true
resources:
  nvidia.com/gpu: "1"
cli: "vllm serve Qwen/Qwen2.5-7B-Instruct
      --tensor-parallel-size 2
      --max-model-len 32768"
"""


def test_a_command_string_in_values_is_the_engine_it_runs():
    [dep] = adapt(CLI, "values.yaml").deployments
    assert (dep.input_format, dep.display_name) == ("helm-values", "cli")
    [role] = dep.roles
    assert (dep.engine.name.value, dep.model.id.value) == ("vllm", "Qwen/Qwen2.5-7B-Instruct")
    ctx = role.context_length
    assert (ctx.value, ctx.source.line, ctx.source.col) == (32768, 7, 23)
    assert at(CLI, role.arg("tensor_parallel_size").source) == "2"
    # `resources` is what the chart's template makes of it: neither the GPU count nor the device is guessed
    assert (role.accelerators.count, role.accelerators.type) == (None, None)


IMAGE_COMMAND = """\
image:
  repository: "vllm/vllm-openai"
  tag: "v0.8.5"
  command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "16384"]
replicaCount: 1
"""


def test_an_exec_form_command_list_in_values_is_read():
    [dep] = adapt(IMAGE_COMMAND, "values-llama.yaml").deployments
    assert dep.display_name == "image.command"
    [role] = dep.roles
    assert (dep.model.id.value, role.context_length.value) == ("meta-llama/Llama-3.1-8B-Instruct", 16384)
    assert (role.context_length.source.line, role.context_length.source.col) == (4, 86)
    assert at(IMAGE_COMMAND, role.context_length.source) == "16384"


def test_only_a_launch_at_a_command_start_counts():
    text = """\
description: "Deploy the model with vllm serve behind a gateway"
notes: ["see", "vllm", "serve", "docs"]
image: vllm/vllm-openai:latest
"""
    assert adapt(text, "values.yaml").deployments == []


def test_a_yaml_file_not_named_as_values_is_not_read_for_commands():
    text = 'jobs:\n  smoke:\n    run: "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096"\n'
    assert adapt(text, "workflow.yaml").deployments == []


def test_a_known_charts_values_are_never_read_again_for_commands():
    # production-stack's values with an engine command in a string beside them: the chart's reader alone
    text = """\
servingEngineSpec:
  modelSpec: []
notes: "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096"
"""
    assert adapt(text, "values.yaml").deployments == []


def test_check_says_the_memory_a_command_in_values_needs(tmp_path):
    path = tmp_path / "values.yaml"
    path.write_text(CLI)
    result = run(["check", "--isolated", str(path)])
    assert result.code == 0
    assert result.out.splitlines() == [
        f"{path}:5:6: CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type (or "
        "available_kv_gib) is given; holding one request of 32,768 tokens needs >= 11.8 (band 9.9-14.9) GiB per GPU "
        "at TP 2 (L4 yes, A10G yes, L40S yes, A100-40GB yes, A100-SXM4-80GB yes, H100-SXM-80GB yes, H200 yes, "
        "B200 yes, MI300X yes); state the device (the chart's own template places the pod, and its values' node "
        "selectors are not read: lint what it renders, `helm template REL CHART | ctxlint check -`, whose nodeSelector "
        "and GPU limits are read, or set `default-accelerator:` in .ctxlint.yaml, a device or a glob of this file's "
        "path -> device); capacity checks skip these roles (capacity-not-derivable)"]


def test_the_device_advice_names_what_ctxlint_reads_for_a_release_of_its_own_chart_too():
    # a Flux release's inline values of a chart of its own: a nodeSelector in those values is not read either
    from ctxlint.physics.needs import _advice

    text = """\
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: qwen}
spec:
  chart: {spec: {chart: ./charts/llm}}
  values:
    nodeSelector: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}
    cli: "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096"
"""
    [dep] = adapt(text, "release.yaml").deployments
    assert (dep.input_format, dep.roles[0].accelerators.type) == ("flux-helmrelease", None)
    assert _advice(dep, dep.roles[0]).startswith("state the device (the chart's own template places the pod")


SPLIT = """\
server:
  command: ["vllm", "serve"]
  args: ["meta-llama/Llama-3.1-8B-Instruct", "--max-model-len", "16384"]
api:
  command: ["python3", "-m", "vllm.entrypoints.openai.api_server"]
  args:
    - --model
    - Qwen/Qwen2.5-7B-Instruct
    - --max-model-len
    - "8192"
"""


def test_an_args_list_beside_a_command_list_is_the_rest_of_that_command():
    # Kubernetes runs `command` followed by `args`: the model and context are in the args, never lost
    deps = adapt(SPLIT, "values.yaml").deployments
    assert [(d.display_name, d.model.id.value, d.roles[0].context_length.value) for d in deps] == [
        ("server.command", "meta-llama/Llama-3.1-8B-Instruct", 16384),
        ("api.command", "Qwen/Qwen2.5-7B-Instruct", 8192)]
    ctx = deps[1].roles[0].context_length
    assert (ctx.source.line, ctx.source.col, at(SPLIT, ctx.source)) == (10, 8, "8192")


def test_a_shell_string_in_args_after_sh_c_is_read_once():
    text = 'server:\n  command: [sh, -c]\n  args: ["vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096"]\n'
    [dep] = adapt(text, "values.yaml").deployments
    assert (dep.display_name, dep.model.id.value, dep.roles[0].context_length.value) == (
        "server.command", "Qwen/Qwen2.5-7B-Instruct", 4096)


def test_a_long_string_of_separators_is_read_in_linear_time():
    import time
    # a minified blob or a URL's query: each `;`, `&` or line break was a start rescanned to the text's end
    text = "blob: " + '"' + ";a=/" * 60_000 + '"\nnotes: |\n' + "\n" * 60_000 + "  end\n"
    start = time.monotonic()
    assert adapt(text, "values.yaml").deployments == []
    assert time.monotonic() - start < 5


def test_a_launch_after_sleep_infinity_never_runs():
    # a held-open debug container: the engine command after `sleep infinity` never starts, so nothing is checked
    text = 'debug:\n  command: [sh, -c, "sleep infinity && vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 9999"]\n'
    assert adapt(text, "values.yaml").deployments == []


def test_a_probe_or_hook_command_and_an_alias_are_no_launch_of_their_own():
    text = """\
server:
  cli: &launch "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096"
  livenessProbe:
    exec: {command: [sh, -c, "vllm serve --help"]}
  lifecycle:
    postStart: {exec: {command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "99999"]}}
docs:
  example: *launch
"""
    assert [d.display_name for d in adapt(text, "values.yaml").deployments] == ["server.cli"]
