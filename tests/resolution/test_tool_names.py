"""Model names a tool composed from a repository id: llama.cpp's `-hf` cache file `<org>_<repo>_<file>.gguf` and a
folder `org--name` (the Hugging Face cache's spelling of an id). Each is read only where it takes apart one way, and
the match says how; names that look alike but are other networks (REAP, pruned, a file of another repository) stay
unresolved."""
from __future__ import annotations

import pytest

from ctxlint.audit import build_audit
from ctxlint.engine import lint_paths
from ctxlint.resolution.names import llamacpp_cache_file, parse_ref
from ctxlint.resolution.resolve import resolve

_CACHE = "/home/u/.cache/llama.cpp/"


@pytest.mark.parametrize("stem, repo, file", [
    # sweep k31: a split file in a quantization's subfolder (`UD-Q8_K_XL/...`), the '/' written '_' too
    ("unsloth_Qwen3-Coder-Next-GGUF_UD-Q8_K_XL_Qwen3-Coder-Next-UD-Q8_K_XL",
     "unsloth/Qwen3-Coder-Next-GGUF", "Qwen3-Coder-Next-UD-Q8_K_XL"),
    # bartowski writes the source's organisation into the repository's and the file's names with '_'
    ("bartowski_Qwen_QwQ-32B-GGUF_Qwen_QwQ-32B-Q4_K_M", "bartowski/Qwen_QwQ-32B-GGUF", "Qwen_QwQ-32B-Q4_K_M"),
    # TheBloke's file `<name>.<quant>` in lower case; the repository's is upper
    ("TheBloke_Llama-2-7B-Chat-GGUF_llama-2-7b-chat.Q4_K_M", "TheBloke/Llama-2-7B-Chat-GGUF", "llama-2-7b-chat.Q4_K_M"),
])
def test_a_llamacpp_cache_name_is_taken_apart_into_repository_and_file(stem, repo, file) -> None:
    assert llamacpp_cache_file(stem) == (repo, file)


@pytest.mark.parametrize("stem", [
    "unsloth_Qwen3-8B-GGUF_mmproj-F16",  # the repository's vision projector: not the repository's network
    "bartowski_Foo-GGUF_Qwen3-8B-Q4_K_M",  # file and repository name different networks: it reads no one way
    "Qwen3-8B-GGUF_Qwen3-8B-Q4_K_M",  # no organisation before the repository
    "unsloth_Qwen3-8B_Qwen3-8B-Q4_K_M",  # no `-GGUF` repository: where the repository ends is not said
    "mradermacher_Qwen3-8B-i1-GGUF_Qwen3-32B.i1-Q4_K_M",  # an `-i1` repository's file of another network
])
def test_a_name_that_does_not_read_one_way_is_not_a_cache_name(stem) -> None:
    assert llamacpp_cache_file(stem) is None


@pytest.mark.parametrize("file, arch, weights", [
    ("unsloth_Qwen3-Coder-Next-GGUF_UD-Q8_K_XL_Qwen3-Coder-Next-UD-Q8_K_XL-00001-of-00003.gguf",
     "Qwen/Qwen3-Next-80B-A3B-Thinking", "gguf-ud-q8-k-xl"),  # unsloth's dynamic Q8_K_XL (weights._GGUF)
    # bartowski's `_L` (Q6_K with embed and output at Q8_0): its base type's band to 8.5 bits (weights._GGUF)
    ("bartowski_Qwen_QwQ-32B-GGUF_Qwen_QwQ-32B-Q6_K_L.gguf", "Qwen/QwQ-32B", "gguf-q6-k-l"),
    ("unsloth_Qwen3-8B-GGUF_Qwen3-8B-Q4_K_M.gguf", "Qwen/Qwen3-8B", "gguf-q4-k-m"),
    ("bartowski_Qwen_QwQ-32B-GGUF_Qwen_QwQ-32B-Q4_K_M.gguf", "Qwen/QwQ-32B", "gguf-q4-k-m"),
    # mradermacher's imatrix repository `<name>-i1-GGUF` and its file `<name>.i1-<quant>` (read so outside the cache)
    ("mradermacher_Qwen3-8B-i1-GGUF_Qwen3-8B.i1-Q4_K_M.gguf", "Qwen/Qwen3-8B", "gguf-q4-k-m"),
])
def test_a_llamacpp_cache_file_resolves_and_says_how_it_was_read(file, arch, weights) -> None:
    # unresolved before: the whole `<org>_<repo>_<file>` was looked up as one name
    ref = parse_ref(_CACHE + file)
    assert (ref.weights and ref.weights.key) == weights and ref.local and ref.via == "gguf"
    found = resolve(_CACHE + file)
    assert found.arch.name == arch and found.via == "name"
    assert "read as llama.cpp's -hf cache name of " in found.match


