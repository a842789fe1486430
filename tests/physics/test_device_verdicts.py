"""CTX208's common-device verdicts read from the memory search's own estimates (physics/
device_verdicts.py) are the verdicts an estimate on each device gives."""
from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_need_search import MODELS

from ctxlint.engine import lint_paths, lint_text
from ctxlint.physics import device_verdicts, needs

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "real"

MANIFEST = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: m}}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:{tag}
          args: [{args}]
          env: [{env}]
          resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
"""


def _ctx208(run, derived: bool, calls: list | None = None):
    """The CTX208 messages of `run()`, with the verdicts read from the search (`derived`) or every
    device estimated; `calls` collects each device estimate the shortcut still asked for."""
    real = device_verdicts.verdict  # needs.py imports it at each search

    def counting(sizes, name, total, context, estimate, high=None):
        def counted(release):
            calls.append((name, release))
            return estimate(release)
        return real(sizes, name, total, context, counted if calls is not None else estimate, high)

    device_verdicts.verdict = counting if derived else (lambda *args: None)
    needs._NEEDS.clear()
    try:
        report = run()
    finally:
        device_verdicts.verdict = real
        needs._NEEDS.clear()
    return [(f.file, f.line, f.message) for f in report.findings if f.rule == "CTX208"]


@st.composite
def vllm_roles(draw):
    options = {
        "--gpu-memory-utilization": st.sampled_from(["0.5", "0.85", "0.95"]),
        "--max-num-batched-tokens": st.sampled_from(["512", "8192", "32768"]),
        "--max-num-seqs": st.sampled_from(["16", "512"]),
        "--kv-cache-dtype": st.just("fp8"),
        "--enforce-eager": st.none(),
        "--block-size": st.sampled_from(["16", "32"]),
        "--num-gpu-blocks-override": st.sampled_from(["2000", "100000"]),
    }
    chosen = sorted(draw(st.sets(st.sampled_from(sorted(options)), max_size=3)))
    tp = draw(st.sampled_from([1, 2, 4, 8]))
    args = ["--model", draw(st.sampled_from(MODELS)), "--max-model-len",
            str(draw(st.sampled_from([2048, 8192, 32768, 131072, 1_000_000]))), "--tensor-parallel-size", str(tp)]
    for flag in chosen:
        value = draw(options[flag])
        args += [flag] if value is None else [flag, value]
    env = draw(st.sampled_from(["", "{name: VLLM_USE_V1, value: '0'}",
                                "{name: VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS, value: '1'}"]))
    # unknown (spanned), before the V1 default and its device-name rule, the A100 rule, the 16k tier
    tag = draw(st.sampled_from(["latest", "v0.8.4", "v0.9.0", "v0.12.0", "v0.28.0"]))
    return MANIFEST.format(tag=tag, args=", ".join(f'"{a}"' for a in args), env=env, gpus=tp)


@given(vllm_roles())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_verdicts_read_from_the_search_are_the_estimated_ones(text):
    def run():
        return lint_text(text, "m.yaml")
    assert _ctx208(run, True) == _ctx208(run, False)


def test_the_samples_and_the_corpus_read_the_same():
    paths = sorted(str(p) for p in (ROOT / "samples").rglob("*.yaml"))
    if CORPUS.is_dir():
        paths.append(str(CORPUS))
    calls: list = []
    derived = _ctx208(lambda: lint_paths(paths), True, calls)
    assert derived == _ctx208(lambda: lint_paths(paths), False)
    assert len(derived) >= (50 if CORPUS.is_dir() else 1)  # the samples hold one device-less role


def test_most_devices_need_no_estimate_of_their_own():
    # Llama-3.1-8B, release unknown: 9 devices x 7 releases were 63 estimates after the search.
    text = MANIFEST.format(tag="latest", args='"--model", "meta-llama/Llama-3.1-8B-Instruct", '
                           '"--max-model-len", "131072"', env="", gpus=1)
    calls: list = []
    found = _ctx208(lambda: lint_text(text, "m.yaml"), True, calls)
    assert found == _ctx208(lambda: lint_text(text, "m.yaml"), False)
    # an nvidia.com/gpu pod: the common NVIDIA devices, searched once with the AMD one and shown without it
    assert "L4 " in found[0][2] and "B200 " in found[0][2] and "MI300X" not in found[0][2]
    assert all("A100" in name for name, _ in calls) and len(calls) <= 12  # its name sets its batch from 0.9.0


# --- the rules themselves, on figures made up to sit where real devices rarely do ---

def _result(floor, top):
    """What release_figure reads of an estimate: floor and top of the longest request (None: no pool)."""
    from types import SimpleNamespace
    counted = floor is not None
    return SimpleNamespace(engine="vllm", pool_tokens=10**6 if counted else None,
                           max_context_at_concurrency_1=floor if counted else None,
                           max_context_low=floor, max_context_high=top)


def test_a_searched_size_decides_only_within_its_tier():
    seen = {50.0: _result(9_000, 9_000), 120.0: _result(7_000, 9_000), 140.0: _result(9_000, 9_000)}
    sizes = device_verdicts.SearchedSizes(seen, ("0.9.0",), False, (100.0,), float, 8_000)
    assert sizes.decided("0.9.0", 0, 90.0) is True      # holds at 50, below it, in its tier
    assert sizes.decided("0.9.0", 0, 100.0) is False    # at the tier's size: the tier above, fails at 120
    assert sizes.decided("0.9.0", 0, 110.0) is False
    assert sizes.decided("0.9.0", 0, 130.0) is None     # between a failure below and a hold above it
    assert sizes.decided("0.9.0", 0, 150.0) is True
    assert sizes.decided("0.9.0", 1, 110.0) is None     # the top holds at 120 and 140, above 110
    assert sizes.decided("0.9.0", 0, 40.0) is None      # nothing at or above 40 fails in its tier


def test_the_fold_counts_only_releases_with_a_pool():
    seen = {("a", 10.0): _result(None, None), ("b", 10.0): _result(9_000, 9_500), ("c", 10.0): _result(7_000, 8_500)}
    sizes = device_verdicts.SearchedSizes(seen, ("a", "b", "c"), True, (), float, 8_000)
    asked = []

    def estimate(release):
        asked.append(release)
        return {"a": _result(None, None), "b": _result(9_000, 9_000), "c": _result(7_000, 8_100)}[release]
    # at 20 GiB: b holds (from 10), c's floor fails and its top holds, on the device's own estimate
    assert device_verdicts.verdict(sizes, "L4", 20.0, 8_000, estimate) == (False, True)
    assert asked == ["c"]
    nothing = device_verdicts.SearchedSizes({("a", 10.0): _result(None, None)}, ("a",), True, (), float, 8_000)
    assert device_verdicts.verdict(nothing, "L4", 20.0, 8_000, lambda r: _result(None, None)) == (False, False)


# --- TensorRT-LLM, and SGLang with its fraction set: an estimate reads the device by its memory alone ---

OTHER = """\
apiVersion: apps/v1
kind: Deployment
metadata: {{name: m}}
spec:
  template:
    spec:
      containers:
        - name: engine
          image: {image}
          command: [{command}]
          resources: {{limits: {{nvidia.com/gpu: {gpus}}}}}
