"""CTX301-CTX309 beyond their samples: engine defaults, spellings and the cases that must stay silent."""
from __future__ import annotations

import pytest

from ctxlint.engine import Settings, lint_paths, lint_text

BASE = """
apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {{name: d}}
spec:
  model: {{id: example/m, max_position_embeddings: {mpe}}}
  advertised: {{context_window: {window}}}
  engine: {{name: {engine}{version}}}
  serving:
    roles:
      - role: unified
        context_length: {ctx}
        kv_pool_tokens: 4000000
        engine_args:
{args}
"""


def lint(engine, args, *, select, version="", window=131072, ctx=131072, mpe=131072):
    body = "\n".join(f"          {k}: {v}" for k, v in args.items()) or "          {}"
    text = BASE.format(engine=engine, version=f', version: "{version}"' if version else "", window=window,
                       ctx=ctx, mpe=mpe, args=body)
    return [(f.rule, f.message) for f in lint_text(text, "d.yaml", Settings(select=(select,))).findings]


def rules(*args, **kw):
    return [rule for rule, _ in lint(*args, **kw)]


@pytest.mark.parametrize("engine,args,fires", [
    ("sglang", {"context_length": "128K"}, True),
    ("sglang", {"context_length": "128Ki"}, False),
    ("sglang", {"max_total_tokens": "1.5Mi"}, True),     # decimals only with SI suffixes
    ("vllm", {"max_model_len": "128K"}, False),         # vLLM reads K as 1024
    ("vllm", {"max_num_batched_tokens": "1.5K"}, True),  # but not with a decimal
    ("tgi", {"max_input_tokens": "4k"}, True),           # clap usize: digits only
    ("trtllm", {"max_num_tokens": "8K"}, True),
    ("trtllm", {"max_num_tokens": 8192.0}, True),        # click INT refuses "8192.0"
    ("llamacpp", {"ctx_size": "128k"}, False),           # std::stoi reads 128 (CTX302's business)
    ("vllm", {"mem_fraction_static": "abc"}, False),     # not an integer setting of this engine
    ("other", {"context_length": "128K"}, False),        # unknown engine: no rule to apply
])
def test_engine_rejects_value(engine, args, fires):
    assert rules(engine, args, select="CTX301") == (["CTX301"] if fires else [])


TGI_SCRIPT = ("#!/bin/bash\ndocker run --gpus all -e QUANTIZE={env} ghcr.io/huggingface/text-generation-inference:{tag} "
              "--model-id mistralai/Mistral-7B-Instruct-v0.3 --max-total-tokens 8192 {args}\n")


@pytest.mark.parametrize("tag,env,args,refused", [
    ("latest", "awq", "--quantize bf16", "--quantize: invalid choice: 'bf16'"),  # sweep 34: a dtype, no quantization
    ("3.3.4", "awq", "--quantize bitsandbytes_nf4", "invalid choice: 'bitsandbytes_nf4'"),  # clap kebab-cases
    ("latest", "bf16", "", "env QUANTIZE: invalid choice: 'bf16'"),  # every TGI flag is read from its env var too
    ("3.3.4", "awq", "--dtype bf16", "--dtype: invalid choice: 'bf16'"),
    ("3.3.4", "awq", "--quantize compressed-tensors --dtype bfloat16", None),
    ("1.4.5", "bitsandbytes-nf4", "--quantize eetq", None),  # the names of 1.x releases stay valid
    ("0.9.4", "awq", "--quantize gptq", None),
])
def test_tgi_enum_flags_take_only_their_names(tmp_path, tag, env, args, refused):
    (tmp_path / "tgi.sh").write_text(TGI_SCRIPT.format(tag=tag, env=env, args=args), encoding="utf-8")
    found = [f.message for f in lint_paths([str(tmp_path)], Settings(select=("CTX301",))).findings]
    if refused is None:
        assert found == []
    else:
        (message,) = found
        assert message.startswith("tgi would refuse to start: ") and refused in message


def test_suffix_read_differently_compares_with_the_deployment():
    ((rule, message),) = lint("vllm", {"max_model_len": "128k"}, select="CTX302")
    assert message.startswith("vLLM reads max_model_len = 128k as 128,000, but the advertised window is 131,072")
    assert rules("vllm", {"max_model_len": "128K"}, select="CTX302") == []
    # nothing else in the deployment says 128,000 or 131,072: no evidence of a misreading
    assert rules("vllm", {"max_model_len": "64k"}, select="CTX302") == []
    # IEC suffixes mean one number only
    assert rules("sglang", {"context_length": "128Ki"}, window=128000, select="CTX302") == []
    ((_, message),) = lint("llamacpp", {"ctx_size": "128k"}, select="CTX302")
    assert message == ("llama.cpp reads ctx_size = '128k' as 128 (std::stoi stops at 'k'): write 131072 (the "
                       "advertised window is 131,072)")


@pytest.mark.parametrize("text,message", [
    # sweep 33: `-c 32k` was a 32-token context with no finding (the audit said "fits")
    ("32k", "reads ctx_size = '32k' as 32 (std::stoi stops at 'k'): write 32768 (32 x 1,024; 32000 if k meant 1,000)"),
    ("8192tokens", "reads ctx_size = '8192tokens' as 8,192 (std::stoi stops at 'tokens'): write 8192, so that "
                   "nothing is silently dropped"),
    ("1e5", "reads ctx_size = '1e5' as 1 (std::stoi stops at 'e5'): write 100000"),
    ("32,768", "reads ctx_size = '32,768' as 32 (std::stoi stops at ',768'): write 32768"),
    ("1.5k", "reads ctx_size = '1.5k' as 1 (std::stoi stops at '.5k'): write 1500"),
    ("4x4", "reads ctx_size = '4x4' as 4 (std::stoi stops at 'x4'): write the integer you mean in plain digits"),
])
def test_llamacpp_stoi_drops_the_rest_of_an_integer(text, message, tmp_path):
    (tmp_path / "serve.sh").write_text(f"#!/bin/bash\nllama-server -m /models/m.gguf -c {text} --port 8080\n")
    (found,) = [f for f in lint_paths([str(tmp_path)], Settings(select=("CTX302",))).findings]
    assert found.message == "llama.cpp " + message and (found.line, found.column) == (2, 35)


