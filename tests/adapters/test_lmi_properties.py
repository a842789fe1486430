"""DJL Serving / AWS LMI serving.properties: Java properties syntax with every value at its place, LMI's options
as the vLLM EngineArgs it builds (its names, its defaults), and the engines it does not say (`auto`) or ctxlint
does not read (TensorRT-LLM, a handler of the user's own) said, never guessed."""
from __future__ import annotations

import os

import pytest

from ctxlint.adapters import adapt_file
from ctxlint.adapters.java_properties import read
from ctxlint.discover import discover
from ctxlint.file_reader import parse_bytes
from helpers import run
from tests.adapters.kit import arg

VLLM = """\
# LMI with the vLLM rolling batch
engine=Python
option.model_id=Qwen/Qwen2.5-7B-Instruct
option.rolling_batch=vllm
option.tensor_parallel_degree=2
option.max_model_len = 32768
option.gpu_memory_utilization:0.85
option.max_rolling_batch_size=64
option.max_rolling_batch_prefill_tokens=8192
option.dtype=bf16
option.enable_prefix_caching=true
option.output_formatter=json
"""


def _adapt(text: str, path: str = "m/serving.properties"):
    return adapt_file(parse_bytes(text.encode("utf-8"), path))


def _at(text: str, source) -> str:
    line = text.split("\n")[source.line - 1]
    return line[source.col - 1:source.end_col - 1] if source.end_line == source.line else line[source.col - 1:]


def test_vllm_options_become_vllm_settings_at_their_values():
    result = _adapt(VLLM)
    assert result.diagnostics == []
    (dep,) = result.deployments
    assert (dep.input_format, dep.name.value) == ("lmi-properties", "m")
    (role,) = dep.roles
    assert dep.engine.name.value == "vllm" and dep.engine.version is None  # the image is in the deploy code
    assert dep.model.id.value == "Qwen/Qwen2.5-7B-Instruct" and _at(VLLM, dep.model.id.source) == dep.model.id.value
    assert role.parallelism.tensor.value == 2 and _at(VLLM, role.parallelism.tensor.source) == "2"
    assert role.context_length.value == 32768 and _at(VLLM, role.context_length.source) == "32768"
    for name, written in (("gpu_memory_utilization", "0.85"), ("max_num_seqs", "64"),
                          ("max_num_batched_tokens", "8192"), ("enable_prefix_caching", "true")):
        assert _at(VLLM, arg(role, name).source) == written, name
    assert arg(role, "dtype").value == "bfloat16"  # DJL's bf16, through DTYPE_MAPPER
    assert role.accelerators.type is None  # the SageMaker instance type is in the deploy code


def test_lmi_defaults_where_vllms_differ():
    text = "engine=MPI\noption.model_id=org/m\noption.rolling_batch=lmi-dist\noption.tensor_parallel_degree=1\n"
    (dep,) = _adapt(text).deployments
    (role,) = dep.roles
    seqs = arg(role, "max_num_seqs")
    assert seqs.value == 256 and _at(text, seqs.source) == "lmi-dist"  # LmiConfigRecommender, at the engine named
    async_text = ("engine=Python\noption.model_id=org/m\noption.rolling_batch=disable\n"
                  "option.entryPoint=djl_python.lmi_vllm.vllm_async_service\noption.tensor_parallel_degree=1\n")
    (dep,) = _adapt(async_text).deployments
    assert arg(dep.roles[0], "max_num_seqs").value == 32


@pytest.mark.parametrize("text, expected", [
    ("option.rolling_batch=auto\noption.model_id=org/m\n", ("option.rolling_batch is `auto`", "1:22")),
    ("engine=Python\noption.model_id=org/m\n", ("option.rolling_batch is unset (`auto`)", "1:1")),
    ("engine=MPI\noption.rolling_batch=trtllm\n", ("option.rolling_batch=trtllm: LMI builds", "2:22")),
    ("engine=Python\noption.entryPoint=model.py\noption.rolling_batch=vllm\n", ("option.entryPoint=model.py", "2:19")),
    ("engine=Python\noption.rolling_batch=disable\n", ("option.rolling_batch=disable: no engine", "2:22")),
])
def test_engines_not_read_are_said_where_they_are_chosen(text, expected):
    result = _adapt(text)
    assert result.deployments == []
    (diag,) = result.diagnostics
    assert diag.kind == "unresolved-value" and diag.message.startswith(expected[0])
    assert f"{diag.source.line}:{diag.source.col}" == expected[1]


def test_other_djl_engines_are_no_llm_deployment():
    for text in ("engine=PyTorch\n", "engine = Rubikon\n", "engine=DeepSpeed\noption.tensor_parallel_degree=1\n"):
        result = _adapt(text)
        assert (result.deployments, result.diagnostics) == ([], [])


def test_tensor_parallel_max_or_unset_is_unknown_and_said():
    for text, place in (("option.rolling_batch=vllm\noption.model_id=org/m\noption.tensor_parallel_degree=max\n",
                         (3, 31)),
                        ("option.rolling_batch=vllm\noption.model_id=org/m\n", (1, 22))):
        result = _adapt(text)
        (dep,) = result.deployments
        assert dep.roles[0].parallelism.tensor is None
        (diag,) = result.diagnostics
        assert diag.kind == "unresolved-value" and "every GPU of the instance" in diag.message
        assert "option.tensor_parallel_degree" in diag.message and (diag.source.line, diag.source.col) == place


