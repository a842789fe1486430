"""Valid JSON whose strings escape a character as a UTF-16 surrogate pair (`"\\ud83c\\udf42"`, RFC 8259 section 7)
is read, not a CTX001 error: PyYAML, which reads JSON for ctxlint, refuses a surrogate (lint/json_escapes.py)."""
from __future__ import annotations

from ctxlint.file_reader import parse_bytes

from helpers import run

TEXT = '{"reply": "leaf \\ud83c\\udf42 x", "lone": "\\ud83c", "literal": "\\\\ud83c", "n": 7}\n'


def test_a_surrogate_pair_reads_as_its_character_and_later_positions_stay():
    # sweep sweepcli (luisefigueroa/pulsar-gb10-vllm-stack results/nano-runA.json, a benchmark's replies):
    # "CTX001 [error] invalid JSON: while parsing a quoted scalar found invalid Unicode character escape code"
    loaded = parse_bytes(TEXT.encode(), "result.json")
    assert loaded.diagnostics == []
    root = loaded.documents[0].root.value
    assert {k: v.value for k, v in root.items()} == {
        "reply": "leaf \U0001f342 x", "lone": "\ue03c", "literal": "\\ud83c", "n": 7}
    # every node after the rewritten string sits where the file writes it
    assert root["lone"].start_index == TEXT.index('"\\ud83c"')
    assert root["n"].start_index == TEXT.index("7")


def test_the_check_passes_such_a_file(tmp_path):
    path = tmp_path / "result.json"
    path.write_text(TEXT)
    result = run(["check", "--isolated", str(path)])
    assert (result.code, result.out) == (0, "")


def test_yaml_keeps_refusing_a_surrogate():
    # only JSON is rewritten: YAML's `\u` names a code point, and a surrogate is none
    loaded = parse_bytes(b'reply: "leaf \\ud83c\\udf42"\n', "values.yaml")
    assert [d.message for d in loaded.diagnostics] == [
        "invalid YAML: while parsing a quoted scalar found invalid Unicode character escape code"]


def test_distinct_lone_surrogates_stay_distinct_keys(tmp_path):
    # Python's json keeps both keys: one replacement character for every lone surrogate made a false CTX003
    text = '{"data": {"\\ud800": "a", "\\udBFF": "b", "\\udc00": "c"}, "n": 1}\n'
    loaded = parse_bytes(text.encode(), "result.json")
    assert loaded.diagnostics == []
    data = loaded.documents[0].root.value["data"].value
    assert {k: v.value for k, v in data.items()} == {"\ue000": "a", "\ue3ff": "b", "\ue400": "c"}
    assert loaded.documents[0].root.value["n"].start_index == text.index("1}")
    path = tmp_path / "result.json"
    path.write_text(text)
    result = run(["check", "--isolated", str(path)])
    assert (result.code, result.out) == (0, "")