def test_llamacpp_stoi_is_silent_on_whole_integers_and_other_engines_keep_their_rules(tmp_path):
    for name, text in (("a.sh", "llama-server -m /m.gguf -c 32768"),
                       ("b.sh", "LLAMA_ARG_CTX_SIZE=' 8192 ' llama-server"),  # trailing blanks drop nothing
                       ("c.sh", "vllm serve m --max-model-len 32k")):  # vLLM reads 32k as 32,000: no stoi
        (tmp_path / name).write_text(f"#!/bin/bash\n{text}\n")
    assert lint_paths([str(tmp_path)], Settings(select=("CTX302",))).findings == []
    (tmp_path / "d.sh").write_text("#!/bin/bash\nLLAMA_ARG_CTX_SIZE=16k llama-server -m /m.gguf\n")
    (found,) = lint_paths([str(tmp_path / "d.sh")], Settings(select=("CTX302",))).findings
    assert "reads ctx_size = '16k' as 16" in found.message


def test_long_context_override():
    over = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": '"1"'}
    assert rules("sglang", over, ctx=262144, select="CTX303") == ["CTX303"]
    # the override silences CTX109: one finding, not two
    assert rules("sglang", over, ctx=262144, select="CTX109") == []
    assert rules("sglang", {}, ctx=262144, select="CTX109") == ["CTX109"]
    rope = dict(over, json_model_override_args="'{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 2.0}}'")
    assert rules("sglang", rope, ctx=262144, select="CTX303") == []
    small = dict(over, json_model_override_args="'{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 1.5}}'")
    ((_, message),) = lint("sglang", small, ctx=262144, select="CTX303")
    assert message.startswith("262,144 > 131,072 x 1.5 = 196,608:")
    assert rules("sglang", {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": '"0"'}, ctx=262144, select="CTX303") == []
    assert rules("sglang", over, ctx=131072, select="CTX303") == []  # override unused
    assert rules("llamacpp", {"override_kv": "llama.context_length=int:262144"}, ctx=262144,
                 select="CTX303") == ["CTX303"]


def test_vllm_chunked_prefill_defaults_by_version():
    args = {"max_num_batched_tokens": 8192}
    assert rules("vllm", args, version="0.11.0", ctx=32768, select="CTX304") == []  # V1: chunked by default
    assert rules("vllm", args, ctx=32768, select="CTX304") == []                    # unknown version: default on
    assert rules("vllm", args, version="0.6.3", ctx=32768, select="CTX304") == ["CTX304"]  # V0 <= 32K: off
    assert rules("vllm", args, version="0.6.3", ctx=65536, select="CTX304") == []   # V0 turned it on above 32K
    assert rules("vllm", dict(args, enable_chunked_prefill="false"), ctx=32768, select="CTX304") == ["CTX304"]
    assert rules("vllm", dict(args, max_model_len=8192, enable_chunked_prefill=False), ctx=32768,
                 select="CTX304") == []  # the engine's own max_model_len wins over the normalized one


def test_vllm_max_num_seqs_default():
    ((_, message),) = lint("vllm", {"max_num_batched_tokens": 128}, select="CTX305")
    assert "the default max_num_seqs (at least 256 on GPUs)" in message
    assert rules("vllm", {"max_num_batched_tokens": 128, "max_num_seqs": 64}, select="CTX305") == []


def test_tgi_spellings_and_chunking():
    assert rules("tgi", {"MAX_INPUT_TOKENS": '"8192"', "MAX_TOTAL_TOKENS": '"8192"'}, select="CTX306") == ["CTX306"]
    assert rules("tgi", {"max_input_length": 9000}, ctx=8192, select="CTX306") == ["CTX306"]  # vs context_length
    small = {"max_input_tokens": 16384, "max_batch_prefill_tokens": 4096}
    assert rules("tgi", small, version="3.3.4", select="CTX307") == []  # chunking on by default
    assert rules("tgi", small, version="2.4.1", select="CTX307") == ["CTX307"]
    assert rules("tgi", dict(small, PREFILL_CHUNKING='"0"'), select="CTX307") == ["CTX307"]
    assert rules("tgi", dict(small, speculate=2), select="CTX307") == ["CTX307"]
    assert rules("tgi", dict(small, ATTENTION="flashinfer"), select="CTX307") == []


def test_trtllm_defaults():
    # default max_num_tokens 8192, no chunking, and the PyTorch backend: trtllm-serve's default from 1.0
    ((_, message),) = lint("trtllm", {}, select="CTX308", version="1.0.0")
    assert message.startswith("131,071 > 8,192:") and "the default max_num_tokens 8,192" in message
    for args in ({"backend": "tensorrt"}, {"backend": "trt"}, {"max_input_len": 8192},
                 {"enable_chunked_prefill": True}):
        assert rules("trtllm", args, select="CTX308", version="1.0.0") == [], args


def test_trtllm_serve_default_backend_depends_on_the_release():
    # before 1.0 trtllm-serve served a TensorRT engine unless told `--backend pytorch` (NVIDIA/TensorRT-LLM#6419,
    # #8223): CTX308, the PyTorch backend's check, held for every release and was a false error on 0.20
    assert rules("trtllm", {}, select="CTX308", version="0.20.0") == []
    assert rules("trtllm", {"backend": "pytorch"}, select="CTX308", version="0.20.0") == ["CTX308"]
    assert rules("trtllm", {}, select="CTX308", version="1.1.0") == ["CTX308"]
    # a release ctxlint cannot read, or a 1.0 release candidate (the change landed during them): the two
    # defaults disagree, so no verdict, as CTX304 and CTX307 do with defaults that changed between releases
    for version in ("", "latest", "1.0.0rc2"):
        assert rules("trtllm", {}, select="CTX308", version=version) == [], version
    from ctxlint.engines.flags_trtllm import DYNAMO_SPEC, SPEC_
    backend = SPEC_.by_name("backend")
    assert [backend.default_at(r) for r in (None, "0.21.0", "1.0rc0", "1.0", "1.2.0rc1")] == [
        ("tensorrt", "pytorch"), ("tensorrt",), ("tensorrt", "pytorch"), ("pytorch",), ("pytorch",)]
    # `--backend trt` is 1.0's spelling and an alias since: no release refuses it
    assert rules("trtllm", {"backend": "trt"}, select="CTX301", version="1.0.0") == []
    assert dict(DYNAMO_SPEC.defaults)["backend"].origin == "launcher"  # Dynamo's worker passes PyTorch itself


def test_llamacpp_slots():
    assert rules("llamacpp", {"ctx_size": 131072, "n_parallel": 4}, select="CTX309") == ["CTX309"]
    assert rules("llamacpp", {"ctx_size": 131072, "n_parallel": 4, "kv_unified": True}, select="CTX309") == []
    assert rules("llamacpp", {"ctx_size": 131072, "n_parallel": -1}, select="CTX309") == []  # auto: unified
    # ctx_size 0 takes the model's trained context: split with --fit off, x n_streams under --fit from b11434
    # (common/fit.cpp:267-272), and a build not stated may do either: no definite error
    assert rules("llamacpp", {"ctx_size": 0, "n_parallel": 2, "fit": "off"}, select="CTX309") == ["CTX309"]
    assert rules("llamacpp", {"ctx_size": 0, "n_parallel": 2}, version="b11434", select="CTX309") == []
    assert rules("llamacpp", {"ctx_size": 0, "n_parallel": 2}, select="CTX309") == []


def test_llamacpp_slots_read_as_the_pool_physics_reads_them():
    # --kv-unified-per-slot 16384 -np 4, no -c: n_ctx = 4 x 16,384 (server.cpp:178-186), 16,384 a slot
    per_slot = {"n_parallel": 4, "kv_unified_per_slot": 16384}
    assert rules("llamacpp", per_slot, window=16384, ctx=16384, select="CTX309") == []
    # ... as its environment variables give them (strings)
    env = {"LLAMA_ARG_N_PARALLEL": '"4"', "LLAMA_ARG_KV_UNIFIED_PER_SLOT": '"16384"'}
    assert rules("llamacpp", env, window=16384, ctx=16384, select="CTX309") == []
    # a cap below the window: every slot holds 4,096, whatever the build
    msg = lint("llamacpp", {"n_parallel": 4, "kv_unified_per_slot": 4096}, window=16384, ctx=16384, select="CTX309")
    assert [m for _, m in msg] and "Raise kv_unified_per_slot to 16,384" in msg[0][1]
    # -np 4, no -c, from b11434: fit sizes the pool to n_ctx_train x 4, each slot n_ctx_train (fit.cpp:197,267-272)
    assert rules("llamacpp", {"n_parallel": 4}, version="b11500", select="CTX309") == []
    # a build not stated, or older: a band over both readings, so no definite error
    assert rules("llamacpp", {"n_parallel": 4}, select="CTX309") == []
    assert rules("llamacpp", {"n_parallel": 4}, version="b5000", select="CTX309") == []
    # every reading short: the error names both
    (msg,) = lint("llamacpp", {"n_parallel": 4}, mpe=8192, ctx=8192, window=16384, select="CTX309")
    assert "8,192 / 4 = 2,048 on the other reading" in msg[1]


@pytest.mark.parametrize("name", ["vLLM", " vllm ", "VLLM"])
def test_engine_names_are_normalized(name):
    # the schema wants lowercase (CTX002 says so), but the rules still read the deployment
    assert rules(name, {"max_model_len": "128k"}, select="CTX302") == ["CTX302"]


def test_trained_positions_count_rope_scaling_set_on_the_engine_command_line():
    yarn = "'{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, \"original_max_position_embeddings\": 32768}}'"
    # Qwen2.5's documented way to 131,072 tokens: YaRN x4 over 32,768 trained positions
    assert rules("vllm", {"hf_overrides": yarn}, mpe=32768, select="CTX109") == []
    # SGLang takes no factor when the scaling states its original length (get_context_length), so the same
    # override leaves its limit at 32,768 and it refuses 131,072; its length key in the override raises it
    ((_, message),) = lint("sglang", {"json_model_override_args": yarn}, mpe=32768, select="CTX109")
    assert message.startswith("131,072 > 32,768: the unified context length 131,072 exceeds the length SGLang "
                              "derives for this model by 98,304 tokens (SGLang derives 32,768 from the model's "
                              "max_position_embeddings 32,768 (the x4 RoPE scaling in --json-model-override-args "
                              "is not applied: it states original_max_position_embeddings))")
    assert message.endswith("though the RoPE scaling covers 131,072 positions. Set \"max_position_embeddings\": "
                            "131072 in --json-model-override-args (SGLang's length key, beside the RoPE scaling), "
                            "or SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1, or lower it to 32,768")
    keyed = yarn[:-2] + ", \"max_position_embeddings\": 131072}'"
    assert rules("sglang", {"json_model_override_args": keyed}, mpe=32768, select="CTX109") == []
    # the key alone starts SGLang but stretches nothing: past the trained positions, the advice names both
    ((_, message),) = lint("sglang", {"json_model_override_args": "'{\"max_position_embeddings\": 131072}'"},
                           mpe=32768, select="CTX109")
    assert message.startswith("131,072 > 32,768 x 1 = 32,768: ")
    assert message.endswith("(spec.model.rope_scaling_factor)")
    # a scaling without the original length is applied: covered and started
    linear = "'{\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 4.0}}'"
    assert rules("sglang", {"json_model_override_args": linear}, mpe=32768, select="CTX109") == []
    ((_, message),) = lint("vllm", {"hf_overrides": yarn}, mpe=32768, ctx=262144, window=262144, select="CTX109")
    assert message.startswith("262,144 > 32,768 x 4 = 131,072: the unified context length 262,144 exceeds the "
                              "model's trained positions times the RoPE scaling in hf_overrides by 131,072 tokens.")
    ((_, message),) = lint("vllm", {}, mpe=32768, select="CTX109")
    assert message.endswith("declare the RoPE scaling the model is actually served with "
                            "(spec.model.rope_scaling_factor)")  # a native manifest says it in spec.model


def test_vllm_from_0_30_keeps_a_yarn_override_at_the_config_length_and_names_the_key_that_raises_it():
    yarn = "'{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0, " \
        "\"original_max_position_embeddings\": 32768}}'"
    # up to 0.29 vLLM took YaRN's length as original x factor: the override starts 131,072
    assert rules("vllm", {"hf_overrides": yarn}, version="0.29.0", mpe=32768, select="CTX109") == []
    # from 0.30 the length is max_position_embeddings as is (_get_and_verify_max_len skips yarn's factor), and the
    # dict override is set after the config is read: vLLM refuses 131,072 though the scaling covers it
    for version in ("0.30.0", "0.34.0"):
        assert lint("vllm", {"hf_overrides": yarn}, version=version, mpe=32768, select="CTX109") == [(
            "CTX109", "131,072 > 32,768: the unified context length 131,072 exceeds the max_model_len vLLM derives "
            "for this model by 98,304 tokens (vLLM derives 32,768 from the model's max_position_embeddings 32,768 "
            "(the x4 yarn scaling in --hf-overrides is not applied: from 0.30 vLLM takes a YaRN model's length from "
            "the config as is)), and vLLM refuses to start above it (\"User-specified max_model_len ... is greater "
            "than the derived max_model_len\"), though the RoPE scaling covers 131,072 positions. Set "
            "\"max_position_embeddings\": 131072 in --hf-overrides (the length key vLLM reads, beside the RoPE "
            "scaling), or VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, or lower it to 32,768")]
    # the key in the same override (a flat value: applied before the length is derived) starts it
    keyed = yarn[:-2] + ", \"max_position_embeddings\": 131072}'"
    assert rules("vllm", {"hf_overrides": keyed}, version="0.30.0", mpe=32768, select="CTX109") == []
    # so does the switch (CTX303 then checks the scaling), and an unknown release is not assumed to refuse
    assert rules("vllm", {"hf_overrides": yarn, "VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, version="0.30.0", mpe=32768,
                 select="CTX109") == []
    assert rules("vllm", {"hf_overrides": yarn}, mpe=32768, select="CTX109") == []
    # a linear scaling still multiplies the length
    linear = "'{\"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 4.0}}'"
    assert rules("vllm", {"hf_overrides": linear}, version="0.30.0", mpe=32768, select="CTX109") == []


def test_vllm_advice_past_the_rope_reach_names_the_length_key_where_the_release_needs_it(tmp_path):
    from tests.helpers import run

    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: q}\nspec:\n  containers:\n  - name: vllm\n"
           "    image: vllm/vllm-openai:TAG\n"
           "    args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, \"131072\"]\n")
    head = "(--hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": F, " \
        "\"original_max_position_embeddings\": N}"
    for tag, tail in (("v0.30.0", ", \"max_position_embeddings\": 131072}' with F >= 4.00)"),
                      ("v0.29.0", "}' with F >= 4.00)")):
        (tmp_path / f"{tag}.yaml").write_text(pod.replace("TAG", tag))
        out = run(["check", "--isolated", "--select", "CTX109", str(tmp_path / f"{tag}.yaml")]).out
        assert out.splitlines()[0].endswith(f"{head}{tail} (context-exceeds-trained-positions)"), out


def test_trained_positions_advice_for_a_deployment_file_names_the_engine_flag(tmp_path):
    from tests.helpers import run

    (tmp_path / "d.yaml").write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: qwen}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.1
          args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "131072"]