def test_bad_values_are_refusals_at_the_value_never_crashes():
    text = ("option.rolling_batch=vllm\noption.model_id=org/m # the model\noption.tensor_parallel_degree=two\n"
            "option.max_model_len=4096 # tokens\noption.dtype=int3\noption.no_such_key=1\n")
    result = _adapt(text)
    got = sorted((d.kind, d.source.line, d.source.col, d.message.split(":")[0]) for d in result.diagnostics)
    assert got == [("schema-violation", 2, 23, "option.model_id"),
                   ("schema-violation", 3, 31, "option.tensor_parallel_degree=two"),
                   ("schema-violation", 4, 27, "option.max_model_len"),
                   ("schema-violation", 5, 14, "option.dtype=int3")]
    (dep,) = result.deployments
    assert dep.model is None or dep.model.id is None
    assert dep.roles[0].context_length is None  # `4096 # tokens` is not a length: unknown, not 4096


def test_java_properties_syntax():
    text = ("  # comment\n! also a comment\nkey1 = a\\\n     b\\\\\nkey2:c d  \nkey3 e\nkey\\=4=\\u0041\\t\n"
            "empty=\nkey1=last\n")
    props = read(text, "f")
    assert props.error is None
    assert {k: e.value for k, e in props.entries.items()} == {
        "key1": "last", "key2": "c d  ", "key3": "e", "key=4": "A\t", "empty": ""}
    two = read("a=1\\\n   23\n", "f").entries["a"]
    assert two.value == "123" and (two.at.line, two.at.col, two.at.end_line, two.at.end_col) == (1, 3, 2, 6)
    bad = read("ok=1\nx=\\u12G4\n", "f")
    assert bad.error is not None and (bad.error[1].line, bad.error[1].col) == (2, 3)
    crlf = read("a=1\r\nb=2\rc=3", "f").entries
    assert [(e.value, e.at.line) for e in crlf.values()] == [("1", 1), ("2", 2), ("3", 3)]


def test_malformed_escape_binary_and_bom_never_crash():
    result = _adapt("option.rolling_batch=vllm\noption.model_id=\\uZZZZ\n")
    (diag,) = result.diagnostics
    assert diag.kind == "parse-error" and (diag.source.line, diag.source.col) == (2, 17)
    loaded = parse_bytes(b"engine=Python\x00\n", "serving.properties")
    assert [d.kind for d in loaded.diagnostics] == ["parse-error"]
    bom = adapt_file(parse_bytes(b"\xef\xbb\xbfengine=Python\noption.rolling_batch=vllm\noption.model_id=o/m\n"
                                 b"option.tensor_parallel_degree=1\n", "serving.properties"))
    assert [d.message.split(",")[0] for d in bom.diagnostics] == [
        "the file starts with a UTF-8 byte-order mark"]
    latin = adapt_file(parse_bytes(b"option.rolling_batch=vllm\n# caf\xe9\noption.model_id=o/m\n", "serving.properties"))
    assert len(latin.deployments) == 1


def test_utf16_escapes_as_java_reads_them_and_long_values(tmp_path):
    # a surrogate pair is one character; a lone surrogate (which no report can write) is U+FFFD, not a crash
    props = read("a=\\ud83d\\ude00\nb=\\ud800\n", "f").entries
    assert (props["a"].value, props["b"].value) == ("\U0001F600", "\ufffd")
    (tmp_path / "serving.properties").write_text("option.rolling_batch=vllm\noption.model_id=\\ud800\n")
    result = run(["check", "--isolated", str(tmp_path / "serving.properties")])
    assert result.code == 0 and "model '\ufffd' is not in the built-in catalog" in result.out
    # positions are found per piece of a logical line, not kept per character: a long value reads in one pass
    long = read("k=" + "x" * 200_000 + "\\\n  yz\n", "f").entries["k"]
    assert (long.at.line, long.at.col, long.at.end_line, long.at.end_col) == (1, 3, 2, 5)


def test_discovered_by_name_and_checked_on_the_command_line(tmp_path):
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "serving.properties").write_text(
        "option.rolling_batch=vllm\noption.model_id=Qwen/Qwen2.5-7B-Instruct\noption.tensor_parallel_degree=1\n"
        "option.max_model_len=131072\n")
    (tmp_path / "code" / "other.properties").write_text("a=b\n")
    assert discover([str(tmp_path)]) == [os.path.join(str(tmp_path), "code", "serving.properties")]
    result = run(["check", str(tmp_path / "code" / "serving.properties"), "--select", "CTX109"])
    assert result.code == 1
    assert result.out.splitlines()[0].endswith(
        "serving.properties:4:22: CTX109 [error] 131,072 > 32,768 x 1 = 32,768: the unified context length "
        "131,072 exceeds the model's trained positions times its RoPE scaling factor by 98,304 tokens. Lower it "
        "to 32,768, or declare the RoPE scaling the model is actually served with (--hf-overrides '{\"rope_scaling"
        "\": {\"rope_type\": \"yarn\", \"factor\": F, \"original_max_position_embeddings\": N}, "
        "\"max_position_embeddings\": 131072}' with F >= 4.00) (context-exceeds-trained-positions)")
