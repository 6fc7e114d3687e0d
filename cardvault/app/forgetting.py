"""The app's `forget`: plan what forgetting a topic removes in each vault of a scope, then
remove it (one commit per vault)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from cardvault.app.wiring import Wiring
from cardvault.scopes.scope import GLOBAL, PROJECT, Scope

if TYPE_CHECKING:
    from cardvault.edits.proposal import OnWait
    from cardvault.forget.plan import ForgetPlan, ForgetResult
    from cardvault.vault.layout import Vault


class ForgetScope(StrEnum):
    """Where `forget` removes a topic."""

    project = "project"
    global_ = "global"
    everywhere = "everywhere"


@dataclass(frozen=True)
class ForgetPlans:
    """What `Session.forget_plan` found: the non-empty plan of each vault in scope, by name; whether
    an interrupted forget of the query was finished first; warnings; and, with no scope given,
    whether the global vault holds the topic too (a front end may ask where)."""

    query: str
    plans: tuple[tuple[str, Vault, ForgetPlan], ...]
    resumed: bool = False
    warnings: tuple[str, ...] = ()
    global_too: bool = False

    @property
    def shown_query(self) -> str:
        """The query as messages name it (forget/plan.py `shown_query`)."""
        from cardvault.forget.plan import shown_query

        return shown_query(self.query)

    @property
    def widened(self) -> int:
        """Cards planned only because their text mentions the query."""
        return sum(len(plan.cards) for _, _, plan in self.plans if plan.matched_by == "body")


class ForgetCommands(Wiring):
    """Forgetting a topic: the plan, then the removal."""

    def forget_plan(
        self, query: str, scope: ForgetScope | str | None = None, on_wait: OnWait | None = None
    ) -> ForgetPlans:
        """`cardvault forget`, the plan (nothing removed): what forgetting `query` removes in each
        vault of `scope` (default: the project, else the global vault), made after finishing an
        interrupted write there (else the plan would name what the finished write already took)."""
        from cardvault.edits.door import Door
        from cardvault.forget.plan import plan_forget, resumed_forget

        named, notices, global_too = self._forget_vaults(query, scope)
        warnings = [notice for _, vault in named for notice in vault.notices] + notices
        recoveries = [Door(vault, on_wait).finish_interrupted() for _, vault in named]
        today = self.now().date()  # the record's name, as every write's date
        plans = [(name, vault, plan_forget(vault, query, today)) for name, vault in named]
        warnings += [
            f"not searched (unreadable): {p}" for _, _, plan in plans for p in plan.unreadable
        ]
        return ForgetPlans(
            query,
            tuple(found for found in plans if not found[2].empty),
            any(resumed_forget(recovery, query) for recovery in recoveries),
            tuple(warnings),
            global_too,
        )

    def _forget_vaults(
        self, query: str, scope: ForgetScope | str | None
    ) -> tuple[list[tuple[str, Vault]], list[str], bool]:
        """The vaults `scope` covers by name, notices, and `global_too`: the session's `all`
        (so a named folder that holds no vault is an error, never the global vault instead),
        with the registered projects for `everywhere`."""
        from cardvault.forget.plan import plan_forget

        chosen = ForgetScope(scope) if scope is not None else None
        both = self.scope(Scope.all)
        project, home = both.get(PROJECT), both.get(GLOBAL)
        if project is None and chosen is ForgetScope.project:
            self.project()  # raises when there is none: the global vault is no fallback here
        global_too = bool(
            chosen is None and project and home and not plan_forget(home, query).empty
        )
        if chosen is None:
            chosen = ForgetScope.project if project is not None else ForgetScope.global_
        named: list[tuple[str, Vault]] = []
        if project is not None and chosen is not ForgetScope.global_:
            named.append(("project", project))
        if home is not None and chosen is not ForgetScope.project:
            named.append(("global", home))
        warnings: list[str] = []
        if home is not None and chosen is ForgetScope.everywhere:
            from cardvault.scopes.registry import open_projects

            found, warnings = open_projects(home)
            seen = {vault.root for _, vault in named}
            named += [(key, vault) for key, vault in found if vault.root not in seen]
        return named, warnings, global_too

    def forget(
        self, plans: ForgetPlans, match_text: bool = False, on_wait: OnWait | None = None
    ) -> list[tuple[str, Vault, ForgetResult]]:
        """`cardvault forget`, the removal: each plan of `forget_plan` carried out, one commit per
        vault. NotFoundError when nothing matched (unless an interrupted forget was just finished);
        cards matched only by their text go only with `match_text`."""
        from cardvault.edits.door import Door
        from cardvault.errors import NotFoundError
        from cardvault.forget.plan import apply_forget

        shown = plans.shown_query
        if not plans.plans and not plans.resumed:
            raise NotFoundError(f"nothing in the vault matches {shown}")
        if plans.widened and not match_text:
            raise NotFoundError(
                f"no card's slug, topic or tags match {shown}; the {plans.widened} card(s) "
                "above only mention it in their text. Nothing removed: to remove them, run again "
                "with --yes --match-text (or without --yes, and answer the prompt)"
            )
        return [
            (name, vault, Door(vault, on_wait).land(apply_forget(vault, plan)))
            for name, vault, plan in plans.plans
        ]
