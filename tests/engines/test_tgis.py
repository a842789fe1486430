"""OpenShift AI's TGIS runtimes: `python -m vllm_tgis_adapter` (vLLM behind TGIS's gRPC API) and IBM's TGIS
launcher, which shares Hugging Face TGI's program name but not its flags (sweep 48, red-hat-data-services/ods-ci)."""
from __future__ import annotations

import pytest

from ctxlint.engines.images import engine_from_image, image_entrypoint_is_engine
from tests.engines.test_parse import parse_shell

ADAPTER = "python3 -m vllm_tgis_adapter"


def test_the_adapter_is_vllm_with_all_its_flags():
    inv, _, _ = parse_shell(f"{ADAPTER} --model=meta-llama/Llama-3.1-8B-Instruct --max-model-len=65536 -tp 2")
    assert (inv.engine, inv.launcher, inv.value("model"), inv.value("max_model_len"),
            inv.value("tensor_parallel_size")) == ("vllm", "vllm_tgis_adapter", "meta-llama/Llama-3.1-8B-Instruct",
                                                   65536, 2)
    assert not inv.errors and not inv.unknown_flags


def test_tgis_spellings_are_vllm_settings():
    # postprocess_tgis_args: --model-name replaces --model, --max-sequence-length is --max-model-len,
    # --num-gpus / --num-shard the tensor parallel size; --max-batch-size is ignored
    inv, _, _ = parse_shell(f"{ADAPTER} --model old --model-name m --max-sequence-length 4096 --num-shard 2 "
                            "--max-batch-size 64 --grpc-port 8033")
    assert (inv.model.value, inv.value("max_model_len"), inv.value("tensor_parallel_size")) == ("m", 4096, 2)
    assert inv.settings["max_model_len"].flag_spelling == "--max-sequence-length"
    assert inv.value("max_num_seqs") is None and not inv.errors and not inv.unknown_flags


def test_every_argument_falls_back_to_its_env_var():
    env = {"MODEL_NAME": "m", "MAX_MODEL_LEN": "8k", "NUM_GPUS": "4", "GPU_MEMORY_UTILIZATION": "0.8",
           "MAX_NUM_SEQS": ""}  # an empty var is no value (`if not env_val: return`)
    inv, _, _ = parse_shell(ADAPTER, env=env)
    assert (inv.model.value, inv.value("max_model_len"), inv.value("tensor_parallel_size"),
            inv.value("gpu_memory_utilization"), inv.value("max_num_seqs")) == ("m", 8000, 4, 0.8, None)
    assert inv.settings["max_model_len"].origin == "env" and not inv.errors and not inv.unresolved
    # the command line wins
    inv, _, _ = parse_shell(f"{ADAPTER} --max-model-len 4096", env=env)
    assert inv.value("max_model_len") == 4096
    # the fallback is the adapter's: vLLM's own server reads no MAX_MODEL_LEN
    inv, _, _ = parse_shell("vllm serve m", env=env)
    assert inv.value("max_model_len") is None


@pytest.mark.parametrize("line,message", [
    ("--max-model-len 4096 --max-sequence-length 8192", "--max-sequence-length 8192 and --max-model-len 4096 "
     "differ: the adapter exits (\"Inconsistent max_model_len and max_sequence_length arg values\")"),
    ("--num-gpus 2 --num-shard 4", "--num-gpus 2 and --num-shard 4 differ: the adapter exits "
     "(\"Inconsistent num_gpus and num_shard arg values\")"),
    ("--tensor-parallel-size 4 --num-gpus 2", "--tensor-parallel-size 4 and --num-gpus 2 differ: the adapter exits "
     "(\"Inconsistent tensor_parallel_size and num_gpus/num_shard arg values\")"),
])
def test_inconsistent_spellings_stop_the_adapter(line, message):
    inv, _, _ = parse_shell(f"{ADAPTER} --model m {line}")
    assert [e.message for e in inv.errors] == [message]


def test_tensor_parallel_one_gives_way_to_num_gpus():
    inv, _, _ = parse_shell(f"{ADAPTER} --model m --tensor-parallel-size 1 --num-gpus 2", env={"MAX_MODEL_LEN": ""})
    assert inv.value("tensor_parallel_size") == 2 and not inv.errors


def test_ibm_tgis_is_known_by_its_flags():
    inv, _, _ = parse_shell("text-generation-launcher --model-name=meta-llama/Llama-3.1-8B-Instruct "
                            "--max-sequence-length=65536 --num-shard 2 --port=3000")
    assert (inv.engine, inv.model.value, inv.value("max_sequence_length"), inv.value("num_shard"),
            inv.value("max_batch_size")) == ("tgis", "meta-llama/Llama-3.1-8B-Instruct", 65536, 2, 12)
    assert not inv.errors and not inv.unknown_flags
    inv, _, _ = parse_shell("text-generation-launcher --model-id m --max-total-tokens 4096")  # Hugging Face's
    assert (inv.engine, inv.value("max_total_tokens")) == ("tgi", 4096)


def test_ibm_tgis_is_known_by_its_image_and_reads_its_env():
    env = {"MODEL_NAME": "m", "MAX_SEQUENCE_LENGTH": "4096", "NUM_GPUS": "2"}
    inv, _, _ = parse_shell("text-generation-launcher", env=env,
                            image="quay.io/modh/text-generation-inference:rhoai-2.8")
    assert (inv.engine, inv.model.value, inv.value("max_sequence_length"), inv.value("num_shard")) == \
        ("tgis", "m", 4096, 2)
    assert engine_from_image("quay.io/opendatahub/text-generation-inference:fast") == ("tgis", None)
    # its Dockerfile's `CMD text-generation-launcher`: no ENTRYPOINT, so bare arguments do not start it
    assert not image_entrypoint_is_engine("quay.io/modh/text-generation-inference@sha256:" + "a" * 64)
    assert engine_from_image("ghcr.io/huggingface/text-generation-inference:2.4.0") == ("tgi", "2.4.0")
