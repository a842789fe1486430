"""A container's `nvidia.com/mig-<profile>` request (the device plugin's mixed MIG strategy) names its device:
a MIG slice, of the card the node selector names or of the only catalog card with that profile."""
from __future__ import annotations

import pytest

from helpers import run
from tests.adapters.kit import adapt, at

POD = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: sliced
spec:
  template:
    spec:
{placement}
      containers:
        - name: engine
          image: vllm/vllm-openai:v0.10.2
          args: ["--model", "Qwen/Qwen3-8B", "--max-model-len", "16384"]
          resources:
            {section}:
              nvidia.com/mig-{profile}: 1
"""


def _pod(profile: str, placement: str = "", section: str = "limits") -> str:
    return POD.format(profile=profile, placement=placement, section=section)


@pytest.mark.parametrize("profile,placement,device", [
    ("3g.20gb", "", "A100-40GB-MIG-3g.20gb"),  # only the A100-40GB has 3g.20gb
    ("3g.71gb", "", "H200-MIG-3g.71gb"),
    # A100-80GB and H100 both have 3g.40gb: the card the node selector names decides
    ("3g.40gb", "      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB\n",
     "A100-80GB-MIG-3g.40gb"),
    ("3g.40gb", "      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3\n", "H100-MIG-3g.40gb"),
    # a node labelled with the slice itself (single strategy's product name) is that card too
    ("1g.10gb", "      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-A100-SXM4-40GB-MIG-1g.10gb\n",
     "A100-40GB-MIG-1g.10gb"),
])
def test_the_slice_of_a_mig_resource(profile, placement, device):
    text = _pod(profile, placement)
    [role] = adapt(text).deployments[0].roles
    acc = role.accelerators
    assert (acc.type.value, acc.type.raw, acc.count.value) == (device, f"nvidia.com/mig-{profile}", 1)
    assert at(text, acc.type.source) == f"nvidia.com/mig-{profile}"  # the key names the slice
    assert at(text, acc.count.source) == "1"


def test_a_profile_several_cards_have_is_not_guessed(tmp_path):
    text = _pod("3g.40gb", section="requests")
    [role] = adapt(text).deployments[0].roles
    assert (role.accelerators.type.value, role.accelerators.count.value) == ("MIG-3g.40gb", 1)
    (tmp_path / "d.yaml").write_text(text)
    out = run(["check", str(tmp_path / "d.yaml"), "--select", "CTX208"]).out
    # the key's position, and a name the user can define under `accelerators:`
    assert out.startswith(f"{tmp_path / 'd.yaml'}:15:15: CTX208 [info] KV pool of unified not declared and not "
                          "derivable: unknown accelerator 'MIG-3g.40gb': define it under `accelerators:`")
    (tmp_path / ".ctxlint.yaml").write_text("accelerators: {MIG-3g.40gb: {memory_gib: 39.25}}\n")
    assert "CTX208" not in run(["check", str(tmp_path / "d.yaml"), "--config", str(tmp_path / ".ctxlint.yaml")]).out
    # a card ctxlint has no slices of keeps the slice as written, never the whole card's memory
    [role] = adapt(_pod("3g.40gb", "      nodeSelector:\n        nvidia.com/gpu.product: NVIDIA-H100-PCIe\n"))\
        .deployments[0].roles
    assert role.accelerators.type.value == "H100-PCIe-80GB-MIG-3g.40gb"


def test_a_derived_pool_on_a_slice(tmp_path):
    (tmp_path / "d.yaml").write_text(_pod("3g.20gb"))
    out = run(["check", str(tmp_path / "d.yaml")]).out
    assert "on 1x A100-40GB-MIG-3g.20gb" in out and "no accelerator type" not in out


def test_odd_mig_requests_never_crash():
    for odd in ("nvidia.com/mig-: 1", "nvidia.com/mig-3g.40gb: lots", "nvidia.com/mig-3g.40gb: [1]",
                "nvidia.com/mig-3g.40gb: -1", "nvidia.com/mig-3g.40gb: true"):
        text = _pod("x").replace("nvidia.com/mig-x: 1", odd)
        adapt(text)
