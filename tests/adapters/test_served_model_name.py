"""An opaque local model path is named by vLLM's or SGLang's --served-model-name when that name is, letter for
letter, one catalog repository's (resolution/served_name.py, catalog.repo_named).

Modelled on tuandung1625/llm-serving (sweep k8s27): its 86 `docker-compose/docker-compose-level*.yaml` run
`python3 -m vllm.entrypoints.openai.api_server --model=/model --served-model-name=LFM2.5-1.2B-Instruct ...`, and
LiquidAI/LFM2.5-1.2B-Instruct is in the catalog; before, every one was "model not resolved". The checkpoint in
`/model` is not known, so its weights are a band from 4 to 16 bits: a quantized checkpoint served under its base's
name makes a warning at most, never an error. A name that is no repository's, a format tag no repository carries,
another organisation's `org/name`, a folder that names a model itself, and an engine whose served name is not read
keep what they had."""
from __future__ import annotations

import json

import pytest

from helpers import run

from ctxlint.resolution.catalog import repo_named

LFM_FROM = ("/model: architecture of LiquidAI/LFM2.5-1.2B-Base, the base of LiquidAI/LFM2.5-1.2B-Instruct, matched by "
            "its served name 'LFM2.5-1.2B-Instruct' (--served-model-name), the exact name of the repository "
            "LiquidAI/LFM2.5-1.2B-Instruct; the folder's own name names no model ctxlint knows")


def compose(tmp_path, model: str, served: str, image: str = "vllm/vllm-openai:v0.12.0", extra: str = ""):
    """A service as tuandung1625/llm-serving docker-compose/docker-compose-level4-e05-gpu097-len16384.yaml has it."""
    path = tmp_path / "docker-compose.yaml"
    path.write_text("services:\n"
                    "  model:\n"
                    f"    image: {image}\n"
                    "    entrypoint: [python3, -m, vllm.entrypoints.openai.api_server]\n"
                    "    command:\n"
                    f"      - --model={model}\n"
                    f"      - --served-model-name={served}\n"
                    f"{extra}"
                    "      - --max-model-len=16384\n"
                    "    deploy:\n"
                    "      resources:\n"
                    "        reservations:\n"
                    "          devices:\n"
                    "            - {driver: nvidia, count: 1, capabilities: [gpu]}\n")
    return path


def pod(tmp_path, args: str, gpu: str = "NVIDIA-H100-80GB-HBM3", image: str = "vllm/vllm-openai:v0.12.0",
        count: int = 1, command: str = ""):
    path = tmp_path / "deploy.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: served}\nspec:\n  template:\n"
                    f"    spec:\n      nodeSelector: {{nvidia.com/gpu.product: {gpu}}}\n      containers:\n"
                    f"        - name: engine\n          image: {image}\n{command}          args: [{args}]\n"
                    f"          resources: {{limits: {{nvidia.com/gpu: {count}}}}}\n")
    return path


def rows(path) -> list:
    return json.loads(run(["audit", "--isolated", "--format", "json", str(path)]).out)["deployments"]


def test_the_served_name_of_a_catalog_repository_names_the_opaque_model_folder(tmp_path):
    (row,) = rows(compose(tmp_path, "/model", "LFM2.5-1.2B-Instruct"))
    assert (row["model"], row["model_from"], row["verdict"], row["why_unknown"]) == (
        "/model", LFM_FROM, "needs >= 3.9 GiB/GPU", None)
    # the checkpoint's format is not known: the need is a band, 4 to 16 bits of weights
    assert "needs >= 3.9 (band 1.9-4.5) GiB per GPU at TP 1" in row["worst"]["message"]


def test_a_quantized_checkpoint_served_under_its_bases_name_is_a_band_not_an_error(tmp_path):
    # 72.7e9 parameters at 16 bits (135.42 GiB) cannot load on one H100, at 4.25 bits (39.18 GiB) they can
    args = '"--model=/model", "--served-model-name=Qwen2.5-72B-Instruct", "--max-model-len=16384"'
    done = run(["check", "--isolated", str(pod(tmp_path, args))])
    out = done.out
    assert "CTX209" not in out and "[error]" not in out
    assert done.err.strip().splitlines()[-1] == "ctxlint: 1 warning in 1 file, 1 deployment"
    assert "CTX210 [warning] 16,384 is inside the estimated band 0-81,824 of what one request can hold" in out
    assert "KV budget per GPU -72.16 GiB (instance memory 71.28 GiB - weights 135.42 GiB - activation peak 7.77 GiB" \
           in out
    assert ("(model inferred: /model: architecture of Qwen/Qwen2.5-72B-Instruct, matched by its served name "
            "'Qwen2.5-72B-Instruct' (--served-model-name)") in out


