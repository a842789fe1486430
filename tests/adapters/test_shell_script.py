"""Shell launch scripts (`start_vllm.sh`): read as SkyPilot's `run:` script is, never as YAML.

Which files are scripts (a `.sh`/`.bash` name, or a shell shebang on a file named on the
command line), what a script's engine commands give (roles at their tokens, defaults, caller
values as CTX008, prefill + decode paired), and that unrelated or odd scripts give nothing.
"""
from __future__ import annotations

import json
import subprocess
import sys
from importlib import import_module

import pytest

from ctxlint.adapters import adapt_file, shell_script
from ctxlint.engines.images import engine_from_image
from ctxlint.file_reader import parse_bytes, read_path
from helpers import run

workload = import_module("ctxlint.adapters.workload")
detect_module = import_module("ctxlint.engines.detect")  # the module (ctxlint.engines does not offer detect())

REPRO = ("#!/bin/bash\nset -e\nvllm serve Qwen/Qwen2.5-7B-Instruct \\\n"
         "  --max-model-len 131072 --tensor-parallel-size 1\n")
CTX109 = ("CTX109 [error] 131,072 > 32,768 x 1 = 32,768: the unified context length 131,072 exceeds the model's "
          "trained positions times its RoPE scaling factor by 98,304 tokens. Lower it to 32,768, or declare the RoPE "
          "scaling the model is actually served with (--hf-overrides '{\"rope_scaling\": {\"rope_type\": \"yarn\", "
          "\"factor\": F, \"original_max_position_embeddings\": N}, \"max_position_embeddings\": 131072}' with F >= "
          "4.00) (context-exceeds-trained-positions)")


def check(*args: str):
    return run(["check", "--isolated", *args])


def roles(text: str, name: str = "start.sh"):
    result = adapt_file(parse_bytes(text.encode(), name))
    return result, [role for dep in result.deployments for role in dep.roles]


def test_a_script_named_on_the_command_line_is_read_not_parsed_as_yaml(tmp_path):
    # Before: `set -e` then a plain line made it "CTX001 invalid YAML" (exit 1), or nothing at all.
    path = tmp_path / "start_vllm.sh"
    path.write_text(REPRO)
    result = check("--select", "CTX109,CTX001", str(path))
    assert (result.code, result.out) == (1, f"{path}:4:19: {CTX109}\n")
    finding = json.loads(check("--select", "CTX109", "--format", "json", str(path)).out)["findings"][0]
    assert (finding["path"], finding["deployment"], finding["end_column"]) == ("script", "start_vllm", 25)


def test_a_shebang_makes_a_file_of_another_name_a_script(tmp_path):
    for first in ("#!/bin/bash", "#!/usr/bin/env bash", "#! /bin/sh -e", "#!/bin/dash", "#!/usr/bin/env -S zsh -f"):
        path = tmp_path / "launch"
        path.write_text(REPRO.replace("#!/bin/bash", first))
        assert check("--select", "CTX109,CTX001", str(path)).out == f"{path}:4:19: {CTX109}\n", first
    # Not a shell's shebang, or a YAML name: read as YAML (here a plain YAML string: nothing in a `.yaml`; in a
    # file of another name, a format ctxlint does not read, CTX011, where it was a silent pass)
    for first, name, out in (("#!/usr/bin/python3", "launch", "CTX011 [info] not a format ctxlint reads: no YAML "
                              "mapping or list in it"), ("#!/bin/bash", "launch.yaml", "")):
        path = tmp_path / name
        path.write_text(f"{first}\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 131072\n")
        assert not read_path(str(path)).shell
        found = check(str(path)).out
        assert found.startswith(f"{path}:1:1: {out}") if out else found == "", name


def test_stdin_is_a_script_by_its_shebang_or_its_stdin_filename():
    assert run(["check", "--isolated", "--select", "CTX109", "-"], stdin=REPRO.encode()).out == f"-:4:19: {CTX109}\n"
    body = REPRO.split("\n", 1)[1].encode()  # no shebang: the name says it
    named = run(["check", "--isolated", "--select", "CTX109", "--stdin-filename", "run.sh", "-"], stdin=body)
    assert named.out == f"run.sh:3:19: {CTX109}\n"


def test_a_directory_scan_reads_sh_and_bash_files_and_nothing_from_unrelated_ones(tmp_path):
    (tmp_path / "serve.sh").write_text(REPRO)
    (tmp_path / "serve2.BASH").write_text(REPRO)
    (tmp_path / "build.sh").write_text("#!/bin/bash\nset -e\nkey: [unbalanced\nmake all\n")
    (tmp_path / "notes.txt").write_text(REPRO)
    (tmp_path / ".hidden.sh").write_text(REPRO)
    result = check("--select", "CTX109,CTX001", str(tmp_path))
    assert result.out == f"{tmp_path / 'serve.sh'}:4:19: {CTX109}\n{tmp_path / 'serve2.BASH'}:4:19: {CTX109}\n"
    assert "in 3 files, 2 deployments" in result.err


@pytest.mark.parametrize("content", [
    b"#!/bin/bash\necho 'unterminated\nmake all\n",
    b"#!/bin/bash\ncat <<'EOF' > /tmp/x.yaml\nkey: value\nEOF\nf() { echo \"$1\"; }\nf one\n",
    b"\x7fELF\x02\x01\x01\x00\x00\x00vllm serve m --max-model-len 1\x00\xff\xfe",  # binary junk named .sh
    b"#!/bin/sh\n# caf\xe9: Latin-1, not UTF-8\nexit 0\n",
    b"if then fi ;; ) ( }{ $(( `\n",
    b"",
    b"pip install vllm==0.6.3 && python3 -c 'import vllm; print(vllm.__version__)'\n",  # names vLLM, starts none
])
def test_a_script_that_starts_no_engine_gives_no_finding(tmp_path, content):
    path = tmp_path / "tool.sh"
    path.write_bytes(content)
    result = check(str(path))
    assert (result.code, result.out) == (0, "")
    assert "no findings in 1 file, 0 deployments" in result.err


def test_a_script_without_an_engine_name_is_not_split(monkeypatch):
    calls = []
    monkeypatch.setattr(workload, "read_container", lambda c: calls.append(c))
    text = b"#!/bin/bash\nfor f in *.csv; do python3 x.py \"$f\"; done\n"
    assert adapt_file(parse_bytes(text, "a.sh")).deployments == []
    assert calls == []


