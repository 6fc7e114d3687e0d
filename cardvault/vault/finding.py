"""A finding: something wrong at a line of a file, shown as `path:line: message`.

One type for every such problem: a file the read path could not use (the snapshot's
`problems`), a breach of a vault rule (`cardvault check`, with its severity and code), a note
of a folder being imported or an item of an export file that cannot be imported (portable/),
and a project file `verify` could not read. `line` is 1-based; 0 when no line is known (the
file as a whole), and `path:line` is then just `path`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """Something wrong at `path:line`. `path` is relative to the vault (or to the folder or
    project read; for an item of an export file, the item: "card 3 (memory/cards/x.md)").
    `code` names the kind of trouble ("unreadable", "schema", "tier-budget" ...); an error
    breaks the format (`check` exits 1), a warning is a budget or hygiene."""

    path: str
    line: int
    message: str
    code: str = ""
    severity: str = "error"  # "error" | "warning" | "note" (worth knowing, nothing to fix)

    @property
    def where(self) -> str:
        """`path:line`, or `path` alone when no line is known."""
        return f"{self.path}:{self.line}" if self.line else self.path

    def __str__(self) -> str:
        """`path:line: message` on one line (control characters shown escaped)."""
        from cardvault.vault.confine import shown

        return shown(f"{self.where}: {self.message}" if self.where else self.message)

    def report(self) -> str:
        """`check`'s line: `path:line: severity: message [code]` (escaped as `str` is)."""
        from cardvault.vault.confine import shown

        return shown(f"{self.where}: {self.severity}: {self.message} [{self.code}]")

    def to_dict(self) -> dict[str, object]:
        """JSON form (`check --json`)."""
        return {
            "path": self.path,
            "line": self.line,
            "severity": self.severity,
            "code": self.code,
            "message": self.message,
        }
