#!/usr/bin/env bash
# Prefill and decode servers of one model on one 8-GPU host, SGLang PD disaggregation.
# ctxlint reads the engine commands of a launch script as it reads a pod's: the exported
# defaults below are what the servers get when the script runs without an environment.
set -euo pipefail

export MODEL=${MODEL:-meta-llama/Llama-3.1-8B-Instruct}
export CONTEXT=${CONTEXT:-131072}
PREFILL_POOL=65536   # --max-total-tokens: the prefill KV pool, smaller than the context
IB_DEVICE=$1         # the caller's: unknown to ctxlint, and not needed by its checks

CUDA_VISIBLE_DEVICES=0,1,2,3 nohup python3 -m sglang.launch_server \
  --model-path "$MODEL" --context-length "$CONTEXT" \
  --disaggregation-mode prefill --disaggregation-ib-device "$IB_DEVICE" \
  --tp 4 --max-total-tokens $PREFILL_POOL --port 30000 > prefill.log 2>&1 &

CUDA_VISIBLE_DEVICES=4,5,6,7 nohup python3 -m sglang.launch_server \
  --model-path "$MODEL" --context-length "$CONTEXT" \
  --disaggregation-mode decode --disaggregation-ib-device "$IB_DEVICE" \
  --tp 4 --port 30001 > decode.log 2>&1 &

wait