def test_an_unrelated_script_never_imports_the_workload_core(tmp_path):
    (tmp_path / "build.sh").write_text("#!/bin/bash\nset -e\nmake -j8 all\n")
    code = ("import sys; from ctxlint.engine import lint_paths; r = lint_paths([sys.argv[1]]); "
            "print(len(r.files), len(r.findings), [m for m in ('ctxlint.adapters.workload', "
            "'ctxlint.adapters.workload_groups') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout == "1 0 []\n"


def test_every_program_and_image_detect_finds_has_the_marker():
    # `server` is llama.cpp's old binary only in a llama.cpp folder or given a GGUF model (detect._old_llama_server)
    # `trl` starts an engine only as `trl vllm-serve` (detect._at), whose subcommand holds the marker
    programs = sorted(detect_module._PROGRAMS - {"server", "trl"}) + sorted(detect_module._MODULES) + [
        "llama-server", "llama_server", "llama-server-b4589", "/usr/local/bin/trtllm-serve", "~/llama.cpp/server",
        "./server -m models/mistral-7b-instruct.Q4_K_M.gguf", "trl vllm-serve"]
    images = ["vllm/vllm-openai:v0.8.5", "lmsysorg/sglang:latest", "ghcr.io/huggingface/text-generation-inference:3",
              "ghcr.io/huggingface/tgi-gaudi:2.0", "ghcr.io/ggml-org/llama.cpp:server", "openmmlab/lmdeploy:v0.6",
              "nvcr.io/nvidia/tensorrt-llm/release:1.0.0", "nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3",
              "x/huggingface-pytorch-tgi-inference:2.1", "X/LLAMACPP:server"]
    for name in programs:
        assert shell_script.names_engine(name), name
    for image in images:
        assert engine_from_image(image)[0] is not None and shell_script.names_engine(image), image


def test_assignments_exports_defaults_continuations_and_prefixes():
    text = ("#!/bin/bash\n"
            "MODEL=${MODEL:-Qwen/Qwen2.5-7B-Instruct}\n"
            "export MAX_LEN=${MAX_LEN:-\"65536\"}\n"
            "TP=2\n"
            "exec env CUDA_VISIBLE_DEVICES=0,1 vllm serve \"$MODEL\" \\\n"
            "    --max-model-len \"${MAX_LEN}\" \\\n"
            "    --tensor-parallel-size $TP --max-num-seqs ${SEQS:-64}\n")
    result, (role,) = roles(text)
    dep = result.deployments[0]
    assert (dep.input_format, dep.name.value, dep.model.id.value) == \
        ("shell-script", "start", "Qwen/Qwen2.5-7B-Instruct")
    assert dep.model.id.source.line == 5  # the "$MODEL" the command reads (set at line 2)
    context = role.context_length
    assert (context.value, context.source.line, context.source.col) == (65536, 6, 21)
    assert role.parallelism.tp == 2
    seqs = role.arg("max_num_seqs")  # a default typed in the command: at the word `${SEQS:-64}`
    assert (seqs.value, seqs.source.line, seqs.source.col, seqs.source.end_col) == (64, 7, 47, 58)
    _, (eq,) = roles("vllm serve Qwen/Qwen3-8B --max-num-seqs=${SEQS:-64}\n")  # after `=`: at the default
    assert (eq.arg("max_num_seqs").source.col, eq.arg("max_num_seqs").source.end_col) == (49, 51)
    assert (role.source.line, role.source.col) == (5, 35)  # the role is its `vllm`, not the whole script
    assert result.diagnostics == []


def test_values_the_caller_sets_are_unresolved_never_guessed(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nLEN=4096\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len \"$1\" \\\n"
                    "  --gpu-memory-utilization ${UTIL:-$DEFAULT_UTIL}\n"
                    "vllm serve Qwen/Qwen3-8B --max-model-len $LEN\n")
    result = check("--select", "CTX008", str(path))
    # a script has no annotations to state limits in (review: the advice named ctxlint.io/* annotations)
    tail = "the checks that need them are skipped (set them literally) (unresolved-value)"
    assert result.out == (
        f"{path}:3:54: CTX008 [info] values ctxlint cannot resolve: --max-model-len ${{1}} (an argument the "
        f"script's caller passes); --gpu-memory-utilization ${{UTIL}} (UTIL is not set in the file); {tail}\n")


def test_a_prefill_and_a_decode_server_in_one_script_are_one_deployment():
    text = ("M=Qwen/Qwen2.5-7B-Instruct\n"
            "python3 -m sglang.launch_server --model-path $M --disaggregation-mode prefill --context-length 32768 &\n"
            "python3 -m sglang.launch_server --model-path $M --disaggregation-mode decode --context-length 32768 &\n"
            "python3 -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 &\n"
            "wait\n")
    result, found = roles(text, "pd.bash")
    assert len(result.deployments) == 1
    assert [(r.kind, r.source.line, r.source.col) for r in found] == [("prefill", 2, 1), ("decode", 3, 1)]


def test_prefill_and_decode_scripts_side_by_side_pair_as_sibling_manifests(tmp_path):
    line = "python3 -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode {}\n"
    (tmp_path / "prefill.sh").write_text(line.format("prefill"))
    (tmp_path / "decode.sh").write_text(line.format("decode"))
    assert "in 2 files, 1 deployment" in check(str(tmp_path)).err
    # a pre-commit run that stages one half reads the other as context
    assert "in 1 file, 1 deployment" in check(str(tmp_path / "prefill.sh")).err


def test_engine_commands_inside_functions_heredocs_and_docker_run(tmp_path):
    text = ("#!/bin/bash\n"
            "cat > /tmp/cfg.yaml <<'EOF'\nmax-model-len: 200000\nEOF\n"
            "start() {\n  vllm serve Qwen/Qwen2.5-7B-Instruct --config /tmp/cfg.yaml &\n}\nstart\n"
            "docker run --gpus all vllm/vllm-openai:v0.8.5 --model Qwen/Qwen3-8B --max-model-len 1000\n")
    # with `exec vllm serve ...` in the function the shell becomes vllm at the call: the docker run never starts
    assert len(roles(text.replace("  vllm serve", "  exec vllm serve").replace(".yaml &", ".yaml"))[1]) == 1
    _, (first, second) = roles(text)
    assert (first.context_length.value, first.context_length.source.line) == (200000, 3)  # inside the here-document
    assert (second.context_length.value, second.source.line, second.source.col) == (1000, 9, 23)  # at the image


def test_here_document_bodies_are_data_unless_a_shell_runs_them(tmp_path):
    # Before: the usage note's line was an engine command (CTX208 at 5:3, CTX301 on `N`: exit 1), and an
    # installer's embedded manifests gave `{{ .Values }}` CTX301 errors.
    path = tmp_path / "install.sh"
    path.write_text("#!/bin/bash\ncat > USAGE.txt <<'NOTE'\nStart the server with:\n"
                    "  vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size N --max-model-len 32k\n"
                    "NOTE\ncat <<EOF | kubectl apply -f -\n"
                    "    args: [vllm, serve, m, --data-parallel-size, '{{ x }}']\n"
                    "EOF\necho \"wrote USAGE.txt\"\n")
    result = check(str(path))
    assert (result.code, result.out, result.err) == (0, "", "ctxlint: no findings in 1 file, 0 deployments\n")
    _, (role,) = roles("#!/bin/bash\nssh gpu-node <<'EOF'\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 9000\n"
                       "EOF\n")
    assert (role.context_length.value, role.context_length.source.line) == (9000, 3)


GENERATED = ("#!/bin/bash\n{source}PORT=\"${{PORT:-8000}}\"\nMAX_LEN=\"${{MAX_LEN:-131072}}\"\n"
             "cat > \"$DIR/run_vllm.sh\" <<{delimiter}\n#!/bin/bash\nexec vllm serve Qwen/Qwen2.5-7B-Instruct \\\n"
             "  --port '${{PORT}}' --max-model-len '${{MAX_LEN}}'\nEOV\n")


def test_a_launcher_an_unquoted_here_document_writes_holds_the_script_s_values(tmp_path):
    # Before: read as typed, `--port '${PORT}'` was CTX301 "invalid int value" (vLLM never prints it: bash writes
    # `--port '8000' --max-model-len '131072'`) and the context was vLLM's default (sweep 31: pranavnbapat's
    # generate_supervisor_config.sh). Now the values, each at its `${...}` in the body.
    path = tmp_path / "generate.sh"
    path.write_text(GENERATED.format(source="", delimiter="EOV"))
    result = check("--select", "CTX109,CTX301,CTX008", str(path))
    assert (result.code, result.out) == (1, f"{path}:7:36: {CTX109}\n")
    # a quoted delimiter keeps the body as typed: vLLM gets the text ${PORT} and refuses it
    path.write_text(GENERATED.format(source="", delimiter="'EOV'"))
    assert check("--select", "CTX109,CTX301,CTX008", str(path)).out == (
        f"{path}:7:10: CTX301 [error] vllm would refuse to start: argument --port: invalid int value: '${{PORT}}' "
        f"(engine-rejects-value)\n{path}:7:36: CTX301 [error] vllm would refuse to start: argument --max-model-len: "
        "invalid human_readable_int_or_auto value: '${MAX_LEN}' (engine-rejects-value)\n")
    # after a `source`, the script's values are unknown there: CTX008 at the reference, no refusal
    path.write_text(GENERATED.format(source="source \"$ENV_FILE\"\n", delimiter="EOV"))
    assert check("--select", "CTX109,CTX301,CTX008", str(path)).out == (
        f"{path}:8:37: CTX008 [info] values ctxlint cannot resolve: --max-model-len ${{MAX_LEN}} (MAX_LEN is set by "
        "the script to a value it does not hold); the checks that need them are skipped (set them literally) "
        "(unresolved-value)\n")


def test_engine_commands_alike_are_named_by_the_line_they_start_on(tmp_path):
    # Before: "KV pool of unified (serve), unified (serve), ..." for the branches of an if/else (sweep 27:
    # InferenceX dsr1_fp8_h200.sh, vLLM's disagg_performance_benchmark.sh): the entries could not be told apart.
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nif [ \"$FAST\" = 1 ]; then\n  vllm serve $MODEL --max-model-len 4096 &\nelse\n"
                    "  vllm serve $MODEL --max-model-len 8192 &\nfi\n"
                    "vllm serve $MODEL --max-model-len 1024 & vllm serve $MODEL --max-model-len 2048\n")
    assert check("--select", "CTX208", str(path)).out == (
        f"{path}:3:3: CTX208 [info] KV pool of unified (line 3), unified (line 5), unified (line 7, column 1), "
        "unified (line 7, column 42) not declared and not derivable: no model id: name the model (or add it under "
        "`models:`); capacity checks skip these roles (capacity-not-derivable)\n")
    # a rule on one of them names it the same way
    path.write_text(REPRO.replace("vllm serve", "if [ -n \"$LONG\" ]; then\n  vllm serve").replace(
        "--tensor-parallel-size 1\n", "&\nelse\n  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 &\nfi\n"))
    assert check("--select", "CTX109", str(path)).out == \
        f"{path}:5:19: {CTX109.replace('the unified context', 'the unified (line 4) context')}\n"


def test_flags_and_models_kept_in_bash_arrays_are_read(tmp_path):
    # Before: `"${SERVER_ARGS[@]}"` expanded to nothing: a false CTX201 "nothing sets --context-length" (L4).
    _, (role,) = roles("#!/bin/bash\nSERVER_ARGS=(\n  --context-length 8192\n  --mem-fraction-static 0.85\n)\n"
                       "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct "
                       "\"${SERVER_ARGS[@]}\"\n")
    at = role.context_length.source
    assert (role.context_length.value, at.line, at.col, at.end_col) == (8192, 3, 20, 24)
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nMODELS=(Qwen/Qwen2.5-7B-Instruct meta-llama/Llama-3.1-8B-Instruct)\n"
                    "vllm serve \"${MODELS[1]}\" --max-model-len 4096\nargs=(\"$@\")\n"
                    "vllm serve \"${args[@]}\" --max-model-len 4096\n")
    result, _ = roles(path.read_text())
    assert [dep.model.id.value if dep.model.id else None for dep in result.deployments] == [
        "meta-llama/Llama-3.1-8B-Instruct", None]
    assert check("--select", "CTX008", str(path)).out == (
        f"{path}:4:8: CTX008 [info] values ctxlint cannot resolve: argument ${{@}} (an argument the script's caller "
        "passes); the checks that need them are skipped (set them literally) (unresolved-value)\n")


