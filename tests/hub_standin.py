"""A loopback HTTP server that answers like the Hugging Face Hub, for `ctxlint models lock`.

It serves the two things huggingface_hub asks for: `GET /api/models/<repo>` (model info
with `sha` and `safetensors`) and `HEAD`/`GET /<repo>/resolve/<revision>/config.json`,
with the headers the client reads (X-Repo-Commit, ETag, Content-Length) and the Hub's
error codes (401 + X-Error-Code: RepoNotFound for a private repo without its token,
404 EntryNotFound for a missing file). Every request is recorded.
"""
from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, List, Optional


@dataclass
class Repo:
    sha: str
    config: Optional[dict]  # None: the repository has no config.json
    safetensors: Dict[str, int] = field(default_factory=dict)
    token: Optional[str] = None  # a private repository: this bearer token only


class HubStandIn:
    def __init__(self, repos: Dict[str, Repo]) -> None:
        self.repos = repos
        self.requests: List[str] = []
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:  # noqa: N802
                hub.answer(self, head=True)

            def do_GET(self) -> None:  # noqa: N802
                hub.answer(self, head=False)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "HubStandIn":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _send(self, h, status: int, body: bytes, headers: Dict[str, str], head: bool) -> None:
        h.send_response(status)
        for key, value in headers.items():
            h.send_header(key, value)
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if not head:
            h.wfile.write(body)

    def _error(self, h, status: int, code: str, head: bool) -> None:
        self._send(h, status, json.dumps({"error": code}).encode(),
                   {"Content-Type": "application/json", "X-Error-Code": code, "X-Error-Message": code}, head)

    def answer(self, h, head: bool) -> None:
        path = h.path.split("?", 1)[0]
        self.requests.append(f"{h.command} {path}")
        info = re.fullmatch(r"/api/models/([^/]+/[^/]+)(?:/revision/([^/]+))?", path)
        file = re.fullmatch(r"/([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
        repo_id = (info or file).group(1) if (info or file) else None
        repo = self.repos.get(repo_id) if repo_id else None
        if repo is None or (repo.token and h.headers.get("Authorization") != f"Bearer {repo.token}"):
            self._error(h, 401 if repo is not None or repo_id else 404, "RepoNotFound", head)
            return
        if info:
            body = {"_id": repo_id, "id": repo_id, "modelId": repo_id, "sha": repo.sha, "private": bool(repo.token),
                    "siblings": [{"rfilename": "config.json"}] if repo.config is not None else []}
            if repo.safetensors:
                body["safetensors"] = {"parameters": repo.safetensors, "total": sum(repo.safetensors.values())}
            self._send(h, 200, json.dumps(body).encode(), {"Content-Type": "application/json"}, head)
            return
        if file.group(3) != "config.json" or repo.config is None:
            self._error(h, 404, "EntryNotFound", head)
            return
        data = json.dumps(repo.config).encode()
        self._send(h, 200, data, {"Content-Type": "application/json", "X-Repo-Commit": repo.sha,
                                  "ETag": f'"{repo.sha[:16]}-config"'}, head)
