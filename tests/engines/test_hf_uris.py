"""An `hf://` URI as `hf download` reads it (engines/hf_uris.py, after huggingface_hub 2.5.0's parse_hf_uri): the
model repository, the revision after `@`, the path in the repository; None for anything else."""
from __future__ import annotations

import pytest

from ctxlint.engines.hf_uris import RepoUri, model_uri


@pytest.mark.parametrize("uri, read", [
    ("hf://Qwen/Qwen3-8B", RepoUri("Qwen/Qwen3-8B", "", "")),
    ("hf://models/Qwen/Qwen3-8B", RepoUri("Qwen/Qwen3-8B", "", "")),
    ("hf://Qwen/Qwen3-8B/", RepoUri("Qwen/Qwen3-8B", "", "")),  # the whole repository, not a folder in it
    ("hf://Qwen/Qwen3-8B/config.json", RepoUri("Qwen/Qwen3-8B", "", "config.json")),
    ("hf://Qwen/Qwen3-8B/gguf/", RepoUri("Qwen/Qwen3-8B", "", "gguf/")),  # a trailing `/` is a folder
    ("hf://Qwen/Qwen3-8B@v1.0", RepoUri("Qwen/Qwen3-8B", "v1.0", "")),
    ("hf://Qwen/Qwen3-8B@main/a/b.json", RepoUri("Qwen/Qwen3-8B", "main", "a/b.json")),
    ("hf://Qwen/Qwen3-8B/dir/file@1.txt", RepoUri("Qwen/Qwen3-8B", "", "dir/file@1.txt")),  # `@` in a file name
    ("hf://a/b/c@d", RepoUri("a/b", "", "c@d")),  # an `@` past the id is the path's
])
def test_a_model_uri(uri, read):
    assert model_uri(uri) == read


@pytest.mark.parametrize("uri", [
    "Qwen/Qwen3-8B", "hf://", "hf://Qwen", "hf://models/Qwen", "hf://models/", "hf:///x",
    "hf://datasets/org/data", "hf://spaces/org/app", "hf://buckets/org/b", "hf://kernels/org/k",
    "hf://dataset/org/data", "hf://model/org/m",  # singular prefixes: parse_hf_uri refuses them
    "hf://Qwen/Qwen3-8B@", "hf://Qwen/Qwen3-8B@/x", "hf://Qwen/Qwen3-8B@refs/pr/3",
    "hf://Qwen/Qwen3-8B@feature%2Ffoo",  # unquoted to feature/foo by the hub: not read
    # an empty segment in the path (HfUri refuses a path that starts with `/` or holds `//`), as a script's
    # `hf://$REPO/$SUBDIR/$FILE` with an empty SUBDIR writes it: hf stops, nothing is downloaded
    "hf://Qwen/Qwen3-8B//config.json", "hf://Qwen/Qwen3-8B/gguf//q4.gguf", "hf://Qwen/Qwen3-8B@main//config.json",
    "hf://models/Qwen/Qwen3-8B//gguf/",
])
def test_anything_else_is_none(uri):
    assert model_uri(uri) is None
