"""Catalog entries the reach sweeps found missing (or without a parameter count): each now resolves with
the numbers its transcribed config.json gives (tools/catalog/*.yaml), so a deployment naming it gets a
memory need instead of 'model not resolved' / 'no parameter count'."""
import pytest

from ctxlint.physics.models import lookup_model


@pytest.mark.parametrize("model_id, layers, kv_heads, head_dim, positions, total_b", [
    # onnx-community re-export of the official config: vocab 151936, untied -> 1.777B counted
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", 28, 2, 128, 131072, 1.777),
    # the official blame page's ffn_hidden_size 13696 (was left out): 4 KV groups x 128, 1M positions
    ("THUDM/glm-4-9b-chat-1m", 40, 4, 128, 1048576, 9.4837),
    # mlc-llm's gpt_j preset; the model card's published 6,053,381,344 parameters
    ("EleutherAI/gpt-j-6b", 28, 16, 256, 2048, 6.053381344),
    ("EleutherAI/gpt-j-6B", 28, 16, 256, 2048, 6.053381344),
    # mlc-llm's minicpm_2b_sft_bf16 preset: MHA 36 x 64, tied embeddings
    ("openbmb/MiniCPM-2B-sft-bf16", 40, 36, 64, 4096, 2.7249),
    # vocab 65024 (the official repo's Hub duplicate); MQA: one KV head of 64; LM head tied (vLLM falcon.py)
    ("tiiuae/falcon-7b", 32, 1, 64, 2048, 6.9217),
])
def test_sweep_gap_models_resolve_with_a_parameter_count(model_id, layers, kv_heads, head_dim, positions, total_b):
    arch = lookup_model(model_id)
    assert arch is not None
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
        (layers, kv_heads, head_dim, positions)
    assert arch.total_params_b == pytest.approx(total_b, abs=1e-4)


def test_kv_bytes_per_token_of_the_new_entries():
    # 2 (K and V) x layers x KV heads x head_dim x 2 bytes
    assert 2 * 28 * 16 * 256 * 2 == 458_752
    gptj = lookup_model("EleutherAI/gpt-j-6b")
    assert 2 * gptj.num_layers * gptj.num_kv_heads * gptj.head_dim * 2 == 458_752
    minicpm = lookup_model("openbmb/MiniCPM-2B-sft-bf16")
    assert 2 * minicpm.num_layers * minicpm.num_kv_heads * minicpm.head_dim * 2 == 368_640


def test_falcon_without_tie_key_shares_its_lm_head_with_the_embeddings():
    # vLLM's FalconForCausalLM ties the LM head when tie_word_embeddings is absent, so only one
    # 65,024 x hidden table is loaded: falcon-7b 32 x (4544^2 + 2 x 4544 x 64 + 4544^2 + 2 x 4544 x 18176 + 2 x 4544)
    # + 65024 x 4544 + 4544 = 6,921,716,160; falcon-40b loses its 65024 x 8192 = 0.5327B second copy
    assert lookup_model("tiiuae/falcon-7b").lm_head_params_b == 0.0
    falcon40 = lookup_model("tiiuae/falcon-40b")
    assert falcon40.lm_head_params_b == 0.0
    assert falcon40.total_params_b == pytest.approx(41.3023, abs=1e-4)
    per_layer = 4544 ** 2 + 2 * 4544 * 64 + 4544 ** 2 + 2 * 4544 * 18176 + 2 * 4544
    assert round((32 * per_layer + 65024 * 4544 + 4544) / 1e9, 4) == lookup_model("tiiuae/falcon-7b").total_params_b


