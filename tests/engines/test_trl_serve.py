"""TRL's vLLM server for online RL: `trl vllm-serve` and `python -m trl.scripts.vllm_serve` (huggingface/trl@
f2cd57710ae345ea6428ae95363267fcf38a3dc8:trl/scripts/vllm_serve.py). Sweep c32 met it in RL repositories'
launch scripts, where it was no deployment at all: gardan4/GRPO-for-SCRUM@HEAD:start_vllm_server.sh
(`CUDA_VISIBLE_DEVICES=2,3 python -m trl.scripts.vllm_serve --model ... --tensor-parallel-size 2
--data-parallel-size 1`), Zityuen/open-r1-coderm:slurm/train.slurm (`srun ... trl vllm-serve --model $MODEL
--tensor_parallel_size $TP --data_parallel_size $DP &`)."""
from __future__ import annotations

import json

import pytest

from helpers import run

from ctxlint.physics.vllm_batch import batch_defaults
from ctxlint.physics.terms import GIB
from tests.engines.test_parse import parse_shell

MODULE = "python -m trl.scripts.vllm_serve"


@pytest.mark.parametrize("launch", [MODULE, "trl vllm-serve", "CUDA_VISIBLE_DEVICES=0 /usr/bin/python3 -u -m "
                                    "trl.scripts.vllm_serve"])
def test_both_front_doors_are_vllm_through_trl(launch):
    inv, _, _ = parse_shell(f"{launch} --model Qwen/Qwen2.5-7B --tensor_parallel_size 2 --data-parallel-size 2 "
                            "--max_model_len 4608 --gpu-memory-utilization 0.85")
    assert (inv.engine, inv.launcher, inv.model.value, inv.value("tensor_parallel_size"),
            inv.value("data_parallel_size"), inv.value("max_model_len"),
            inv.value("gpu_memory_utilization")) == ("vllm", "trl vllm-serve", "Qwen/Qwen2.5-7B", 2, 2, 4608, 0.85)
    assert not inv.errors and not inv.unknown_flags


def test_trl_passes_its_own_defaults_to_the_llm_class():
    # ScriptArguments: gpu_memory_utilization 0.9 is passed to LLM(...) whatever vLLM's own default; max_model_len
    # None (the model's)
    inv, _, _ = parse_shell(f"{MODULE} --model m")
    assert (inv.value("gpu_memory_utilization"), inv.value("max_model_len"), inv.value("enforce_eager"),
            inv.value("usage_context")) == (0.9, None, False, "llm_class")


@pytest.mark.parametrize("words,value", [("--enforce_eager", True), ("--enforce_eager true", True),
                                         ("--enforce-eager false", False), ("--enable_prefix_caching True", True)])
def test_a_bool_field_takes_an_optional_value(words, value):
    # HfArgumentParser: `type=string_to_bool, nargs="?", const=True`
    inv, _, _ = parse_shell(f"{MODULE} {words} --model m")
    name = words.split()[0][2:].replace("-", "_")
    assert inv.value(name) is value and inv.model.value == "m" and not inv.errors


@pytest.mark.parametrize("word,value", [("t", True), ("Y", True), ("f", False), ("N", False), ("on", None),
                                        ("enabled", None), ("off", None)])
def test_bool_values_are_read_as_string_to_bool_reads_them(word, value):
    # transformers' string_to_bool: yes/no, true/false, t/f, y/n, 1/0, case aside; anything else exits
    inv, _, _ = parse_shell(f"{MODULE} --model m --enforce_eager {word} --trust_remote_code {word}")
    assert (inv.value("enforce_eager"), inv.value("trust_remote_code")) == (value, value)
    assert len(inv.errors) == (2 if value is None else 0)
    assert all("invalid boolean value" in e.message for e in inv.errors)


@pytest.mark.parametrize("words", ["--enable_prefix_caching --model m", "--model m --enable-prefix-caching"])
def test_enable_prefix_caching_needs_its_value(words):
    # `enable_prefix_caching: bool | None = None`: HfArgumentParser sets nargs "?" and const only for a bool field
    # whose default is not None, so this one takes exactly one value and TRL exits on the bare switch
    inv, _, _ = parse_shell(f"{MODULE} {words}")
    assert [(e.flag, e.message) for e in inv.errors] == [
        ("enable_prefix_caching", f"argument {words.split()[0] if 'enable' in words.split()[0] else words.split()[-1]}: "
                                  "expected one argument")]
    assert inv.model.value == "m"


def test_a_vllm_flag_trl_does_not_have_stops_the_server():
    # TrlParser.parse_args_and_config raises "Some specified arguments are not used by the HfArgumentParser"
    inv, _, _ = parse_shell(f"{MODULE} --model m --max-num-seqs 64 --max_model_len 4096")
    assert [(e.flag, e.message.split(" (")[0]) for e in inv.errors] == [
        ("--max-num-seqs", "unrecognized argument --max-num-seqs")]
    assert inv.value("max_num_seqs") is None and inv.value("max_model_len") == 4096
    # `vllm serve` reads the same flag
    inv, _, _ = parse_shell("vllm serve m --max-num-seqs 64")
    assert inv.value("max_num_seqs") == 64 and not inv.errors