def test_a_quantization_flag_keeps_the_unknown_checkpoints_band_open(tmp_path):
    # `--quantization=fp8` (as tuandung1625/llm-serving's files pass it): a 16-bit checkpoint loads as FP8 (70.03
    # GiB, no KV room on one H100), but one vLLM loads as stored whatever the flag (a ModelOpt NVFP4 one) is smaller
    args = '"--model=/model", "--served-model-name=Qwen2.5-72B-Instruct", "--quantization=fp8", "--max-model-len=16384"'
    done = run(["check", "--isolated", str(pod(tmp_path, args))])
    out = done.out
    assert done.err.strip().splitlines()[-1] == "ctxlint: 1 warning in 1 file, 1 deployment"
    assert "CTX210 [warning] 16,384 is inside the estimated band 0-81,824" in out


def test_no_refusal_of_a_flag_over_a_checkpoint_known_only_by_its_served_name(tmp_path):
    # openai/gpt-oss-20b is MXFP4, and vLLM refuses `--quantization fp8` over an MXFP4 checkpoint; but `/model` may
    # be a 16-bit re-upload served under the original's name, which vLLM quantizes to FP8 as it loads
    done = run(["check", "--isolated", str(pod(tmp_path, '"--model=/model", "--served-model-name=gpt-oss-20b", '
                                                        '"--quantization=fp8", "--max-model-len=16384"'))])
    assert (done.out, done.err) == ("", "ctxlint: no findings in 1 file, 1 deployment\n")


@pytest.mark.parametrize("served", [
    "lfm",  # a shorthand
    "LFM2.5-1.2B-Instruct-AWQ",  # a format tag no repository in the catalog carries
    "acme/LFM2.5-1.2B-Instruct",  # another organisation's repository of that name
    "${SERVED_NAME}",  # not known
    "bloom",  # bigscience/bloom (176B) by name, but also the family of bloom-560m, bloom-1b7 and bloom-7b1
    "DeepSeek-R1",  # deepseek-ai/DeepSeek-R1 (671B) by name, and the name distills are served under
])
def test_a_served_name_that_is_no_catalog_repository_leaves_the_model_unresolved(tmp_path, served):
    (row,) = rows(compose(tmp_path, "/model", served))
    assert (row["model"], row["model_from"], row["why_unknown"]) == ("/model", None, "model not resolved")


def test_a_folder_that_names_a_model_wins_over_the_served_name(tmp_path):
    (row,) = rows(compose(tmp_path, "/models/Qwen2.5-7B-Instruct", "LFM2.5-1.2B-Instruct"))
    assert (row["model"], row["model_from"]) == (
        "/models/Qwen2.5-7B-Instruct", "/models/Qwen2.5-7B-Instruct: architecture of Qwen/Qwen2.5-7B-Instruct, "
                                       "matched by its folder name")


def test_sglang_served_name_as_org_and_name(tmp_path):
    args = '"--model-path", "/data/", "--served-model-name", "Qwen/Qwen2.5-7B-Instruct", "--context-length", "8192"'
    (row,) = rows(pod(tmp_path, args, image="lmsysorg/sglang:v0.5.5",
                      command="          command: [python3, -m, sglang.launch_server]\n"))
    assert (row["model"], row["engine"], row["model_from"]) == (
        "/data/", "sglang", "/data/: architecture of Qwen/Qwen2.5-7B-Instruct, matched by its served name "
                            "'Qwen/Qwen2.5-7B-Instruct' (--served-model-name), the exact name of the repository "
                            "Qwen/Qwen2.5-7B-Instruct; the folder's own name names no model ctxlint knows")


