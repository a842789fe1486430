"""lint/dockerfile.py and dockerfile_values.py read a Dockerfile as Docker does (docs.docker.com/reference/dockerfile/):
instructions over continuation lines, the escape directive, exec and shell forms, and build-time expansion."""
from __future__ import annotations

from ctxlint.dockerfile import Dockerfile
from ctxlint.dockerfile_image import read_build
from ctxlint.dockerfile_values import UNKNOWN, expand


def _instructions(text: str):
    return [(i.keyword, i.text) for i in Dockerfile("Dockerfile", text).instructions]


def test_instructions_joined_as_docker_joins_them():
    text = ("# syntax=docker/dockerfile:1\n# escape=`\nfrom alpine AS a\r\nRUN echo a `\n  # dropped\n\n  b\n"
            "cmd [\"x\"]\nENV A=1 `")
    assert _instructions(text) == [("FROM", "alpine AS a"), ("RUN", "echo a   b"), ("CMD", '["x"]'), ("ENV", "A=1 ")]
    # a directive after a comment is a comment; a backslash then escapes
    assert _instructions("# hello\n# escape=`\nRUN a \\\n b\n") == [("RUN", "a  b")]


def test_exec_form_words_are_placed_at_their_strings_and_bad_json_is_a_shell_form():
    df = Dockerfile("Dockerfile", 'FROM x\nCMD ["vllm", "serve", "a\\"b"]\nCMD [vllm, serve]\n')
    words = df.exec_form(df.instructions[1])
    assert [(w.value, w.line, w.col) for w in words] == [("vllm", 2, 7), ("serve", 2, 15), ('a"b', 2, 23)]  # an escaped one from its quote
    assert df.exec_form(df.instructions[2]) is None


def test_expansion_as_docker_expands():
    values = {"A": "1", "E": "", "H": UNKNOWN}
    look = values.get
    assert [expand(t, look) for t in ("$A-${A}", "${B:-d}", "${E:-d}", "${A:+on}", "${B:+on}", "'$A'", '"$A b"',
                                      "\\$A", "${H}", "${H:-x}", "${A#x}", "$")] == \
        ["1-1", "d", "d", "on", "", "$A", "1 b", "$A", None, None, None, "$"]


def test_env_arg_and_stage_scopes(tmp_path):
    (tmp_path / "Dockerfile").write_text(
        "ARG TAG=v0.8.5\nARG ONLY_GLOBAL=g\nFROM vllm/vllm-openai:${TAG} AS base\nARG TAG\n"
        "ENV T=$TAG G=${ONLY_GLOBAL:-unset} OLD=x\nENV OLD old form value\nFROM base\nENV T2=\"${T}-2\"\n")
    built = read_build(str(tmp_path / "Dockerfile"), {"TAG": "v0.9.0"}, None)
    assert built.image_text == "vllm/vllm-openai:v0.9.0"
    assert [(e.name, e.value) for e in built.env] == [("T", "v0.9.0"), ("G", "unset"), ("OLD", "old form value"),
                                                      ("T2", "v0.9.0-2")]
    built = read_build(str(tmp_path / "Dockerfile"), {"TAG": UNKNOWN}, None)
    assert (built.image_text, built.env[0].value) == ("vllm/vllm-openai:${TAG}", None)
    assert [why for why, _ in built.unknown] == [
        "the image its build starts FROM, vllm/vllm-openai:${TAG}, needs a build argument not known here"]


def test_here_documents_are_a_runs_script_never_instructions():
    # buildkit's parser: a RUN, COPY or ADD's `<<NAME` takes the lines up to NAME alone on a line (`<<-`: after tabs)
    text = ("FROM vllm/vllm-openai:v0.8.3\nRUN <<EOF python3\nfrom huggingface_hub import snapshot_download\n"
            "CMD = 1\nEOF\nRUN <<-'END' && cat <<\"TWO\"\n\tpip install vllm==0.10.1\n\tEND\nENV A=1\nTWO\n"
            "COPY <<EOF /start.sh\nFROM x\nEOF\nONBUILD RUN <<X\nENTRYPOINT y\nX\nCMD [\"--model\", \"m\"]\n"
            "RUN cat<<EOF\nARG B\n")
    assert _instructions(text) == [
        ("FROM", "vllm/vllm-openai:v0.8.3"),
        ("RUN", "<<EOF python3\nfrom huggingface_hub import snapshot_download\nCMD = 1"),
        ("RUN", "<<-'END' && cat <<\"TWO\"\n\tpip install vllm==0.10.1\nENV A=1"),
        ("COPY", "<<EOF /start.sh"), ("ONBUILD", "RUN <<X"), ("CMD", '["--model", "m"]'),
        ("RUN", "cat<<EOF"), ("ARG", "B")]  # `cat<<EOF` is no heredoc word: the line after it is read
    df = Dockerfile("Dockerfile", text)
    run = df.instructions[2]
    at = run.text.index("0.10.1")
    node = df.word(run, at, at + len("0.10.1"))
    assert (node.value, node.line, node.col) == ("0.10.1", 7, 20)
    # an unterminated one takes the rest of the file (Docker refuses it)
    assert _instructions("RUN <<EOF\nCMD x\n") == [("RUN", "<<EOF\nCMD x")]