def test_an_engine_config_beside_the_script_is_read_and_a_missing_one_is_said(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("nohup vllm serve --config vllm_config.yaml > log 2>&1 &\n")
    assert check("--select", "CTX008", str(path)).out == (
        f"{path}:1:27: CTX008 [info] values ctxlint cannot resolve: --config vllm_config.yaml (engine settings in a "
        "file this manifest does not hold); the checks that need them are skipped (set them literally) "
        "(unresolved-value)\n")
    (tmp_path / "vllm_config.yaml").write_text("model: Qwen/Qwen2.5-7B-Instruct\nmax-model-len: 131072\n")
    assert check("--select", "CTX109,CTX008", str(path)).out == \
        f"{tmp_path / 'vllm_config.yaml'}:2:16: {CTX109}\n"


def test_crlf_line_ends_keep_positions_and_continuations(tmp_path):
    path = tmp_path / "win.sh"
    path.write_bytes(REPRO.replace("\n", "\r\n").encode())
    assert check("--select", "CTX109", str(path)).out == f"{path}:4:19: {CTX109}\n"


def test_a_suppression_comment_in_a_script(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n# ctxlint: ignore[CTX109] -- YaRN is set in the image\n"
                    "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 131072\n")
    result = check("--select", "CTX109", str(path))
    assert (result.code, result.out) == (0, "")


def test_a_nul_byte_after_the_first_line_is_dropped_as_bash_drops_it(tmp_path):
    # bash 5.2.15 runs a script with NUL bytes after its first line, reading past each (`echo two<NUL>three` prints
    # `twothree`), and refuses one with a NUL in the first line of its first 80 bytes ("cannot execute binary file");
    # before, a NUL anywhere made the file no launcher: a self-extracting installer's launch, or a launcher with a
    # stray NUL, gave no finding (loader._script)
    path = tmp_path / "installer.sh"
    # self-extracting (makeself's layout): the payload after 10,000 bytes of script, which exits before it
    path.write_bytes(REPRO.encode() + b"#" * 10000 + b"\nexit 0\n__PAYLOAD__\n" + b"\x00\x01" * 5000)
    assert check("--select", "CTX109", str(path)).out == f"{path}:4:19: {CTX109}\n"
    path.write_bytes(REPRO.replace("131072", "131\x00072").encode() + b"echo done\x00\n")
    assert check("--select", "CTX109", str(path)).out == f"{path}:4:19: {CTX109}\n"
    # in the first line bash refuses it: a binary, as before, whatever it names
    path.write_bytes(b"#!/bin/bash \x00\n" + REPRO.encode())
    assert check(str(path)).out == ""
    path.write_bytes(b"#" * 80 + b"\x00\n" + REPRO.encode())  # past the 80 bytes bash samples: read
    assert check("--select", "CTX109", str(path)).out == f"{path}:5:19: {CTX109}\n"
    # after a `#!` line, bash (5.2.15, checked) refuses a NUL in the second line too (general.c check_binary_file
    # counts two lines then): never run, so no finding (before: read, and its launch checked)
    path.write_bytes(b"#!/bin/bash\n#\x00\n" + REPRO.split("\n", 1)[1].encode())
    assert check(str(path)).out == ""
    path.write_bytes(b"#!/bin/bash\n#\n#\x00\n" + REPRO.split("\n", 1)[1].encode())  # the third line: read
    assert check("--select", "CTX109", str(path)).out.startswith(f"{path}:")


def test_a_megabyte_script_is_read_to_its_end(tmp_path):
    path = tmp_path / "big.sh"
    filler = "".join(f"echo 'step {i}' && python3 train.py --lr 0.{i} # llama\n" for i in range(20000))
    path.write_text("#!/bin/bash\n" + filler + "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 131072\n")
    assert path.stat().st_size > 1_000_000
    assert check("--select", "CTX109", str(path)).out == f"{path}:20002:53: {CTX109}\n"


def test_scripts_too_large_to_be_launchers_give_nothing(tmp_path, monkeypatch):
    big = tmp_path / "installer.sh"
    big.write_text(REPRO + "#" * 3000 + "\n")
    result = check("--max-file-size", "1000", str(big))  # a YAML file over the limit is CTX001
    assert (result.code, result.out) == (0, "")
    monkeypatch.setattr(shell_script, "MAX_CHARS", 1000)
    assert roles(REPRO + "#" * 3000)[1] == []


def test_the_disaggregated_router_is_no_engine():
    # sweep 10e: `trtllm-serve disaggregated -c cfg` runs only OpenAIDisaggServer (tensorrt_llm/commands/serve.py),
    # which holds no KV cache; the servers it routes to are their own commands (or the config's sections)
    deps, found = roles("#!/bin/bash\ntrtllm-serve disaggregated -c disagg.yaml -t 1800 -r 1200\n"
                        "trtllm-serve Qwen/Qwen3-8B --max_seq_len 8192 &\n")
    assert [r.context_length.value for r in found] == [8192]


def test_kv_both_scripts_named_prefill_and_decode_pair(tmp_path):
    # sweep 10e: NIXL's connector is kv_both on both sides (vllm tests/v1/kv_connector/nixl_integration), so the
    # name says which half, as for Kubernetes workloads named so; two unified deployments before
    line = ("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --kv-transfer-config "
            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}'\n")
    (tmp_path / "llama-prefill.sh").write_text(line)
    (tmp_path / "llama-decode.sh").write_text(line)
    assert "in 2 files, 1 deployment" in check(str(tmp_path)).err


def test_docker_run_gives_its_image_release_and_its_env():
    # sweep 10e: `docker run IMAGE [program ...]` in a script: the image's tag is the release (CTX402 asked for one),
    # and `-e NAME=value` / `--env NAME=value` / `--env=NAME=value` is the container's environment (TGI's settings,
    # VLLM_ALLOW_LONG_MAX_MODEL_LEN) as in a compose file
    result, (role,) = roles("docker run -d --gpus all --env=SGLANG_X=1 lmsysorg/sglang:v0.4.6 "
                            "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B\n")
    assert result.deployments[0].engine.version.value == "0.4.6"
    deps, (tgi,) = roles("docker run --env MODEL_ID=Qwen/Qwen3-8B --env MAX_TOTAL_TOKENS=8192 "
                         "ghcr.io/huggingface/text-generation-inference:3.3.6\n")
    [dep] = deps.deployments
    assert (dep.model.id.value, tgi.context_length.value, dep.engine.version.value) == ("Qwen/Qwen3-8B", 8192, "3.3.6")
    result, _ = roles("docker run -e VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 vllm/vllm-openai:v0.8.5 --model Qwen/Qwen3-8B\n")
    [dep] = result.deployments
    assert dep.engine.version.value == "0.8.5" and dep.roles[0].arg("VLLM_ALLOW_LONG_MAX_MODEL_LEN").value == "1"


def test_docker_run_entrypoint_names_the_program_of_the_arguments_after_the_image():
    # sweep 11: `--entrypoint vllm IMAGE serve MODEL` read `serve` as the model (an image whose entrypoint is vLLM),
    # or gave nothing (NGC's image); --entrypoint replaces the image's ENTRYPOINT
    for script in ("docker run --gpus all --entrypoint vllm vllm/vllm-openai:v0.10.1 serve Qwen/Qwen3-8B "
                   "--max-model-len 8192\n",
                   "docker run --entrypoint=vllm nvcr.io/nvidia/vllm:25.09-py3 serve Qwen/Qwen3-8B "
                   "--max-model-len 8192\n",
                   "docker run --entrypoint python3 lmsysorg/sglang:v0.4.6 -m sglang.launch_server "
                   "--model-path Qwen/Qwen3-8B --context-length 8192\n"):
        result, (role,) = roles(script)
        [dep] = result.deployments
        assert (dep.model.id.value, role.context_length.value) == ("Qwen/Qwen3-8B", 8192), script
    assert roles("docker run --entrypoint vllm vllm/vllm-openai:v0.10.1 serve Qwen/Qwen3-8B\n")[0] \
        .deployments[0].engine.version.value == "0.10.1"
    # review: an option's value named like an engine (`--name vllm`, `--network vllm-net`) is no image
    for script in ("docker run --entrypoint python3 --name vllm vllm/vllm-openai:v0.8.5 -m "
                   "vllm.entrypoints.openai.api_server --model Qwen/Qwen3-8B --max-model-len 8192\n",
                   "docker run --entrypoint vllm --network vllm-net -e A=1 vllm/vllm-openai:v0.8.5 serve Qwen/Qwen3-8B "
                   "--max-model-len 8192\n"):
        result, (role,) = roles(script)
        assert (result.deployments[0].model.id.value, role.context_length.value) == ("Qwen/Qwen3-8B", 8192), script
    # an entrypoint that is no engine runs something else: nothing is guessed
    assert roles("docker run --entrypoint /bin/bash vllm/vllm-openai:v0.10.1 -c 'sleep 1'\n")[0].deployments == []


def test_review_of_the_script_fixes(tmp_path):
    # review of 7027924..5d6fc19: a script that starts both halves is not named after one; the router's unread
    # config file is not charged to the next command (CTX308 came back hidden); a virtualenv's activation keeps
    # the defaults after it; keyed arrays and elements after an unquoted unknown are not read as positions
    line = ("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072 --kv-transfer-config "
            "'{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\"}' &\n")
    _, found = roles(line + line, "disaggregated_prefill.sh")
    assert [r.kind for r in found] == ["unified", "unified"]
    result, found = roles("trtllm-serve disaggregated -c disagg.yaml &\n"
                          "trtllm-serve Qwen/Qwen3-8B --max_seq_len 16384 --max_num_tokens 4096 &\n")
    assert [r.settings_unread for r in found] == [None]
    models = [roles(f"source {f}\nexport M=${{M:-Qwen/Qwen3-8B}}\nvllm serve $M\n")[0].deployments[0].model.id
              for f in (".venv/bin/activate", "./env.sh")]
    assert (models[0].value, models[1]) == ("Qwen/Qwen3-8B", None)
    for script in ("A=([0]=--max-model-len [1]=131072)\nvllm serve m --max-model-len 8192 \"${A[@]}\"\n",
                   "A=($EXTRA 131072)\nvllm serve m --max-model-len ${A[1]}\n"):
        _, (role,) = roles(script)
        assert role.context_length is None or role.context_length.value != 131072, script
    # review of 99e9b93: appending an unknown after a branch's append keeps the array's start (the model)
    result, _ = roles("A=(--model Qwen/Qwen3-8B)\nif [ -n \"$Q\" ]; then A+=(--quantization fp8); fi\n"
                      "A+=(--max-model-len 8192 $EXTRA)\nvllm serve \"${A[@]}\"\n")
    assert result.deployments[0].model.id.value == "Qwen/Qwen3-8B"


def test_ctx008_says_why_a_script_variable_is_unknown(tmp_path):
    # review of the sweep: "X is not set in the file" for `read X` / `X=$(cmd)`, which set it, and without the
    # `source` that may set it
    path = tmp_path / "start.sh"
    path.write_text("#!/bin/bash\nsource ./env.sh\nread LEN\nvllm serve Qwen/Qwen3-8B --max-model-len $LEN "
                    "--tensor-parallel-size $TP\n")
    # (the CTX208 of the unknown TP mentions CTX008 too)
    [line] = [x for x in check(str(path)).out.splitlines() if "CTX008 [" in x]
    assert "--max-model-len ${LEN} (LEN is set by the script to a value it does not hold); --tensor-parallel-size " \
           "${TP} (TP is not set in the file; a file the script sources before may set it)" in line


def test_ctx008_reasons_are_those_where_the_variable_is_used(tmp_path):
    # review of 1c7335a: the reason is the script's state at the reference, not at its end; a Kubernetes $(LEN) is
    # the kubelet's, never the script's
    path = tmp_path / "start.sh"
    for script, reason in (("vllm serve m --max-model-len $LEN\nLEN=$(cat f)\n", "LEN is not set in the file"),
                           ("vllm serve m --max-model-len $LEN\nsource ./env.sh\n", "LEN is not set in the file"),
                           ("read LEN\nvllm serve m --max-model-len $LEN\nLEN=8192\n",
                            "LEN is set by the script to a value it does not hold")):
        path.write_text("#!/bin/bash\n" + script)
        [line] = [x for x in check(str(path)).out.splitlines() if "CTX008" in x]
        assert f"${{LEN}} ({reason})" in line, script


def test_a_batch_scripts_sbatch_header_names_the_device():
    # sweep 11 (raunak-sood2003/pragmatic-code-generation vLLM/codellama13b_vllm_server.sh): `#SBATCH
    # --gres=gpu:A6000:4` states the device, yet CTX208 said the file has no field that names one
    for header, device, count in (
            ("#SBATCH --gres=gpu:A6000:4", "RTX-A6000", 4), ("#SBATCH --gpus=h100:8", "H100-SXM-80GB", None),
            ("#SBATCH --gpus-per-node=l40s:2", "L40S", 2), ("#SBATCH -G l40s:1", "L40S", None),
            # review: `--gres` with a space, several options on one line, a type without a count
            ("#SBATCH --gres gpu:h100:8", "H100-SXM-80GB", 8), ("#SBATCH -N 1 --gres=gpu:l4:1", "L4", 1),
            ("#SBATCH --gres=gpu:h100", "H100-SXM-80GB", 1),
            # review: a gres type is the site's word, and `v100`, `a100` come in two memory sizes: no size is
            # assumed, the device is either (a band over both: tests/adapters/test_family_devices.py)
            ("#SBATCH --gres=gpu:v100:1", "V100 (16 or 32 GB: the label names no size)", 1),
            ("#SBATCH --gres=gpu:a100:4", "A100 (40 or 80 GB: the label names no size)", 4)):
        _, (role,) = roles(f"#!/bin/bash\n{header}\nvllm serve Qwen/Qwen3-8B --max-model-len 8192\n")
        assert role.accelerators.type.value == device, header
        # the GPUs of a node are the engine's (sweep 49); `--gpus` is the job's, over nodes Slurm picks: no count
        assert (role.accelerators.count.value if role.accelerators.count else None) == count, header
    # a count alone, a site's own gres name, or a directive after the first command states nothing
    for script in ("#SBATCH --gres=gpu:4\n", "#SBATCH --gres=gpu:bigcard:4\n", "echo hi\n#SBATCH --gres=gpu:l4:4\n"):
        _, (role,) = roles(f"#!/bin/bash\n{script}vllm serve Qwen/Qwen3-8B\n")
        assert role.accelerators.type is None, script


def test_docker_run_image_shell_script_is_read():
    # sweeps 11 (genglinliu/WebCoach, realtmxi/local-deployment, honkliu/Jiuzhang): `docker run ... lmsysorg/sglang
    # bash -c "python3 -m sglang.launch_server ..."` gave 0 deployments. A double-quoted script is expanded by the
    # host's shell first; a single-quoted one by the container's, whose variables only `-e` sets
    result, (role,) = roles('M=Qwen/Qwen3-8B\ndocker run --gpus all lmsysorg/sglang:v0.4.6 bash -c '
                            '"python3 -m sglang.launch_server --model-path $M --context-length 8192"\n')
    assert (result.deployments[0].model.id.value, role.context_length.value) == ("Qwen/Qwen3-8B", 8192)
    result, (role,) = roles("M=other/model\ndocker run -e M=Qwen/Qwen3-8B -e LEN=8192 lmsysorg/sglang:v0.4.6 bash -c "
                            "'python3 -m sglang.launch_server --model-path $M --context-length $LEN'\n")
    assert (result.deployments[0].model.id.value, role.context_length.value) == ("Qwen/Qwen3-8B", 8192)
    result, _ = roles("M=Qwen/Qwen3-8B\ndocker run lmsysorg/sglang:v0.4.6 sh -c 'python3 -m sglang.launch_server "
                      "--model-path $M'\n")
    assert result.deployments[0].model.id is None  # the host's M does not reach the container's shell
    # `--entrypoint /bin/bash IMAGE -c "..."` runs the script too
    result, (role,) = roles('docker run --entrypoint /bin/bash vllm/vllm-openai:v0.10.1 -c "vllm serve Qwen/Qwen3-8B '
                            '--max-model-len 8192"\n')
    assert (result.deployments[0].model.id.value, role.context_length.value) == ("Qwen/Qwen3-8B", 8192)
    # an image whose own entrypoint is the engine takes `bash -c ...` as its arguments: not a script
    result, _ = roles('docker run vllm/vllm-openai:v0.10.1 bash -c "vllm serve Qwen/Qwen3-8B"\n')
    assert result.deployments[0].model.id is None  # vLLM takes `bash` for it and exits: no model is served


def test_docker_run_empty_entrypoint_makes_the_words_after_the_image_the_command():
    # sweep 30 (Hiroaki-Masuzawa/llm_vlm_memo run_wisper.sh): `--entrypoint "" IMAGE bash -c "vllm serve ..."` gave
    # the model `bash`: an empty entrypoint clears the image's, so `bash -c` runs the script (docker run docs)
    for option in ('--entrypoint ""', "--entrypoint=''", "--entrypoint="):
        result, (role,) = roles(f'docker run --gpus all {option} vllm/vllm-openai:v0.10.1 bash -c "vllm serve '
                                'Qwen/Qwen3-8B --max-model-len 8192"\n')
        [dep] = result.deployments
        assert (dep.model.id.value, role.context_length.value, dep.engine.version.value) == \
            ("Qwen/Qwen3-8B", 8192, "0.10.1"), option
    # the image's entrypoint does not take the arguments then: `--model` is the command, no engine starts
    assert roles('docker run --entrypoint "" vllm/vllm-openai:v0.10.1 --model Qwen/Qwen3-8B\n')[0].deployments == []
    # an engine program after the image still runs, with the image's release
    result, (role,) = roles('docker run --entrypoint "" vllm/vllm-openai:v0.10.1 vllm serve Qwen/Qwen3-8B '
                            '--max-model-len 8192\n')
    assert (result.deployments[0].model.id.value, role.context_length.value) == ("Qwen/Qwen3-8B", 8192)


def test_an_indented_sbatch_line_is_no_directive():
    # review: sbatch reads `#SBATCH` only at the line's start (src/sbatch/opt.c)
    _, (role,) = roles("#!/bin/bash\n  #SBATCH --gres=gpu:h100:4\nvllm serve Qwen/Qwen3-8B\n")
    assert role.accelerators.type is None


def test_docker_shell_script_reads_the_containers_variables_and_the_images_release():
    # review: in a double-quoted script `\$LEN` is the container's (its -e), not the host's; `--env=` and `-eNAME=`
    # set the container's too; the image's tag is the release, as for `docker run IMAGE ARGS`
    script = ('LEN=8192\ndocker run -e LEN=131072 --env=M=Qwen/Qwen3-8B lmsysorg/sglang:v0.4.6 bash -c '
              '"python3 -m sglang.launch_server --model-path \\$M --context-length \\$LEN"\n')
    result, (role,) = roles(script)
    [dep] = result.deployments
    assert (dep.model.id.value, role.context_length.value, dep.engine.version.value) == \
        ("Qwen/Qwen3-8B", 131072, "0.4.6")


def test_slurm_batch_scripts_are_read_in_directory_scans(tmp_path):
    # sweeps 11 and 26: HPC launchers are `serve_vllm.slurm` / `job.sbatch` files, which a directory scan (and the
    # pre-commit hook) skipped; sbatch refuses a script without `#!`, so the names are shell scripts even then
    (tmp_path / "serve_vllm.slurm").write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:1\n"
                                               "vllm serve Qwen/Qwen3-8B --max-model-len 40960\n")
    (tmp_path / "job.SBATCH").write_text("#SBATCH --gpus=l4:1\nvllm serve Qwen/Qwen3-8B --max-model-len 40960\n")
    (tmp_path / "notes.slurmrc").write_text("vllm serve Qwen/Qwen3-8B\n")  # not a batch script's name
    result = run(["audit", str(tmp_path), "--isolated", "--format", "json"])
    rows = sorted((row["file"].rsplit("/", 1)[-1], row["verdict"]) for row in json.loads(result.out)["deployments"])
    assert rows == [("job.SBATCH", "exceeds"), ("serve_vllm.slurm", "fits")]