@pytest.mark.parametrize("file", [
    "unsloth_GLM-4.7-Flash-REAP-23B-A3B-GGUF_GLM-4.7-Flash-REAP-23B-A3B-UD-Q4_K_XL.gguf",  # experts pruned (REAP)
    "mradermacher_Qwen3-8B-Pruned-GGUF_Qwen3-8B-Pruned.Q4_K_M.gguf",  # a pruned network
    "bartowski_Qwen3-8B-abc-merge-GGUF_Qwen3-8B-abc-merge-Q4_K_M.gguf",  # a merge keeps its own words
    "unsloth_Qwen3-8B-GGUF_mmproj-F16.gguf",  # the projector beside the model, not the model
    "bartowski_Foo-GGUF_Qwen3-8B-Q4_K_M.gguf",  # names that disagree: not read
])
def test_cache_names_of_other_networks_stay_unresolved(file) -> None:
    assert not resolve(_CACHE + file).resolved


@pytest.mark.parametrize("written, arch, said", [
    # sweep p29: a folder of unsloth's NVFP4 repack of Qwen3.8-27B, an organisation the catalog does not hold
    ("/models/unsloth--Qwen3.8-27B-NVFP4", "Qwen/Qwen3.5-27B", "read as unsloth/Qwen3.8-27B-NVFP4"),
    ("/srv/someone--Qwen3-8B", "Qwen/Qwen3-8B", "read as someone/Qwen3-8B"),
])
def test_an_org_dash_dash_name_folder_of_any_organisation_is_that_repository(written, arch, said) -> None:
    found = resolve(written)
    assert found.arch.name == arch and said in found.match and "written '--'" in found.match


@pytest.mark.parametrize("written", [
    "/models/someone--Qwen3-8B-REAP-4B",  # the name's own words: another network
    "/models/a--b--Qwen3-8B",  # a second "--": no repository id spells so
    "/models/a--Qwen3-8B--AWQ",  # ... nor so (read past the second "--", `Qwen3-8B--AWQ` is Qwen3-8B, AWQ)
    # halves validate_repo_id refuses: a name starting with '-' (`run/-Qwen3-8B`), one ending with '.', a ".."
    "/models/run---Qwen3-8B",
    "/models/org.--Qwen3-8B",
    "/models/a..b--Qwen3-8B",
    "/models/some_one--Qwen3-8B",  # '_' is no organisation's character
])
def test_dash_dash_folders_that_are_no_repository_stay_unresolved(written) -> None:
    assert not resolve(written).resolved


_SCRIPT = """#!/bin/bash
llama-server -m {model} -c 32768 -ngl 99 --port 8080
"""


@pytest.mark.parametrize("model", [
    _CACHE + "unsloth_Qwen3-8B-GGUF_Qwen3-8B-Q4_K_M.gguf",
    "/models/unsloth--Qwen3.8-27B-NVFP4",
])
def test_the_audit_judges_a_deployment_of_such_a_name(tmp_path, monkeypatch, model) -> None:
    # before: verdict unknown, "model not resolved"
    (tmp_path / "start.sh").write_text(_SCRIPT.format(model=model))
    monkeypatch.chdir(tmp_path)
    (row,) = build_audit(lint_paths(["."])).rows
    assert not row.why_unknown.startswith("model not resolved"), row.why_unknown
