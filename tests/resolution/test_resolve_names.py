"""Model references resolve as issue #10 describes, and near-misses stay unresolved."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ctxlint.resolution.names import parse_ref
from ctxlint.resolution.resolve import Context, resolve


@pytest.mark.parametrize("written, arch, how, weights", [
    ("neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8", "meta-llama/Llama-3.1-70B", "matched by name", "fp8"),
    ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "meta-llama/Llama-3.3-70B-Instruct", "matched by name", "fp8"),
    ("amd/Llama-3.3-70B-Instruct-FP8-KV", "meta-llama/Llama-3.3-70B-Instruct", "matched by name", "fp8"),
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "meta-llama/Llama-3.1-70B", "matched by name",
     "awq"),
    ("unsloth/phi-4-bnb-4bit", "microsoft/phi-4", "matched by name", "bnb-4bit"),
    ("Qwen/Qwen3-32B-AWQ", "Qwen/Qwen3-32B", "matched by name", "awq"),
    ("/models/Qwen3-8B", "Qwen/Qwen3-8B", "matched by its folder name", "bf16"),
    ("/model-cache/deepseek-r1", "deepseek-ai/DeepSeek-R1", "matched by its folder name", "fp8"),
    # sweep 41: a folder named for a repository id as the Hub's cache joins one (kserve's fluid sample)
    ("s3://b/models/Qwen--Qwen3-8B", "Qwen/Qwen3-8B", "matched by the storage URI's folder name", "bf16"),
    ("hf://meta-llama/Llama-3.3-70B-Instruct", "meta-llama/Llama-3.3-70B-Instruct", "built-in catalog", "bf16"),
    ("/root/.cache/huggingface/hub/models--Qwen--Qwen3-32B/snapshots/9216db5781bf21249d130ec9da846c4624c16137",
     "Qwen/Qwen3-32B", "built-in catalog", "bf16"),
    ("/path/to/Qwen_QwQ-32B-Q4_K_M.gguf", "Qwen/QwQ-32B", "matched by its folder name", "gguf-q4-k-m"),
    # sweep c28: Intel's AutoRound re-upload (jdaln/dgx-spark-inference-stack, mARTin-B78's llama-swap config)
    ("Intel/Qwen3.5-122B-A10B-int4-AutoRound", "Qwen/Qwen3.5-122B-A10B", "matched by name", "int4"),
    # sweep p29: quantization-aware-training re-uploads (TKontu/llama-swap-deploy's cyankiwi models) and Google's own
    # QAT GGUF (https://huggingface.co/google/gemma-3-27b-it-qat-q4_0-gguf: "QAT version of Gemma 3 27b"): `-qat`
    # before a format tag is the base's network; the format is the tag's
    ("cyankiwi/gemma-4-E4B-it-qat-AWQ-INT4", "google/gemma-4-E4B-it", "matched by name", "awq"),
    ("google/gemma-3-27b-it-qat-q4_0-gguf", "google/gemma-3-27b-it", "matched by name", "gguf-q4-0"),
    ("/models/gemma-3-12b-it-qat-Q4_0.gguf", "google/gemma-3-12b-it", "matched by its folder name", "gguf-q4-0"),
    # sweep c28: a GGUF file inside a cached GGUF repository is that file (miminashi/llm-server-ops start_*.sh
    # serve unsloth's Qwen3.5-122B-A10B Q4_K_M shards so); before, the folder's `X-GGUF` name matched nothing
    ("/home/llm/.cache/huggingface/hub/models--unsloth--Qwen3.5-122B-A10B-GGUF/snapshots/" + "5" * 40
     + "/Q4_K_M/Qwen3.5-122B-A10B-Q4_K_M-00001-of-00003.gguf", "Qwen/Qwen3.5-122B-A10B", "matched by its folder name",
     "gguf-q4-k-m"),
    ("/root/.cache/huggingface/hub/models--bartowski--Qwen_QwQ-32B-GGUF/snapshots/" + "b" * 40
     + "/Qwen_QwQ-32B-Q4_K_M.gguf", "Qwen/QwQ-32B", "matched by its folder name", "gguf-q4-k-m"),
    # a model split in 10 or more files: gguf-split names each `%s-%05d-of-%05d.gguf` (ggml-org/llama.cpp
    # tools/gguf-split/gguf-split.cpp SPLIT_FILENAME_FORMAT), so `-00001-of-00015` is a split, not part of the name
    ("/root/.cache/huggingface/hub/models--unsloth--DeepSeek-R1-GGUF/snapshots/" + "c" * 40
     + "/DeepSeek-R1-Q8_0/DeepSeek-R1-Q8_0-00001-of-00015.gguf", "deepseek-ai/DeepSeek-R1", "matched by its folder name",
     "gguf-q8-0"),
    ("/models/DeepSeek-R1-Q8_0-00012-of-00015.gguf", "deepseek-ai/DeepSeek-R1", "matched by its folder name",
     "gguf-q8-0"),
    ("unsloth/DeepSeek-R1-GGUF:DeepSeek-R1-UD-IQ1_M", "deepseek-ai/DeepSeek-R1", "matched by name", "gguf-ud-iq1-m"),
    # TheBloke's, QuantFactory's and mradermacher's GGUF files put the format after a '.', mradermacher's imatrix
    # quantizations an `i1` before it (sweeps p29, c29: mostlygeek/llama-swap-wiki, davetha/mi210-llm-stack)
    ("/models/Meta-Llama-3.1-8B-Instruct.Q8_0.gguf", "meta-llama/Llama-3.1-8B", "matched by its folder name",
     "gguf-q8-0"),
    ("/m/Qwen3-Next-80B-A3B-Thinking.i1-Q5_K_M.gguf", "Qwen/Qwen3-Next-80B-A3B-Thinking", "matched by its folder name",
     "gguf-q5-k-m"),
    # TheBloke's own naming, `<name>.<quant>.gguf`: the version's dot (2.5) is no publisher's prefix, the tag's is
    ("/m/Qwen2.5-7B.Q4_K_M.gguf", "Qwen/Qwen2.5-7B", "matched by its folder name; GGUF Q4_K_M", "gguf-q4-k-m"),
    ("/m/unsloth.Devstral-Small-2-24B-Instruct-2512.Q4_K_M.gguf", "mistralai/Devstral-Small-2-24B-Instruct-2512",
     "without the prefix 'unsloth.' (read as its publisher's)", "gguf-q4-k-m"),
    # catalog entries whose config records no quantization: the name's, or the catalog's weights
    ("nvidia/Llama-3.1-70B-Instruct-FP8", "nvidia/Llama-3.1-70B-Instruct-FP8",
     "FP8 weights (from the name; the catalog records no quantization)", "fp8"),
    ("nvidia/DeepSeek-V3.1-NVFP4", "nvidia/DeepSeek-V3.1-NVFP4", "from the name", "nvfp4"),
    ("deepseek-ai/DeepSeek-V3-0324", "deepseek-ai/DeepSeek-V3-0324", "built-in catalog", "fp8"),
])
def test_resolves_with_how_and_weights(written, arch, how, weights) -> None:
    found = resolve(written)
    assert found.resolved, found.how
    assert found.arch.name == arch
    assert how in found.how
    assert found.weights.key == weights


def test_a_requantized_bf16_release_resolves_to_that_release() -> None:
    # llm-d's nemotron-3-ultra guide serves Red Hat's FP8-block quantization of nvidia's -BF16 checkpoint
    assert resolve("RedHatAI/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8-block").how == (
        "RedHatAI/NVIDIA-Nemotron-3-Ultra-550B-A55B-FP8-block: architecture of "
        "nvidia/NVIDIA-Nemotron-3-Ultra-550B-A55B-BF16, matched by name, as the quantization of that BF16 release; "
        "FP8 weights (from the name)")
    found = resolve("RedHatAI/NVIDIA-Nemotron-3-Nano-30B-A3B-quantized.w4a16")
    assert (found.arch.name, found.weights.key) == ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "w4a16")
    # a name without a quantization tag is no release of the BF16 checkpoint; a GGUF file named with its tag is a
    # quantization of it, as any other name's (tests/resolution/test_name_spellings.py)
    assert not resolve("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B").resolved


def test_the_issue_example_reads_as_written() -> None:
    assert resolve("Qwen/Qwen3-32B-AWQ").how == \
        "Qwen/Qwen3-32B-AWQ: architecture of Qwen/Qwen3-32B, matched by name; AWQ 4-bit weights (from the name)"


@pytest.mark.parametrize("near_miss", [
    "meta-llama/Llama-3.1-8B-Instruct-uncensored",  # a fine-tune ctxlint has no facts for
    # a fine-tune on another model's outputs named with the tag keeps its own words; a tag alone names nothing
    "/opt/llama/models/Huihui-Qwen3.5-27B-Claude-4.6-Opus-abliterated.Q4_K_M.gguf",
    "/models/abliterated.gguf",
    "/models/Huihui-abliterated.Q8_0.gguf",
    # REAP prunes experts (the network is smaller than the base's): never read as GLM-4.7-Flash
    "/opt/llama/models/GLM-4.7-Flash-REAP-23B-A3B/GLM-4.7-Flash-REAP-23B-A3B-UD-Q4_K_XL.gguf",
    # an `i1` that is no imatrix mark (not mradermacher's `.i1-`) stays in the name, a GGUF tag after it or none
    "/models/Qwen3-8B-i1.gguf",
    "/models/Qwen3-8B-i1-Q4_K_M.gguf",
    "mistralai/Mistral-7B-Instruct-v0.4",  # a version that does not exist
    "meta-llama/Llama-3.1-80B-Instruct",  # another size
    "Qwen/Qwen3-32B-A3B",  # a different (MoE) shape
    "openai/gpt-oss-121b",
    "deepseek-ai/DeepSeek-R2",
    "Qwen/Qwen2.5-7B-Instruct-2M",  # a context variant: never the base's positions
    "/models/model",
    "/work/models",
    "/var/mdl/YOUR-MODEL-PATH",
    "llama",
    "Qwen3",
    "google/gemma-3-27b-it-qat",  # `-qat` names no format alone: not read as the base's 16-bit weights
    "google/gemma-3-27b-it-qat-q4_0-unquantized",  # a QAT checkpoint in 16 bits: no tag ctxlint knows ends it
])
def test_near_misses_stay_unresolved(near_miss) -> None:
    found = resolve(near_miss)
    assert not found.resolved, found.how
    assert "not in the built-in catalog" in found.how


def test_unresolved_says_which_command_resolves_it() -> None:
    assert "ctxlint models lock" in resolve("acme/private-13b").hint
    assert "config.json" in resolve("/mnt/weights/finetune").hint


def test_engine_quantization_flag_wins_over_the_name() -> None:
    found = resolve("Qwen/Qwen3-32B-AWQ", Context(quantization="fp8"))
    assert found.weights.key == "fp8" and "(--quantization fp8)" in found.how


def test_user_models_come_first(tmp_path) -> None:
    facts = {"num_layers": 4, "num_kv_heads": 2, "head_dim": 64, "num_attention_heads": 8, "total_params_b": 1}
    found = resolve("Qwen/Qwen3-8B", Context(user_models={"Qwen/Qwen3-8B": facts}))
    assert found.via == "models" and found.arch.num_layers == 4


def test_config_json_beside_the_file_comes_before_the_catalog(tmp_path) -> None:
    folder = tmp_path / "Qwen3-8B"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({
        "model_type": "qwen3", "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 64, "hidden_size": 512, "intermediate_size": 1024, "vocab_size": 1000}))
    found = resolve("/models/Qwen3-8B", Context(directory=str(tmp_path)))
    assert found.via == "config.json" and found.arch.num_layers == 2
    assert str(folder / "config.json") in found.how


def test_a_run_asks_once_whether_a_config_json_is_beside_and_the_next_run_asks_again(tmp_path, monkeypatch):
    import os

    from ctxlint.engine import lint_paths

    asked = []
    isfile = os.path.isfile
    monkeypatch.setattr(os.path, "isfile", lambda path: asked.append(str(path)) or isfile(path))
    for k in range(3):  # three deployments of one model in one folder
        (tmp_path / f"d{k}.yaml").write_text(
            "apiVersion: ctxlint/v1\nkind: Deployment\nmetadata: {name: d%d}\nspec:\n  engine: {name: vllm}\n"
            "  model: {id: /models/Qwen3-8B}\n  advertised: {context_window: 4096}\n"
            "  serving: {roles: [{role: unified, accelerators: {type: H100, count: 1}}]}\n" % k)
    config = str(tmp_path / "Qwen3-8B" / "config.json")
    lint_paths([str(tmp_path)])
    assert asked.count(config) == 1  # not there, and remembered for the run
    (tmp_path / "Qwen3-8B").mkdir()
    (tmp_path / "Qwen3-8B" / "config.json").write_text(json.dumps({
        "model_type": "qwen3", "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2,
        "head_dim": 64, "hidden_size": 512, "intermediate_size": 1024, "vocab_size": 1000}))
    report = lint_paths([str(tmp_path)])
    assert asked.count(config) == 2  # a new run looks again, and finds it
    assert {dep.resolution.via for dep in report.deployments} == {"config.json"}


def test_a_broken_config_json_beside_the_file_is_a_problem_not_a_crash(tmp_path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "config.json").write_text("{not json")
    found = resolve("./mine", Context(directory=str(tmp_path)))
    assert not found.resolved and "cannot read" in found.problem


def test_hf_cache_is_read_when_the_catalog_lacks_the_model(tmp_path) -> None:
    snap = tmp_path / "models--acme--tiny-chat" / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps({
        "model_type": "llama", "num_hidden_layers": 4, "num_attention_heads": 8, "num_key_value_heads": 2,
        "hidden_size": 512, "intermediate_size": 1024, "vocab_size": 32000, "max_position_embeddings": 4096}))
    found = resolve("acme/tiny-chat", Context(hf_cache=(str(tmp_path),)))
    assert found.via == "hf-cache" and "ctxlint models lock" in found.how
    assert not resolve("acme/tiny-chat").resolved  # without the cache: unresolved


def test_a_pod_label_names_the_model_behind_a_bare_path() -> None:
    found = resolve("/work/models", Context(labels=(("llm-d.ai/model", "DeepSeek-R1"),)))
    assert found.via == "label" and found.arch.name == "deepseek-ai/DeepSeek-R1"
    assert "llm-d.ai/model=DeepSeek-R1" in found.how


def test_a_label_never_overrules_a_repository_id() -> None:
    assert not resolve("acme/private-13b", Context(labels=(("llm-d.ai/model", "DeepSeek-R1"),))).resolved


@pytest.mark.parametrize("text, repo, base, local, via", [
    ("pvc://model-pvc/RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic",
     "llama-4-scout-17b-16e-instruct", True, "uri"),
    ("https://huggingface.co/Qwen/Qwen3-8B/tree/main", "Qwen/Qwen3-8B", "qwen3-8b", False, "uri"),
    ("/data1/maas_hosted_models/models/DeepSeek-R1-0528/deepseek_r1_0528", "DeepSeek-R1-0528/deepseek_r1_0528",
     "deepseek-r1-0528", True, "id"),
    ("Qwen2.5-Coder-32B-Instruct-Q4_K_M-00001-of-00003.gguf", None, "qwen2.5-coder-32b-instruct", False, "gguf"),
    # three segments are no Hub id (`org/name`): a folder below the working directory (sweep c30:
    # mathllm/Step-Controlled_DPO@b7ee1ddd alignment-handbook/scripts_sh/deploy_vllm.sh serves
    # alignment-handbook/outs/internlm2-20b_mathgenie, and was told to `ctxlint models lock` it from the Hub)
    ("alignment-handbook/outs/internlm2-20b_mathgenie", "outs/internlm2-20b_mathgenie", "internlm2-20b-mathgenie",
     True, "id"),
    ("models/meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b-instruct", True,
     "id"),
    ("meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b-instruct", False, "id"),
    # ... but a GGUF file may be a Hub repository's: vLLM fetches `<repo_id>/<filename>.gguf`
    ("unsloth/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf", "Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf", "qwen3-8b", False,
     "gguf"),
])
def test_parse_ref(text, repo, base, local, via) -> None:
    ref = parse_ref(text)
    assert (ref.repo_id, ref.base, ref.local, ref.via) == (repo, base, local, via)


@pytest.mark.parametrize("odd", [None, "", "   ", 42, "/", "hf://", "::::"])
def test_odd_references_never_crash(odd) -> None:
    found = resolve(odd)
    assert not found.resolved


def test_remembered_catalog_answers_are_the_catalogs():
    """parse_ref, _catalog_exact and _normalized are remembered for the run: each is a function of
    its (frozen) argument and the built-in catalog, which nothing changes while ctxlint runs."""
    from ctxlint.resolution import names, resolve

    texts = ["meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "/models/Qwen3-8B", "hf://org/name",
             "pvc://claim/meta-llama/Llama-3.1-70B-Instruct", "bartowski/Qwen_QwQ-32B-GGUF:Q4_K_M",
             "/root/.cache/huggingface/hub/models--Qwen--Qwen2.5-7B-Instruct/snapshots/" + "a" * 40,
             "unsloth/Llama-3.3-70B-Instruct-bnb-4bit", "gpt-oss-20b", "./x/model-00001-of-00003.gguf", "nope/nope"]
    for text in texts * 2:  # the second round answers from memory
        ref = names.parse_ref(text)
        assert ref == names._parse_text.__wrapped__(text)
        assert resolve._catalog_exact(ref) == resolve._catalog_exact.__wrapped__(ref)
        assert resolve._normalized(ref) == resolve._normalized.__wrapped__(ref)
    assert names.parse_ref("  ") is None and names.parse_ref(None) is None
    assert sum(resolve._catalog_exact(names.parse_ref(t)) is not None for t in texts) >= 3


# Texts built from the pieces the patterns of names._parse_text read (schemes in any case, hosts, cache folders,
# snapshot hashes, GGUF tags, path marks) and some that fold to ASCII under re.I (long s, dotted I).
_PIECES = ["hf://", "HF://", "s3://", "pvc://claim/", "https://", "HTTPS://", "www.", "huggingface.co/",
           "HuggingFace.CO/", "hf.co/", "Hf.Co/", "models--Qwen--Qwen3-8B", "/snapshots/", "a" * 40, "0123abcd" * 5,
           "snapshots", "/", "meta-llama/", "Llama-3.1-8B", "-Q4_K_M", ".gguf", ":q4", "~/", "./", " ", "\\",
           "/resolve/", "-00001-of-00003", "x.co", "://", "models--", "--", "\u017f", "\u0130"]


@given(st.lists(st.sampled_from(_PIECES), max_size=7).map("".join))
def test_each_pattern_is_tried_only_where_the_text_can_match_it(text):
    """The substrings names._parse_text looks for before a pattern are what the pattern needs to match."""
    from ctxlint.resolution import names

    assert not names._CACHE_DIR.search(text) or "models--" in text
    assert not names._HF_HOSTS.match(text) or ".co/" in text.lower()
    assert not names._URI.match(text) or "://" in text
    for part in text.replace("\\", "/").split("/"):
        assert not re.fullmatch(r"(?:snapshots|[0-9a-f]{40})", part) or len(part) in (9, 40)


def test_a_plain_repository_id_compiles_no_pattern():
    code = ("from ctxlint.resolution import names\n"
            "for t in ('meta-llama/Llama-3.1-8B-Instruct', 'Qwen/Qwen3-8B', '/models/Qwen3-8B'): names.parse_ref(t)\n"
            "assert not any('match' in vars(p) for p in (names._CACHE_DIR, names._HF_HOSTS, names._URI))\n"
            "assert names.parse_ref('hf://org/name').via == 'uri' and 'match' in vars(names._URI)\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_tag_that_ends_with_another_is_stripped_whole() -> None:
    # cat20: `-quantized.w4a16` (RedHat's and Neural Magic's re-uploads) was cut at `w4a16` first, leaving
    # `-quantized` behind, so no such name ever resolved
    from ctxlint.resolution.names import _QUANT_TAGS, norm, strip_quant

    assert strip_quant(norm("Qwen3.5-9B-quantized.w4a16"), False)[0] == "qwen3.5-9b"
    assert strip_quant(norm("Llama-3.3-70B-Instruct-quantized.w8a8"), False)[0] == "llama-3.3-70b-instruct"
    later_ends_with_earlier = [(a, b) for i, a in enumerate(_QUANT_TAGS) for b in _QUANT_TAGS[i + 1:]
                               if b != a and b.endswith(a) and b[-len(a) - 1] in "-."]
    assert later_ends_with_earlier == []


@pytest.mark.parametrize("written, how", [
    # catalog26: Kelvinskell's k8s-llm-serving-platform mounts `/models/<org>/<name>/<revision>`
    ("/models/microsoft/phi-2/main",
     "/models/microsoft/phi-2/main: architecture of microsoft/phi-2, matched by its folder name"),
    ("/models/TinyLlama/TinyLlama-1.1B-Chat-v1.0/main", "/models/TinyLlama/TinyLlama-1.1B-Chat-v1.0/main: "
     "architecture of TinyLlama/TinyLlama-1.1B-Chat-v1.0, matched by its folder name"),
    # aws-samples' gen-ai-on-eks: a Kubernetes-style folder name cannot hold the '.' of v0.3 (Mistral-7B-v0.3 is
    # an alias of the Instruct entry: the same config.json)
    ("/local-storage/models/mistral-7b-v0-3", "/local-storage/models/mistral-7b-v0-3: architecture of "
     "mistralai/Mistral-7B-Instruct-v0.3, matched by its folder name with '-' read as '.'"),
    ("/tmp/models/mistral-7b-v0-2", "/tmp/models/mistral-7b-v0-2: architecture of mistral-community/Mistral-7B-v0.2, "
     "matched by its folder name with '-' read as '.'"),
    ("qwen2-5-7b-instruct",
     "qwen2-5-7b-instruct: architecture of Qwen/Qwen2.5-7B-Instruct, matched by name with '-' read as '.'"),
])
def test_a_revision_folder_and_dashes_for_dots_resolve_and_say_so(written, how) -> None:
    assert resolve(written).how == how


@pytest.mark.parametrize("written", [
    "/models/main",  # no folder above the revision's but the mount
    "/tmp/models/mistral-7b-v0-4",  # a version that does not exist
    "qwen2-5-7b-instruct-2m",  # a dash is read as a dot only where the whole name then matches
    "mistral-7b.v0-3",  # a name with a dot of its own is as written
])
def test_a_revision_folder_and_dashes_for_dots_never_guess(written) -> None:
    assert not resolve(written).resolved


def test_parse_ref_drops_a_main_revision_folder_only_below_a_name() -> None:
    ref = parse_ref("/models/microsoft/phi-2/main")
    assert (ref.repo_id, ref.name, ref.base, ref.local) == ("microsoft/phi-2", "phi-2", "phi-2", True)
    assert parse_ref("/models/main").name == "main"


def test_a_dashed_spelling_two_entries_share_is_no_match(monkeypatch) -> None:
    from ctxlint.resolution import catalog

    fake = ({"hf_id": "a/Foo-1.5", "aliases": []}, {"hf_id": "b/Foo-1-5"}, {"hf_id": "c/Bar-2.0"},
            {"hf_id": "d/Bar-2-0"}, {"hf_id": "e/Bar-2-0"}, {"hf_id": "f/Baz-3.1", "aliases": ["g/baz-3.1"]},
            {"hf_id": "h/Qux-1.0"}, {"hf_id": "i/qux-1.0"})
    monkeypatch.setattr(catalog, "entries", lambda: fake)
    catalog._dashed.cache_clear()
    try:
        assert catalog.find_dashed("foo-1-5") is None  # another entry's own name
        assert catalog.find_dashed("bar-2-0") is None  # two others' own name
        assert catalog.find_dashed("x/baz-3-1").entry["hf_id"] == "f/Baz-3.1"  # one entry's two names
        assert catalog.find_dashed("qux-1-0") is None  # two entries' dotted names
        assert catalog.find_dashed("baz-3.1") is None
    finally:
        catalog._dashed.cache_clear()


@pytest.mark.parametrize("written, arch, weights", [
    # catalog26 (haskoe/beancount-ledger's llama-server script): `<publisher>.<name>-<quant>.gguf`
    ("unsloth.Devstral-Small-2-24B-Instruct-2512-UD-Q4_K_XL.gguf", "mistralai/Devstral-Small-2-24B-Instruct-2512",
     "gguf-ud-q4-k-xl"),
    ("/m/ruliad.deepthought-8b-llama-v0.01-alpha-Q4_K_M.gguf", "ruliad/deepthought-8b-llama-v0.01-alpha",
     "gguf-q4-k-m"),
    # Qwen's own GGUF files spell the model Qwen3VL-8B-Instruct (an alias with that source)
    ("~/models/Qwen3VL-8B-Instruct-Q8_0.gguf", "Qwen/Qwen3-VL-8B-Instruct", "gguf-q8-0"),
])
def test_gguf_file_names_of_publishers_resolve(written, arch, weights) -> None:
    found = resolve(written)
    assert (found.arch.name, found.weights.key) == (arch, weights)


@pytest.mark.parametrize("written", [
    "/m/Qwen2.5-7B-Chat.gguf",  # a prefix with a digit is a version, not a publisher: nothing read past it
    "/m/unsloth.Devstral-Small-2-24B-Instruct-2512-v9.Q4_K_M.gguf",  # the remainder must be a catalog name
    "unsloth.Devstral-Small-2-24B-Instruct-2512-UD-Q4_K_XL",  # not a GGUF file: the dot is part of the name
])
def test_a_gguf_publisher_prefix_is_read_only_where_it_is_one(written) -> None:
    assert not resolve(written).resolved


@pytest.mark.parametrize("written, arch, dropped, weights", [
    # sweeps p29 and c29 (mostlygeek/llama-swap-wiki, davetha/mi210-llm-stack): huihui-ai's abliterations as GGUF
    # files; the 4B resolves through a derivative, so its match (not its how) says what was read
    ("/path/to/models/Huihui-Qwen3-4B-Instruct-2507-abliterated.Q8_0.gguf", "Qwen/Qwen3-4B-Thinking-2507",
     "its 'huihui' prefix and '-abliterated' tag", "gguf-q8-0"),
    ("/models/Huihui-Qwen3-Next-80B-A3B-Thinking-abliterated.i1-Q5_K_M.gguf", "Qwen/Qwen3-Next-80B-A3B-Thinking",
     "its 'huihui' prefix and '-abliterated' tag", "gguf-q5-k-m"),
    ("bartowski/huihui-ai_QwQ-32B-abliterated-GGUF:Q4_K_M", "Qwen/QwQ-32B",
     "its 'huihui-ai' prefix and '-abliterated' tag", "gguf-q4-k-m"),
    ("meta-llama/Llama-3.1-8B-Instruct-abliterated", "meta-llama/Llama-3.1-8B", "its '-abliterated' tag", "bf16"),
])
def test_an_abliteration_resolves_to_its_base_and_says_so(written, arch, dropped, weights) -> None:
    found = resolve(written)
    assert (found.arch.name, found.weights.key) == (arch, weights)
    said = found.match or found.how
    assert f"without {dropped} (an abliteration keeps its base's network: the refusal direction is projected out " \
           "of the weights, each matrix keeps its shape)" in said


def test_a_dropped_publisher_prefix_is_said_in_the_match() -> None:
    # the prefix is read as a publisher's, not checked as one: the match says which text it dropped
    assert resolve("unsloth.Devstral-Small-2-24B-Instruct-2512-UD-Q4_K_XL.gguf").how == (
        "unsloth.Devstral-Small-2-24B-Instruct-2512-UD-Q4_K_XL.gguf: architecture of "
        "mistralai/Devstral-Small-2-24B-Instruct-2512, matched by name without the prefix 'unsloth.' (read as its "
        "publisher's); GGUF Q4_K_XL (unsloth dynamic) weights (from the name)")
    # a name matched as written says nothing of a prefix
    assert resolve("Qwen3VL-8B-Instruct-Q4_K_M.gguf").how == (
        "Qwen3VL-8B-Instruct-Q4_K_M.gguf: architecture of Qwen/Qwen3-VL-8B-Instruct, matched by name; GGUF Q4_K_M "
        "weights (from the name)")


@pytest.mark.parametrize("written, how", [
    # the match names the character the written name has where the catalog's has its dot ('_' reads as '-' in a
    # normalized name, but it is not what was written)
    ("Qwen2_5-7B-Instruct",
     "Qwen2_5-7B-Instruct: architecture of Qwen/Qwen2.5-7B-Instruct, matched by name with '_' read as '.'"),
    ("/x/qwen2_5-0-5b-instruct", "/x/qwen2_5-0-5b-instruct: architecture of Qwen/Qwen2.5-0.5B-Instruct, matched by "
                                 "its folder name with '-' and '_' read as '.'"),
])
def test_dashes_for_dots_name_the_character_written(written, how) -> None:
    assert resolve(written).how == how


def test_a_relative_folder_of_three_segments_gets_the_local_path_hint() -> None:
    found = resolve("alignment-handbook/outs/internlm2-20b_mathgenie")
    assert not found.resolved
    from ctxlint.resolution.hints import LOCK_HINT, unresolved_hint

    hint = unresolved_hint(parse_ref("alignment-handbook/outs/internlm2-20b_mathgenie"))
    assert hint.startswith("a local path: put the model's config.json at alignment-handbook/outs/"
                           "internlm2-20b_mathgenie/config.json from the deploy file's folder")
    assert LOCK_HINT not in hint


@pytest.mark.parametrize("written, base_format", [
    # abliteration projects in 16 bits: huihui-ai publishes gpt-oss's as Huihui-gpt-oss-20b-BF16-abliterated and
    # converted DeepSeek-V3 to BF16 (huihui-ai/DeepSeek-V3-bf16) first; the base's quantized format is not the file's
    ("huihui-ai/DeepSeek-V3-abliterated", "fp8"),
    ("huihui-ai/gpt-oss-20b-abliterated", "mxfp4-experts"),
])
def test_an_abliteration_of_a_quantized_base_spans_16_bit_weights(written, base_format) -> None:
    found = resolve(written)
    assert found.weights.key == "bf16"
    assert [f.key for f in found.weights.alt] == [base_format]
    assert "abliteration" in found.weights.alt_why
    assert "16-bit" in found.how


def test_an_abliteration_keeps_a_format_its_name_states() -> None:
    # the name's own tag (a GGUF file, a re-upload's -GPTQ-Int4) says the file's format: no band
    assert resolve("/models/DeepSeek-V3-abliterated-Q4_K_M.gguf").weights.alt == ()
    assert resolve("huihui-ai/Qwen2.5-72B-Instruct-abliterated-GPTQ-Int4").weights.key == "gptq-int4"
    assert resolve("huihui-ai/Qwen3-8B-abliterated").weights.key == "bf16"  # a 16-bit base: 16-bit


def test_a_hub_gguf_file_is_matched_by_its_name_not_a_folder_name() -> None:
    # vLLM's GGUF loader downloads `<repo_id>/<filename>.gguf` from the Hub (gguf_loader.py _prepare_weights): the
    # three segments are a repository and a file in it, not a folder below the working directory
    found = resolve("unsloth/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf")
    assert found.resolved and "matched by name" in found.how and "folder" not in found.how
