"""The syntax of a systemd unit file, as systemd itself reads it, with the file index of every character.

Sources (systemd/systemd): the file's lines, comments, sections and continuations from
man/systemd.syntax.xml@b3f6c4531e87483d72543248be3496455fd318c8 ("Empty lines and lines starting with # or ;
are ignored"; "Lines ending in a backslash are concatenated with the following line while reading and the
backslash is replaced by a space character"; a comment line inside a continuation is skipped). A command line's
and an Environment= value's words: extract_first_word(EXTRACT_UNQUOTE|EXTRACT_CUNESCAPE), as
src/core/load-fragment.c@2557246cc8e616977cc233f92b4e7fbc45d0946f config_parse_exec calls it: whitespace ends a
word, a single or double quote anywhere in a word quotes until its match, and C escapes (`\\n`, `\\x41`, `\\s`...)
are decoded inside and outside quotes; a quote left open is refused. An EnvironmentFile's lines:
src/basic/env-file.c@8a7e6c08681ec2deeec6c163a66eef1e8104d0c0 parse_env_file_internal (`KEY=value`, single quotes
literal, double quotes with `\\` escapes, a `\\` line end continues, comments `#`/`;`, no expansion).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..records import record

_SPACE = " \t\n\r"
_C_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\",
              '"': '"', "'": "'", "s": " "}
_HEX = {"x": 2, "u": 4, "U": 8}


@record
class Directive:
    section: str
    key: str
    value: str  # as systemd reads it: continuations joined, surrounding whitespace stripped
    offsets: List[int]  # the file index of each character of `value`
    at: int  # the file index of the key


@record
class Word:
    text: str  # unquoted and unescaped
    offsets: List[int]  # the file index each character of `text` came from
    raw: str  # as typed
    start: int  # file index of its first character
    end: int  # file index after its last


def directives(text: str) -> List[Directive]:
    """Every `Key=value` of the file, in order, with the section it sits in."""
    out: List[Directive] = []
    section, pending = "", None  # pending: (key, at, chars, offsets) of a line a backslash continues
    pos = 0
    for line in text.splitlines(keepends=True):
        start, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        stripped = body.strip(_SPACE)
        if pending is None and (not stripped or stripped[0] in "#;"):
            continue
        if pending is not None and stripped[:1] in ("#", ";"):
            continue  # a comment inside a continuation is skipped; the value goes on after it
        lead = len(body) - len(body.lstrip(_SPACE))
        end = start + lead + len(stripped)
        if pending is None:
            if stripped.startswith("["):
                section = stripped[1:stripped.index("]")] if "]" in stripped else stripped[1:]
                continue
            eq = stripped.find("=")
            if eq <= 0:
                continue  # systemd warns of a line without `=` and ignores it
            key = stripped[:eq].strip(_SPACE)
            value_at = start + lead + eq + 1
            pending = (key, start + lead, [], [])
            chunk_start = value_at
        else:
            chunk_start = start + lead
        chunk = text[chunk_start:end]
        continued = chunk.endswith("\\")
        key, at, chars, offsets = pending
        chars.append(chunk[:-1] + " " if continued else chunk)
        offsets.extend(range(chunk_start, chunk_start + len(chunk)))
        if continued:
            continue
        out.append(_directive(section, key, at, "".join(chars), offsets))
        pending = None
    if pending is not None:
        key, at, chars, offsets = pending
        out.append(_directive(section, key, at, "".join(chars), offsets))
    return out


def _directive(section: str, key: str, at: int, value: str, offsets: List[int]) -> Directive:
    lead = len(value) - len(value.lstrip(_SPACE))
    stripped = value.strip(_SPACE)
    return Directive(section, key, stripped, offsets[lead:lead + len(stripped)], at)


def split_words(value: str, offsets: List[int], text: str) -> Tuple[List[Word], Optional[int]]:
    """The words of a command line or assignment list, and the file index of a quote left open (systemd refuses
    the line) or None. `text` is the file's, for each word's raw spelling."""
    words: List[Word] = []
    i, n = 0, len(value)
    while True:
        while i < n and value[i] in _SPACE:
            i += 1
        if i >= n:
            return words, None
        first, chars, where, quote = i, [], [], None
        while i < n:
            c = value[i]
            if quote is None and c in _SPACE:
                break
            if c == "\\":
                decoded, width = _escape(value, i)
                chars.append(decoded)
                where.append(offsets[i])
                i += width
                continue
            if quote is None and c in "'\"":
                quote, opened = c, i
            elif c == quote:
                quote = None
            else:
                chars.append(c)
                where.append(offsets[i])
            i += 1
        if quote is not None:
            return words, offsets[opened]
        start, end = offsets[first], offsets[i - 1] + 1
        words.append(Word("".join(chars), where, text[start:end], start, end))


def _escape(value: str, i: int) -> Tuple[str, int]:
    """(the character a C escape at value[i] stands for, how many characters it takes); an escape systemd does not
    define stands for its second character."""
    nxt = value[i + 1:i + 2]
    if nxt in _C_ESCAPES:
        return _C_ESCAPES[nxt], 2
    digits = _HEX.get(nxt)
    if digits is not None:
        code = value[i + 2:i + 2 + digits]
        if len(code) == digits and all(ch in "0123456789abcdefABCDEF" for ch in code):
            return chr(int(code, 16)), 2 + digits
    octal = value[i + 1:i + 4]
    if len(octal) == 3 and all(ch in "01234567" for ch in octal):
        return chr(int(octal, 8)), 4
    return (nxt, 2) if nxt else ("", 1)


# Specifiers a unit file may use in a command line (man/systemd.unit.xml "Specifiers"): fixed ones, and what the
# host fills in (never guessed). The unit-name specifiers are read from the file's own name.
FIXED = {"T": "/tmp", "V": "/var/tmp"}
HOST_SPECIFIERS = {
    "h": "the home directory of the unit's user", "u": "the unit's user name", "U": "the unit's user id",
    "g": "the unit's group", "G": "the unit's group id", "s": "the user's shell", "H": "the host name",
    "l": "the short host name", "m": "the machine id", "b": "the boot id", "t": "the runtime directory",
    "S": "the state directory", "C": "the cache directory", "L": "the log directory", "E": "the configuration "
    "directory", "d": "the credentials directory", "i": "the instance name of a template unit",
    "I": "the instance name of a template unit", "j": "the final component of the unit's prefix",
    "J": "the final component of the unit's prefix", "f": "the unit's instance or name as a path",
    "y": "the unit file's path", "Y": "the unit file's directory"}


def specifiers(word: Word, unit_name: str) -> Tuple[List[Tuple[str, int, Optional[str]]], List[str]]:
    """The word with its `%` specifiers resolved: (character, file index, None) for each character, or ("", index,
    letter) where the host fills in specifier `letter` (unknown here); and the letters left unknown."""
    out: List[Tuple[str, int, Optional[str]]] = []
    unknown: List[str] = []
    name = _unit_names(unit_name)
    i, text = 0, word.text
    while i < len(text):
        c, at = text[i], word.offsets[i]
        if c == "%" and i + 1 < len(text):
            letter = text[i + 1]
            known = "%" if letter == "%" else FIXED.get(letter, name.get(letter))
            if known is not None:
                out.extend((ch, at, None) for ch in known)
            else:
                out.append(("", at, letter))
                unknown.append(letter)
            i += 2
            continue
        out.append((c, at, None))
        i += 1
    return out, unknown


def _unit_names(unit_name: str) -> Dict[str, str]:
    """%n, %N, %p, %P, %i, %I of a unit file's own name; a template (`name@.service`) has no instance here."""
    stem = unit_name[:-len(".service")] if unit_name.endswith(".service") else unit_name
    prefix, at, instance = stem.partition("@")
    names = {"p": prefix, "P": prefix}
    if not at or instance:
        names.update(n=unit_name, N=stem)
    if instance:
        names.update(i=instance, I=instance)
    return names