@pytest.mark.parametrize("setup, program", [
    ("", "$PYTHON"),                                             # a variable the script never sets
    ("PYTHON=$(which python3)\n", "$PYTHON"),                    # one set by a command substitution
    ("PY=\"${PY:-${DIR}/.venv/bin/python}\"\n", "exec \"${PY}\""),  # a default that expands something
    ("", "`which python3`"),
    ("PYTHON=/opt/conda/envs/s/bin/python3.11\n", "$PYTHON"),    # a path whose base name is an interpreter
])
def test_an_interpreter_held_in_a_variable_starts_the_engine_module_it_runs(tmp_path, setup, program):
    # Before: 0 deployments (sweep 33: `exec "${K3_PYTHON_BIN}" -m vllm.entrypoints.cli.main serve`, and 10 public
    # scripts running `$PYTHON -m sglang.launch_server`, 5 of them a prefill/decode pair that disappeared).
    text = (f"#!/bin/bash\n{setup}{program} -m sglang.launch_server --model-path Qwen/Qwen3-8B "
            f"--context-length 8192 &\n{program} -u -m vllm.entrypoints.cli.main serve Qwen/Qwen3-8B "
            "--max-model-len 4096\n")
    _, found = roles(text)
    line, col = 2 + bool(setup), 1 + program.startswith("exec") * 5  # at the interpreter
    assert [(r.context_length.value, r.source.line, r.source.col) for r in found] == [(8192, line, col),
                                                                                       (4096, line + 1, col)]
    path = tmp_path / "serve.sh"
    path.write_text(text)
    assert check("--select", "CTX008", str(path)).out == ""  # which interpreter runs it changes no engine value


