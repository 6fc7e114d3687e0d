"""What a failed command's stderr says: its decisive error line, its category and its signature.

The signature is the first 8 hex digits of the SHA-256 of the error line with names, paths,
URLs, ids and numbers replaced by placeholders, so the same error raised elsewhere matches and a
different one never does; the category is the first rule (`_RULE_WORDS`) matching the error
line, else the tail, else the exit code (docs/agents.md). Pure functions on text.
"""

from __future__ import annotations

import hashlib
import re

# First match wins; specific causes come before the generic "it crashed". Case-insensitive.
_RULE_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("permission", (
        r"permission denied", "PermissionError", "EACCES", "EPERM", "operation not permitted",
        r"access (is )?denied", "not authori[sz]ed", r"\b403\b.*forbidden", "read-only file system",
    )),
    ("dependency", (
        "ModuleNotFoundError", "No module named", "ImportError", "cannot find module",
        "command not found", "No matching distribution", "could not find a version",
        "ResolutionImpossible", "version conflict", "ERESOLVE", "unable to locate package",
        r"package .* (is )?not (found|installed)", "missing dependenc", "DistributionNotFound",
        "library not loaded", "cannot open shared object",
    )),
    ("config", (
        "TOMLDecodeError", "YAMLError", "ScannerError", "ParserError", "ConfigParser",
        "JSONDecodeError", r"\bconfig(uration)?\b", "environment variable", r"\benv var",
        r"is not set\b", "invalid (setting|option|value for)", "unknown (setting|option)",
        r"\.(toml|ini|ya?ml|cfg|env)\b",
    )),
    ("syntax", (
        "SyntaxError", "IndentationError", "TabError", "syntax error", "parse error",
        "unexpected token", "unexpected end of (file|input)", "unterminated", "invalid syntax",
    )),
    ("network", (
        "ConnectionError", "ConnectionRefused", "connection (refused|reset|timed out)",
        "timed? ?out", "ETIMEDOUT", "ECONNRESET", "ECONNREFUSED", "EHOSTUNREACH",
        "network is unreachable", "could not resolve", "name or service not known",
        "temporary failure in name resolution", "getaddrinfo", "SSLError",
        "certificate verify failed", r"\b50[234]\b", "bad gateway", "service unavailable",
        "HTTPError", "URLError",
    )),
    ("logic", (
        "AssertionError", "assertion failed", r"\bassert\b", "expected .* (but )?got", "mismatch",
        r"(?-i:\bFAILED\b)", "tests? failed",
    )),
    ("runtime", (
        "Traceback", r"\b\w*(Error|Exception)\b", "segmentation fault", "core dumped", "panic:",
        r"\bKilled\b", "fatal", "out of memory", r"\bOOM", "stack overflow", "aborted",
    )),
)  # fmt: skip
RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile("|".join(words), re.IGNORECASE)) for name, words in _RULE_WORDS
)

#: How much of each line the category rules read (some have `.*` between two words).
LINE_SCAN = 2000
_EXCEPTION_LINE = re.compile(r"^\s*(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt|Warning)\b:?")
_ERROR_WORDS = re.compile(
    r"error|fatal|denied|not found|failed|failure|panic|cannot|can't|unable|invalid|refused",
    re.IGNORECASE,
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_PLACEHOLDERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|`[^`\n]*`|‘[^’\n]*’|“[^”\n]*”"), "<q>"),
    (re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE), "<url>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<id>"),
    (re.compile(r"(?:[A-Za-z]:)?(?:[\w.~-]*[/\\])+[\w.-]*"), "<path>"),
    (
        re.compile(r"\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.I),
        "<hex>",
    ),
    (re.compile(r"\d+(?:\.\d+)*"), "<n>"),
)
MAX_MESSAGE = 200


def clean(text: str) -> str:
    """`text` without terminal colour codes and carriage-return progress overwrites."""
    text = _ANSI.sub("", text)
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.splitlines())


def error_line(stderr: str, exit_code: int, program: str = "", killed_by: str | None = None) -> str:
    """The line of `stderr` that best says what went wrong: the last exception line, else the
    last line with an error word, else the last line. A command that failed silently is named by
    its program: "pytest: exit status 1", or "pytest: killed by SIGTERM".
    """
    lines = [line.strip() for line in clean(stderr).splitlines() if line.strip()]
    for line in reversed(lines):
        if _EXCEPTION_LINE.match(line):
            return line
    for line in reversed(lines):
        if _ERROR_WORDS.search(line):
            return line
    if lines:
        return lines[-1]
    name = re.split(r"[/\\]", program)[-1]
    how = f"killed by {killed_by}" if killed_by else f"exit status {exit_code}"
    return f"{name}: {how}" if name else how


def categorize(line: str, stderr: str, exit_code: int) -> str:
    """The category of a failure, from its error line, its stderr tail and its exit code (each
    line looked at up to LINE_SCAN characters: a 64 KB line costs what a short one does)."""
    tail = "\n".join(part[:LINE_SCAN] for part in clean(stderr).splitlines())
    for text in (line[:LINE_SCAN], tail):
        for name, pattern in RULES:
            if pattern.search(text):
                return name
    if exit_code == 126:
        return "permission"
    if exit_code == 127:
        return "dependency"
    if exit_code > 128:
        return "runtime"
    return "logic"


def normalise(line: str) -> str:
    """The error line with the parts that vary between places replaced by placeholders."""
    text = clean(line).strip()
    for pattern, placeholder in _PLACEHOLDERS:
        text = pattern.sub(placeholder, text)
    return " ".join(text.split())[:MAX_MESSAGE]


def signature(message: str) -> str:
    """8 hex digits identifying a normalised error message."""
    return hashlib.sha256(message.encode("utf-8")).hexdigest()[:8]
