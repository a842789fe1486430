"""`ctxlint probe`: prove at the boundary that a running stack refuses what it cannot hold.

The static check says what the pool is; the probe sends requests at and past the
window and the pool to an OpenAI-compatible endpoint, with canary sessions, and
turns what came back into ordinary findings (rules CTX5xx) for the same reporters.

Modules: `cases` (limits and boundary cases), `limits` (limits from a manifest,
through the engine's pipeline), `client` (HTTP, loopback guard), `sizing`
(tokenizer or word counts), `answers` (what a reply amounts to), `run` (sessions,
budgets), `findings` (the CTX5xx rules over a run).
"""
