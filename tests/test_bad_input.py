"""Malformed input gives a located finding or a usage error, never a traceback."""
from __future__ import annotations

import os
import time

import pytest

from helpers import run

GOOD = """apiVersion: ctxlint/v1
kind: ModelDeployment
metadata: {name: ok}
spec:
  advertised: {context_window: 131072}
  serving:
    roles: [{role: unified, context_length: 131072, kv_pool_tokens: 400000}]
"""


def check_bytes(tmp_path, data: bytes, name: str = "deploy.yaml", *extra: str):
    path = tmp_path / name
    path.write_bytes(data)
    result = run(["check", str(path), *extra])
    assert "Traceback" not in result.out + result.err
    return result, [line.replace(str(tmp_path) + os.sep, "") for line in result.out.splitlines()]


def test_tab_indentation(tmp_path):
    result, lines = check_bytes(tmp_path, b"spec:\n\tadvertised: 1\n")
    assert result.code == 1
    assert lines == ["deploy.yaml:2:1: CTX001 [error] invalid YAML: while scanning for the next token found "
                     "character that cannot start any token (a tab in the indentation: YAML indents "
                     "with spaces only) (parse-error)"]


def test_unclosed_quote(tmp_path):
    result, lines = check_bytes(tmp_path, b'metadata:\n  name: "open\nspec: {}\n')
    assert result.code == 1 and lines[0].startswith("deploy.yaml:4:1: CTX001 [error] invalid YAML: while scanning a quoted scalar")


def test_bad_indentation_keeps_earlier_documents(tmp_path):
    data = GOOD.replace("131072}", "131072, max_output_tokens: 131072}") + "---\na: 1\n b: 2\n"
    result, lines = check_bytes(tmp_path, data.encode())
    assert [l.split(" ")[1] for l in lines] == ["CTX105", "CTX001"]  # the first document is still checked
    assert lines[1].startswith("deploy.yaml:10:3: CTX001")


def test_duplicate_key_at_second_occurrence(tmp_path):
    data = GOOD.replace("metadata: {name: ok}", "metadata: {name: ok}\nmetadata: {name: again}")
    result, lines = check_bytes(tmp_path, data.encode())
    assert lines == ["deploy.yaml:4:1: CTX003 [error] duplicate key 'metadata' (first at line 3); YAML keeps "
                     "only the last value, so line 3 is silently ignored: remove one of them (duplicate-key)"]


