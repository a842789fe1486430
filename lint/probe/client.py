"""The probe's HTTP side: the endpoint, the loopback guard, one POST at a time.

Standard library only (http.client): no runtime dependency for an optional
command. The host name is resolved once, checked, and connections go to those addresses,
so a name cannot resolve to loopback for the check and elsewhere for the request.
"""
from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import time
from typing import Any, Dict, Mapping, Optional, Tuple
from urllib.parse import urlsplit

from ctxlint.probe.errors import ProbeError

from ..records import record

API_PATHS = {"chat": "/v1/chat/completions", "completions": "/v1/completions"}
MAX_BODY = 8 * 2**20  # more than any answer a 1-64-token completion needs


@record(frozen=True)
class Endpoint:
    scheme: str
    host: str  # as written (sent as the Host header)
    port: int
    path: str
    addresses: Tuple[str, ...]  # the resolved addresses the connection goes to, tried in order

    @property
    def url(self) -> str:
        """The endpoint for messages: no user, password or query, which may hold secrets."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}{self.path}"


@record(frozen=True)
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
    addresses = _resolve(parts.hostname, port)
    remote = [a for a in addresses if not _loopback(a)]
    # A name with any non-loopback address is remote: which one a connection takes
    # would depend on the resolver's order.
    if remote and not allow_remote:
        raise ProbeError(f"{parts.hostname} ({remote[0]}) is not a loopback address: the probe sends over-long "
                         "prompts and canary data, so it refuses other hosts unless --allow-remote is given")
    return Endpoint(parts.scheme, parts.hostname, port, path, addresses)


def _shown(url: str) -> str:
    parts = urlsplit(url)
    return url.replace(parts.password, "***") if parts.password else url


def _resolve(host: str, port: int) -> Tuple[str, ...]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise ProbeError(f"cannot resolve {host}: {exc}") from None
    return tuple(dict.fromkeys(info[4][0] for info in infos))  # in the resolver's order, once each


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
    start = time.monotonic()
    failure = "no address to connect to"
    for address in target.addresses:  # localhost may give ::1 first while the server listens on 127.0.0.1
        conn = _PinnedHTTPS(target.host, address, target.port, timeout) if target.scheme == "https" else \
            http.client.HTTPConnection(address, target.port, timeout=timeout)
        try:
            conn.connect()
        except socket.timeout:
            conn.close()
            return Reply(None, b"", time.monotonic() - start, f"no connection within the {timeout:g} s timeout")
        except OSError as exc:
            conn.close()
            failure = "connection refused" if isinstance(exc, ConnectionRefusedError) else _why(exc)
            continue
        try:
            conn.request("POST", target.path, body=body, headers=sent)
            response = conn.getresponse()
            return Reply(response.status, response.read(MAX_BODY), time.monotonic() - start)
        except socket.timeout:
            return Reply(None, b"", time.monotonic() - start, f"no answer within the {timeout:g} s timeout")
        except (OSError, http.client.HTTPException) as exc:
            return Reply(None, b"", time.monotonic() - start, _why(exc))
        finally:
            conn.close()
    return Reply(None, b"", time.monotonic() - start, failure)


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".rstrip(": ")


class _PinnedHTTPS(http.client.HTTPSConnection):
    """TLS to the address that passed the loopback check, verified against the host name."""

    def __init__(self, host: str, address: str, port: int, timeout: float) -> None:
        import ssl

        super().__init__(host, port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)
