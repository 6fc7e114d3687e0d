"""The app's reads that show the vault: `show`, `list`, `stats`, `graph`, `history`, `diff`,
`view`, `verify`, `agents`, `scope`, and an agent's hot memory (`hot`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from cardvault.app.writes import WriteCommands
from cardvault.scopes.scope import InScope, Scope

if TYPE_CHECKING:
    import datetime as dt

    from cardvault.insight.changes import MemoryCommit
    from cardvault.insight.graph import Graph
    from cardvault.insight.listing import CardRow
    from cardvault.insight.stats import VaultStats
    from cardvault.insight.view_file import ViewWritten
    from cardvault.scopes.agents import AgentSummary, HotWrite
    from cardvault.scopes.registry import Project, Registered
    from cardvault.vault.card import Card
    from cardvault.vault.layout import Vault
    from cardvault.verify.run import VerifyResult

T = TypeVar("T")


@dataclass(frozen=True)
class InVault(Generic[T]):
    """One vault's answer to a read over a scope: the vault's name in the scope ("project" or
    "global"), its root, the answer, and the files the read could not use."""

    name: str
    root: Path
    result: T
    problems: tuple[object, ...] = ()


@dataclass(frozen=True)
class InVaults(Generic[T]):
    """A read's answers over a scope, project first, and what the reader should be told (what
    opening the vaults healed, then the scope's notices)."""

    each: tuple[InVault[T], ...]
    notices: tuple[str, ...] = ()


@dataclass(frozen=True)
class ShownCard:
    """One card as `show` prints it, with its path relative to its vault."""

    card: Card
    path: str

    def to_dict(self) -> dict[str, Any]:
        """JSON form: slug, path, frontmatter, body."""
        card = self.card
        return {"slug": card.slug, "path": self.path, "meta": card.meta, "body": card.body}


@dataclass(frozen=True)
class ScopeInfo:
    """Where the global vault is, this project and its context key (None outside a project),
    the registered projects by key, and what `--register` did (or why it failed)."""

    global_root: Path
    global_exists: bool
    project: Path | None
    key: str | None
    projects: dict[str, Project]
    registered: Registered | None = None
    unregistered: str | None = None
    notices: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "global": str(self.global_root), "global_exists": self.global_exists,
            "project": str(self.project) if self.project else None, "key": self.key,
            "projects": {key: list(p.paths) for key, p in self.projects.items()},
        }  # fmt: skip


def card_table(
    rows: Sequence[tuple[str, CardRow]], by_vault: bool
) -> tuple[list[str], list[tuple[object, ...]]]:
    """`list`'s table of `rows` (each a vault's name and a card): the columns, the vault's name
    first when `by_vault`, and a row a card."""
    from cardvault.insight.listing import CardRow

    lead = ["vault"] if by_vault else []
    table = [(*([name] if by_vault else []), *row.cells()) for name, row in rows]
    return [*lead, *CardRow.COLUMNS], table


def graph_text(graph: Graph, fmt: str) -> str:
    """`graph` drawn as `fmt` (tree, mermaid or dot), as `cardvault graph --format` prints it."""
    from cardvault.insight.graph_render import render_dot, render_mermaid, render_tree

    return {"tree": render_tree, "mermaid": render_mermaid, "dot": render_dot}[fmt](graph)


