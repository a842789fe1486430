"""A llama-swap config held in a ConfigMap, joined to the pod whose llama-swap container mounts it as `--config`.

The shapes are those of rrumana/k8s-homelab-2@3e8775d5:cluster/apps/ai/llama-backend (llama-swap-configmap.yaml's
`config.yaml` key, mounted by llama-swap-deployment.yaml with `subPath: config.yaml` at /config/config.yaml and read
by `--config /config/config.yaml`, GPUs in the container's limits), hand-written here.
"""
from __future__ import annotations

from ctxlint.engine import lint_paths
from helpers import run

CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: llama-swap-config, namespace: ai}
data:
  config.yaml: |
    models:
      coder:
        cmd: >
          /app/llama-server
          --model /models/coder.gguf
          --ctx-size 32768
"""
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llama-swap, namespace: ai}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: llama-swap
        image: ghcr.io/mostlygeek/llama-swap:cuda
        args: [--config, /config/config.yaml, --listen, ":8080"]
        volumeMounts:
        - {name: swap-config, mountPath: /config/config.yaml, subPath: config.yaml}
        resources: {limits: {nvidia.com/gpu: "2"}}
      volumes:
      - name: swap-config
        configMap: {name: llama-swap-config}
"""


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _devices(tmp_path, deployment, config_map=CONFIG_MAP, one_file=False):
    """(GPU count, device, the count's file) of the model `coder`, its ConfigMap checked with the Deployment."""
    files = {"all.yaml": config_map + "---\n" + deployment} if one_file else \
        {"configmap.yaml": config_map, "deployment.yaml": deployment}
    _write(tmp_path, files)
    [dep] = [d for d in lint_paths([str(tmp_path)]).deployments if d.input_format == "llama-swap"]
    [role] = dep.roles
    count, device = role.accelerators.count, role.accelerators.type
    return (count.value if count else None, device.value if device else None,
            count.source.file.rsplit("/", 1)[-1] if count else None)


def test_the_models_get_the_gpus_and_device_of_the_pod_that_mounts_the_config(tmp_path):
    # before: no GPU count, no device (a `default-accelerator:` was the only way to state them)
    assert _devices(tmp_path / "split", DEPLOYMENT) == (2, "L4", "deployment.yaml")
    assert _devices(tmp_path / "one", DEPLOYMENT, one_file=True) == (2, "L4", "all.yaml")


def test_a_directory_mount_an_items_path_and_a_projected_volume_place_the_key(tmp_path):
    whole = DEPLOYMENT.replace("mountPath: /config/config.yaml, subPath: config.yaml", "mountPath: /config")
    assert _devices(tmp_path / "dir", whole)[:2] == (2, "L4")
    renamed = whole.replace("configMap: {name: llama-swap-config}",
                            "configMap: {name: llama-swap-config, items: [{key: config.yaml, path: swap.yaml}]}")
    assert _devices(tmp_path / "items", renamed)[:2] == (None, None)  # the key is at /config/swap.yaml
    assert _devices(tmp_path / "items2", renamed.replace("/config/config.yaml", "/config/swap.yaml"))[:2] == (2, "L4")
    projected = whole.replace("configMap: {name: llama-swap-config}",
                              "projected: {sources: [{configMap: {name: llama-swap-config}}]}")
    assert _devices(tmp_path / "projected", projected)[:2] == (2, "L4")
    equals = DEPLOYMENT.replace("args: [--config, /config/config.yaml,", "args: [-config=/config/config.yaml,")
    assert _devices(tmp_path / "equals", equals)[:2] == (2, "L4")


def test_no_join_unless_exact(tmp_path):
    elsewhere = DEPLOYMENT.replace("mountPath: /config/config.yaml", "mountPath: /etc/swap/config.yaml")
    assert _devices(tmp_path / "elsewhere", elsewhere) == (None, None, None)  # --config reads another file
    no_flag = DEPLOYMENT.replace("args: [--config, /config/config.yaml, ", "args: [")
    assert _devices(tmp_path / "noflag", no_flag) == (None, None, None)  # the image's default: not read here
    other_ns = DEPLOYMENT.replace("namespace: ai", "namespace: other")
    assert _devices(tmp_path / "ns", other_ns) == (None, None, None)
    not_swap = DEPLOYMENT.replace("ghcr.io/mostlygeek/llama-swap:cuda", "busybox:1")
    assert _devices(tmp_path / "busybox", not_swap) == (None, None, None)
    # a llama-swap program named by the command, in an image of its own, is llama-swap
    by_command = not_swap.replace("args: [", "command: [/app/llama-swap]\n        args: [")
    assert _devices(tmp_path / "command", by_command)[:2] == (2, "L4")


