"""What a card names in the project (`verify`): file paths, commands, pinned versions and code
symbols, read from the card's body, never run.

- paths: an inline code span that is one path-like word (a `:12-30` suffix, or a link's
  `#L12-L30`, kept apart as the lines it cites), and a relative Markdown link's target; URLs,
  globs, absolute paths, `~` and `..` are not the project's;
- commands: a code span starting with `$ ` or a runner (`RUNNERS`), and each line of a fenced
  shell block;
- pins: `name==1.2.3` or `name@1.2.3` in a code span, or in prose with a dotted version;
- symbols: as verify/symbols.py defines them.
At most `MAX_NAMES` names per card.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cardvault.verify.symbols import symbol_of

MAX_NAMES = 100
RUNNERS = frozenset({"make", "npm", "yarn", "pnpm", "npx", "uv", "poetry"})
SHELL_LANGUAGES = frozenset({"sh", "bash", "shell", "console", "zsh"})
ROOT_FILES = frozenset({"Makefile", "makefile", "GNUmakefile", "Dockerfile", "Justfile",
                        "Procfile", "Gemfile", "Pipfile", "Rakefile"})  # fmt: skip
EXTENSIONS = frozenset({"py", "pyi", "js", "mjs", "cjs", "ts", "tsx", "jsx", "json", "toml",
                        "yaml", "yml", "md", "rst", "txt", "lock", "cfg", "ini", "sh", "bash",
                        "zsh", "go", "rs", "rb", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs",
                        "css", "scss", "html", "sql", "xml", "gradle", "tf", "env", "conf",
                        "proto", "vue", "svelte", "php", "swift", "lua", "pl", "r", "ipynb",
                        "csv"})  # fmt: skip
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)[^\n]*$")
_SPAN = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
#: No `[` or `]` in a link's text or target: each opening is tried only up to the next one, so a
#: line of unclosed links (`[a](` repeated, a hostile card) is read in linear time.
_LINK = re.compile(r"(?<!!)\[[^\[\]\n]*\]\(([^)\s\[\]]+)(?:\s+\"[^\"\n]*\")?\)")
_PATH_WORD = re.compile(r"^[\w.\-/@+]+$")
_LINE_SUFFIX = re.compile(r":\d+(?:-\d+)?$")
_CITED = re.compile(r"(?::(\d{1,7})(?:-(\d{1,7}))?|#L(\d{1,7})(?:-L?(\d{1,7}))?)$")
_PIN = re.compile(r"^(@?[A-Za-z0-9][\w.\-/]*?)(==|@)(\d[\w.\-+]*)$")
_VERSION_LIKE = re.compile(r"^v?\d+(?:\.\d+)*$")
#: A pin written in prose: a whole word `name==1.2.3` or `name@1.2.3` (a dotted version; a
#: sentence's closing `.` is not part of it). The version's parts and its suffix are bounded:
#: unbounded, the digits of `a@1.` and 200,000 more (a shared card's prose) were split every
#: way between them, squared.
_PROSE_PIN = re.compile(
    r"(?<![\w.\-/@=:])[A-Za-z][\w.\-]*?(?:==|@)\d{1,12}(?:\.\d{1,12}){1,8}"
    r"(?:[\w+\-]{0,40}[A-Za-z0-9])?(?![\w@=])"
)


@dataclass(frozen=True)
class Named:
    """One thing a card names: `kind` ("path", "command", "pin" or "symbol"), its text, its
    body line."""

    kind: str
    text: str
    line: int
    lines: tuple[int, int] | None = None  # a path's cited lines (`a.py:12-30`, `a.py#L12`)


def named_in(body: str) -> list[Named]:
    """Every path, command and pin `body` names, in order, each once (see the docstring)."""
    found: list[Named] = []
    fence: tuple[str, str] | None = None  # (marker, language) of the open fenced block
    for number, line in enumerate(body.splitlines(), start=1):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(2).startswith(fence[0][0]) and not opened.group(3):
                fence = None
            elif fence[1] in SHELL_LANGUAGES and (command := _shell_line(line)):
                found.append(Named("command", command, number))
            continue
        if opened:
            fence = (opened.group(2), opened.group(3).lower())
            continue
        found += _in_prose(line, number)
    unique = {(n.kind, n.text, n.lines): n for n in reversed(found)}
    ordered = sorted(unique.values(), key=lambda n: (n.line, n.kind, n.text, n.lines or (0, 0)))
    return ordered[:MAX_NAMES]


def _in_prose(line: str, number: int) -> list[Named]:
    found = []
    for match in _SPAN.finditer(line):
        span = match.group(1).strip()
        named = classify_span(span)
        if named is not None:
            cited = cited_lines(span) if named[0] == "path" else None
            found.append(Named(named[0], named[1], number, cited))
    for match in _LINK.finditer(line):
        target = match.group(1).split("#")[0]
        if target and (path := project_path(target, link=True)):
            found.append(Named("path", path, number, cited_lines(match.group(1))))
    prose = _SPAN.sub(lambda span: " " * len(span.group(0)), _LINK.sub(" ", line))
    found += [Named("pin", m.group(0), number) for m in _PROSE_PIN.finditer(prose)]
    return found


def cited_lines(text: str) -> tuple[int, int] | None:
    """The lines a path cites: `a.py:12` (12, 12), `a.py:12-30`, a link's `#L12-L30`."""
    match = _CITED.search(text)
    if match is None:
        return None
    first = int(match.group(1) or match.group(3))
    last = int(match.group(2) or match.group(4) or first)
    return (first, last) if 0 < first <= last else None


def _shell_line(line: str) -> str | None:
    text = line.strip()
    if text.startswith("$ "):
        text = text[2:].strip()
    if not text or text.startswith("#"):
        return None
    return text


def classify_span(span: str) -> tuple[str, str] | None:
    """What an inline code span names: (kind, text), or None."""
    if span.startswith("$ "):
        return ("command", span[2:].strip()) if span[2:].strip() else None
    words = span.split()
    if len(words) >= 2 and words[0] in RUNNERS:
        return ("command", span)
    if len(words) != 1:
        return ("symbol", span) if symbol_of(span) is not None else None
    pin = _PIN.match(span)
    if pin and pin.group(1) and not pin.group(1).endswith("/"):
        return ("pin", span)
    path = project_path(span)
    if path:
        return ("path", path)
    return ("symbol", span) if symbol_of(span) is not None else None


def project_path(word: str, link: bool = False) -> str | None:
    """`word` as a path relative to the project, or None when it does not name one."""
    word = _LINE_SUFFIX.sub("", word.strip())
    if not word or "://" in word or word.startswith(("mailto:", "-", "/", "~", "#")):
        return None
    if any(c in word for c in "*?[]{}<>$%=") or not _PATH_WORD.match(word):
        return None
    parts = [p for p in word.removeprefix("./").split("/") if p not in ("", ".")]
    if not parts or ".." in parts or word.startswith("@"):
        return None
    last = parts[-1]
    if _VERSION_LIKE.match(last):
        return None
    extension = last.rsplit(".", 1)[1].lower() if "." in last[1:] else ""
    if link or (extension in EXTENSIONS) or last in ROOT_FILES:
        return "/".join(parts)
    if "/" in word.strip("/") and (extension or len(parts) >= 2) and not word.endswith("/"):
        return "/".join(parts)
    return None


def pin_parts(text: str) -> tuple[str, str, str] | None:
    """A pin's (name, "==" or "@", version)."""
    match = _PIN.match(text)
    return (match.group(1), match.group(2), match.group(3)) if match else None
