"""The app's review commands: the queue of memory decisions and its answers."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from cardvault.app.writes import VaultFor

if TYPE_CHECKING:
    from cardvault.review.answer import Answer, ReviewResult
    from cardvault.review.judge import JudgeOutcome
    from cardvault.vault.decisions import ReviewItem


def listing(item: ReviewItem) -> dict[str, Any]:
    """An item as `review --json` and the MCP `review_pending` tool show it: its stored form,
    each member numbered (`n`, 1-based) as answers name them."""
    data = item.to_json()
    for number, member in enumerate(data["members"], start=1):
        member["n"] = number
    return data


def in_words(item: ReviewItem) -> tuple[str, str, str]:
    """What `item` asks, the evidence it was asked on, and how to answer it, as `cardvault
    review` says them (review/words.py)."""
    from cardvault.review import words

    return words.kind_of(item).question, words.evidence(item), words.hint(item)


class ReviewCommands(VaultFor):
    """The review queue: what is pending, and settling it by a person or the judge."""

    def review_pending(self, to_global: bool = False) -> list[ReviewItem]:
        """`cardvault review`: the decisions waiting in the project's (or global) queue."""
        from cardvault.review.answer import pending

        return pending(self.vault_for(to_global))

    def review_answer(
        self, answers: Sequence[Answer], by: str | None = None, to_global: bool = False
    ) -> ReviewResult:
        """`cardvault review accept|reject`: settle decisions in one commit."""
        from cardvault.review.answer import PERSON, answer

        return self.landed(
            lambda vault: answer(vault, list(answers), self.now(), by=by or PERSON), to_global
        )

    def review_accept(
        self,
        ids: Sequence[str],
        members: Sequence[int] = (),
        keep: int | None = None,
        reason: str | None = None,
        to_global: bool = False,
        by: str | None = None,
    ) -> ReviewResult:
        """`cardvault review accept`: accept decisions (of `members` only, or keeping `keep`)."""
        from cardvault.review.answer import Answer

        answers = [Answer(i, True, tuple(members), keep, reason) for i in ids]
        return self.review_answer(answers, by, to_global)

    def review_reject(
        self,
        ids: Sequence[str],
        reason: str | None = None,
        to_global: bool = False,
        by: str | None = None,
    ) -> ReviewResult:
        """`cardvault review reject`: the members stay apart; both sides stand."""
        from cardvault.review.answer import Answer

        answers = [Answer(i, False, reason=reason) for i in ids]
        return self.review_answer(answers, by, to_global)

    def review_judge(
        self, ids: Sequence[str] | None = None, to_global: bool = False
    ) -> JudgeOutcome:
        """`cardvault review judge`: let the vault's judge command answer pending decisions."""
        from cardvault.review.judge import judge_pending

        settle = functools.partial(self.review_answer, to_global=to_global)
        return judge_pending(self.vault_for(to_global), settle, ids)
