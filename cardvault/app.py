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

The wiring (the vaults, agent, clock, scope, warm searchers, all read from the session's `env`,
never from `os.environ` behind its back) is `cardvault.wiring.Wiring`; this module adds the
commands. Methods return the services' typed results; they never print. Importing this module
is cheap: the services load when a method first needs them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, Unpack

from cardvault.scopes.scope import InScope, Scope
from cardvault.search.filters import Filters
from cardvault.wiring import NOW_VAR, Wiring, clock_of

if TYPE_CHECKING:
    from cardvault.context.build import ContextPack
    from cardvault.edits.door import OnWait
    from cardvault.maintain.crossproject import GlobalResult
    from cardvault.maintain.run import RunOptions, RunResult
    from cardvault.review.answer import Answer, ReviewResult
    from cardvault.review.judge import JudgeOutcome
    from cardvault.scopes.registry import Registered
    from cardvault.search.engine import Progress, SearchOutcome, SearchResult, SyncReport
    from cardvault.search.scoped import ScopedHits
    from cardvault.vault.decisions import ReviewItem
    from cardvault.write.add import WriteResult

__all__ = [
    "NOW_VAR", "WARM_UP_QUERY", "Filters", "Maintained", "Query", "Session", "clock_of",
    "open_vault",
]  # fmt: skip

#: What a long-lived process searches for once at start, to sync the index and load the model.
WARM_UP_QUERY = "warm up the search index and model"


@dataclass(frozen=True)
class Query:
    """One search: the `k` best hits for `text` in `mode` (hybrid, semantic or keyword) among
    what `filters` lets through, over the vaults of `scope` (a `Scope`, or one a command
    resolved already); `rerank`: the cross-encoder rereads a hybrid search's first hits (None:
    each vault's `[search] rerank`)."""

    text: str
    k: int = 10
    mode: str = "hybrid"
    filters: Filters = field(default_factory=Filters)
    scope: Scope | str | InScope = Scope.project
    rerank: bool | None = None

    @classmethod
    def of(
        cls,
        text: str,
        k: int = 10,
        mode: str = "hybrid",
        category: str | None = None,
        tag: str | None = None,
        status: str | None = None,
        logs: bool = False,
        archived: bool = False,
        scope: Scope | str | InScope = Scope.project,
        rerank: bool | None = None,
    ) -> Query:
        """The query the flat options (`SearchOptions`) spell."""
        filters = Filters(category=category, tag=tag, status=status, logs=logs, archived=archived)
        return cls(text, k, mode, filters, scope, rerank)


class SearchOptions(TypedDict, total=False):
    """`Query.of`'s options, as keywords of the session's search methods."""

    k: int
    mode: str
    category: str | None
    tag: str | None
    status: str | None
    logs: bool
    archived: bool
    scope: Scope | str | InScope
    rerank: bool | None


class Session(Wiring):
    """One session of cardvault (see the module docstring): its wiring, and one method per
    command. Close it, or use it as a context manager, to release the warm search services it
    made."""

    # -- search and context -------------------------------------------------------------------

    def search_hits(self, query: str | Query, **options: Unpack[SearchOptions]) -> ScopedHits:
        """`cardvault search`: the `k` best hits of `query` (a `Query`, or its text with the
        options as keywords) over the scope's vaults, each named by its vault, with the modes
        used, the notices (the scope's first), each vault's outcome and each card hit's age and
        stale mark (`about`)."""
        from cardvault.context.used import hit_ages
        from cardvault.search.scoped import search_vaults

        asked = _query(query, options)
        in_scope = self.scope(asked.scope)
        vaults = [(s.name, s.vault) for s in in_scope.vaults]
        found = search_vaults(
            vaults, self.searcher, asked.text, asked.k, asked.mode, asked.filters, asked.rerank
        )
        named, today = dict(vaults), self.now().date()
        ages: dict[str, dict[str, dict[str, object]]] = {}

        def about(name: str, path: str) -> Mapping[str, Any]:  # read only for rows shown
            if not ages:  # every shown hit's card, one read per vault
                for vault in named:
                    shown = (hit.path for at, hit in found.hits if at == vault)
                    ages[vault] = hit_ages(named[vault], shown, today)
            return ages[name].get(path, {})

        return replace(found, notices=(*in_scope.notices, *found.notices), about=about)

    def search(self, query: str | Query, **options: Unpack[SearchOptions]) -> list[SearchResult]:
        """The `k` best hits for `query` (as `search_hits`), best first."""
        return self.search_hits(query, **options).results

    def query(self, query: str | Query, **options: Unpack[SearchOptions]) -> SearchOutcome:
        """The project vault's whole outcome (its scope aside): hits, the sync report, mode,
        weights, notices."""
        asked = _query(query, options)
        return self.handle.query(asked.text, asked.k, asked.mode, asked.filters)

    def index(self, rebuild: bool = False, progress: Progress | None = None) -> SyncReport:
        """`cardvault index`: bring the project's search index up to date."""
        return self.handle.index(rebuild, progress)

    def context(
        self,
        task: str | None = None,
        budget: int | None = None,
        scope: Scope | str | InScope = Scope.all,
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
    ) -> Maintained:
        """`cardvault maintain`: the maintenance pass over the project vault, one unit of work
        (maintain/run.py: one lock, one read, the steps that precede the plan under it); then,
        unless it was a dry run, the project registers with the global vault (a failure is
        said, never a failed run), and unless it was a dry run or `--review`, the vault's judge
        (`[maintain] judge`) answers the questions pending."""
        from cardvault.errors import CardvaultError
        from cardvault.forget.tombstone import before_maintenance
        from cardvault.maintain.run import run_maintenance

        vault = self.project()
        before = (before_maintenance,)  # nothing is distilled from a forgotten entry
        run = run_maintenance(vault, options, progress, on_wait=on_wait, before=before)
        done = Maintained(run)
        if not options.dry_run:
            try:
                done = replace(done, registered=self.register())
            except (CardvaultError, OSError) as exc:
                done = replace(done, unregistered=str(exc))
        if not (options.dry_run or options.review) and vault.config.judge and run.review_pending:
            done = replace(done, judged=self.review_judge())
        return done

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


def _query(query: str | Query, options: SearchOptions) -> Query:
    if isinstance(query, Query):
        if options:
            raise TypeError("pass the options in the Query, or a text with options")
        return query
    return Query.of(query, **options)


@dataclass(frozen=True)
class Maintained:
    """What `Session.maintain` did: the run; the project's registration with the global vault
    (None: already registered, a dry run, or inside the global vault) or why it failed; the
    judge's answers to the pending questions (None: no judge, or nothing for it to answer)."""

    run: RunResult
    registered: Registered | None = None
    unregistered: str | None = None
    judged: JudgeOutcome | None = None


def open_vault(path: str | Path | None = None, watch: bool = False) -> Session:
    """A session on the vault at `path`, or found like the CLI finds it ($CARDVAULT_VAULT,
    walking up); VaultNotFoundError when there is none.

    `watch` keeps a file watcher on each vault searched for the session's life (for long-lived
    programs: searches on an unchanged vault then skip the sync)."""
    session = Session(path, watch=watch)
    _ = session.root  # fail now, not at the first call
    return session