""")
    out = run(["check", "--isolated", "--select", "CTX109", str(tmp_path / "d.yaml")]).out
    assert out.splitlines()[0].endswith(
        "(--hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": F, "
        "\"original_max_position_embeddings\": N}}' with F >= 4.00) (context-exceeds-trained-positions)")
    assert out.startswith(f"{tmp_path / 'd.yaml'}:10:71: CTX109 [error] 131,072 > 32,768 x 1 = 32,768")


def test_a_bug_while_checking_a_file_names_the_file(monkeypatch, tmp_path):
    # blame (engine_guards): a ctxlint exception becomes an InternalError naming the file (the CLI prints it, exit 2);
    # what is not an Exception (Ctrl-C) passes through unchanged.
    import pytest

    from ctxlint import engine
    from ctxlint.engine import InternalError, lint_paths

    path = tmp_path / "d.yaml"
    path.write_text("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {}\n")
    bug = ValueError("made up")
    monkeypatch.setattr(engine, "adapt_file", lambda loaded, refs=None, maps=None: (_ for _ in ()).throw(bug))
    with pytest.raises(InternalError) as caught:
        lint_paths([str(path)])
    assert str(caught.value) == f"internal error while checking {path}: ValueError: made up"
    assert caught.value.__cause__ is bug
    monkeypatch.setattr(engine, "adapt_file", lambda loaded, refs=None, maps=None: (_ for _ in ()).throw(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        lint_paths([str(path)])


SIZED_TO_POOL = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: v}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: v
        image: IMAGE
        command: COMMAND
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_a_default_context_that_follows_the_pool_fits_and_only_a_pool_of_nothing_is_in_doubt(tmp_path):
    # sweep: KAITO passes `--max-model-len auto`; TensorRT-LLM shrinks its default max_seq_len to the pool
    import json

    from helpers import run
    path = tmp_path / "d.yaml"
    path.write_text(SIZED_TO_POOL.replace("IMAGE", "vllm/vllm-openai:v0.14.0").replace(
        "COMMAND", '[vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, auto]'))
    assert run(["check", str(path), "--isolated"]).out == ""  # it was a CTX210 "whether ... fits"
    [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
    assert row["verdict"] == "fits"
    # 0.12.0 has no `auto` (human_readable_int; auto-fit from 0.14.0): refused, not a context sized to the pool
    path.write_text(path.read_text().replace("v0.14.0", "v0.12.0"))
    assert "CTX301 [error] vllm 0.12.0 would refuse to start" in run(["check", str(path), "--isolated"]).out
    path.write_text(SIZED_TO_POOL.replace("IMAGE", "nvcr.io/nvidia/tensorrt-llm/release:1.0.0").replace(
        "COMMAND", "[trtllm-serve, meta-llama/Llama-3.1-8B-Instruct]"))
    out = run(["check", str(path), "--isolated", "--select", "CTX201,CTX209,CTX210"]).out
    assert ":11:33: CTX210 [warning] the unified engine sizes its context to its KV pool (TensorRT-LLM takes " in out
    assert "reaches nothing: at the band's low end not one KV block fits and the engine would not start" in out
    [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
    assert row["verdict"] == "within band"


TGI_241 = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: t}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: t
        image: ghcr.io/huggingface/text-generation-inference:VERSION
        args: ["--model-id", "meta-llama/Llama-3.1-8B-Instruct"ARGS]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


@pytest.mark.parametrize("version, args, context", [
    ("2.4.1", "", 4096),  # chunking off by default: the warmup batch, min(4096, positions)
    ("2.4.1", ', "--max-batch-prefill-tokens", "8192"', 8192),
    ("3.0.0", "", None),  # chunking on: the KV capacity, capped by the model (follows the pool)
    ("2.4.0", "", 4096),
])
def test_tgi_default_context_with_and_without_prefill_chunking(tmp_path, version, args, context):
    # TGI v2.4.1 globals.py: PREFILL_CHUNKING defaults to "0" (v3.0.0: "1"); without chunking
    # FlashCausalLM.warmup sets max_total_tokens to the warmup batch's length
    import json

    from helpers import run
    path = tmp_path / "d.yaml"
    path.write_text(TGI_241.replace("VERSION", version).replace("ARGS", args))
    [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
    if context is None:
        assert row["engine_context"] > 8192  # the pool's
    else:
        assert row["engine_context"] == context


def test_tgi_241_default_prefill_batch_below_the_input_limit_is_refused(tmp_path):
    from helpers import run
    path = tmp_path / "d.yaml"
    path.write_text(TGI_241.replace("VERSION", "2.4.1").replace(
        "ARGS", ', "--max-input-tokens", "8000", "--max-total-tokens", "8192"'))
    out = run(["check", str(path), "--select", "CTX307"]).out
    assert ("CTX307 [error] 4,096 < 8,000: the unified max_batch_prefill_tokens default (= 4,096: TGI 2.4.1's "
            "min(4096, max_position_embeddings)) is below max_input_tokens 8,000 without prefill chunking (TGI 2.4.1 "
            "has it off unless PREFILL_CHUNKING=1)") in out
    path.write_text(TGI_241.replace("VERSION", "3.0.0").replace(
        "ARGS", ', "--max-input-tokens", "8000", "--max-total-tokens", "8192"'))
    assert run(["check", str(path), "--select", "CTX307"]).out == ""


def test_a_context_length_written_as_an_unknown_value_is_not_the_engines_default(tmp_path):
    # review: `--max-model-len $(LEN)` (LEN from a Secret) took vLLM's default of 131,072 and gave a false
    # CTX201 and CTX401; the engine never uses its default there, so only CTX008 speaks
    from helpers import run
    path = tmp_path / "d.yaml"
    path.write_text(SIZED_TO_POOL.replace("IMAGE", "vllm/vllm-openai:v0.10.1").replace(
        "COMMAND", '[vllm, serve, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, "$(LEN)"]'))
    out = run(["check", str(path), "--isolated"]).out
    assert [line.split(" ")[1] for line in out.splitlines()] == ["CTX008"], out
    assert "--max-model-len $(LEN)" in out


def test_tgi_chunking_is_off_with_paged_attention_and_on_rocm_images(tmp_path):
    # TGI model.py turns chunking off unless ATTENTION is flashinfer/flashdecoding; the ROCm and Intel
    # images set ATTENTION=paged and PREFILL_CHUNKING=0 (Dockerfile_amd, Dockerfile_intel at v3.0.0)
    import json

    from helpers import run
    path = tmp_path / "d.yaml"
    for version, args, context in (("2.4.1", ', "--max-batch-prefill-tokens", "8192"', 8192),
                                   ("3.0.1-rocm", ', "--max-batch-prefill-tokens", "8192"', 8192)):
        text = TGI_241.replace("VERSION", version).replace("ARGS", args)
        if version == "2.4.1":  # chunking asked for, but paged attention turns it off
            text = text.replace("        resources:", "        env: [{name: PREFILL_CHUNKING, value: '1'}, "
                                "{name: ATTENTION, value: paged}]\n        resources:")
        path.write_text(text)
        [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
        assert row["engine_context"] == context, version


def test_vllm_cpu_backend_kv_space_is_its_kv_memory(tmp_path):
    # kubernetes-sigs/gateway-api-inference-extension cpu-deployment.yaml: vLLM's CPU backend holds
    # VLLM_CPU_KVCACHE_SPACE GiB of KV (vllm/platforms/cpu.py); Qwen3-32B takes 262,144 B a token
    import json

    from helpers import run
    path = tmp_path / "d.yaml"
    text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-cpu}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai-cpu:v0.11.0
          args: ["--model", "Qwen/Qwen3-32B", "--max-model-len", "32768"]
          env: [{name: VLLM_CPU_KVCACHE_SPACE, value: "4"}]
          resources: {limits: {cpu: "16", memory: 100Gi}}
"""
    path.write_text(text)
    [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
    assert (row["prefill_pool"]["tokens"], row["verdict"]) == (16384, "exceeds")
    # on a GPU the variable means nothing
    path.write_text(text.replace('{cpu: "16", memory: 100Gi}', "{nvidia.com/gpu: 1}"))
    [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
    assert row["prefill_pool"] is None or row["prefill_pool"]["tokens"] != 16384


def test_vllm_cpu_ctx201_advice_raises_the_cpu_kv_space_not_accelerators():
    # vLLM's CPU pool is VLLM_CPU_KVCACHE_SPACE GiB of host memory: the advice said "more or larger accelerators, a
    # higher memory fraction", neither of which sizes it
    from ctxlint.engine import lint_text

    text = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm-cpu}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai-cpu:v0.11.0
          args: ["--model", "Qwen/Qwen3-32B", "--max-model-len", "32768"]
          env: [{name: VLLM_CPU_KVCACHE_SPACE, value: "4"}]
          resources: {limits: {cpu: "16", memory: 100Gi}}
"""
    # a default-accelerator configured for the file's path is no device of the CPU engine's: with the space unset
    # (its release's default) the pool was said to be "on H100-SXM-80GB at TP 1 (assumed: default-accelerator ...)"
    h100 = Settings(default_accelerators=(("**", "H100-SXM-80GB"),))
    for variant in (text, text.replace('          env: [{name: VLLM_CPU_KVCACHE_SPACE, value: "4"}]\n', "")):
        for settings in (Settings(), h100):
            [found] = [f for f in lint_text(variant, "d.yaml", settings).findings if f.rule == "CTX201"]
            assert found.message.endswith(
                "Lower the context length to 16,256, or add memory (a larger VLLM_CPU_KVCACHE_SPACE, the GiB of host "
                "memory vLLM's CPU backend gives its KV cache)"), found.message
            assert "accelerators" not in found.message and "H100" not in found.message, found.message
            assert "on vLLM's CPU KV cache" in found.message


def test_tgi_intel_images_chunk_from_3_0_2_and_the_cpu_kv_space_is_a_cpu_images_integer(tmp_path):
    # review: Dockerfile_intel sets ATTENTION=flashdecoding-ipex and PREFILL_CHUNKING=1 from v3.0.2 (model.py
    # accepts it); VLLM_CPU_KVCACHE_SPACE is read with int() and only by the CPU backend
    import json

    from helpers import run
    path = tmp_path / "d.yaml"
    for version, follows in (("3.0.1-intel-xpu", False), ("3.1.0-intel-xpu", True)):
        path.write_text(TGI_241.replace("VERSION", version).replace("ARGS", ""))
        [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
        # unchunked TGI 3 without a stated prefill batch: not derived; chunked: the KV pool's, capped by the model
        assert (row["engine_context"] is not None and row["engine_context"] > 8192) == follows, version
    text = SIZED_TO_POOL.replace("IMAGE", "vllm/vllm-openai:v0.11.0").replace(
        "COMMAND", '[vllm, serve, Qwen/Qwen3-32B, --max-model-len, "32768"]').replace(
        "        resources: {limits: {nvidia.com/gpu: 1}}\n", "        env: [{name: VLLM_CPU_KVCACHE_SPACE, value: 'V'}]\n").replace(
        "      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}\n", "")
    for image, value, pool in (("vllm/vllm-openai:v0.11.0", "4", None), ("vllm/vllm-openai-cpu:v0.11.0", "4", 16384),
                               ("vllm/vllm-openai-cpu:v0.11.0", "4.5", None)):
        path.write_text(text.replace("vllm/vllm-openai:v0.11.0", image).replace("'V'", f"'{value}'"))
        [row] = json.loads(run(["audit", str(path), "--format", "json"]).out)["deployments"]
        assert (row["prefill_pool"]["tokens"] if row["prefill_pool"] else None) == pool, (image, value)


@pytest.mark.parametrize("module, mode", [("dynamo.trtllm", "agg"), ("dynamo.trtllm", "pd"),
                                          ("dynamo.trtllm", "prefill_and_decode"), ("dynamo.vllm", "pd"),
                                          ("dynamo.sglang", "agg"), ("dynamo.sglang", "pd"),
                                          ("dynamo.vllm", "encode"), ("dynamo.trtllm", "encode"),
                                          ("dynamo.sglang", "encode")])
def test_dynamo_disaggregation_modes_of_every_release_are_not_refused(tmp_path, module, mode):
    # sweep 9: newer Dynamo takes agg/pd (components/src/dynamo/*/backend_args.py, sglang/args.py maps them to
    # SGLang's null), older TRT-LLM workers prefill_and_decode: none of them is a refusal, all serve both phases
    from helpers import run
    model = "--model-path" if module == "dynamo.sglang" else "--model"
    path = tmp_path / "d.yaml"
    path.write_text(SIZED_TO_POOL.replace("IMAGE", "nvcr.io/nvidia/ai-dynamo/runtime:0.6.0").replace(
        "COMMAND", f"[python3, -m, {module}, {model}, Qwen/Qwen3-8B, --disaggregation-mode, {mode}]"))
    assert "CTX301" not in run(["check", str(path), "--isolated"]).out


def test_ctx308_skips_tensorrt_llm_decode_roles():
    # llmapi/llm.py BaseLLM._check_arguments skips the max_num_tokens check for generation-only requests,
    # which is what a disaggregated decode (generation) server gets
    from ctxlint.rules import ctx308_prompt_exceeds_max_num_tokens as ctx308
    from ctxlint.model import Deployment, Engine, Role, Source, Val
    src = Source("d.yaml", 1, 1, "")
    def role(kind, *extra):
        return Role(role=Val(kind, src), context_length=Val(8192, src), engine_args=(
            ("max_num_tokens", Val(1024, src)),) + extra)

    served = role("decode", ("disaggregation_mode", Val("decode", src)))
    engine = Engine(name=Val("trtllm", src), version=Val("1.0.0", src))  # PyTorch, the default backend
    dep = Deployment(file="d.yaml", source=src, input_format="kubernetes", engine=engine,
                     roles=(role("prefill", ("disaggregation_mode", Val("prefill", src))), served))
    assert [p.message.split(" role ")[0] for p in ctx308.check(dep, {})] == ["8,191 > 1,024: the prefill"]
    # a worker marked decode only by its deployment (Dynamo subComponentType) runs aggregated: still checked
    dep = Deployment(file="d.yaml", source=src, input_format="kubernetes", engine=engine, roles=(role("decode"),))
    assert [p.message.split(" role ")[0] for p in ctx308.check(dep, {})] == ["8,191 > 1,024: the decode"]


TRTLLM_DISAGG = """\
model: Qwen/Qwen3-0.6B
backend: pytorch
max_seq_len: 32768
max_num_tokens: 4096
context_servers:
  num_instances: 1
  enable_chunked_prefill: true
  urls: ["localhost:8001"]
generation_servers:
  num_instances: 1
  urls: ["localhost:8002"]
"""
GENERATION_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: trtllm-gen}
spec:
  template:
    spec:
      containers:
      - name: gen
        image: nvcr.io/nvidia/tensorrt-llm/release:1.0.0
        command: [trtllm-serve, Qwen/Qwen3-0.6B, --backend, pytorch, --max_seq_len, "32768",
                  --max_num_tokens, "4096", --server_role, ROLE]
        resources: {limits: {nvidia.com/gpu: 1}}
"""
DYNAMO_ENV_MARKED = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: g}
spec:
  services:
    Decode:
      subComponentType: decode
      resources: {limits: {gpu: "1"}}
      envs: [{name: DYN_TRTLLM_DISAGGREGATION_MODE, value: VALUE}]
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.trtllm]
          args: [--model-path, Qwen/Qwen3-0.6B, --max-seq-len, "32768", --max-num-tokens, "4096"]
