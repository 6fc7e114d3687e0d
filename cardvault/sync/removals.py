"""A file one side of a sync's merge removed and the other changed (sync/run.py `prepare`).

git would stop on "changed on one side, removed on the other"; the removals that are routine
between clones that each run cardvault are settled here instead (docs/writers.md). Each answers
with the paths the merge takes as given blobs (None: left out).
"""

from __future__ import annotations

from pathlib import Path

from cardvault import history
from cardvault.errors import CardvaultError


def kept_after_removal(
    top: Path, merge: history.TreeMerge, target: str, rel: str
) -> dict[str, str | None]:
    """For a conflicted `rel` one side removed: the paths to take instead of stopping (none:
    the conflict stands). `merge` is the conflicted merge of HEAD and `target`."""
    base, ours, theirs = history.merge_sides(top, merge.old, target, rel)
    if base is None or (ours is None) == (theirs is None):
        return {}
    if _of_kind("log", rel):
        return _log_kept(base, ours, theirs, top, rel)
    start = history.merge_base(top, merge.old, target)
    if _of_kind("card", rel) and merge.tree and start is not None:
        kept = ours if ours is not None else theirs
        assert kept is not None
        removing = target if theirs is None else merge.old
        carried = _carried(top, merge.tree, start, removing, rel, base, kept)
        return carried or _forgotten_and_folded(top, start, removing, rel, base, kept)
    return {}


def removal_wins(top: Path, old: str, target: str, rel: str) -> bool:
    """Whether a conflicted card was removed on one side and only counted or checked on the
    other (merge_card.py `only_bookkeeping`): then the removal stands."""
    base, ours, theirs = history.merge_sides(top, old, target, rel)
    if base is None or (ours is None) == (theirs is None):
        return False
    kept = ours if ours is not None else theirs
    assert kept is not None
    return _bookkeeping_only(base, kept, rel)


def _bookkeeping_only(base: str | None, kept: str, rel: str) -> bool:
    from cardvault.sync.merge_card import only_bookkeeping

    return base is not None and _of_kind("card", rel) and only_bookkeeping(base, kept, Path(rel))


def _forgotten_and_folded(
    top: Path, start: str, removing: str, rel: str, base: str, kept: str
) -> dict[str, str | None]:
    """A card a forget removed on one side (a commit that removed it says `forget:`) that the
    other side only folded into (`only_folded`): the removal stands; the folded entries stay in
    their log for the next `maintain`, and a duplicate merged into it comes back as the
    forgetting side has it (its text is in no other card).
    """
    from cardvault.sync.merge_card import newly_merged, only_folded

    if not only_folded(base, kept, Path(rel)):
        return {}
    subjects = history.removing_subjects(top, start, removing, rel)
    if not any(subject.startswith("forget:") for subject in subjects):
        return {}
    taken: dict[str, str | None] = {rel: None}
    folder = rel.rpartition("/")[0]
    for slug in newly_merged(base, kept, Path(rel)):
        duplicate = f"{folder}/{slug}.md" if folder else f"{slug}.md"
        blob = history.blob_id(top, removing, duplicate)
        if blob is not None:
            taken[duplicate] = blob
    return taken


def _carried(
    top: Path, tree: str, start: str, removing: str, rel: str, base: str, kept: str
) -> dict[str, str | None]:
    """The card `rel` that one side merged into another (the survivor's `merged_from` names it
    there) and the other side changed: that change carried into the merged survivor (`tree`)."""
    from cardvault.sync.merge_card import carry_into, merged_into

    for path in history.changed_paths(top, start, removing):
        if path == rel or not _of_kind("card", path):
            continue
        side = history.blob_text(top, removing, path)
        if side is None or not merged_into(side, Path(rel).stem, Path(path)):
            continue
        survivor = history.blob_text(top, tree, path)
        carried = carry_into(base, kept, survivor, Path(path)) if survivor else None
        if carried is None:
            return {}
        return {rel: None, path: history.write_blob(top, carried)}
    return {}


def unpaired(top: Path, target: str) -> tuple[dict[str, str | None], list[str]]:
    """Undo the renames git's merge would see that are not one (small cards of one shape look
    alike, and the other side's edits of a card forgotten or merged away would land on a new
    one). Returns the paths the merge takes as they are (the new file as its side wrote it; the
    removed one left out when the other side only did bookkeeping on it) and the removed files the
    other side edited otherwise: conflicts, as git's own "changed on one side, removed".
    """
    taken: dict[str, str | None] = {}
    stopped: list[str] = []
    for side, old, new in history.renamed_pairs(top, "HEAD", target):
        other = target if side == "HEAD" else "HEAD"
        if not _false_rename(top, side, old, new) or history.blob_text(top, other, new):
            continue
        base, ours, theirs = history.merge_sides(top, "HEAD", target, old)
        kept = theirs if side == "HEAD" else ours
        taken[new] = history.blob_id(top, side, new)
        if kept is None or kept == base or _bookkeeping_only(base, kept, old):
            taken[old] = None
        else:
            stopped.append(old)
    return taken, stopped


def _false_rename(top: Path, side: str, old: str, new: str) -> bool:
    """Whether git's pairing of a removed `old` with an added `new` (in `side`) pairs vault
    files that are not one. A card's own moves are trusted: to or from the archive (one name),
    and `cardvault rename` (the old slug is an alias of the new card)."""
    kinds = ("card", "log", "hot")
    if not any(_of_kind(k, path) for k in kinds for path in (old, new)):
        return False  # not the vault's: git's own way
    if not (_of_kind("card", old) and _of_kind("card", new)):
        return True
    return Path(old).name != Path(new).name and not _renamed_by_us(top, side, old, new)


def _of_kind(kind: str, rel: str) -> bool:
    from cardvault.sync.driver import is_of_kind

    return is_of_kind(kind, Path(rel))


def _renamed_by_us(top: Path, side: str, old: str, new: str) -> bool:
    """Whether the card at `new` (in `side`) names the slug of `old` among its aliases."""
    from cardvault.vault.card import parse_card

    text = history.blob_text(top, side, new)
    try:
        card = parse_card(text or "", Path(new))
    except CardvaultError:
        return False
    return Path(old).stem in card.aliases


def _log_kept(
    base: str, ours: str | None, theirs: str | None, top: Path, rel: str
) -> dict[str, str | None]:
    """A daily log forget removed on one side and the other changed: merged as if the removing
    side had kept its title alone, so only the other side's new entries stay (nothing left: the
    removal stands); nothing taken when that merge conflicts.
    """
    from cardvault.sync.merge_log import merge_log, split_log

    title = split_log(base, Path(rel)).preamble.rstrip("\n") + "\n"
    merged = merge_log(base, ours or title, theirs or title, Path(rel))
    if merged.conflicts:
        return {}
    if not split_log(merged.text, Path(rel)).entries:
        return {rel: None}
    return {rel: history.write_blob(top, merged.text)}