def test_an_unknown_program_running_no_engine_module_starts_nothing():
    for line in ("$PYTHON -m pip install vllm==0.8.5", "$PYTHON -m sglang_router.launch_router --pd-disaggregation",
                 "$PYTHON -m my.sglang.launch_server --model-path m", "$TOOL serve Qwen/Qwen3-8B",
                 "$PYTHON bench.py -m sglang.launch_server", "echo $PYTHON -m sglang.launch_server"):
        assert roles(f"#!/bin/bash\n{line}\n")[1] == [], line


def test_a_prefill_decode_pair_run_by_an_unset_interpreter_is_one_deployment():
    line = "$PYTHON -m sglang.launch_server --model-path Qwen/Qwen2.5-7B-Instruct --disaggregation-mode {} &\n"
    result, found = roles("#!/bin/bash\n" + line.format("prefill") + line.format("decode"), "pd.sh")
    assert len(result.deployments) == 1 and [r.kind for r in found] == ["prefill", "decode"]


def test_a_command_array_an_if_sets_gives_the_launch_of_the_branch_that_makes_an_engine(tmp_path):
    # Before: 0 deployments (sweep 34: a launcher choosing a hardened wrapper or `python -m sglang.launch_server`).
    text = ("#!/bin/bash\nif [[ $SECURE == 1 ]]; then\n  CMD=(/opt/secure-launch.py)\nelse\n"
            "  CMD=(python -m sglang.launch_server)\nfi\nCMD+=(--model-path Qwen/Qwen3-8B --context-length 8192)\n"
            "exec \"${CMD[@]}\"\n")
    _, (role,) = roles(text)
    at = role.context_length.source
    assert (role.source.line, role.source.col, role.context_length.value, at.line, at.col) == (5, 8, 8192, 7, 51)
    # each branch that makes an engine command is a launch of its own; an `if` without `else` may leave the
    # array as it was (unset: unknown, no launch)
    two = text.replace("/opt/secure-launch.py", "vllm serve").replace("--model-path Qwen/Qwen3-8B ", "Qwen/Qwen3-8B ")
    assert [(r.source.line, r.source.col) for r in roles(two)[1]] == [(3, 8), (5, 8)]
    one = "#!/bin/bash\nif [ -n \"$X\" ]; then\n  A=(vllm serve Qwen/Qwen3-8B)\nfi\n\"${A[@]}\" --max-model-len 4096\n"
    assert [(r.source.line, r.context_length.value) for r in roles(one)[1]] == [(3, 4096)]
    path = tmp_path / "serve.sh"
    path.write_text(one)
    assert check("--select", "CTX008", str(path)).out == ""