def test_deepseek_coder_v2_instruct_and_its_fp8_form():
    # MLA as the DeepSeek-V2 config: 60 layers x (512 + 64) cached a token; the README's 236B / 21B published
    arch = lookup_model("deepseek-ai/DeepSeek-Coder-V2-Instruct")
    assert (arch.num_layers, arch.kv_lora_rank, arch.qk_rope_head_dim, arch.max_position_embeddings) == (60, 512, 64, 163840)
    assert (arch.total_params_b, arch.active_params_b) == (236.0, 21.0)
    from ctxlint.resolution.catalog import find

    hit = find("neuralmagic/DeepSeek-Coder-V2-Instruct-FP8")
    assert hit is not None and hit.entry["hf_id"] == "deepseek-ai/DeepSeek-Coder-V2-Instruct"
    assert hit.derived_weights == "fp8"


# Older and smaller families the sweeps named (tools/catalog/gaps.yaml): each resolves with its config's dims.
@pytest.mark.parametrize("model_id, layers, kv_heads, head_dim, positions, kinds, vocab, total_b", [
    # official blame page at 3da3d153: sliding_window 2047 below 4096 positions, every layer a window layer
    ("microsoft/Phi-3-medium-4k-instruct", 40, 10, 128, 4096, {"sliding"}, 32064, 13.9602),
    # GPT-NeoX (Pythia): n x (4h^2 + 2 h x intermediate + 2h) + h + 2 x vocab x h (plain MLP, untied head, biases
    # not counted): MHA, rotary_pct 0.25, 2048 positions
    ("databricks/dolly-v2-3b", 32, 32, 80, 2048, {"full"}, 50280, 2.7742),
    ("databricks/dolly-v2-7b", 32, 32, 128, 2048, {"full"}, 50280, 6.8546),
    ("databricks/dolly-v2-12b", 36, 40, 128, 2048, {"full"}, 50280, 11.8399),
    # MPT: n_layers / n_heads / d_model, ALiBi with max_seq_len 2048, MHA, the LM head tied (vLLM mpt.py)
    ("mosaicml/mpt-7b", 32, 32, 128, 2048, {"full"}, 50432, 6.6493),
    ("mosaicml/mpt-7b-instruct", 32, 32, 128, 2048, {"full"}, 50432, 6.6493),
    # copies cut before vocab_size: the KV shape resolves, the parameters are not counted
    ("mosaicml/mpt-7b-chat", 32, 32, 128, 2048, {"full"}, None, None),
    ("allenai/OLMo-2-1124-7B-Instruct", 32, 32, 128, 4096, {"full"}, None, None),
])
def test_older_families_resolve_from_their_configs(model_id, layers, kv_heads, head_dim, positions, kinds, vocab,
                                                   total_b):
    arch = lookup_model(model_id)
    assert arch is not None
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == \
        (layers, kv_heads, head_dim, positions)
    assert set(arch.layer_kinds) == kinds
    assert arch.vocab_size == vocab
    if total_b is None:
        assert arch.total_params_b is None
    else:
        assert arch.total_params_b == pytest.approx(total_b, abs=1e-4)


def test_mpt_counts_its_embedding_table_once():
    # 32 x (4 x 4096^2 attention + 2 x 4096 x 16384 MLP + 2 x 4096 norms) + 50432 x 4096 + 4096 = 6,649,286,656
    arch = lookup_model("mosaicml/mpt-7b")
    assert arch.lm_head_params_b == 0.0
    per_layer = 4 * 4096 ** 2 + 2 * 4096 * 16384 + 2 * 4096
    assert round((32 * per_layer + 50432 * 4096 + 4096) / 1e9, 4) == arch.total_params_b


DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: old-model}}
spec:
  template:
    spec:
      nodeSelector: {{nvidia.com/gpu.product: NVIDIA-L4}}
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "{model}", "--max-model-len", "{context}"]
          resources: {{limits: {{nvidia.com/gpu: 1}}}}
