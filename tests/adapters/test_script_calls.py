"""A launch script that runs another script file with arguments (sweep of launch scripts: realtmxi/local-deployment's
Slurm jobs set MODEL_PATH and TP_SIZE under `#SBATCH --gres=gpu:nvidia_h200:4` and run `bash service.sh $MODEL_PATH
$PORT $TP_SIZE`, whose SGLang line reads "$1" and "$3"): the callee is read with the caller's words as its "$@", the
caller's header and exported variables, and is then no deployment of its own."""
from __future__ import annotations

from helpers import run

SERVE = '#!/bin/bash\nvllm serve "$1" --tensor-parallel-size "$2" --max-model-len "${MAX_LEN:-32768}"\n'


def check(*paths) -> str:
    return run(["check", "--isolated", "-q", *map(str, paths)]).out


def audit(path) -> list:
    head, *rows = run(["audit", "--isolated", "--format", "csv", str(path)]).out.splitlines()
    keys = head.split(",")
    return [dict(zip(keys, row.split(","))) for row in rows]


def job(tmp_path, call: str, header: str = "#SBATCH --gres=gpu:h100:2\n", before: str = ""):
    (tmp_path / "serve.sh").write_text(SERVE)
    path = tmp_path / "job.sh"
    path.write_text(f"#!/bin/bash\n{header}M=Qwen/Qwen2.5-7B-Instruct\n{before}{call}\n")
    return path


def test_the_callee_runs_with_the_callers_words_and_header(tmp_path):
    path = job(tmp_path, "bash ./serve.sh $M 4")
    assert check(tmp_path) == (
        f"{path}:4:6: CTX204 [error] 4 > 2: the unified engine needs tensor x pipeline x data = 4 GPUs but a replica "
        "has 2. Lower the parallel sizes or raise the accelerator count (parallelism-mismatch)\n")
    # one deployment, the job's: serve.sh read alone ("no model id") is no deployment of its own
    rows = audit(tmp_path)
    assert [(r["file"].rsplit("/", 1)[-1], r["model"]) for r in rows] == [("job.sh", "Qwen/Qwen2.5-7B-Instruct")]
    job(tmp_path, "./serve.sh $M 2")
    assert [r["verdict"] for r in audit(tmp_path)] == ["fits"]  # was "unknown": model not resolved


def test_only_exported_variables_reach_the_callee(tmp_path):
    # MAX_LEN set but not exported stays the caller's: the callee takes its own default (32,768, which fits)
    job(tmp_path, "bash serve.sh $M 2", before="MAX_LEN=1000000\n")
    assert "CTX10" not in check(tmp_path) and "CTX20" not in check(tmp_path)
    job(tmp_path, "bash serve.sh $M 2", before="export MAX_LEN=1000000\n")
    assert "1,000,000" in check(tmp_path)


def test_repository_relative_and_relocated_paths(tmp_path):
    (tmp_path / ".git").mkdir()
    scripts = tmp_path / "production_scripts"
    scripts.mkdir()
    # run from the repository's root, and an absolute path of the same folder on the cluster
    for call in ("bash production_scripts/serve.sh $M 4", 'bash "/n/lab/repo/production_scripts/serve.sh" $M 4'):
        path = job(scripts, call)
        assert "CTX204 [error] 4 > 2" in check(path), call
    # a folder of another name is not this one's: not read
    path = job(scripts, "bash /n/lab/other/serve.sh $M 4")
    assert check(path) == ""
    assert audit(path) == []


def test_a_command_string_and_an_unknown_path_are_not_script_files(tmp_path):
    job(tmp_path, 'bash -c "echo ./serve.sh"\nbash "$DIR/serve.sh" $M 4')
    assert [r["file"].rsplit("/", 1)[-1] for r in audit(tmp_path)] == ["serve.sh"]  # read alone, as before


def test_a_default_of_a_positional_parameter_takes_the_callers_word(tmp_path):
    # `${2:-8192}` in the callee is the caller's second word where it gives one (bash: "If parameter is unset or
    # null, the expansion of word is substituted. Otherwise, the value of parameter is substituted"); it read the
    # default, a false pass of the 250,000 window the job asks for
    (tmp_path / "serve.sh").write_text('#!/bin/bash\nvllm serve "${1:-Qwen/Qwen2.5-7B-Instruct}" '
                                       '--max-model-len "${2:-8192}"\n')
    path = tmp_path / "job.sh"
    for call, window in (("bash serve.sh Qwen/Qwen2.5-7B-Instruct 250000", "250000"),
                         ("bash serve.sh Qwen/Qwen2.5-7B-Instruct", "8192"),  # no second word: the default
                         ('bash serve.sh Qwen/Qwen2.5-7B-Instruct ""', "8192"),  # null: the default too
                         ("bash serve.sh", "8192")):
        path.write_text(f"#!/bin/bash\n#SBATCH --gres=gpu:h100:1\n{call}\n")
        rows = audit(tmp_path)
        assert [(r["model"], r["engine_context"]) for r in rows] == [("Qwen/Qwen2.5-7B-Instruct", window)], call


