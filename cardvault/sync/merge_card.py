"""Merging two versions of a card: frontmatter key by key, the body three-way.

A key one side left as in the base takes the other side's value; a key both sides changed
follows its `sync` rule in the field table (vault/fields.py), else is a CONFLICT, marked in the
frontmatter. Paragraphs both sides only appended to the body are kept each once (`merge_body`).
Our file's bytes are kept wherever nothing changed. docs/writers.md gives the rules in full.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cardvault.errors import CardFormatError
from cardvault.sync.merge_text import Merged, merge3, one_side
from cardvault.vault import fields as f
from cardvault.vault.card import as_date, parse_card, render_value, replace_body, update_card_text

if TYPE_CHECKING:
    from cardvault.vault.card import Card

_MISSING = object()
_COUNTS = (f.SIGHTINGS, f.SUM)


def merge_card(base: str, ours: str, theirs: str, path: Path) -> Merged:
    """`ours` and `theirs` merged against `base` (see the module docstring)."""
    if (same := one_side(base, ours, theirs)) is not None:
        return Merged(same)
    try:
        o, t = parse_card(ours, path), parse_card(theirs, path)
        b_meta, b_body = _base_parts(base, path)
    except CardFormatError:
        return merge3(base, ours, theirs)
    meta, conflicts = merge_meta(b_meta, o.meta, t.meta)
    same_lesson = bool(_added(b_meta, o.meta, f.SOURCES) & _added(b_meta, t.meta, f.SOURCES))
    body = merge_body(b_body, o.body, t.body, appendable=bool(base.strip()) or same_lesson)
    if same_lesson and not base.strip():  # both distilled it: two guesses (category...), ours
        meta.update({key: o.meta[key] for key in conflicts if key in o.meta})
        conflicts = [key for key in conflicts if key not in o.meta]
    changes = {k: v for k, v in meta.items() if o.meta.get(k, _MISSING) != v}
    removed = [k for k in o.meta if k not in meta]
    text = update_card_text(ours, changes, removed, path)
    text = replace_body(text, body.text)
    for key in conflicts:
        text = _mark_conflict(text, key, o.meta.get(key, _MISSING), t.meta.get(key, _MISSING))
    return Merged(text, body.conflicts + len(conflicts))


def only_bookkeeping(base: str, kept: str, path: Path) -> bool:
    """Whether `kept` differs from `base` in bookkeeping keys alone (the fields `by` READ or
    VERIFY: uses, marks, checks): a card removed on one side and only counted or checked on the
    other stays removed, since a use or mark of a card that is gone has nothing to mark.
    """
    try:
        before, after = parse_card(base, path), parse_card(kept, path)
    except CardFormatError:
        return False
    if before.body != after.body:
        return False
    keys = (set(before.meta) | set(after.meta)) - f.names(by=f.READ) - f.names(by=f.VERIFY)
    return all(before.meta.get(k, _MISSING) == after.meta.get(k, _MISSING) for k in keys)


def merge_body(base: str, ours: str, theirs: str, *, appendable: bool) -> Merged:
    """Two bodies merged against `base`: line by line, except where both sides only added
    paragraphs after the base's (maintain folds a lesson into a card so; two clones fold
    different ones) and `appendable`: ours, then each paragraph theirs added that ours lacks."""
    added = _appended(base, ours), _appended(base, theirs)
    if not appendable or added[0] is None or added[1] is None or not all(added):
        return merge3(base, ours, theirs)
    return Merged(_with_paragraphs(ours, added[1]))


def _with_paragraphs(body: str, paragraphs: list[str]) -> str:
    """`body` followed by each of `paragraphs` it does not hold yet."""
    held = {p.strip() for p in _paragraphs(body)}
    new = [p for p in paragraphs if p.strip() not in held]
    return body.rstrip("\n") + "\n\n" + "\n\n".join(new) + "\n" if new else body


def _appended(base: str, body: str) -> list[str] | None:
    """The paragraphs `body` added after all of `base` (None: it changed `base` itself)."""
    head = base.rstrip("\n")
    if not body.startswith(head):
        return None
    rest = body[len(head) :]
    if head.strip() and rest.strip() and not rest.startswith("\n\n"):
        return None  # the base's last paragraph was extended, not followed
    return _paragraphs(rest)


def _paragraphs(text: str) -> list[str]:
    return [p.strip("\n") for p in re.split(r"\n[ \t]*\n", text) if p.strip()]


def _carried() -> frozenset[str]:
    """What a fold of lessons (and reading, tagging, promoting) changes on a card: carried into
    the card it was merged into (`carry_into`)."""
    return f.names(by=f.FOLD) | f.names(by=f.READ)


def merged_into(text: str, slug: str, path: Path) -> bool:
    """Whether the card `text` says it took in the card `slug` (`merged_from`)."""
    try:
        return slug in parse_card(text, path).items(f.MERGED_FROM)
    except CardFormatError:
        return False


def only_folded(base: str, kept: str, path: Path) -> bool:
    """Whether `kept` differs from `base` only as maintenance's folds, merges of duplicates
    and promotions make a card differ (carried keys and those the merge writes, `by` MERGE;
    paragraphs added after the body) and is active or promoted: no person's edit, no archiving."""
    try:
        b, k = parse_card(base, path), parse_card(kept, path)
    except CardFormatError:
        return False
    changed = {key for key in {*b.meta, *k.meta} if b.meta.get(key) != k.meta.get(key)}
    if changed - _carried() - f.names(by=f.MERGE) or _appended(b.body, k.body) is None:
        return False
    return k.meta.get(f.STATUS, "promoted") == "promoted" or k.meta.get(f.STATUS) == "active"


