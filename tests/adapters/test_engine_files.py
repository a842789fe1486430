"""Engine config files read on their own: llama-swap, TRT-LLM disaggregated server
configs, and complete `vllm serve --config` / SGLang `--config` files."""
from __future__ import annotations

import pytest

from tests.adapters.kit import adapt, at
from tests.conftest import SHARED
from tests.helpers import run

CORPUS = SHARED / "corpus" / "real"

LLAMA_SWAP = """\
models:
  "qwen":
    env:
      - "CUDA_VISIBLE_DEVICES=0"
    cmd: >
      /opt/llama-server
      --port 9000 --parallel 4
      --ctx-size 16000
      --model /models/qwen.gguf
  "not-an-engine":
    cmd: /usr/bin/whisper-server --port 9001
  "broken": [1, 2]
"""


def test_llama_swap_cmd_is_read_as_a_shell_command_with_positions():
    res = adapt(LLAMA_SWAP)
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value) == ("llama-swap", "qwen", "llamacpp")
    ctx = role.context_length  # llama-server splits --ctx-size over --parallel slots
    assert (ctx.value, ctx.source.line, at(LLAMA_SWAP, ctx.source)) == (4000, 8, "16000")
    assert dep.model.id.value == "/models/qwen.gguf"


# llama-swap's config as a cluster mounts it, in the shape of j0sh3rs/home-ops@6a9419ec
# (kubernetes/apps/ai/llama-swap/app/configmap.yaml: `data.config.yaml: |` with macros and `cmd: |` blocks)
SWAP_CONFIG_MAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: llama-swap-config
data:
  config.yaml: |
    macros:
      "server": >-
        /usr/local/bin/llama-server
        --port ${PORT} -ngl 99
    models:
      "coder":
        cmd: |
          ${server}
          --model /models/Qwen3-Coder-30B-A3B-Instruct-Q3_K_S.gguf
          --ctx-size 49152
        ttl: 120
  other.txt: "cmd: not a config"
"""


def test_llama_swap_config_in_a_config_map_is_read_with_positions_in_the_config_map():
    [dep] = adapt(SWAP_CONFIG_MAP).deployments
    [role] = dep.roles
    assert (dep.input_format, dep.display_name, dep.engine.name.value) == ("llama-swap", "coder", "llamacpp")
    ctx = role.context_length
    assert (ctx.value, ctx.source.line, at(SWAP_CONFIG_MAP, ctx.source)) == (49152, 16, "49152")
    assert dep.model.id.source.line == 15 and at(SWAP_CONFIG_MAP, dep.model.id.source).startswith("/models/Qwen3")
    assert dep.source.line == 13 and dep.source.path.startswith('data["config.yaml"]:models')
    # a ConfigMap whose data is no llama-swap config, or a Deployment's, gives none
    assert adapt(SWAP_CONFIG_MAP.replace("models:", "things:")).deployments == []


TRT_DISAGG = """\
model: Qwen/Qwen3-8B
backend: pytorch
max_seq_len: 32768
context_servers:
  num_instances: 2
  tensor_parallel_size: 2
  kv_cache_config:
    max_tokens: 16384
  urls: ["localhost:8001", "localhost:8002"]
generation_servers:
  num_instances: 1
  max_seq_len: 40960
  urls: ["localhost:8003"]
