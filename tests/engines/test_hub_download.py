"""`MODEL_PATH=$(hf download REPO [FILE])` (engines/hub_download.py): the substitution is the path the Hugging Face
CLI prints, a snapshot of REPO in its cache, so the engine's model is that repository (and GGUF file).

The shape is Adam-D-Lewis/skyllm@a989811d1c0e2eba9dcbc60cd1d5aa8a5ddbba29:sky/sky-llamacpp.yaml (and its -80gb and
-cpumoe siblings): `MODEL_PATH=$("$LLAMA_ENV/bin/hf" download --format quiet --type model "${LLM_HF_REPO}"
"${LLM_HF_FILE}")`, then `llama-server -m "${MODEL_PATH}"`; before, the model was unknown ("MODEL_PATH is set by the
script to a value it does not hold")."""
from __future__ import annotations

import pytest

from ctxlint.engines.shellwords import split_shell
from ctxlint.resolution.names import parse_ref

SNAPSHOT = "~/.cache/huggingface/hub/models--Qwen--Qwen2.5-0.5B-Instruct-GGUF/snapshots/{commit}"


def model_word(text: str, program: str = "llama-server") -> str:
    [command] = [c for c in split_shell(text, defaults=True).commands if c.argv[:1] == [program]]
    return command.argv[command.argv.index("-m") + 1]


def test_a_captured_file_download_is_the_file_in_the_cache():
    text = ('LLAMA_ENV="$HOME/envs/llamacpp"\nR=Qwen/Qwen2.5-0.5B-Instruct-GGUF\nF=qwen2.5-0.5b-instruct-q4_k_m.gguf\n'
            'MODEL_PATH=$("$LLAMA_ENV/bin/hf" download --format quiet --type model "${R}" "${F}")\n'
            'llama-server -m "${MODEL_PATH}" --ctx-size 131072\n')
    path = model_word(text)
    assert path == f"{SNAPSHOT}/qwen2.5-0.5b-instruct-q4_k_m.gguf"
    ref = parse_ref(path)
    assert ref.repo_id == "Qwen/Qwen2.5-0.5B-Instruct-GGUF" and ref.via == "gguf"


@pytest.mark.parametrize("command, path", [
    # no file: snapshot_download's folder; several files too; the older CLI's name
    ("huggingface-cli download Qwen/Qwen3-8B", "~/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/{commit}"),
    ("hf download Qwen/Qwen3-8B config.json tokenizer.json 2>/dev/null",
     "~/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/{commit}"),
    ("HF_HUB_ENABLE_HF_TRANSFER=1 hf download Qwen/Qwen3-8B --include '*.safetensors' --quiet",
     "~/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/{commit}"),
    # the cache the command names, and a revision that is a commit
    ("hf download --cache-dir /data/hf Qwen/Qwen3-8B --revision " + "a" * 40,
     "/data/hf/models--Qwen--Qwen3-8B/snapshots/" + "a" * 40),
    # an hf:// URI in place of REPO (huggingface_hub 2.5.0 cli/download.py; engines/hf_uris.py): the model's
    # repository, its revision after `@`, the file in it; a trailing `/` is a folder, so the snapshot
    ("hf download hf://Qwen/Qwen3-8B", "~/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/{commit}"),
    ("hf download --quiet hf://models/Qwen/Qwen2.5-0.5B-Instruct-GGUF/qwen2.5-0.5b-instruct-q4_k_m.gguf",
     f"{SNAPSHOT}/qwen2.5-0.5b-instruct-q4_k_m.gguf"),
    (f"hf download hf://Qwen/Qwen3-8B@{'b' * 40}/config.json",
     f"~/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/{'b' * 40}/config.json"),
    ("hf download hf://Qwen/Qwen3-8B@main/gguf/", "~/.cache/huggingface/hub/models--Qwen--Qwen3-8B/snapshots/{commit}"),
])
def test_the_printed_path(command, path):
    [serve] = [c for c in split_shell(f"M=$({command})\nvllm serve \"$M\"\n", defaults=True).commands]
    assert serve.argv[2] == path


def test_the_script_s_hf_home_places_the_cache():
    text = "export HF_HOME=/mnt/hf\nM=$(hf download org/model)\nvllm serve \"$M\"\n"
    [serve] = split_shell(text, defaults=True).commands
    assert serve.argv[2] == "/mnt/hf/hub/models--org--model/snapshots/{commit}"


