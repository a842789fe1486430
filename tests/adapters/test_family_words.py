"""Every reader of a device name treats a family word that names no size (`a100`, `v100`) as any of the family's
sizes, a memory band (accelerators.family_word), unless the format's own table fixes one: Akash's models without
`ram`, `ctxlint capacity --accelerator`, a config's default-accelerator, GFD's and CoreWeave's node labels, Ray's
accelerator_type and Truss's V100. Before, each of these read the catalog's bare `A100` (the 40 GB card) or `V100`
(the 16 GB one) as fact."""
from __future__ import annotations

import pytest

from ctxlint.adapters.hardware import type_from_labels
from ctxlint.loader import parse_text
from ctxlint.physics.accelerators import family_word, written_device
from helpers import run
from tests.adapters.kit import adapt
from tests.adapters.test_akash_sdl import SDL
from tests.adapters.test_crds_kuberay import SERVICE

A100 = "A100 (40 or 80 GB: the label names no size)"
V100 = "V100 (16 or 32 GB: the label names no size)"


@pytest.mark.parametrize("word, device", [
    ("a100", A100), ("nvidia_a100_sxm4", A100), ("A100_NVLINK", A100), ("Tesla-V100-PCIe", V100),
    ("p100", "P100 (12 or 16 GB: the label names no size)"),
    ("a100-80gb", None), ("v100s", None), ("H100", None), ("", None), (None, None),
])
def test_a_family_word_is_the_familys_any_of_device(word, device):
    found = family_word(word)
    assert (found.name if found is not None else None) == device


def test_a_written_device_prefers_the_configs_own_definition():
    assert written_device("a100", {"a100": {"memory_gib": 70}}).memory_bytes == 70 << 30
    assert written_device("a100", {"h100": 3}).name == A100
    assert written_device("A100-80GB").name == "A100-SXM4-80GB"
    assert written_device("no-such-card") is None


def _akash(models: str):
    text = SDL.replace("                - model: h100\n                  ram: 80Gi\n", models)
    return [d.roles[0].accelerators.type.value for d in adapt(text).deployments]


def test_akash_models_without_ram_are_any_size_akash_lists():
    # provider-configs' gpus.json lists a100 at 40/64/80Gi and v100 at 16/32Gi, p100 at 16Gi only
    assert _akash("                - model: a100\n                - model: v100\n                - model: p100\n"
                  "                - {model: a100, interface: sxm}\n") == [A100, V100, "P100-16GB"]
    assert _akash("                - {model: a100, ram: 40Gi}\n") == ["A100-40GB"]


def _labels(text: str):
    doc = parse_text(text, "x.yaml").documents[0]
    return type_from_labels(doc.root, "x.yaml").value


@pytest.mark.parametrize("labels, device", [
    # CoreWeave's classes: A100_NVLINK is its 40 GB HGX part, Tesla_V100_NVLINK its 16 GB card (node-types.md)
    ("gpu.nvidia.com/class: A100_NVLINK", "A100-40GB"),
    ("gpu.nvidia.com/class: Tesla_V100_NVLINK", "V100-16GB"),
    ("gpu.nvidia.com/class: A100_NVLINK_80GB", "A100-SXM4-80GB"),
    ("gpu.nvidia.com/class: A100", A100),  # no class of CoreWeave's: a family word
    # GFD writes NVML's name, which says the size; a bare word was written by hand
    ("nvidia.com/gpu.product: a100", A100),
    ("nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB", "A100-40GB"),
    # NVML names the PCIe card "NVIDIA A100 80GB PCIe", size before form factor (GFD: NVIDIA-A100-80GB-PCIe, as
    # NRP Nautilus's docs list it); it was an unknown accelerator
    ("nvidia.com/gpu.product: NVIDIA-A100-80GB-PCIe", "A100-SXM4-80GB"),
    ("nvidia.com/gpu.product: Tesla-V100", V100),
    # GKE's names keep their fixed meaning: nvidia-tesla-a100 is the 40 GB card
    ("cloud.google.com/gke-accelerator: nvidia-tesla-a100", "A100-40GB"),
])
def test_device_labels(labels, device):
    assert _labels(labels) == device


def test_ray_accelerator_type_a100_is_any_a100():
    [dep] = adapt(SERVICE.replace("accelerator_type: H100", "accelerator_type: A100")).deployments
    assert dep.roles[0].accelerators.type.value == A100


def test_capacity_command_reads_a_family_word_as_a_band():
    result = run(["capacity", "--model", "Qwen/Qwen2.5-7B-Instruct", "--engine", "vllm", "--accelerator", "a100",
                  "--engine-version", "0.10.1", "--context-length", "32768"])
    lines = result.out.splitlines()
    assert lines[2] == f"accelerator  {A100}"
    assert "KV pool per replica: 382,208 tokens (estimated; band 366,944-1,058,688)" in lines
    sized = run(["capacity", "--model", "Qwen/Qwen2.5-7B-Instruct", "--engine", "vllm", "--accelerator",
                 "a100-80gb", "--engine-version", "0.10.1"]).out.splitlines()
    assert sized[2] == "accelerator  A100-SXM4-80GB"


def test_default_accelerator_a100_is_any_a100(tmp_path, monkeypatch):
    (tmp_path / ".ctxlint.yaml").write_text("default-accelerator: a100\n")
    (tmp_path / "serve.sh").write_text("#!/bin/bash\nvllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192\n")
    monkeypatch.chdir(tmp_path)
    rows = run(["audit", "--format", "csv", "serve.sh"]).out.splitlines()
    # the weights fit the 80 GB card only: within band, where the 40 GB reading said CTX203
    assert rows[1].split(",")[14] == "within band"


@pytest.mark.parametrize("word, device", [
    ("nvidia-tesla-a100", "A100-40GB"), ("NVIDIA-Tesla-V100", "V100-16GB"), ("nvidia-tesla-p100", "P100-16GB"),
    ("tesla-v100", V100), ("nvidia-a100", A100),  # no GKE name: the family's band
])
def test_a_gke_name_is_the_one_card_gke_means(word, device):
    # GKE's nvidia-tesla-a100 is the 40 GB card, as a flag or default-accelerator as in its own label
    assert (family_word(word) is None) == (device not in (A100, V100))
    assert written_device(word).name == device


def test_capacity_command_keeps_gkes_a100_the_40gb_card():
    out = run(["capacity", "--model", "Qwen/Qwen2.5-7B-Instruct", "--engine", "vllm", "--accelerator",
               "nvidia-tesla-a100", "--engine-version", "0.10.1"]).out.splitlines()
    assert out[2] == "accelerator  A100-40GB"