def test_no_positional_model():
    inv, _, _ = parse_shell(f"{MODULE} Qwen/Qwen2.5-7B")
    assert inv.model is None or inv.model.value is None


@pytest.mark.parametrize("words,refused", [("Qwen/Qwen2.5-7B --max_model_len 4096", "Qwen/Qwen2.5-7B"),
                                           ("--model m -tp 2", "-tp"), ("--model m -- extra", "extra")])
def test_a_word_no_field_takes_stops_the_server(words, refused):
    # ScriptArguments has no positional field and no short option: the model named as `vllm serve` names it, or
    # vLLM's `-tp`, is left unparsed and TrlParser raises (or argparse says --model is required)
    inv, _, _ = parse_shell(f"{MODULE} {words}")
    assert [e.message.split(" (")[0] for e in inv.errors] == [f"unrecognized argument {refused}"]


def test_a_negative_number_is_a_value_not_a_word():
    inv, _, _ = parse_shell(f"{MODULE} --model m --port -1")
    assert not inv.errors and inv.value("port") == -1


def test_the_llm_class_batch_defaults():
    # get_batch_defaults: LLM_CLASS 16384 where the server takes 8192 or 16384, 8192 where it takes 2048
    assert batch_defaults(48 * GIB, "L40S", "0.10.0", False, True) == ((8192, 256),)
    assert batch_defaults(48 * GIB, "L40S", "0.10.0", False) == ((2048, 256),)
    assert batch_defaults(80 * GIB, "H100", "0.10.0", False, True) == ((16384, 1024),)
    assert batch_defaults(80 * GIB, "A100-SXM4-80GB", "0.10.0", False, True) == ((8192, 256),)
    assert batch_defaults(180 * GIB, "B200", "0.28.0", False, True) == ((16384, 1024),)
    assert batch_defaults(80 * GIB, "H100", "0.8.4", False, True) == ((16384, 1024),)  # the name rule
    assert batch_defaults(48 * GIB, "L40S", None, False, True) == ((8192, 256),)


SCRIPT = """#!/bin/bash
#SBATCH --gres=gpu:l40s:1
{launch} --model Qwen/Qwen2.5-7B-Instruct --max_model_len 32768
"""


def _pool(tmp_path, launch: str) -> int:
    path = tmp_path / "serve.sh"
    path.write_text(SCRIPT.format(launch=launch))
    [dep] = json.loads(run(["audit", "--format", "json", str(path)]).out)["deployments"]
    assert dep["verdict"] == "fits"
    return dep["decode_pool"]["tokens"] if dep["decode_pool"] else dep["prefill_pool"]["tokens"]


def test_the_pool_is_the_llm_class_one(tmp_path):
    # the same settings through vLLM's OpenAI server profile 2048 tokens on an L40S, TRL's LLM 8192: a larger
    # activation peak, a smaller pool
    trl = _pool(tmp_path, MODULE)
    server = _pool(tmp_path, "python -m vllm.entrypoints.openai.api_server --gpu-memory-utilization 0.9")
    assert trl < server


def test_a_script_flag_trl_lacks_is_an_error_at_the_flag(tmp_path):
    path = tmp_path / "serve.sh"
    path.write_text("trl vllm-serve --model Qwen/Qwen2.5-7B-Instruct --max-num-seqs 64\n")
    found = json.loads(run(["check", "--format", "json", str(path)]).out)["findings"]
    [err] = [f for f in found if f["severity"] == "error"]
    assert (err["rule"], err["line"], err["column"]) == ("CTX301", 1, 49)
    assert "--max-num-seqs" in err["message"]


def test_the_config_file_gives_the_fields_defaults(tmp_path):
    # TrlParser pops `--config PATH`: the YAML keys are the fields' defaults, the command line wins
    (tmp_path / "trl.yaml").write_text("model: Qwen/Qwen2.5-7B-Instruct\nmax_model_len: 4096\n")
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n#SBATCH --gres=gpu:l40s:1\ntrl vllm-serve --config trl.yaml\n")
    result = json.loads(run(["audit", "--format", "json", str(path)]).out)
    [dep] = result["deployments"]
    assert (dep["model"], dep["engine_context"], dep["verdict"]) == ("Qwen/Qwen2.5-7B-Instruct", 4096, "fits")
    assert not [f for f in json.loads(run(["check", "--format", "json", str(path)]).out)["findings"]
                if f["severity"] == "error"]