"""


def test_trtllm_disaggregated_config_gives_prefill_and_decode_roles():
    res = adapt(TRT_DISAGG)
    [dep] = res.deployments
    prefill, decode = sorted(dep.roles, key=lambda r: r.role.value != "prefill")
    assert (dep.engine.name.value, prefill.role.value, decode.role.value) == ("trtllm", "prefill", "decode")
    # shared keys apply to both sections; a section's own key wins
    assert (prefill.context_length.value, prefill.context_length.source.line) == (32768, 3)
    assert (decode.context_length.value, at(TRT_DISAGG, decode.context_length.source)) == (40960, "40960")
    assert (prefill.kv_pool_tokens.value, at(TRT_DISAGG, prefill.kv_pool_tokens.source)) == (16384, "16384")
    assert prefill.parallelism.tp == 2 and prefill.accelerators.count.value == 2


def test_trtllm_disaggregated_context_above_prefill_pool_is_located_at_the_value(tmp_path):
    (tmp_path / "disagg.yaml").write_text(TRT_DISAGG)
    result = run(["check", "--isolated", "--select", "CTX201", str(tmp_path / "disagg.yaml")])
    assert result.code == 1
    assert result.out.splitlines()[0].startswith(
        f"{tmp_path / 'disagg.yaml'}:3:14: CTX201 [error] 32,768 > 16,384: the prefill engine context length")


VLLM_CONFIG = """\
model: openai/gpt-oss-120b
gpu-memory-utilization: 0.95
max-model-len: 131072
num-gpu-blocks-override: 4096
tensor-parallel-size: 2
"""


def test_vllm_serve_config_file_is_one_unified_vllm_role():
    res = adapt(VLLM_CONFIG)
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.engine.name.value, role.role.value, dep.model.id.value) == ("vllm", "unified", "openai/gpt-oss-120b")
    assert (role.context_length.value, role.context_length.source.line, role.context_length.source.col) == \
        (131072, 3, 16)
    assert (role.kv_pool_tokens.value, role.parallelism.tp) == (4096 * 16, 2)


SGLANG_CONFIG = """\
model-path: deepseek-ai/DeepSeek-V3
tp: 8
context-length: 1M
disaggregation-mode: prefill
max-total-tokens: 681280
"""


def test_sglang_config_file_keeps_sglang_suffix_rules_and_role():
    res = adapt(SGLANG_CONFIG)
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.engine.name.value, role.role.value, dep.model.id.value) == \
        ("sglang", "prefill", "deepseek-ai/DeepSeek-V3")
    assert (role.context_length.value, at(SGLANG_CONFIG, role.context_length.source)) == (1_000_000, "1M")
    assert (role.kv_pool_tokens.value, role.parallelism.tp) == (681280, 8)


def test_files_that_are_not_engine_configs_are_left_alone():
    assert adapt("model: x\nreplicas: 3\n").deployments == []  # no engine-specific key
    assert adapt("model: x\nmax-model-len: 8\ncontext-length: 8\n").deployments == []  # both engines' keys
    assert adapt("max-model-len: 8192\n").deployments == []  # no model
    assert adapt("apiVersion: v1\nkind: ConfigMap\nmodel: x\nmax-model-len: 8\n").deployments == []
    assert adapt("models: {a: {cmd: 3}}\n").deployments == []


def test_engine_config_values_the_engine_rejects_are_located():
    res = adapt("model: [1]\ncontext_servers: {tensor_parallel_size: x}\n")
    [diag] = res.diagnostics
    assert (diag.kind, diag.source.line, diag.source.col) == ("engine-rejects-value", 2, 41)
    assert diag.message == "trtllm would refuse to start: deploy.yaml: tensor_parallel_size: 'x' is not a valid integer."
    [diag] = adapt("model: m\nmax-model-len: 12x\n").diagnostics
    assert (diag.source.line, diag.source.col, diag.source.path) == (2, 16, "max-model-len")


@pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus/real is not beside the repo")
def test_corpus_engine_config_files_are_recognised():
    disagg = CORPUS / "NVIDIA__TensorRT-LLM" / "examples__disaggregated__disagg_config.yaml"
    swap = CORPUS / "mostlygeek__llama-swap" / "docs__examples__aider-qwq-coder__llama-swap.yaml"
    runpod = CORPUS / "runpod-workers__worker-vllm" / "configs__gpt-oss__gpt_oss_120b.yaml"
    from ctxlint.adapters import adapt_file
    from ctxlint.file_reader import read_path
    kinds = []
    for path in (disagg, swap, runpod):
        for dep in adapt_file(read_path(str(path))).deployments:
            kinds.append((dep.display_name, dep.engine.name.value, tuple(r.role.value for r in dep.roles),
                          tuple(r.context_length.value if r.context_length else None for r in dep.roles)))
    assert kinds == [
        ("context_servers + generation_servers", "trtllm", ("prefill", "decode"), (None, None)),
        ("qwen-coder-32B", "llamacpp", ("unified",), (16000,)),
        ("QwQ", "llamacpp", ("unified",), (32000,)),
        ("openai/gpt-oss-120b", "vllm", ("unified",), (8192,)),
    ]


def test_trtllm_negative_num_instances_is_not_a_replica_count():
    res = adapt(TRT_DISAGG.replace("num_instances: 2", "num_instances: -1"))
    prefill, decode = sorted(res.deployments[0].roles, key=lambda r: r.role.value != "prefill")
    assert (prefill.replicas, decode.replicas.value) == (None, 1)


LLAMA_SWAP_MACROS = """\
startPort: 9000
macros:
  srv: "/opt/llama-server --port ${PORT} --parallel 2"
  ctx: 32768