"""


@pytest.mark.parametrize("text, checked", [
    (TRTLLM_DISAGG, []), (GENERATION_POD.replace("ROLE", "GENERATION"), []),
    (GENERATION_POD.replace("ROLE", "CONTEXT"), ["--max_num_tokens,"]),
    (DYNAMO_ENV_MARKED.replace("VALUE", "decode"), []), (DYNAMO_ENV_MARKED.replace("VALUE", "agg"), ["args:"])], ids=["sections", "generation", "context", "env-decode",
                                                             "env-agg"])
def test_ctx308_skips_every_generation_server_marker(tmp_path, text, checked):
    # review of 93d56ef: trtllm-serve's generation_servers section and `--server_role GENERATION`, and Dynamo's
    # mode from DYN_TRTLLM_DISAGGREGATION_MODE (components/src/dynamo/trtllm/backend_args.py), mark a server
    # TensorRT-LLM runs generation-only (llmapi/llm.py skips the check); a context server or an aggregated worker
    # still checks the prompt. The disaggregated file's context servers chunk: no finding at all.
    from helpers import run
    path = tmp_path / ("disagg.yaml" if text is TRTLLM_DISAGG else "d.yaml")
    path.write_text(text)
    found = [line for line in run(["check", str(path), "--isolated", "--select", "CTX308"]).out.splitlines()
             if "CTX308" in line]
    assert [text.splitlines()[int(line.split(":")[1]) - 1].split()[0] for line in found] == checked


def test_dynamo_encode_worker_is_no_serving_role(tmp_path):
    # review of 93d56ef: an encode worker (`--disaggregation-mode encode`, or its env var) holds no LLM KV cache
    # (dynamo/vllm/encode_engine.py): not a role, so no capacity finding beside a graph's prefill and decode
    import json
    from helpers import run
    path = tmp_path / "d.yaml"
    text = """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: g}
