"""Akash Network SDL (`deploy.yaml`): read as Akash runs it, never as Compose.

`command` replaces the image's entrypoint and `args` follow it (Kubernetes semantics, so `bash -c`
+ an args script is read), `env` is `NAME=value` strings, GPUs and their models come from the compute
profile a `deployment` entry names (each model a provider may bid with checked on its own), replicas
from its `count`; every value at its token, and what Akash refuses is CTX002 at the value.
"""
from __future__ import annotations

import textwrap

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.adapters import adapt_file, kinds
from ctxlint.loader import parse_text
from helpers import run
from tests.adapters.kit import adapt, at

SDL = """\
version: "2.0"
services:
  vllm:
    image: vllm/vllm-openai:v0.8.4
    command:
      - bash
      - "-c"
    args:
      - vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 2 --max-model-len 8192
    env:
      - "HF_TOKEN="
    expose:
      - port: 8000
        to:
          - global: true
profiles:
  compute:
    vllm:
      resources:
        cpu: {units: 16}
        memory: {size: 128Gi}
        storage: {size: 200Gi}
        gpu:
          units: 2
          attributes:
            vendor:
              nvidia:
                - model: h100
                  ram: 80Gi
  placement:
    dcloud:
      pricing:
        vllm: {denom: uakt, amount: 1000}
deployment:
  vllm:
    dcloud:
      profile: vllm
      count: 3
"""


def test_command_replaces_the_entrypoint_and_args_follow():
    # Before: read as Compose, `command` followed the image's entrypoint and `args` were dropped: model `bash`.
    [dep] = adapt(SDL).deployments
    role = dep.roles[0]
    assert (dep.input_format, dep.name.value, dep.engine.name.value, dep.engine.version.value) == \
        ("akash-sdl", "vllm", "vllm", "0.8.4")
    assert dep.model.id.value == "meta-llama/Llama-3.3-70B-Instruct"
    assert at(SDL, dep.model.id.source) == "meta-llama/Llama-3.3-70B-Instruct"
    assert role.context_length.value == 8192 and at(SDL, role.context_length.source) == "8192"
    assert role.parallelism.tensor.value == 2 and role.context_length.source.line == 9
    assert role.accelerators.type.value == "H100-SXM-80GB" and role.accelerators.type.raw == "h100 80Gi"
    assert at(SDL, role.accelerators.type.source) == "h100"
    assert role.accelerators.count.value == 2 and role.accelerators.count.source.path.endswith("gpu.units")
    assert role.replicas.value == 3 and at(SDL, role.replicas.source) == "3"


SGLANG = SDL.replace("vllm/vllm-openai:v0.8.4", "lmsysorg/sglang:v0.4.6.post5-cu124").replace(
    "vllm serve meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 2 --max-model-len 8192",
    "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.3-70B-Instruct --tp 2")


def test_an_sglang_image_with_a_bash_script_is_a_deployment():
    # Before: no deployment at all (the SGLang image has no entrypoint that `bash -c` could follow).
    [dep] = adapt(SGLANG).deployments
    assert (dep.engine.name.value, dep.engine.version.value) == ("sglang", "0.4.6.post5")
    assert at(SGLANG, dep.model.id.source) == "meta-llama/Llama-3.3-70B-Instruct"
    assert dep.roles[0].parallelism.tensor.value == 2 and dep.roles[0].accelerators.count.value == 2


CTX109 = ("CTX109 [error] 131,072 > 32,768 x 1 = 32,768: the unified context length 131,072 exceeds the model's "
          "trained positions times its RoPE scaling factor by 98,304 tokens. Lower it to 32,768, or declare the RoPE "
          "scaling the model is actually served with (--hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\", "
          "\"factor\": F, \"original_max_position_embeddings\": N}}' with F >= 4.00) "
          "(context-exceeds-trained-positions)")


