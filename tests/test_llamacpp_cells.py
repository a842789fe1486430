"""llama.cpp -c cells the GPU cannot hold, with nothing to move them off it: CTX209 at the -c value, and the
audit's "KV does not fit" (lint/llamacpp_cells.py; common/fit.cpp at
ggml-org/llama.cpp@6d0892ba065b38ee790b825fdc8fb8e2c453e6dd). Each was "fits" with no finding before."""
from __future__ import annotations

import pytest

from ctxlint.audit import build_audit
from ctxlint.engine import lint_text
from ctxlint.llamacpp_cells import pinned

DEPLOYMENT = """apiVersion: apps/v1
kind: Deployment
metadata: {{name: llama}}
spec:
  template:
    spec:
      containers:
      - name: server
        image: ghcr.io/ggml-org/llama.cpp:server-cuda{tag}
        args: ["-hf", "bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M", "-c", "{ctx}"{extra}, "--port", "8080"]
        resources:
          limits: {{nvidia.com/gpu: {gpus}}}
      nodeSelector: {{nvidia.com/gpu.product: Tesla-T4}}
"""

T4_MESSAGE = (
    "16.00 GiB > 11.29 GiB: llama.cpp allocates all -c 131,072 cells up front, 131,072 cells x 131,072 B = 16.00 GiB "
    "of KV on the GPU, but T4 leaves at most 11.29 GiB for it (estimate 10.19 GiB: its memory less the CUDA context, "
    "the weights (4.53 GiB, less the token embeddings llama.cpp keeps on the CPU) and the compute buffers); -ngl 99 "
    "puts all 32 layers and their KV on the GPU and {why}, so the allocation fails and the server exits. Lower -c to "
    "about 83,200 (92,510 at the most; -c is the total over all -np slots), quantize the KV cache (-ctk q8_0 -ctv "
    "q8_0: 8.50 GiB; V needs flash attention, -fa), leave -ngl unset so --fit can move layers to the CPU (slower), or "
    "use a GPU with more memory")
FIT_OFF = "-fit off moves nothing off it"
USER_SET = ("--fit moves no layers the user placed (\"n_gpu_layers already set by user\": it loads the parameters "
            "as given)")


def _report(extra: str, tag: str = "-b6000", ctx: int = 131072, gpus: int = 1):
    text = DEPLOYMENT.format(tag=tag, ctx=ctx, extra="".join(f', "{word}"' for word in extra.split()), gpus=gpus)
    return lint_text(text, "llama.yaml")


def _cells_findings(report):
    return [f for f in report.findings if f.rule == "CTX209"]


def _verdict(report) -> str:
    (row,) = build_audit(report).rows
    return row.verdict


def test_the_stated_cells_with_every_layer_pinned_are_an_error_at_the_c_value():
    report = _report("-ngl 99 -fit off")
    (f,) = _cells_findings(report)
    assert (f.line, f.column, f.severity) == (10, 82, "error")
    assert f.message == T4_MESSAGE.format(why=FIT_OFF)
    assert _verdict(report) == "KV does not fit"  # was "fits"


def test_fit_on_aborts_when_ngl_is_set_by_the_user():
    # fit.cpp: "n_gpu_layers already set by user to N, abort", caught as a warning: the load goes on as given
    report = _report("-ngl 99", tag="-b11500")
    (f,) = _cells_findings(report)
    assert f.message == T4_MESSAGE.format(why=USER_SET)


def test_a_build_before_fit_needs_no_fit_off():
    (f,) = _cells_findings(_report("-ngl 999", tag="-b6000"))
    assert "-ngl 999 puts all 32 layers and their KV on the GPU and build b6000 predates --fit, which could move " \
           "them, so the allocation fails" in f.message


@pytest.mark.parametrize("extra, tag", [
    ("", "-b11500"),  # default -ngl, fit on: fit moves layers to the CPU, slower but it starts
    ("-ngl -1", "-b11500"),  # -1 is the default (auto): fit goes on
    ("-ngl 999", "-b11500"),  # may be llama_model_default_params()'s 999: fit may go on
    ("-ngl 999", ""),  # an unknown build: the same
    ("-ngl 99 -nkvo", "-b6000"),  # the KV is in host memory
    ("-ngl 20 -fit off", "-b6000"),  # partial offload: not modelled, no error
    ("-ngl 99 -fit off -ot exps=CPU", "-b6000"),  # weights moved to the CPU
    ("-ngl 99 -fit off --n-cpu-moe 4", "-b6000"),
    ("-ngl 99 -fit off --rpc 10.0.0.2:50052", "-b6000"),  # another device's memory
])
def test_nothing_is_called_sure_where_llama_cpp_may_move_things_off_the_gpu(extra, tag):
    report = _report(extra, tag=tag)
    assert _cells_findings(report) == []
    assert _verdict(report) != "KV does not fit"


