"""systemd service units (`vllm.service`, `llama-server.service`): ExecStart= read as systemd reads it.

Each test is a minimal unit modelled on a real one (a literal llama-server command line, Environment= values,
an EnvironmentFile= kept beside the unit or only on the host, `%h` in a user unit, `bash -c`, a start script
beside the unit); what systemd does with each construct is in lint/adapters/systemd_unit.py, with its sources.
"""
from __future__ import annotations

import sys

import pytest

from ctxlint.adapters import adapt_file
from ctxlint.adapters.systemd_syntax import directives, split_words
from ctxlint.file_reader import parse_bytes
from helpers import run

LLAMA = ("[Unit]\nDescription=llama.cpp server\n\n[Service]\nType=simple\n# a comment\n"
         "ExecStart=/opt/llama-server/llama-server \\\n    --host 0.0.0.0 \\\n    --ctx-size 262144 \\\n"
         "    --model /models/Qwen2.5-7B-Instruct-Q4_K_M.gguf\nRestart=on-failure\n")
CTX109_LLAMA = ("CTX109 [error] 262,144 > 32,768: the unified context length 262,144 exceeds the model's training "
                "context (n_ctx_train, the GGUF's context_length) by 229,376 tokens")
CTX109_VLLM = ("CTX109 [error] 131,072 > 32,768 x 1 = 32,768: the unified context length 131,072 exceeds the "
               "model's trained positions times its RoPE scaling factor by 98,304 tokens")


def check(*args: str):
    return run(["check", "--isolated", *args])


def lines(result, rule: str):
    return [line for line in result.out.splitlines() if f" {rule} " in line]


def unit(tmp_path, text: str, name: str = "vllm.service"):
    path = tmp_path / name
    path.write_text(text)
    return path


def roles(text: str, name: str = "vllm.service"):
    result = adapt_file(parse_bytes(text.encode(), name))
    return result, [role for dep in result.deployments for role in dep.roles]


def args(role) -> dict:
    return {name: val.value for name, val in role.engine_args}


def test_a_llama_server_unit_is_a_deployment_with_its_findings_at_the_words(tmp_path):
    # Before: named explicitly, CTX011 "not a format ctxlint reads"; in a directory, skipped silently.
    path = unit(tmp_path, LLAMA, "llama-server.service")
    result = check("--select", "CTX109,CTX011", str(path))
    assert result.code == 1
    assert result.out.startswith(f"{path}:9:16: {CTX109_LLAMA}")
    assert len(result.out.splitlines()) == 1
    directory = check("--select", "CTX109", str(tmp_path))
    assert directory.out == result.out


def test_environment_values_feed_braced_and_bare_references(tmp_path):
    text = ('[Service]\nEnvironment="CTX=131072" UTIL=0.9\n'
            "ExecStart=/opt/venv/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len ${CTX} "
            "--gpu-memory-utilization $UTIL\n")
    result = check("--select", "CTX109", str(unit(tmp_path, text)))
    # at the value in the quoted assignment, where it is typed
    assert result.out.startswith(f"{tmp_path / 'vllm.service'}:2:18: {CTX109_VLLM}")


def test_bare_variable_is_split_into_words_braced_one_stays_one_word():
    # replace_env_argv: `$ARGS` alone becomes the value's words, `${ARGS}` one argument holding the spaces
    text = ('[Service]\nEnvironment="ARGS=--max-model-len 8192"\n'
            "ExecStart=/usr/bin/vllm serve Qwen/Qwen2.5-7B-Instruct {}\n")
    _, split = roles(text.format("$ARGS"))
    assert split[0].context_length.value == 8192
    _, whole = roles(text.format("${ARGS}"))
    assert whole[0].context_length is None or whole[0].context_length.value != 8192


def test_a_variable_nothing_sets_is_empty_and_literal_dollar_words_stay():
    # no EnvironmentFile=: systemd gives an unset variable as the empty string (`$MISSING` alone: no word), and a
    # `$` inside a word (`--x=$Y`) or `$$` is passed as written
    text = ("[Service]\nExecStart=/usr/bin/vllm serve Qwen/Qwen2.5-7B-Instruct $MISSING --max-model-len 8192 "
            "--served-model-name a$$b\n")
    result, found = roles(text)
    assert found[0].context_length.value == 8192
    assert args(found[0])["served_model_name"] == ["a$b"]
    assert not result.diagnostics


