"""The optional judge: an outside command (any LLM CLI the user has) that answers review questions.

`[maintain] judge = "COMMAND"` (off by default: cardvault itself needs no network) runs once per
pending question with the question as JSON on stdin (`PROTOCOL`, docs/review.md). A vault's own
judge runs only once `cardvault trust` approved it; the command is split like a shell line and
no shell runs it. A judge that fails, times out or answers anything else leaves the question
pending, saying why.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardvault.errors import CardvaultError
from cardvault.review.answer import Answer, ReviewResult, pending
from cardvault.vault.decisions import ReviewItem, find_items
from cardvault.vault.layout import Vault

PROTOCOL = "cardvault-judge/1"
ANSWERS = ("same", "different", "contradiction")
QUESTIONS = {
    "same-lesson": "Do these log entries (and cards) teach the same lesson, in other words? "
    "Answer same, different, or contradiction if they say opposite things.",
    "duplicate": "Do these two cards say the same thing, so they should be one card? "
    "Answer same, different, or contradiction if they say opposite things.",
    "contradiction": "These two cards seem to say opposite things. Answer contradiction with "
    '"keep": the member number that holds, or different if both can stand.',
}


@dataclass(frozen=True)
class Verdict:
    """What the judge said about one question (`answer` None: it said nothing usable)."""

    item: str
    answer: Answer | None
    message: str | None = None


@dataclass(frozen=True)
class JudgeOutcome:
    """The judge's verdicts, the commit that applied them, what went wrong, what is left."""

    verdicts: tuple[Verdict, ...]
    result: ReviewResult | None
    messages: tuple[str, ...]
    pending: int

    @property
    def settled(self) -> tuple[ReviewItem, ...]:
        """The items the judge's answers settled."""
        return self.result.settled if self.result is not None else ()


def judge_name(command: str) -> str:
    """How decisions record the judge: `judge:` and its program's name."""
    words = shlex.split(command)
    return "judge:" + (os.path.basename(words[0]) if words else "judge")


#: How the judge's answers are settled (the app lands them): the answers, and who gave them.
Settle = Callable[[list[Answer], str], ReviewResult]


def judge_pending(vault: Vault, settle: Settle, ids: Sequence[str] | None = None) -> JudgeOutcome:
    """Ask the vault's judge about each pending question (or those named) and have `settle`
    apply what it answers (in one commit)."""
    command = vault.config.judge
    if not command:
        for note in vault.ignored_notes("maintain.judge"):  # set, but not approved here
            raise CardvaultError(note)
        raise CardvaultError(
            'no judge is set: add `judge = "COMMAND"` under [maintain] in cardvault.toml'
        )
    items = pending(vault)
    if ids:
        items = find_items(items, ids)
    with _working_folder(vault, command) as folder:
        verdicts = [
            ask(command, item, vault.config.judge_timeout, folder)
            for item in items
            if item.kind in QUESTIONS
        ]
    answers = [v.answer for v in verdicts if v.answer is not None]
    messages = tuple(v.message for v in verdicts if v.message)
    result = settle(answers, judge_name(command)) if answers else None
    left = result.pending if result is not None else len(pending(vault))
    return JudgeOutcome(tuple(verdicts), result, messages, left)


@contextlib.contextmanager
def _working_folder(vault: Vault, command: str) -> Iterator[Path]:
    """Where the judge runs: the user's own judge (never approved for this vault) in a new empty
    folder, since LLM CLIs read settings from their working folder (`uv.toml`, `.npmrc`, `.env`,
    agent hooks) and no file of the vault may steer it; the vault's approved judge at its root.
    """
    from cardvault.trust.settings import users_own

    if users_own(vault.root, "maintain.judge") != command:
        yield vault.root
        return
    with tempfile.TemporaryDirectory(prefix="cardvault-judge-") as folder:
        yield Path(folder)


def ask(command: str, item: ReviewItem, timeout: float, folder: Path | None = None) -> Verdict:
    """Run the judge on one question (in `folder`) and read its answer."""
    payload = json.dumps(request(item), ensure_ascii=False)
    name = judge_name(command)
    try:
        done = subprocess.run(
            shlex.split(command),
            cwd=folder,
            input=payload,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return _still_pending(item, f"{name} gave no answer within {timeout:g} s")
    except (OSError, ValueError) as exc:
        return _still_pending(item, f"{name} could not be run ({exc})")
    if done.returncode != 0:
        tail = " ".join(done.stderr.split())[-200:]
        status = f"{name} exited with status {done.returncode}"
        return _still_pending(item, status + (f" ({tail})" if tail else ""))
    return read_answer(item, done.stdout, name)


def _still_pending(item: ReviewItem, why: str) -> Verdict:
    """No answer from the judge: the question stays pending, and the message says why."""
    return Verdict(item.id, None, f"{item.id}: {why}; still pending")


def request(item: ReviewItem) -> dict[str, Any]:
    """The JSON the judge reads on stdin."""
    data = item.to_json()
    for number, member in enumerate(data["members"], start=1):
        member["n"] = number
    for key in ("status", "decided", "by", "reason", "chosen"):
        data.pop(key, None)
    return {
        "protocol": PROTOCOL,
        "question": QUESTIONS[item.kind],
        "answers": list(ANSWERS),
        "item": data,
    }


def read_answer(item: ReviewItem, output: str, name: str) -> Verdict:
    """The judge's stdout as an answer to `item`, or why it is not one."""
    word, reason, members, keep = _parse(output)
    shown = " ".join(output.split())[:80] or "nothing"
    if word not in ANSWERS:
        return _still_pending(item, f"{name} answered {shown!r}, not one of {', '.join(ANSWERS)}")
    if item.kind == "contradiction":
        if word == "different":
            return Verdict(item.id, Answer(item.id, False, reason=reason))
        if word == "contradiction" and keep is not None and 1 <= keep <= len(item.members):
            return Verdict(item.id, Answer(item.id, True, keep=keep, reason=reason))
        return _still_pending(
            item, f'{name} answered {word!r} without saying which side holds ("keep")'
        )
    if word == "same":
        chosen = tuple(n for n in members if 1 <= n <= len(item.members))
        return Verdict(
            item.id, Answer(item.id, True, chosen if len(chosen) >= 2 else (), reason=reason)
        )
    why = f"{word}: {reason}" if word == "contradiction" and reason else (reason or word)
    return Verdict(item.id, Answer(item.id, False, reason=why))


def _parse(output: str) -> tuple[str, str | None, tuple[int, ...], int | None]:
    text = output.strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        reason = data.get("reason")
        members = data.get("members")
        keep = data.get("keep")
        return (
            str(data.get("answer", "")).strip().lower(),
            str(reason) if reason else None,
            tuple(n for n in members if isinstance(n, int)) if isinstance(members, list) else (),
            keep if isinstance(keep, int) else None,
        )
    words = text.split(maxsplit=1)
    word = words[0].strip(".,:;!\"'`*").lower() if words else ""
    rest = words[1].strip() if len(words) > 1 else ""
    return word, rest or None, (), None