def newly_merged(base: str, kept: str, path: Path) -> list[str]:
    """The slugs `kept` names in `merged_from` that `base` does not: the duplicates merged
    into it since."""
    try:
        before, after = parse_card(base, path), parse_card(kept, path)
    except CardFormatError:
        return []
    old, new = before.meta.get(f.MERGED_FROM) or [], after.meta.get(f.MERGED_FROM) or []
    if not isinstance(old, list) or not isinstance(new, list):
        return []
    return [str(slug) for slug in new if slug not in old]


def carry_into(base: str, kept: str, survivor: str, path: Path) -> str | None:
    """`survivor` (the card `base` was merged into) with what `kept` added to `base` since, each
    carried key by its rule, and the paragraphs appended. None when `kept` changed anything
    else or is not active or promoted (a person's edit, an archiving: theirs to settle)."""
    try:
        b, k, s = parse_card(base, path), parse_card(kept, path), parse_card(survivor, path)
    except CardFormatError:
        return None
    changed = {key for key in {*b.meta, *k.meta} if b.meta.get(key) != k.meta.get(key)}
    added = _appended(b.body, k.body)
    if changed - _carried() or added is None or k.meta.get(f.STATUS, "promoted") != "promoted":
        return None
    text = update_card_text(survivor, _carried_changes(b, k, s, changed), (), path)
    body = _with_paragraphs(s.body, added)
    return text if body == s.body else replace_body(text, body)


def _carried_changes(b: Card, k: Card, s: Card, changed: set[str]) -> dict[str, Any]:
    """The survivor `s`'s new values of the carried keys `k` changed since `b`, by their rule."""
    changes: dict[str, Any] = {}
    new_sources = [x for x in k.sources if x not in b.sources]
    counted = sum(x in s.sources for x in new_sources)  # sightings the survivor already cites
    carried = _carried()
    for row in f.FIELDS:
        key = row.name
        if key not in carried:
            continue
        if row.sync == f.UNION:
            new = [x for x in k.items(key) if x not in b.items(key) and x not in s.items(key)]
            if new:
                changes[key] = [*s.items(key), *new]
        elif row.sync in _COUNTS:
            less = counted if row.sync == f.SIGHTINGS else 0
            grown = _count(k.meta, key) - _count(b.meta, key) - less
            if grown > 0:
                changes[key] = _count(s.meta, key) + grown
        elif key not in changed:
            continue
        elif row.sync == f.LATEST:
            day, now = k.date(key), s.date(key)
            if day is not None and (now is None or day > now):
                changes[key] = day
        elif row.fold == f.PROMOTION and s.meta.get(key) in (None, "active"):
            changes[key] = "promoted"  # the merged-away card's promotion, kept
        elif row.fold == f.FIRST and k.meta.get(key) and not s.meta.get(key):
            changes[key] = k.meta[key]
    return changes


def _count(meta: dict[str, Any], key: str) -> int:
    value = meta.get(key, f.field(key).default)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _base_parts(base: str, path: Path) -> tuple[dict[str, Any], str]:
    """The base's frontmatter and body; nothing for a card both sides created (empty base)."""
    if not base.strip():
        return {}, ""
    card = parse_card(base, path)
    return card.meta, card.body