class InsightCommands(WriteCommands):
    """Reads that show the vault (and `hot`, an agent's own memory beside `agents`; `scope
    --register` registers the project as the writes do)."""

    def show(self, name: str, from_global: bool = False) -> ShownCard:
        """`cardvault show`: the card named `name` (a slug or an alias, archived cards too);
        a use is recorded when an agent asks. NotFoundError when there is none."""
        from cardvault.context.used import read_used

        vault = self.vault_to_read(from_global)
        card = read_used(vault, name, self.now().date(), "show")
        return ShownCard(card, vault.rel(card.path))

    def list_cards(
        self,
        category: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        archived: bool = False,
        scope: Scope | str | InScope = Scope.project,
    ) -> InVaults[list[CardRow]]:
        """`cardvault list`: each vault's cards passing the filters, by category then slug.
        CardvaultError for a category or status no card in scope can have."""
        from cardvault.insight.listing import list_cards
        from cardvault.vault.filters import check_filters

        in_scope = self.scope(scope)
        check_filters((s.vault for s in in_scope.vaults), category, status)
        return _over(in_scope, lambda vault: list_cards(vault, category, tag, status, archived))

    def stats(self, scope: Scope | str | InScope = Scope.project) -> InVaults[VaultStats]:
        """`cardvault stats`: what each vault holds, against its budgets."""
        from cardvault.insight.stats import vault_stats

        def read(vault: Vault) -> tuple[VaultStats, Sequence[object]]:
            found = vault_stats(vault)
            return found, found.problems

        return _over(self.scope(scope), read)

    def graph(
        self, archived: bool = False, scope: Scope | str | InScope = Scope.project
    ) -> InVaults[Graph]:
        """`cardvault graph`: each vault's graph (links never cross vaults)."""
        from cardvault.insight.graph import vault_graph

        return _over(self.scope(scope), lambda vault: vault_graph(vault, archived))

    def history(
        self, slug: str | None = None, since: dt.date | None = None, limit: int | None = None
    ) -> Iterator[MemoryCommit]:
        """`cardvault history`: the memory's commits in words, newest first, read lazily."""
        from cardvault.insight.changes import memory_history

        return memory_history(self.project(), slug, since, limit)

    def diff(self, rev: str = "HEAD") -> MemoryCommit | None:
        """`cardvault diff`: what commit `rev` did to the memory (None: no commit yet)."""
        from cardvault.insight.changes import memory_diff

        return memory_diff(self.project(), rev)

    def view(self, out: Path | None = None, temporary: bool = False) -> ViewWritten:
        """`cardvault view`: write the vault as one HTML page (insight/view_file.py)."""
        from cardvault.errors import CardvaultError
        from cardvault.insight.view_file import write_view

        if temporary and out is not None:
            said = "--out and --open do not go together: --open writes a temporary file"
            raise CardvaultError(said)
        return write_view(self.project(), self.now().date(), out, temporary)

    def verify(self, project: Path | None = None, dry_run: bool = False) -> VerifyResult:
        """`cardvault verify`: check what each card names against `project` (default: the
        repository the vault lives in); mark the stale ones and ask about them (one commit)."""
        from cardvault.edits.door import Door
        from cardvault.verify.run import VerifyResult, verify_vault

        vault = self.project()
        done = verify_vault(vault, self.now().date(), project, dry_run)
        return done if isinstance(done, VerifyResult) else Door(vault).land(done)

    def agents(self, from_global: bool = False) -> list[AgentSummary]:
        """`cardvault agents`: the agents the vault knows, with what each wrote."""
        from cardvault.scopes.agents import agent_summaries
        from cardvault.vault.read import read_vault

        return agent_summaries(read_vault(self.vault_to_read(from_global)))

    def hot(self, text: str, to_global: bool = False, redact: bool = False) -> HotWrite:
        """`cardvault hot`: add a fragment to the session agent's hot memory and commit it."""
        from cardvault.scopes.agents import add_fragment

        return self.landed(lambda vault: add_fragment(vault, text, self.now(), redact), to_global)

    def scope_info(self, register: bool = False) -> ScopeInfo:
        """`cardvault scope`: the global vault, this project's context key and the registered
        projects, after registering the project with `register` (a failure is said in the
        result, never raised). VaultNotFoundError to `register` outside a project."""
        from cardvault.errors import VaultNotFoundError
        from cardvault.scopes.key import context_key
        from cardvault.scopes.registry import read_projects

        project = self.found_project()
        if register and project is None:
            raise VaultNotFoundError("no project vault here to register")
        joined = self.registration() if register else {}
        shared = self.global_vault()
        return ScopeInfo(
            self.home, shared is not None, project.root if project else None,
            context_key(project.root) if project else None,
            read_projects(shared) if shared else {}, notices=project.notices if project else (),
            **joined,
        )  # fmt: skip


def _over(in_scope: InScope, read: Callable[[Vault], tuple[T, Sequence[object]]]) -> InVaults[T]:
    """`read` (an answer and the files it could not use) of each vault in scope."""
    each = []
    for scoped in in_scope.vaults:
        result, problems = read(scoped.vault)
        each.append(InVault(scoped.name, scoped.vault.root, result, tuple(problems)))
    healed = (notice for s in in_scope.vaults for notice in s.vault.notices)
    return InVaults(tuple(each), (*healed, *in_scope.notices))