def test_binary_file(tmp_path):
    result, lines = check_bytes(tmp_path, b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    assert lines == ["deploy.yaml:1:1: CTX001 [error] binary file (contains NUL bytes); expected YAML or JSON "
                     "text (parse-error)"]


@pytest.mark.parametrize("name, expected", [("Dockerfile", "a Dockerfile's text"),
                                            ("Dockerfile.vllm", "a Dockerfile's text"),
                                            ("Modelfile", "an Ollama Modelfile's text")])
def test_a_binary_file_named_as_a_text_format_is_said_so(tmp_path, name, expected):
    # before: "expected YAML or JSON text", for a file no one meant as YAML (a systemd unit says its own text)
    result, lines = check_bytes(tmp_path, b"FROM vllm/vllm-openai:v0.9.0\x00\x01\n", name)
    assert (result.code, lines) == (1, [f"{name}:1:1: CTX001 [error] binary file (contains NUL bytes); expected "
                                        f"{expected} (parse-error)"])


def test_latin1_file_points_at_the_byte(tmp_path):
    result, lines = check_bytes(tmp_path, b"metadata:\n  name: caf\xe9\n")
    assert lines == ["deploy.yaml:2:12: CTX001 [error] not valid UTF-8: byte 0xe9 at line 2, column 12; save "
                     "the file as UTF-8 (parse-error)"]


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16", "utf-32"])
def test_bom_encodings_are_read(tmp_path, encoding):
    bad = GOOD.replace("400000", "100000")
    result, lines = check_bytes(tmp_path, bad.encode(encoding))
    assert result.code == 1 and lines[0].startswith("deploy.yaml:7:69: CTX101"), lines


@pytest.mark.parametrize("data", [b"", b"---\n", b"---\n---\n...\n", b"# only a comment\n"])
def test_empty_documents_are_clean(tmp_path, data):
    result, lines = check_bytes(tmp_path, data)
    assert result.code == 0 and lines == []
    assert "0 deployments" in result.err


def test_non_mapping_documents_are_skipped(tmp_path):
    result, lines = check_bytes(tmp_path, b"- 1\n- 2\n---\njust a string\n")
    assert result.code == 0 and lines == []


def test_other_kinds_are_skipped_silently(tmp_path):
    result, lines = check_bytes(tmp_path, b"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert result.code == 0 and lines == []


def test_unsupported_api_version_and_kind_typo(tmp_path):
    data = GOOD.replace("ctxlint/v1", "ctxlint/v2") + "---\n" + GOOD.replace("ModelDeployment", "ModelDeploymnet")
    result, lines = check_bytes(tmp_path, data.encode())
    assert "deploy.yaml:1:13: CTX002 [error] apiVersion: expected 'ctxlint/v1', got 'ctxlint/v2' (schema-violation)" in lines
    assert "deploy.yaml:10:7: CTX002 [error] kind: expected 'ModelDeployment', got 'ModelDeploymnet' (schema-violation)" in lines


def test_another_projects_model_deployment_kind_is_not_ours(tmp_path):
    # kaito-project/kubeairunway's `airunway.ai/v1alpha1` `kind: ModelDeployment` got 9-28 CTX002/CTX004 each;
    # our kind without an API group still is ours (a missing or mistyped apiVersion gets its schema error)
    foreign = GOOD.replace("apiVersion: ctxlint/v1", "apiVersion: airunway.ai/v1alpha1")
    result, lines = check_bytes(tmp_path, foreign.encode())
    assert (result.code, lines) == (0, [])
    result, lines = check_bytes(tmp_path, GOOD.replace("apiVersion: ctxlint/v1", "apiVersion: v1").encode())
    assert "deploy.yaml:1:13: CTX002 [error] apiVersion: expected 'ctxlint/v1', got 'v1' (schema-violation)" in lines
    # our own group mistyped as a DNS name (the annotations are ctxlint.io/...) is still ours
    result, lines = check_bytes(tmp_path, GOOD.replace("apiVersion: ctxlint/v1", "apiVersion: ctxlint.io/v1").encode())
    assert "deploy.yaml:1:13: CTX002 [error] apiVersion: expected 'ctxlint/v1', got 'ctxlint.io/v1' (schema-violation)" \
        in lines

def test_wrong_types_are_located(tmp_path):
    data = GOOD.replace("{context_window: 131072}", "[131072]").replace("roles: [", "roles: 3 #[")
    result, lines = check_bytes(tmp_path, data.encode())
    assert "deploy.yaml:5:15: CTX002 [error] spec.advertised: expected a mapping, got a list (schema-violation)" in lines
    assert "deploy.yaml:7:12: CTX002 [error] spec.serving.roles: expected a list, got an integer 3 (schema-violation)" in lines


def test_yaml_boolean_surprise(tmp_path):
    data = GOOD.replace("role: unified,", "role: unified, replicas: yes,")
    result, lines = check_bytes(tmp_path, data.encode())
    assert any("replicas: expected an integer, got the boolean true (YAML 1.1 reads yes/no/on/off as booleans)" in l
               for l in lines), lines


@pytest.mark.parametrize("value,message", [
    ("0", "0 is not a positive token count"),
    ("-5", "-5 is not a positive token count"),
    ("1.3Ki", "'1.3Ki' is 1331.2 tokens, not a whole number"),
    ("2GB", "'2GB' is ambiguous: write '2G' for 2,000,000,000 or '2Gi' for 2,147,483,648"),
    ("1m", "'1m' is ambiguous: write '1M' for 1,000,000 or '1Mi' for 1,048,576"),
    ("lots", "'lots' is not a token count"),
    ("1e6", "'1e6' is not a token count: write an integer such as 131072"),
    ("9999999999999", "9,999,999,999,999 tokens is implausibly large"),
])
def test_invalid_token_counts(tmp_path, value, message):
    data = GOOD.replace("kv_pool_tokens: 400000", f"kv_pool_tokens: {value}")
    result, lines = check_bytes(tmp_path, data.encode(), "deploy.yaml", "--select", "CTX0")
    assert len(lines) == 1 and " CTX005 [error] spec.serving.roles[0].kv_pool_tokens: " + message in lines[0], lines


def test_unknown_field_with_suggestion(tmp_path):
    data = GOOD.replace("kv_pool_tokens", "kv_pool_token")
    result, lines = check_bytes(tmp_path, data.encode(), "deploy.yaml", "--select", "CTX0")
    assert lines[0].startswith("deploy.yaml:7:53: CTX004 [error] unknown field 'kv_pool_token' in "
                               "spec.serving.roles[0]; did you mean 'kv_pool_tokens'?")


def test_alias_bomb_is_refused_quickly(tmp_path):
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 10) + "]")
    start = time.monotonic()
    result, out = check_bytes(tmp_path, ("\n".join(lines) + "\n").encode())
    assert time.monotonic() - start < 20
    assert result.code == 1 and "expands to more nodes than ctxlint reads (an alias bomb?)" in out[0]