def test_a_function_is_launched_by_its_calls_with_their_arguments(tmp_path):
    # Before: the body was the launch, its `"$@"` CTX008 "an argument the script's caller passes" (sweep 34)
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\nrun() {\n  local args=(--host 0.0.0.0)\n  llama-server \"${args[@]}\" \"$@\"\n}\n"
                    "run --model /m/Qwen3-8B-Q4_K_M.gguf --ctx-size 32768\n")
    _, (role,) = roles(path.read_text())
    at = role.context_length.source
    assert (role.source.line, role.source.col, role.context_length.value, at.line, at.col) == (4, 3, 32768, 6, 48)
    assert check("--select", "CTX008", str(path)).out == ""
    # defined and never called: no launch, no finding
    path.write_text("#!/bin/bash\nrun() {\n  llama-server --host 0.0.0.0 \"$@\"\n}\n")
    result = check(str(path))
    assert (result.out, result.err) == ("", "ctxlint: no findings in 1 file, 0 deployments\n")


def test_a_function_a_sourced_file_beside_the_script_defines_is_launched_at_the_call(tmp_path):
    # Before: the setup file was a deployment with no model, and each script calling its function none (sweep 34)
    (tmp_path / "setup.sh").write_text("set -e\nmodel_dir=\"$(pwd)\"\nrun_server() {\n  local a=(--port 3191)\n"
                                       "  build/bin/llama-server \"${a[@]}\" \"$@\"\n}\n")
    (tmp_path / "qwen").mkdir()
    (tmp_path / "qwen" / "run.sh").write_text("#!/bin/bash\nsource ../setup.sh\n\nrun_server \\\n"
                                              "  --model Qwen/Qwen3-8B-GGUF --ctx-size \"$(( 32*1024 ))\"\n")
    result = check("--format", "json", str(tmp_path))
    found = json.loads(result.out)
    assert found["summary"]["deployments"] == 1
    _, (role,) = roles((tmp_path / "qwen" / "run.sh").read_text(), str(tmp_path / "qwen" / "run.sh"))
    assert (role.source.line, role.source.col, role.context_length.value, role.context_length.source.line) == \
        (4, 1, 32768, 5)
    # a script that names no engine itself is read when a file it sources beside it does
    (tmp_path / "qwen" / "run.sh").write_text((tmp_path / "qwen" / "run.sh").read_text().replace(
        "source ../setup.sh", ". \"$(dirname \"$0\")/../setup.sh\""))
    assert not shell_script.names_engine((tmp_path / "qwen" / "run.sh").read_text())
    assert json.loads(check("--format", "json", str(tmp_path / "qwen" / "run.sh")).out)["summary"]["deployments"] == 1


