"""A finding: something wrong at a line of a file, shown as `path:line: message`; the one type
for a file the read path could not use, a `check` breach, an import or export problem and a
project file `verify` could not read."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Finding:
    """Something wrong at `path:line` (line 1-based; 0: the file as a whole). `path` is relative
    to the vault (or to the folder or project read, or names an export item). `code` names the
    kind of trouble; an error breaks the format (`check` exits 1), a warning is hygiene."""

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
        return asdict(self)