spec:
  services:
    Encode:
      resources: {limits: {gpu: "1"}}
      envs: [{name: DYN_VLLM_DISAGGREGATION_MODE, value: VALUE}]
      extraPodSpec:
        mainContainer:
          command: [python3, -m, dynamo.vllm]
          args: [--model, Qwen/Qwen3-8B, --max-model-len, "32768"ARGS]
"""
    for value, args, roles in (("agg", "", 1), ("encode", "", 0), ("agg", ", --disaggregation-mode, encode", 0)):
        path.write_text(text.replace("VALUE", value).replace("ARGS", args))
        assert json.loads(run(["check", str(path), "--isolated", "--format", "json"]).out)["summary"][
            "deployments"] == roles, (value, args)
    # sweep 11 (coco-alen/sglang_assistance): plain SGLang has no encode mode (null, prefill, decode): the server
    # is refused (CTX301), not dropped as an encode worker with no finding at all
    script = tmp_path / "s.sh"
    script.write_text("python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --disaggregation-mode encode\n")
    out = run(["check", str(script), "--isolated"]).out
    assert "invalid choice: 'encode' (choose from null, prefill, decode)" in out and "1 deployment" in \
        run(["check", str(script), "--isolated"]).err


def test_ctx201_gives_no_lower_to_zero_advice(tmp_path):
    # sweep 10: a point estimate of no KV block advised "Lower the context length to 0"
    from helpers import run
    path = tmp_path / "d.yaml"
    path.write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: old-vllm}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.1.0
        command: [vllm, serve, Qwen/Qwen2.5-7B-Instruct, --max-model-len, "32768"]
        resources: {limits: {nvidia.com/gpu: 1}}
""")
    [line] = [x for x in run(["check", str(path), "--isolated", "--select", "CTX201"]).out.splitlines() if "CTX201" in x]
    assert "exceeds its KV pool 0 (" in line and "to 0" not in line
    # the band's top (13,008, less vLLM's 16-token null block) holds it: the way to no error, with the band
    # warning that stays (review of 4f857e6)
    assert line.endswith("The estimate itself holds no KV block, only its band's top does: lower the context length "
                         "to 12,992 to be within the band (a CTX210 warning), or add memory (more or larger "
                         "accelerators, a higher memory fraction, an fp8 KV cache) (context-exceeds-kv-pool)")


