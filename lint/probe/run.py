"""One probe run: calibrate, then canary session A and boundary session B, within budgets.

Session A sends long prompts carrying random canary markers; session B sends the
boundary cases. Both go out under one `x-session-affinity` value (the user's, or
one made up per run), so a sticky router sends them to the same replica, where a
stale KV page could carry A's text into B's answer. The run stops by itself:
never more than `max_requests` requests, none started after `time_budget`
seconds, `concurrency` requests in flight at most (1 by default).

Sizing (ctxlint.probe.sizing): the first request is a short calibration prompt;
the server's usage.prompt_tokens minus the probe's count of the same text is the
template overhead, added to every later prompt. When the server reports no usage,
the overhead is unknown and the probe errs on the safe side of each boundary: a
case that must be ACCEPTED is built `margin` tokens smaller (a smaller prompt
must still be accepted), a case that must be REFUSED is built with no overhead
assumed (the real prompt can only be longer, and longer must still be refused).
"""
from __future__ import annotations

import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Dict, List, Mapping, Optional, Tuple

from ctxlint.probe.answers import COMPLETION, INVALID, Answer, read_answer
from ctxlint.probe.cases import CASE_NAMES, Boundaries, Case, plan_cases
from ctxlint.probe.client import Endpoint, Reply, post
from ctxlint.probe.errors import ProbeError
from ctxlint.probe.sizing import filler

from ..records import field, record

CALIBRATION_WORDS = 16
SHORT_PROMPT = 16  # content tokens of the output cases, which vary max_tokens instead
MARKERS_PER_PROMPT = 4
CANARY_OUTPUT = 16
MAX_OVERHEAD = 4096  # a measured template overhead above this is a server miscount, not a template
AFFINITY = "x-session-affinity"
UNUSABLE = (401, 403, 404)  # unauthorized, forbidden, no such route or model


@record(frozen=True)
class Settings:
    api: str = "chat"  # "chat" (/v1/chat/completions) or "completions"
    model: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)  # the user's --header values, sent on every request
    secret: str = ""  # the API key: sent as a bearer token, scrubbed from everything received
    timeout: float = 30.0
    max_requests: int = 32
    time_budget: float = 120.0
    concurrency: int = 1
    margin: int = 64
    canary_tokens: int = 2048
    cases: Tuple[str, ...] = CASE_NAMES


@record(frozen=True)
class Exchange:
    """One request and what came back."""

    number: int  # 1-based, in the order the requests were started
    session: str  # "calibration", "A" (canary) or "B" (boundary)
    case: Optional[Case]
    planned_prompt: int  # the prompt's tokens by the probe's count (+ the measured overhead)
    max_tokens: int
    status: Optional[int]
    seconds: float
    answer: Answer
    markers: Tuple[str, ...] = ()  # session A: the canaries it carried
    body: str = ""  # session B: the whole answer body, scanned for canaries


@record(frozen=True)
class ProbeRun:
    url: str
    limits: Boundaries
    exchanges: Tuple[Exchange, ...]
    skipped: Tuple[Tuple[str, str], ...]  # (case, why it was not sent)
    sizing: str
    overhead: Optional[int]  # template tokens per request, measured; None when unknown
    margin: int
    stopped: str = ""  # why the run ended before its last case, if it did

    @property
    def boundary(self) -> Tuple[Exchange, ...]:
        return tuple(e for e in self.exchanges if e.session == "B")

    def leaks(self) -> List[Tuple[Exchange, str, Exchange]]:
        """(B exchange, marker, A exchange that sent it) for every A marker in a B answer."""
        senders = {m: e for e in self.exchanges if e.session == "A" for m in e.markers}
        return [(b, marker, senders[marker]) for b in self.boundary
                for marker in sorted(senders) if marker in b.body]


Sender = Callable[[Endpoint, Mapping, Mapping[str, str], float], Reply]


def run_probe(target: Endpoint, limits: Boundaries, counter, settings: Settings, send: Sender = post) -> ProbeRun:
    """Run the whole probe; raises ProbeError when the endpoint cannot be reached at all."""
    return _Run(target, limits, counter, settings, send).run()