models:
  qwen:
    env: ["ctx=999"]
    cmd: |
      # one flag per line, as llama-swap's README writes it
      ${srv} -m /models/qwen.gguf
      --ctx-size ${ctx}
  small:
    macros: {ctx: 4096}
    cmd: ${srv} -m /models/o.gguf --ctx-size ${ctx}
"""


def test_llama_swap_macros_and_one_flag_per_line():
    res = adapt(LLAMA_SWAP_MACROS)
    qwen, small = res.deployments
    # `${ctx}` is the macro (32,768 over 2 slots), not the env var; the `|` lines are one command
    assert (qwen.display_name, qwen.roles[0].context_length.value) == ("qwen", 16384)
    assert (small.display_name, small.roles[0].context_length.value) == ("small", 2048)  # its own macro wins
    assert at(LLAMA_SWAP_MACROS, qwen.roles[0].context_length.source) == "32768"  # where the macro is written
    assert res.diagnostics == []  # ${PORT} is llama-swap's own (startPort), not an unresolved value


# The shape of HarshVaragiya/HomeLab@f1932d764acc62c276bff560031188de4e1b3fbf:llama-swap/config.yaml (a llama-swap
# config): block-scalar macros, one holding a quoted JSON, spliced into a `docker run ... vllm/vllm-openai` cmd.
LLAMA_SWAP_QUOTED = """\
macros:
  docker_vllm: |
    docker run --gpus all --rm -p "${PORT}:8000"
  image: |
    vllm/vllm-openai:v0.13.0
  spec: |
    --speculative-config '{"method": "ngram", "num_speculative_tokens": 5}'
models:
  "qwen3-8b":
    cmd: |
      ${docker_vllm} --name "qwen3-8b-${PORT}"
      ${image} --model Qwen/Qwen3-8B --max-model-len 32768
      ${spec} --served-model-name ${MODEL_ID}
