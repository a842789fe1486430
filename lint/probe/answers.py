"""What an HTTP reply amounts to: a completion, a clean refusal, or neither.

"A green status code is no guarantee of a valid answer": a 2xx counts as a
completion only when its body is an OpenAI-style response with non-empty content
and at least one completion token; a 4xx counts as a refusal only when its body
says why (an error object, as OpenAI, vLLM, SGLang and TGI send).
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Optional

from ctxlint.lazyre import lazy_compile

from ..records import record

if TYPE_CHECKING:  # the rules read these constants; only `ctxlint probe` needs the HTTP client
    from ctxlint.probe.client import Reply

COMPLETION, REFUSAL, INVALID, FAILED = "completion", "refusal", "invalid", "failed"
ERROR_KEYS = ("error", "message", "detail")  # OpenAI/TGI, vLLM/SGLang, FastAPI
# vLLM's (and OpenAI's) refusal states the server's own count: "... you requested 4097 tokens
# (4096 in the messages, 1 in the completion)"; the probe reads it like usage.prompt_tokens.
REQUESTED = lazy_compile(r"\(([0-9]+) in the messages, [0-9]+ in the completion\)")


@record(frozen=True)
class Answer:
    kind: str  # COMPLETION, REFUSAL, INVALID (a 2xx that is no valid completion) or FAILED
    problem: str = ""  # for INVALID and FAILED: what is wrong, in words
    text: str = ""  # the completion's content (for canary checks), or a refusal's message
    prompt_tokens: Optional[int] = None  # usage.prompt_tokens (or a refusal's count) as the server counted
    completion_tokens: Optional[int] = None
    finish_reason: Optional[str] = None


def read_answer(reply: Reply, api: str) -> Answer:
    if reply.status is None:
        return Answer(FAILED, reply.error)
    if 400 <= reply.status < 500:
        message = _error_message(reply.body)
        if message is None:
            return Answer(FAILED, f"HTTP {reply.status} without an error body ({_excerpt(reply.body)})")
        counted = REQUESTED.search(message)
        return Answer(REFUSAL, text=message, prompt_tokens=int(counted.group(1)) if counted else None)
    if not 200 <= reply.status < 300:
        return Answer(FAILED, f"HTTP {reply.status} ({_excerpt(reply.body)})")
    return _completion(reply, api)


def _completion(reply: Reply, api: str) -> Answer:
    try:
        body = json.loads(reply.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return Answer(INVALID, f"a body that is not JSON ({_excerpt(reply.body)})", text=_raw(reply.body))
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        return Answer(INVALID, "a JSON body with no choices", text=_raw(reply.body))
    choice = choices[0]
    content = (choice.get("message") or {}).get("content") if api == "chat" else choice.get("text")
    if not isinstance(content, str) and api == "chat" and isinstance(choice.get("text"), str):
        content = choice.get("text")
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else {}
    prompt, completion = _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens"))
    finish = choice.get("finish_reason") if isinstance(choice.get("finish_reason"), str) else None
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        content = "".join(part.get("text", "") for part in content
                          if isinstance(part, dict) and isinstance(part.get("text"), str))
    text = content if isinstance(content, str) else ""
    problem = ""
    if not text.strip():
        problem = "empty content"
    elif completion == 0 and finish == "length":
        problem = 'finish_reason "length" at 0 completion tokens'
    elif completion == 0:
        problem = "zero completion tokens"
    if problem:
        return Answer(INVALID, problem, text or _raw(reply.body), prompt, completion, finish)
    return Answer(COMPLETION, "", text, prompt, completion, finish)


def _count(value: Any) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _error_message(body: bytes) -> Optional[str]:
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    for key in ERROR_KEYS:
        value = data.get(key)
        if isinstance(value, dict) and isinstance(value.get("message"), str):
            return value["message"]
        if isinstance(value, str) and value.strip():
            return value
    return None


def _raw(body: bytes) -> str:
    return body.decode("utf-8", errors="replace")


def _excerpt(body: bytes, limit: int = 60) -> str:
    text = " ".join(_raw(body).split())
    if not text:
        return "empty body"
    return repr(text[:limit] + ("..." if len(text) > limit else ""))
