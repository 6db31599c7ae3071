"""The Python literals of ASTE and ASQP label lists, read without ``eval`` and in memory linear in the text.

The official readers ``eval`` each line's labels. Here the literal is rewritten as JSON and decoded
by msgspec, which gives the value Python gives: lists and tuples become lists (the readers treat
them alike), strings, numbers, ``None``, ``True`` and ``False`` keep their value, and a
parenthesised value without a comma is that value, not a tuple (``(2)`` is 2, ``(2,)`` a tuple).

- :func:`plain_json`: at C speed, when no string holds a quote or a backslash and no parenthesis
  only groups a value (the common case);
- :func:`as_json`: token by token, a string with escapes evaluated on its own
  (:func:`ast.literal_eval` of one token);
- any other text (a dict, a set, an operator, joined strings) is read by :func:`ast.literal_eval`
  when it is at most :data:`AST_LIMIT` characters (its syntax tree costs ~350 bytes a character),
  else it is not read (:class:`NotRead`).

A string holding a lone surrogate (``'\\ud800'``) is not text (:class:`NotRead`), nor is nesting too deep to decode.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

AST_LIMIT = 1 << 16
"""The longest labels text read by :func:`ast.literal_eval` (64 KiB: at most ~25 MB of syntax tree)."""
_TOKEN = re.compile(
    r"""\s*(?:
      (?P<s>[uU]?'[^'\\\x00-\x1f]*')
    | (?P<d>[uU]?"[^"\\\x00-\x1f]*")
    | (?P<q>[rRuU]?(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"))
    | (?P<n>-?[ \t]*(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)
    | (?P<o>[\[(])
    | (?P<c>[\])])
    | (?P<k>,)
    | (?P<w>None|True|False)\b
    )""",
    re.VERBOSE,
)
_WORDS = {"None": "null", "True": "true", "False": "false"}


_QUOTED = re.compile(r"('[^']*')")
_BRACKETS = str.maketrans("()", "[]")
_VALUE = re.compile(r"(?:'[^']*'|[^()\[\],'])+")
_INNERMOST = re.compile(r"\[[^()\[\]]*\]|\((?:[^()\[\]]*,[^()\[\]]*)?\)")
_GROUPING = re.compile(r"\([^()\[\],]+\)")
_PASSES = 8


class NotRead(ValueError):
    """The text is not a literal this reads; the message says why."""


def has_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (it cannot be written as UTF-8)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _string(token: str) -> str:
    import json

    try:
        value = ast.literal_eval(token)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise NotRead("labels are not a Python literal") from None
    if not isinstance(value, str):
        raise NotRead("labels are not a Python literal")
    if has_surrogate(value):
        raise NotRead(f"a string holds a lone surrogate ({value.encode('utf-8', 'backslashreplace')[:40]!r}), not text")
    return json.dumps(value, ensure_ascii=False)


def as_json(text: str) -> str | None:
    """The literal ``text`` as JSON of the same value (see the module doc); None when it is not
    written in the subset this reads."""
    out: list[str] = []
    levels: list[list[int]] = []  # per open bracket: [index in out, is "(", commas]
    append = out.append
    after_value = False
    position, end = 0, len(text)
    match: Callable[[str, int], re.Match[str] | None] = _TOKEN.match
    while position < end:
        found = match(text, position)
        if found is None:
            if text[position:].strip():
                return None
            break
        position = found.end()
        kind, token = found.lastgroup, found[found.lastgroup or 0]
        if kind == "k":
            if not levels or not after_value:
                return None
            levels[-1][2] += 1
            append(",")
            after_value = False
            continue
        if kind == "c":
            if not levels or levels[-1][1] != (token == ")"):
                return None
            start, paren, commas = levels.pop()
            if out[-1] == ",":
                out.pop()
            if paren and commas == 0 and after_value:
                out[start] = ""  # a parenthesised value, not a tuple
            else:
                append("]")
            after_value = True
            continue
        if after_value:
            return None
        if kind == "o":
            levels.append([len(out), token == "(", 0])
            append("[")
            continue
        if kind == "s":
            append('"' + token.lstrip("uU")[1:-1].replace('"', '\\"') + '"')
        elif kind == "d":
            append(token.lstrip("uU"))
        elif kind == "q":
            append(_string(token))
        elif kind == "n":
            append(token.replace(" ", "").replace("\t", ""))
        else:
            append(_WORDS[token])
        after_value = True
    return None if levels or not after_value else "".join(out)


def _no_grouping(text: str) -> bool:
    """No parenthesis of ``text`` (outside its strings) only groups one value: innermost brackets are
    folded into a value, at most :data:`_PASSES` levels deep (deeper: not known, False). Blanks count as
    a value (``( )`` looks like a grouping: read token by token, which is exact)."""
    shape = _VALUE.sub("x", text)
    for _ in range(_PASSES):
        if "(" not in shape:
            return True
        if _GROUPING.search(shape):
            return False
        shape, folded = _INNERMOST.subn("x", shape)
        if not folded:
            return True  # unbalanced: not JSON either way
    return "(" not in shape


def plain_json(text: str) -> str | None:
    """The literal as JSON when that is exact at C speed: no double quote or backslash anywhere, so
    each single-quoted string holds neither, and no parenthesis only groups a value; else None."""
    if '"' in text or "\\" in text or ("(" in text and not _no_grouping(text)):
        return None
    parts = _QUOTED.split(text)
    parts[::2] = [part.translate(_BRACKETS) for part in parts[::2]]
    parts[1::2] = ['"' + part[1:-1] + '"' for part in parts[1::2]]
    return "".join(parts)


def read_literal(text: str) -> object:
    """The value of the literal ``text`` (see the module doc); :class:`NotRead` saying why not."""
    import msgspec

    decode = msgspec.json.decode
    for convert in (plain_json, as_json):
        converted = convert(text)
        if converted is None:
            continue
        try:
            return decode(converted)
        except msgspec.DecodeError:
            continue
        except RecursionError:
            raise NotRead("labels nested too deep to read") from None
    if len(text) > AST_LIMIT:
        raise NotRead(f"labels are not a literal of lists, tuples, strings and numbers this reads, and longer "
                      f"than {AST_LIMIT:,} characters for Python's own reader")
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise NotRead("labels are not a Python literal") from None
    _check_text(value)
    return value


def _check_text(value: object) -> None:
    """:class:`NotRead` when a string anywhere in ``value`` holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and has_surrogate(item):
            raise NotRead("a string holds a lone surrogate, not text")
        if isinstance(item, (list, tuple, set, frozenset)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
