"""A small OpenAI-compatible server for the probe tests, run as a real process on loopback.

It counts tokens the way the probe's fallback does (one per whitespace-separated
word) plus a fixed chat-template overhead, refuses a request whose prompt +
max_tokens exceeds its window or its KV pool with a 400 and an error body, and
can be switched (POST /_control) into the faulty modes the probe must catch. Each
fault applies to requests over the pool (or over the window when `fault_on` is
"window", or to all requests when it is "all"):

- stale:        200 whose content is the start of an earlier request's prompt
                (the incident: another session's data)
- empty:        200 with empty content
- zero-tokens:  200 with content but 0 completion tokens, finish_reason "length"
- hang:         no answer for `hang_seconds`
- invalid-json: 200 with a body that is not JSON (it echoes the request headers)
- server-error: 500
- proxy-413:    413 with an HTML page, as a proxy in front of the engine sends it
- open:         no limit enforced at all: a well-formed completion for everything
- strict:       refuses everything above `strict_limit` tokens (below the window)
- slow:         answers correctly, each request after `hang_seconds`

`prompt_cap` (0: none) refuses longer prompts as a gateway would, in every mode but
"open"; `tokens_per_word` makes it count differently from the probe; `usage` false leaves
usage out of its answers.

GET /_control returns the counters: requests served and, for each, its "user", its
x-session-affinity and x-tenant headers and the canary markers its prompt carried.

Run: python tests/probe_server.py  -> prints "PORT <n>" and serves until killed.
"""
from __future__ import annotations

import json
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHAT_OVERHEAD = 7  # like OpenAI's count: 3 per reply primer + 4 per message
REPLY = "All right here is a short answer for you".split()

STATE = {"mode": "correct", "fault_on": "pool", "window": 2048, "pool": 4096, "hang_seconds": 5.0,
         "strict_limit": 0, "prompt_cap": 0, "usage": True, "tokens_per_word": 1, "requests": 0, "log": [], "last_prompt": ""}
LOCK = threading.Lock()


def count(payload: dict, per_word: int) -> int:
    if "messages" in payload:
        return CHAT_OVERHEAD + per_word * sum(len(str(m.get("content", "")).split()) for m in payload["messages"])
    return 1 + per_word * len(str(payload.get("prompt", "")).split())  # a BOS token


def prompt_text(payload: dict) -> str:
    if "messages" in payload:
        return " ".join(str(m.get("content", "")) for m in payload["messages"])
    return str(payload.get("prompt", ""))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # keep the test output clean
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data) -> None:
        self._send(status, json.dumps(data).encode())

    def do_GET(self) -> None:
        if self.path == "/_control":
            with LOCK:
                self._json(200, {k: v for k, v in STATE.items() if k != "last_prompt"})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        try:
            payload = json.loads(raw)
        except ValueError:
            self._json(400, {"error": {"message": "body is not JSON"}})
            return
        if self.path == "/_control":
            with LOCK:
                STATE.update(payload)
                STATE["requests"] = 0 if payload.get("reset") else STATE["requests"]
                STATE["log"] = [] if payload.get("reset") else STATE["log"]
                STATE["last_prompt"] = "" if payload.get("reset") else STATE["last_prompt"]
            self._json(200, {"ok": True})
            return
        if self.path not in ("/v1/chat/completions", "/v1/completions"):
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        with LOCK:
            STATE["requests"] += 1
            STATE["log"].append({"user": payload.get("user"), "affinity": self.headers.get("x-session-affinity"),
                                 "tenant": self.headers.get("x-tenant"),
                                 "markers": re.findall(r"canary-[0-9a-f]{12}", prompt_text(payload))})
            state = dict(STATE)
            STATE["last_prompt"] = prompt_text(payload)
        self._answer(payload, state)

    def _answer(self, payload: dict, state: dict) -> None:
        prompt = count(payload, state["tokens_per_word"])
        max_tokens = int(payload.get("max_tokens") or 16)
        total = prompt + max_tokens
        over_window, over_pool = total > state["window"], total > state["pool"]
        mode = state["mode"]
        faulty = {"pool": over_pool, "window": over_window or over_pool, "all": True}[state["fault_on"]]
        if mode == "strict" and total > state["strict_limit"]:
            return self._refuse(f"maximum context length is {state['strict_limit']} tokens")
        if mode == "slow":
            time.sleep(state["hang_seconds"])
        if mode == "open":
            return self._complete(payload, prompt, max_tokens, state)
        if state["prompt_cap"] and prompt > state["prompt_cap"]:
            return self._refuse(f"prompt of {prompt} tokens is over the gateway's cap of {state['prompt_cap']}")
        if faulty and mode == "hang":
            time.sleep(state["hang_seconds"])
            return self._refuse("too late")
        if faulty and mode == "stale":
            return self._complete(payload, prompt, max_tokens, state,
                                  content=" ".join(state["last_prompt"].split()[:24]))
        if faulty and mode == "empty":
            return self._complete(payload, prompt, max_tokens, state, content="")
        if faulty and mode == "zero-tokens":
            return self._complete(payload, prompt, max_tokens, state, completion_tokens=0, finish="length")
        if faulty and mode == "invalid-json":
            echoed = "".join(f"{k}: {v}\n" for k, v in self.headers.items())  # Authorization first
            return self._send(200, f"<html>{self.headers.get('Authorization')} reset\n{echoed}</html>".encode(),
                              "text/html")
        if faulty and mode == "proxy-413":
            return self._send(413, b"<html><body>413 Request Entity Too Large</body></html>", "text/html")
        if faulty and mode == "server-error":
            return self._json(500, {"error": {"message": "internal error"}})
        if over_window:
            return self._refuse(f"This model's maximum context length is {state['window']} tokens. However, you "
                                f"requested {total} tokens ({prompt} in the messages, {max_tokens} in the "
                                "completion).")
        if over_pool:
            return self._refuse(f"the request needs {total} tokens of KV cache; the pool holds {state['pool']}")
        return self._complete(payload, prompt, max_tokens, state)

    def _refuse(self, message: str) -> None:
        self._json(400, {"error": {"message": message, "type": "invalid_request_error"}})

    def _complete(self, payload: dict, prompt: int, max_tokens: int, state: dict, content=None,
                  completion_tokens=None, finish=None) -> None:
        words = REPLY[:max_tokens]
        text = " ".join(words) if content is None else content
        done = len(words) if completion_tokens is None else completion_tokens
        reason = finish or ("length" if max_tokens <= len(REPLY) else "stop")
        choice = {"index": 0, "finish_reason": reason}
        if "messages" in payload:
            choice["message"] = {"role": "assistant", "content": text}
        else:
            choice["text"] = text
        body = {"id": "cmpl-1", "object": "chat.completion", "model": payload.get("model"), "choices": [choice]}
        if state["usage"]:
            body["usage"] = {"prompt_tokens": prompt, "completion_tokens": done, "total_tokens": prompt + done}
        self._json(200, body)


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
