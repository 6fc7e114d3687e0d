"""The app's write commands: `log`, `remember`, `new`, the project's registration with the
global vault, and making a vault (`init`, and the global vault on its first write)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from cardvault.app.wiring import Wiring

if TYPE_CHECKING:
    from cardvault.edits.proposal import OnWait, Planned
    from cardvault.scopes.registry import Registered
    from cardvault.vault.layout import Vault
    from cardvault.write.add import WriteResult
    from cardvault.write.init import InitResult

R = TypeVar("R")


def init_vault(root: Path) -> InitResult:
    """Make a vault at `root` (created if missing): init's plan (write/init.py) landed in one
    commit through a door opened on the folder it made, its merge drivers set up by the plan's
    `.gitattributes` rather than by the door."""
    from cardvault.edits.door import Door
    from cardvault.vault.layout import Vault
    from cardvault.write.init import plan_init

    planned = plan_init(root)
    return planned.result(Door(Vault(root.resolve())).commit(planned.plan, merge_setup=False))


class VaultFor(Wiring):
    """The wiring of every command that may work on the global vault instead of the project:
    the vault to work on, the global one made on its first write."""

    def vault_for(self, to_global: bool = False) -> Vault:
        """The vault a command works on: the project, or the global vault (made, as `init`
        makes a vault, on its first write; a read never makes it)."""
        from cardvault.errors import CardvaultError
        from cardvault.scopes.home import HOME_VAR

        if not to_global:
            return self.project()
        found = self.global_vault()
        if found is None:
            root = self.home
            if root.exists() and not root.is_dir():
                raise CardvaultError(f"{HOME_VAR} must name a folder for the global vault", root)
            init_vault(root)
            found = self.global_vault()
        assert found is not None  # just made
        return found

    def landed(
        self,
        plan: Callable[[Vault], Planned[Any, R]],
        to_global: bool = False,
        on_wait: OnWait | None = None,
    ) -> R:
        """The service's plan for the project (or global) vault landed through the door."""
        from cardvault.edits.door import Door

        vault = self.vault_for(to_global)
        return Door(vault, on_wait).land(plan(vault))


class WriteCommands(VaultFor):
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
        from cardvault.write.add import plan_log

        return self.landed(
            lambda vault: plan_log(vault, text, title, self.now(), redact), to_global, on_wait
        )

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
        body: str | Callable[[], str],
        tags: Sequence[str] = (),
        to_global: bool = False,
        redact: bool = False,
        on_wait: OnWait | None = None,
    ) -> WriteResult:
        """`cardvault new`: write a new knowledge card and commit it. `body` is the card's text,
        or how to read it: called once the category is known, so no text is typed in vain."""
        from cardvault.write.add import check_category, plan_card

        if callable(body):
            check_category(self.vault_for(to_global), category)
        text = body() if callable(body) else body
        return self.landed(
            lambda vault: plan_card(vault, topic, category, tags, text, self.now().date(), redact),
            to_global,
            on_wait,
        )

    def register(self) -> Registered | None:
        """Register the project with the global vault; None inside the global vault."""
        from cardvault.scopes.registry import register

        project = self.project()
        if project.root == self.home:
            return None
        return self.landed(lambda home: register(home, project, self.now().date()), to_global=True)

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
