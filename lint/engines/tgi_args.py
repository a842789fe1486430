"""Flags TGI's launcher does not have. `text-generation-launcher` parses with clap (`Args::parse()`), which exits
at start-up on a flag no argument has: "error: unexpected argument '--NAME' found" (clap-rs/clap@56fe5e0:
clap_builder/src/parser/parser.rs parse_long_arg, NoMatchingArg; @1c7d02e: clap_builder/src/error/format.rs).
ctxlint's own table (flags_tgi.py) lists only the flags it reads, so the launcher's whole argument list is kept
here: every `#[clap(long ...)]` / `short` field of `struct Args` in launcher/src/main.rs at each release tag from
v0.2.0 to v3.3.7 (huggingface/text-generation-inference@dfb3fbe, v3.3.7), a field's name kebab-cased, and clap's
own --help/-h/--version/-V. The TensorRT-LLM backend (backends/trtllm/src/main.rs, v2.3.0-v3.3.7) has arguments of
its own, and its image installs that binary as text-generation-launcher (backends/trtllm/Dockerfile in v2.3.x,
Dockerfile_trtllm from v2.4.0; tagged `-trtllm`, .github/workflows/build.yaml LABEL_EXTENSION): those are refused
on a TGI image without `trtllm` in its name or tag, banded by release on one with it, and not judged where the image
is not known (`trtllm_args`). Environment variables are not flags: a setting given only by its env var
(`MAX_TOTAL_TOKENS`, `ATTENTION`) never reaches here.
"""
from __future__ import annotations

from typing import Iterable, Optional

from .result import Problem

# In some releases only: (first release that has it, first release after it without it again); None: from the
# first tag read (v0.2.0), or still in v3.3.7
_BANDED = {
    "--api-key": ("2.3.0", None),
    "--cuda-graphs": ("2.0.0", None),
    "--cuda-memory-fraction": ("0.9.4", None),
    "--disable-crash-reports": ("2.2.0", "2.3.0"),
    "--disable-custom-kernels": ("0.3.0", None),
    "--disable-grammar-support": ("1.4.1", None),
    "--disable-usage-stats": ("2.2.0", "2.3.0"),
    "--dtype": ("0.9.0", None),
    "--enable-cuda-graphs": ("1.4.1", "2.0.0"),
    "--enable-prefill-logprobs": ("3.0.0", None),
    "--env": ("0.7.0", None),
    "--graceful-termination-timeout": ("3.2.2", None),
    "--huggingface-hub-cache": ("0.3.0", None),
    "--kv-cache-dtype": ("2.4.0", None),
    "--lora-adapters": ("2.1.0", None),
    "--ngrok": ("0.9.0", None),
    "--ngrok-authtoken": ("0.9.0", None),
    "--ngrok-domain": ("0.9.0", "0.9.4"),
    "--ngrok-edge": ("0.9.4", None),
    "--ngrok-password": ("0.9.0", "0.9.4"),
    "--ngrok-username": ("0.9.0", "0.9.4"),
    "--rope-factor": ("1.0.1", None),
    "--rope-scaling": ("1.0.1", None),
    "--sharded": ("0.4.0", None),
    "--speculate": ("1.3.0", None),
    "--trust-remote-code": ("0.7.0", None),
    "--waiting-served-ratio": ("0.7.0", None),
    "--watermark-delta": ("0.3.2", None),
    "--watermark-gamma": ("0.3.2", None),
    "--weights-cache-override": ("0.3.0", None),
    "-e": ("0.7.0", None),
    "-g": ("3.2.2", None),
    # also the TensorRT-LLM backend's (v2.3.0 on): a launcher before v2.4.0 that lacks them is refused
    # (--payload-limit 2.4.1 and --prometheus-port 3.3.0 too: backends/trtllm/src/main.rs got each in the same
    # release as the launcher; v2.4.0's has no payload_limit, v3.2.3's no prometheus_port)
    "--cors-allow-origin": ("0.3.1", None),
    "--hostname": ("0.9.1", None),
    "--max-batch-prefill-tokens": ("0.9.0", None),
    "--max-batch-total-tokens": ("0.7.0", None),
    "--max-best-of": ("0.4.0", None),
    "--max-client-batch-size": ("2.0.1", None),
    "--max-input-tokens": ("2.0.0", None),
    "--max-stop-sequences": ("0.3.2", None),
    "--max-top-n-tokens": ("1.0.3", None),
    "--max-total-tokens": ("0.3.2", None),
    "--otlp-endpoint": ("0.3.0", None),
    "--otlp-service-name": ("2.1.0", None),
    "--tokenizer-config-path": ("1.4.0", None),
    "--usage-stats": ("2.3.0", None),
    "--validation-workers": ("0.9.2", None),
    "--prometheus-port": ("3.3.0", None),
}
# In every release from v0.2.0 to v3.3.7, or clap's own (--max-batch-size was left out of 0.9.0-1.4.0 and is back
# since; not banded: ctxlint's table bands it)
_KNOWN = frozenset((
    "--json-output", "--master-addr", "--master-port", "--max-batch-size", "--max-concurrent-requests",
    "--max-input-length", "--max-waiting-tokens", "--model-id", "--num-shard", "--payload-limit", "--port",
    "--quantize", "--revision", "--shard-uds-path", "-p",
    "--help", "-h", "--version", "-V",
))
# The TensorRT-LLM backend's own arguments, which no launcher release has: (first release whose backend has it, first
# without it again) from backends/trtllm/src/main.rs `struct Args` at each tag v2.3.0-v3.3.7 (messages_api_enabled
# in v2.3.0-v2.3.1 only, max_image_fetch_size from v3.3.7)
_TRTLLM = {
    "--auth-token": ("2.3.0", None),
    "--executor-worker": ("2.3.0", None),
    "--tokenizer-name": ("2.3.0", None),
    "--messages-api-enabled": ("2.3.0", "2.4.0"),
    "--max-image-fetch-size": ("3.3.7", None),
}
_SAID = "text-generation-launcher exits with \"error: unexpected argument '{}' found\""