@pytest.mark.parametrize("command", [
    "hf download org/model --local-dir /models/m",     # the folder given: named by nothing but its own name
    "hf download org/model --dry-run",                 # prints a table
    "hf download org/data --repo-type dataset",        # not a model
    "hf download hf://datasets/org/data",              # a URI of a dataset
    "hf download hf://model/org/m",                    # a singular type prefix: parse_hf_uri refuses it
    "hf download hf://org/model --revision main",      # the URI gives the revision: hf stops (CLIError)
    "hf download hf://org/model/config.json x.json",   # a file in the URI and another beside it: likewise
    "hf download hf://org/model@refs/pr/3/x.json",     # a special ref: not split here
    "hf download hf://org/model//x.json",              # an empty path segment: parse_hf_uri refuses the URI
    "huggingface-cli download hf://org/model",         # the older CLI reads no URI
    "hf download org/model | tail -1",                 # a pipe: another command's output
    "hf download org/model > /dev/null 2>&1",          # nothing printed
    "hf download $REPO",                               # a repository the script does not hold
    "hf download org/model --some-new-option",         # an option neither CLI has
    "hf upload org/model ./out",                       # not a download
    "curl -sL https://example.com/download",           # another program
])
def test_anything_else_stays_unknown(command):
    [serve] = split_shell(f"M=$({command})\nvllm serve \"$M\"\n", defaults=True).commands
    assert serve.argv[2] == "$M" and [r.why for r in serve.tokens[2].unresolved] == ["set"]


SKY = """\
envs:
  LLM_HF_REPO: Qwen/Qwen2.5-0.5B-Instruct-GGUF
  LLM_HF_FILE: qwen2.5-0.5b-instruct-q4_k_m.gguf
resources:
  accelerators: {RTX4090:1, L40S:1}
run: |
  LLAMA_ENV="$HOME/sky_workdir/.pixi/envs/llamacpp"
  MODEL_PATH=$("$LLAMA_ENV/bin/hf" download \\
    --format quiet \\
    --type model \\
    "${LLM_HF_REPO}" "${LLM_HF_FILE}")
  nohup "$LLAMA_ENV/bin/llama-server" -m "${MODEL_PATH}" -ngl 99 --ctx-size 16384 &
"""


def test_a_skypilot_task_serves_the_repository_it_downloads():
    from tests.adapters.kit import adapt

    deployments = adapt(SKY, "sky.yaml").deployments
    assert len(deployments) == 2  # one per accelerator option
    for d in deployments:
        [role] = d.roles
        ref = parse_ref(d.model.id.value)
        assert (ref.repo_id, ref.name) == ("Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m")
        assert role.context_length.value == 16384


@pytest.mark.parametrize("fmt", ["--format json", "--format=agent", "--format human", "--format auto"])
def test_an_output_format_other_than_quiet_prints_no_bare_path(fmt):
    # huggingface/huggingface_hub@ee0a4510f4bc15e26cb722be2efc2bdb01383ca0:src/huggingface_hub/cli/_output.py
    # Output.result: json prints `{"path": ...}`, agent `path=...`, human a check-marked line and `  path: ...`
    # (auto is human or agent); only quiet prints the value alone. Before, any --format was read as the path.
    [serve] = split_shell(f"M=$(hf download {fmt} org/model f.gguf)\nvllm serve \"$M\"\n", defaults=True).commands
    assert serve.argv[2] == "$M"


@pytest.mark.parametrize("command, path", [
    # huggingface-cli's argparse `--include`/`--exclude` take nargs="*": the words after them are patterns, not files
    # (huggingface/huggingface_hub@61bc87eb4d774c477ee87c9bf14aa9557ccb4e34:src/huggingface_hub/commands/
    # download.py), so no file is named: snapshot_download's folder
    ("huggingface-cli download org/model --include '*Q4_K_M*' '*.json'",
     "~/.cache/huggingface/hub/models--org--model/snapshots/{commit}"),
    ("huggingface-cli download org/model --exclude '*.bin' f.gguf",
     "~/.cache/huggingface/hub/models--org--model/snapshots/{commit}"),
    # a file before the option is still a file (and the patterns are then ignored)
    ("huggingface-cli download org/model f.gguf --include '*.json' '*.txt'",
     "~/.cache/huggingface/hub/models--org--model/snapshots/{commit}/f.gguf"),
    # hf took nargs="*" too before 1.0 (argparse) and one value per option after (click): which it is, is not known
    ("hf download org/model --include '*Q4_K_M*' f.gguf", None),
    ("hf download org/model --include='*Q4_K_M*' f.gguf",
     "~/.cache/huggingface/hub/models--org--model/snapshots/{commit}/f.gguf"),
])
def test_patterns_after_include_are_not_files(command, path):
    [serve] = split_shell(f"M=$({command})\nvllm serve \"$M\"\n", defaults=True).commands
    assert serve.argv[2] == (path or "$M")
