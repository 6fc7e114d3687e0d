"""A session's wiring: the vaults, the agent, the clock, scope resolution and warm searchers.

The project vault is the one named (`--vault`, a path), $CARDVAULT_VAULT, or found upwards; the
global vault is read where $CARDVAULT_HOME (or the platform's data folder) puts it and made
only when a command writes to it. The agent is `--agent` or $CARDVAULT_AGENT; the clock is
$CARDVAULT_NOW when pinned, else local time to the minute. Everything comes from the session's
`env` (default: this process's), so a long-lived process answers each caller with the caller's
values without touching `os.environ`. `cardvault.app.Session` is this wiring with one method per
command.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Self

from cardvault.app.warm import VaultHandle, WarmHandles
from cardvault.scopes.home import global_root
from cardvault.scopes.scope import GLOBAL, PROJECT, InScope, Scope, Scoped
from cardvault.vault.agent_names import agent_name
from cardvault.vault.layout import Vault, holds_files

if TYPE_CHECKING:
    from cardvault.search.engine import Searcher

#: Tests and reproducible demos may pin the clock: CARDVAULT_NOW=2026-11-30T09:15
NOW_VAR = "CARDVAULT_NOW"


def clock_of(env: Mapping[str, str]) -> Callable[[], dt.datetime]:
    """The clock `env` sets: $CARDVAULT_NOW when given, else local time to the minute."""

    def now() -> dt.datetime:
        pinned = env.get(NOW_VAR)
        if pinned:
            return dt.datetime.fromisoformat(pinned)
        return dt.datetime.now().replace(second=0, microsecond=0)

    return now


class Wiring:
    """What a session is made of (see the module docstring); `cardvault.app.Session` adds the
    commands. Close it, or use it as a context manager, to release the warm search services it
    made."""

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
        #: Whether this session runs on warm services lent to it (inside `cardvault serve`, or
        #: a `with_options` copy), rather than its own.
        self.served = handles is not None
        self.handles = WarmHandles(watch) if handles is None else handles
        self._root: Path | None = None

    def with_options(self, vault: Path | None = None, agent: str | None = None) -> Self:
        """This session with another vault or agent (None keeps its own), sharing its warm
        services, environment and clock."""
        same = type(self)(
            vault if vault is not None else self.explicit,
            agent=agent if agent is not None else self._agent,
            env=self.env, clock=self.now, handles=self.handles,
        )  # fmt: skip
        same._root = self._root if vault is None or vault == self._root else None
        if agent is None and "agent" in self.__dict__:  # validated already: not again
            same.agent = self.agent
        return same

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Release the search services this session made (not those it was lent)."""
        if not self.served:
            self.handles.close()

    # -- the vaults ---------------------------------------------------------------------------

    @cached_property
    def agent(self) -> str | None:
        """The agent this session acts as (validated once, when first needed), or None."""
        return agent_name(self._agent, self.env)

    @property
    def root(self) -> Path:
        """The project vault's root folder (VaultNotFoundError when there is none)."""
        return self._root if self._root is not None else self.handle.vault.root

    @property
    def handle(self) -> VaultHandle:
        """The project vault's warm handle (the vault found and opened on first use)."""
        if self._root is not None:
            return self.handles.handle(self._root)
        from cardvault.vault.layout import find_vault

        found = find_vault(self.explicit, self.env)
        self._root = found.root
        return self.handles.handle(found.root, found)

    def project(self) -> Vault:
        """The project vault with its current settings, as the session's agent."""
        return self._as_agent(self.handle.vault)

    @cached_property
    def home(self) -> Path:
        """The global vault's folder (`scopes/home.py`; it may hold no vault yet)."""
        return global_root(self.env)

    def global_vault(self) -> Vault | None:
        """The global vault, or None when it was never created (reads never create it)."""
        from cardvault.vault.config import CONFIG_FILE

        if not (self.home / CONFIG_FILE).is_file():
            return None
        return self._as_agent(self.handles.handle(self.home).vault)

    def vault_to_read(self, from_global: bool = False) -> Vault:
        """The project vault, or the global vault (VaultNotFoundError when it was never made:
        a read never makes it)."""
        from cardvault.errors import VaultNotFoundError

        found = self.global_vault() if from_global else self.project()
        if found is None:
            raise VaultNotFoundError(
                "no global vault yet (the first `--global` write makes it)", self.home
            )
        return found

    @property
    def vault(self) -> Vault:
        """The project vault (`project()`)."""
        return self.project()

    def scope(self, scope: Scope | str | InScope, searching: bool = False) -> InScope:
        """The vaults `scope` covers, project first, with notices for what is missing (an
        `InScope`, resolved once by a command, is returned as it is)."""
        if isinstance(scope, InScope):
            return scope
        return self._resolve(Scope(scope), searching)

    def _resolve(self, scope: Scope, searching: bool) -> InScope:
        """`scope()`'s vaults. The project is looked up once, only when the scope needs it;
        with `all`, a missing project leaves the global vault alone, with a notice, unless the
        project was named (--vault or $CARDVAULT_VAULT): a named folder that holds no vault is
        an error, never quietly the global vault instead. `searching`: beside a project, `all`
        opens the global vault only when its walk finds something to search (a card, an
        archived card, a log or a name the walker refuses); the walk stops at the first."""
        from cardvault.errors import VaultNotFoundError
        from cardvault.vault.config import CONFIG_FILE
        from cardvault.vault.root import ENV_VAR

        reads_global = scope is not Scope.project and (self.home / CONFIG_FILE).is_file()
        project: Vault | None = None
        notices: list[str] = []
        if scope is not Scope.global_:
            try:
                project = self.project()
            except VaultNotFoundError:
                named = self.explicit is not None or bool(self.env.get(ENV_VAR))
                if scope is Scope.project or not reads_global or named:
                    raise
                notices.append("no project vault here: the global vault only")
        if reads_global and searching and project is not None:
            reads_global = holds_files(Vault(self.home))  # nothing to search: left unopened
        shared = self._as_agent(self.handles.handle(self.home).vault) if reads_global else None
        vaults: list[Scoped] = []
        if project is not None and (shared is None or project.root != shared.root):
            vaults.append(Scoped(PROJECT, project))
        if shared is not None:
            vaults.append(Scoped(GLOBAL, shared))
        elif scope is Scope.global_:
            notices.append("no global vault yet (the first `--global` write creates it)")
        return InScope(tuple(vaults), tuple(notices))

    def found_project(self) -> Vault | None:
        """The project vault (`project()`), or None when there is none here."""
        from cardvault.errors import VaultNotFoundError

        try:
            return self.project()
        except VaultNotFoundError:
            return None

    def searcher(self, vault: Vault) -> Searcher:
        """The warm search service of `vault`."""
        return self.handles.searcher(vault)

    def _as_agent(self, vault: Vault) -> Vault:
        name = self.agent
        return replace(vault, agent=name) if name else vault