def judged(launcher: Optional[str]) -> bool:
    """Whether the front door is TGI's launcher (or the TRT-LLM backend's, whose flags are known too): not the
    llama.cpp backend's router (Dockerfile_llamacpp: text-generation-router-llamacpp) nor the tgi-gaudi fork's."""
    text = (launcher or "").lower()
    return not ("llamacpp" in text or "gaudi" in text)


def unknown_args(unknown: Iterable[Problem], launcher: Optional[str] = None) -> list[Problem]:
    """A refusal at each flag the parser did not know that no launcher release has, or that the release ctxlint
    may meet lacks (banded by release). A word of one dash and more than one letter (`-p8080`, clap's attached
    short value) is not judged; nor is the TRT-LLM backend's flag unless the launcher is an image (`image:NAME`)."""
    out: list[Problem] = []
    for p in unknown:
        name = p.flag or ""
        if not name.startswith("--") and len(name) != 2:
            continue
        if name in _KNOWN:
            continue
        if name in _TRTLLM:
            if launcher and launcher.startswith("image:"):
                out.extend(trtllm_args((p,), launcher[len("image:"):]))
            continue
        said = _SAID.format(name)
        band = _BANDED.get(name)
        if band is None:
            out.append(Problem(f"{said} (no release's launcher has {name}, v0.2.0 to v3.3.7)", p.token_index,
                               p.span, p.item, name))
            continue
        since, until = band
        if since:
            out.append(Problem(f"{said} (the launcher has {name} from {since} on)", p.token_index, p.span, p.item,
                               name, until=since))
        if until:
            out.append(Problem(f"{said} (the launcher dropped {name} in {until})", p.token_index, p.span, p.item,
                               name, since=until))
    return out


def trtllm_args(unknown: Iterable[Problem], image: Optional[str]) -> list[Problem]:
    """A refusal at each TRT-LLM backend flag among `unknown` given to a TGI image: always where the image's name
    and tag have no `trtllm` (its launcher has none of them), by release where they have; none where the image is
    not known to be TGI's (a command naming text-generation-launcher in an image ctxlint cannot tell)."""
    from .images import engine_from_image

    text = (image or "").lower()
    if not text or not judged(text) or engine_from_image(image)[0] != "tgi":
        return []
    out: list[Problem] = []
    for p in unknown:
        band = _TRTLLM.get(p.flag or "")
        if band is None:
            continue
        said = _SAID.format(p.flag)
        if "trtllm" not in text:
            out.append(Problem(f"{said} (only the TensorRT-LLM backend has {p.flag}, in TGI's `-trtllm` images; "
                               "this image's launcher has none of its flags)", p.token_index, p.span, p.item, p.flag))
            continue
        since, until = band
        if since != "2.3.0":
            out.append(Problem(f"{said} (the TensorRT-LLM backend has {p.flag} from {since} on)", p.token_index,
                               p.span, p.item, p.flag, until=since))
        if until:
            out.append(Problem(f"{said} (the TensorRT-LLM backend dropped {p.flag} in {until})", p.token_index,
                               p.span, p.item, p.flag, since=until))
    return out
