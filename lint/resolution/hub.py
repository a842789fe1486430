"""Fetch a model's architecture facts from the Hugging Face Hub (the optional `hub` extra).

huggingface_hub brings what a real user's setup needs: `HF_ENDPOINT` (a mirror or a
private hub), tokens (`HF_TOKEN` or `huggingface-cli login`), `HF_HUB_OFFLINE` and its
cache. Only config.json and the safetensors metadata are read; nothing is executed.
"""
from __future__ import annotations

import datetime
import json
from typing import Any, Dict, Optional

from ctxlint.resolution.lockfile import arch_facts

INSTALL = "pip install 'ctxlint[hub]'"


class HubError(Exception):
    """A model could not be fetched; the message says why and what to do."""


def available() -> bool:
    try:
        import huggingface_hub  # noqa: F401
    except ImportError:
        return False
    return True


def fetch_entry(model_id: str, token: Optional[str] = None, today: Optional[str] = None) -> Dict[str, Any]:
    """A lock entry for `model_id`: its architecture facts at the current revision."""
    try:
        from huggingface_hub import HfApi, hf_hub_download
        from huggingface_hub import errors
    except ImportError:
        raise HubError(f"huggingface_hub is not installed: {INSTALL}") from None
    api = HfApi(token=token)
    try:
        info = api.model_info(model_id, expand=["sha", "safetensors"])
        path = hf_hub_download(model_id, "config.json", revision=info.sha, token=token)
    except errors.GatedRepoError:
        raise HubError("gated on the Hub: accept its licence there, then set HF_TOKEN") from None
    except errors.RepositoryNotFoundError:
        raise HubError("not found on the Hub (a private repository needs HF_TOKEN)") from None
    except (errors.EntryNotFoundError, getattr(errors, "RemoteEntryNotFoundError", errors.EntryNotFoundError)):
        raise HubError("the repository has no config.json (a GGUF-only repo? point ctxlint at the .gguf file)") \
            from None
    except (errors.OfflineModeIsEnabled, errors.LocalEntryNotFoundError):
        raise HubError("HF_HUB_OFFLINE is set (or the Hub is unreachable and nothing is cached): unset it to "
                       "fetch") from None
    except errors.HFValidationError:
        raise HubError("not a Hub repository id (org/name)") from None
    except errors.HfHubHTTPError as exc:
        raise HubError(f"the Hub answered {getattr(exc.response, 'status_code', '?')}: {str(exc).splitlines()[0]}") \
            from None
    except (OSError, ValueError) as exc:  # connection errors, timeouts, a malformed answer
        raise HubError(f"cannot reach the Hub: {type(exc).__name__}: {exc}") from None
    try:
        with open(path, encoding="utf-8") as handle:
            config = json.load(handle)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise HubError(f"config.json is not readable JSON: {exc}") from None
    if not isinstance(config, dict):
        raise HubError("config.json is not a JSON object")
    entry: Dict[str, Any] = {
        "revision": info.sha or "",
        "source": f"https://huggingface.co/{model_id}/blob/{info.sha}/config.json" if info.sha else
        f"https://huggingface.co/{model_id}",
        "fetched": today or datetime.date.today().isoformat(),
        "config": arch_facts(config),
    }
    safetensors = getattr(info, "safetensors", None)
    params = getattr(safetensors, "parameters", None) if safetensors is not None else None
    if isinstance(params, dict) and params:
        entry["safetensors"] = {str(k): int(v) for k, v in sorted(params.items())}
    return entry