def test_cells_the_gpu_holds_are_no_error():
    report = _report("-ngl 99 -fit off", ctx=32768)
    assert _cells_findings(report) == [] and _verdict(report) == "fits"


def test_several_gpus_are_not_modelled():
    assert _cells_findings(_report("-ngl 99 -fit off", gpus=2)) == []


def test_the_quantized_cache_suggestion_is_left_out_when_the_cache_is_quantized():
    (f,) = _cells_findings(_report("-ngl 99 -fit off -ctk q8_0 -ctv q8_0", ctx=262144))
    assert "quantize the KV cache, leave -ngl unset" in f.message and "-ctk q8_0 -ctv q8_0:" not in f.message


@pytest.mark.parametrize("settings, version, pins", [
    ({"n_gpu_layers": "99", "fit": "off"}, None, True),
    ({"n_gpu_layers": "99"}, None, True),
    ({"n_gpu_layers": "31", "fit": "off"}, None, False),  # 31 of 32 layers
    ({"n_gpu_layers": "all", "fit": "off"}, None, False),  # newer builds' spelling: not read here
    ({"n_gpu_layers": "999"}, "b7003", True),  # the last build known without --fit
    ({"n_gpu_layers": "999"}, "b7004", False),
    ({"n_gpu_layers": "999", "fit": "0"}, "b7004", True),
    ({"n_gpu_layers": "99", "cpu_moe": True}, None, False),
    ({"n_gpu_layers": "99", "device": "none"}, None, False),
    ({"n_gpu_layers": ["99"]}, None, False),  # bad input: no crash, no verdict
])
def test_pinned(settings, version, pins):
    assert (pinned(settings, 32, version) is not None) is pins


def test_the_environment_s_context_is_found_at_its_value():
    text = DEPLOYMENT.format(tag="-b11434", ctx=131072, extra="", gpus=1).replace(
        '"-c", "131072", ', "").replace(
        "        resources:", '        env:\n        - {name: LLAMA_ARG_CTX_SIZE, value: "131072"}\n'
        '        - {name: LLAMA_ARG_N_GPU_LAYERS, value: "99"}\n        resources:')
    (f,) = _cells_findings(lint_text(text, "llama.yaml"))
    assert (f.line, f.column) == (12, 45)
    assert f.message == T4_MESSAGE.format(why=USER_SET)


def test_a_quantized_v_cache_is_counted_at_its_own_type():
    # -ctv q8_0 with flash attention: V at 34 B / 32 elements, K at f16: 100,000 cells x (65,536 + 34,816) B =
    # 9.35 GiB, under the 10.19 GiB estimate; -ctk alone (f16 here) used to be applied to V too (12.21 GiB: an error)
    for extra in ("-ngl 99 -fit off -ctv q8_0 -fa on", "-ngl 99 -fit off -ctk f16 -ctv q8_0 -fa on"):
        report = _report(extra, ctx=100000)
        assert _cells_findings(report) == [], extra
        assert _verdict(report) == "fits"


def test_a_quantized_k_cache_with_an_f16_v_counts_v_at_f16():
    # -ctk q4_0 alone: K at 18 B / 32 elements, V at f16: 150,000 x (18,432 + 65,536) B = 11.73 GiB > 11.29 GiB, an
    # error (K's type applied to V too gave 150,000 x 36,864 B = 5.15 GiB: no finding)
    (f,) = _cells_findings(_report("-ngl 99 -fit off -ctk q4_0", ctx=150000))
    assert f.message.startswith("11.73 GiB > 11.29 GiB: llama.cpp allocates all -c 150,000 cells up front, 150,000 "
                                "cells x 83,968 B = 11.73 GiB of KV on the GPU")


@pytest.mark.parametrize("tag", ["-b6000", "-b11500"])
def test_ngl_equal_to_the_layers_leaves_one_on_the_cpu(tag):
    # llama.cpp's load_tensors counts the output layer as one more: builds before it gave every repeating layer
    # (i_gpu_start = n_layer - ngl) and kept the output layer on the CPU, later ones (n_layer + 1 - ngl) keep layer
    # 0 and its KV there: -ngl 32 on a 32-layer model is not everything on the GPU. 93,000 cells (11.35 GiB) are
    # past the 11.29 GiB all-on-GPU room (its top on T4's nvidia-smi Total), but not past what the GPU holds with one
    # layer (or the output) off it.
    assert _cells_findings(_report("-ngl 99 -fit off", tag=tag, ctx=93000))
    report = _report("-ngl 32 -fit off", tag=tag, ctx=93000)
    assert _cells_findings(report) == []
    assert pinned({"n_gpu_layers": "32", "fit": "off"}, 32, None) is None
    assert pinned({"n_gpu_layers": "33", "fit": "off"}, 32, None) is not None


