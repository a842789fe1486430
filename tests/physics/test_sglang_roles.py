"""SGLang's automatic mem_fraction_static for a disaggregated role, DP attention, DeepEP and speculative decoding
(reserve_sglang.py), each figure worked from the releases' wheels (sglang-0.5.X/sglang/srt/server_args.py, from
0.5.19 arg_groups/memory_hook.py)."""
import json
import subprocess
import sys

from ctxlint.physics.mem_sglang import auto_fraction

H100_MIB = 81559  # nvidia-smi's total for an H100 SXM
H200_MIB = 143771
PREFILL, DECODE = {"disaggregation_mode": "prefill"}, {"disaggregation_mode": "decode"}
DP8 = {"enable_dp_attention": True, "dp_size": 8}


def test_prefill_role_reserves_no_decode_graphs_from_0_5_15() -> None:
    # 512 + 8192 x 1.5 + 128 + prefill graphs 464 = 13392 MiB: the decode graphs' 256 x 2 are gone from 0.5.15
    # (sglang-0.5.15 wheel: server_args.py:3638-3643), not from 0.5.17; 0.5.14 reserved them for every role, and
    # up to 0.5.14 a disaggregated role ran prefill eagerly (no prefill graphs reserved)
    assert auto_fraction(H100_MIB, 1, 1, PREFILL, "0.5.14")[:2] == (0.835, 0.835)
    assert auto_fraction(H100_MIB, 1, 1, PREFILL, "0.5.16") == (
        0.836, 0.841, "round((81559 - reserved 13392) / 81559, 3); reserved = 512 + max(8192, 2048) x 1.5 + 1 x 1 "
                      "/ 8 x 1024 + prefill graphs 464 MiB (prefill role)")
    assert auto_fraction(H100_MIB, 1, 1, PREFILL, "0.5.23")[:2] == (0.836, 0.841)
    assert auto_fraction(H100_MIB, 1, 1, PREFILL, "0.5.12")[:2] == (0.835, 0.835)
    # a release not known: the least of the eras (0.5.3's and 0.5.5's, the same here) to the most
    assert auto_fraction(H100_MIB, 1, 1, PREFILL, None)[:2] == (0.835, 0.88)


def test_prefill_role_on_0_5_15_runs_prefill_eagerly() -> None:
    # 0.5.15 sets disable_cuda_graph for a prefill role (sglang-0.5.15 wheel: sglang/srt/arg_groups/
    # pd_disaggregation_hook.py:77), which disables the prefill graphs too (server_args.py:3214-3216) before the
    # reserve reads them (3660-3664): 512 + 8192 x 1.5 + 128 = 12928 MiB; 0.5.16 dropped the line
    assert auto_fraction(H100_MIB, 1, 1, PREFILL, "0.5.15") == (
        0.841, 0.841, "round((81559 - reserved 12928) / 81559, 3); reserved = 512 + max(8192, 2048) x 1.5 + 1 x 1 "
                      "/ 8 x 1024 MiB (prefill role)")
    assert auto_fraction(H100_MIB, 1, 1, PREFILL, "0.5.16")[:2] == (0.836, 0.841)
    # a unified server and a decode role on 0.5.15 are as before
    assert auto_fraction(H100_MIB, 1, 1, {}, "0.5.15")[:2] == (0.83, 0.835)
    assert auto_fraction(H100_MIB, 1, 1, DECODE, "0.5.15")[:2] == (0.874, 0.874)
    # a release not known: the band still reaches the eager figure
    assert auto_fraction(H100_MIB, 1, 1, PREFILL, None)[1] >= 0.841


def test_decode_role_reserves_for_its_running_batch() -> None:
    # max(max_running_requests or the decode graphs' max_bs, x draft tokens, 2048) x 1.5: 512 + 3072 + 512 + 128
    # = 4224, under the 10 GiB floor of a > 60 GiB device
    assert auto_fraction(H100_MIB, 1, 1, DECODE, "0.5.16") == (
        0.874, 0.874, "round((81559 - reserved 10240) / 81559, 3); reserved = 512 + max(256, 2048) x 1.5 + 256 x 2 "
                      "+ 1 x 1 / 8 x 1024 MiB (decode role)")
    many = {**DECODE, "max_running_requests": 2048, "speculative_num_draft_tokens": 4}
    assert auto_fraction(H100_MIB, 1, 1, many, "0.5.23")[2].startswith(
        "round((81559 - reserved 13440) / 81559, 3); reserved = 512 + max(2048 x 4, 2048) x 1.5")
    assert auto_fraction(H100_MIB, 1, 1, DECODE, "0.5.14")[:2] == (0.835, 0.835)  # as a unified eager server


