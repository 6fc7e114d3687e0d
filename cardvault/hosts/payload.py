"""What a host sends a hook on stdin, and what it expects back on stdout.

All three hosts send one JSON object (Claude Code and Codex: `session_id`, `transcript_path`,
`cwd`; Cursor: `conversation_id`, `workspace_roots`). At session start Claude Code and Codex
add plain stdout to the model's context, Cursor takes a JSON object's `additional_context`.
After a capture cardvault prints nothing, or `{}` for Cursor (Codex's Stop hook output must be
empty or JSON). Messages go to stderr.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.limits import HOOK_INPUT


class HookInputError(CardvaultError):
    """A hook's stdin that is not the JSON object a host sends."""


@dataclass(frozen=True)
class HookInput:
    """The parts of a hook's input cardvault uses."""

    cwd: Path | None  # the project folder the session runs in
    transcript: Path | None  # the session transcript (JSONL), when the host has one
    session: str | None  # the session (conversation) id


def parse_input(raw: bytes) -> HookInput:
    """The hook input in `raw` (empty input: nothing known, as when run by hand)."""
    if len(raw) > HOOK_INPUT:
        raise HookInputError(f"hook input longer than {HOOK_INPUT} bytes")
    if not raw.strip():
        return HookInput(None, None, None)
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise HookInputError(f"hook input is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise HookInputError("hook input is not a JSON object")
    return HookInput(
        cwd=_folder(data),
        transcript=_path(data.get("transcript_path")),
        session=_text(data.get("session_id")) or _text(data.get("conversation_id")),
    )


def session_start_output(host: str, context: str) -> str:
    """What to print on stdout so `host` adds `context` to the session."""
    if host == "cursor":
        return json.dumps({"additional_context": context}, ensure_ascii=False) + "\n"
    return context


def quiet_output(host: str) -> str:
    """What to print on stdout after a capture: nothing to add to the session."""
    return "{}\n" if host == "cursor" else ""


def _folder(data: dict[str, Any]) -> Path | None:
    cwd = _path(data.get("cwd"))
    if cwd is not None:
        return cwd
    roots = data.get("workspace_roots")
    if isinstance(roots, list) and roots:
        return _path(roots[0])
    return None


def _path(value: Any) -> Path | None:
    text = _text(value)
    return Path(text) if text and Path(text).is_absolute() else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
