"""An unresolved SGLang --attn-dp-size / --attn-cp-size: they divide the attention TP (physics/served.
kv_tensor_parallel), so the memory one GPU needs is not known, and a larger one puts more on each GPU."""
from __future__ import annotations

from helpers import run

LAUNCH = ("python -m sglang.launch_server --model-path meta-llama/Llama-3.1-70B-Instruct --context-length 131072 "
          "--tp 8 {flag} $N\n")


FIRST = ("{path}:2:1: CTX208 [info] KV pool of unified not declared and not derivable: no accelerator type is given, "
         "and the {words} size is stated but not known (CTX008 names it): the memory one GPU needs depends on it; at "
         "TP 8 one request of 131,072 tokens would need >= 31.2 (band 26.6-32.1) GiB on its one GPU (the weights, "
         "the KV cache and the engine's own memory), which a larger size puts more of on each GPU (it narrows the "
         "attention's tensor-parallel split), so no need per GPU and no device verdict is given; state the size "
         "literally, and the device; capacity checks skip these roles (capacity-not-derivable)")


def test_an_unknown_attention_split_gives_no_per_gpu_need(tmp_path):
    path = tmp_path / "serve.sh"
    for flag, words in (("--attn-dp-size", "attention data-parallel"), ("--attn-cp-size",
                                                                        "attention context-parallel")):
        path.write_text("#!/bin/bash\n" + LAUNCH.format(flag=flag))
        out = run(["check", "--isolated", "-q", str(path)]).out
        first = out.splitlines()[0]
        assert first == FIRST.format(path=path, words=words), first
