"""A role's stated engine settings are placed only when read (model.placed_later): the same Sources as placing
each one as the command is read, however late they are read."""
from __future__ import annotations

import copy
import pickle
from pathlib import Path

import pytest

import ctxlint.adapters.workload as workload
from conftest import SHARED
from ctxlint.engine import Settings, lint_paths
from ctxlint.model import Source, Val, placed_later
from ctxlint.records import fields, replace

ROOT = Path(__file__).resolve().parents[2]
# the samples, and the real corpus when it is beside the repository
TREES = [str(path) for path in (ROOT / "samples", SHARED / "corpus" / "real") if path.is_dir()]


def _args(report):
    return [(dep.file, role.name, name, val.value, val.source, val.raw)
            for dep in report.deployments for role in dep.roles for name, val in role.engine_args]


def _unplaced(report) -> int:
    return sum("_place" in val.__dict__ for dep in report.deployments for role in dep.roles
               for _, val in role.engine_args)


# Two servers of one script, each with a config file the script writes: the first one's settings are placed
# after the reader went on to the second command, whose config file sets the same keys at other lines.
TWO_CONFIGS = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: two}
spec:
  template:
    spec:
      containers:
        - name: two
          image: vllm/vllm-openai:v0.11.0
          command: ["/bin/bash", "-c"]
          args:
            - |
              cat <<'EOF' > /tmp/a.yaml
              max-num-seqs: 32
              max-model-len: 8192
              EOF
              cat <<'EOF' > /tmp/b.yaml
              gpu-memory-utilization: 0.8
              max-num-seqs: 16
              max-model-len: 4096
              EOF
              vllm serve Qwen/Qwen3-8B --config /tmp/a.yaml --port 8000 &
              vllm serve Qwen/Qwen3-8B --config /tmp/b.yaml --port 8001
"""


def test_settings_placed_when_read_are_where_the_reader_placed_them_at_once(monkeypatch, tmp_path):
    (tmp_path / "two.yaml").write_text(TWO_CONFIGS)
    trees = TREES + [str(tmp_path)]
    lazy = lint_paths(trees, Settings())
    # read only now, after every file was read: each reader has moved on to its next command and container
    unplaced = _unplaced(lazy)
    lazy_args = _args(lazy)
    eager_role_facts = workload.role_facts
    monkeypatch.setattr(workload, "role_facts", lambda inv, where, later=None: eager_role_facts(inv, where))
    eager = lint_paths(trees, Settings())
    assert _unplaced(eager) == 0
    assert len(lazy_args) > 150 and unplaced > len(lazy_args) // 2  # the trees reach the path; most never placed
    assert lazy_args == _args(eager)
    seqs = [(val.value, val.source.line) for dep in lazy.deployments if dep.file.endswith("two.yaml")
            for role in dep.roles for name, val in role.engine_args if name == "max_num_seqs"]
    assert seqs == [(32, 14), (16, 19)]
    assert [f.__dict__ for f in lazy.findings] == [f.__dict__ for f in eager.findings]


def _val(calls: list) -> Val:
    def place() -> Source:
        calls.append(1)
        return Source("a.yaml", 3, 5, "spec.args[2]", 3, 10)
    return placed_later(8192, place, "8Ki")


def test_a_placed_later_val_is_the_val_it_stands_for():
    plain = Val(8192, Source("a.yaml", 3, 5, "spec.args[2]", 3, 10), "8Ki")
    calls: list = []
    for read in (lambda v: v == plain, lambda v: hash(v) == hash(plain), lambda v: repr(v) == repr(plain),
                 lambda v: pickle.loads(pickle.dumps(v)) == plain, lambda v: copy.deepcopy(v) == plain,
                 lambda v: copy.copy(v) == plain, lambda v: replace(v, raw="x") == Val(plain.value, plain.source, "x"),
                 lambda v: v.source == plain.source):
        val = _val(calls)
        assert val.value == 8192 and val.raw == "8Ki" and calls == []  # its value is no reason to place it
        assert read(val)
        assert calls == [1]  # placed once, then kept
        assert val.source is val.source and calls == [1]
        calls.clear()
    assert _val(calls).show() == plain.show() and calls == []
    assert pickle.loads(pickle.dumps(_val(calls))).__dict__ == plain.__dict__
    assert [f.name for f in fields(Val)] == ["value", "source", "raw"]
    assert "source" in plain.__dict__ and Val(1, plain.source).source is plain.source


def test_a_val_without_a_source_says_so():
    val = object.__new__(Val)
    with pytest.raises(AttributeError):
        val.source