def test_weights_that_do_not_fit_are_ctx203_alone():
    # Llama-3.1-70B Q4_K_M (~40 GiB) on a 15 GiB T4: CTX203 says the weights do not fit; the cells check said
    # "... > -2x.xx GiB" beside it (a negative room, and a second finding for the same cause)
    text = DEPLOYMENT.format(tag="-b6000", ctx=8192, extra=', "-ngl", "99", "-fit", "off"', gpus=1).replace(
        "Meta-Llama-3.1-8B-Instruct-GGUF", "Meta-Llama-3.1-70B-Instruct-GGUF")
    report = lint_text(text, "llama.yaml")
    assert [f.rule for f in report.findings if f.severity == "error"] == ["CTX203"]
    assert "GiB > -" not in " ".join(f.message for f in report.findings)
    assert _verdict(report) == "weights do not fit"


def test_an_unknown_v_type_is_not_sized():
    # a fork's -ctv type ctxlint does not know: the KV physics (which counts V at -ctv's type) refuses the
    # pool, as it does an unknown -ctk, and nothing is claimed about the cells (before, K's 65,536 B a cell alone)
    report = _report("-ngl 99 -fit off -ctv turbo3", ctx=200000)
    assert _cells_findings(report) == []
    assert [f.message for f in report.findings if f.rule == "CTX208"] == [
        "KV pool of unified not declared and not derivable: unknown V cache type 'turbo3'; capacity checks skip "
        "these roles"]


def test_a_pool_that_cannot_be_allocated_has_no_headroom_in_the_audit():
    # the engine exits at startup: the audit row holds nothing (0.00x, ranked with the pools below their promise),
    # where it showed the stated cells over the promise (1.00x) beside "KV does not fit"
    (row,) = build_audit(_report("-ngl 99 -fit off")).rows
    assert (row.verdict, row.headroom, row.prefill_pool.tokens) == ("KV does not fit", 0.0, 131_072)
    # no layer on the GPU: nothing to allocate there, and its KV is host memory (no GPU pool to rank)
    (host,) = build_audit(_report("-ngl 0 -fit off")).rows
    assert (host.verdict, host.why_unknown, host.headroom) == ("unknown", "CPU engine: KV memory not stated", None)


def test_no_layers_offloaded_keeps_the_kv_cache_in_host_memory(tmp_path):
    # The shape of SwiggitySwerve/llama-swappo-halo@26f19c889713e6ec537bd3ff1b78c1ec4273cc63:config/
    # strix-halo-cpu-only.yaml (and mostlygeek/llama-swap's config.example.yaml "qwen-unlisted"): `-ngl 0`.
    # llama.cpp keeps a layer's KV cache on its layer's device (src/llama-kv-cache.cpp), and with no layer offloaded
    # that is the CPU: the KV is host memory. Before, each read "needs >= 3.9 GiB/GPU" of a GPU it never uses.
    import json

    from tests.helpers import run

    (tmp_path / "config.yaml").write_text(
        "models:\n"
        "  coder:\n"
        "    cmd: |\n"
        "      /opt/llama-server --port ${PORT}\n"
        "      -m /models/Qwen2.5-Coder-3B-Instruct-Q4_K_M.gguf\n"
        "      --ctx-size 32768\n"
        "      --n-gpu-layers 0\n"
        "  offloaded:\n"
        "    cmd: /opt/llama-server -m /models/Qwen2.5-Coder-3B-Instruct-Q4_K_M.gguf --ctx-size 32768 -ngl 99\n")
    rows = json.loads(run(["audit", str(tmp_path), "--format", "json"]).out)["deployments"]
    host, gpu = sorted(rows, key=lambda r: r["name"])
    assert (host["verdict"], host["why_unknown"]) == ("unknown", "CPU engine: KV memory not stated")
    assert (host["worst"]["line"], host["worst"]["column"]) == (7, 22)  # at the 0
    assert "--n-gpu-layers 0 offloads no layer to a GPU" in host["worst"]["message"]
    assert gpu["verdict"].startswith("needs >= ")  # every layer on the GPU: its KV there too


