"""The app's resident process (`cardvault serve`): its settings, status, start and stop, and the
requests it answers, each in a `Session` lent this one's warm handles (`lend`): one notion of a
session however a command arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

from cardvault.app.search import SearchCommands

if TYPE_CHECKING:
    from cardvault.serve.autostart import ServeSettings
    from cardvault.serve.control import ServerStatus
    from cardvault.serve.protocol import RunRequest
    from cardvault.vault.layout import Vault


@dataclass(frozen=True)
class Serving:
    """A vault's resident process, as `cardvault serve --status` and `--background` report it."""

    vault: Vault
    running: ServerStatus | None
    holder: int | None  # the pid holding the serve lock (it may not answer)
    auto: bool  # whether a search starts one on its own


class ResidentCommands(SearchCommands):
    """The project vault's resident process."""

    def serve_settings(self) -> ServeSettings:
        """The project's `[serve]` settings, with overrides."""
        from cardvault.serve.autostart import serve_settings

        config = self.project().config
        return serve_settings(config.serve_auto, config.serve_idle_minutes)

    def serve_status(self) -> Serving:
        """`cardvault serve --status` (a socket left by a dead process is removed)."""
        from cardvault.serve.control import clear_stale_socket, lock_holder, server_status

        root = self.root
        clear_stale_socket(root)  # only when no server holds the lock
        running = server_status(root)
        return Serving(self.project(), running, lock_holder(root), self.serve_settings().auto)

    def serve_stop(self) -> int | None:
        """`cardvault serve --stop`: stop the project's resident process; its pid, or None."""
        from cardvault.serve.control import stop_server

        return stop_server(self.root)

    def serve_background(self, idle_minutes: float | None = None) -> Serving:
        """`cardvault serve --background`: the project's resident process, started detached
        (isolated: its folder may be the vault, whose files came from a remote) if none runs."""
        from cardvault.serve.autostart import serve_command
        from cardvault.serve.control import clear_stale_socket, server_status, start_detached

        settings = self.serve_settings()
        root = self.root
        running = server_status(root)
        if running is None:
            clear_stale_socket(root)
            minutes = settings.idle_minutes if idle_minutes is None else idle_minutes
            running = start_detached(root, serve_command(root, minutes))
        return Serving(self.project(), running, None, settings.auto)

    def serve(
        self,
        answer: Callable[[RunRequest, Self], tuple[int, list[tuple[int, str]]]],
        idle_minutes: float | None = None,
        ready: Callable[[tuple[str, ...], float], None] | None = None,
    ) -> str:
        """`cardvault serve`: warm the project's search, then answer requests on its socket until
        idle for `idle_minutes` or stopped; why it stopped. `answer` runs a request's command line
        in a session lent this one's warm services (`lend`): its exit code and output pieces;
        `ready` gets the warm-up's notices and the idle timeout once the socket listens."""
        from cardvault.serve.protocol import RunResult
        from cardvault.serve.server import serve as serve_loop

        vault = self.project()
        minutes = self.serve_settings().idle_minutes if idle_minutes is None else idle_minutes
        notices = self.warm_up()

        def one(request: RunRequest) -> RunResult:
            return RunResult(*answer(request, self.lend(request.env)))

        def listening() -> None:
            if ready is not None:
                ready(notices, minutes)

        return serve_loop(vault.root, one, minutes * 60, listening, vault.config.model)

    def lend(self, env: Mapping[str, str]) -> Self:
        """The session one resident request runs in: this vault and warm services, the
        caller's environment (`env`: CARDVAULT_NOW, where the global vault is, ...)."""
        from cardvault.serve.protocol import CLIENT_ENV

        caller = {k: v for k, v in self.env.items() if k not in CLIENT_ENV} | dict(env)
        return type(self)(self.root, env=caller, handles=self.handles)

    def start_resident(self, vault: Vault) -> None:
        """Warm by default: start `vault`'s resident process in the background after a command
        that loaded the model in this process (serve/autostart.py); never inside `serve`."""
        from cardvault.serve.autostart import start_resident

        if not self.served:
            start_resident(vault.root, vault.config)
