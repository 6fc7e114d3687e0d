"""A finding: one breach of a vault rule, as `path:line: severity: message [code]`."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Finding:
    """One breach of a vault rule. Errors break the format (exit 1); warnings are budgets and
    hygiene (exit 0)."""

    path: str
    line: int
    severity: str  # "error" | "warning"
    code: str
    message: str

    def __str__(self) -> str:
        """One line, whatever the path and message hold (control characters shown escaped)."""
        from cardvault.vault.confine import shown

        text = f"{self.path}:{self.line}: {self.severity}: {self.message} [{self.code}]"
        return shown(text)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)
