"""Engine config files named on a command line (`--config`) and held in the checked tree."""
from __future__ import annotations

from helpers import run

CONFIG = """\
model: meta-llama/Llama-3.1-8B-Instruct
max-model-len: 131072
num-gpu-blocks-override: 4096
"""

COMPOSE = """\
services:
  llm:
    image: vllm/vllm-openai:v0.11.0
    command: ["--config", "/etc/vllm/vllm.yaml"]
    volumes:
      - ./vllm.yaml:/etc/vllm/vllm.yaml:ro
"""


def test_compose_bind_mounted_config_is_read_with_positions_in_the_config(tmp_path):
    (tmp_path / "vllm.yaml").write_text(CONFIG)
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    result = run(["check", str(tmp_path / "compose.yaml"), "--select", "CTX201"])
    assert result.code == 1
    assert result.out.startswith(f"{tmp_path / 'vllm.yaml'}:2:16: CTX201 [error] 131,072 > 65,520")


def test_a_bind_mount_written_with_a_compose_default_is_followed(tmp_path):
    # sweep 11 (sergey21000/docker-compose-webui-llm-examples): `${CONFIG_DIR:-../configs}/vllm:/workspace/configs`
    # was no mount ctxlint knew (CTX008 "engine settings in a file this manifest does not hold"); Compose takes the
    # default when the host sets nothing, as it does for the command's `${VAR:-default}`
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "vllm.yaml").write_text(CONFIG)
    (tmp_path / "compose.yaml").write_text(COMPOSE.replace("./vllm.yaml:/etc/vllm/vllm.yaml:ro",
                                                           "${CONFIG_DIR:-./configs}/vllm.yaml:/etc/vllm/vllm.yaml"))
    result = run(["check", str(tmp_path / "compose.yaml"), "--select", "CTX201,CTX008"])
    # 65,536 of declared pool, less vLLM's 16-token null block
    assert result.out.startswith(f"{tmp_path / 'configs' / 'vllm.yaml'}:2:16: CTX201 [error] 131,072 > 65,520")
    # a path only the host's environment names is not followed: still said
    (tmp_path / "compose.yaml").write_text(COMPOSE.replace("./vllm.yaml:/etc", "${CONFIG_DIR}/vllm.yaml:/etc"))
    assert "CTX008" in run(["check", str(tmp_path / "compose.yaml"), "--select", "CTX201,CTX008"]).out


def test_the_model_named_only_in_the_config_file_is_the_model_served(tmp_path):
    # `vllm serve --config c.yaml` takes `model:` from the file when the command names none
    # (vllm/utils/argparse_utils.py _pull_args_from_config, model_in_config)
    import json
    (tmp_path / "vllm.yaml").write_text(CONFIG.replace("num-gpu-blocks-override: 4096\n", ""))
    (tmp_path / "compose.yaml").write_text(COMPOSE)
    [row] = json.loads(run(["audit", str(tmp_path / "compose.yaml"), "--format", "json"]).out)["deployments"]
    assert (row["model"], row["verdict"]) == ("meta-llama/Llama-3.1-8B-Instruct", "needs >= 35.3 GiB/GPU")
    # the command line's model wins over the file's, as in vLLM
    (tmp_path / "compose.yaml").write_text((tmp_path / "compose.yaml").read_text().replace(
        '["--config"', '["--model", "Qwen/Qwen2.5-7B-Instruct", "--config"'))
    [row] = json.loads(run(["audit", str(tmp_path / "compose.yaml"), "--format", "json"]).out)["deployments"]
    assert row["model"] == "Qwen/Qwen2.5-7B-Instruct"


def test_kubernetes_relative_config_beside_the_manifest(tmp_path):
    (tmp_path / "vllm.yaml").write_text(CONFIG.replace("131072", "32768"))
    (tmp_path / "d.yaml").write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--config", "vllm.yaml"]
""")
    result = run(["check", str(tmp_path / "d.yaml"), "--select", "CTX201,CTX008"])
    assert (result.code, result.out) == (0, "")  # 32,768 fits 65,536: read, and nothing unresolved


def test_config_not_in_the_tree_is_named_once_as_unresolved(tmp_path):
    (tmp_path / "d.yaml").write_text("""\
