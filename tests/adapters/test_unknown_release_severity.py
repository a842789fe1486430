"""CTX301 for a flag a later release dropped, at a release ctxlint does not know: an error where the unknown
release is the engine's newest (its release image at `latest` or untagged, an unpinned `pip install`), a warning
saying why where it cannot be known (an image that is not the engine's release image, a tag naming no release,
KubeAI picking the image): sweep of the real corpus, 32 such errors (KubeAI's models, OPEA's ROCm compose, Dynamo's
SGLang recipes) whose images may run a release that takes the flag."""
from __future__ import annotations

import pytest

from ctxlint.engine import Settings, lint_text
from ctxlint.engines.release_unknown import why_unknown
from tests.adapters.kit import adapt

POD = """\
apiVersion: v1
kind: Pod
metadata: {{name: vllm}}
spec:
  containers:
    - name: vllm
      image: {image}
      command: [vllm, serve, meta-llama/Meta-Llama-3-8B-Instruct, --max-seq-len-to-capture, "2048"]
"""
REFUSED = ("vllm 0.11.0 and later would refuse to start: unrecognized arguments: --max-seq-len-to-capture (dropped "
           "in 0.11.0: remove it; V1 captures CUDA graphs by batch size, --max-cudagraph-capture-size)")
WHY = ". Which vllm release runs is unknown: {why}; a release before 0.11.0 takes it, so this is a warning (the " \
      "image's vllm version says which; with that release pinned ctxlint can tell)"


def _refusals(text, name="pod.yaml"):
    return [d for d in adapt(text, name).diagnostics if d.kind == "engine-rejects-value"]


@pytest.mark.parametrize("image", ["vllm/vllm-openai:latest", "vllm/vllm-openai", "docker.io/vllm/vllm-openai:nightly",
                                   "rocm/vllm:latest", "${REGISTRY:-vllm}/vllm-openai:${TAG:-latest}"])
def test_the_engines_newest_image_refuses_it_an_error(image):
    [refusal] = _refusals(POD.format(image=image))
    assert (refusal.message, refusal.severity) == (REFUSED, None)


@pytest.mark.parametrize("image, why", [
    ("quay.io/me/vllm-dev:0.1.0", "quay.io/me/vllm-dev:0.1.0 is not vllm's own release image, so its tag does not "
                                  "number vllm's releases"),
    ("opea/vllm-rocm:latest", "opea/vllm-rocm:latest is not vllm's own release image, so its tag does not number "
                              "vllm's releases"),
    # vllm-runtime:0.8.0 is vLLM 0.12.0 (engines/dynamo_images.py); a dev tag Dynamo's pages do not list is not dated
    ("nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0-nemotron-super-dev.1",
     "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0-nemotron-super-dev.1 is a Dynamo runtime image whose tag is not one "
     "Dynamo's release pages list with the vllm release it holds (engines/dynamo_images.py)"),
    ("vllm/vllm-openai:$TAG", "the tag of vllm/vllm-openai:$TAG names no vllm release"),
    ("vllm/vllm-openai:sha-1a2b3c4", "the tag of vllm/vllm-openai:sha-1a2b3c4 names no vllm release"),
])
def test_an_image_that_cannot_be_dated_a_warning_saying_why(image, why):
    [refusal] = _refusals(POD.format(image=image))
    assert (refusal.message, refusal.severity) == (REFUSED + WHY.format(why=why), "warning")


def test_a_pinned_release_stays_an_error_and_one_before_it_is_silent():
    [refusal] = _refusals(POD.format(image="nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.8.0"))  # Dynamo's: vLLM 0.12.0
    assert refusal.message.startswith("vllm 0.12.0 would refuse to start") and refusal.severity is None
    [refusal] = _refusals(POD.format(image="vllm/vllm-openai:v0.11.0"))
    assert refusal.message.startswith("vllm 0.11.0 would refuse to start") and refusal.severity is None
    assert not _refusals(POD.format(image="vllm/vllm-openai:v0.10.2"))


SHELL = """\
services:
  vllm-service:
    image: {image}
    command: sh -c "{install}vllm serve meta-llama/Meta-Llama-3-8B-Instruct --max-seq-len-to-capture 2048"
"""


@pytest.mark.parametrize("install, severity", [("pip install vllm && ", None), ("pip install 'vllm>=0.9' && ", None),
                                               ("", "warning")])