def test_no_layers_offloaded_keeps_weights_and_kv_off_a_named_gpu(tmp_path):
    # `-ngl 0` with a GPU named (SkyPilot `accelerators: L4:1`): no layer, so neither its weights nor its KV cache,
    # is on that GPU (llama_kv_cache puts a layer's cache on model.dev_layer(il), the CPU for a layer not
    # offloaded). The role was derived as if the L4 held the 70B's weights: a false CTX203 error.
    import json

    from tests.helpers import run

    (tmp_path / "task.sky.yaml").write_text(
        "resources:\n"
        "  accelerators: L4:1\n"
        "run: |\n"
        "  llama-server -m /models/Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf -c 131072 -ngl 0 --host 0.0.0.0\n")
    [row] = json.loads(run(["audit", str(tmp_path), "--format", "json"]).out)["deployments"]
    assert (row["verdict"], row["why_unknown"]) == ("unknown", "CPU engine: KV memory not stated")
    assert "offloads no layer to a GPU" in row["worst"]["message"]
    checked = run(["check", str(tmp_path)])
    assert "CTX203" not in checked.out and "CTX208" in checked.out


@pytest.mark.parametrize("placement", ["-ngl 30", "-ngl 94", "-ngl 99 --cpu-moe", "-ngl 99 --n-cpu-moe 80",
                                       "-ngl 99 -ot exps=CPU"])
def test_weights_kept_in_host_memory_are_no_ctx203(tmp_path, placement):
    # Qwen3-235B-A22B Q4_K_M (~133 GiB) on one L40S with a partial -ngl (94 layers: load_tensors keeps layer il on
    # the CPU while il < n_layer + 1 - ngl) or its experts moved to the CPU (--cpu-moe, -ot exps=CPU): llama.cpp
    # loads it, the GPU holding only its share. Each was a CTX203 error, "exceed the memory ... before any KV".
    from tests.helpers import run

    (tmp_path / "task.sky.yaml").write_text(
        "resources:\n  accelerators: L40S:1\n"
        "run: |\n"
        f"  llama-server -m /models/Qwen3-235B-A22B-Instruct-2507-Q4_K_M.gguf -c 32768 {placement} --host 0.0.0.0\n")
    out = run(["check", str(tmp_path)]).out
    assert "CTX203" not in out and "CTX209" not in out, out
    # every layer placed on the GPU, nothing moved off it: still sure not to load
    (tmp_path / "task.sky.yaml").write_text(
        "resources:\n  accelerators: L40S:1\n"
        "run: |\n"
        "  llama-server -m /models/Qwen3-235B-A22B-Instruct-2507-Q4_K_M.gguf -c 32768 -ngl 95 -fit off\n")
    assert "CTX203" in run(["check", str(tmp_path)]).out


@pytest.mark.parametrize("tag", ["", "-b5000", "-b9000"])
def test_default_gpu_layers_are_no_sure_ctx203(tmp_path, tag):
    # No -ngl: llama.cpp's default, which --fit (b7004 on, on by default) lowers to what the GPU holds, and which
    # was 0 layers (CPU only) in builds before llama_model_default_params() took 999. Neither fails to load:
    # Qwen3-235B-A22B Q4_K_M on one L40S was a CTX203 error whatever the build.
    from tests.helpers import run

    (tmp_path / "task.sky.yaml").write_text(
        "resources:\n  accelerators: L40S:1\n"
        f"  image_id: docker:ghcr.io/ggml-org/llama.cpp:full-cuda{tag}\n"
        "run: |\n"
        "  llama-server -m /models/Qwen3-235B-A22B-Instruct-2507-Q4_K_M.gguf -c 32768 --host 0.0.0.0\n")
    out = run(["check", str(tmp_path)]).out
    assert "CTX203" not in out and "CTX209" not in out, out


@pytest.mark.parametrize("placement", ["-ngl 99 --cpu-moe", "-ngl 99 --n-cpu-moe 80", "-ngl 99 -ot exps=CPU"])
def test_moe_flags_move_nothing_off_the_gpu_for_a_dense_model(tmp_path, placement):
    # --cpu-moe, --n-cpu-moe and an experts-only -ot reach only tensors matching LLM_FFN_EXPS_REGEX (llama.cpp
    # common/common.h), which a dense model has none of: Llama-3.3-70B Q8_0 (~70 GiB) on one L40S still cannot load,
    # as the memory need (physics/llamacpp_host.py) already said; CTX203 stays sure.
    from tests.helpers import run

    (tmp_path / "task.sky.yaml").write_text(
        "resources:\n  accelerators: L40S:1\n"
        "run: |\n"
        f"  llama-server -m /models/Llama-3.3-70B-Instruct-Q8_0.gguf -c 8192 {placement} --host 0.0.0.0\n")
    assert "CTX203" in run(["check", str(tmp_path)]).out