"""


def test_llama_swap_macro_quotes_group_words_as_in_the_cmd_text():
    # llama-swap puts a macro's text into the cmd and then splits it (shlex): the JSON is one word. Before, the
    # macro was a shell variable, split at its blanks with its quotes kept: a false CTX301 ("invalid JSON") on
    # 18 of that config's 23 models. Its block scalar's line break is a blank, not the command's end.
    res = adapt(LLAMA_SWAP_QUOTED)
    [dep] = res.deployments
    [role] = dep.roles
    assert (dep.model.id.value, role.context_length.value, dep.engine.version.value) == (
        "Qwen/Qwen3-8B", 32768, "0.13.0")
    assert res.diagnostics == []  # ${MODEL_ID} is the model's key: no CTX008 for it
    assert at(LLAMA_SWAP_QUOTED, role.context_length.source) == "32768"
    args = dict(role.engine_args)
    spec = args["speculative_config"]
    assert (spec.value, spec.source.path) == ({"method": "ngram", "num_speculative_tokens": 5}, "macros.spec")
    assert args["served_model_name"].value == ["qwen3-8b"]


def test_trtllm_kv_cache_dtype_and_quantized_weights_are_read_from_llm_api_keys():
    # Before: TensorRT-LLM had no KV-dtype setting (an fp8 cache was sized as 16-bit) and no quantization flag.
    from ctxlint.capacity import weights_of

    text = TRT_DISAGG.replace("  kv_cache_config:\n    max_tokens: 16384\n",
                              "  kv_cache_config:\n    max_tokens: 16384\n    dtype: fp8\n"
                              "  quant_config:\n    quant_algo: FP8\n    kv_cache_quant_algo: FP8\n")
    [dep] = adapt(text).deployments
    prefill, decode = sorted(dep.roles, key=lambda r: r.role.value != "prefill")
    assert (prefill.kv_cache_dtype.value, at(text, prefill.kv_cache_dtype.source)) == ("fp8", "fp8")
    assert decode.kv_cache_dtype is None and weights_of(dep, decode, None) is None
    assert weights_of(dep, prefill, None).key == "fp8"
    # QuantConfig's KV algorithm when the LLM API's KvCacheConfig.dtype is not given
    alone = adapt(text.replace("    dtype: fp8\n", "")).deployments[0]
    role = next(r for r in alone.roles if r.role.value == "prefill")
    assert (role.kv_cache_dtype.value, role.kv_cache_dtype.source.path) == ("FP8", "context_servers.quant_config."
                                                                            "kv_cache_quant_algo")


# mostlygeek/llama-swap@0bdb3720199f530b622a1934c0db89f32c94819c:internal/config/macros.go substitutes a model's
# macros last-declared first (substituteMacroList walks the list from its end; mergeModelMacros puts MODEL_ID first,
# then the global macros with a model's own in their place, then the model's new ones), so a macro's value can use
# only the macros declared before it: a later one is left as `${name}`, and validateConfigMacroUses refuses it
# (macro_in_macro_test.go, TestConfig_MacroInMacroLIFOOrder). `-c 8192` below never reaches llama-server.
LLAMA_SWAP_ORDER = """\
macros:
  base: "llama-server --port ${PORT}"
  full: "${base} -c ${ctx} --alias ${MODEL_ID}"
  ctx: 8192
  uses-model: "${base} -c ${mctx}"
models:
  later:
    cmd: ${full} -m /m/Qwen3-8B-Q4_K_M.gguf
  model-only:
    macros:
      mctx: 4096
    cmd: ${uses-model} -m /m/Qwen3-8B-Q4_K_M.gguf
  earlier:
    macros:
      base: "llama-server --port ${PORT} -c ${ctx}"
    cmd: ${base} -m /m/Qwen3-8B-Q4_K_M.gguf
"""


def test_llama_swap_macro_uses_only_the_macros_declared_before_it():
    res = adapt(LLAMA_SWAP_ORDER)
    # `full` names `ctx`, declared after it; `uses-model` names the model's own `mctx`, appended after the global
    # ones; a model's own `base` takes the global one's place, before `ctx`: llama-swap leaves each `${...}` as
    # typed and refuses the file. Before, all three read as set (-c 8192, 4096, 8192) and the file as clean.
    assert [(d.kind, d.source.path, d.deployment) for d in res.diagnostics] == [
        ("schema-violation", "macros.full", "later"), ("schema-violation", "macros.uses-model", "model-only"),
        ("schema-violation", "models.earlier.macros.base", "earlier")]
    assert "${ctx}" in res.diagnostics[0].message and "declare ctx earlier" in res.diagnostics[0].message
    assert all(d.roles[0].context_length is None for d in res.deployments)


# The shape of djismgaming/docs-llama-swap@8f59e427d224ba892b5c44477e21ae606e18b767:config.yaml (llama-swap on
# Windows): a `>` macro holding `C:\...\llama-server.exe`, models with `-m F:\...\x.gguf`. llama-swap splits a cmd
# with the Windows dialect there (backslashes are characters); read as POSIX words the program was
# `C:appsllamacppllama-server.exe` and none of that file's 13 models was a deployment.
LLAMA_SWAP_WINDOWS = r"""
macros:
  "llamacpp-vulkan": >
    C:\apps\llamacpp-vulkan\llama-server.exe
    --port ${PORT}
models:
  qwen-coder:
    cmd: |
      C:\apps\llamacpp-vulkan\llama-server.exe --port ${PORT}
      -m F:\models\Qwen2.5-Coder-7B-Instruct-GGUF\qwen2.5-coder-7b-instruct-q4_k_m.gguf
      --ctx-size 16384
      --alias "qwen \"coder\""
  from-macro:
    cmd: ${llamacpp-vulkan} -m F:\models\qwen.gguf --ctx-size 8192