def test_check_reports_at_the_token_in_the_args_script(tmp_path):
    path = tmp_path / "deploy.yaml"
    path.write_text(SDL.replace("meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 2 --max-model-len 8192",
                                "Qwen/Qwen2.5-7B-Instruct --max-model-len 131072"))
    result = run(["check", "--isolated", "--select", "CTX109,CTX002,CTX001", str(path)])
    assert (result.code, result.out) == (1, f"{path}:9:61: {CTX109}\n")
    assert "in 1 file, 1 deployment" in result.err


MODELS = SDL.replace("""\
                - model: h100
                  ram: 80Gi
""", """\
                - model: a100
                - model: a100
                  ram: 81920Mi
                - model: h100
                  ram: 80Gi
                  interface: pcie
                - model: h100
                - {model: h100, ram: 80Gi}
                - model: rtx4090
                - model: rtx6000
""")


def test_each_gpu_model_a_provider_may_bid_with_is_its_own_deployment():
    deps = adapt(MODELS).deployments
    assert [d.name.value for d in deps] == ["vllm [a100]", "vllm [a100 80Gi]", "vllm [h100 80Gi pcie]", "vllm [h100]",
                                            "vllm [rtx4090]", "vllm [rtx6000]"]  # `h100 80Gi` is `h100` again
    types = [d.roles[0].accelerators.type for d in deps]
    # a bare `a100` is any size Akash lists (40, 64 or 80 GB): the family's band; `rtx6000` is Akash's Quadro RTX
    # 6000, which the catalog lacks (not the Ada)
    assert [t.value for t in types] == ["A100 (40 or 80 GB: the label names no size)", "A100-SXM4-80GB", "H100-PCIe-80GB", "H100-SXM-80GB", "RTX-4090",
                                        "rtx6000"]
    assert [at(MODELS, t.source) for t in types] == ["a100", "a100", "h100", "h100", "rtx4090", "rtx6000"]
    assert {d.roles[0].accelerators.count.value for d in deps} == {2}
    # one deployment entry's alternatives: one place (ctxlint audit lists their pools as one entry)
    assert {(d.source.path, at(MODELS, d.source)) for d in deps} == {("deployment.vllm.dcloud", "profile: vllm")}
    any_gpu = adapt(SDL.replace("""
                - model: h100
                  ram: 80Gi""", "")).deployments[0].roles[0].accelerators
    assert any_gpu.type is None and any_gpu.count.value == 2  # `nvidia:` alone: any NVIDIA GPU


TGI = """\
version: "2.1"
services:
  tgi:
    image: ghcr.io/huggingface/text-generation-inference:2.4.1
    args: ["--model-id", "$(MODEL)"]
    env:
      - MODEL=Qwen/Qwen2.5-7B-Instruct
      - "MAX_TOTAL_TOKENS=8192"
      - HF_HUB_OFFLINE
  unused:
    image: vllm/vllm-openai:v0.8.4
    command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct]
profiles:
  compute:
    big-gpu:
      resources:
        gpu: {units: "1", attributes: {vendor: {nvidia: [{model: l40s}]}}}
    two-gpus:
      resources:
        gpu: {units: 2, attributes: {vendor: {nvidia: [{model: a100, ram: 80Gi}]}}}
deployment:
  tgi:
    west: {profile: big-gpu, count: 2}
    east: {profile: two-gpus, count: 1}
"""


