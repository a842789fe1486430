"""A GGUF file beside the deploy file: its header gives the architecture and its tensors the bytes."""
from __future__ import annotations

import pytest

from ctxlint.resolution.resolve import Context, resolve

gguf = pytest.importorskip("gguf")
np = pytest.importorskip("numpy")


def _write(path, layers=2, kv=2, context=4096) -> int:
    w = gguf.GGUFWriter(str(path), "llama")
    w.add_block_count(layers)
    w.add_context_length(context)
    w.add_embedding_length(64)
    w.add_feed_forward_length(128)
    w.add_head_count(4)
    w.add_head_count_kv(kv)
    w.add_file_type(15)  # LLAMA_FTYPE_MOSTLY_Q4_K_M
    w.add_vocab_size(100)
    w.add_tensor("token_embd.weight", np.zeros((100, 64), dtype=np.float16))
    w.add_tensor("blk.0.attn_q.weight", np.zeros((64, 64), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return 100 * 64 * 2 + 64 * 64 * 4


def test_header_gives_architecture_and_tensor_bytes(tmp_path) -> None:
    size = _write(tmp_path / "Tiny-Llama-Q4_K_M.gguf")
    found = resolve("Tiny-Llama-Q4_K_M.gguf", Context(directory=str(tmp_path)))
    assert found.via == "gguf", found.how
    arch = found.arch
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim, arch.max_position_embeddings) == (2, 2, 16, 4096)
    assert arch.checkpoint_bytes == size
    assert found.weights.key == "gguf-q4-k-m"
    assert f"architecture from the GGUF header of {tmp_path / 'Tiny-Llama-Q4_K_M.gguf'}" in found.how


def test_a_file_that_is_not_gguf_is_reported(tmp_path) -> None:
    (tmp_path / "broken.gguf").write_bytes(b"not a gguf file at all")
    found = resolve("broken.gguf", Context(directory=str(tmp_path)))
    assert not found.resolved and "cannot read the GGUF header" in found.problem


def test_a_split_gguf_counts_every_part(tmp_path) -> None:
    first = _write(tmp_path / "m-00001-of-00002.gguf")
    second = _write(tmp_path / "m-00002-of-00002.gguf")
    found = resolve("m-00001-of-00002.gguf", Context(directory=str(tmp_path)))
    assert found.arch.checkpoint_bytes == first + second


@pytest.mark.parametrize("written,places", [
    # (GLM-4.7-Flash itself is catalogued now; its expert-pruned REAP variant, also in sweep 30, is not)
    ("/app/GLM-4.7-Flash-REAP-23B-A3B-UD-Q4_K_XL.gguf",
     "at /app/GLM-4.7-Flash-REAP-23B-A3B-UD-Q4_K_XL.gguf or as GLM-4.7-Flash-REAP-23B-A3B-UD-Q4_K_XL.gguf beside the "
     "deploy file"),
    # (Qwen3VL-8B-Instruct, the name of Qwen's own GGUF files, resolves by that name now: a home path of another)
    ("~/models/m-Q8_0.gguf", "as m-Q8_0.gguf beside the deploy file"),
    ("models/m-Q4_K_M.gguf", "at models/m-Q4_K_M.gguf from the deploy file's folder or as m-Q4_K_M.gguf beside the "
                             "deploy file"),
    ("m-Q4_K_M.gguf", "as m-Q4_K_M.gguf beside the deploy file"),
])
def test_an_unread_gguf_file_is_advised_as_a_file(tmp_path, written, places) -> None:
    # sweep 30 (haskoe/beancount-ledger, anon-kunn/glm47flash): a .gguf is a file, yet CTX208 said "put its
    # config.json at ~/models/Qwen3VL-8B-Instruct-Q8_0.gguf/config.json", a path that cannot exist
    found = resolve(written, Context(directory=str(tmp_path)))
    assert not found.resolved and found.hint == (
        f"a GGUF file, whose header ctxlint reads (install `ctxlint[gguf]`) when it finds the file {places}; "
        "or add the model under `models:` in .ctxlint.yaml")


def test_the_places_a_gguf_hint_names_are_read(tmp_path) -> None:
    # the advice holds: the file where the path points, or of that name beside the deploy file, is read
    (tmp_path / "app").mkdir()
    _write(tmp_path / "app" / "m-Q4_K_M.gguf")
    assert resolve(str(tmp_path / "app" / "m-Q4_K_M.gguf"), Context(directory=str(tmp_path / "deploy"))).via == "gguf"
    assert resolve("models/m-Q4_K_M.gguf", Context(directory=str(tmp_path / "app"))).via == "gguf"
    assert resolve("~/models/m-Q4_K_M.gguf", Context(directory=str(tmp_path / "app"))).via == "gguf"
