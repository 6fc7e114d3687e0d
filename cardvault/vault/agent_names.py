"""What an agent may be called, and which agent a command acts as.

One rule for `--agent`, $CARDVAULT_AGENT and a log entry's `Agent:` line: lowercase letters,
digits, `-` and `_`, at most 64 characters. Light on purpose: a session validates its agent
before any command, so this module imports nothing of the package.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from cardvault.errors import CardvaultError

AGENT_VAR = "CARDVAULT_AGENT"
#: What an agent may be called (`--agent`, $CARDVAULT_AGENT, an entry's `Agent:` line): a line of
#: the entry's own text that starts "Agent: went through it again." names no agent.
AGENT_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def agent_name(explicit: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """The agent this invocation acts as (`--agent`, else $CARDVAULT_AGENT), validated."""
    env = os.environ if env is None else env
    raw = explicit if explicit is not None else env.get(AGENT_VAR)
    if raw is None or not raw.strip():
        return None
    name = raw.strip().lower()
    if not AGENT_NAME.match(name):
        raise CardvaultError(
            f"invalid agent name {raw!r}: use lowercase letters, digits, '-' and '_' "
            "(at most 64 characters)"
        )
    return name
