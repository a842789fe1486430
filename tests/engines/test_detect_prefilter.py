"""detect() (its _programs) asks _at only about tokens whose base name is a program _at can match; the
shortcut finds exactly what asking _at at every index finds, where the command's program or a runner's
program is (runners.py), and elsewhere the launches no argument spells by accident: over the tokens of every
command in the samples, tests and corpus, and over generated token lists of near-miss names."""
from __future__ import annotations

import os
from importlib import import_module
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ctxlint.engines.execform import split_list
from ctxlint.engines.shellwords import split_shell

d = import_module("ctxlint.engines.detect")  # the module (its detect() is imported from it, not from ctxlint.engines)
runners = import_module("ctxlint.engines.runners")


def _general(texts, unknown=frozenset()):
    at = [d._at(texts, i, unknown) for i in range(len(texts))]
    i = 0
    while i < len(texts):
        if at[i] is not None:
            return [at[i]]
        nxt = runners.runs(texts, i, unknown)
        if nxt == runners.SCAN:
            module = d._uv_module(texts, i)  # `uv run ... -m MODULE`: the module's launch
            return [module] if module is not None else [x for x in at[i + 1:] if x is not None]
        if nxt is None:
            break
        i = nxt
    return [x for x in at[i + 1:] if x is not None and x.args_start - x.start > 1]


def _fast(texts, unknown=frozenset()):
    return d._programs(texts, unknown)


_NAMES = ["vllm", "serve", "sglang", "text-generation-launcher", "trtllm-serve", "disaggregated", "llama-server",
          "llama_server", "llama-server-b4589", "llama-server.x\n", "llama", "lmdeploy", "api_server", "python",
          "python3", "python3.11", "python3\n", "pythonx", "-m", "-u", "vllm.entrypoints.openai.api_server",
          "dynamo.vllm", "sglang.launch_server", "/usr/bin/python3", "/opt/vllm", "--model=/m/vllm", "VLLM",
          "vllm2", "xvllm", "", "/", "--port", "8000", "bin/trtllm-serve", "lmdeploy/", "python/", "srun", "pkill",
          "docker", "run", "img", "--", "ray", "uv", "apptainer", "exec", "wrap.sh", "server", "./server",
          "/opt/llama.cpp/server", "m.gguf", "--model=x.GGUF", "trl", "vllm-serve", "trl.scripts.vllm_serve",
          "--module", "skyrl_train.inference_engines.vllm.vllm_server"]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_NAMES), max_size=7), st.frozensets(st.integers(0, 6), max_size=3))
def test_generated_tokens(texts, unknown):
    # `unknown`: indices of tokens that are an unresolved reference (`$PYTHON`), which _at may take for the interpreter
    assert _fast(texts) == _general(texts)
    assert _fast(texts, unknown) == _general(texts, unknown)


def _files():
    repo = Path(__file__).resolve().parents[2]
    for root in (repo / "samples", repo / "tests", repo.parent / "shared" / "corpus"):
        for dirpath, _, names in os.walk(root):
            for name in sorted(names):
                if name.endswith((".yaml", ".yml", ".json")):
                    yield os.path.join(dirpath, name)


def test_every_corpus_command():
    from ctxlint.file_reader import read_path

    FILES = sorted(_files())

    compared = 0
    for path in FILES:
        loaded = read_path(path)
        for doc in loaded.documents:
            for node in doc.root.walk():
                if node.kind == "seq" and node.value and all(v.kind == "scalar" for v in node.value):
                    split = split_list([str(v.value) for v in node.value])
                elif node.kind == "scalar" and isinstance(node.value, str) and " " in node.value:
                    split = split_shell(node.value)
                else:
                    continue
                for cmd in split.commands:
                    texts = [t.text for t in cmd.tokens]
                    assert _fast(texts) == _general(texts), (path, texts)
                    compared += bool(_general(texts))
    corpus = Path(__file__).resolve().parents[3] / "shared" / "corpus"
    assert compared > (100 if corpus.is_dir() else 5)  # commands that hold an engine (the samples' alone: 12)
