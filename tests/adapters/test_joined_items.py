"""An exec-form list item holding several words (`args: ["--model-url URL --port 8000"]`): the container runtime
passes it as ONE argument, so each engine refuses or misreads it (engines/joined_words.py), said as CTX301 at the
item; a `--flag=value` whose value holds blanks, a list a shell runs and a Compose string are read as before."""
from __future__ import annotations

import pytest

from tests.helpers import run

_K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: x}}
spec:
  template:
    spec:
      containers:
      - name: s
        image: {image}
        {key}: {items}
"""
_COMPOSE = """\
services:
  s:
    image: {image}
    {key}: {items}
"""
_WHY = "argparse reads a word that holds a blank and names no flag as a positional argument"
_FIX = "write each flag and value as its own list item"


_LAST = {}  # the text of the last file written: where an item is in it (_at)


def _findings(tmp_path, text: str, name: str) -> list:
    path = tmp_path / name
    path.write_text(text)
    _LAST.update(name=name, text=text)
    out = run(["check", "--isolated", str(path)]).out.splitlines()
    return [line.split(str(tmp_path) + "/", 1)[1] for line in out if "CTX301" in line]


def _at(item: str) -> str:
    """file:line:col of the first character of `item` (inside its quotes) in the last file written."""
    lines, quoted = _LAST["text"].split("\n"), '"' + item + '"'
    row = next(n for n, line in enumerate(lines) if quoted in line)
    return "%s:%d:%d" % (_LAST["name"], row + 1, lines[row].index(quoted) + 2)


def _k8s(tmp_path, image: str, items: str, key: str = "args") -> list:
    return _findings(tmp_path, _K8S.format(image=image, key=key, items=items), "deploy.yaml")


def _compose(tmp_path, image: str, items: str, key: str = "command") -> list:
    return _findings(tmp_path, _COMPOSE.format(image=image, key=key, items=items), "compose.yaml")


URL = "https://huggingface.co/ChristianAzinn/snowflake-arctic-embed-s-gguf/blob/main/" \
      "snowflake-arctic-embed-s-f16.GGUF"


def test_the_aws_llamacpp_embedding_args_item_is_refused_by_llama_server(tmp_path):
    # aws-solutions-library-samples/guidance-for-scalable-model-inference-and-agentic-ai-on-amazon-eks@13091879:
    # model-hosting/standalone-llamacpp-embedding.yaml, the whole command line in one `args` item
    item = f"--model-url {URL} --port 8000 --host 0.0.0.0 --embedding --threads 16"
    words = f'["--model-url", "{URL}", "--port", "8000", "--host", "0.0.0.0", "--embedding", "--threads", "16"]'
    assert _k8s(tmp_path, "ghcr.io/ggml-org/llama.cpp:server", f'["{item}"]') == [
        f'{_at(item)}: CTX301 [error] llamacpp would refuse to start: args[0] is one argument: "{item}": '
        f'llama-server exits with "error: invalid argument: {item}"; {_FIX} ({words}) (engine-rejects-value)']


def test_llama_server_reports_the_argument_with_underscores_made_dashes(tmp_path):
    # common/arg.cpp replaces `_` with `-` in a `--` argument before it looks it up, and prints that
    assert _compose(tmp_path, "ghcr.io/ggml-org/llama.cpp:server",
                    '["-m", "/models/m_q4.gguf", "--ctx-size 8192 --n_gpu_layers 99"]') == [
        f'{_at("--ctx-size 8192 --n_gpu_layers 99")}: CTX301 [error] llamacpp would refuse to start: command[2] '
        'is one argument: "--ctx-size 8192 --n_gpu_layers 99": llama-server exits with "error: invalid argument: '
        f'--ctx-size 8192 --n-gpu-layers 99"; {_FIX} (["--ctx-size", "8192", "--n_gpu_layers", "99"]) '
        '(engine-rejects-value)']


def test_a_short_llamacpp_flag_with_its_value_in_one_item_is_refused_too(tmp_path):
    assert _k8s(tmp_path, "ghcr.io/ggml-org/llama.cpp:server", '["-m", "/models/q.gguf", "-c 8192"]') == [
        f'{_at("-c 8192")}: CTX301 [error] llamacpp would refuse to start: args[2] is one argument: "-c 8192": '
        f'llama-server exits with "error: invalid argument: -c 8192"; {_FIX} (["-c", "8192"]) (engine-rejects-value)']


@pytest.mark.parametrize("form", ["k8s", "compose"])
def test_vllm_serve_without_a_model_takes_the_item_for_its_model(tmp_path, form):
    items = '["vllm", "serve", "--max-model-len 8192 --port 8000"]'
    found = _k8s(tmp_path, "vllm/vllm-openai:v0.11.0", items, key="command") if form == "k8s" else \
        _compose(tmp_path, "vllm/vllm-openai:v0.11.0", items, key="entrypoint")
    where = _at("--max-model-len 8192 --port 8000") + ": CTX301 [error] vllm would refuse to start: " + (
        "command[2]" if form == "k8s" else "entrypoint[2]")
    assert found == [
        f'{where} is one argument: "--max-model-len 8192 --port 8000": vllm serve takes it for its model ({_WHY}, '
        f'and the first is its model) and fails to load a model of that name; {_FIX} (["--max-model-len", "8192", '
        '"--port", "8000"]) (engine-rejects-value)']


@pytest.mark.parametrize("items", [
    '["vllm", "serve", "Qwen/Qwen3-8B", "--max-model-len 8192 --port 8000"]',
    '["vllm", "serve", "--model", "Qwen/Qwen3-8B", "--max-model-len 8192 --port 8000"]',  # moved to the front
])
def test_vllm_serve_with_a_model_exits_on_the_item(tmp_path, items):
    [found] = _k8s(tmp_path, "vllm/vllm-openai:v0.11.0", items, key="command")
    assert found == (
        f'{_at("--max-model-len 8192 --port 8000")}: CTX301 [error] vllm would refuse to start: '
        f'command[{items.count(",")}] is one argument: "--max-model-len 8192 --port 8000": vllm serve exits with '
        '"error: unrecognized arguments: '
        f'--max-model-len 8192 --port 8000" ({_WHY}, and `vllm serve` takes one, its model); {_FIX} '
        '(["--max-model-len", "8192", "--port", "8000"]) (engine-rejects-value)')


def test_a_model_and_its_flags_in_one_vllm_item_is_the_model_vllm_fails_to_load(tmp_path):
    assert _k8s(tmp_path, "vllm/vllm-openai:v0.11.0", '["vllm", "serve", "Qwen/Qwen3-8B --max-model-len 8192"]',
                key="command") == [
        f'{_at("Qwen/Qwen3-8B --max-model-len 8192")}: CTX301 [error] vllm would refuse to start: command[2] is one '
        'argument: "Qwen/Qwen3-8B '
        f'--max-model-len 8192": vllm serve takes it for its model ({_WHY}, and the first is its model) and fails to '
        f'load a model of that name; {_FIX} (["Qwen/Qwen3-8B", "--max-model-len", "8192"]) (engine-rejects-value)']


def test_a_vllm_item_with_a_dot_is_split_as_a_dotted_argument_and_exits(tmp_path):
    # FlexibleArgumentParser.parse_args reads a `-` word holding a `.` as `--json-arg.key value`
    [found] = _compose(tmp_path, "vllm/vllm-openai:v0.11.0",
                       '["Qwen/Qwen3-8B", "--max-model-len 8192 --gpu-memory-utilization 0.9"]')
    assert found == (
        f'{_at("--max-model-len 8192 --gpu-memory-utilization 0.9")}: CTX301 [error] vllm would refuse to start: '
        'command[1] is one argument: "--max-model-len '
        '8192 --gpu-memory-utilization 0.9": the image\'s vLLM server exits: its parser reads a word that starts '
        'with "-" and holds a "." as a dotted JSON argument (--a.b) and splits this one at the ".", into words that '
        'name no flag (an IndexError when it is the last word, else "unrecognized arguments"); '
        f'{_FIX} (["--max-model-len", "8192", "--gpu-memory-utilization", "0.9"]) (engine-rejects-value)')


@pytest.mark.parametrize("release,expected", [
    ("v0.9.0", 'vllm 0.9.0 would refuse to start: command[5] is one argument: "--max-model-len 8192 --port 8000": '
               'the API server module exits with "error: unrecognized arguments: --max-model-len 8192 --port 8000" '
               f'({_WHY}, and the API server module takes none before 0.10.0)'),
    ("v0.11.0", 'vllm 0.11.0 would start without it: command[5] is one argument: "--max-model-len 8192 --port 8000": '
                f'the API server module parses it as its `model_tag` ({_WHY}), which only `vllm serve` reads: none '
                'of the flags in it is set'),
])
def test_the_vllm_api_server_module_refuses_the_item_before_0_10_and_ignores_it_after(tmp_path, release, expected):
    items = '["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B", ' \
            '"--max-model-len 8192 --port 8000"]'
    assert _k8s(tmp_path, f"vllm/vllm-openai:{release}", items, key="command") == [
        f'{_at("--max-model-len 8192 --port 8000")}: CTX301 [error] {expected}; {_FIX} (["--max-model-len", "8192", '
        '"--port", "8000"]) (engine-rejects-value)']


@pytest.mark.parametrize("form", ["k8s", "compose"])
def test_sglang_exits_on_the_item(tmp_path, form):
    items = '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--context-length 8192 --tp 2"]'
    found = _k8s(tmp_path, "lmsysorg/sglang:v0.5.2", items, key="command") if form == "k8s" else \
        _compose(tmp_path, "lmsysorg/sglang:v0.5.2", items)
    where = _at("--context-length 8192 --tp 2")
    assert found == [
        f'{where}: CTX301 [error] sglang would refuse to start: command[5] is one argument: "--context-length 8192 '
        '--tp 2": SGLang exits with "error: unrecognized arguments: --context-length 8192 --tp 2" '
        f"({_WHY}, and SGLang's parser takes none); {_FIX} ([\"--context-length\", \"8192\", \"--tp\", \"2\"]) "
        "(engine-rejects-value)"]


@pytest.mark.parametrize("form", ["k8s", "compose"])
def test_tgi_exits_on_the_item_named_up_to_its_equals_sign(tmp_path, form):
    # the list starts the launcher itself (the image's entrypoint script is replaced): no shell splits the item
    items = ('["text-generation-launcher", "--model-id", "Qwen/Qwen3-8B", '
             '"--max-input-tokens 4096 --max-total-tokens=8192"]')
    image = "ghcr.io/huggingface/text-generation-inference:3.0.0"
    found = _k8s(tmp_path, image, items, key="command") if form == "k8s" else \
        _compose(tmp_path, image, items, key="entrypoint")
    where = _at("--max-input-tokens 4096 --max-total-tokens=8192") + ": CTX301 [error] tgi would refuse to start: " \
        + ("command[3]" if form == "k8s" else "entrypoint[3]")
    assert found == [
        f'{where} is one argument: "--max-input-tokens 4096 --max-total-tokens=8192": text-generation-launcher exits '
        "with \"error: unexpected argument '--max-input-tokens 4096 --max-total-tokens' found\"; "
        f'{_FIX} (["--max-input-tokens", "4096", "--max-total-tokens=8192"]) (engine-rejects-value)']


_TGI = "ghcr.io/huggingface/text-generation-inference"
_TGI_ITEMS = '["--model-id", "Qwen/Qwen3-8B", "--max-input-tokens 4096   --max-total-tokens=65536"]'


def _lines(tmp_path, text: str, name: str) -> list:
    path = tmp_path / name
    path.write_text(text)
    _LAST.update(name=name, text=text)
    return [line.split(str(tmp_path) + "/", 1)[1] for line in run(["check", "--isolated", str(path)]).out.splitlines()
            if str(tmp_path) in line]


def _col(word: str) -> str:
    """file:line:col of `word` (its first occurrence) in the last file written."""
    lines = _LAST["text"].split("\n")
    row = next(n for n, line in enumerate(lines) if word in line)
    return "%s:%d:%d" % (_LAST["name"], row + 1, lines[row].index(word) + 1)


@pytest.mark.parametrize("image", [f"{_TGI}:2.0.0", f"{_TGI}:3.0.0", f"{_TGI}:2.0.4-rocm", f"{_TGI}:3.3.6-gaudi",
                                   f"{_TGI}:3.3.6-neuron", f"{_TGI}:${{TAG:-2.4.1}}"])
@pytest.mark.parametrize("form", ["k8s", "compose"])
def test_tgi_args_through_the_image_are_split_by_its_entrypoint_script(tmp_path, form, image):
    # the image's ENTRYPOINT is /tgi-entrypoint.sh: `exec text-generation-launcher $@`, unquoted, so bash splits
    # the item into the words the launcher reads (huggingface/text-generation-inference@db931fcf:
    # tgi-entrypoint.sh, Dockerfile, Dockerfile_amd from v2.0.4, Dockerfile_gaudi, Dockerfile.neuron): no CTX301,
    # and the window in it is read where its word is (Qwen3-8B was trained on 40,960 positions)
    text = (_K8S.format(image=image, key="args", items=_TGI_ITEMS) if form == "k8s" else
            _COMPOSE.format(image=image, key="command", items=_TGI_ITEMS))
    found = _lines(tmp_path, text, "deploy.yaml" if form == "k8s" else "compose.yaml")
    assert [f for f in found if "CTX301" in f or "CTX109" in f or "CTX008" in f] == [
        f"{_col('65536')}: CTX109 [error] 65,536 > 40,960 x 1 = 40,960: the unified context length 65,536 exceeds the "
        "model's trained positions times its RoPE scaling factor by 24,576 tokens. Lower it to 40,960, or declare "
        "the RoPE scaling the model is actually served with (the engine RoPE scaling setting with F >= 1.60) "
        "(context-exceeds-trained-positions)"]


def test_tgi_split_words_are_read_in_a_block_list_at_their_own_characters(tmp_path):
    # blanks of any run (spaces, a tab, a newline of a folded scalar) part words; each is found where it is written
    text = _K8S.format(image=f"{_TGI}:2.4.1", key="args", items="") + (
        "        - --model-id\n"
        "        - Qwen/Qwen3-8B\n"
        "        - \"--max-input-tokens\\t4096 --max-total-tokens 50000\"\n")
    found = _lines(tmp_path, text, "deploy.yaml")
    assert [f for f in found if "CTX109" in f] == [
        f"{_col('50000')}: CTX109 [error] 50,000 > 40,960 x 1 = 40,960: the unified context length 50,000 exceeds the "
        "model's trained positions times its RoPE scaling factor by 9,040 tokens. Lower it to 40,960, or declare "
        "the RoPE scaling the model is actually served with (the engine RoPE scaling setting with F >= 1.22) "
        "(context-exceeds-trained-positions)"]


@pytest.mark.parametrize("image", [f"{_TGI}:1.4.5", f"{_TGI}:2.0.3-rocm", f"{_TGI}:3.3.5-intel-xpu",
                                   f"{_TGI}:2.4.1-intel-cpu", f"{_TGI}:3.0.1-trtllm",
                                   "ghcr.io/huggingface/tgi-gaudi:2.3.1"])
@pytest.mark.parametrize("form", ["k8s", "compose"])
def test_tgi_images_that_start_the_launcher_give_it_the_item_whole(tmp_path, form, image):
    # v1.4.5's Dockerfile, v2.0.3's Dockerfile_amd, Dockerfile_intel and Dockerfile_trtllm start the launcher
    # (huggingface/text-generation-inference at those tags and @db931fcf), as huggingface/tgi-gaudi's Dockerfile
    # does at its 2.0.1-2.0.5 tags and @b126bf4: clap gets one argument and exits
    found = _k8s(tmp_path, image, _TGI_ITEMS) if form == "k8s" else _compose(tmp_path, image, _TGI_ITEMS)
    item = "--max-input-tokens 4096   --max-total-tokens=65536"
    assert found == [
        f"{_at(item)}: CTX301 [error] tgi would refuse to start: {'args' if form == 'k8s' else 'command'}[2] is one "
        f'argument: "{item}": text-generation-launcher exits with "error: unexpected argument '
        "'--max-input-tokens 4096   --max-total-tokens' found\"; "
        f'{_FIX} (["--max-input-tokens", "4096", "--max-total-tokens=65536"]) (engine-rejects-value)']


@pytest.mark.parametrize("image, said", [(f"{_TGI}:latest", "the tag `latest`"), (_TGI, "an image with no tag"),
                                         (f"{_TGI}:sha-7e7e0ba", "the tag `sha-7e7e0ba`"),
                                         (f"{_TGI}:${{TAG}}", "the tag `${TAG}`")])
def test_tgi_tag_that_does_not_date_the_image_leaves_the_words_unknown(tmp_path, image, said):
    # neither reading is taken: the settings in the item are unknown, said at each, and no check uses a default
    found = [f for f in _lines(tmp_path, _K8S.format(image=image, key="args", items=_TGI_ITEMS), "deploy.yaml")
             if "CTX208" not in f]
    why = ("(a word of args[2], one item of several: TGI images from 2.0.0 split it at blanks (/tgi-entrypoint.sh; "
           "-rocm from 2.0.4), older, -intel and -trtllm ones pass it whole and the launcher refuses it, and "
           f"{said} does not say which; tag the image with its release, or write each word as its own item)")
    assert found == [
        f"{_col('4096')}: CTX008 [info] values ctxlint cannot resolve: --max-input-tokens 4096 {why}; "
        f"--max-total-tokens 65536 {why}; the checks that need them are skipped (set them literally, or state the "
        "limits with ctxlint.io/* annotations) (unresolved-value)"]


def test_lmdeploy_takes_the_item_for_its_model_path(tmp_path):
    assert _k8s(tmp_path, "openmmlab/lmdeploy:v0.6.0", '["lmdeploy", "serve", "api_server", "--session-len 8192"]',
                key="command") == [
        f'{_at("--session-len 8192")}: CTX301 [error] lmdeploy would refuse to start: command[3] is one argument: '
        '"--session-len '
        f'8192": lmdeploy serve api_server takes it for its model path ({_WHY}, and the first is its model path) and '
        f'fails to load a model of that name; {_FIX} (["--session-len", "8192"]) (engine-rejects-value)']


def test_trtllm_serve_exits_with_clicks_no_such_option(tmp_path):
    [found] = [f for f in _k8s(tmp_path, "nvcr.io/nvidia/tensorrt-llm/release:1.0.0",
                               '["trtllm-serve", "Qwen/Qwen3-8B", "--max_seq_len 8192"]', key="command")
               if "one argument" in f]
    assert found == (
        f'{_at("--max_seq_len 8192")}: CTX301 [error] trtllm would refuse to start: command[2] is one argument: '
        '"--max_seq_len '
        '8192": trtllm-serve exits with "Error: No such option \'--max_seq_len 8192\'." (click); '
        f'{_FIX} (["--max_seq_len", "8192"]) (engine-rejects-value)')


def test_a_model_flag_value_holding_the_next_flags_is_a_model_no_one_has(tmp_path):
    assert _compose(tmp_path, "lmsysorg/sglang:v0.5.2",
                    '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B --port 30000"]') == [
        f'{_at("Qwen/Qwen3-8B --port 30000")}: CTX301 [error] sglang would refuse to start: command[4] is one '
        'argument: "Qwen/Qwen3-8B '
        '--port 30000": SGLang takes it whole as the model to load (--model-path), a name no model has, and does not '
        f'start; {_FIX} (["Qwen/Qwen3-8B", "--port", "30000"]) (engine-rejects-value)']


@pytest.mark.parametrize("image,items", [
    # a flag whose value holds blanks: argparse, clap and click split the word at its `=`
    ("vllm/vllm-openai:v0.11.0", '["vllm", "serve", "Qwen/Qwen3-8B", "--override-generation-config={\\"top_k\\": 20}", '
                                 '"--chat-template={% for m in messages %}{{ m.content }}{% endfor %}"]'),
    ("lmsysorg/sglang:v0.5.2", '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", '
                               '"--json-model-override-args={\\"rope_theta\\": 1000000}"]'),
    # a shell runs the list: the script's words are split by it
    ("vllm/vllm-openai:v0.11.0", '["sh", "-c", "vllm serve Qwen/Qwen3-8B --max-model-len 8192 --port 8000"]'),
    ("vllm/vllm-openai:v0.11.0", '["/bin/bash", "-lc", "exec vllm serve Qwen/Qwen3-8B --max-model-len 8192"]'),
])
def test_values_with_blanks_and_shell_scripts_are_no_joined_item(tmp_path, image, items):
    assert _k8s(tmp_path, image, items, key="command") == []
    assert _compose(tmp_path, image, items, key="entrypoint") == []


def test_a_compose_string_command_is_split_by_compose_and_not_judged(tmp_path):
    # Compose splits a string command itself (shell-like quoting, no shell): its words are no list items
    assert _compose(tmp_path, "vllm/vllm-openai:v0.11.0", "Qwen/Qwen3-8B --max-model-len 8192 --port 8000") == []


def test_an_item_holding_json_braces_is_said_as_written(tmp_path):
    # braces in the item are its text, not a template of the message
    item = '--max-model-len 8192 --hf-overrides {}'
    assert _k8s(tmp_path, "vllm/vllm-openai:v0.11.0", f'["vllm", "serve", "Qwen/Qwen3-8B", "{item}"]',
                key="command") == [
        f'{_at(item)}: CTX301 [error] vllm would refuse to start: command[3] is one argument: "{item}": vllm serve '
        f'exits with "error: unrecognized arguments: {item}" ({_WHY}, and `vllm serve` takes one, its model); {_FIX} '
        '(["--max-model-len", "8192", "--hf-overrides", "{}"]) (engine-rejects-value)']


@pytest.mark.parametrize("image,items", [
    # argparse gives a word that is no option to the option before it: the served name is `--my model`
    ("vllm/vllm-openai:v0.11.0", '["vllm", "serve", "Qwen/Qwen3-8B", "--served-model-name", "--my model"]'),
    # nargs "+": every such word after it
    ("vllm/vllm-openai:v0.11.0", '["vllm", "serve", "Qwen/Qwen3-8B", "--served-model-name", "a", "--b c"]'),
    # llama.cpp takes the next word as the value whatever it is
    ("ghcr.io/ggml-org/llama.cpp:server", '["llama-server", "-m", "/models/q.gguf", "--alias", "--my model"]'),
    # after a flag ctxlint does not know, the item may be its value
    ("lmsysorg/sglang:v0.5.2", '["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", '
                               '"--not-a-listed-flag", "--x y"]'),
])
def test_an_item_a_flag_before_it_takes_as_its_value_is_no_joined_item(tmp_path, image, items):
    assert [f for f in _k8s(tmp_path, image, items, key="command") if "one argument" in f] == []


def test_vllm_names_the_item_with_its_underscores_made_dashes(tmp_path):
    # FlexibleArgumentParser.parse_args makes `_` a `-` in a `--` word before argparse sees it (vllm==0.34.0:
    # vllm/utils/argparse_utils.py), so "unrecognized arguments" quotes the word so changed; SGLang's does not
    item = "--max_model_len 8192 --tensor_parallel_size 2"
    assert _k8s(tmp_path, "vllm/vllm-openai:v0.11.0", f'["vllm", "serve", "Qwen/Qwen3-8B", "{item}"]',
                key="command") == [
        f'{_at(item)}: CTX301 [error] vllm would refuse to start: command[3] is one argument: "{item}": vllm serve '
        'exits with "error: unrecognized arguments: --max-model-len 8192 --tensor-parallel-size 2" '
        f'({_WHY}, and `vllm serve` takes one, its model); {_FIX} '
        '(["--max_model_len", "8192", "--tensor_parallel_size", "2"]) (engine-rejects-value)']
    item = "--context_length 8192"
    assert _k8s(tmp_path, "lmsysorg/sglang:v0.5.2", '["python3", "-m", "sglang.launch_server", "--model-path", '
                f'"Qwen/Qwen3-8B", "{item}"]', key="command") == [
        f'{_at(item)}: CTX301 [error] sglang would refuse to start: command[5] is one argument: "{item}": SGLang '
        f'exits with "error: unrecognized arguments: {item}" ({_WHY}, and SGLang\'s parser takes none); {_FIX} '
        '(["--context_length", "8192"]) (engine-rejects-value)']
