"""The review queue file, `memory/review.jsonl`: memory decisions pending and settled.

Maintenance writes here a decision it cannot make with certainty; `cardvault review` settles it.
Tracked in git, one JSON object per line, keys sorted: a settlement is a one-line diff and two
clones' appends merge line by line (`merge=union`). Reading resolves a repeated id
(`_supersedes`): settled beats pending, an answer beats maintenance's closing (CLOSED_BY), a
later settlement an earlier one, and on one day an accept a reject (its effect is in the vault).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from cardvault.errors import CardFormatError, NotFoundError
from cardvault.vault.bounded_data import json_loads

QUEUE_FILE = "memory/review.jsonl"
#: `archive` and `promote` are only ever settled, by a revert of maintenance (maintain/reverts.py).
#: `stale`: a card `verify` marked stale (verify/questions.py).
KINDS = (
    "same-lesson",
    "duplicate",
    "contradiction",
    "split",
    "cross-project",
    "archive",
    "promote",
    "stale",
)
PENDING, ACCEPTED, REJECTED = "pending", "accepted", "rejected"
STATUSES = (PENDING, ACCEPTED, REJECTED)
ID_LENGTH = 6
#: Who settles a question whose members moved (maintain/asking.py): an answer of no one's.
CLOSED_BY = "maintain"
#: Kinds whose members are never the same lesson to be kept apart or asked about.
_UNPAIRED = ("split", "archive", "promote", "stale")


@dataclass(frozen=True)
class Member:
    """One thing a decision is about: a log entry (`source` set) or a card."""

    key: str  # the entry's source ref, or the card's path
    path: str  # the file a person opens: the card's path, or the daily log's
    text: str
    source: str | None = None  # memory/YYYY-MM-DD.md#HH:MM, for log entries
    card: str | None = None  # for a log entry: the card that holds it now

    def to_json(self) -> dict[str, Any]:
        """The member as `review --json` shows it (and as the file stores it)."""
        return {name: value for name, value in asdict(self).items() if value is not None}


@dataclass(frozen=True)
class ReviewItem:
    """One decision: what it is about, why it was asked, and (once settled) the answer."""

    id: str
    kind: str
    members: tuple[Member, ...]
    evidence: Mapping[str, Any] = field(default_factory=dict)
    asked: str = ""  # ISO date
    status: str = PENDING
    decided: str | None = None  # ISO date
    by: str | None = None  # "person", or "judge:NAME"
    reason: str | None = None
    chosen: tuple[str, ...] = ()  # accepted member keys; for a contradiction, the winner's

    @property
    def pending(self) -> bool:
        return self.status == PENDING

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(m.key for m in self.members)

    def to_json(self) -> dict[str, Any]:
        """Plain data: the file's line, and what `review --json` prints."""
        data: dict[str, Any] = {
            "id": self.id,
            "kind": self.kind,
            "members": [m.to_json() for m in self.members],
            "evidence": dict(self.evidence),
            "asked": self.asked,
            "status": self.status,
        }
        answer = {"decided": self.decided, "by": self.by, "reason": self.reason}
        data.update((key, value) for key, value in answer.items() if value is not None)
        if self.chosen:
            data["chosen"] = list(self.chosen)
        return data

    def settled(
        self, status: str, day: str, by: str, reason: str | None, chosen: Iterable[str] = ()
    ) -> ReviewItem:
        """This item with its answer."""
        return replace(self, status=status, decided=day, by=by, reason=reason, chosen=tuple(chosen))


def queue_path(root: Path) -> Path:
    """Where a vault keeps its review queue."""
    return root / QUEUE_FILE


def item_id(kind: str, keys: Iterable[str], taken: Iterable[str] = ()) -> str:
    """A short id from the kind and the members, lengthened until no other item has it."""
    digest = hashlib.sha256("\n".join([kind, *sorted(keys)]).encode("utf-8")).hexdigest()
    used = set(taken)
    length = ID_LENGTH
    while digest[:length] in used and length < len(digest):
        length += 2
    return digest[:length]