class _Run:
    def __init__(self, target: Endpoint, limits: Boundaries, counter, settings: Settings, send: Sender) -> None:
        self.target, self.limits, self.counter, self.s, self.send = target, limits, counter, settings, send
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.sent = 0
        self.stopped = ""
        self.exchanges: List[Exchange] = []
        affinity = next((v for k, v in settings.headers.items() if k.lower() == AFFINITY), None)
        self.headers: Dict[str, str] = dict(settings.headers)
        if affinity is None:
            self.headers[AFFINITY] = f"ctxlint-probe-{secrets.token_hex(4)}"
        if settings.secret:
            self.headers["Authorization"] = f"Bearer {settings.secret}"

    def run(self) -> ProbeRun:
        overhead = self._calibrate()
        cases, skipped = plan_cases(self.limits, SHORT_PROMPT, self.s.cases)
        pairs = [(self._canary(overhead), self._boundary(case, overhead)) for case in cases]
        with ThreadPoolExecutor(max_workers=self.s.concurrency) as pool:
            list(pool.map(self._send, [job for pair in pairs for job in pair]))
        sent_cases = {e.case.name for e in self.exchanges if e.session == "B"}
        skipped += [(c.name, f"not sent: {self.stopped}") for c in cases if c.name not in sent_cases]
        self.exchanges.sort(key=lambda e: e.number)
        return ProbeRun(self.target.url, self.limits, tuple(self.exchanges), tuple(skipped), self.counter.label,
                        overhead, self.s.margin, self.stopped)

    def _calibrate(self) -> Optional[int]:
        text = filler(self.counter, CALIBRATION_WORDS)
        exchange = self._send(("calibration", None, text, 1, (), self.counter.count(text)))
        if exchange is None or exchange.status is None:
            why = exchange.answer.problem if exchange is not None else self.stopped
            raise ProbeError(f"cannot reach {self.target.url}: {why}")
        if exchange.status in UNUSABLE:  # nothing later can be judged: a setup error, not a finding
            said = exchange.answer.text or exchange.answer.problem
            raise ProbeError(f"{self.target.url} answered HTTP {exchange.status} to a {CALIBRATION_WORDS}-word "
                             f"request ({said[:120]}): check the URL, --model and --api-key-env")
        measured = exchange.answer.prompt_tokens
        if exchange.answer.kind in (COMPLETION, INVALID) and measured is not None:
            overhead = measured - self.counter.count(text)
            if 0 <= overhead <= MAX_OVERHEAD:
                return overhead
        return None

    def _canary(self, overhead: Optional[int]) -> tuple:
        limit = min(v for v in (self.limits.window, self.limits.pool, self.s.canary_tokens * 2) if v is not None)
        markers = tuple(f"canary-{secrets.token_hex(6)}" for _ in range(MARKERS_PER_PROMPT))
        chunk = filler(self.counter, max(1, (min(self.s.canary_tokens, limit // 2)) // MARKERS_PER_PROMPT))
        text = "Remember these codes. " + " ".join(f"{m} {chunk}" for m in markers)
        return ("A", None, text, CANARY_OUTPUT, markers, self.counter.count(text) + (overhead or 0))

    def _boundary(self, case: Case, overhead: Optional[int]) -> tuple:
        # The safe direction when the overhead is unknown: see the module docstring.
        assumed = overhead if overhead is not None else (self.s.margin if case.expect == COMPLETION else 0)
        if case.name.startswith("output"):
            content, max_tokens = case.prompt_tokens, case.max_tokens - assumed
        else:
            content, max_tokens = case.prompt_tokens - assumed, case.max_tokens
        text = filler(self.counter, max(1, content))
        return ("B", case, text, max(1, max_tokens), (), self.counter.count(text) + (overhead or 0))

    def _send(self, job: tuple) -> Optional[Exchange]:
        session, case, text, max_tokens, markers, planned = job
        with self.lock:
            remaining = self.s.time_budget - (time.monotonic() - self.started)
            if self.stopped or self.sent >= self.s.max_requests or remaining <= 0:
                self.stopped = self.stopped or (
                    f"request budget ({self.s.max_requests}) used" if self.sent >= self.s.max_requests
                    else f"wall-clock budget ({self.s.time_budget:g} s) used")
                return None
            self.sent += 1
            number = self.sent
        # The budget decides whether a request starts, not how long it may take: one cut short by
        # the budget would look like a hang (CTX505) that the stack did not cause.
        reply = self._scrub(self.send(self.target, self._payload(session, text, max_tokens), self.headers,
                                      self.s.timeout))
        answer = read_answer(reply, self.s.api)
        exchange = Exchange(number, session, case, planned, max_tokens, reply.status, reply.seconds, answer,
                            markers, reply.body.decode("utf-8", errors="replace") if session == "B" else "")
        with self.lock:
            self.exchanges.append(exchange)
        return exchange

    def _payload(self, session: str, text: str, max_tokens: int) -> dict:
        payload = {"model": self.s.model, "max_tokens": max_tokens, "temperature": 0,
                   "user": f"ctxlint-probe-{session.lower()}"}
        if self.s.api == "chat":
            payload["messages"] = [{"role": "user", "content": text}]
        else:
            payload["prompt"] = text
        return payload

    def _scrub(self, reply: Reply) -> Reply:
        """Drop the API key from all that came back: a server may echo request headers."""
        if not self.s.secret:
            return reply
        key = self.s.secret.encode("utf-8")
        return Reply(reply.status, reply.body.replace(key, b"[redacted]"), reply.seconds,
                     reply.error.replace(self.s.secret, "[redacted]"))