def test_deep_nesting(tmp_path):
    result, lines = check_bytes(tmp_path, ("[" * 10000 + "]" * 10000 + "\n").encode())
    assert result.code in (0, 1)


def test_size_limit(tmp_path):
    result, lines = check_bytes(tmp_path, GOOD.encode(), "deploy.yaml", "--max-file-size", "100")
    assert result.code == 1
    assert lines[0].startswith("deploy.yaml:1:1: CTX001 [error] file is ")
    assert "over the 100-byte limit (raise it with --max-file-size)" in lines[0]


def test_json_manifest_with_positions(tmp_path):
    data = ('{\n  "apiVersion": "ctxlint/v1",\n  "kind": "ModelDeployment",\n  "metadata": {"name": "j"},\n'
            '  "spec": {\n    "advertised": {"context_window": 131072},\n    "serving": {"roles": [\n'
            '      {"role": "unified", "kv_pool_tokens": 1e5}\n    ]}\n  }\n}\n')
    result, lines = check_bytes(tmp_path, data.encode(), "deploy.json", "--select", "CTX0")
    assert lines[0].startswith("deploy.json:8:45: CTX005 [error] spec.serving.roles[0].kv_pool_tokens: 100000.0 is a float")


def test_json_with_trailing_garbage(tmp_path):
    result, lines = check_bytes(tmp_path, b'{"a": 1,\n // comment\n}\n', "deploy.json")
    assert lines == ["deploy.json:2:2: CTX001 [error] invalid JSON: Expecting property name enclosed in double "
                     "quotes (parse-error)"]