def test_sglang_yarn_override_with_its_original_length_is_refused_and_the_advice_names_the_length_key(tmp_path):
    # Qwen3's model card form: a YaRN rope_scaling stating original_max_position_embeddings in
    # --json-model-override-args. SGLang then applies no factor (get_context_length), derives 40,960 and refuses
    # --context-length 131072; before, this passed and the same script without the override was told to add it.
    yarn = "'{\"rope_scaling\":{\"rope_type\":\"yarn\",\"factor\":4.0,\"original_max_position_embeddings\":32768}}'"
    head = "#!/bin/bash\npython -m sglang.launch_server --model-path Qwen/Qwen3-8B"
    (tmp_path / "yarn.sh").write_text(f"{head} --json-model-override-args {yarn} --context-length 131072\n")
    (tmp_path / "plain.sh").write_text(f"{head} --context-length 131072\n")
    (tmp_path / "keyed.sh").write_text(f"{head} --json-model-override-args {yarn[:-2]},\"max_position_embeddings\":"
                                       "131072}' --context-length 131072\n")
    out = check("--select", "CTX109", str(tmp_path)).out
    assert out == (
        f"{tmp_path / 'plain.sh'}:2:76: CTX109 [error] 131,072 > 40,960 x 1 = 40,960: the unified context length "
        "131,072 exceeds the model's trained positions times its RoPE scaling factor by 90,112 tokens. Lower it to "
        "40,960, or declare the RoPE scaling the model is actually served with (--json-model-override-args "
        "'{\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": F, \"original_max_position_embeddings\": N}, "
        "\"max_position_embeddings\": 131072}' with F >= 3.20) (context-exceeds-trained-positions)\n"
        f"{tmp_path / 'yarn.sh'}:2:197: CTX109 [error] 131,072 > 40,960: the unified context length 131,072 exceeds "
        "the length SGLang derives for this model by 90,112 tokens (SGLang derives 40,960 from the model's "
        "max_position_embeddings 40,960 (the x4 RoPE scaling in --json-model-override-args is not applied: it "
        "states original_max_position_embeddings)), and SGLang refuses to start above it (\"User-specified "
        "context_length ... is greater than the derived context_length\"), though the RoPE scaling covers 131,072 "
        "positions. Set \"max_position_embeddings\": 131072 in --json-model-override-args (SGLang's length key, "
        "beside the RoPE scaling), or SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1, or lower it to 40,960 "
        "(context-exceeds-trained-positions)\n")