def test_a_served_name_beside_a_repository_id_is_not_read(tmp_path):
    # `acme/chat-v2` names a checkpoint (one the catalog does not hold): its served name does not replace it
    (row,) = rows(compose(tmp_path, "acme/chat-v2", "Qwen2.5-7B-Instruct"))
    assert (row["model"], row["model_from"], row["why_unknown"]) == ("acme/chat-v2", None, "model not resolved")


def test_repo_named_is_the_name_letter_for_letter():
    assert [repo_named(n) for n in ("LFM2.5-1.2B-Instruct", "lfm2.5_1.2b_instruct", "LiquidAI/LFM2.5-1.2B-Instruct",
                                    "liquidai/lfm2.5-1.2b-instruct")] == ["LiquidAI/LFM2.5-1.2B-Instruct"] * 4
    assert [repo_named(n) for n in ("LFM2.5-1.2B-Instruct-AWQ", "acme/LFM2.5-1.2B-Instruct", "lfm", "",
                                    "LiquidAI/LFM2.5-1.2B-Instruct:Q4_K_M", "a/b/LFM2.5-1.2B-Instruct")] == [None] * 6


def test_an_mxfp4_point_served_by_name_keeps_its_bands_lighter_formats(tmp_path):
    # gpt-oss-120b's MXFP4 point padded (66.16 GiB) leaves one H100 no KV memory, but `/model` may be an NVFP4 or
    # other copy served under the original's name: the padding once replaced the whole band with the padded point
    # (a false CTX209 error); the band's other formats stay open, a warning
    args = '"--model=/model", "--served-model-name=gpt-oss-120b", "--max-model-len=16384"'
    done = run(["check", "--isolated", str(pod(tmp_path, args))])
    assert "CTX209" not in done.out and "[error]" not in done.out
    assert "CTX210 [warning] 16,384 is inside the estimated band 0-97,520" in done.out


def test_repo_named_leaves_a_family_name_unnamed():
    # a name with no size whose organisation's repositories extend it with one names the family; `org/name` the repo
    assert [repo_named(n) for n in ("bloom", "bloomz", "DeepSeek-R1")] == [None] * 3
    assert [repo_named(n) for n in ("bigscience/bloom", "deepseek-ai/DeepSeek-R1", "bloom-560m", "DeepSeek-V3",
                                    "dbrx-instruct")] == [
        "bigscience/bloom", "deepseek-ai/DeepSeek-R1", "bigscience/bloom-560m", "deepseek-ai/DeepSeek-V3",
        "databricks/dbrx-instruct"]


def test_a_length_past_the_catalog_configs_positions_is_a_warning_over_a_served_name(tmp_path):
    # Qwen2.5's model card has users add YaRN rope_scaling to a local copy's config.json for 131,072 tokens: the
    # served name gives `/model` the architecture, not that config, so CTX109 says its condition as a warning
    args = '"--model=/model", "--served-model-name=Qwen2.5-7B-Instruct", "--max-model-len=131072"'
    done = run(["check", "--isolated", str(pod(tmp_path, args))])
    assert "[error]" not in done.out
    assert ("CTX109 [warning] If /model holds Qwen/Qwen2.5-7B-Instruct's own config.json (the model is named only by "
            "its --served-model-name; a local copy's rope_scaling or max_position_embeddings may be edited): 131,072 "
            "> 32,768 x 1 = 32,768") in done.out
    # with VLLM_ALLOW_LONG_MAX_MODEL_LEN set, CTX303 instead, a warning too
    path = compose(tmp_path, "/model", "Qwen2.5-7B-Instruct").read_text().replace("16384", "131072").replace(
        "    command:\n", "    environment: {VLLM_ALLOW_LONG_MAX_MODEL_LEN: '1'}\n    command:\n")
    (tmp_path / "docker-compose.yaml").write_text(path)
    done = run(["check", "--isolated", str(tmp_path / "docker-compose.yaml")])
    assert "[error]" not in done.out and "CTX303 [warning] If /model holds Qwen/Qwen2.5-7B-Instruct's own" in done.out
    # a repository id still names its config: the error as before
    by_id = '"--model=Qwen/Qwen2.5-7B-Instruct", "--max-model-len=131072"'
    done = run(["check", "--isolated", str(pod(tmp_path, by_id))])
    assert "CTX109 [error] 131,072 > 32,768 x 1 = 32,768" in done.out