def parse_queue(text: str, path: Path | None = None) -> list[ReviewItem]:
    """The items of a queue file, first-asked first; raises CardFormatError naming the line."""
    found: dict[str, ReviewItem] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        item = _item(line, path, number)
        earlier = found.get(item.id)
        if earlier is None or _supersedes(item, earlier):
            found[item.id] = item
    return list(found.values())


def _supersedes(new: ReviewItem, old: ReviewItem) -> bool:
    if new.pending:
        return old.pending  # a pending copy never undoes a settlement
    if old.pending:
        return True
    if (new.by == CLOSED_BY) != (old.by == CLOSED_BY):  # an answer outweighs a closing
        return old.by == CLOSED_BY
    if (new.decided or "") != (old.decided or ""):
        return (new.decided or "") > (old.decided or "")
    # one day's two answers (two clones): an accept, whose effect is in the vault (cards made
    # one, a card archived), outweighs a reject, whatever order union merge gave their lines
    return (new.status == ACCEPTED) >= (old.status == ACCEPTED)


def _item(line: str, path: Path | None, number: int) -> ReviewItem:
    try:
        data = json_loads(line)
    except ValueError as exc:
        raise CardFormatError(f"not a review item: {exc}", path, number) from exc
    shape = _shape_problem(data)
    if shape is not None:
        raise CardFormatError(f"not a review item: {shape}", path, number)
    members = data["members"]  # `_shape_problem` vetted every access below
    item = ReviewItem(
        id=str(data["id"]),
        kind=str(data["kind"]),
        members=tuple(
            Member(m["key"], m["path"], str(m.get("text", "")), m.get("source"), m.get("card"))
            for m in members
        ),
        evidence=dict(data.get("evidence") or {}),
        asked=str(data.get("asked", "")),
        status=str(data.get("status", PENDING)),
        decided=data.get("decided"),
        by=data.get("by"),
        reason=data.get("reason"),
        chosen=tuple(str(c) for c in data.get("chosen") or ()),
    )
    if item.kind not in KINDS or item.status not in STATUSES or not item.members:
        raise CardFormatError(
            f"review item {item.id}: kind must be one of {', '.join(KINDS)} and status one of "
            f"{', '.join(STATUSES)}, with at least one member",
            path,
            number,
        )
    return item


def _shape_problem(data: object) -> str | None:
    """What makes parsed JSON no review item's shape, in words (None: it has the shape)."""
    if not isinstance(data, dict):
        return f"a line must be a JSON object, not {type(data).__name__}"
    for key in ("id", "kind", "members"):
        if key not in data:
            return f'"{key}" is missing'
    members = data["members"]
    if not isinstance(members, list) or not all(isinstance(m, dict) for m in members):
        return '"members" must be a list of objects'
    if not all(isinstance(m.get("key"), str) and isinstance(m.get("path"), str) for m in members):
        return 'every member needs a "key" and a "path" as text'
    if not isinstance(data.get("evidence") or {}, dict):
        return '"evidence" must be an object'
    if not isinstance(data.get("chosen") or [], list):
        return '"chosen" must be a list'
    return None


def render_queue(items: Iterable[ReviewItem]) -> str:
    """The file's text: one line per item, keys sorted."""
    lines = [json.dumps(i.to_json(), sort_keys=True, ensure_ascii=False) for i in items]
    return "".join(line + "\n" for line in lines)


def pending_items(items: Iterable[ReviewItem]) -> list[ReviewItem]:
    """The items still waiting for an answer, in the order they were asked."""
    return [i for i in items if i.pending]


def find_items(items: Iterable[ReviewItem], wanted: Iterable[str]) -> list[ReviewItem]:
    """The items named by ids or unique id prefixes, in the order named; NotFoundError for a name
    that matches no item or several."""
    pool = list(items)
    found = []
    for name in wanted:
        matches = [i for i in pool if i.id == name] or [i for i in pool if i.id.startswith(name)]
        if len(matches) != 1:
            what = "no review item" if not matches else "more than one review item"
            raise NotFoundError(f"{what} has the id '{name}' (see `cardvault review`)")
        found.append(matches[0])
    return found