def test_a_default_of_a_function_argument_takes_the_callers_word(tmp_path):
    path = tmp_path / "job.sh"
    path.write_text('#!/bin/bash\nserve() {\n  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len "${1:-8192}"\n}\n'
                    "serve 250000\n")
    assert [r["engine_context"] for r in audit(tmp_path)] == ["250000"]
    # a caller's own "$@" (none, as the script is run as written) leaves the default as it was read
    path.write_text('#!/bin/bash\nserve() {\n  vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len "${1:-8192}"\n}\n'
                    'serve "$@"\n')
    assert [r["engine_context"] for r in audit(tmp_path)] == ["8192"]


def test_a_call_under_an_if_or_and_keeps_the_callees_own_assignments(tmp_path):
    # unergybot/BestBox@2e41bc50ef09fdfdf3730418acb2417355816d1e scripts/start-all-services.sh runs
    # `./scripts/start-llm-strix.sh &` in an `elif lspci | grep -qi ...` branch; the callee sets CONTEXT_SIZE=8192 on
    # a line of its own and passes it to llama-server's -c. The caller's open `if` made the callee's every assignment
    # "a value it does not hold" (CTX008, model and window unknown); the callee is a process of its own, read from its
    # first line.
    (tmp_path / "serve.sh").write_text('#!/bin/bash\nLEN=250000\nvllm serve "$1" --tensor-parallel-size "$2" '
                                       '--max-model-len "$LEN"\n')
    path = tmp_path / "job.sh"
    for call in ('if lspci | grep -qi nvidia; then\n  ./serve.sh Qwen/Qwen2.5-7B-Instruct 2 &\nfi',
                 'if [ -z "$X" ]; then :; elif true; then\n  bash serve.sh Qwen/Qwen2.5-7B-Instruct 2\nfi',
                 'command -v nvidia-smi && bash serve.sh Qwen/Qwen2.5-7B-Instruct 2',
                 'for i in 1; do\n  bash serve.sh Qwen/Qwen2.5-7B-Instruct 2\ndone'):
        path.write_text(f"#!/bin/bash\n#SBATCH --gres=gpu:h100:2\n{call}\n")
        rows = audit(tmp_path)
        assert [(r["model"], r["engine_context"]) for r in rows] == [("Qwen/Qwen2.5-7B-Instruct", "250000")], call
    # what the callee assigns in a branch of its own is still read per branch, and stays in the callee
    (tmp_path / "serve.sh").write_text('#!/bin/bash\nif [ "$2" = 2 ]; then LEN=250000; else LEN=8192; fi\n'
                                       'vllm serve "$1" --tensor-parallel-size "$2" --max-model-len "$LEN"\n')
    path.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:2\nif true; then\n  bash serve.sh "
                    "Qwen/Qwen2.5-7B-Instruct 2\nfi\n"
                    "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len \"${LEN:-4096}\"\n")
    # one deployment of the two commands: the callee's 250,000 its largest window, the caller's own line the
    # smallest, its ${LEN:-4096} the default, as the callee's LEN never reaches the caller
    assert [(r["engine_context"], r["engine_context_max"]) for r in audit(tmp_path)] == [("4096", "250000")]


def test_a_callee_path_below_an_unknown_directory_names_its_folder(tmp_path):
    # start-llm-strix.sh of the same repository sets MODEL_PATH="${HOME}/models/14b/Qwen2.5-14B-Instruct-Q4_K_M.gguf":
    # read alone, the typed folder name is the model (engines/model_folder.py); read through the caller, every
    # character sits at the call's word, and the value was "a value it does not hold" (no model id)
    (tmp_path / "serve.sh").write_text('#!/bin/bash\nMODEL_PATH="${HOME}/models/Qwen2.5-7B-Instruct"\n'
                                       'vllm serve "$MODEL_PATH" --tensor-parallel-size 2 --max-model-len 8192\n')
    path = tmp_path / "job.sh"
    path.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:2\n./serve.sh\n")
    assert [(r["model"], r["verdict"]) for r in audit(tmp_path)] == [
        ("${HOME}/models/Qwen2.5-7B-Instruct", "fits")]
    # a default the caller's sourced file may override, or a value that is a reference alone, names nothing
    for value in ("${MODEL_DIR:-/models/Qwen2.5-7B-Instruct}", "$MODEL_DIR", "$(cat model.txt)"):
        (tmp_path / "serve.sh").write_text(f'#!/bin/bash\nMODEL_PATH="{value}"\n'
                                           'vllm serve "$MODEL_PATH" --tensor-parallel-size 2\n')
        path.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:2\nsource ./env.sh\nset -a\n./serve.sh\n")
        assert [r["model"] for r in audit(tmp_path)] == ["(no model id)"], value