def test_pods_that_disagree_leave_the_devices_unknown(tmp_path):
    second = DEPLOYMENT.replace("name: llama-swap,", "name: llama-swap-b,")
    assert _devices(tmp_path / "alike", DEPLOYMENT + "---\n" + second)[:2] == (2, "L4")
    other = second.replace('nvidia.com/gpu: "2"', 'nvidia.com/gpu: "1"')
    assert _devices(tmp_path / "differ", DEPLOYMENT + "---\n" + other) == (None, None, None)


def test_the_config_map_named_alone_reads_its_directory(tmp_path, monkeypatch):
    # pre-commit passes the staged ConfigMap: the Deployment beside it is context
    _write(tmp_path, {"d/configmap.yaml": CONFIG_MAP, "d/deployment.yaml": DEPLOYMENT})
    monkeypatch.chdir(tmp_path)
    [dep] = lint_paths(["d/configmap.yaml"]).deployments
    assert dep.roles[0].accelerators.count.value == 2
    assert run(["check", "d/configmap.yaml"]).code in (0, 1)


def test_odd_shapes_never_crash(tmp_path):
    odd = DEPLOYMENT.replace("- {name: swap-config, mountPath: /config/config.yaml, subPath: config.yaml}",
                             "- just-a-string").replace("- name: swap-config\n", "- 7\n      - name: swap-config\n")
    assert _devices(tmp_path / "odd", odd) == (None, None, None)
    no_value = DEPLOYMENT.replace("args: [--config, /config/config.yaml, --listen, \":8080\"]", "args: [--config]")
    assert _devices(tmp_path / "novalue", no_value) == (None, None, None)


def _ctx008(tmp_path, deployment):
    _write(tmp_path, {"configmap.yaml": CONFIG_MAP, "deployment.yaml": deployment})
    out = run(["check", "--isolated", "--select", "CTX008", str(tmp_path)]).out
    return [line.split(str(tmp_path) + "/", 1)[-1] for line in out.splitlines() if "llama-swap config" in line]


def test_why_a_mounting_pod_is_not_joined_is_said_at_the_data_key(tmp_path):
    elsewhere = DEPLOYMENT.replace("mountPath: /config/config.yaml", "mountPath: /etc/swap/config.yaml")
    [line] = _ctx008(tmp_path / "elsewhere", elsewhere)
    assert line.startswith("configmap.yaml:5:3: CTX008 [info]")
    assert "deployment.yaml:9 mounts it at /etc/swap/config.yaml but reads --config /config/config.yaml" in line
    other = DEPLOYMENT.replace("name: llama-swap,", "name: llama-swap-b,").replace('nvidia.com/gpu: "2"',
                                                                                 'nvidia.com/gpu: "1"')
    [line] = _ctx008(tmp_path / "differ", DEPLOYMENT + "---\n" + other)
    assert ("2 llama-swap containers read it as --config with different GPUs or devices (deployment.yaml:9: 2 GPU(s) "
            "of L4; deployment.yaml:27: 1 GPU(s) of L4)") in line
    assert _ctx008(tmp_path / "joined", DEPLOYMENT) == []


def test_a_pod_whose_own_file_defines_the_config_map_is_not_joined_to_another_file_s(tmp_path):
    # review rv-join32: the pod reads the ConfigMap of its own file (config_map_refs), not the same-named one of
    # configmap.yaml, whose models ran on its GPUs
    other = CONFIG_MAP.replace("coder.gguf", "other.gguf")
    _write(tmp_path, {"configmap.yaml": CONFIG_MAP, "deployment.yaml": other + "---\n" + DEPLOYMENT})
    found = {}
    for dep in lint_paths([str(tmp_path)]).deployments:
        if dep.input_format == "llama-swap":
            [role] = dep.roles
            found[dep.source.file.rsplit("/", 1)[-1]] = role.accelerators.count and role.accelerators.count.value
    assert found == {"configmap.yaml": None, "deployment.yaml": 2}