def test_dp_attention_padding() -> None:
    # DeepSeek (MLA) on 8x H200, DP attention 8: 512 + 8192 x 1.5 + 512 x 2 + 1024 + 512 x 8 x 4.5 (max_bs > 300)
    # + 1536 = 34816 MiB; ctxlint left the 18 GiB of padding out (0.886)
    assert auto_fraction(H200_MIB, 8, 1, DP8, "0.5.23", mla=True) == (
        0.758, 0.769, "round((143771 - reserved 34816) / 143771, 3); reserved = 512 + max(8192, 2048) x 1.5 + 512 x 2 "
                      "+ 8 x 1 / 8 x 1024 + DP attention 512 x 8 x 4.5 + prefill graphs 1536 MiB")
    # 0.5.3-0.5.14: every role pads; 0.5.10-0.5.14 run DP attention's prefill eagerly
    assert auto_fraction(H200_MIB, 8, 1, DP8, "0.5.9", mla=True)[0] == 0.769
    assert auto_fraction(H200_MIB, 8, 1, DP8, "0.5.12", mla=True)[:2] == (0.769, 0.769)
    assert auto_fraction(H200_MIB, 8, 1, {**DP8, **PREFILL}, "0.5.14", mla=True)[:2] == (0.769, 0.769)
    # from 0.5.15 a prefill role does not pad (0.5.15's runs prefill eagerly too)
    assert auto_fraction(H200_MIB, 8, 1, {**DP8, **PREFILL}, "0.5.16", mla=True)[:2] == (0.893, 0.904)
    assert auto_fraction(H200_MIB, 8, 1, {**DP8, **PREFILL}, "0.5.15", mla=True)[:2] == (0.904, 0.904)
    # TP 8 below max_bs 300 (--cuda-graph-max-bs-decode 128): 128 x 8 x 3
    assert "DP attention 128 x 8 x 3 " in auto_fraction(H200_MIB, 8, 1, {**DP8, "cuda_graph_max_bs_decode": 128},
                                                        "0.5.23", mla=True)[2]


def test_deepep_reserves() -> None:
    deepep = {"moe_a2a_backend": "deepep"}
    # decode graphs' all-to-all buffers: 2 GiB after the floor, from 0.5.15, not on a prefill role
    assert auto_fraction(H100_MIB, 1, 1, {**DECODE, **deepep}, "0.5.23")[:2] == (0.849, 0.849)
    assert auto_fraction(H100_MIB, 1, 1, {**DECODE, **deepep}, "0.5.14")[:2] == (0.835, 0.835)
    # a prefill role's breakable prefill graphs with DeepEP: 1 GiB more, from 0.5.17
    assert auto_fraction(H100_MIB, 1, 1, {**PREFILL, **deepep}, "0.5.16")[:2] == (0.836, 0.841)
    assert auto_fraction(H100_MIB, 1, 1, {**PREFILL, **deepep}, "0.5.17")[:2] == (0.823, 0.841)
    # a unified server pays both
    assert auto_fraction(H100_MIB, 1, 1, deepep, "0.5.23")[2].endswith("prefill graphs 1488 + DeepEP 2048 MiB")


def test_speculative_reserve_to_0_5_13() -> None:
    eagle, standalone = {"speculative_algorithm": "EAGLE"}, {"speculative_algorithm": "STANDALONE"}
    assert auto_fraction(H100_MIB, 1, 1, eagle, "0.5.9")[:2] == (0.81, 0.81)  # + 2 GiB
    assert auto_fraction(H100_MIB, 1, 1, standalone, "0.5.9")[:2] == (0.76, 0.76)  # + 6 GiB
    assert auto_fraction(H100_MIB, 1, 1, {"speculative_algorithm": "NGRAM"}, "0.5.9")[:2] == (0.835, 0.835)
    assert auto_fraction(H100_MIB, 1, 1, eagle, "0.5.12")[:2] == (0.779, 0.785)  # + 4 GiB
    assert auto_fraction(H100_MIB, 1, 1, eagle, "0.5.14")[:2] == (0.83, 0.835)  # none
    assert auto_fraction(H100_MIB, 1, 1, eagle, None)[0] == 0.779


def _pool(mode: str) -> int:
    out = subprocess.run([sys.executable, "-m", "ctxlint", "capacity", "--model", "meta-llama/Llama-3.1-8B-Instruct",
                          "--engine", "sglang", "--accelerator", "H100", "--engine-version", "0.5.23", "--set",
                          f"disaggregation_mode={mode}", "--format", "json"], capture_output=True, text=True)
    return json.loads(out.stdout)["pool_tokens"]


def test_prefill_pool_of_a_pd_deployment() -> None:
    # the prefill role's pool is its own, not a unified server's: 0.836 of the device, not 0.83
    assert (_pool("null"), _pool("prefill"), _pool("decode")) == (413289, 417162, 441694)


def test_prefill_graph_sizes_counted_by_bisection_as_by_the_scan():
    """prefill_graph_mib counts the capture sizes up to `top` by bisection for a whole number: the scan's count at
    every size up to past the last one, and a float's, counted by the scan itself."""
    from ctxlint.physics import reserve_sglang as r

    def scanned(top):
        return 8 * (sum(1 for s in r._SIZES if s <= top) + max(0, (top - 4608) // 512 + 1))

    assert list(r._SIZES) == sorted(r._SIZES)
    for top in [*range(-8, 10_000), 1 << 40, 4095.5, 4.0, -1.5]:
        assert r.prefill_graph_mib(top, False) == scanned(top), top
        assert r.prefill_graph_mib(top, True) == 1.5 * 1024
