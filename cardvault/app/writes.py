"""The app's write commands: `log`, `remember`, `new`, and the project's registration with
the global vault."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cardvault.wiring import Wiring

if TYPE_CHECKING:
    from cardvault.edits.proposal import OnWait
    from cardvault.scopes.registry import Registered
    from cardvault.write.add import WriteResult


class WriteCommands(Wiring):
    """Writes to the project (or global) vault, each one commit."""

    def log(
        self,
        text: str,
        title: str | None = None,
        to_global: bool = False,
        redact: bool = False,
        on_wait: OnWait | None = None,
    ) -> WriteResult:
        """`cardvault log`: append an entry to today's daily log and commit it."""
        from cardvault.edits.door import Door
        from cardvault.write.add import plan_log

        vault = self.vault_for(to_global)
        return Door(vault, on_wait).land(plan_log(vault, text, title, self.now(), redact))

    def remember(
        self,
        text: str,
        to_global: bool = False,
        redact: bool = False,
        on_wait: OnWait | None = None,
    ) -> WriteResult:
        """`cardvault remember`: log `text` as a Lesson for maintenance to distill (refused
        when it is empty: `Lesson:` alone would still make an entry, with no title)."""
        from cardvault.errors import CardFormatError

        if not text.strip():
            raise CardFormatError("nothing to remember: the lesson is empty")
        return self.log(f"Lesson: {text.strip()}", None, to_global, redact, on_wait)

    def new(
        self,
        topic: str,
        category: str,
        body: str,
        tags: Sequence[str] = (),
        to_global: bool = False,
        redact: bool = False,
        on_wait: OnWait | None = None,
    ) -> WriteResult:
        """`cardvault new`: write a new knowledge card and commit it."""
        from cardvault.edits.door import Door
        from cardvault.write.add import plan_card

        vault = self.vault_for(to_global)
        today = self.now().date()
        return Door(vault, on_wait).land(
            plan_card(vault, topic, category, tags, body, today, redact)
        )

    def register(self) -> Registered | None:
        """Register the project with the global vault (made on first use); None inside the
        global vault itself."""
        from cardvault.edits.door import Door
        from cardvault.scopes.home import is_global
        from cardvault.scopes.registry import register

        project = self.project()
        if is_global(project, self.env):
            return None
        home = self.vault_for(to_global=True)
        return Door(home).land(register(home, project, self.now().date()))

    def registration(self) -> dict[str, Any]:
        """The project's registration as a result's `registered`/`unregistered` fields
        (`Initialized`, `Maintained`): a failure is said, never raised; none outside a
        project."""
        from cardvault.errors import CardvaultError, VaultNotFoundError

        try:
            return {"registered": self.register()}
        except VaultNotFoundError:
            return {}
        except (CardvaultError, OSError) as exc:
            return {"unregistered": str(exc)}