"""


@st.composite
def memory_only_roles(draw):
    """A TensorRT-LLM or SGLang (fraction set, or not: then every device is estimated) role without a device."""
    model = draw(st.sampled_from(MODELS))
    context = str(draw(st.sampled_from([2048, 8192, 32768, 131072, 1_000_000])))
    tp = draw(st.sampled_from([1, 2, 4, 8]))
    if draw(st.booleans()):
        words = ["trtllm-serve", "serve", model, "--max_seq_len", context, "--tp_size", str(tp)]
        options = {"--kv_cache_free_gpu_memory_fraction": ["0.5", "0.9", "0.95"],
                   "--max_num_tokens": ["2048", "16384"], "--max_batch_size": ["16", "2048"]}
        image = draw(st.sampled_from(["nvcr.io/nvidia/tensorrt-llm/release:1.0.0",
                                      "nvcr.io/nvidia/tensorrt-llm/release"]))
    else:
        words = ["python3", "-m", "sglang.launch_server", "--model-path", model, "--context-length", context,
                 "--tp", str(tp)]
        options = {"--mem-fraction-static": ["0.5", "0.85", "0.93", "1.2"], "--page-size": ["1", "64"],
                   "--chunked-prefill-size": ["4096"], "--kv-cache-dtype": ["fp8_e5m2"]}
        image = draw(st.sampled_from(["lmsysorg/sglang:latest", "lmsysorg/sglang:v0.4.6", "lmsysorg/sglang:v0.5.3"]))
    for flag in sorted(draw(st.sets(st.sampled_from(sorted(options)), max_size=3))):
        words += [flag, draw(st.sampled_from(options[flag]))]
    return OTHER.format(image=image, command=", ".join(f'"{w}"' for w in words), gpus=tp)


@given(memory_only_roles())
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_memory_only_engines_read_the_estimated_verdicts(text):
    def run():
        return lint_text(text, "m.yaml")
    derived = _ctx208(run, True)
    assert derived == _ctx208(run, False)
    assert len(derived) == 1 and any(words in derived[0][2] for words in ("needs >=", "does not fit", "no memory need"))


def test_memory_only_engines_need_no_device_estimate():
    # TensorRT-LLM's budget, and SGLang's with --mem-fraction-static, read the device's memory and no name
    for words in (["trtllm-serve", "serve", "Qwen/Qwen3-8B", "--max_seq_len", "32768"],
                  ["python3", "-m", "sglang.launch_server", "--model-path", "Qwen/Qwen3-8B", "--context-length",
                   "32768", "--mem-fraction-static", "0.85"]):
        text = OTHER.format(image="x", command=", ".join(f'"{w}"' for w in words), gpus=1)
        calls: list = []
        found = _ctx208(lambda: lint_text(text, "m.yaml"), True, calls)
        assert found == _ctx208(lambda: lint_text(text, "m.yaml"), False) and "L4 " in found[0][2]
        assert calls == []


def test_a_device_read_by_name_is_decided_by_a_size_with_its_batch():
    # vLLM from 0.9.0 gives an A100 the small batch at 80 GiB, as it gives any device under 70 GiB: with the batch
    # fixed the figures rise with the memory, so a searched size under 70 GiB that holds the request decides it
    text = MANIFEST.format(tag="latest", args='"--model", "meta-llama/Llama-3.1-8B-Instruct", '
                           '"--max-model-len", "32768"', env="", gpus=1)
    calls: list = []
    found = _ctx208(lambda: lint_text(text, "m.yaml"), True, calls)
    assert found == _ctx208(lambda: lint_text(text, "m.yaml"), False) and "A100-SXM4-80GB yes" in found[0][2]
    assert calls and not [name for name, _ in calls if "A100" in name]  # L4 and A10G "maybe": in their own tier
    # a role that needs more than 70 GiB: no searched size with the A100's batch holds it; the A100 is estimated
    text = MANIFEST.format(tag="latest", args='"--model", "meta-llama/Llama-3.1-70B-Instruct", '
                           '"--max-model-len", "32768"', env="", gpus=1)
    calls.clear()
    found = _ctx208(lambda: lint_text(text, "m.yaml"), True, calls)
    assert found == _ctx208(lambda: lint_text(text, "m.yaml"), False)
    assert ("A100-SXM4-80GB", "0.9.0") in calls
