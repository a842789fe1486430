"""catalog28a: names the k8s26 sweep serves that resolve onto an entry's architecture (tools/catalog/derivatives.yaml),
each with the source that says so, and the names left unresolved on purpose (tools/catalog/gaps.yaml)."""
import json

import pytest

from ctxlint.physics.kv import kv_bytes_per_token_per_gpu
from ctxlint.resolution.catalog import find
from ctxlint.resolution.resolve import resolve
from tests.helpers import run


@pytest.mark.parametrize("name, base, kv_bytes, positions", [
    # LoRA adapters over Llama-3.1-8B-Instruct (their model cards): 2 (K, V) x 32 layers x 8 KV heads x 128 x 2 bytes
    ("nvidia/llama-3.1-nemoguard-8b-content-safety", "meta-llama/Llama-3.1-8B", 2 * 32 * 8 * 128 * 2, 131072),
    ("nvidia/llama-3.1-nemoguard-8b-topic-control", "meta-llama/Llama-3.1-8B", 2 * 32 * 8 * 128 * 2, 131072),
    # the NIM's name (NeMo docs): DeciLM block_configs keep attention in 49 of 80 layers, n_heads_in_group 8 of 64
    # heads -> 8 KV heads x 128 in each: 2 x 49 x 8 x 128 x 2
    ("nvidia/llama-3.3-nemotron-super-49b-v1", "nvidia/Llama-3_3-Nemotron-Super-49B-v1", 2 * 49 * 8 * 128 * 2, 131072),
    # MiMo-7B's RL checkpoint (XiaomiMiMo/MiMo README): 36 layers x 8 KV heads x 128
    ("XiaomiMiMo/MiMo-7B-RL", "XiaomiMiMo/MiMo-7B-Base", 2 * 36 * 8 * 128 * 2, 32768),
])
def test_catalog28_derivatives_resolve_onto_their_base(name, base, kv_bytes, positions):
    hit = find(name)
    assert (hit.entry["hf_id"], hit.by, hit.derived_from) == (base, "id", name)
    found = resolve(name)
    assert (found.via, found.arch.name, found.arch.max_position_embeddings) == ("catalog", base, positions)
    assert kv_bytes_per_token_per_gpu(found.arch, "vllm") == kv_bytes
    assert kv_bytes_per_token_per_gpu(found.arch, "sglang") == kv_bytes


def test_the_49b_nim_keeps_attention_in_49_layers():
    arch = resolve("nvidia/llama-3.3-nemotron-super-49b-v1").arch
    assert (arch.num_layers, arch.layer_kinds.count("full"), arch.num_kv_heads, arch.head_dim) == (80, 49, 8, 128)


# modelled on NVIDIA-AI-Blueprints/rag deploy/compose/docker-compose-nemo-guardrails.yaml (the two NemoGuard NIMs)
GUARDRAILS_COMPOSE = """\
services:
  content-safety:
    image: nvcr.io/nim/nvidia/llama-3.1-nemoguard-8b-content-safety:1.10.2
    environment:
      - NIM_SERVED_MODEL_NAME=llama-3.1-nemoguard-8b-content-safety
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              device_ids: ['0']
              capabilities: [gpu]
  topic-control:
    image: nvcr.io/nim/nvidia/llama-3.1-nemoguard-8b-topic-control:1.10.1
    deploy:
      resources:
        reservations:
          devices:
            - driver: nvidia
              device_ids: ['1']
              capabilities: [gpu]
"""


def test_nemoguard_nims_now_resolve_and_say_what_else_is_missing(tmp_path):
    (tmp_path / "docker-compose.yaml").write_text(GUARDRAILS_COMPOSE)
    out = run(["audit", "--isolated", "--format", "json", str(tmp_path)]).out
    rows = sorted((r["model"], r["verdict"], r["why_unknown"]) for r in json.loads(out)["deployments"])
    # before: "model not resolved"; the NIM 1.x pool is still not derived (its backend is not stated)
    assert rows == [("nvidia/llama-3.1-nemoguard-8b-content-safety", "unknown", "NIM backend not stated"),
                    ("nvidia/llama-3.1-nemoguard-8b-topic-control", "unknown", "NIM backend not stated")]


@pytest.mark.parametrize("name", [
    # the NIM name of a model the catalog holds in three formats (BF16, FP8, NVFP4): which one the NIM serves is not
    # read, so no derivative (tools/catalog/gaps.yaml)
    "nvidia/nemotron-3-super-120b-a12b",
    # no config.json read (gaps.yaml); kuberay's sample writes it Qwen/Qwen3.5-4b: names fold case, so an entry
    # would match it as written
    "Qwen/Qwen3.5-4b",
    "OpenGVLab/InternVL3-8B-AWQ",
    "jet-ai/Jet-Nemotron-2B",
])
def test_names_left_unresolved_on_purpose(name):
    assert find(name) is None


def test_names_fold_case_so_a_lower_case_spelling_matches_its_entry():
    assert resolve("qwen/qwen3.5-9b").arch.name == "Qwen/Qwen3.5-9B"


def test_mimo_7b_rl_rests_on_the_technical_report_and_a_config_copy_that_agrees():
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "lint" / "physics" / "data" / "models.json").read_text())
    source = next(d["source"] for d in data["derivatives"] if d["id"] == "XiaomiMiMo/MiMo-7B-RL")
    # the dimensions and the RL window are the authors' word (their report), not an inference from -0530's 48K
    assert source.startswith("XiaomiMiMo/MiMo@3a3fe65e6081c9f340ff0d24d82c4d7a96a247c5:MiMo-7B-Technical-Report.pdf")
    assert "of 32,768 (3.3.3" in source
    assert "Tencent-BAC/FastMTP@5875b708b34007eeab3cdf27bc8aca517f87eb21:model/config.json" in source
    base = next(m for m in data["models"] if m["hf_id"] == "XiaomiMiMo/MiMo-7B-Base")
    assert not any("unverified" in n for n in base["notes"])


@pytest.mark.parametrize("name", [
    # NemoGuard's jailbreak detector is a classifier NIM, no LLM; a later content-safety release is another model
    # (Llama Nemotron Safety Guard V2's NIM has its own name)
    "nvidia/nemoguard-jailbreak-detect",
    "nvidia/llama-3.1-nemoguard-8b-content-safety-v2",
    # v1.5 is a separate checkpoint (nvidia/Llama-3_3-Nemotron-Super-49B-v1_5, NeMo Customizer lists it apart)
    "nvidia/llama-3.3-nemotron-super-49b-v1.5",
    "nvidia/Llama-3_3-Nemotron-Super-49B-v1_5",
    # RL-trained at 48K (MiMo technical report, Table 6): not the 32K MiMo-7B-RL's config; nor RL-Zero / SFT, unread
    "XiaomiMiMo/MiMo-7B-RL-0530",
    "XiaomiMiMo/MiMo-7B-RL-Zero",
])
def test_near_miss_names_do_not_ride_the_catalog28a_derivatives(name):
    assert find(name) is None
    assert resolve(name).arch is None
