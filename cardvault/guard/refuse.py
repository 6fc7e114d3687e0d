"""Refusal: the error raised when text bound for the vault holds a secret, naming its kind and
file line but never its value."""

from __future__ import annotations

from pathlib import Path

from cardvault.errors import SecretFoundError
from cardvault.guard.scan import scan_text


def ensure_no_secrets(text: str, where: str | Path, first_line: int = 1) -> None:
    """Raise SecretFoundError naming the kind and `where:line` of the first secret, not its value.

    `first_line` is the file line `text` starts on: with four lines of front matter before a
    body, pass 5 and the body's line 1 is reported as line 5.
    """
    findings = scan_text(text)
    if not findings:
        return
    shift = first_line - 1
    message = f"refusing to write a secret ({findings[0].kind}); the value is not shown"
    if len(findings) > 1:
        lines = ", ".join(str(f.line + shift) for f in findings[1:])
        message += f"; {len(findings) - 1} more (line {lines})"
    raise SecretFoundError(message, path=where, line=findings[0].line + shift)