"""


def test_llama_swap_on_windows_keeps_backslashes_in_paths():
    res = adapt(LLAMA_SWAP_WINDOWS)
    dep, from_macro = res.deployments
    [role] = dep.roles
    assert (dep.display_name, dep.engine.name.value) == ("qwen-coder", "llamacpp")
    assert (role.context_length.value, at(LLAMA_SWAP_WINDOWS, role.context_length.source)) == (16384, "16384")
    # the path's folders stay folders (the model is found by them), at the path's place in the file
    assert dep.model.id.value == "F:/models/Qwen2.5-Coder-7B-Instruct-GGUF/qwen2.5-coder-7b-instruct-q4_k_m.gguf"
    assert at(LLAMA_SWAP_WINDOWS, dep.model.id.source).startswith("F:\\models\\Qwen2.5-Coder-7B")
    # a backslash before `"` is still the escaped quote both dialects read
    assert role.arg("alias").value == 'qwen "coder"'
    # the program from a macro's text is split the same way
    assert (from_macro.engine.name.value, from_macro.roles[0].context_length.value) == ("llamacpp", 8192)
    assert res.diagnostics == []


def test_llama_swap_on_posix_keeps_shell_escapes():
    # No drive path: the POSIX dialect, where `\ ` joins a path with a blank into one word.
    text = "models:\n  m:\n    cmd: /opt/llama-server -m /models/my\\ models/qwen.gguf --ctx-size 4096\n"
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "/models/my models/qwen.gguf"


def test_llama_swap_macro_names_a_hyphenated_earlier_macro():
    # The shape of TheWizardTower/abrazo@f62a81c81572dc1098eba98db92e5173aeaa7af7:llama-swap/config.yaml: a `base`
    # macro spliced from `${llama-server}` and `${ctx_size}`, both declared before it. llama-swap puts their texts
    # there (macros.go); the macro's `${llama-server}` was respelled `${llama_server}` before the earlier macros
    # were put in, so it stayed and each of that file's 12 models was a false CTX002 ("llama-swap refuses").
    text = """\
macros:
  llama-server: "/opt/llama-server"
  ctx_size: 32768
  base: >
    ${llama-server} --port ${PORT}
    --ctx-size ${ctx_size}
models:
  qwen:
    cmd: |
      ${base}
      --model /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf
"""
    res = adapt(text)
    assert res.diagnostics == []
    [dep] = res.deployments
    assert (dep.engine.name.value, dep.roles[0].context_length.value) == ("llamacpp", 32768)


def test_llama_swap_drive_path_in_a_comment_line_is_no_windows_host():
    # llama-swap drops a cmd's `#` lines before it splits it: a Windows path named there leaves the POSIX split,
    # whose `\ ` joins a folder name with a blank.
    text = ("models:\n  m:\n    cmd: |\n      # on Windows: C:\\llama\\llama-server.exe\n"
            "      /opt/llama-server -m /models/my\\ models/qwen.gguf --ctx-size 4096\n")
    [dep] = adapt(text).deployments
    assert dep.model.id.value == "/models/my models/qwen.gguf"


def test_llama_swap_windows_macro_ending_in_a_backslash_runs_on_into_the_cmd():
    # `models: C:\models\` then `-m ${models}x.gguf`: llama-swap puts the macro's text into the cmd first
    # (macros.go), and only then drops a backslash that ends a line (commands.go SanitizeCommand), so this one,
    # mid-word in the cmd, stays a path character. It was dropped with the macro read alone: the model was
    # `C:/models` and the file name a stray word, a false "llamacpp would refuse to start".
    text = (
        "macros:\n"
        "  models: C:\\models\\\n"
        "models:\n"
        "  q:\n"
        "    cmd: C:\\llama\\llama-server.exe -m ${models}Qwen2.5-7B-Instruct-Q4_K_M.gguf --ctx-size 8192\n")
    res = adapt(text)
    assert res.diagnostics == []
    [dep] = res.deployments
    assert dep.model.id.value == "C:/models/Qwen2.5-7B-Instruct-Q4_K_M.gguf"
    assert dep.roles[0].context_length.value == 8192
