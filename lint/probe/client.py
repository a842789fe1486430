"""The probe's HTTP side: the endpoint, the loopback guard, one POST at a time.

Standard library only (http.client): no runtime dependency for an optional
command. The host name is resolved once, checked, and the connection goes to that
address, so a name cannot resolve to loopback for the check and elsewhere for the
request.
"""
from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import time
from dataclasses import dataclass
from typing import Any, Dict, Mapping, Optional
from urllib.parse import urlsplit

from ctxlint.probe.errors import ProbeError

API_PATHS = {"chat": "/v1/chat/completions", "completions": "/v1/completions"}
MAX_BODY = 8 * 2**20  # more than any answer a 1-64-token completion needs


@dataclass(frozen=True)
class Endpoint:
    scheme: str
    host: str  # as written (sent as the Host header)
    port: int
    path: str
    address: str  # the resolved address the connection goes to

    @property
    def url(self) -> str:
        """The endpoint for messages: no user, password or query, which may hold secrets."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.path}"


@dataclass(frozen=True)
class Reply:
    status: Optional[int]  # None when no HTTP answer came (timeout, refused, reset)
    body: bytes
    seconds: float
    error: str = ""  # why there is no status: "timeout after 5 s", "connection refused", ...


def endpoint(url: str, api: str, allow_remote: bool) -> Endpoint:
    """Parse `url` (a base URL or the full API path) and refuse non-loopback hosts unless allowed."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProbeError(f"URL {_shown(url)}: expected http://HOST[:PORT][/v1]")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as exc:
        raise ProbeError(f"URL {_shown(url)}: {exc}") from None
    path = parts.path.rstrip("/")
    if not path.endswith(tuple(API_PATHS.values())):
        path = (path[:-3] if path.endswith("/v1") else path) + API_PATHS[api]
    address = _resolve(parts.hostname, port)
    if not allow_remote and not _loopback(address):
        raise ProbeError(f"{parts.hostname} ({address}) is not a loopback address: the probe sends over-long "
                         "prompts and canary data, so it refuses other hosts unless --allow-remote is given")
    return Endpoint(parts.scheme, parts.hostname, port, path, address)


def _shown(url: str) -> str:
    parts = urlsplit(url)
    return url.replace(parts.password, "***") if parts.password else url


def _resolve(host: str, port: int) -> str:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ProbeError(f"cannot resolve {host}: {exc}") from None
    addresses = [info[4][0] for info in infos]
    # A name with any non-loopback address is remote: connecting to the first one only
    # would make the guard depend on the resolver's order.
    remote = [a for a in addresses if not _loopback(a)]
    return remote[0] if remote else addresses[0]


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


def post(target: Endpoint, payload: Mapping[str, Any], headers: Mapping[str, str], timeout: float) -> Reply:
    """POST `payload` as JSON; every failure becomes a Reply with `error` set, never an exception."""
    body = json.dumps(payload).encode("utf-8")
    sent: Dict[str, str] = {"Content-Type": "application/json", "Accept": "application/json",
                            "Host": target.host if target.port in (80, 443) else f"{target.host}:{target.port}"}
    sent.update(headers)
    if target.scheme == "https":
        import ssl

        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context())
    else:
        conn = http.client.HTTPConnection(target.address, target.port, timeout=timeout)
    start = time.monotonic()
    try:
        conn.request("POST", target.path, body=body, headers=sent)
        response = conn.getresponse()
        data = response.read(MAX_BODY)
        return Reply(response.status, data, time.monotonic() - start)
    except socket.timeout:
        return Reply(None, b"", time.monotonic() - start, f"no answer within the {timeout:g} s timeout")
    except ConnectionRefusedError:
        return Reply(None, b"", time.monotonic() - start, "connection refused")
    except (OSError, http.client.HTTPException) as exc:
        return Reply(None, b"", time.monotonic() - start, f"{type(exc).__name__}: {exc}".rstrip(": "))
    finally:
        conn.close()