@dataclass(frozen=True)
class KeptApart:
    """The member keys answers keep apart, per answer: a group every two of whose keys are
    apart (`right` None), or two sides apart from each other. Never the pairs: one rejected
    question of 40,000 members is 800 million pairs."""

    fences: tuple[tuple[frozenset[str], frozenset[str] | None], ...] = ()
    by_key: Mapping[str, tuple[int, ...]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.fences)

    def __contains__(self, pair: object) -> bool:
        if not isinstance(pair, frozenset) or len(pair) != 2:
            return False
        a, b = pair
        return self.between((a,), (b,))

    def between(self, left: Iterable[str], right: Iterable[str]) -> bool:
        """Whether any key of `left` is kept apart from any key of `right`: a look at the answers
        naming each key of `left`, each answer's overlap with `right` taken once (two cards of
        20,000 aliases each would be 400 million pairs to ask about one by one)."""
        others = frozenset(right)
        overlaps: dict[tuple[int, bool], frozenset[str]] = {}

        def overlap(number: int, far: bool) -> frozenset[str]:
            if (number, far) not in overlaps:
                near, away = self.fences[number]
                overlaps[number, far] = (away if far and away is not None else near) & others
            return overlaps[number, far]

        for a in frozenset(left):
            for number in self.by_key.get(a, ()):
                near, away = self.fences[number]
                if away is None:
                    found = overlap(number, False)
                    if len(found) > 1 or (found and a not in found):
                        return True
                elif overlap(number, a in near):
                    return True
        return False

    def among(self, keys: Iterable[str]) -> set[frozenset[str]]:
        """The pairs kept apart whose two keys are both among `keys`: as many as those keys
        make, whatever the answers name besides."""
        wanted = set(keys)
        found: set[frozenset[str]] = set()
        for left, right in self.fences:
            mine = sorted(left & wanted)
            if right is None:
                found.update(frozenset((a, b)) for i, a in enumerate(mine) for b in mine[i + 1 :])
            else:
                found.update(frozenset((a, b)) for a in mine for b in right & wanted if a != b)
        return found


def apart_pairs(items: Iterable[ReviewItem]) -> KeptApart:
    """Member keys a person (or the judge) said are not the same lesson: a rejected item keeps
    every two of its members apart, a partly accepted one each accepted member from each one left
    out, a settled contradiction its two sides."""
    fences: list[tuple[frozenset[str], frozenset[str] | None]] = []
    for item in items:
        if item.pending or item.kind in _UNPAIRED or item.by == CLOSED_BY:
            continue
        keys = frozenset(item.keys)
        if item.status == ACCEPTED and item.kind != "contradiction":
            chosen = frozenset(item.chosen or keys)
            fences.append((chosen, keys - chosen))
        else:
            fences.append((keys, None))
    return _kept(fences)


def _kept(fences: list[tuple[frozenset[str], frozenset[str] | None]]) -> KeptApart:
    by_key: dict[str, list[int]] = {}
    for number, (left, right) in enumerate(fences):
        for key in left | (right or frozenset()):
            by_key.setdefault(key, []).append(number)
    return KeptApart(tuple(fences), {k: tuple(v) for k, v in by_key.items()})


def asked_pairs(items: Iterable[ReviewItem]) -> KeptApart:
    """Member keys a pending question asks about, as groups: the answer is the person's, so
    nothing joins them before."""
    asked = [i for i in items if i.pending and i.kind not in _UNPAIRED]
    return _kept([(frozenset(i.keys), None) for i in asked])


def read_queue(root: Path) -> list[ReviewItem]:
    """The items of a vault's queue (none when it has no queue file)."""
    from cardvault.vault.files import read_if_present

    path = queue_path(root)
    file = read_if_present(path, root)
    return [] if file is None else parse_queue(file.text, path)