def test_fifo_and_directory_named_like_yaml(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    result = run(["check", str(fifo)])
    assert result.code == 1 and "cannot read" in result.out and "not a regular file" in result.out
    folder = tmp_path / "x.yaml"
    folder.mkdir()
    assert run(["check", str(folder)]).code == 0


def test_symlink_loop(tmp_path):
    loop = tmp_path / "loop.yaml"
    os.symlink(loop, loop)
    result = run(["check", str(loop)])
    assert result.code == 1 and "cannot read" in result.out


def test_roles_that_contradict_the_mode(tmp_path):
    data = GOOD.replace("role: unified", "role: prefill")
    result, lines = check_bytes(tmp_path, data.encode())
    assert lines == ["deploy.yaml:7:12: CTX002 [error] spec.serving: roles include prefill/decode but "
                     "disaggregation is not set (none): set disaggregation: prefill-decode (schema-violation)"]


def test_template_placeholder_parses_as_a_mapping_key(tmp_path):
    result, lines = check_bytes(tmp_path, b"metadata:\n  name: x\ndata:\n  token: {{HF_TOKEN}}\n")
    assert result.code == 1
    assert lines == ["deploy.yaml:4:11: CTX001 [error] invalid YAML for deployment tools: a mapping used as a "
                     "mapping key ({HF_TOKEN}); Kubernetes and most YAML readers reject the file. It looks "
                     "like a template placeholder: render the template first (envsubst, `helm template ... | "
                     "ctxlint check -`) and check the output. (parse-error)"]


HINT = ("render the template first (envsubst, `helm template ... | ctxlint check -`) and check the output. "
        "(parse-error)")


def test_a_template_placeholder_that_breaks_the_syntax_is_named(tmp_path):
    # Before: a bare "did not find expected key" for 40 handlebars templates of one repository (sweep 29), while
    # a placeholder that happened to parse as a mapping key got the hint.
    text = "spec:\n  nodeSelector:\n    {{{KARPENTER_PREFIX}}}/instance-family: g6e\n  replicas: 1\n"
    _, lines = check_bytes(tmp_path, text.encode())
    assert lines == ["deploy.yaml:3:27: CTX001 [error] invalid YAML: while parsing a block mapping did not find "
                     "expected key. It looks like a template placeholder ({{{KARPENTER_PREFIX}}} on line 3): " + HINT]
    # a block helper on the line before the error (handlebars `{{#if}}`, Jinja `{% if %}`)
    for tag, error in (("{{#if HAS_TOKEN}}", "4:3: CTX001 [error] invalid YAML: while scanning a simple key could "
                                             "not find expected ':'"),
                       ("{% if token %}", "3:2: CTX001 [error] invalid YAML: while scanning for the next token found "
                                          "character that cannot start any token"),
                       # Terraform's templatefile directive (awslabs/data-on-eks@
                       # a546a1905d017a93a11fb44d17d08d286f7bfb44:infra/terraform/helm-values/aws-for-fluentbit.yaml);
                       # before, no hint
                       ("%{ if enable_ipv6 ~}", "3:2: CTX001 [error] invalid YAML: while scanning a directive could "
                                                "not find expected directive name")):
        _, lines = check_bytes(tmp_path, f"env:\n  - name: A\n{tag}\n  - name: B\n".encode())
        assert lines == [f"deploy.yaml:{error}. It looks like a template placeholder ({tag} on line 3): " + HINT]


def test_a_yaml_error_with_no_placeholder_near_it_gets_no_template_hint(tmp_path):
    # quoted, in a comment, or further up than the line before: the error is the YAML's own
    for text, at in (("a: 1\nb: [1, '{{X}}'\nc: 2\n", "3:1"), ("a: 1\nb: [1 # {{X}}\nc: 2\n", "3:1"),
                     ("a: 1\nb: [1, \"{{X}}\"\nc: 2\n", "3:1"), ("x: {{X}}\ny: 1\na: 1\nb: [1\nc: 2\n", "5:2")):
        _, lines = check_bytes(tmp_path, text.encode())
        assert lines == [f"deploy.yaml:{at}: CTX001 [error] invalid YAML: while parsing a flow sequence did not "
                         "find expected ',' or ']' (parse-error)"], text


def test_a_tab_after_a_value_is_read_but_reported_as_nonportable(tmp_path):
    result, lines = check_bytes(tmp_path, GOOD.replace("{name: ok}", "{name: ok}\t").encode())
    assert result.code == 0  # a warning: the values were read and checked
    assert lines == ["deploy.yaml:3:21: CTX009 [warning] libyaml (like Kubernetes' parser) reads this file, but "
                     "PyYAML's pure-Python reader stops here: found character '\\t' that cannot start any token; "
                     "replace the tab with spaces (nonportable-yaml)"]


class _GrewAfterStat:
    """os.stat's answer for a file that was shorter when stat'ed than when read."""

    def __init__(self, real, size: int) -> None:
        self.real, self.st_size = real, size

    def __getattr__(self, name: str):
        return getattr(self.real, name)


def test_file_that_grew_after_the_stat_is_read_whole(tmp_path, monkeypatch):
    # read_path sizes its read by the stat (read() allocates what it is asked for); a file that
    # grew in between must still be read to its end, or to the limit, never cut at the old size.
    from ctxlint import file_reader

    path = tmp_path / "deploy.yaml"
    path.write_text(GOOD)
    real_stat = os.stat
    monkeypatch.setattr(file_reader.os, "stat", lambda p, *a, **k: _GrewAfterStat(real_stat(p, *a, **k), 10)
                        if str(p) == str(path) else real_stat(p, *a, **k))
    assert file_reader.read_path(str(path)).text == GOOD
    over = file_reader.read_path(str(path), max_bytes=100)
    assert over.text == "" and [d.message for d in over.diagnostics] == [
        "input is over the 100-byte limit (raise it with --max-file-size)"]


def test_a_file_read_in_short_pieces_is_read_whole(tmp_path, monkeypatch):
    # os.read may return less than asked (FUSE, NFS, signals): read_path reads on until the end
    from ctxlint import file_reader

    path = tmp_path / "deploy.yaml"
    path.write_text(GOOD)
    real_read = os.read
    monkeypatch.setattr(file_reader.os, "read", lambda fd, n: real_read(fd, min(n, 7)))
    assert file_reader.read_path(str(path)).text == GOOD
    assert file_reader.read_path(str(path), max_bytes=len(GOOD.encode()) - 1).diagnostics[0].message == \
        f"file is {len(GOOD.encode()):,} bytes, over the {len(GOOD.encode()) - 1:,}-byte limit (raise it with --max-file-size)"