def test_environment_file_beside_the_unit_is_read_and_findings_point_into_it(tmp_path):
    (tmp_path / "llamacpp.env").write_text("# tunables\nMODEL=/models/Qwen2.5-7B-Instruct-Q4_K_M.gguf\n"
                                           "CONTEXT=262144\n")
    path = unit(tmp_path, "[Service]\nEnvironmentFile=-/etc/llamacpp/llamacpp.env\n"
                          "ExecStart=/opt/llama.cpp/llama-server --model ${MODEL} --ctx-size ${CONTEXT}\n",
                "llamacpp.service")
    result = check("--select", "CTX109", str(path))
    assert result.out.startswith(f"{tmp_path / 'llamacpp.env'}:3:9: {CTX109_LLAMA}")


def test_environment_file_only_on_the_host_leaves_its_variables_unknown(tmp_path):
    path = unit(tmp_path, "[Service]\nEnvironmentFile=/etc/default/vllm\n"
                          "ExecStart=/usr/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len ${MAX_LEN}\n")
    result = check("--select", "CTX008", str(path))
    assert result.out == (
        f"{path}:3:72: CTX008 [info] values ctxlint cannot resolve: --max-model-len ${{MAX_LEN}} (MAX_LEN is not "
        "set by the unit; EnvironmentFile=/etc/default/vllm may set it, and no file of that name sits beside the "
        "unit); the checks that need them are skipped (set them literally) (unresolved-value)\n")


def test_host_specifiers_are_unknown_fixed_ones_are_read(tmp_path):
    path = unit(tmp_path, "[Service]\nExecStart=%h/llama.cpp/llama-server -m %h/models/qwen.gguf --ctx-size 32768\n",
                "llama.service")
    result = check("--select", "CTX008", str(path))
    assert result.out == (
        f"{path}:2:40: CTX008 [info] values ctxlint cannot resolve: -m %h (%h is the home directory of the unit's "
        "user, which systemd fills in on the host); the checks that need them are skipped (set them literally) "
        "(unresolved-value)\n")
    # `%%` is a `%`, `%T` is /tmp: nothing unknown
    result, found = roles("[Service]\nExecStart=/usr/bin/vllm serve %T/Qwen2.5-7B --max-model-len 8192 "
                          "--served-model-name 100%%\n")
    assert result.deployments[0].model.id.value == "/tmp/Qwen2.5-7B"
    assert args(found[0])["served_model_name"] == ["100%"]
    assert not result.diagnostics


