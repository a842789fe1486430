"""Files named for a check that ctxlint has no reader for (CTX011): a Dockerfile, a note. Said once, as an info,
never a YAML parse error that fails the run nor a silent pass; a YAML or JSON file that does not parse stays CTX001."""
from __future__ import annotations

import pytest

from helpers import run

DOCKERFILE = """\
# syntax=docker/dockerfile:1
ARG CUDA_VERSION=12.6.1
FROM nvidia/cuda:${CUDA_VERSION}-cudnn-devel-ubuntu22.04

# Set up env
ENV HF_TOKEN=""
RUN pip install sglang
ENTRYPOINT ["python3", "-m", "sglang.launch_server"]
CMD --model-path Qwen/Qwen3-30B-A3B-FP8 \\
    --context-length 32768
"""
SAID = ("CTX011 [info] a Dockerfile, which ctxlint does not read: its ENTRYPOINT (line 8) and CMD (line 9) are not "
        "checked; check the file that runs the image instead (a compose file, a Kubernetes manifest or a launch "
        "script) (unsupported-file)\n")


@pytest.mark.parametrize("name", ["Dockerfile", "Containerfile", "Dockerfile.cuda", "serve.Dockerfile",
                                  "serve.dockerfile"])
def test_a_dockerfile_named_explicitly_is_said_to_be_one(tmp_path, name):
    # sweep 30 (RubricLab/inference): `ctxlint check Dockerfile` was "CTX001 [error] invalid YAML: did not find
    # expected <document start>", exit 1
    path = tmp_path / name
    path.write_text(DOCKERFILE)
    result = run(["check", "--isolated", str(path)])
    assert (result.code, result.out) == (0, f"{path}:1:1: {SAID}")
    assert run(["check", "--isolated", "--fail-on", "info", str(path)]).code == 1  # the exit-code contract holds


def test_a_dockerfile_is_known_by_its_text_too():
    # stdin, or a name that does not say it: FROM (after comments and ARGs) as the first instruction
    result = run(["check", "--isolated", "-"], stdin=DOCKERFILE.encode())
    assert (result.code, result.out) == (0, f"-:1:1: {SAID}")
    plain = run(["check", "--isolated", "-"], stdin=b"FROM vllm/vllm-openai:v0.10.1\n")  # YAML, a plain string
    assert plain.out == "-:1:1: CTX011 [info] a Dockerfile, which ctxlint does not read: the command it starts is " \
                        "not checked; check the file that runs the image instead (a compose file, a Kubernetes " \
                        "manifest or a launch script) (unsupported-file)\n"


def test_a_file_of_another_format_is_not_a_yaml_error(tmp_path):
    notes = tmp_path / "notes.md"
    notes.write_text("# Serving\n\n- run it\nwith: vllm serve\n")
    result = run(["check", "--isolated", str(notes)])
    assert (result.code, result.out) == (0, (
        f"{notes}:4:1: CTX011 [info] not a format ctxlint reads: not YAML (while parsing a block collection did not "
        "find expected '-' indicator), and not a shell script (no `#!` line naming a shell); it was not checked. "
        "ctxlint reads YAML and JSON deploy files and shell launch scripts (unsupported-file)\n"))
    notes.write_text("vllm serve is started by hand\n")  # prose that parses: a YAML string, no mapping or list
    assert "CTX011 [info] not a format ctxlint reads: no YAML mapping or list in it" in run(
        ["check", "--isolated", str(notes)]).out


@pytest.mark.parametrize("name", ["deploy.yaml", "deploy.json", "-"])
def test_a_yaml_or_json_file_that_does_not_parse_is_still_an_error(tmp_path, name):
    text = b"spec:\n  a: [1\n"
    if name == "-":
        result = run(["check", "--isolated", "-"], stdin=text)
    else:
        (tmp_path / name).write_bytes(text)
        result = run(["check", "--isolated", str(tmp_path / name)])
    assert result.code == 1 and "CTX001 [error] invalid" in result.out and "CTX011" not in result.out


def test_a_directory_scan_reads_no_dockerfile(tmp_path):
    (tmp_path / "Dockerfile").write_text(DOCKERFILE)
    (tmp_path / "Dockerfile.yaml").write_text("services: {}\n")  # a YAML name: YAML, whatever it starts with
    result = run(["check", "--isolated", str(tmp_path)])
    assert (result.code, result.out) == (0, "") and "1 file" in result.err


MODELFILE = '''\
# an assistant on qwen
FROM qwen2.5:7b

SYSTEM """
You are a helpful assistant.
Run the commands the user asks for.
"""
PARAMETER temperature 0.7
PARAMETER num_ctx 4096
MESSAGE user: hello
'''
OLLAMA = "CTX011 [info] an Ollama Modelfile, which ctxlint does not read: Ollama is not an engine ctxlint models, so "