apiVersion: apps/v1
kind: Deployment
metadata: {name: llm}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--config", "/etc/vllm/missing.yaml", "--model", "meta-llama/Llama-3.1-8B-Instruct"]
""")
    result = run(["check", str(tmp_path / "d.yaml"), "--select", "CTX008"])
    assert result.out.count("CTX008") == 1 and "/etc/vllm/missing.yaml" in result.out


TRTLLM = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: trt}
spec:
  template:
    spec:
      containers:
        - name: trt
          image: nvcr.io/nvidia/tensorrt-llm/release:1.0.0
          command: ["/bin/bash", "-c"]
          args:
            - |
              cat <<'EOF' > /tmp/config.yaml
              backend: pytorch
              max_num_tokens: 8192
              EOF
              trtllm-serve serve Qwen/Qwen3-8B --extra_llm_api_options /tmp/config.yaml
"""


def test_a_config_the_script_writes_from_a_here_document_is_read_at_its_lines(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(TRTLLM)
    result = run(["check", str(path), "--select", "CTX308,CTX008"])
    assert result.out.startswith(f"{path}:15:31: CTX308 [error] 40,959 > 8,192: ") and "CTX008" not in result.out
    assert "above max_num_tokens 8,192" in result.out  # the file's value, where it is typed
    # with chunked prefill on in the written file, nothing to say
    path.write_text(TRTLLM.replace("max_num_tokens: 8192", "max_num_tokens: 8192\n              "
                                                            "enable_chunked_prefill: true"))
    assert run(["check", str(path), "--select", "CTX308,CTX008"]).out == ""


def test_an_unread_trtllm_options_file_may_turn_on_chunked_prefill_so_ctx308_waits(tmp_path):
    # the file beats the command line (config_overrides_cli): CTX008 names it, CTX308 does not guess
    path = tmp_path / "d.yaml"
    path.write_text(TRTLLM.replace("cat <<'EOF' > /tmp/config.yaml", "cat <<'EOF' > /tmp/other.yaml"))
    result = run(["check", str(path), "--select", "CTX308,CTX008"])
    assert "CTX308" not in result.out and result.out.count("CTX008") == 1 and "/tmp/config.yaml" in result.out


def test_a_config_value_the_engine_refuses_is_reported_at_its_key_in_the_file(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(TRTLLM.replace("max_num_tokens: 8192", "max_num_tokens: lots"))
    out = run(["check", str(path), "--select", "CTX301"]).out
    assert out.startswith(f"{path}:15:31: CTX301 [error] trtllm would refuse to start: /tmp/config.yaml: "
                          "max_num_tokens:"), out


def test_a_config_path_ctxlint_cannot_resolve_is_settings_not_read(tmp_path):
    # Before: `--extra_llm_api_options $(CFG)` (a Secret's) or `"$ENGINE_ARGS"` (a variable nothing sets) was
    # dropped without a word, and CTX308 judged the engine's defaults the file may override (a false error).
    path = tmp_path / "d.yaml"
    path.write_text(TRTLLM.replace("command: [\"/bin/bash\", \"-c\"]", "command: [trtllm-serve, Qwen/Qwen3-8B, "
                                   "--extra_llm_api_options, $(CFG)]\n          env: [{name: CFG, valueFrom: "
                                   "{secretKeyRef: {name: s, key: k}}}]").split("          args:")[0])
    assert run(["check", str(path), "--select", "CTX308,CTX008"]).out == (
        f"{path}:10:75: CTX008 [info] values ctxlint cannot resolve: --extra_llm_api_options $(CFG) (CFG has no "
        "literal value in the file (secret, config map or host variable)): engine settings in a file ctxlint cannot "
        "name; the checks that need them are skipped (set them literally, or state the limits with ctxlint.io/* "
        "annotations) (unresolved-value)\n")
    script = tmp_path / "agg.sh"
    script.write_text("#!/bin/bash\npython3 -m dynamo.trtllm --model-path Qwen/Qwen3-0.6B --extra-engine-args "
                      "\"$ENGINE_ARGS\" &\nvllm serve Qwen/Qwen3-8B --config \"$CFG\"\n")
    assert run(["check", str(script), "--select", "CTX308,CTX008"]).out == "".join(
        f"{script}:{at}: CTX008 [info] values ctxlint cannot resolve: {what}: engine settings in a file ctxlint "
        "cannot name; the checks that need them are skipped (set them literally) (unresolved-value)\n" for at, what in (
            ("2:76", "--extra-engine-args ${ENGINE_ARGS} (ENGINE_ARGS is not set in the file)"),
            ("3:36", "--config ${CFG} (CFG is not set in the file)")))


def test_a_config_the_script_writes_but_ctxlint_cannot_take_as_written_is_said_so_at_its_line(tmp_path):
    # Before: "--config config.yaml (engine settings in a file this manifest does not hold)", though the script
    # writes it right above the command (sweep 27, InferenceX 70b_fp8_h200_slurm.sh): the reader went looking
    # for a file the script holds.
    script = tmp_path / "bench.sh"
    script.write_text("#!/bin/bash\nLEN=$((ISL + OSL))\ncat > config.yaml << EOF\nmax-model-len: $LEN\nEOF\n"
                      "vllm serve Qwen/Qwen3-8B --config config.yaml\n")
    assert run(["check", str(script), "--select", "CTX008"]).out == (
        f"{script}:6:35: CTX008 [info] values ctxlint cannot resolve: --config config.yaml (written by the "
        "here-document at line 3, whose body has shell expansions (an unquoted delimiter): ctxlint does not take "
        "it as written); the checks that need them are skipped (set them literally) (unresolved-value)\n")
    # in a container's script, the line is the file's (inside the block scalar); each reason in its words
    path = tmp_path / "d.yaml"
    path.write_text(TRTLLM.replace("max_num_tokens: 8192\n              EOF\n",
                                   "max_num_tokens: 8192\n              EOF\n              "
                                   "sed -i s/8192/$N/ /tmp/config.yaml\n"))
    assert run(["check", str(path), "--select", "CTX008"]).out == (
        f"{path}:18:72: CTX008 [info] values ctxlint cannot resolve: --extra_llm_api_options /tmp/config.yaml "
        "(written by the here-document at line 13, which a later command edits: the engine does not read it as "
        "written); the checks that need them are skipped (set them literally, or state the limits with "
        "ctxlint.io/* annotations) (unresolved-value)\n")
    branch = TRTLLM.replace("cat <<'EOF'", "if [ ! -f /tmp/config.yaml ]; then\n              cat <<'EOF'")
    path.write_text(branch.replace("EOF\n              trtllm", "EOF\n              fi\n              trtllm"))
    assert "(written by the here-document at line 14 inside an `if` or a loop, which may not run)" in \
        run(["check", str(path), "--select", "CTX008"]).out
    # a file no here-document writes is still one the manifest does not hold
    script.write_text("#!/bin/bash\ncat > other.yaml << EOF\nmax-model-len: $LEN\nEOF\n"
                      "vllm serve Qwen/Qwen3-8B --config config.yaml\n")
    assert "--config config.yaml (engine settings in a file this manifest does not hold)" in \
        run(["check", str(script), "--select", "CTX008"]).out


TRT_GUIDE = """\
#!/bin/bash
EXTRA_LLM_API_FILE=/tmp/config.yml

cat << EOF > {target}
kv_cache_config:
  dtype: fp8
max_num_tokens: lots
EOF

trtllm-serve nvidia/Llama-3.3-70B-Instruct-FP8 --max_seq_len 2048 --extra_llm_api_options ${{EXTRA_LLM_API_FILE}}
"""


def test_a_here_document_written_to_the_file_a_variable_names_is_that_file(tmp_path):
    # Before: NVIDIA's TensorRT-LLM deployment guides (`cat << EOF > ${EXTRA_LLM_API_FILE}`) gave CTX008 for
    # the file the script writes right above the command, and the pool missed the body's fp8 KV cache.
    script = tmp_path / "guide.sh"
    for target in ("${EXTRA_LLM_API_FILE}", '"$EXTRA_LLM_API_FILE"', "/tmp/config.yml"):
        script.write_text(TRT_GUIDE.format(target=target))
        out = run(["check", str(script), "--select", "CTX008,CTX301,CTX208"]).out
        assert out.startswith(f"{script}:7:17: CTX301 [error] trtllm would refuse to start: /tmp/config.yml: "
                              "max_num_tokens:"), (target, out)
        assert " CTX008 " not in out and "needs >= 80.4 (band 74.5-83.6) GiB per GPU" in out, (target, out)
    # a target the script gives no certain value is a file the manifest does not hold, as before
    script.write_text(TRT_GUIDE.format(target="${OTHER_FILE}"))
    out = run(["check", str(script), "--select", "CTX008,CTX301,CTX208"]).out
    assert " CTX301 " not in out and "needs >= 80.8 (band 74.8-83.9) GiB per GPU" in out  # bf16 KV: more
    assert f"{script}:10:91: CTX008 [info] values ctxlint cannot resolve: --extra_llm_api_options /tmp/config.yml " \
        "(engine settings in a file this manifest does not hold)" in out


def test_a_script_reads_a_config_its_path_names_from_a_folder_above_it(tmp_path):
    # sweep sweepcli (phatvo9/benchmark_gpu tuning/tensorrt_llm/deepseek-r1/mtp/start_config1.sh, run from the
    # repository's root): `--extra_llm_api_options ./tuning/.../trt_bench_mtp.yaml` was CTX008 "engine settings in a
    # file this manifest does not hold", though the file is in the checked tree, from the repository's root
    (tmp_path / "configs").mkdir()
    config = tmp_path / "configs" / "extra.yaml"
    config.write_text("max_num_tokens: 2048\n")
    (tmp_path / "scripts" / "serve").mkdir(parents=True)
    script = tmp_path / "scripts" / "serve" / "run.sh"
    script.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:1\ntrtllm-serve Qwen/Qwen3-8B --backend pytorch \\\n"
                      "    --max_seq_len 4096 --extra_llm_api_options ./configs/extra.yaml\n")
    result = run(["check", "--isolated", str(script), "--select", "CTX308,CTX008"])
    # the file's value, at its key in the file (config_files.script_reader)
    assert (result.code, result.out) == (1, (
        f"{config}:1:17: CTX308 [error] 4,095 > 2,048: the unified role accepts prompts up to 4,095 tokens "
        "(max_seq_len 4,096 minus one output token) but without chunked prefill TensorRT-LLM rejects any prompt "
        "above max_num_tokens 2,048 with HTTP 400 (\"should not exceed max_num_tokens\"). Set enable_chunked_prefill: "
        "true, or raise max_num_tokens to 4,095 (prompt-exceeds-max-num-tokens)\n"))
    # a bare name, or a path that climbs, is looked for beside the script only: still unresolved
    for k, written in enumerate(("extra.yaml", "../configs/extra.yaml")):
        other = tmp_path / "scripts" / "serve" / f"other{k}.sh"
        other.write_text(f"#!/bin/bash\ntrtllm-serve Qwen/Qwen3-8B --extra_llm_api_options {written}\n")
        out = run(["check", "--isolated", str(other), "--select", "CTX008"]).out
        assert out.count("CTX008") == 1 and written in out, out


def test_a_script_reads_no_config_from_above_the_checked_tree(tmp_path, monkeypatch):
    # configs/trt.yaml two folders above the repository ctxlint checks (run from its root, or a .git there) is no
    # file of the script's repository: the path stays unresolved (CTX008) instead of errors in a file outside the tree
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "extra.yaml").write_text("max_num_tokens: 2048\n")
    repo = tmp_path / "work" / "repo"
    (repo / "scripts" / "serve").mkdir(parents=True)
    script = repo / "scripts" / "serve" / "run.sh"
    script.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:1\ntrtllm-serve Qwen/Qwen3-8B --backend pytorch \\\n"
                      "    --max_seq_len 4096 --extra_llm_api_options ./configs/extra.yaml\n")
    monkeypatch.chdir(repo)
    out = run(["check", "--isolated", "scripts/serve/run.sh", "--select", "CTX308,CTX008"]).out
    assert "CTX308" not in out and out.count("CTX008") == 1, out
    monkeypatch.chdir(tmp_path)
    (repo / ".git").mkdir()
    out = run(["check", "--isolated", str(script), "--select", "CTX308,CTX008"]).out
    assert "CTX308" not in out and out.count("CTX008") == 1, out


def test_a_script_run_from_its_own_folder_of_a_repository_reads_the_repositorys_config(tmp_path, monkeypatch):
    # with a repository root (.git) above, the directory ctxlint runs from does not bound the lookup: run from the
    # script's folder (pre-commit in a subfolder, `ctxlint check run.sh`), the config at the root is read as a run
    # from the root reads it (before: CTX008)
    (tmp_path / ".git").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "extra.yaml").write_text("max_num_tokens: 2048\n")
    (tmp_path / "scripts" / "serve").mkdir(parents=True)
    script = tmp_path / "scripts" / "serve" / "run.sh"
    script.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:1\ntrtllm-serve Qwen/Qwen3-8B --backend pytorch \\\n"
                      "    --max_seq_len 4096 --extra_llm_api_options ./configs/extra.yaml\n")
    monkeypatch.chdir(tmp_path / "scripts" / "serve")
    out = run(["check", "--isolated", "run.sh", "--select", "CTX308,CTX008"]).out
    assert "CTX308" in out and "CTX008" not in out, out