def env_file(text: str) -> Dict[str, Tuple[str, List[int]]]:
    """NAME -> (value, file index of each character) of an EnvironmentFile, a later line winning."""
    out: Dict[str, Tuple[str, List[int]]] = {}
    for line_start, line in _logical_lines(text):
        body = line.lstrip(" \t")
        if not body or body[0] in "#;" or "=" not in body:
            continue
        skip = len(line) - len(body)
        key, _, rest = body.partition("=")
        value_at = line_start + skip + len(key) + 1
        chars, where, i, quote = [], [], 0, None
        rest_len = len(rest)
        while i < rest_len:
            c = rest[i]
            if quote == "'":
                if c == "'":
                    quote = None
                else:
                    chars.append(c)
                    where.append(value_at + i)
            elif c == "\\" and i + 1 < rest_len:
                keep = quote == '"' and rest[i + 1] not in '"\\`$'
                chars.extend(["\\", rest[i + 1]] if keep else [rest[i + 1]])
                where.extend([value_at + i] * (2 if keep else 1))
                i += 1
            elif c in "'\"" and quote is None:
                quote = c
            elif c == '"' and quote == '"':
                quote = None
            elif quote is None and c in " \t" and not rest[i:].strip(" \t"):
                break  # trailing whitespace of an unquoted value is chomped
            elif quote is None and c in " \t" and not chars:
                pass
            else:
                chars.append(c)
                where.append(value_at + i)
            i += 1
        out[key.strip(" \t")] = ("".join(chars), where)
    return out


def _logical_lines(text: str):
    """(file index, line) of each line. A value continued over lines with a trailing `\\` is read to its first
    line's end: launch settings are one-line values."""
    pos = 0
    for line in text.split("\n"):
        yield pos, line.rstrip("\r")
        pos += len(line) + 1