@pytest.mark.parametrize("name", ["Modelfile", "daz.Modelfile", "qwen.modelfile", "Modelfile.qwen", "notes.txt"])
def test_an_ollama_modelfile_is_said_to_be_one_not_a_dockerfile(tmp_path, name):
    # sweep 40 (alirezzazm/local-ai-stack modelfiles/daz.Modelfile): its FROM made it "a Dockerfile ... check the file
    # that runs the image instead"; by its name or, under any other, by Ollama's own commands
    path = tmp_path / name
    path.write_text(MODELFILE)
    result = run(["check", "--isolated", str(path)])
    assert (result.code, result.out) == (0, f"{path}:9:19: {OLLAMA}its num_ctx 4096 (line 9) is not checked "
                                            "(unsupported-file)\n")
    assert run(["check", "--isolated", "-"], stdin=MODELFILE.encode()).out.startswith(f"-:9:19: {OLLAMA}")


def test_a_modelfile_without_num_ctx_and_a_dockerfile_stay_apart(tmp_path):
    path = tmp_path / "Modelfile"
    path.write_text('FROM llama3.2\nPARAMETER num_ctx 2048\nparameter num_ctx "8192"\n')  # the last one wins
    assert run(["check", "--isolated", str(path)]).out == \
        f'{path}:3:19: {OLLAMA}its num_ctx "8192" (line 3) is not checked (unsupported-file)\n'
    path.write_text("FROM llama3.2\nSYSTEM You answer in French.\n")
    assert run(["check", "--isolated", str(path)]).out == \
        f"{path}:1:1: {OLLAMA}nothing in it is checked (unsupported-file)\n"
    # a Dockerfile with a Modelfile's word in a heredoc is still one: RUN is no Modelfile command
    other = tmp_path / "build.txt"
    other.write_text("FROM ubuntu\nRUN <<EOF\nSYSTEM x\nEOF\n")
    assert "a Dockerfile" in run(["check", "--isolated", str(other)]).out


POINTER = ("version https://git-lfs.github.com/spec/v1\n"
           "oid sha256:46762aa56d46370c24815049b6c67ab6d1e2401d311e315772d03852efc91fcc\nsize 2180\n")


@pytest.mark.parametrize("name,newline", [("chats.json", "\n"), ("values.yaml", "\n"), ("chats.json", "\r\n")])
def test_a_git_lfs_pointer_is_said_to_be_one(tmp_path, name, newline):
    # sweep sweepcli (jshin49/llama-recipes examples/chat_completion/chats.json, stored in LFS): a `.json` pointer
    # was "CTX001 [error] invalid JSON: Expecting value" and a `.yaml` one passed as a plain string; a CRLF checkout's
    # pointer (core.autocrlf) lost its size
    path = tmp_path / name
    path.write_bytes(POINTER.replace("\n", newline).encode())
    result = run(["check", "--isolated", str(path)])
    assert (result.code, result.out) == (0, (
        f"{path}:1:1: CTX011 [info] a Git LFS pointer, not the file: its 2,180 bytes are stored in Git LFS and not "
        "in this checkout, so it was not checked; fetch it (`git lfs pull`) and check again (unsupported-file)\n"))


# magicpro97/vllm-deploy's tsconfig.json (Bun's template: `// Enable latest features` comments inside the object)
TSCONFIG = """{
  "compilerOptions": {
    // Enable latest features
    "lib": ["ESNext", "DOM"],
    "target": "ESNext",
  }
}
"""


@pytest.mark.parametrize("name", ["tsconfig.json", "tsconfig.build.json", "jsconfig.json", "devcontainer.json"])
def test_a_json_with_comments_tool_file_is_no_parse_error(tmp_path, name):
    # TypeScript and dev containers read these as JSON with comments: a directory walk found "CTX001 [error] invalid
    # JSON: Expecting property name enclosed in double quotes" in a repository's web front end
    (tmp_path / name).write_text(TSCONFIG)
    result = run(["check", "--isolated", str(tmp_path)])
    assert (result.code, result.out, result.err) == (0, "", "ctxlint: no findings in 1 file, 0 deployments\n")


def test_another_json_file_with_comments_is_still_a_parse_error(tmp_path):
    (tmp_path / "config.json").write_text(TSCONFIG)
    assert run(["check", "--isolated", str(tmp_path)]).out == (
        f"{tmp_path}/config.json:3:5: CTX001 [error] invalid JSON: Expecting property name enclosed in double quotes "
        "(parse-error)\n")
