"""What a model reference says by its spelling alone: repository, bare name, weight format.

Deploy files name models in many ways: a Hugging Face id (`Qwen/Qwen3-32B-AWQ`), a
quantizer's re-upload (`neuralmagic/Meta-Llama-3.1-70B-Instruct-FP8`), a URI
(`hf://org/name`, `pvc://claim/org/name`), a local path (`/models/Qwen3-8B`), a Hugging
Face cache folder (`.../models--Qwen--Qwen3-8B/snapshots/<sha>`), a folder laid out by revision
(`/models/microsoft/phi-2/main`), a GGUF file
(`/path/Qwen_QwQ-32B-Q4_K_M.gguf`) or llama.cpp's `-hf repo:quant`. `parse_ref` takes
the text apart; it never guesses an architecture. Only quantization tags ctxlint knows
are removed from the end of a name (exactly, token by token), so `Qwen2.5-7B-Instruct-1M`
keeps its `-1M` and can only match a catalog entry of that exact name.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Optional, Tuple

from ctxlint.lazyre import lazy_compile
from ctxlint.physics.weights import WeightFormat, gguf_format, named_format

from ..records import record

# `scheme://` prefixes whose remainder is a repository id or a path ending in one (`hdfs`, `webhdfs`: KServe's
# storage types beside s3, kserve/kserve@aaac4e294dae2c7b1aa1886447793f3aa1c30912: pkg/credentials/
# service_account_credentials.go SupportedStorageSpecTypes; `storage://KEY/PATH`: a KServe `storage.path` whose
# type is its storage secret's, crds_kserve.storage_path).
_URI = lazy_compile(r"^(?:hf|huggingface|s3|gs|gcs|pvc|oci|azureml|az|https?|file|ms|modelscope|hdfs|webhdfs|"
                    r"storage)://", re.I)
_HF_HOSTS = lazy_compile(r"^(?:https?://)?(?:www\.)?(?:huggingface\.co|hf\.co)/", re.I)
# A Hub user's or organisation's name, and a repository's name, as huggingface_hub's validate_repo_id admits them
# (REPO_ID_REGEX: \w, '-' and '.', a word character first and last, at most 96; no "..", no ".git" at the end):
# `run---X` (`run/-X`) or `org.--X` is no id written with '--'. No '_' in the organisation's (dashed_id)
_NAMESPACE = lazy_compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,94}[A-Za-z0-9])?")
_REPO_NAME = lazy_compile(r"\w(?:[\w.-]{0,94}\w)?")
_CACHE_DIR = lazy_compile(r"(?:^|/)models--([^/]+?)--([^/]+)(?:/|$)")
# Quantization tags at the end of a name, lower case with '_' read as '-'. Longest first: a tag that ends with
# another (`quantized.w4a16`, RedHat's and Neural Magic's) before it, or the shorter leaves `-quantized` behind.
_QUANT_TAGS = (
    "int4-autoround", "unsloth-bnb-4bit", "bnb-4bit", "bnb-8bit", "fp8-static-pertensor", "fp8-static-per-tensor", "fp8-dynamic",
    "fp8-static", "fp8-block", "fp8-kv", "fp8-e4m3", "w8a8-fp8", "fp8", "quantized.w8a8", "quantized.w4a16",
    "quantized.w8a16", "w8a8-int8", "w8a8", "w8a16", "w4a16-g128", "w4a16", "awq-int4", "int4-awq",
    "awq", "gptq-int4", "gptq-int8", "gptq-4bit", "gptq-8bit", "gptq", "int4", "int8", "nvfp4", "mxfp4",
    "mxfp8", "fp4", "4bit", "8bit",
    # a float dtype: the network's own weights at that width (`DeepSeek-R1-0528-BF16`, a 16-bit copy of an FP8
    # checkpoint, as deepseek-ai/DeepSeek-V3@dca08f2cfd5d451f4d0ce2279c6c2e67f712acb9:inference/fp8_cast_bf16.py
    # writes one; TheBloke's `Llama-2-7B-fp16`), so the name states the format
    "bf16", "fp16", "fp32",
)
# GGUF file quantization tags (llama.cpp `llama-quantize` names), with unsloth's `UD-` prefix, after a '-'
# (bartowski's `Qwen_QwQ-32B-Q4_K_M.gguf`) or a '.' (TheBloke's, QuantFactory's and mradermacher's
# `Meta-Llama-3.1-8B-Instruct.Q8_0.gguf`).
_GGUF_TAG = lazy_compile(r"(?:^|[-.])((?:ud-)?(?:i?q[1-8](?:-[a-z0-9]+){0,2}|f16|bf16|f32))$")


@record(frozen=True)
class ModelRef:
    """A model reference taken apart. `keys` are the names to look up, most specific first."""

    written: str
    repo_id: Optional[str]  # "org/name" when the text carries one
    name: str  # the bare name as written (last path segment, GGUF tag and extension kept)
    base: str  # the bare name without known quantization tags, lower case, '_' as '-'
    weights: Optional[WeightFormat]  # what the name says about the weights
    local: bool  # a filesystem path (not a repository id)
    via: str  # how the name was found: "id", "uri", "path", "hf-cache", "gguf"
    read_as: str = ""  # how a name a tool composed was taken apart (llamacpp_cache_file), said in the match

    @property
    def org(self) -> Optional[str]:
        return self.repo_id.split("/", 1)[0] if self.repo_id else None


def norm(name: str) -> str:
    """Lower case, '_' and spaces read as '-', runs of '-' collapsed (catalog keys use this)."""
    s = name.strip().lower().replace("_", "-").replace(" ", "-")
    while "--" in s:  # as re.sub("-+", "-"), without a regex call per catalog name
        s = s.replace("--", "-")
    return s.strip("-")


def strip_quant(bare: str, gguf: bool) -> Tuple[str, Optional[WeightFormat]]:
    """`bare` (normalized) without trailing quantization tags, and the format they name."""
    found: Optional[WeightFormat] = None
    changed = True
    while changed and bare:
        changed = False
        if gguf:
            if bare.endswith("-gguf"):
                bare, changed = bare[:-5], True
                found = found or named_format("gguf")
                continue
            match = _GGUF_TAG.search(bare)
            if match and match.start(1) > 0:
                # the last type tag is the file's; one before it only refines a repository's bare `-GGUF`. A float
                # type under a quantization (mradermacher's `Ministral-3-8B-Instruct-2512-BF16.Q4_K_M.gguf`,
                # `<repo>.<quant>`) is the source release's dtype, not the file's
                if found is None or found.key == "gguf":
                    found = gguf_format(match.group(1)) or found
                bare, changed = bare[:match.start(1)].rstrip("-."), True
                if bare.endswith(".i1"):
                    # mradermacher's imatrix ("weighted") quantizations, `<name>.i1-Q5_K_M.gguf`: `i1` marks how the
                    # tag's format was quantized, not the network
                    bare = bare[:-3]
                continue
        if found is not None and bare.endswith("-qat"):
            # quantization-aware training (Google's `gemma-3-27b-it-qat-q4_0-gguf`, re-uploads' `-it-qat-AWQ-INT4`):
            # the network is the base's, the tag after it names the format; alone (`-qat`) it names none, so kept
            bare, changed = bare[:-4], True
            continue
        for tag in _QUANT_TAGS:
            if bare.endswith("-" + tag) or bare.endswith("." + tag):
                found = found or named_format(tag)
                bare, changed = bare[:-len(tag) - 1], True
                break
    return bare, found


def unabliterated(base: str) -> Tuple[Optional[str], str]:
    """`base` (a ModelRef's) without an abliteration's tag, and the words that say what was dropped; (None, "")
    when it carries none. Abliteration projects a refusal direction out of the weight matrices, W - (W d) d^T
    (Arditi et al., "Refusal in LLMs is mediated by a single direction";
    jwest33/abliterator@49040f78eed9bf9c4e0e305ce5ad2698e2869c95:README.md, Orthogonal Projection): every
    matrix keeps its shape, so the config, the KV cache and the weight count are the base's. huihui-ai's
    releases carry `Huihui-` before the base's name (`Huihui-Qwen3-4B-Instruct-2507-abliterated`), bartowski's
    copies `huihui-ai_`; either is dropped only beside the tag. A fine-tune or a merge named with the tag
    (`Huihui-Qwen3.5-27B-Claude-4.6-Opus-abliterated`) keeps its own words and matches no base."""
    if not base.endswith("-abliterated") or base == "-abliterated":
        return None, ""
    rest, dropped = base[:-len("-abliterated")], "its '-abliterated' tag"
    for prefix in ("huihui-ai-", "huihui-"):
        if rest.startswith(prefix) and len(rest) > len(prefix):
            rest, dropped = rest[len(prefix):], f"its '{prefix[:-1]}' prefix and '-abliterated' tag"
            break
    return rest, dropped + " (an abliteration keeps its base's network: the refusal direction is projected out of " \
        "the weights, each matrix keeps its shape)"


def parse_ref(text: str) -> Optional[ModelRef]:
    """Take a model reference apart; None for empty or non-text values."""
    if not isinstance(text, str) or not text.strip():
        return None
    return _parse_text(text)


@lru_cache(maxsize=4096)  # a pure function of the text (a frozen result), asked once per deployment
def _parse_text(text: str) -> Optional[ModelRef]:
    written = text.strip()
    s, via, tag = written, "id", ""
    # Each pattern is tried only where the text has what it needs ("models--", ".co/" in any case, "://"): most
    # names are a plain `org/name`, and a run then compiles none of them (~1 ms of a one-file check).
    cache = _CACHE_DIR.search(s) if "models--" in s else None
    if cache:
        repo_id = f"{cache.group(1)}/{cache.group(2)}"
        if not s.lower().endswith(".gguf"):
            return _ref(written, repo_id, cache.group(2), local=True, via="hf-cache")
        # a GGUF file of a cached GGUF repository (`.../models--unsloth--Qwen3.5-122B-A10B-GGUF/snapshots/<sha>/
        # Q4_K_M/Qwen3.5-122B-A10B-Q4_K_M-00001-of-00003.gguf`, sweep c28: miminashi/llm-server-ops): llama.cpp
        # loads that file, so its name says the network and the quantization, as a GGUF path outside a cache does;
        # the folder's `X-GGUF` names a repository of many quantizations, none of them
        name = re.sub(r"-\d{5}-of-\d{5}$", "", s.replace("\\", "/").rsplit("/", 1)[-1][:-5])
        return _ref(written, repo_id, name, local=True, via="gguf", gguf=True)
    if ".co/" in s.lower() and _HF_HOSTS.match(s):
        s, via = _HF_HOSTS.sub("", s), "uri"
        s = re.split(r"/(?:tree|blob|resolve)/", s)[0]
    elif "://" in s and _URI.match(s):
        s, via = _URI.sub("", s), "uri"
    if ":" in s and not s.startswith("/") and re.match(r"^[\w.-]+/[\w.-]+:[\w.-]+$", s):
        s, tag = s.split(":", 1)  # llama.cpp `-hf org/name:quant`, Ollama-style tags
    local = s.startswith(("/", "./", "../", "~")) or via == "uri" and written.lower().startswith(("pvc:", "file:"))
    parts = [p for p in s.replace("\\", "/").split("/") if p and p not in (".", "..", "~")]
    # a path below a directory not known (engines/model_folder.py: `$HOME/models/NAME`, `` `pwd`/NAME ``,
    # `models/$VARIANT/NAME`): the segments typed after its last unknown part; no repository id holds `$` or "`"
    typed = parts if any(ch in p for p in parts for ch in "$`") else []
    while typed and any(ch in p for p in typed for ch in "$`()"):
        typed = typed[1:]
    if typed:
        local, parts = True, typed
    if not parts:
        return None
    if via == "id" and len(parts) > 2 and not parts[-1].lower().endswith(".gguf"):
        # a Hub repository id is exactly `org/name`, so `outs/run1/internlm2-20b_sft` is a folder below the working
        # directory (as `/models/org/name` is one below /), never an id `ctxlint models lock` could fetch. A GGUF
        # file is not: vLLM downloads `<repo_id>/<filename>.gguf` from the Hub when no such local file exists
        # (vllm-project/vllm@0328802bed2bb6ca346ea10acb61221a0c607768:vllm/model_executor/model_loader/
        # gguf_loader.py GGUFModelLoader._prepare_weights), so `unsloth/Qwen3-8B-GGUF/Qwen3-8B-Q4_K_M.gguf` may
        # be a repository's file: read as before, by its file name
        local = True
    while len(parts) > 1 and len(parts[-1]) in (9, 40) and re.fullmatch(r"(?:snapshots|[0-9a-f]{40})", parts[-1]):
        parts.pop()  # .../snapshots/<sha>: the name is above
    if len(parts) > 2 and parts[-1] == "main":
        parts.pop()  # `/models/<org>/<name>/main`: a download laid out by revision, the Hub's default one
    gguf = parts[-1].lower().endswith(".gguf") or "gguf" in s.lower()
    name = parts[-1]
    if name.lower().endswith(".gguf"):
        name = name[:-5]
        via = "gguf"
        name = re.sub(r"-\d{5}-of-\d{5}$", "", name)  # split GGUF shards
        cached = llamacpp_cache_file(name) if "-gguf_" in name.lower() else None
        if cached is not None:
            repo, file = cached
            base, weights = strip_quant(norm(file), True)
            return ModelRef(written, repo, file, base, weights or named_format("gguf"), True, via,
                            f"llama.cpp's -hf cache name of {repo}'s file {file}")
    # The last two segments may be "org/name" (`pvc://claim/org/name`, `/models/org/name`); a
    # wrong pair (`models/Qwen3-8B`) simply matches no catalog id, and the bare name is tried next.
    repo_id = "/".join(parts[-2:]) if len(parts) >= 2 else None
    ref = _ref(written, repo_id, name, local, via, gguf)
    match = _GGUF_TAG.search(norm(tag)) if tag and gguf else None
    if match and gguf_format(match.group(1)) is not None:
        ref = ModelRef(ref.written, ref.repo_id, ref.name, ref.base, gguf_format(match.group(1)), ref.local, ref.via)
    return ref


def dashed_id(folder: str) -> bool:
    """`folder` is a repository id `org/name` written `org--name` (huggingface_hub's cache folder without its
    `models--`): an id holds no "--" (huggingface/huggingface_hub@b7f86ddc2e42fa6364ecf2f8dc7b158acd40935b:src/
    huggingface_hub/utils/_validators.py validate_repo_id), so exactly one "--" parts it one way, whatever the
    organisation. An organisation's name holds no '_' (`some_one--X` is not one); a '_' elsewhere may be a name's own
    character, so `org_name` is read only for the catalog's organisations (resolve._normalized)."""
    org, found, rest = folder.partition("--")
    return bool(found and "--" not in rest and _NAMESPACE.fullmatch(org) and _REPO_NAME.fullmatch(rest)
                and ".." not in folder and not rest.lower().endswith(".git"))


def llamacpp_cache_file(name: str) -> Optional[Tuple[str, str]]:
    """(repository id, file name) of a GGUF file llama.cpp's `-hf org/repo[:quant]` saved in its cache as
    `<org>_<repo>_<path in the repository>` with each '/' written '_' (ggml-org/llama.cpp#10550, from Nov 2024
    until the Hugging Face cache layout of ggml-org/llama.cpp#20775; `name` without `.gguf` and shard suffix).
    The join is lossy ('_' is also a name's character), so it is taken apart only where it reads one way: a
    repository named `<X>-GGUF` after the first '_' (a GGUF repository's convention), and a file name after a
    later '_' whose network is the repository's (both X once their quantization tags are removed); else None."""
    lower = name.lower()
    start = lower.find("-gguf_")
    while start > 0:
        org, sep, repo = name[:start + 5].partition("_")
        network = strip_quant(norm(repo), True)[0] if sep and org and repo else ""
        if network.endswith("-i1"):
            # mradermacher's imatrix repository `<name>-i1-GGUF` holds `<name>.i1-<quant>.gguf`
            # (https://huggingface.co/mradermacher/Qwen3-8B-i1-GGUF/resolve/main/Qwen3-8B.i1-Q4_K_M.gguf), whose
            # network strip_quant reads without its `.i1`: the repository's is the name's too
            network = network[:-3]
        rest = name[start + 6:]
        cuts = [-1] + [i for i, c in enumerate(rest) if c == "_"]
        for cut in cuts:  # the longest tail first: a subfolder (`UD-Q8_K_XL/`) is before the file's own name
            file = rest[cut + 1:]
            if network and file and strip_quant(norm(file), True)[0] == network:
                return f"{org}/{repo}", file
        start = lower.find("-gguf_", start + 1)
    return None


def _ref(written: str, repo_id: Optional[str], name: str, local: bool, via: str, gguf: bool = False) -> ModelRef:
    base, weights = strip_quant(norm(name), gguf)
    if weights is None and via == "gguf":
        # a `.gguf` file whose name states no type ctxlint knows (`Model.gguf`, a new llama-quantize or unsloth
        # tag): its weights are some GGUF type, 1.56 to 16 bits, never the base's 16-bit checkpoint as a bound
        weights = named_format("gguf")
    return ModelRef(written, repo_id, name, base, weights, local, via)


def hub_uri(ref: ModelRef) -> bool:
    """The reference names a Hugging Face repository by URI or URL (`hf://`, `https://huggingface.co/...`), not a
    storage bucket's folder."""
    return ref.written.lower().startswith(("hf://", "huggingface://", "http", "hf.co/", "huggingface.co/"))