def test_env_strings_args_to_the_entrypoint_and_one_deployment_per_placement():
    west, east = adapt(TGI).deployments  # `unused` is placed by no `deployment` entry: Akash never runs it
    assert [west.name.value, east.name.value] == ["tgi [west]", "tgi [east]"]
    assert west.engine.name.value == "tgi" and west.model.id.value == "Qwen/Qwen2.5-7B-Instruct"
    assert at(TGI, west.model.id.source) == "Qwen/Qwen2.5-7B-Instruct"  # the env value `$(MODEL)` names
    role = west.roles[0]
    assert role.context_length.value == 8192 and at(TGI, role.context_length.source) == "8192"
    assert (role.replicas.value, role.accelerators.type.value, role.accelerators.count.value) == (2, "L40S", 1)
    # two GPUs and no NUM_SHARD: TGI's shard count is what the provider's device plugin puts in
    # NVIDIA_VISIBLE_DEVICES, not known (adapters/tgi_shards.py), so the device is withheld from the capacity checks
    assert (east.roles[0].replicas.value, east.roles[0].accelerator_withheld.value) == (1, "A100-SXM4-80GB")
    assert at(TGI, east.roles[0].replicas.source) == "1"
    assert (west.source.path, east.source.path) == ("deployment.tgi.west", "deployment.tgi.east")


def test_a_compose_file_is_never_sdl_and_sdl_never_compose():
    compose = """\
version: "2.1"
services:
  llm:
    image: vllm/vllm-openai:v0.8.4
    command: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]
"""
    [dep] = adapt(compose, "docker-compose.yml").deployments
    assert dep.input_format == "compose" and dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct"
    assert [d.input_format for d in adapt(SDL, "docker-compose.yml").deployments] == ["akash-sdl"]
    assert kinds.selected(("compose", "akash_sdl"), parse_text(compose, "c.yaml")) == ("compose",)
    # version 3 with `deployment` is neither SDL nor valid Compose: read as Compose, as before
    assert not kinds.akash_sdl(parse_text(SDL.replace('"2.0"', '"3.8"'), "d.yaml").documents[0].root)


BROKEN = """\
version: "2.0"
services:
  llm:
    image: vllm/vllm-openai:v0.8.4
    command: "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192"
    env: HF_TOKEN=x
profiles:
  compute:
    llm:
      resources:
        gpu:
          units: two
          attributes:
            vendor:
              nvidia:
                - model: h100
                  ram: 80GB
                  interface: nvlink
                - ram: 80Gi
deployment:
  llm:
    dcloud: {profile: llm, count: 0}
    west: {profile: small, count: 1}
  ghost:
    dcloud: {profile: llm, count: 1}
"""


