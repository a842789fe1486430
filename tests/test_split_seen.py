"""adapters/split_seen.py reuses a container's split exec-form list within a run when the items, the flags and every
answer the earlier split's lookups got are the same, and an engine's parsed arguments when the tokens and the
environment are: what it returns must be what a fresh split or parse returns, on made-up lists whose lookups answer
otherwise the second time, on every file of the samples and the corpus checked twice in one run (every list then
seen before), against a run that splits and parses every list afresh, and on whole runs of files that repeat a command
where it sits elsewhere, or is read with another file's environment or under another directory's config: each
file's findings exactly, at its own lines and columns."""
from __future__ import annotations

import shutil
from pathlib import Path
from typing import Optional

import pytest
from conftest import SHARED

import ctxlint.adapters.split_seen as split_seen_module
from ctxlint.adapters.run_classes import run_files
from ctxlint.adapters.split_seen import detect_seen, parse_seen, shell_seen, split_seen
from ctxlint.engine import Settings, lint_paths
from ctxlint.engines import parse_invocation, split_list, split_shell
from ctxlint.engines.detect import detect

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
    # the samples alone (a clone without ../shared) reuse 51 lists and find 214 findings; with the corpus, more
    corpus = (SHARED / "corpus" / "real").is_dir()
    assert sum(hits) > (100 if corpus else 40)
    monkeypatch.setattr(split_seen_module, "current", lambda: None)
    fresh = lint_paths(trees, Settings())
    assert _lines(remembered) == _lines(fresh)
    assert len(remembered.findings) > (400 if corpus else 150)
    assert [d.display_name for d in remembered.deployments] == [d.display_name for d in fresh.deployments]


# Adversarial runs: the same command in files that differ in everything a split, a parse or a detection does not
# read (where it is written, how it is quoted, the environment other files give it, the directory's config); each
# file's findings must point into that file, at its own line and column, and be those of a run reusing nothing.

_A = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: a}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.0
        command: ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"]
        args: ["--max-model-len", "$(LEN)", "--max-num-seqs", "256K", "--gpu-memory-utilization", "1.5"]
        env: [{name: LEN, value: "200000"}]
        resources: {limits: {nvidia.com/gpu: 1}}
"""
# the same items, written elsewhere and otherwise: block lists, other quotes, other indentation, two lines of args
_B = """\
# a comment
# another

apiVersion: apps/v1
kind: Deployment
metadata:
  name: b
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.0
          command:
            - vllm
            - serve
            - 'meta-llama/Llama-3.1-8B-Instruct'
          args: [  "--max-model-len",   '$(LEN)', --max-num-seqs, "256K",
                 "--gpu-memory-utilization", "1.5"]
          env:
            - name: LEN
              value: "200000"
          resources: {limits: {nvidia.com/gpu: 1}}
"""


def _check(monkeypatch, args, reuse: bool = True, compared: Optional[list] = None) -> list:
    """`ctxlint check ARGS`'s locations, rules and severities, reusing what the run has seen (reuse: each
    comparison of a list's or a string's answers onto `compared`, True where they were the same), or reusing nothing
    (not reuse: the switch the corpus test above uses)."""
    from helpers import run

    with monkeypatch.context() as m:
        if reuse:
            hits = [] if compared is None else compared
            same = split_seen_module._same_answers
            m.setattr(split_seen_module, "_same_answers", lambda *a: hits.append(same(*a)) or hits[-1])
        else:
            m.setattr(split_seen_module, "current", lambda: None)
        out = run(["check", "--fail-on", "never", "--format", "concise", *args]).out
    return [" ".join(line.split(" ", 3)[:3]) for line in out.splitlines()
            if line.startswith(tuple(f"{d}/" for d in "abABpqr"))]


def test_the_same_list_in_another_file_is_placed_in_that_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for d, text in (("a", _A), ("b", _B)):
        (tmp_path / d).mkdir()
        (tmp_path / d / "deploy.yaml").write_text(text)
    compared: list = []
    found = _check(monkeypatch, ["a", "b"], compared=compared)
    assert found == ["a/deploy.yaml:8:9: CTX208 [info]", "a/deploy.yaml:11:64: CTX301 [error]",
                     "a/deploy.yaml:11:100: CTX206 [error]", "a/deploy.yaml:12:34: CTX109 [error]",
                     "b/deploy.yaml:12:11: CTX208 [info]", "b/deploy.yaml:18:68: CTX301 [error]",  # `256K` on line 18
                     "b/deploy.yaml:19:47: CTX206 [error]", "b/deploy.yaml:22:22: CTX109 [error]"]
    assert compared == [True]  # b's list is a's, reused
    assert found == _check(monkeypatch, ["a", "b"], reuse=False)
    assert _check(monkeypatch, ["b", "a"]) == found  # b's lists split first, a's reused


_SHARED_ENV = """apiVersion: apps/v1
kind: Deployment
metadata: {name: vllm}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.1
        args: [--model, $(MODEL), --max-model-len, $(LEN), --max-num-seqs, "$(SEQS)"]
        envFrom: [{configMapRef: {name: engine}}]
        resources: {limits: {nvidia.com/gpu: "1"}}