ROPE_SCALED = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d}}
spec:
  template:
    spec:
      containers:
        - name: e
          image: {image}
          args: [{args}]
          env: [{env}]
"""


@pytest.mark.parametrize("image,args,env,fires", [
    # Llama 3.1's `llama3` scaling is not applied: vLLM and SGLang derive 131,072 and refuse more
    ("vllm/vllm-openai:v0.10.1", "--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '262144'", "", True),
    ("lmsysorg/sglang:v0.5.5", "--model-path, meta-llama/Llama-3.1-8B-Instruct, --context-length, '262144'", "", True),
    ("vllm/vllm-openai:v0.10.1", "--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '131072'", "", False),
    # the override starts it anyway (CTX303's business)
    ("vllm/vllm-openai:v0.10.1", "--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '262144'",
     "{name: VLLM_ALLOW_LONG_MAX_MODEL_LEN, value: '1'}", False),
    # review: `--hf-overrides` of the config's own position key changes what vLLM derives (it starts)
    ("vllm/vllm-openai:v0.10.1", "--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '262144', --hf-overrides,"
     " '{\"max_position_embeddings\": 262144}'", "", False),
    # RoPE scaling on the command line stretches what the engine derives
    ("vllm/vllm-openai:v0.10.1", "--model, meta-llama/Llama-3.1-8B-Instruct, --max-model-len, '262144', --hf-overrides,"
     " '{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 2.0, \"original_max_position_embeddings\": 131072}}'",
     "", False),
])
def test_a_rope_scaled_model_is_held_to_what_the_engine_derives(tmp_path, image, args, env, fires):
    # sweep 11: CTX109 knew only models without RoPE scaling: Llama 3.x, DeepSeek V3/R1 and Gemma 3 at any
    # context length passed, though vLLM's _get_and_verify_max_len and SGLang's ModelConfig raise ValueError
    # above the length they derive (unless their long-context override is set)
    from tests.helpers import run

    command = ["python3", "-m", "sglang.launch_server"] if "sglang" in image else None
    text = ROPE_SCALED.format(image=image, args=args, env=env)
    if command:
        text = text.replace("          args:", f"          command: {command}\n          args:")
    (tmp_path / "d.yaml").write_text(text)
    out = run(["check", str(tmp_path / "d.yaml"), "--select", "CTX109"]).out
    assert ("CTX109" in out) == fires, out
    if fires:
        assert "262,144 > 131,072: the unified context length 262,144 exceeds the maximum the engine derives for " \
               "this model by 131,072 tokens (" in out and "refuses to start above it. Lower it to 131,072" in out
        # a RoPE override may not raise the limit (SGLang takes no factor with an original length): the switch does
        assert "starts above it only with " + ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1" if command
                                               else "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1") in out


TRTLLM_SERVE_POD = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: trtllm}
spec:
  template:
    spec:
      containers:
      - name: trtllm
        image: nvcr.io/nvidia/tensorrt-llm/release:TAG
        command: [trtllm-serve]
        args: [Qwen/Qwen2.5-7B-Instruct, --host, 0.0.0.0, --port, "8000", --tp_size, "2"ARGS]
        resources: {limits: {nvidia.com/gpu: 2}}
"""


