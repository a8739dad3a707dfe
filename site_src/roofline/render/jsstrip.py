"""Our JavaScript without its comments, for the copies pages ship (jsmodule.join): the roofline
callback is about a third comments, and every reader downloads it (23 → 15 KB gzipped).

A scanner, not a regex: it walks strings, template literals (and the code in their `${…}`),
regular expression literals and comments, so `"//"` in a string, `//` in a template and `/\\//`
stay. The files themselves keep their comments; tests/test_jsmodule.py checks, with a real
tokenizer, that every shipped file tokenizes the same before and after.
"""

from __future__ import annotations

import functools
import re

# After one of these (or at the start), `/` begins a regular expression, not a division.
_REGEX_AFTER = set("(,=:[!&|?{};+-*%<>~^")
_REGEX_KEYWORDS = {"return", "typeof", "case", "do", "else", "in", "of", "new", "delete",
                   "void", "throw", "yield", "await", "instanceof"}
_PLAIN = re.compile(r"[^'\"`/{}]+")
"""A run of code with nothing that starts a string, template, comment or regex, or nests."""
_TEMPLATE_TEXT = re.compile(r"(?:[^\\`$]|\$(?!\{))+")
_STRING = {q: re.compile(q + r"(?:[^" + q + r"\\\n]|\\[\s\S])*" + q) for q in "'\""}


class StripError(ValueError):
    """The scanner lost its place (an unterminated string, template, regex or comment)."""


@functools.lru_cache(maxsize=128)
def strip_comments(text: str) -> str:
    """`text` without // and /* */ comments; a line left empty by removing one is dropped.
    Remembered by the text itself (an edited file is new text): a build bundles the same few
    modules for every block and every call of the JS engine."""
    out: list[str] = []
    if _code(text, 0, out, nested=False) != len(text):
        raise StripError("unbalanced }")
    return "".join(out)


def _code(text: str, i: int, out: list[str], *, nested: bool) -> int:
    """Copy code from `i`, comments dropped, to the end (or, `nested` inside a template's
    `${`, to its closing brace, which is left for the caller); returns where it stopped."""
    n, depth, last = len(text), 0, ""  # last: the last significant character or word
    while i < n:
        c = text[i]
        if c in "'\"":
            j = _skip_string(text, i)
            out.append(text[i:j])
            i, last = j, c
        elif c == "`":
            i, last = _template(text, i, out), "`"
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = _drop(out, text, n if end < 0 else end)
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                raise StripError(f"unterminated /* comment at offset {i}")
            i = _drop(out, text, end + 2)
        elif c == "/" and (last == "" or last in _REGEX_AFTER or last in _REGEX_KEYWORDS):
            j = _skip_regex(text, i)
            out.append(text[i:j])
            i, last = j, "/"
        elif (m := _PLAIN.match(text, i)) is not None:  # copied whole: no char-by-char walk
            run = m.group()
            out.append(run)
            i = m.end()
            last = _last_token(run) or last
        else:  # { or }, or a / that divides
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0 and nested:
                    return i
                depth -= 1
            last = c
            out.append(c)
            i += 1
    if nested:
        raise StripError("unterminated ${ in a template literal")
    return i


def _last_token(run: str) -> str:
    """The last word, or else the last non-blank character, of a run of code ("" if blank):
    what decides whether a `/` after it starts a regex."""
    tail = run.rstrip()
    if not tail:
        return ""
    if not (tail[-1].isalnum() or tail[-1] in "_$"):
        return tail[-1]
    k = len(tail) - 1
    while k > 0 and (tail[k - 1].isalnum() or tail[k - 1] in "_$"):
        k -= 1
    return tail[k:]


def _template(text: str, i: int, out: list[str]) -> int:
    """Copy the template literal opening at `i` (its `${…}` code scanned as code); returns the
    index after its closing backtick."""
    out.append("`")
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            out.append(text[j:j + 2])
            j += 2
        elif c == "`":
            out.append(c)
            return j + 1
        elif text.startswith("${", j):
            out.append("${")
            j = _code(text, j + 2, out, nested=True)
            out.append("}")
            j += 1
        else:
            m = _TEMPLATE_TEXT.match(text, j)
            out.append(m.group())
            j = m.end()
    raise StripError(f"unterminated template literal at offset {i}")


def _drop(out: list[str], text: str, end: int) -> int:
    """Remove a comment ending at `end`, with the blanks before it; if it leaves its line
    empty, the line goes too (its newline is skipped)."""
    while out and (kept := out[-1].rstrip(" \t")) != out[-1]:  # the blanks before it go
        if kept:
            out[-1] = kept
            break
        out.pop()
    line_empty = not out or out[-1].endswith("\n")
    if line_empty and end < len(text) and text[end] == "\n":
        return end + 1
    # A /* */ comment spanning lines ends a line: keep one newline, or automatic semicolon
    # insertion could join the code on either side of it.
    if "\n" in text[text.rfind("/*", 0, end):end] and text.startswith("*/", end - 2):
        out.append("\n")
    return end


def _skip_string(text: str, i: int) -> int:
    m = _STRING[text[i]].match(text, i)
    if m is None:
        raise StripError(f"unterminated string at offset {i}")
    return m.end()


def _skip_regex(text: str, i: int) -> int:
    j, in_class = i + 1, False
    while j < len(text) and text[j] != "\n":
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            j += 1
            while j < len(text) and (text[j].isalnum()):
                j += 1
            return j
        j += 1
    raise StripError(f"unterminated regular expression at offset {i}")