def merge_meta(
    base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    """The merged frontmatter (our key order, then theirs' new keys) and the keys in conflict."""
    merged: dict[str, Any] = {}
    conflicts: list[str] = []
    for key in [*ours, *(k for k in theirs if k not in ours)]:
        b, o, t = (side.get(key, _MISSING) for side in (base, ours, theirs))
        if o != b and t != b and (o != t or f.field(key).sync in _COUNTS):  # counts may agree
            value = _both_changed(key, base, ours, theirs)
        else:
            value = o if t == b else t
        if value is _CONFLICT:
            conflicts.append(key)
        elif value is not _MISSING:
            merged[key] = value
    return merged, conflicts


_CONFLICT = object()


def _both_changed(
    key: str, base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> Any:
    b, o, t = (side.get(key, _MISSING) for side in (base, ours, theirs))
    rule = f.field(key).sync
    if rule == f.UNION and all(isinstance(v, list) for v in (o, t)):
        return union(b if isinstance(b, list) else [], o, t)
    dates = [as_date(o), as_date(t)]
    if rule in (f.EARLIEST, f.LATEST) and None not in dates:
        pick = min if rule == f.EARLIEST else max
        return o if as_date(o) == pick(d for d in dates if d is not None) else t
    if rule in _COUNTS and all(isinstance(v, int) and not isinstance(v, bool) for v in (o, t)):
        if isinstance(b, int) and not isinstance(b, bool):
            start = b
        else:  # a base card without the key has the field's default; a card both created, 0
            start = f.field(key).default if base and rule == f.SIGHTINGS else 0
        total = start + (o - start) + (t - start)
        if rule == f.SUM:
            return total
        both = _added(base, ours, f.SOURCES) & _added(base, theirs, f.SOURCES)
        return max(o, t, total - len(both))
    if rule in (f.MARK, f.RECORD):
        return _verified(rule, o, t)
    return _CONFLICT


def _verified(rule: str, ours: Any, theirs: Any) -> Any:
    """Two clones' verify marks (MARK) or check records (RECORD) of one card, as one (module
    docstring); a value of a form verify does not write is the person's: a conflict."""
    fields = {"reason", "date"} if rule == f.MARK else {"date", "commit"}
    if rule == f.MARK and _MISSING in (ours, theirs):
        kept = theirs if ours is _MISSING else ours
        ours = theirs = kept
    sides = [ours, theirs]
    if not all(isinstance(v, dict) and set(v) <= fields and as_date(v.get("date")) for v in sides):
        return _CONFLICT
    by_date = sorted(sides, key=lambda v: (as_date(v["date"]), str(v.get("commit", ""))))
    if rule == f.MARK and ours.get("reason") == theirs.get("reason"):
        return by_date[0]
    return by_date[-1]


def union(base: list[Any], ours: list[Any], theirs: list[Any]) -> list[Any]:
    """Our items minus those theirs removed, then theirs' additions, each once. Items are
    compared by value through sets: a list's `in` is quadratic in a hot memory's fragments."""
    in_base, in_theirs = {_key(i) for i in base}, {_key(i) for i in theirs}
    removed = in_base - in_theirs
    out = [item for item in ours if _key(item) not in removed]
    held = {_key(i) for i in out}
    for item in theirs:
        key = _key(item)
        if key not in in_base and key not in held:
            out.append(item)
            held.add(key)
    return out


def _key(item: Any) -> Any:
    """`item` as a set member: itself when hashable, else its JSON (a mapping in a list)."""
    try:
        hash(item)
    except TypeError:
        return json.dumps(item, sort_keys=True, default=str)
    return item


def _added(base: dict[str, Any], side: dict[str, Any], key: str) -> set[str]:
    before = base.get(key) if isinstance(base.get(key), list) else []
    now = side.get(key) if isinstance(side.get(key), list) else []
    return {str(item) for item in now or []} - {str(item) for item in before or []}


def _mark_conflict(text: str, key: str, ours: Any, theirs: Any) -> str:
    """`text` with a conflict block for `key` at the end of its frontmatter."""
    lines = text.split("\n")
    close = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    block = ["<<<<<<< ours"]
    block += render_value(key, ours) if ours is not _MISSING else [f"# ({key} removed)"]
    block += ["======="]
    block += render_value(key, theirs) if theirs is not _MISSING else [f"# ({key} removed)"]
    block += [">>>>>>> theirs"]
    return "\n".join(lines[:close] + block + lines[close:])
