"""Names that differ from a catalogued id only by a spelling the resolver states: Meta's `-hf` format suffix, a
float dtype written after the name (`-BF16`), a GGUF file of an NVIDIA `-BF16` release; and the names that must stay
unresolved beside them (another network, more positions, another publisher's `-hf`)."""
from __future__ import annotations

import pytest

from ctxlint.engine import lint_text
from ctxlint.resolution.names import parse_ref
from ctxlint.resolution.resolve import resolve

_HF = "whose '-hf' marks the transformers format"


@pytest.mark.parametrize("written, arch, repo, weights", [
    # sweep p30 (waflores/local-ai-configs llama-swap): lmstudio-community's file of codellama/CodeLlama-7b-Instruct-hf
    ("/home/u/.lmstudio/models/lmstudio-community/CodeLlama-7B-Instruct-GGUF/codellama-7b-instruct.Q4_K_M.gguf",
     "codellama/CodeLlama-7b-hf", "codellama/CodeLlama-7b-Instruct-hf", "gguf-q4-k-m"),
    # TheBloke's Llama-2-7B-Chat-GGUF file
    ("llama-2-7b-chat.Q4_K_M.gguf", "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-7b-chat-hf", "gguf-q4-k-m"),
    # sweep c30 (tonyzhao-jt/LLMPQ-vLLM): a folder of a 4-bit Llama-2-70B
    ("/yourpath/exp/70b/tmp/Llama-2-70B-4bit", "meta-llama/Llama-2-70b-hf", "meta-llama/Llama-2-70b-hf", "int4"),
    # Meta's own original-format repository id; TheBloke's 16-bit re-upload
    ("meta-llama/Llama-2-13b-chat", "meta-llama/Llama-2-13b-hf", "meta-llama/Llama-2-13b-chat-hf", "bf16"),
    ("TheBloke/Llama-2-7B-fp16", "meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-7b-hf", "bf16"),
    ("codellama-70b-instruct", "codellama/CodeLlama-70b-Instruct-hf", "codellama/CodeLlama-70b-Instruct-hf", "bf16"),
])
def test_a_meta_name_without_its_hf_suffix_is_that_repository(written, arch, repo, weights) -> None:
    found = resolve(written)
    assert (found.arch.name, found.via, found.weights.key) == (arch, "name", weights)
    assert f"as {repo}, {_HF}" in found.how and found.match  # the match is said (model_from, `~` in the audit)


@pytest.mark.parametrize("written", [
    "codellama-7b-instruct-128k.Q4_K_M.gguf",  # more positions than the repository's: another checkpoint
    "codellama-7b-python.Q4_K_M.gguf",  # a network the catalog does not hold (the Python fine-tune)
    "CodeLlama-13b-Instruct-hf-v2",  # words after the suffix
    "/models/Llama-2-70B-ada",  # a folder whose own word follows the name
    "togethercomputer/LLaMA-2-7B-32K",  # 32K positions
    # another publisher's `-HF`/`-hf` is its own word, not Meta's format mark: NVIDIA's -HF repository beside the
    # one without, llava-hf's conversions of LLaVA checkpoints
    "nvidia/Llama-3.1-Nemotron-70B-Instruct",
    "llava-1.5-7b",
])
def test_a_name_with_words_of_its_own_or_another_publishers_hf_stays_unresolved(written) -> None:
    assert not resolve(written).resolved, resolve(written).how


def test_the_hf_repository_itself_and_an_hf_less_name_of_its_own_resolve_as_written() -> None:
    assert resolve("codellama/CodeLlama-7b-Instruct-hf").how == "codellama/CodeLlama-7b-Instruct-hf: built-in catalog"
    # THUDM/glm-4-9b-chat is catalogued itself (zai-org/glm-4-9b-chat-hf is its transformers-native config): no '-hf'
    found = resolve("glm-4-9b-chat")
    assert found.arch.name == "THUDM/glm-4-9b-chat" and _HF not in found.how


def test_the_hf_reading_is_dropped_where_the_name_is_another_entrys(monkeypatch) -> None:
    from ctxlint.resolution import catalog
    entries = ({"hf_id": "meta-llama/Llama-2-7b-hf"}, {"hf_id": "meta-llama/Llama-2-7b"},
               {"hf_id": "codellama/CodeLlama-7b-hf"}, {"hf_id": "meta-llama/CodeLlama-7b-hf"},
               {"hf_id": "llava-hf/llava-1.5-7b-hf"})
    monkeypatch.setattr(catalog, "entries", lambda: entries)
    catalog._hf_marked.cache_clear()
    try:
        index = catalog._hf_marked()
        # Llama-2-7b is an entry of its own; CodeLlama-7b names two entries; llava-hf is no Meta organisation
        assert index == {}
    finally:
        catalog._hf_marked.cache_clear()


@pytest.mark.parametrize("written, base, key", [
    ("/mnt/nvme_raid0/gitroot/DeepSeek-R1-0528-BF16", "deepseek-r1-0528", "bf16"),
    ("unsloth/DeepSeek-V3-bf16", "deepseek-v3", "bf16"),
    ("TheBloke/Llama-2-7B-fp16", "llama-2-7b", "bf16"),
    ("org/Some-Model-FP32", "some-model", "fp32"),
])
def test_a_float_dtype_after_the_name_states_the_format(written, base, key) -> None:
    ref = parse_ref(written)
    assert (ref.base, ref.weights.key) == (base, key)