@pytest.mark.parametrize("tag, args, fires", [
    ("0.20.0", "", False), ("0.20.0", ", --backend, pytorch", True), ("1.0.0", "", True), ("latest", "", False)])
def test_ctx308_on_a_trtllm_serve_pod_follows_its_release(tmp_path, tag, args, fires):
    # sweep 31 (all-day-and-night/llm-serve k8s/trtllm): the 0.20.0 image without --backend serves a TensorRT
    # engine, where CTX308 was a false error; from 1.0 the same command runs PyTorch and is judged
    from helpers import run
    path = tmp_path / "d.yaml"
    path.write_text(TRTLLM_SERVE_POD.replace("TAG", tag).replace("ARGS", args))
    out = run(["check", str(path), "--isolated", "--select", "CTX308"]).out
    assert ("CTX308" in out) is fires, out
    if fires:
        assert out.startswith(f"{path}:11:16: CTX308 [error] 32,767 > 8,192: the unified role accepts prompts up to "
                              "32,767 tokens (context_length default (= 32,768) minus one output token)"), out


LLAMACPP_SCRIPT = ("#!/bin/bash\ndocker run --gpus all -v /models:/models ghcr.io/ggml-org/llama.cpp:{tag} "
                   "-m /models/qwen2.5-coder-14b-instruct-q4_k_m.gguf --ctx-size 81920 --rope-scale 2.5 --port 8080\n")
