"""Where ctxlint's documentation lives on the web. SARIF `helpUri` and anything else that
links to a rule page derive their URLs from DOCS_BASE_URL, so a move of the repository
(or a docs site in front of it) is a one-line change here."""
from __future__ import annotations

REPOSITORY_URL = "https://github.com/ctxlint/ctxlint"
DOCS_BASE_URL = f"{REPOSITORY_URL}/blob/main/docs/"


def rule_url(rule_id: str) -> str:
    """The page of one rule: docs/rules/<ID>.md, built from the registry."""
    return f"{DOCS_BASE_URL}rules/{rule_id}.md"
