"""The labelled lesson set (tests/fixtures/lessons/): loading it, splitting it, writing it as logs.

Every telling belongs to exactly one true lesson. Recurring lessons are told three or more
times; look-alikes share vocabulary with a recurring lesson (`near`) but teach something else;
contradiction pairs are two lessons that say opposite things. The split is fixed by a digest of
the lesson family's name (a recurring lesson and its look-alikes; a contradiction pair), so
calibration never sees the held-out families, and the split does not move when lessons are added.
`write_logs` writes the tellings as real daily logs: each lesson's tellings on different days
(seeded), several entries a day, the way an agent's logs look after a few months.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

FOLDER = Path(__file__).parents[1] / "fixtures" / "lessons"
FIRST_DAY = dt.date(2026, 1, 5)
DAYS = 150
HELD_OUT_SHARE = 0.45


@dataclass(frozen=True)
class Telling:
    """One log entry that tells a lesson."""

    lesson: str
    kind: str  # "recurring" | "lookalike" | "contradiction"
    family: str  # the recurring lesson it belongs or is near to, or the contradiction pair
    title: str
    body: str


@dataclass(frozen=True)
class LabelledSet:
    """All tellings, and which lessons contradict which."""

    tellings: tuple[Telling, ...]
    contradictions: tuple[tuple[str, str], ...]

    def lessons(self, kind: str | None = None) -> dict[str, list[Telling]]:
        """Lesson name -> its tellings (of one kind, or all)."""
        found: dict[str, list[Telling]] = {}
        for telling in self.tellings:
            if kind is None or telling.kind == kind:
                found.setdefault(telling.lesson, []).append(telling)
        return found

    def part(self, name: str) -> LabelledSet:
        """The "calibration" or "held-out" part ("all" for everything)."""
        if name == "all":
            return self
        kept = tuple(t for t in self.tellings if split_of(t.family) == name)
        names = {t.lesson for t in kept}
        pairs = tuple(p for p in self.contradictions if p[0] in names)
        return LabelledSet(kept, pairs)


def split_of(family: str) -> str:
    """ "held-out" for about HELD_OUT_SHARE of families, fixed by the name's digest."""
    digest = int(hashlib.sha256(family.encode("utf-8")).hexdigest()[:8], 16)
    return "held-out" if digest % 1000 < HELD_OUT_SHARE * 1000 else "calibration"


def load(folder: Path = FOLDER) -> LabelledSet:
    """Read every YAML file of the set."""
    tellings: list[Telling] = []
    pairs: list[tuple[str, str]] = []
    for path in sorted(folder.glob("*.yaml")):
        for item in yaml.safe_load(path.read_text(encoding="utf-8")):
            if "pair" in item:
                sides = (item["first"], item["second"])
                for side in sides:
                    tellings += _tellings(side, "contradiction", item["pair"])
                pairs.append((sides[0]["lesson"], sides[1]["lesson"]))
            elif "near" in item:
                tellings += _tellings(item, "lookalike", item["near"])
            else:
                tellings += _tellings(item, "recurring", item["lesson"])
    return LabelledSet(tuple(tellings), tuple(pairs))


def _tellings(item: dict[str, object], kind: str, family: str) -> list[Telling]:
    found = item["tellings"]
    assert isinstance(found, list)
    name = str(item["lesson"])
    return [Telling(name, kind, family, str(t["title"]), str(t["body"]).strip()) for t in found]


def schedule(tellings: Sequence[Telling], seed: int = 11) -> list[tuple[dt.date, Telling]]:
    """A day for every telling: one lesson's tellings on different days, in file order for a
    contradiction pair's sides (the second side is the later decision)."""
    rng = random.Random(seed)
    days: list[tuple[dt.date, Telling]] = []
    by_lesson: dict[str, list[Telling]] = {}
    for telling in tellings:
        by_lesson.setdefault(telling.lesson, []).append(telling)
    pair_day: dict[str, int] = {}
    for group in by_lesson.values():
        offsets = sorted(rng.sample(range(DAYS), len(group)))
        if group[0].kind == "contradiction":
            # the first side's days come before the second side's
            start = pair_day.setdefault(group[0].family, rng.randrange(DAYS // 2))
            offsets = [start + n * 7 for n in range(len(group))]
            pair_day[group[0].family] = start + DAYS // 3
        days += [(FIRST_DAY + dt.timedelta(days=o), t) for o, t in zip(offsets, group, strict=True)]
    return sorted(days, key=lambda pair: pair[0])


def write_logs(memory: Path, tellings: Iterable[Telling], seed: int = 11) -> dict[str, Telling]:
    """Write the tellings as daily logs under `memory`; return entry ref -> telling."""
    by_day: dict[dt.date, list[Telling]] = {}
    for day, telling in schedule(list(tellings), seed):
        by_day.setdefault(day, []).append(telling)
    refs: dict[str, Telling] = {}
    for day, entries in sorted(by_day.items()):
        text = f"# {day.isoformat()}\n"
        for number, telling in enumerate(entries):
            time = f"{9 + number // 2:02d}:{(number % 2) * 30 + 5:02d}"
            text += f"\n## {time} — {telling.title}\n{telling.body}\n"
            refs[f"memory/{day.isoformat()}.md#{time}"] = telling
        (memory / f"{day.isoformat()}.md").write_text(text, encoding="utf-8")
    return refs