def test_a_model_id_set_in_the_branches_of_an_if_gives_a_deployment_per_branch(tmp_path):
    # Before: one deployment "(no model id)" and CTX008 "DTYPE is set inside a branch or loop" (sweep 45:
    # vllm-project/recipes' Llama-3.3-70B and Llama-4-Scout choose FP4 or FP8 weights by the GPU's compute capability)
    text = ('#!/bin/bash\nCC=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader)\n'
            'if [ "$CC" = "10.0" ]; then\n  DTYPE="FP4"\n  YAML_CONFIG="blackwell.yaml"\nelse\n  DTYPE="FP8"\n'
            '  YAML_CONFIG="hopper.yaml"\nfi\nvllm serve nvidia/Llama-3.3-70B-Instruct-$DTYPE \\\n'
            '  --config ${YAML_CONFIG} --tensor-parallel-size 1 &\n')
    result, found = roles(text, "llama.sh")
    assert [(str(d.name.value), d.model.id.value) for d in result.deployments] == [
        ("llama (nvidia/Llama-3.3-70B-Instruct-FP4)", "nvidia/Llama-3.3-70B-Instruct-FP4"),
        ("llama (nvidia/Llama-3.3-70B-Instruct-FP8)", "nvidia/Llama-3.3-70B-Instruct-FP8")]
    path = tmp_path / "llama.sh"
    path.write_text(text)
    # each branch's config file is said where that branch names it
    assert [line.split(": CTX008")[0].rsplit(":", 2)[1:] for line in
            check("--select", "CTX008", str(path)).out.splitlines()] == [["5", "16"], ["8", "16"]]


def test_one_model_served_two_ways_by_an_if_is_a_role_per_branch(tmp_path):
    text = ('#!/bin/bash\nif [ "$BIG" = 1 ]; then\n  LEN=131072\nelse\n  LEN=65536\nfi\n'
            'vllm serve Qwen/Qwen3-8B --max-model-len $LEN &\n')
    path = tmp_path / "serve.sh"
    path.write_text(text)
    assert [line.split(" [error] ")[0] + " " + line.split("the ")[1].split(" context")[0]
            for line in check("--select", "CTX109", str(path)).out.splitlines()] == [
        f"{path}:3:7: CTX109 unified (if [ $BIG = 1 ])", f"{path}:5:7: CTX109 unified (else)"]