def test_what_akash_refuses_is_ctx002_at_the_value(tmp_path):
    path = tmp_path / "deploy.yaml"
    path.write_text(BROKEN)
    result = run(["check", "--isolated", "--select", "CTX002", str(path)])
    refused = ": Akash refuses this SDL"
    assert result.code == 1
    assert result.out.replace(f"{path}:", "") == "".join(f"{line} (schema-violation)\n" for line in (
        "5:14: CTX002 [error] services.llm.command: must be a list of strings, not 'vllm serve Qwen/Qwen2.5-7B-Instruct"
        f" --max-model-len 8192'{refused}; run a shell (`command: [sh, -c]`, `args: [\"...\"]`)",
        f"6:10: CTX002 [error] services.llm.env: must be a list of strings, not 'HF_TOKEN=x'{refused}",
        "12:18: CTX002 [error] profiles.compute.llm.resources.gpu.units: `units` must be a whole number of GPUs per "
        f"instance, not 'two'{refused}",
        "17:24: CTX002 [error] profiles.compute.llm.resources.gpu.attributes.vendor.nvidia[0].ram: `ram` must be a "
        f"memory size such as 80Gi, not '80GB'{refused}",
        "18:30: CTX002 [error] profiles.compute.llm.resources.gpu.attributes.vendor.nvidia[0].interface: `interface` "
        f"must be pcie or sxm, not 'nvlink'{refused}",
        "19:19: CTX002 [error] profiles.compute.llm.resources.gpu.attributes.vendor.nvidia[1]: each GPU option names "
        "its `model` (`- model: h100`, with `ram: 80Gi` where a model comes in several sizes)",
        "22:35: CTX002 [error] deployment.llm.dcloud.count: `count`, the instances to run, must be a whole number of 1 "
        "or more",
        "23:21: CTX002 [error] deployment.llm.west.profile: no compute profile 'small' under `profiles.compute`"
        f"{refused} (the service's GPUs are not known)",
        "24:3: CTX002 [error] deployment.ghost: places the service 'ghost', but `services` has no such service"))
    # the string command is still read as the shell line it was meant to be, on the h100 the profile names
    [dep] = [d for d in adapt(BROKEN).deployments if d.name.value == "llm [dcloud]"]
    assert dep.roles[0].context_length.value == 8192 and dep.roles[0].accelerators.type.value == "H100-SXM-80GB"
    nothing = run(["check", "--isolated", "-"], stdin=b'version: "2.1"\nservices: {}\nprofiles: {}\n')
    assert nothing.out == ("-:2:1: CTX002 [error] services: Akash runs only the services a `deployment` mapping places "
                           "(`deployment: {<service>: {<placement>: {profile: <compute profile>, count: 1}}}`), and "
                           "refuses an SDL without one: nothing here runs (schema-violation)\n")


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 10**20) | st.text(max_size=12),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                 max_size=3), max_leaves=8)
_PLACES = (("services",), ("services", "vllm"), ("services", "vllm", "command"), ("services", "vllm", "args"),
           ("services", "vllm", "env"), ("services", "vllm", "image"), ("profiles",), ("profiles", "compute"),
           ("profiles", "compute", "vllm", "resources", "gpu"),
           ("profiles", "compute", "vllm", "resources", "gpu", "units"),
           ("profiles", "compute", "vllm", "resources", "gpu", "attributes", "vendor", "nvidia"),
           ("deployment",), ("deployment", "vllm"), ("deployment", "vllm", "dcloud"),
           ("deployment", "vllm", "dcloud", "count"), ("deployment", "vllm", "dcloud", "profile"))


@settings(max_examples=250, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_PLACES), _JSON), min_size=1, max_size=3))
def test_any_value_anywhere_gives_findings_with_a_place_never_an_exception(changes):
    data = yaml.safe_load(SDL)
    for place, value in changes:
        node = data
        for key in place[:-1]:
            node = node.setdefault(key, {}) if isinstance(node, dict) else {}
        if isinstance(node, dict):
            node[place[-1]] = value
    text = yaml.safe_dump(data, sort_keys=False)
    result = adapt_file(parse_text(textwrap.dedent(text), "deploy.yaml"))
    assert all(d.source.line >= 1 and d.source.col >= 1 for d in result.diagnostics)
    assert all(d.input_format == "akash-sdl" for d in result.deployments)


def test_a_profile_that_names_no_model_is_told_where_the_model_goes(tmp_path):
    # Before: the advice named a Kubernetes nodeSelector, which an SDL has no place for.
    path = tmp_path / "deploy.yaml"
    path.write_text(SDL.replace("""
                - model: h100
                  ram: 80Gi""", "").replace(
        "meta-llama/Llama-3.3-70B-Instruct --tensor-parallel-size 2 --max-model-len 8192",
        "Qwen/Qwen2.5-7B-Instruct --max-model-len 8192").replace("units: 2", "units: 1"))
    result = run(["check", "--isolated", str(path)])
    assert result.out == (
        f"{path}:4:5: CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type (or "
        "available_kv_gib) is given (1 per replica, type unknown); holding one request of 8,192 tokens needs >= 17.8 "
        "(band 17.3-18.9) GiB per GPU at TP 1 (L4 yes, A10G yes, L40S yes, A100-40GB yes, A100-SXM4-80GB yes, "
        "H100-SXM-80GB yes, H200 yes, B200 yes, MI300X yes); state the device (a `- model: h100` with its `ram: 80Gi` "
        "under the compute profile's `gpu.attributes.vendor.nvidia`, or `default-accelerator:` in .ctxlint.yaml); "
        "capacity checks skip these roles (capacity-not-derivable)\n")