def test_a_16_bit_copy_of_an_fp8_checkpoint_is_that_network_in_16_bits() -> None:
    # sweep c30 (honkliu/Jiuzhang's SGLang scripts): DeepSeek-R1-0528 cast to BF16; the catalog's checkpoint is FP8
    found = resolve("/mnt/nvme_raid0/gitroot/DeepSeek-R1-0528-BF16")
    assert (found.arch.name, found.weights.key) == ("deepseek-ai/DeepSeek-R1", "bf16")
    assert found.how.endswith("; 16-bit weights (from the name)")
    assert resolve("deepseek-ai/DeepSeek-R1-0528").weights.key == "fp8"  # the checkpoint itself is unchanged


def test_a_bf16_release_named_as_written_says_nothing_more_about_its_weights() -> None:
    # NVIDIA's `-BF16` over a 16-bit catalog checkpoint: the name says what the catalog does
    assert resolve("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16").how == \
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16: built-in catalog"


def test_a_gguf_file_of_a_bf16_release_is_its_quantization() -> None:
    # LM Studio names its GGUF of nvidia/NVIDIA-Nemotron-3-Nano-4B-BF16 `NVIDIA-Nemotron-3-Nano-4B-Q8_0.gguf`
    # (sweeps k30/c30); the 30B release is catalogued
    found = resolve("/models/NVIDIA-Nemotron-3-Nano-30B-A3B-GGUF/NVIDIA-Nemotron-3-Nano-30B-A3B-Q4_K_M.gguf")
    assert (found.arch.name, found.weights.key) == ("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "gguf-q4-k-m")
    assert "as the quantization of that BF16 release" in found.how
    assert not resolve("/models/NVIDIA-Nemotron-3-Nano-30B-A3B-128K-Q4_K_M.gguf").resolved


def test_a_float_copy_of_a_bf16_release_is_that_release_at_its_width() -> None:
    # openbmb publishes MiniCPM-2B-sft as `-bf16` and `-fp32`; only the first is catalogued
    found = resolve("openbmb/MiniCPM-2B-sft-fp32")
    assert (found.arch.name, found.weights.key) == ("openbmb/MiniCPM-2B-sft-bf16", "fp32")
    assert "as a 32-bit copy of that BF16 release; 32-bit weights (from the name)" in found.how


def test_a_llama_server_script_checks_the_resolved_models_positions() -> None:
    # unresolved before: no CTX109. CodeLlama-7b's config.json holds 16,384 positions and no RoPE scaling
    script = "#!/bin/bash\nllama-server -m /models/codellama-7b-instruct.Q4_K_M.gguf -c 32768 -ngl 99 --port 8080\n"
    (found,) = [f for f in lint_text(script, "start.sh").findings if f.rule == "CTX109"]
    assert found.message.startswith("32,768 > 16,384") and (found.line, found.column) == (2, 62)


@pytest.mark.parametrize("written, arch", [
    # mradermacher names a GGUF file for its source repository, `<repo>.<quant>.gguf`: a -BF16 release's keeps the
    # tag (`Ministral-3-8B-Instruct-2512-BF16.Q4_K_M.gguf`, `MiniCPM-1B-sft-bf16.Q4_K_M.gguf`); the file is Q4_K_M
    ("/models/MiniCPM-2B-sft-bf16.Q4_K_M.gguf", "openbmb/MiniCPM-2B-sft-bf16"),
    ("/models/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16.Q4_K_M.gguf", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"),
    ("/models/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16-Q4_K_M.gguf", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16"),
    ("/models/Qwen3-8B-BF16-Q4_K_M.gguf", "Qwen/Qwen3-8B"),
])
def test_a_gguf_files_type_is_its_last_tag_not_the_source_releases_dtype(written, arch) -> None:
    assert parse_ref(written).weights.key == "gguf-q4-k-m"
    found = resolve(written)
    assert (found.arch.name, found.weights.key) == (arch, "gguf-q4-k-m"), found.how


@pytest.mark.parametrize("written, said", [
    ("/models/NVIDIA-Nemotron-3-Nano-30B-A3B-F16.gguf", "as a GGUF F16 copy of that BF16 release"),
    ("/models/NVIDIA-Nemotron-3-Nano-30B-A3B-F32.gguf", "as a GGUF F32 copy of that BF16 release"),
    ("/models/NVIDIA-Nemotron-3-Nano-30B-A3B-Q8_0.gguf", "as the quantization of that BF16 release"),
])
def test_a_float_gguf_of_a_bf16_release_is_said_as_a_copy_not_a_quantization(written, said) -> None:
    found = resolve(written)
    assert found.arch.name == "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16" and said in found.how, found.how


@pytest.mark.parametrize("written, arch, weights", [
    # huihui-ai names gpt-oss's abliteration for the 16-bit weights it projected (name_variants.abliterated)
    ("huihui-ai/Huihui-gpt-oss-20b-BF16-abliterated", "openai/gpt-oss-20b", "bf16"),
    ("/models/DeepSeek-V3-bf16-abliterated", "deepseek-ai/DeepSeek-V3", "bf16"),
    ("/models/Huihui-gpt-oss-20b-BF16-abliterated.Q4_K_M.gguf", "openai/gpt-oss-20b", "gguf-q4-k-m"),
])
def test_a_float_dtype_before_an_abliteration_tag_is_the_abliterations_format(written, arch, weights) -> None:
    found = resolve(written)
    assert found.resolved, found.how
    assert (found.arch.name, found.weights.key, found.weights.alt) == (arch, weights, ()), found.how
    assert "'-bf16' before the tag read as the weights' width" in found.match and "'-abliterated' tag" in found.match


def test_an_abliterations_own_words_before_its_tag_still_match_nothing() -> None:
    assert not resolve("huihui-ai/Huihui-gpt-oss-20b-BF16-v2-abliterated").resolved
    assert not resolve("huihui-ai/Huihui-gpt-oss-20b-FP8-abliterated").resolved  # only a float width is read so
