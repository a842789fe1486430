"""JSON string escapes that YAML refuses: UTF-16 surrogates (`"\\ud83c\\udf42"`, an emoji).

ctxlint reads JSON through the YAML composer (for its positions). JSON writes a character beyond
the Basic Multilingual Plane as two `\\uXXXX` escapes, a surrogate pair (RFC 8259 section 7: "the
character is represented as a 12-character sequence, encoding the UTF-16 surrogate pair"), and
Python's json module reads it so; PyYAML stops at the first half ("found invalid Unicode character
escape code"), since YAML's `\\u` names a code point and a surrogate is none. So a valid JSON file
(a benchmark result with an emoji in a reply) was a CTX001 error.

The text YAML reads instead writes each pair as YAML's 8-digit escape of the same character
(`\\U0001f342`) and a lone surrogate, which names no character, as a private-use character of the
same 6-character escape, U+E000 on (`\\ud800` as `\\ue000`, `\\udfff` as `\\ue7ff`): Python's json module keeps
two lone surrogates apart (`{"\\ud800": 1, "\\ud801": 2}` has two keys), so one replacement character for all of them
made a false CTX003 duplicate key. The characters saved are added as spaces after the string's closing
quote, where JSON and YAML allow white space, so every later position on the line is unchanged;
only the string itself ends 2 characters early per pair. Only a `.json` text that Python's json
module accepted and that holds such an escape is rewritten (`needs_rewrite`, a substring test).
"""
from __future__ import annotations

from ctxlint.lazyre import lazy_compile

_STRING = lazy_compile(r'"(?:[^"\\]|\\.)*"')  # a JSON string token (the text parsed as JSON: quotes balance)
# one escape at a time, from the string's start, so `\\ud83c` (a backslash, then "ud83c") is no escape of ours
_ESCAPE = lazy_compile(r"\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
                       r"|\\u([0-9a-fA-F]{4})|\\.")


def needs_rewrite(text: str) -> bool:
    """Whether the text may hold a surrogate escape (cheap: a lowercase `\\ud` or `\\uD` substring)."""
    return "\\ud" in text or "\\uD" in text


def _escape(match) -> str:
    high, low, single = match.group(1), match.group(2), match.group(3)
    if high is not None:
        code = 0x10000 + ((int(high, 16) - 0xD800) << 10) + (int(low, 16) - 0xDC00)
        return "\\U%08x" % code
    if single is not None and 0xD800 <= int(single, 16) <= 0xDFFF:
        return "\\u%04x" % (0xE000 + int(single, 16) - 0xD800)  # one of its own, as long (U+E000-U+E7FF)
    return match.group(0)


def _string(match) -> str:
    token = match.group(0)
    if not needs_rewrite(token):
        return token
    out = _ESCAPE.sub(_escape, token)
    return out + " " * (len(token) - len(out))


def yaml_readable(text: str) -> str:
    """The JSON text with its surrogate escapes as YAML reads them, every string's end as long as before."""
    return _STRING.sub(_string, text)
