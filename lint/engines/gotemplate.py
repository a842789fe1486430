"""Go text/template actions inside engine arguments, for inputs whose operator renders them.

KServe renders a ServingRuntime's container with text/template over the
InferenceService's metadata (`{{.Name}}`, `{{.Labels.x}}`; kserve/kserve@
aaac4e294dae2c7b1aa1886447793f3aa1c30912:pkg/controller/v1beta1/inferenceservice/utils/utils.go
ReplacePlaceholders) and an LLMInferenceService's merged configs over the service
(`{{ .Spec.Model.Name }}`, `{{- if .Spec.Parallelism.Tensor }} ... {{- end }}`, with the functions
ChildName, kvTransferConfig and shutdownTimeout: pkg/controller/v1alpha2/llmisvc/config_merge.go
ReplaceVariables), before the container starts. Such an action is a value ctxlint does not see (or the
InferenceService's, when it is in the file), and the text between `{{ if }}` and `{{ end }}` is there only
when the condition holds. Only Go's syntax counts: a Jinja chat template (`{{ bos_token }}`,
`{{ message['content'] }}`) or JSON passed as a flag value is not an action.
"""
from __future__ import annotations

import re
from typing import Optional, Tuple

from ctxlint.lazyre import lazy_compile

VALUE, OPEN, ELSE, END = "value", "open", "else", "end"
# `{{`, an optional `- ` trim marker, the body (Go strings may hold `}}`), `}}`.
_ACTION = lazy_compile(r"\{\{(?:-(?=\s))?"  # the body is stripped below: `\s*` around a lazy body is quadratic
                       r"((?:\"(?:[^\"\\\n]|\\.)*\"|`[^`]*`|[^\"`}]|\}(?!\}))*?)(?:(?<=\s)-)?\}\}")
_GO_BODY = lazy_compile(
    r"^(?:(?:if|else|end|range|with|break|continue|block|define|template)\b|[.$(]|"
    r"(?:and|or|not|eq|ne|lt|le|gt|ge|len|index|slice|print|printf|println|html|js|urlquery|call|"
    r"ChildName|kvTransferConfig|shutdownTimeout)\s+[.$(\"`\d])")
_KEYWORD = lazy_compile(r"^(if|range|with|block|define|else|break|continue|end)\b")
_KINDS = {"if": OPEN, "range": OPEN, "with": OPEN, "block": OPEN, "define": OPEN,
          "else": ELSE, "break": ELSE, "continue": ELSE, "end": END}


def action_at(text: str, at: int) -> Optional[Tuple[int, str, str]]:
    """The Go template action starting at `at` as (end, body, kind), or None when none starts there."""
    if not text.startswith("{{", at):
        return None
    match = _ACTION.match(text, at)
    body = match.group(1).strip() if match is not None else ""
    if match is None or not _GO_BODY.match(body):
        return None
    keyword = _KEYWORD.match(body)
    return match.end(), body, _KINDS[keyword.group(1)] if keyword else VALUE


def next_action(text: str, start: int, end: int) -> int:
    """Where the first `{{` in text[start:end] is (`end` when there is none)."""
    at = text.find("{{", start, end)
    return end if at < 0 else at


def lookup_key(body: str) -> str:
    """The resolver's name for an action's value: braces, so that no environment variable has it."""
    return "{{ " + re.sub(r"\s+", " ", body.strip()) + " }}"
