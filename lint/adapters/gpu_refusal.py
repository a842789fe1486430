"""A `docker run --gpus VALUE` that Docker refuses, as CTX002 at the value: the container never starts, so no
capacity verdict on it means anything. The common case is a device list typed without the quotes the CLI's CSV
reading needs: `--gpus device=0,1` is the fields `device=0` and `1` (a count), and the daemon refuses a count beside
devices ("cannot set both Count and DeviceIDs on device request"); Docker's docs type it `--gpus '"device=0,1"'`
(docs.docker.com/reference/cli/docker/container/run/#gpus). Which values are refused: gpu_values.csv_refusal."""
from __future__ import annotations

from ctxlint.findings import Diagnostic

SCHEMA_VIOLATION = "schema-violation"


def refused_gpus(request, span_source) -> Diagnostic:
    """The finding for a refused docker_run.GpuRequest, at its value; `span_source(item, span)` places it."""
    value = _value(request)
    quoted = ""
    if "," in value and not value.startswith('"') and "device=" in value:
        quoted = f"; quote the device list as one CSV field: --gpus '\"{value}\"'"
    return Diagnostic(SCHEMA_VIOLATION, f"docker run --gpus {value}: Docker refuses it ({request.refused}), so the "
                                        f"container never starts{quoted}",
                      span_source(request.token.item, request.span))


def _value(request) -> str:
    text = request.token.text
    return text[len("--gpus="):] if text.startswith("--gpus=") else text