def test_an_unpinned_install_runs_the_newest(install, severity):
    [refusal] = _refusals(SHELL.format(image="python:3.12", install=install), "compose.yaml")
    assert refusal.severity == severity


KUBEAI = """\
apiVersion: kubeai.org/v1
kind: Model
metadata: {name: deepseek-r1-mi300x}
spec:
  features: [TextGeneration]
  url: hf://deepseek-ai/DeepSeek-R1
  engine: VLLM
  args:
    - --enable-chunked-prefill=false
    - --max-seq-len-to-capture=16384
  resourceProfile: amd-gpu-mi300x:8
"""


def test_kubeai_picks_the_image_a_warning():
    chunked, capture = _refusals(KUBEAI, "model.yaml")
    why = ("the image is picked by KubeAI (the image its chart's modelServers.VLLM.images pins for the resource "
           "profile), not named here")
    assert (capture.message, capture.severity) == (REFUSED + WHY.format(why=why), "warning")
    assert chunked.message.startswith("vllm 0.9.2 and later would refuse to start: argument --enable-chunked-prefill:")
    assert chunked.severity == "warning"


@pytest.mark.parametrize("image, said, severity", [
    ("vllm/vllm-openai:v0.11.0", "vllm 0.11.0 would refuse to start", None),  # spec.image: the release it pins
    ("me/vllm:1", "vllm 0.11.0 and later would refuse to start", "warning"),
])
def test_a_kubeai_model_naming_its_image_is_read_by_it(image, said, severity):
    text = KUBEAI.replace("  engine: VLLM\n", f"  engine: VLLM\n  image: {image}\n")
    [_, capture] = _refusals(text, "model.yaml")
    assert capture.message.startswith(said) and capture.severity == severity
    assert severity is None or f"unknown: {image} is not vllm's own release image" in capture.message
    assert not _refusals(text.replace(image, "vllm/vllm-openai:v0.9.0"), "model.yaml")


def test_the_finding_carries_the_severity_and_a_config_can_raise_it():
    text = POD.format(image="quay.io/me/vllm-dev:0.1.0")
    [finding] = [f for f in lint_text(text, "pod.yaml").findings if f.rule == "CTX301"]
    assert finding.severity == "warning"
    [latest] = [f for f in lint_text(POD.format(image="vllm/vllm-openai:latest"), "pod.yaml").findings
                if f.rule == "CTX301"]
    assert latest.severity == "error"
    # a config's severity for the rule is the user's word for every finding of it (a gate that wants them all)
    [raised] = [f for f in lint_text(text, "pod.yaml", Settings(severity={"CTX301": "error"})).findings
                if f.rule == "CTX301"]
    assert raised.severity == "error"


def test_why_unknown():
    assert why_unknown("vllm", None) is None and why_unknown("vllm", "vllm/vllm-openai:latest") is None
    assert why_unknown("sglang", "lmsysorg/sglang") is None
    assert why_unknown("sglang", "lmsysorg/sglang:dev") == "the tag of lmsysorg/sglang:dev names no sglang release"
    assert why_unknown("sglang", "someone/sglang:latest") == (
        "someone/sglang:latest is not sglang's own release image, so its tag does not number sglang's releases")


def test_statistics_name_the_rules_highest_severity():
    from ctxlint.reporters.statistics import counts

    # the warning comes first in the file; the error below it is the rule's row
    text = POD.format(image="quay.io/me/vllm-dev:0.1.0") + "---\n" + POD.format(image="vllm/vllm-openai:latest")
    [row] = [r for r in counts(lint_text(text, "pod.yaml")) if r["code"] == "CTX301"]
    assert (row["severity"], row["count"]) == ("error", 2)


DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize("image", [f"vllm/vllm-openai@{DIGEST}", f"vllm/vllm-openai:latest@{DIGEST}"])
def test_a_digest_pinned_release_image_is_a_fixed_build_a_warning(image):
    """A digest pins one build, which may be any release (an older one takes the flag): not the newest, so not an
    error; a release tag beside the digest still names the release."""
    [refusal] = _refusals(POD.format(image=image))
    assert refusal.severity == "warning"
    assert f"{image} pins a build by its digest, which names no vllm release" in refusal.message
    assert not _refusals(POD.format(image=f"vllm/vllm-openai:v0.10.2@{DIGEST}"))