LLAMACPP_HEAD = ("81,920 > 32,768: the unified context length 81,920 exceeds the model's training context "
                 "(n_ctx_train, the GGUF's context_length) by 49,152 tokens; ")


@pytest.mark.parametrize("tag,capped", [
    ("server", False),         # release unknown: works before b6925 and, with YaRN, from b10754; not an error
    ("server-b4500", False),   # before cd5e3b57 (b6925) there is no slot cap: the RoPE stretch alone decides
    ("server-b8000", True),    # b6925..b8850 cap each slot at n_ctx_train whatever the RoPE flags
    ("server-b9500", False),   # between b8850 and b10754: unknown, so not an error
])
def test_llamacpp_rope_covered_context_follows_the_release(tmp_path, tag, capped):
    from tests.helpers import run

    # Gunther-Schulz/local-llm-coding-setup@d500c125 start-llama-server-native.sh: --rope-scale alone is x2.5
    # scaling in the GGUF's own type, which covers 81,920 over n_ctx_train 32,768
    (tmp_path / "s.sh").write_text(LLAMACPP_SCRIPT.format(tag=tag))
    out = run(["check", "--isolated", "--select", "CTX109", str(tmp_path / "s.sh")]).out
    if not capped:
        assert "CTX109" not in out, out
        return
    assert f"CTX109 [error] {LLAMACPP_HEAD}the x2.5 RoPE scaling set with --rope-scale covers it, but llama-server " \
           "b8000 caps each slot at n_ctx_train (\"the slot context ... exceeds the training context of the model " \
           "... - capping\"), so requests above 32,768 tokens are refused. Lower it to 32,768, or add --override-kv " \
           "<arch>.context_length=int:81920 (context-exceeds-trained-positions)" in out, out


def test_llamacpp_uncovered_context_is_an_error_on_every_release():
    advice = ("so positions past it were not trained for, and llama-server b6925 to at least b8850 also caps each slot "
              "at n_ctx_train. Lower it to 32,768, or set RoPE scaling that covers it and lift the cap on every "
              "release: --rope-scaling yarn --rope-scale F --yarn-orig-ctx 32768 (F >= 4.00) "
              "--override-kv <arch>.context_length=int:131072")
    head = ("131,072 > 32,768: the unified context length 131,072 exceeds the model's training context (n_ctx_train, "
            "the GGUF's context_length) by 98,304 tokens; ")
    for version in ("", "b4500", "b8000", "b10754"):
        assert lint("llamacpp", {}, mpe=32768, ctx=131072, select="CTX109", version=version) == [
            ("CTX109", f"{head}no RoPE scaling stretches it, {advice}")]
    # --rope-scale 2 alone stretches by 2, short of 131,072
    assert lint("llamacpp", {"rope_scale": 2}, mpe=32768, ctx=131072, select="CTX109") == [
        ("CTX109", f"{head}the x2 RoPE scaling set with --rope-scale stretches it only to 65,536, {advice}")]
    assert rules("llamacpp", {}, mpe=32768, ctx=32768, select="CTX109") == []


def test_llamacpp_yarn_lifts_the_cap_from_b10754():
    # meta-models/meta-oss-cookbook#37: at b10754 llama_init_from_model sets n_ctx_train = n_ctx_orig_yarn /
    # rope_freq_scale for YaRN only, so linear scaling keeps the cap and --rope-scale alone hangs on the GGUF's type
    yarn = {"rope_scaling": "yarn", "rope_scale": 4, "yarn_orig_ctx": 32768}
    assert rules("llamacpp", yarn, mpe=32768, select="CTX109", version="b10754") == []
    assert rules("llamacpp", yarn, mpe=32768, select="CTX109", version="b8850") == ["CTX109"]
    assert rules("llamacpp", {"rope_scale": 4}, mpe=32768, select="CTX109", version="b10754") == []
    ((_, message),) = lint("llamacpp", {"rope_scaling": "linear", "rope_scale": 4}, mpe=32768, select="CTX109",
                           version="b10754")
    assert "the x4 RoPE scaling set with --rope-scale covers it, but llama-server b10754 caps each slot at " \
           "n_ctx_train (\"the slot context ... exceeds the training context of the model ... - capping\"); from " \
           "b10754 only YaRN scaling lifts it, so requests above 32,768 tokens are refused. Lower it to 32,768, or " \
           "add --override-kv <arch>.context_length=int:131072" in message, message


def test_llamacpp_rope_scale_alone_is_declared_scaling():
    # --rope-scale N / --rope-freq-scale X stretch by N / 1/X in the GGUF's own type; only `none` turns it off
    over = {"override_kv": "qwen2.context_length=int:81920"}
    assert rules("llamacpp", dict(over, rope_scale=2.5), mpe=32768, ctx=81920, select="CTX303") == []
    assert rules("llamacpp", dict(over, rope_freq_scale=0.4), mpe=32768, ctx=81920, select="CTX303") == []
    assert rules("llamacpp", dict(over, rope_freq_scale=0.5), mpe=32768, ctx=81920, select="CTX303") == ["CTX303"]
    assert rules("llamacpp", dict(over, rope_scaling="none", rope_scale=4), mpe=32768, ctx=81920,
                 select="CTX303") == ["CTX303"]
    assert rules("llamacpp", dict(over, rope_scale="abc"), mpe=32768, ctx=81920, select="CTX303") == ["CTX303"]
