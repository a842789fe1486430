"""Integer suffix semantics per engine (engines.md §0, §1.1, §2.1)."""
from __future__ import annotations

import pytest

from ctxlint.engines.suffixes import read_int

VLLM = [
    ("128k", 128_000), ("128K", 131_072), ("1M", 1_048_576), ("1m", 1_000_000),
    ("25.6k", 25_600), ("32K", 32_768), ("1g", 10**9), ("1G", 2**30), ("4096", 4096), (" 8192 ", 8192),
    ("1_000", 1000),
]
SGLANG = [("1M", 1_000_000), ("1Mi", 1_048_576), ("128k", 128_000), ("1Ki", 1024), ("1.5k", 1500),
          ("4096", 4096), ("1G", 10**9), ("1Gi", 2**30)]


@pytest.mark.parametrize("text,value", VLLM)
def test_vllm(text, value):
    r = read_int("vllm", text)
    assert r.ok and r.value == value


def test_vllm_decimal_binary_rejected_with_engine_text():
    r = read_int("vllm", "25.6K")
    assert r.value is None
    assert r.error == ("Decimals are not allowed with binary suffixes like K. "
                       "Did you mean to use 25.6k instead?")


@pytest.mark.parametrize("text", ["-1", "auto", "AUTO"])
def test_vllm_auto(text):
    assert read_int("vllm_auto", text).value == -1
    assert not read_int("vllm", "auto").ok


def test_vllm_garbage():
    r = read_int("vllm", "128 k")
    assert not r.ok and "human_readable_int" in r.error


@pytest.mark.parametrize("text,value", SGLANG)
def test_sglang(text, value):
    r = read_int("sglang", text)
    assert r.ok and r.value == value


@pytest.mark.parametrize("text", ["128K", "1m", "1.5Mi", "1MB", "x"])
def test_sglang_rejects(text):
    r = read_int("sglang", text)
    assert r.value is None
    assert r.error == (f"Invalid integer value: {text!r}. Use a plain integer, SI suffixes (1k, 1M), "
                       "or IEC suffixes (1Ki, 1Mi). Suffixes are case-sensitive.")


@pytest.mark.parametrize("rule", ["argparse", "click", "clap"])
@pytest.mark.parametrize("text", ["128k", "1M", "1e3"])
def test_plain_int_engines_reject_suffixes(rule, text):
    assert read_int(rule, text).value is None


def test_messages_per_parser():
    assert read_int("argparse", "8k").error == "invalid int value: '8k'"
    assert read_int("click", "8k").error == "'8k' is not a valid integer."
    assert "invalid digit found in string" in read_int("clap", "8k").error
    assert read_int("clap", "-1").value is None  # usize


def test_llamacpp_stoi_reads_leading_digits():
    r = read_int("stoi", "128k")
    assert r.value == 128 and "ignored" in r.note
    assert read_int("stoi", "16384").value == 16384
    assert read_int("stoi", "k").error == "stoi"
    assert read_int("stoi", "99999999999").error == "stoi"


@pytest.mark.parametrize("rule", ["vllm", "vllm_auto", "sglang", "argparse", "click", "clap", "stoi"])
@pytest.mark.parametrize("text", ["", " ", "-", "1.", ".5k", "1e", "١٢", "\x00", None])
def test_never_raises(rule, text):
    read_int(rule, text)  # type: ignore[arg-type]
