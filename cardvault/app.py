"""The app: one `Session` wires a cardvault session, and has one method per command.

A session holds what every command needs: the project vault (`--vault`, $CARDVAULT_VAULT, or
found upwards) and the global vault, the agent (`--agent`, $CARDVAULT_AGENT), the clock
($CARDVAULT_NOW pins it), which vaults a scope covers, and the warm search services of the
vaults it has read. The CLI, the MCP server, the resident `cardvault serve` and the Python API
all make one and call it; none of them wires services on its own:

    from cardvault import open_vault
    with open_vault("~/notes") as vault:
        for hit in vault.search("why does the login POST fail", k=5, scope="all"):
            print(hit.score, hit.path, hit.topic)
        print(vault.context(task="fix the login form").text)
        vault.remember("The login POST needs the CSRF header from /token.")

Everything a session reads from the environment comes from its `env` (default: this process's),
so a long-lived process answers each caller with the caller's values without touching
`os.environ`. Methods return the services' typed results; they never print. Importing this
module is cheap: the services load when a method first needs them.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardvault.scopes.scope import Scope
from cardvault.search.warm import VaultHandle, WarmHandles
from cardvault.vault.layout import Vault

if TYPE_CHECKING:
    from cardvault.context.build import ContextPack
    from cardvault.edits.door import OnWait
    from cardvault.maintain.crossproject import GlobalResult
    from cardvault.maintain.run import RunOptions, RunResult
    from cardvault.review.answer import Answer, ReviewResult
    from cardvault.review.judge import JudgeOutcome
    from cardvault.scopes.registry import Registered
    from cardvault.scopes.scope import InScope
    from cardvault.search.engine import (
        Progress,
        Searcher,
        SearchOutcome,
        SearchResult,
        SyncReport,
    )
    from cardvault.search.scoped import ScopedHits
    from cardvault.vault.decisions import ReviewItem
    from cardvault.write.add import WriteResult

#: Tests and reproducible demos may pin the clock: CARDVAULT_NOW=2026-11-30T09:15
NOW_VAR = "CARDVAULT_NOW"
#: What a long-lived process searches for once at start, to sync the index and load the model.
WARM_UP_QUERY = "warm up the search index and model"


def clock_of(env: Mapping[str, str]) -> Callable[[], dt.datetime]:
    """The clock `env` sets: $CARDVAULT_NOW when given, else local time to the minute."""

    def now() -> dt.datetime:
        pinned = env.get(NOW_VAR)
        if pinned:
            return dt.datetime.fromisoformat(pinned)
        return dt.datetime.now().replace(second=0, microsecond=0)

    return now


class Session:
    """One session of cardvault (see the module docstring). Close it, or use it as a context
    manager, to release the warm search services it made."""

    def __init__(
        self,
        vault: str | Path | None = None,
        *,
        agent: str | None = None,
        env: Mapping[str, str] | None = None,
        clock: Callable[[], dt.datetime] | None = None,
        handles: WarmHandles | None = None,
        watch: bool = False,
    ) -> None:
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.now = clock or clock_of(self.env)
        #: The vault named by the caller (`--vault`, a path), else None: found as the CLI does.
        self.explicit = Path(vault).expanduser() if vault is not None else None
        self._agent = agent
        self._owns_handles = handles is None
        self.handles = WarmHandles(watch) if handles is None else handles
        self._root: Path | None = None

    @property
    def served(self) -> bool:
        """Whether this session runs on warm services lent to it (inside `cardvault serve`, or a
        `with_options` copy), rather than its own."""
        return not self._owns_handles

    def with_options(self, vault: Path | None = None, agent: str | None = None) -> Session:
        """This session with another vault or agent (None keeps its own), sharing its warm
        services, environment and clock."""
        same = Session(
            vault if vault is not None else self.explicit,
            agent=agent if agent is not None else self._agent,
            env=self.env, clock=self.now, handles=self.handles,
        )  # fmt: skip
        same._owns_handles = False
        same._root = self._root if vault is None else None
        return same

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the search services this session made (not those it was lent)."""
        if self._owns_handles:
            self.handles.close()

    # -- the vaults ---------------------------------------------------------------------------

    @property
    def agent(self) -> str | None:
        """The agent this session acts as (validated), or None."""
        from cardvault.scopes.agents import agent_name

        return agent_name(self._agent, self.env)

    @property
    def root(self) -> Path:
        """The project vault's root folder (VaultNotFoundError when there is none)."""
        if self._root is None:
            from cardvault.vault.layout import find_vault

            found = find_vault(self.explicit, self.env)
            self._root = found.root
            self.handles.handle(found.root, found)
        return self._root

    def project(self) -> Vault:
        """The project vault with its current settings, as the session's agent."""
        return self._as_agent(self.handles.handle(self.root).vault)

    def global_vault(self) -> Vault | None:
        """The global vault, or None when it was never created (reads never create it)."""
        from cardvault.scopes.home import global_root
        from cardvault.vault.config import CONFIG_FILE

        root = global_root(self.env)
        if not (root / CONFIG_FILE).is_file():
            return None
        return self._as_agent(self.handles.handle(root).vault)

    @property
    def vault(self) -> Vault:
        """The project vault (`project()`)."""
        return self.project()

    def vault_for(self, to_global: bool = False) -> Vault:
        """The vault a command works on: the project, or the global vault (made on first use)."""
        if not to_global:
            return self.project()
        from cardvault.scopes.home import ensure_global

        found = self.global_vault()
        if found is None:
            ensure_global(self.env)
            found = self.global_vault()
        assert found is not None  # just made
        return found

    def scope(self, scope: Scope | str) -> InScope:
        """The vaults `scope` covers, project first, with notices for what is missing."""
        from cardvault.scopes.scope import resolve

        chosen = Scope(scope)
        shared = self.global_vault() if chosen is not Scope.project else None
        return resolve(chosen, self.project, shared)

    def searcher(self, vault: Vault) -> Searcher:
        """The warm search service of `vault`."""
        return self.handles.handle(vault.root).searcher

    @property
    def handle(self) -> VaultHandle:
        """The project vault's warm handle."""
        return self.handles.handle(self.root)

    def _as_agent(self, vault: Vault) -> Vault:
        name = self.agent
        return replace(vault, agent=name) if name else vault

    # -- search and context -------------------------------------------------------------------

    def search_hits(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        category: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        logs: bool = False,
        archived: bool = False,
        scope: Scope | str = Scope.project,
    ) -> ScopedHits:
        """`cardvault search`: the `k` best hits over the scope's vaults, each named by its
        vault, with the modes used, the notices (the scope's first), each vault's outcome and
        each card hit's age and stale mark (`about`)."""
        from cardvault.context.used import hit_age
        from cardvault.search.engine import Filters
        from cardvault.search.scoped import search_vaults

        in_scope = self.scope(scope)
        filters = Filters(category=category, tag=tag, status=status, logs=logs, archived=archived)
        vaults = [(s.name, s.vault) for s in in_scope.vaults]
        found = search_vaults(vaults, self.searcher, query, k, mode, filters)
        named, today = dict(vaults), self.now().date()

        def about(name: str, path: str) -> Mapping[str, Any]:  # read only for rows shown
            return hit_age(named[name], path, today)

        return replace(found, notices=(*in_scope.notices, *found.notices), about=about)

    def search(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        category: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        logs: bool = False,
        archived: bool = False,
        scope: Scope | str = Scope.project,
    ) -> list[SearchResult]:
        """The `k` best hits for `query` (mode: hybrid, semantic or keyword), best first."""
        found = self.search_hits(query, k, mode, category, tag, status, logs, archived, scope)
        return found.results

    def query(
        self,
        query: str,
        k: int = 10,
        mode: str = "hybrid",
        category: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        logs: bool = False,
        archived: bool = False,
    ) -> SearchOutcome:
        """The project vault's whole outcome: hits, the sync report, mode, weights, notices."""
        from cardvault.search.engine import Filters

        filters = Filters(category=category, tag=tag, status=status, logs=logs, archived=archived)
        return self.handle.query(query, k, mode, filters)

    def index(self, rebuild: bool = False, progress: Progress | None = None) -> SyncReport:
        """`cardvault index`: bring the project's search index up to date."""
        return self.handle.index(rebuild, progress)

    def context(
        self,
        task: str | None = None,
        budget: int | None = None,
        scope: Scope | str = Scope.all,
        archived: bool = False,
        mode: str = "hybrid",
    ) -> ContextPack:
        """`cardvault context`: the session-start pack for `task` within `budget` tokens."""
        from cardvault.context.plan import Request, build_context

        request = Request(
            task, budget, self.now().date(), self.agent, archived, mode, searcher=self.searcher
        )
        return build_context(self.scope(scope), request)

    def warm_up(self) -> tuple[str, ...]:
        """Sync the index and load the model now, for the project and the global vault (a
        default `--scope all` read covers both); the project's notices. What is loaded then
        lives as long as the process: it is kept out of the garbage collector's scans."""
        import gc

        notices = self.handle.query(WARM_UP_QUERY, k=1).notices
        shared = self.global_vault()
        if shared is not None and shared.root != self.root:
            self.searcher(shared).search(WARM_UP_QUERY, k=1)
        gc.freeze()
        return notices

    # -- writes -------------------------------------------------------------------------------

    def log(
        self,
        text: str,
        title: str | None = None,
        to_global: bool = False,
        redact: bool = False,
        on_wait: OnWait | None = None,
    ) -> WriteResult:
        """`cardvault log`: append an entry to today's daily log and commit it."""
        from cardvault.write.add import append_log

        vault = self.vault_for(to_global)
        return append_log(vault, text, title, self.now(), redact=redact, on_wait=on_wait)

    def remember(
        self,
        text: str,
        to_global: bool = False,
        redact: bool = False,
        on_wait: OnWait | None = None,
    ) -> WriteResult:
        """`cardvault remember`: log `text` as a Lesson for maintenance to distill."""
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
        from cardvault.write.add import add_card

        vault = self.vault_for(to_global)
        today = self.now().date()
        return add_card(vault, topic, category, tags, body, today, redact=redact, on_wait=on_wait)

    def register(self) -> Registered | None:
        """Register the project with the global vault (made on first use); None inside the
        global vault itself."""
        from cardvault.scopes.home import is_global
        from cardvault.scopes.registry import register

        project = self.project()
        if is_global(project, self.env):
            return None
        return register(self.vault_for(to_global=True), project, self.now().date())

    def maintain(
        self,
        options: RunOptions,
        progress: Progress | None = None,
        on_wait: OnWait | None = None,
    ) -> RunResult:
        """`cardvault maintain`: the maintenance pass over the project vault."""
        from cardvault.maintain.run import run_maintenance

        return run_maintenance(self.project(), options, progress, on_wait=on_wait)

    def maintain_global(self, dry_run: bool = False) -> GlobalResult:
        """`cardvault maintain --global`: cross-project promotion in the global vault."""
        from cardvault.maintain.crossproject import run_global

        return run_global(self.vault_for(to_global=True), self.now(), dry_run)

    # -- the review queue ---------------------------------------------------------------------

    def review_pending(self, to_global: bool = False) -> list[ReviewItem]:
        """`cardvault review`: the decisions waiting in the project's (or global) queue."""
        from cardvault.review.answer import pending

        return pending(self.vault_for(to_global))

    def review_answer(
        self, answers: Sequence[Answer], by: str | None = None, to_global: bool = False
    ) -> ReviewResult:
        """`cardvault review accept|reject`: settle decisions in one commit, recorded as
        answered by `by` (default: a person)."""
        from cardvault.review.answer import PERSON, answer

        return answer(self.vault_for(to_global), list(answers), self.now(), by=by or PERSON)

    def review_accept(
        self,
        ids: Sequence[str],
        members: Sequence[int] = (),
        keep: int | None = None,
        reason: str | None = None,
        to_global: bool = False,
    ) -> ReviewResult:
        """`cardvault review accept`: accept decisions (of `members` only, or keeping `keep`)."""
        from cardvault.review.answer import Answer

        answers = [Answer(i, True, tuple(members), keep, reason) for i in ids]
        return self.review_answer(answers, to_global=to_global)

    def review_reject(
        self, ids: Sequence[str], reason: str | None = None, to_global: bool = False
    ) -> ReviewResult:
        """`cardvault review reject`: the members stay apart; both sides stand."""
        from cardvault.review.answer import Answer

        answers = [Answer(i, False, reason=reason) for i in ids]
        return self.review_answer(answers, to_global=to_global)

    def review_judge(
        self, ids: Sequence[str] | None = None, to_global: bool = False
    ) -> JudgeOutcome:
        """`cardvault review judge`: let the vault's judge command answer pending decisions."""
        from cardvault.review.judge import judge_pending

        return judge_pending(self.vault_for(to_global), self.now(), ids)


def open_vault(path: str | Path | None = None, watch: bool = False) -> Session:
    """A session on the vault at `path`, or found like the CLI finds it ($CARDVAULT_VAULT,
    walking up); VaultNotFoundError when there is none.

    `watch` keeps a file watcher on each vault searched for the session's life (for long-lived
    programs: searches on an unchanged vault then skip the sync)."""
    session = Session(path, watch=watch)
    _ = session.root  # fail now, not at the first call
    return session