def test_prefixes_are_not_part_of_the_program_and_colon_stops_expansion():
    result, _ = roles("[Service]\nExecStart=-+/usr/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    assert result.deployments[0].engine.name.value == "vllm"
    # `@`: the second word is argv[0]
    result, _ = roles("[Service]\nExecStart=@/usr/bin/vllm vllm-main serve Qwen/Qwen2.5-7B-Instruct\n")
    assert result.deployments[0].model.id.value == "Qwen/Qwen2.5-7B-Instruct"
    _, found = roles("[Service]\nEnvironment=N=a\nExecStart=:/usr/bin/vllm serve Qwen/Qwen2.5-7B-Instruct "
                     "--served-model-name ${N}\n")
    assert args(found[0])["served_model_name"] == ["${N}"]


def test_bash_c_goes_through_the_shell_splitter_with_the_units_environment(tmp_path):
    path = unit(tmp_path, "[Service]\nEnvironment=CTX=131072\nExecStart=/bin/bash -c \"exec vllm serve "
                          "Qwen/Qwen2.5-7B-Instruct --max-model-len $CTX\"\n")
    assert lines(check("--select", "CTX109", str(path)), "CTX109")[0].startswith(f"{path}:2:17: {CTX109_VLLM}")


def test_a_script_beside_the_unit_runs_with_its_environment_and_is_no_deployment_of_its_own(tmp_path):
    (tmp_path / "start-vllm.sh").write_text('#!/bin/bash\nexec vllm serve Qwen/Qwen2.5-7B-Instruct '
                                            '--max-model-len "$MAX_MODEL_LEN"\n')
    unit(tmp_path, "[Service]\nEnvironment=MAX_MODEL_LEN=131072\nExecStart=/srv/vllm/start-vllm.sh\n")
    result = check("--select", "CTX109", "--format", "json", str(tmp_path))
    assert '"deployments": 1' in result.out and "131,072 > 32,768" in result.out
    # the audit row's file:line is where the engine line is, in the script (review: `vllm.service:2`, a line of
    # the script, was written with the unit's name)
    row = run(["audit", "--format", "json", str(tmp_path)]).out
    assert f'"file": "{tmp_path / "start-vllm.sh"}"' in row and '"line": 2' in row


def test_a_script_the_repository_does_not_hold_is_said_once(tmp_path):
    path = unit(tmp_path, "[Service]\nEnvironmentFile=-/etc/vllm/vllm.env\nExecStart=/opt/vllm/bin/run_vllm.sh\n")
    assert check(str(path)).out == (
        f"{path}:3:11: CTX008 [info] the unit vllm runs script /opt/vllm/bin/run_vllm.sh, which no file beside it "
        "holds (a script is read beside the unit, by its file name), so the engine it starts is not checked "
        "(unresolved-value)\n")


def test_reset_and_several_commands(tmp_path):
    # an empty ExecStart= drops the ones before it
    _, found = roles("[Service]\nExecStart=/usr/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 1\n"
                     "ExecStart=\nExecStart=/usr/bin/vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n")
    assert [r.context_length.value for r in found] == [8192]
    path = unit(tmp_path, "[Service]\nExecStart=/usr/bin/vllm serve a\nExecStart=/usr/bin/vllm serve b\n")
    assert check(str(path)).out == (
        f"{path}:3:1: CTX002 [error] ExecStart: 2 commands, but only a Type=oneshot service may have more than one "
        "(this one is Type=simple): systemd refuses to start the unit (schema-violation)\n")


def test_units_without_an_engine_give_nothing(tmp_path):
    unit(tmp_path, "[Service]\nType=oneshot\nExecStart=/usr/local/bin/backup.sh\n", "backup.service")
    unit(tmp_path, "[Unit]\nDescription=only a unit section\n", "bare.service")
    for target in [str(tmp_path), *(str(p) for p in sorted(tmp_path.iterdir()))]:
        result = check(target)
        assert (result.code, result.out) == (0, ""), target
    # an Ollama server is said once not to be checked, as in a script (the workload core's note)
    ollama = unit(tmp_path, "[Service]\nExecStart=/usr/local/bin/ollama serve\n", "ollama.service")
    assert check(str(ollama)).out == (
        f"{ollama}:2:11: CTX008 [info] Ollama serves here (`ollama serve`), an engine ctxlint does not model: this "
        "server is not checked (ctxlint checks vLLM, SGLang, TGI, TensorRT-LLM, llama.cpp and LMDeploy) "
        "(unresolved-value)\n")


def test_bad_units_give_a_located_finding_never_a_crash(tmp_path):
    path = unit(tmp_path, '[Service]\nExecStart=/usr/bin/vllm serve "Qwen/Qwen2.5-7B --max-model-len 8192\n')
    assert check(str(path)).out == (
        f"{path}:2:31: CTX001 [error] ExecStart: a quote opened here is never closed: systemd refuses the command "
        "line, so the engine it names does not start (parse-error)\n")
    binary = tmp_path / "x.service"
    binary.write_bytes(b"vllm\x00\x01")
    assert check(str(binary)).out == (
        f"{binary}:1:1: CTX001 [error] binary file (contains NUL bytes); expected a systemd unit's text "
        "(parse-error)\n")
    for junk in (b"\xff\xfe[Service\nExecStart=vllm \\", b"[Service]\nExecStart=\\x", b"ExecStart=vllm serve '",
                 b"[Service]\nEnvironment='A\nExecStart=/usr/bin/vllm serve $A%"):
        adapt_file(parse_bytes(junk, "j.service"))  # never raises


def test_unit_syntax_continuations_comments_and_quotes():
    text = "[Service]\nExecStart=/bin/a \\\n# skipped\n  b \"c d\" 'e'f \\x41\\s\n"
    found = directives(text)
    # the backslash is a space, the comment line skipped, the continued line's indentation stripped
    assert [(d.section, d.key, d.value) for d in found] == [("Service", "ExecStart", "/bin/a  b \"c d\" 'e'f \\x41\\s")]
    words, open_at = split_words(found[0].value, found[0].offsets, text)
    assert ([w.text for w in words], open_at) == (["/bin/a", "b", "c d", "ef", "A "], None)
    assert text[words[2].offsets[0]] == "c"


def test_a_yaml_check_does_not_import_the_unit_adapter(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    code = ("import sys; from ctxlint.cli import main\n"
            f"try:\n    main(['check', '--isolated', {str(path)!r}])\nexcept SystemExit:\n    pass\n"
            "assert not any('systemd' in m for m in sys.modules), sorted(m for m in sys.modules if 'systemd' in m)")
    import subprocess
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).returncode == 0


@pytest.mark.parametrize("name", ["vllm.service", "sub/llama-server.service"])
def test_directory_discovery_lists_units(tmp_path, name):
    from ctxlint.discover import discover

    target = tmp_path / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("[Service]\nExecStart=/bin/true\n")
    assert discover([str(tmp_path)]) == [str(target)]