def test_an_export_the_calls_own_branch_makes_reaches_the_callee(tmp_path):
    # a command started inside the `if` that exports (or sets an exported) MAX_LEN gets that value
    # (shell_exports.environment); a script run there is such a command, so its ${MAX_LEN:-32768} is 8192
    for before in ('if [ -n "$A" ]; then\n  export MAX_LEN=8192\n  ',
                   'export MAX_LEN\nif [ -n "$A" ]; then\n  MAX_LEN=8192\n  '):
        path = job(tmp_path, "bash ./serve.sh $M 2\nfi", before=before)
        assert [r["engine_context"] for r in audit(path)] == ["8192"], before
    # an export the call may or may not follow, or made in the other branch, gives no value
    for before, call in (('if [ -n "$A" ]; then export MAX_LEN=8192; fi\n', "bash ./serve.sh $M 2"),
                         ('[ -n "$A" ] && export MAX_LEN=8192\n', "bash ./serve.sh $M 2"),
                         ('export MAX_LEN=4096\nfor i in 1; do MAX_LEN=8192; done\n', "bash ./serve.sh $M 2")):
        path = job(tmp_path, call, before=before)
        assert [r["engine_context"] for r in audit(path)] == [""], before


def test_a_prefix_assignment_of_the_call_is_in_the_callees_environment(tmp_path):
    # `MAX_LEN=8192 bash serve.sh`: bash runs the command with the prefix's assignments added to its environment
    # (bash manual, Environment), so the callee's ${MAX_LEN:-32768} is 8192, not its default
    for call in ("MAX_LEN=8192 bash ./serve.sh $M 2", "env MAX_LEN=8192 ./serve.sh $M 2",
                 "if true; then\n  MAX_LEN=8192 ./serve.sh $M 2\nfi"):
        assert [r["engine_context"] for r in audit(job(tmp_path, call))] == ["8192"], call
    # the caller's own MAX_LEN is untouched after it: its line's default stands (one deployment of the two)
    path = job(tmp_path, "MAX_LEN=8192 bash ./serve.sh $M 2\nvllm serve $M --max-model-len \"${MAX_LEN:-4096}\"")
    assert [(r["engine_context"], r["engine_context_max"]) for r in audit(path)] == [("4096", "8192")]
    # a prefix whose value the script does not give: not the callee's default either
    assert [r["engine_context"] for r in audit(job(tmp_path, "MAX_LEN=$1 bash ./serve.sh $M 2"))] == [""]


def test_the_callers_readonly_names_are_not_readonly_in_the_callee(tmp_path):
    # a new bash process gets no readonly attribute (`readonly L=4096; export L; bash x.sh` where x.sh runs `L=5;
    # echo $L` prints 5, bash 5.2): the callee's own MAX_LEN=8192 holds, exported or not by the caller
    (tmp_path / "serve.sh").write_text('#!/bin/bash\nMAX_LEN=8192\nvllm serve "$1" --tensor-parallel-size "$2" '
                                       '--max-model-len "$MAX_LEN"\n')
    path = tmp_path / "job.sh"
    for before in ("readonly MAX_LEN=4096\n", "readonly MAX_LEN=4096\nexport MAX_LEN\n"):
        path.write_text(f"#!/bin/bash\n#SBATCH --gres=gpu:h100:2\n{before}bash ./serve.sh Qwen/Qwen2.5-7B-Instruct 2\n")
        assert [r["engine_context"] for r in audit(path)] == ["8192"], before


def test_a_callee_command_substitution_with_a_parenthesis_inside_names_no_folder(tmp_path):
    # `$(python -c 'print("/models/NAME")')` is one expansion to its own closing `)`: the `/models/NAME` is inside
    # it, so the value types nothing of its own and names no model, as the callee read alone says; through the
    # caller it was the model '$(python -c ...' with a config.json hint for a folder `NAME")')/`
    value = "$(python -c 'print(\"/models/Qwen2.5-7B-Instruct\")')"
    (tmp_path / "serve.sh").write_text(f'#!/bin/bash\nMODEL_PATH="{value}"\n'
                                       'vllm serve "$MODEL_PATH" --tensor-parallel-size 2 --max-model-len 8192\n')
    path = tmp_path / "job.sh"
    path.write_text("#!/bin/bash\n#SBATCH --gres=gpu:h100:2\n./serve.sh\n")
    assert [r["model"] for r in audit(path)] == ["(no model id)"]
    assert "config.json" not in check(path)
    # a folder typed after a nested substitution is still the model's
    (tmp_path / "serve.sh").write_text('#!/bin/bash\nMODEL_PATH="$(readlink -f $(dirname $0))/Qwen2.5-7B-Instruct"\n'
                                       'vllm serve "$MODEL_PATH" --tensor-parallel-size 2 --max-model-len 8192\n')
    assert [r["verdict"] for r in audit(path)] == ["fits"]