def test_the_last_config_flag_is_the_one_llama_swap_reads(tmp_path):
    # review rv-join32: Go's flag package keeps the last value of a flag given twice (a `command` and its `args`)
    twice = DEPLOYMENT.replace("args: [--config, /config/config.yaml",
                               "command: [/app/llama-swap, -config, /app/config.yaml]\n"
                               "        args: [--config, /config/config.yaml")
    assert _devices(tmp_path / "read", twice)[:2] == (2, "L4")
    other = DEPLOYMENT.replace("args: [--config, /config/config.yaml",
                               "command: [/app/llama-swap, -config, /config/config.yaml]\n"
                               "        args: [--config, /elsewhere.yaml")
    assert _devices(tmp_path / "not", other)[:2] == (None, None)


def test_a_sub_path_expr_mount_is_not_the_whole_volume(tmp_path):
    # review rv-join32: `subPathExpr` mounts a subdirectory named at run time, not the volume's root
    expr = DEPLOYMENT.replace("mountPath: /config/config.yaml, subPath: config.yaml",
                              "mountPath: /config, subPathExpr: $(POD_NAME)")
    assert _devices(tmp_path, expr)[:2] == (None, None)


def test_a_container_env_that_picks_devices_is_not_joined(tmp_path):
    # review rv-join32: the models' processes inherit the llama-swap container's environment, so its
    # CUDA_VISIBLE_DEVICES=0 leaves each model 1 of the pod's 2 GPUs; they got 2
    env = DEPLOYMENT.replace("        resources:",
                             "        env: [{name: CUDA_VISIBLE_DEVICES, value: '0'}]\n        resources:")
    assert _devices(tmp_path, env)[:2] == (None, None)
    [line] = _ctx008(tmp_path / "why", env)
    assert line.startswith("configmap.yaml:5:3: CTX008 [info]")
    assert "deployment.yaml:9 sets CUDA_VISIBLE_DEVICES, which every model's process inherits" in line


def test_a_container_with_no_config_flag_is_not_said_to_run_other_models(tmp_path):
    # review rv-join32: with no `--config` the image's own one applies (mostlygeek/llama-swap's ENTRYPOINT names
    # -config /app/config.yaml), so a mount at /app/config.yaml is read: CTX008 said its GPUs "are not this
    # config's models'"
    default = DEPLOYMENT.replace('args: [--config, /config/config.yaml, --listen, ":8080"]', 'args: [--listen, ":8080"]')
    [line] = _ctx008(tmp_path, default.replace("mountPath: /config/config.yaml", "mountPath: /app/config.yaml"))
    assert "mounts it at /app/config.yaml but names no absolute --config path (the image's own default" in line
    assert "are not this config's models'" not in line


def test_a_privileged_container_is_not_joined(tmp_path):
    # review rv-join32: a privileged container sees every GPU of its node (a plain Deployment's engine reads no
    # count then), but the join gave its models its GPU limit of 2
    privileged = DEPLOYMENT.replace("        resources:", "        securityContext: {privileged: true}\n        resources:")
    assert _devices(tmp_path / "count", privileged)[:2] == (None, None)
    [line] = _ctx008(tmp_path / "why", privileged)
    assert "deployment.yaml:9 is privileged: every model's process sees every GPU of its node" in line


def test_a_joined_pod_with_no_device_is_told_to_name_one_not_to_mount_it(tmp_path):
    # review rv-join32: CTX208 said a mounting pod "gives its device only when checked with it and mounting it at
    # its --config" of a pod that is checked with it and mounts it there, and gives its GPUs, but names no device
    config_map = CONFIG_MAP.replace("/models/coder.gguf", "/models/Qwen_QwQ-32B-Q4_K_M.gguf")
    no_selector = DEPLOYMENT.replace("      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}\n", "")
    _write(tmp_path, {"configmap.yaml": config_map, "deployment.yaml": no_selector})
    out = run(["check", "--isolated", "--select", "CTX208", str(tmp_path)]).out
    assert "gives them its GPUs, deployment.yaml:13, but its node selector names no device" in out
    assert "only when checked with it" not in out
