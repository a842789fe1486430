"""IBM TGIS launcher flags (`text-generation-launcher` of IBM/text-generation-inference, OpenShift AI's TGIS).

IBM forked Hugging Face's TGI in 2022 and kept the launcher's name, so the program does not tell the two apart;
its arguments do. Source: IBM/text-generation-inference@006006d7974604558665d48a81ff2b1d1d8f9537:
launcher/src/main.rs (`struct Args`: every field `#[clap(long, env)]`, so each flag is also read from its
SCREAMING_CASE env var, the command line winning; integers are clap `usize`). The context length is
`max_sequence_length`: as given, else the model's config.json length (max_position_embeddings, n_positions,
max_seq_len, seq_length, max_sequence_length, max_seq_length, seq_len: `get_max_sequence_length`), else 2048.
The shard count is `--num-shard`, else the NUM_GPUS env var (both set and different: a panic), else the
visible CUDA devices, else 1 (`find_num_shards`). Its KV-cache memory rules are not modelled: the pool is
not derived (capacity_notes says so).
"""
from __future__ import annotations

from .flagspec import EngineSpec, F

CTX, MEM, PAR, SCHED, MODEL = "context", "memory", "parallel", "scheduler", "model"

_ROWS = (
    F("model_name", "--model-name", default="bigscience/bloom-560m", tags=MODEL),
    F("revision", "--revision", tags=MODEL),
    F("deployment_framework", "--deployment-framework", default="hf_transformers"),
    F("dtype", "--dtype"), F("dtype_str", "--dtype-str"),
    F("quantize", "--quantize", tags=MODEL),
    F("num_shard", "--num-shard", kind="int", tags=PAR),
    F("max_concurrent_requests", "--max-concurrent-requests", kind="int", default=512, tags=SCHED),
    F("max_sequence_length", "--max-sequence-length", kind="int", tags=CTX),
    F("max_new_tokens", "--max-new-tokens", kind="int", default=1024, doc="the output cap of one request"),
    F("max_batch_size", "--max-batch-size", kind="int", default=12, tags=SCHED),
    F("max_prefill_padding", "--max-prefill-padding", kind="float", default=0.2, tags=SCHED),
    F("batch_safety_margin", "--batch-safety-margin", kind="int", default=20, tags=SCHED),
    F("max_waiting_tokens", "--max-waiting-tokens", kind="int", default=24, tags=SCHED),
    F("port", "--port", "-p", kind="int", default=3000),
    F("grpc_port", "--grpc-port", "-g", kind="int", default=8033),
    F("shard_uds_path", "--shard-uds-path"), F("master_addr", "--master-addr"),
    F("master_port", "--master-port", kind="int"),
    F("json_output", "--json-output", kind="bool"),
    F("tls_cert_path", "--tls-cert-path"), F("tls_key_path", "--tls-key-path"),
    F("tls_client_ca_cert_path", "--tls-client-ca-cert-path"),
    F("output_special_tokens", "--output-special-tokens", kind="bool"),
    F("cuda_process_memory_fraction", "--cuda-process-memory-fraction", "-c", kind="float", default=1.0, tags=MEM),
    # `action = clap::ArgAction::Set`: takes true / false
    F("default_include_stop_seqs", "--default-include-stop-seqs", kind="bool", takes="one"),
    F("otlp_endpoint", "--otlp-endpoint"), F("otlp_service_name", "--otlp-service-name"),
)
# NUM_GPUS is read by find_num_shards, not by clap: after NUM_SHARD, the shard count when no flag sets it
FLAGS = tuple(F(f.name, *f.spellings, kind=f.kind, default=f.default, takes=f.takes, choices=f.choices,
                env=(f.name.upper(),) + (("NUM_GPUS",) if f.name == "num_shard" else ()), tags=f.tags, doc=f.doc)
              for f in _ROWS)

SPEC_ = EngineSpec("tgis", FLAGS, int_rule="clap", float_rule="clap", env_prefix_all=True)

# Flags Hugging Face's launcher never had (`git log -S` over huggingface/text-generation-inference launcher/ finds
# none of them; its Args at @db931fcf42da018a3657580c64bf2720f167f9ab:launcher/src/main.rs has none), so a
# `text-generation-launcher` given one is TGIS. `--model-name` too: HF's launcher named its model so only in
# v0.1 (renamed `--model-id` in @20c3c5940c6af1ceb50a8b4c713443690a148190, v0.2.0, February 2023) and refuses it since.
MARKERS = frozenset({
    "--model-name", "--max-sequence-length", "--deployment-framework", "--dtype-str", "--max-new-tokens",
    "--max-prefill-padding", "--batch-safety-margin", "--grpc-port", "--tls-cert-path", "--tls-key-path",
    "--tls-client-ca-cert-path", "--output-special-tokens", "--cuda-process-memory-fraction",
    "--default-include-stop-seqs"})
