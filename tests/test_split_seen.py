"""adapters/split_seen.py reuses a container's split exec-form list within a run when the items, the flags and every
answer the earlier split's lookups got are the same, and an engine's parsed arguments when the tokens and the
environment are: what it returns must be what a fresh split or parse returns, on made-up lists whose lookups answer
otherwise the second time, and on every file of the samples and the corpus checked twice in one run (every list then
seen before), against a run that splits and parses every list afresh."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import SHARED

import ctxlint.adapters.split_seen as split_seen_module
from ctxlint.adapters.run_classes import run_files
from ctxlint.adapters.split_seen import detect_seen, parse_seen, shell_seen, split_seen
from ctxlint.engine import Settings, lint_paths
from ctxlint.engines import detect, parse_invocation, split_list, split_shell

ROOT = Path(__file__).resolve().parents[1]
LIST = ["/bin/sh", "-c", "exec vllm serve $MODEL --max-model-len $(LEN)", "--", "$(TP)"]


def _split(items, env, **flags):
    return split_seen(items, env.get, **flags), split_list(items, env.get, **flags)


def test_same_answers_reuse_the_result():
    with run_files([], 1 << 20):
        first, fresh = _split(LIST, {"LEN": "8192", "MODEL": "m", "TP": "2"})
        again, _ = _split(list(LIST), {"LEN": "8192", "MODEL": "m", "TP": "2"})
    assert first == fresh
    assert again is first


@pytest.mark.parametrize("env", [
    {"LEN": "4096", "MODEL": "m", "TP": "2"},  # another answer
    {"MODEL": "m", "TP": "2"},                 # a name not known now
    {"LEN": 8192, "MODEL": "m", "TP": "2"},    # equal text, another type
])
def test_another_answer_splits_afresh(env):
    with run_files([], 1 << 20):
        first, _ = _split(LIST, {"LEN": "8192", "MODEL": "m", "TP": "2"})
        again, fresh = _split(LIST, env)
    assert again is not first
    assert again == fresh
    assert [t.text for t in again.commands[0].tokens] == [t.text for t in fresh.commands[0].tokens]


def test_flags_are_part_of_the_key():
    items = ["vllm", "serve", "m", "--max-model-len", "${LEN}"]
    env = {"LEN": "8192"}
    with run_files([], 1 << 20):
        as_k8s = split_seen(items, env.get, k8s=True)
        as_compose = split_seen(items, env.get, compose=True, shell=env.get)
    assert as_compose == split_list(items, env.get, compose=True, shell=env.get)
    assert as_k8s == split_list(items, env.get, k8s=True)
    assert as_compose.commands[0].tokens[-1].text == "8192" != as_k8s.commands[0].tokens[-1].text


def test_outside_a_run_nothing_is_kept():
    env = {"LEN": "8192", "MODEL": "m", "TP": "2"}
    assert split_seen(LIST, env.get) is not split_seen(LIST, env.get)


SCRIPT = 'MODEL=${MODEL:-m}\nexec vllm serve "$MODEL" --max-model-len ${LEN} --tensor-parallel-size {{ .Values.tp }}'


def test_a_command_string_with_the_same_answers_reuses_the_split():
    env = {"LEN": "8192", "{{ .Values.tp }}": "2"}
    with run_files([], 1 << 20):
        first = shell_seen(SCRIPT, env.get, False, None, True, True, True)
        again = shell_seen(SCRIPT, dict(env).get, False, None, True, True, True)
    assert again is first
    assert first == split_shell(SCRIPT, env.get, go=True, defaults=True, script=True)


@pytest.mark.parametrize("env", [{"LEN": "4096", "{{ .Values.tp }}": "2"}, {"LEN": "8192", "MODEL": "n"}])
def test_a_command_string_with_other_answers_splits_afresh(env):
    with run_files([], 1 << 20):
        first = shell_seen(SCRIPT, {"LEN": "8192", "{{ .Values.tp }}": "2"}.get, False, None, True, True, True)
        again = shell_seen(SCRIPT, env.get, False, None, True, True, True)
        undefaulted = shell_seen(SCRIPT, env.get, False, None, True, False, True)
    assert again is not first
    assert again == split_shell(SCRIPT, env.get, go=True, defaults=True, script=True)
    assert undefaulted == split_shell(SCRIPT, env.get, go=True, defaults=False, script=True)


ARGS = ["vllm", "serve", "m", "--max-model-len", "8192", "--tensor-parallel-size", "2"]
ENV = {"VLLM_ATTENTION_BACKEND": "FLASHINFER", "HF_TOKEN": None}


def test_the_same_tokens_and_environment_reuse_the_parse():
    with run_files([], 1 << 20):
        tokens = split_seen(ARGS, ENV.get).commands[0].tokens
        first = parse_seen("vllm", tokens, dict(ENV), "vllm", "serve", 2)
        again = parse_seen("vllm", tokens, dict(ENV), "vllm", "serve", 2)
    assert again is first
    assert first == parse_invocation("vllm", tokens, dict(ENV), "vllm", "serve", 2)
    assert first.value("max_model_len") == 8192


@pytest.mark.parametrize("env", [
    {**ENV, "VLLM_USE_V1": "0"},                                 # one more variable
    {"HF_TOKEN": None, "VLLM_ATTENTION_BACKEND": "FLASHINFER"},  # the same, in another order
    {"VLLM_ATTENTION_BACKEND": "FLASH_ATTN", "HF_TOKEN": None},  # another value
])
def test_another_environment_parses_afresh(env):
    with run_files([], 1 << 20):
        tokens = split_seen(ARGS, ENV.get).commands[0].tokens
        first = parse_seen("vllm", tokens, dict(ENV), "vllm", "serve", 2)
        again = parse_seen("vllm", tokens, env, "vllm", "serve", 2)
    assert again is not first
    assert again == parse_invocation("vllm", tokens, env, "vllm", "serve", 2)


def test_other_tokens_of_the_same_words_parse_afresh():
    with run_files([], 1 << 20):
        tokens = split_seen(ARGS, ENV.get).commands[0].tokens
        first = parse_seen("vllm", tokens, dict(ENV), "vllm", "serve", 2)
        other = split_list(ARGS, ENV.get).commands[0].tokens
        again = parse_seen("vllm", other, dict(ENV), "vllm", "serve", 2)
        long_ctx = parse_seen("vllm", tokens[:4] + split_list(["16384"]).commands[0].tokens, dict(ENV), "vllm",
                              "serve", 2)
    assert again is not first and again == first
    assert long_ctx.value("max_model_len") == 16384


def test_detection_is_kept_for_the_same_tokens_and_image():
    with run_files([], 1 << 20):
        tokens = split_seen(["--model", "m", "--max-model-len", "8192"], {}.get).commands[0].tokens
        first = detect_seen(tokens, "vllm/vllm-openai:v0.11.0", True)
        first.append("a caller's own list")  # each caller gets a list of its own
        again = detect_seen(tokens, "vllm/vllm-openai:v0.11.0", True)
        other_image = detect_seen(tokens, "busybox", True)
        not_args_only = detect_seen(tokens, "vllm/vllm-openai:v0.11.0", False)
        other_tokens = detect_seen(split_list(["vllm", "serve", "m"]).commands[0].tokens, "busybox", True)
    assert again == detect(tokens, "vllm/vllm-openai:v0.11.0", args_only=True)
    assert [d.engine for d in again] == ["vllm"]
    assert other_image == detect(tokens, "busybox", args_only=True) == []
    assert not_args_only == []
    assert [(d.engine, d.args_start) for d in other_tokens] == [("vllm", 2)]


def _trees(tmp_path: Path) -> list:
    sources = [ROOT / "samples"] + [p for p in (SHARED / "corpus" / "real",) if p.is_dir()]
    out = []
    for copy in ("a", "b"):  # the second copy's lists were all split in the first
        for k, src in enumerate(sources):
            shutil.copytree(src, tmp_path / copy / str(k))
        out.append(str(tmp_path / copy))
    return out


def _lines(report) -> list:
    return [(f.file, f.line, f.column, f.rule, f.severity, f.message, f.path, f.deployment) for f in report.findings]


def test_a_run_with_every_list_seen_before_finds_what_fresh_splits_find(tmp_path, monkeypatch):
    trees = _trees(tmp_path)
    hits = []
    same = split_seen_module._same_answers
    monkeypatch.setattr(split_seen_module, "_same_answers", lambda *a: hits.append(same(*a)) or hits[-1])
    remembered = lint_paths(trees, Settings())
    assert sum(hits) > 100
    monkeypatch.setattr(split_seen_module, "current", lambda: None)
    fresh = lint_paths(trees, Settings())
    assert _lines(remembered) == _lines(fresh)
    assert len(remembered.findings) > 100
    assert [d.display_name for d in remembered.deployments] == [d.display_name for d in fresh.deployments]
