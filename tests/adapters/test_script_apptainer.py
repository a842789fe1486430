"""`apptainer exec [opts] IMAGE bash -c "..."` (and singularity) in a batch script: the script the container's
shell runs is read (sweep 43: a gpt-oss-120b server behind `apptainer exec --nv --cleanenv ... bash -lc` gave no
deployment), with `--cleanenv` keeping the host script's variables out of it (only `--env` passes them)."""
from __future__ import annotations

import pytest

from helpers import run

HEAD = "#!/bin/bash\n#SBATCH --gres=gpu:h100:1\nexport LEN=32768\n"  # exported: the host environment
CTX008 = ("CTX008 [info] values ctxlint cannot resolve: --max-model-len ${LEN} (LEN is not set in the file); the "
          "checks that need them are skipped (set them literally) (unresolved-value)")


def audit(path) -> list[str]:
    rows = run(["audit", "--isolated", "--format", "csv", str(path)]).out.splitlines()[1:]
    return [",".join(row.split(",")[3:15]) for row in rows]


@pytest.mark.parametrize("launch, expected", [
    # without --cleanenv the container gets the host's environment: the script's LEN
    ("apptainer exec --nv img.sif bash -lc 'vllm serve Qwen/Qwen3-8B --max-model-len $LEN'",
     "4,vllm,,unified,,32768,358544,derived,,,10.9414,fits"),
    ("singularity exec -B /d:/d --nv img.sif sh -c 'vllm serve Qwen/Qwen3-8B --max-model-len $LEN'",
     "4,vllm,,unified,,32768,358544,derived,,,10.9414,fits"),
    # a double-quoted script: the host's shell expands $LEN before apptainer runs, --cleanenv or not
    ('apptainer exec --nv --cleanenv img.sif bash -lc "vllm serve Qwen/Qwen3-8B --max-model-len $LEN"',
     "4,vllm,,unified,,32768,358544,derived,,,10.9414,fits"),
    ("apptainer exec --nv --cleanenv --env LEN=32768 img.sif bash -lc 'vllm serve Qwen/Qwen3-8B --max-model-len $LEN'",
     "4,vllm,,unified,,32768,358544,derived,,,10.9414,fits"),
])
def test_the_container_shell_script_is_read(tmp_path, launch, expected):
    path = tmp_path / "serve.sbatch"
    path.write_text(HEAD + launch + "\n")
    assert audit(path) == [expected]


def test_cleanenv_keeps_the_script_variables_out(tmp_path):
    path = tmp_path / "serve.sbatch"
    path.write_text(HEAD + "apptainer exec --nv --cleanenv img.sif bash -lc "
                           "'vllm serve Qwen/Qwen3-8B --max-model-len $LEN'\n")
    assert run(["check", "--isolated", "-q", str(path)]).out == f"{path}:4:91: {CTX008}\n"
    # a host variable APPTAINERENV_LEN is the container's LEN
    path.write_text(HEAD + "export APPTAINERENV_LEN=$LEN\napptainer exec --nv --cleanenv img.sif bash -lc "
                           "'vllm serve Qwen/Qwen3-8B --max-model-len $LEN'\n")
    assert audit(path) == ["5,vllm,,unified,,32768,358544,derived,,,10.9414,fits"]


def test_apptainer_run_of_an_unknown_runscript_is_said(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\napptainer run --nv vllm.sif --model Qwen/Qwen3-8B --max-model-len 32768\n"
                    "apptainer run --nv vllm.sif python train.py\n")
    assert run(["check", "--isolated", "-q", str(path)]).out == (
        f"{path}:2:20: CTX008 [info] `apptainer run` runs the image's runscript, which ctxlint does not read, so "
        "--model, --max-model-len are not read as any engine's flags and this launch is not checked; state the "
        "program (`apptainer exec IMAGE vllm serve ...`) (unresolved-value)\n")