def test_window_layers_hold_the_llm_class_span():
    # vLLM keeps window - 1 + max_num_batched_tokens tokens of a sliding-window layer a request: unset, the LLM
    # class's 8192 where the OpenAI server's small tier is 2048
    from ctxlint.physics import model_side
    from ctxlint.physics.models import lookup_model

    arch = lookup_model("google/gemma-3-27b-it")
    sides = [model_side._model_side(("vllm", arch, 1, 1, 1, "auto", 0, settings, None, 32768, "0.10.0"))
             for settings in ({}, {"usage_context": "llm_class"})]
    assert [side.mnbt for side in sides] == [2048, 8192]
    assert sides[0].br.bounded_bytes_per_request < sides[1].br.bounded_bytes_per_request


@pytest.mark.parametrize("key,hint", [("max-model-len", "(TRL reads `max_model_len`)"), ("max_num_seqs", "")])
def test_a_config_key_that_is_no_field_name_is_refused_and_not_read(tmp_path, key, hint):
    # TrlParser.set_defaults_with_config sets the default of the action whose dest is the key (the field's own
    # name) and raises "Unknown arguments from config file" on any other key (TRL 0.19.0 on; before, dropped):
    # either way `max-model-len: 4096` never reaches the engine
    (tmp_path / "trl.yaml").write_text(f"model: Qwen/Qwen2.5-7B-Instruct\n{key}: 4096\nenv:\n  A: '1'\n")
    path = tmp_path / "serve.sh"
    path.write_text("#!/bin/bash\n#SBATCH --gres=gpu:l40s:1\ntrl vllm-serve --config trl.yaml\n")
    [dep] = json.loads(run(["audit", "--format", "json", str(path)]).out)["deployments"]
    assert dep["engine_context"] == 32768  # the model's own window: no key set max_model_len
    found = json.loads(run(["check", "--format", "json", str(path)]).out)["findings"]
    [err] = [f for f in found if f["severity"] == "error"]
    assert (err["rule"], err["file"].endswith("trl.yaml"), err["line"]) == ("CTX301", True, 2)
    assert f"{key}: unknown argument from the config file{hint and ' ' + hint}:" in err["message"]


@pytest.mark.parametrize("words,typed", [("--config=trl.yaml", "--config=trl.yaml"), ("--conf trl.yaml", "--conf")])
def test_the_config_file_is_read_only_from_the_word_config(words, typed):
    # TrlParser pops `--config PATH` by args.index("--config"): `--config=PATH` or an abbreviation reaches
    # HfArgumentParser, which has no such option and raises; the file is never read
    inv, _, _ = parse_shell(f"{MODULE} --model m {words}")
    assert [(e.flag, e.message.split(" (")[0]) for e in inv.errors] == [("config", f"unrecognized argument {typed}")]
    assert inv.config_file is None
    inv, _, _ = parse_shell(f"{MODULE} --model m --config trl.yaml")
    assert not inv.errors and inv.config_file.value == "trl.yaml"


@pytest.mark.parametrize("word,read", [("--tensor", None), ("--max", None), ("--tensor_par", 2), ("--max-model", 2)])
def test_an_abbreviation_of_both_spellings_is_ambiguous(word, read):
    # argparse counts the option strings a prefix matches (`_get_option_tuples`), and HfArgumentParser gives each
    # field two: `--tensor` matches --tensor_parallel_size and --tensor-parallel-size, and argparse exits
    inv, _, _ = parse_shell(f"{MODULE} --model m {word} 2")
    name = "tensor_parallel_size" if word.startswith("--tensor") else "max_model_len"
    assert inv.value(name) == (read if read is not None else (1 if name == "tensor_parallel_size" else None))
    assert [e.message.split(" could")[0] for e in inv.errors] == (
        [] if read else [f"argument {word}: ambiguous option: {word}"])


def test_a_logged_pool_holds_the_llm_class_span_in_window_layers():
    # a logged pool of a sliding-window model: each window group keeps window - 1 + max_num_batched_tokens tokens
    # of a request, and TRL's LLM class batches 8192 unset where the OpenAI server batches 2048 (on an L40S)
    from ctxlint.physics.accelerators import lookup_accelerator
    from ctxlint.physics.logged import read_logged
    from ctxlint.physics.models import lookup_model

    arch, device = lookup_model("google/gemma-3-27b-it"), lookup_accelerator("L40S")
    server, trl = (read_logged(200_000, 16, arch, 0, settings, 32768, "0.10.0", device, None)
                   for settings in ({}, {"usage_context": "llm_class"}))
    assert [w.batch for w in server.ways] == [2048] and [w.batch for w in trl.ways] == [8192]
    assert trl.held < server.held


@pytest.mark.parametrize("words,refused", [("--max_model_len 4096", True), ("", True), ("--config trl.yaml", False),
                                           ('"$@"', False), ("--model $M", False)])
def test_model_is_required(words, refused):
    # ScriptArguments.model has no default: argparse exits without --model unless a --config file sets it
    inv, _, _ = parse_shell(f"{MODULE} {words}".strip()) if words else parse_shell(MODULE)
    assert [e.message.split(" (")[0] for e in inv.errors] == (
        ["the following arguments are required: --model"] if refused else [])