"""


def test_the_same_list_with_another_file_s_environment(tmp_path, monkeypatch):
    # each directory's ConfigMap (another file) answers the list's references otherwise; the directories' configs
    # differ too: B's makes CTX301 a warning
    monkeypatch.chdir(tmp_path)
    for d, length, seqs in (("A", "8192", "64"), ("B", "200000", "64x")):
        (tmp_path / d).mkdir()
        (tmp_path / d / "deploy.yaml").write_text(_SHARED_ENV)
        (tmp_path / d / "config.yaml").write_text(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: engine}\n"
            f"data: {{MODEL: meta-llama/Llama-3.1-8B-Instruct, LEN: '{length}', SEQS: '{seqs}'}}\n")
    (tmp_path / "B" / ".ctxlint.yaml").write_text("severity: {CTX301: warning}\n")
    compared: list = []
    found = _check(monkeypatch, ["A", "B"], compared=compared)
    assert found == ["B/config.yaml:4:54: CTX109 [error]", "B/config.yaml:4:54: CTX201 [error]",
                     "B/deploy.yaml:11:77: CTX301 [warning]"]
    assert compared == [False]  # B's LEN and SEQS are not A's: split afresh
    assert found == _check(monkeypatch, ["A", "B"], reuse=False)


_SKY = """\
name: p
envs:
  MODEL: meta-llama/Llama-3.1-8B-Instruct
  LEN: "200000"
resources:
  accelerators: L4:1
run: |
  CMD="vllm serve $MODEL"
  CMD="$CMD --max-model-len $LEN"
  if [ "$SKYPILOT_NUM_NODES" -gt 1 ]; then
    CMD="$CMD --pipeline-parallel-size 2"
  fi
  SEQS=$(cat <<'EOF'
  12x
  EOF
  )
  $CMD --max-num-seqs "$SEQS" --gpu-memory-utilization 1.5
"""


def test_the_same_script_in_another_file_with_its_own_environment(tmp_path, monkeypatch):
    # a string a shell reads (shell_seen), with what holds state across its lines: a command string built in steps,
    # an `if` that appends to it, a `$(cat <<EOF)`; q's LEN differs (split afresh), r is p two lines and two columns on
    monkeypatch.chdir(tmp_path)
    texts = {"p": _SKY, "q": _SKY.replace('"200000"', '"8192"'),
             "r": "# shifted\n\n" + _SKY.replace("\n  ", "\n    ")}
    for d, text in texts.items():
        (tmp_path / d).mkdir()
        (tmp_path / d / "task.yaml").write_text(text)
    compared: list = []
    found = _check(monkeypatch, ["p", "r", "q"], compared=compared)
    p = ["11:10: CTX109 [error]", "11:10: CTX210 [warning]", "11:40: CTX204 [error]", "17:3: CTX109 [error]",
         "17:3: CTX201 [error]", "17:23: CTX301 [error]", "17:56: CTX206 [error]"]
    q = ["11:40: CTX204 [error]", "17:23: CTX301 [error]", "17:56: CTX206 [error]"]
    r = ["13:12: CTX109 [error]", "13:12: CTX210 [warning]", "13:42: CTX204 [error]", "19:5: CTX109 [error]",
         "19:5: CTX201 [error]", "19:25: CTX301 [error]", "19:58: CTX206 [error]"]
    assert found == [f"{d}/task.yaml:{x}" for d, xs in (("p", p), ("q", q), ("r", r)) for x in xs]
    assert compared == [True, False]  # r's answers are p's; q's differ (the table keeps the latest: q's)
    assert found == _check(monkeypatch, ["p", "r", "q"], reuse=False)


_TGI = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: tgi}
spec:
  template:
    spec:
      nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
      containers:
      - name: tgi
        image: ghcr.io/huggingface/text-generation-inference:3.0.1
        args: ["--model-id", "meta-llama/Llama-3.1-8B-Instruct"]
        env: [{name: MAX_TOTAL_TOKENS, value: "200000"}, {name: MAX_INPUT_TOKENS, value: "199000"}]
        resources: {limits: {nvidia.com/gpu: 1}}
"""


def test_the_same_list_parsed_in_another_environment(tmp_path, monkeypatch):
    # no reference in the list: its split is reused, but TGI reads its settings from the environment too, and b's
    # says 8192 tokens where a's says 200,000; a parse keyed without the environment gives b a's finding
    monkeypatch.chdir(tmp_path)
    for d, text in (("a", _TGI), ("b", _TGI.replace('"200000"', '"8192"').replace('"199000"', '"4096"'))):
        (tmp_path / d).mkdir()
        (tmp_path / d / "deploy.yaml").write_text(text)
    found = _check(monkeypatch, ["a", "b"])
    assert found == ["a/deploy.yaml:12:47: CTX201 [error]"]
    assert found == _check(monkeypatch, ["a", "b"], reuse=False)
    assert _check(monkeypatch, ["b", "a"]) == found


_OPEN_QUOTE = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: a}
spec:
  template:
    spec:
      containers:
      - name: vllm
        image: vllm/vllm-openai:v0.10.0
        command: ["/bin/sh", "-c", "echo 'start && vllm serve m --max-model-len 8192"]
"""


def test_a_reused_split_s_problem_is_said_in_each_file(tmp_path, monkeypatch):
    # the split's problem (a quote left open) is the result's; each file says it at its own place
    monkeypatch.chdir(tmp_path)
    shifted = "\n\n" + _OPEN_QUOTE.replace("\n  ", "\n    ")
    for d, text in (("a", _OPEN_QUOTE), ("b", shifted)):
        (tmp_path / d).mkdir()
        (tmp_path / d / "d.yaml").write_text(text)
    compared: list = []
    found = _check(monkeypatch, ["a", "b"], compared=compared)
    assert found == ["a/d.yaml:10:42: CTX001 [error]", "b/d.yaml:12:44: CTX001 [error]"]  # two lines, two columns on
    assert compared == [True]
    assert found == _check(monkeypatch, ["a", "b"], reuse=False)