"""


@pytest.mark.parametrize("model, context, rule, figures", [
    # MPT's ALiBi context is max_seq_len: 4,096 asked of a 2,048-position model, refused by vLLM (no RoPE advice)
    ("mosaicml/mpt-7b", 4096, "CTX109", "4,096 > 2,048: the unified context length 4,096 exceeds the length vLLM derives"),
    # 11.84B parameters served in 16 bits do not leave a KV block on one L4
    ("databricks/dolly-v2-12b", 2048, "CTX209", "weights 22.05 GiB"),
    # 13.96B parameters in bf16 exceed one L4 before any KV
    ("microsoft/Phi-3-medium-4k-instruct", 4096, "CTX203", "26.00 GiB > 21.95 GiB"),
])
def test_older_families_get_a_verdict_end_to_end(tmp_path, model, context, rule, figures):
    from helpers import run

    path = tmp_path / "deploy.yaml"
    path.write_text(DEPLOYMENT.format(model=model, context=context))
    result = run(["check", "--isolated", str(path)])
    lines = [line for line in result.out.splitlines() if rule in line]
    assert result.code == 1 and len(lines) == 1 and "[error]" in lines[0] and figures in lines[0], result.out


@pytest.mark.parametrize("model_id, layers, kv_heads, positions, total_b, vision_b", [
    # vocab 32064, untied, from the official Phi-3-medium-4k sibling (same tokenizer): 13.96B (the card's "14B")
    ("microsoft/Phi-3-medium-128k-instruct", 40, 10, 131072, 13.9602, 0.0),
    # vocab 151936 (tied) and the tower's depth 32 x 3420: 3.75B, the Hub's safetensors count
    ("Qwen/Qwen2.5-VL-3B-Instruct", 36, 2, 128000, 3.7545, 0.6687),
    # NVIDIA's post-training of Llama-3.1-8B-Instruct (its model card): the base's network and 131072 positions
    ("nvidia/Llama-3.1-Nemotron-Nano-8B-v1", 32, 8, 131072, 8.0303, 0.0),
])
def test_sweep_models_now_counted(model_id, layers, kv_heads, positions, total_b, vision_b):
    arch = lookup_model(model_id)
    assert (arch.num_layers, arch.num_kv_heads, arch.max_position_embeddings) == (layers, kv_heads, positions)
    assert (arch.total_params_b, arch.vision_params_b) == (total_b, vision_b)


@pytest.mark.parametrize("model_id", ["BAAI/bge-base-en-v1.5", "nvidia/NVIDIA-Nemotron-Nano-9B-v2",
                                      "moonshotai/Kimi-K2-Instruct-0905", "Qwen/Qwen3.5-4B",
                                      # catalog26: encoders and encoder-decoders, and configs not read
                                      "BAAI/bge-m3", "openai/whisper-small", "google/flan-t5-xl",
                                      "deepseek-ai/DeepSeek-OCR", "Skywork/Skywork-R1V3-38B", "zai-org/GLM-4.5V",
                                      "XiaomiMiMo/MiMo-VL-7B-RL-2508", "microsoft/Phi-4-multimodal-instruct",
                                      "ibm-granite/granite-3.3-2b-instruct"])
def test_gaps_left_out_on_purpose_stay_unresolved(model_id):
    # an encoder keeps no KV cache on vLLM; the others have no published config.json read (tools/catalog/gaps.yaml)
    assert lookup_model(model_id) is None


@pytest.mark.parametrize("model_id, layers, kv_heads, head_dim, positions, vocab, total_b, lm_head_b, kv_bytes", [
    # catalog26: GPT-2's n_layer / n_head / n_embd / n_positions; MHA, the LM head tied (GPT2LMHeadModel):
    # 6 x (4 x 768^2 + 2 x 768 x 3072 + 2 x 768) + 50257 x 768 + 768 = 81,074,688 (learned positions not counted)
    ("distilbert/distilgpt2", 6, 12, 64, 1024, 50257, 0.0811, 0.0, 18_432),
    # Llama-3.1-8B's network with four added tokens: 8.0303B, an untied 128260 x 4096 head
    ("ruliad/deepthought-8b-llama-v0.01-alpha", 32, 8, 128, 131072, 128260, 8.0303, 0.5254, 131_072),
    # Qwen-1: MHA of kv_channels 128; its MLP's two input projections are 22016 / 2 wide each:
    # 32 x (4 x 4096^2 + 3 x 4096 x 11008 + 2 x 4096) + 2 x 151936 x 4096 + 4096 = 7,720,931,328 (the card's 7.7B)
    ("Qwen/Qwen-7B", 32, 32, 128, 32768, 151936, 7.7209, 0.6223, 524_288),
    # the base of Mistral-7B-Instruct-v0.2: its sliding_window 32768 spans all 32768 positions, so every layer is full
    ("mistral-community/Mistral-7B-v0.2", 32, 8, 128, 32768, 32000, 7.2417, 0.1311, 131_072),
])
def test_catalog26_entries_resolve_from_their_configs(model_id, layers, kv_heads, head_dim, positions, vocab,
                                                      total_b, lm_head_b, kv_bytes):
    arch = lookup_model(model_id)
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings, arch.vocab_size) == \
        (layers, kv_heads, head_dim, positions, vocab)
    assert (arch.total_params_b, arch.lm_head_params_b) == (total_b, lm_head_b)
    # 2 (K and V) x layers x KV heads x head_dim x 2 bytes a token
    assert 2 * layers * kv_heads * head_dim * 2 == kv_bytes
    assert set(arch.layer_kinds) == {"full"}


def test_qwen1_mlp_is_half_its_intermediate_size_wide():
    from ctxlint.physics.params import count

    config = {"model_type": "qwen", "hidden_size": 64, "intermediate_size": 256, "num_attention_heads": 4,
              "num_hidden_layers": 2, "vocab_size": 100, "tie_word_embeddings": False}
    # 2 x (4 x 64^2 attention + 3 x 64 x 128 MLP + 2 x 64 norms) + 2 x 100 x 64 + 64 (final norm)
    assert count(config, config).total == 2 * (4 * 64 ** 2 + 3 * 64 * 128 + 2 * 64) + 2 * 100 * 64 + 64
    # Qwen2 reads its intermediate_size as each projection's width
    assert count(dict(config, model_type="qwen2"), dict(config, model_type="qwen2")).total == \
        2 * (4 * 64 ** 2 + 3 * 64 * 256 + 2 * 64) + 2 * 100 * 64 + 64


def test_qwen1_serves_its_seq_length_on_vllm():
    # vLLM takes the smallest of the position keys a config has: seq_length 8192 under 32768 positions
    assert dict(lookup_model("Qwen/Qwen-7B").position_keys) == {"max_position_embeddings": 32768, "seq_length": 8192}


def test_deepeyes_is_qwen2_5_vl_7b_instruct_by_its_config():
    from ctxlint.resolution.catalog import find
    from ctxlint.resolution.resolve import resolve

    hit = find("ChenShawn/DeepEyes-7B")
    assert (hit.entry["hf_id"], hit.by, hit.derived_from) == \
        ("Qwen/Qwen2.5-VL-7B-Instruct", "id", "ChenShawn/DeepEyes-7B")
    # PyVision-RL serves it from a folder named for it: matched by that name, said so
    found = resolve("/mnt/petrelfs/models/DeepEyes-7B")
    assert (found.via, found.arch.name) == ("name", "Qwen/Qwen2.5-VL-7B-Instruct")
    assert found.match == ("/mnt/petrelfs/models/DeepEyes-7B: architecture of Qwen/Qwen2.5-VL-7B-Instruct, the base of "
                           "ChenShawn/DeepEyes-7B, matched by its folder name")
    # the base is the authors' word (their repository's README), not only a third party's wrapper of a config copy
    assert find_derivative_source("ChenShawn/DeepEyes-7B").startswith(
        "Visual-Agent/DeepEyes@6c5e79671dbff958a6f9d44848ba2ca87854f0b0:README.md, the authors' own")


def find_derivative_source(name):
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "lint" / "physics" / "data" / "models.json").read_text())
    return next(d["source"] for d in data["derivatives"] if d["id"] == name)


@pytest.mark.parametrize("model_id, layers, kv_heads, head_dim, positions, window, total_b, kv_bytes", [
    # catalog27 (each blocked sgl-project/ome's sweep deployments). StarCoder2-7B's official file: GQA 36 / 4 x 128,
    # a 4096-token window on every layer; 7.1726B: no tie key, so the head is the embedding table (PretrainedConfig's
    # default, which Starcoder2ForCausalLM follows), as the Hub's 7.17B says; the 3B likewise 3.0295B, not 3.1805B
    ("bigcode/starcoder2-7b", 32, 4, 128, 16384, 4096, 7.1726, 65_536),
    ("bigcode/starcoder2-3b", 30, 2, 128, 16384, 4096, 3.0295, 30_720),
    # SmolLM v1 (not SmolLM2): 2048 positions; MHA 32 x 64; tied embeddings (the card's 1.7B)
    ("HuggingFaceTB/SmolLM-1.7B", 24, 32, 64, 2048, None, 1.7114, 196_608),
    # 9 heads over 3 KV heads of 64, tied (the card's 135M)
    ("HuggingFaceTB/SmolLM-135M", 30, 3, 64, 2048, None, 0.1345, 23_040),
    # Qwen-1 chat: Qwen-7B's network, 8192 positions and seq_length 8192 in its config
    ("Qwen/Qwen-7B-Chat", 32, 32, 128, 8192, None, 7.7209, 524_288),
    # 15 heads over 5 KV heads of 64, tied (the card's 360M)
    ("HuggingFaceTB/SmolLM-360M", 32, 5, 64, 2048, None, 0.3618, 40_960),
    # EXAONE 3.5 (layers under num_layers): GQA 32 / 8 x 128, untied 102400 x 4096 head; 6.98B without the
    # embeddings, as LG's card says
    ("LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct", 32, 8, 128, 32768, None, 7.8184, 131_072),
])
def test_catalog27_entries_resolve_from_their_configs(model_id, layers, kv_heads, head_dim, positions, window,
                                                      total_b, kv_bytes):
    arch = lookup_model(model_id)
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings, arch.sliding_window) == \
        (layers, kv_heads, head_dim, positions, window)
    assert arch.total_params_b == total_b
    # 2 (K and V) x layers x KV heads x head_dim x 2 bytes a token
    assert 2 * layers * kv_heads * head_dim * 2 == kv_bytes


@pytest.mark.parametrize("path, model_id", [
    # the folders the sweeps' launch files serve them from
    ("/data/model/Qwen-7B-Chat", "Qwen/Qwen-7B-Chat"),
    ("/mnt/hf_models/Qwen-7B-Chat", "Qwen/Qwen-7B-Chat"),
    ("/raid/models/bigcode/starcoder2-7b", "bigcode/starcoder2-7b"),
    ("/raid/models/HuggingFaceTB/SmolLM-1.7B", "HuggingFaceTB/SmolLM-1.7B"),
    ("/raid/models/HuggingFaceTB/SmolLM-360M", "HuggingFaceTB/SmolLM-360M"),
    ("/raid/models/LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct", "LGAI-EXAONE/EXAONE-3.5-7.8B-Instruct"),
])
def test_catalog27_model_folders_resolve_by_name(path, model_id):
    from ctxlint.resolution.resolve import resolve

    found = resolve(path)
    assert (found.via, found.arch.name) == ("name", model_id)


def test_smollm_135m_rests_on_the_official_file():
    # rvcat27 review: the official config.json (revision 08113ae) replaced the fine-tune's copy; the dims are the same
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).resolve().parents[1] / "lint" / "physics" / "data" / "models.json").read_text())
    entry = next(m for m in data["models"] if m["hf_id"] == "HuggingFaceTB/SmolLM-135M")
    assert entry["source"] == ("https://huggingface.co/HuggingFaceTB/SmolLM-135M/blob/"
                               "08113aee5325d8b522b49ed5fbad3f24cc27eeb2/config.json")
    assert (entry["verified"], entry["dtype"], entry["total_params_b"]) == (True, "bfloat16", 0.1345)
