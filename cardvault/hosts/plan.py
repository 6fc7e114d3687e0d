"""What `cardvault install` (or `--uninstall`) changes in a host's files: each file's text before
and after, computed without writing anything (the diff shown, `--dry-run`).

Install puts cardvault's entries in (an older cardvault entry replaced in place, never a
second); uninstall takes exactly those out, then the containers install added that are now
empty, and the file when install made it. Each result is checked by parsing it: with
cardvault's entries taken out of both sides, the document before and after must be equal.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from cardvault.hosts import jsonedit, tomledit
from cardvault.hosts.hosts import Item, JsonFile, Member, Target, TomlTable
from cardvault.hosts.jsonedit import HostFileError
from cardvault.hosts.state import FileRecord
from cardvault.hosts.tomledit import table_at
from cardvault.limits import HOST_FILE
from cardvault.vault.confine import read_file


@dataclass(frozen=True)
class FileChange:
    """One host file: its text before and after (None: absent), and what to remember."""

    path: Path
    before: str | None
    after: str | None
    record: FileRecord | None  # kept after writing; None: forgotten

    @property
    def changed(self) -> bool:
        return self.before != self.after


def plan_changes(
    targets: tuple[Target, ...],
    records: dict[str, FileRecord],
    project: Path | None,
    uninstall: bool = False,
) -> list[FileChange]:
    """The changes that put cardvault's entries into `targets` (or take them out again)."""
    changes = []
    for target in targets:
        before = read_host_file(target.path, project)
        record = records.get(str(target.path))
        after: str | None
        if uninstall:
            after, record = _uninstalled(target, before, record), None
        elif isinstance(target, JsonFile):
            blank = before if before is not None and not before.strip() else None
            after, made = _install_json(target, None if blank is not None else before)
            kept = record or FileRecord(created_file=before is None, blank=blank)
            record = replace(kept, created=tuple(dict.fromkeys([*kept.created, *made])))
        else:
            after, separator = _install_toml(target, before)
            record = record or FileRecord(created_file=before is None, separator=separator)
        changes.append(FileChange(target.path, before, after, record))
    return changes


def _uninstalled(target: Target, before: str | None, record: FileRecord | None) -> str | None:
    """The file's text with cardvault's entries taken out (None: the file goes, or is absent)."""
    if before is None:
        return None
    if isinstance(target, JsonFile):
        return _uninstall_json(target, before, record)
    return _uninstall_toml(target, before, record)


def read_host_file(path: Path, project: Path | None) -> str | None:
    """A host file's text (None when absent). In a project, a symbolic link on the way is
    refused: a repository could point it at any file of the user's."""
    if project is not None:
        refuse_links(path, project)
    try:
        data = read_file(path, HOST_FILE, named=True).data
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise HostFileError(f"cannot read: {exc.strerror}", path) from exc
    if len(data) > HOST_FILE:
        raise HostFileError(f"over the {HOST_FILE:,}-byte limit of a settings file; not read", path)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise HostFileError("not UTF-8 text", path) from exc


def refuse_links(path: Path, project: Path) -> None:
    """HostFileError when `path`, or a folder between it and `project`, is a symbolic link."""
    here = path
    while here != project and project in here.parents:
        if here.is_symlink():
            raise HostFileError(
                "is a symbolic link: cardvault does not write through links in a project", here
            )
        here = here.parent


def _install_json(target: JsonFile, before: str | None) -> tuple[str, list[tuple[str, ...]]]:
    text = before if before is not None else "{}\n"
    jsonedit.load(text, target.path)
    made: list[tuple[str, ...]] = []
    if before is None:
        for key, value in target.skeleton:
            text = jsonedit.insert_member(text, jsonedit.root(text), key, value)
    for slot in target.slots:
        text, added = _ensure_parents(text, slot, target.path)
        made += added
        text = _place(text, slot)
    _check(target, before, text, present=True)
    return (before if text == before else text), made


def _ensure_parents(
    text: str, slot: Member | Item, path: Path
) -> tuple[str, list[tuple[str, ...]]]:
    """`text` with the containers on the way to `slot` added where missing (and which)."""
    made = []
    for depth in range(1, len(slot.parent) + 1):
        here = slot.parent[:depth]
        wants = "array" if isinstance(slot, Item) and depth == len(slot.parent) else "object"
        found = jsonedit.lookup(text, here)
        if found is None:
            holder = jsonedit.lookup(text, here[:-1])
            assert holder is not None and holder.kind == "object"
            text = jsonedit.insert_member(text, holder, here[-1], [] if wants == "array" else {})
            made.append(here)
        elif found.kind != wants:
            raise HostFileError(f"'{'.'.join(here)}' should be a JSON {wants}", path)
    return text, made


def _place(text: str, slot: Member | Item) -> str:
    """`text` with the slot's value in place (added, or an old cardvault entry replaced)."""
    parent = jsonedit.lookup(text, slot.parent)
    assert parent is not None
    if isinstance(slot, Member):
        present = [m for m in jsonedit.members(text, parent) if m.key == slot.key]
        if not present:
            return jsonedit.insert_member(text, parent, slot.key, slot.value)
        last = present[-1]
        if _value(text, last.value) == slot.value:
            return text
        return jsonedit.replace_value(text, last.value, slot.value, last.start)
    listed = jsonedit.items(text, parent)
    ours = [i for i, item in enumerate(listed) if slot.ours(_value(text, item))]
    if len(ours) == 1 and _value(text, listed[ours[0]]) == slot.value:
        return text
    for index in reversed(ours[1:]):
        text = jsonedit.remove_item(text, parent, index)
        parent = jsonedit.lookup(text, slot.parent)
        assert parent is not None
    if not ours:
        return jsonedit.append_item(text, parent, slot.value)
    first = jsonedit.items(text, parent)[ours[0]]
    return jsonedit.replace_value(text, first, slot.value, first.start)


def _uninstall_json(target: JsonFile, before: str, record: FileRecord | None) -> str | None:
    if not before.strip():
        return before
    jsonedit.load(before, target.path)
    text = before
    for slot in target.slots:
        parent = jsonedit.lookup(text, slot.parent)
        if parent is None:
            continue
        if isinstance(slot, Member) and parent.kind == "object":
            while any(m.key == slot.key for m in jsonedit.members(text, parent)):
                text = jsonedit.remove_member(text, parent, slot.key)
                parent = jsonedit.lookup(text, slot.parent)
                assert parent is not None
        elif isinstance(slot, Item) and parent.kind == "array":
            listed = jsonedit.items(text, parent)
            for index in reversed(range(len(listed))):
                if slot.ours(_value(text, listed[index])):
                    text = jsonedit.remove_item(text, parent, index)
                    parent = jsonedit.lookup(text, slot.parent)
                    assert parent is not None
    if text == before:
        return before
    text = _prune(text, target, record)
    _check(target, before, text, present=False)
    if record is not None and json.loads(text) == dict(target.skeleton):
        if record.created_file:
            return None
        if record.blank is not None:
            return record.blank
    return text


def _prune(text: str, target: JsonFile, record: FileRecord | None) -> str:
    """`text` less the containers install added that are now empty (without a record: the
    hook lists cardvault's entries were in, which mean nothing empty)."""
    if record is not None:
        candidates = list(record.created)
    else:
        candidates = [slot.parent for slot in target.slots if isinstance(slot, Item)]
    for path in sorted(set(candidates), key=len, reverse=True):
        found = jsonedit.lookup(text, path)
        holder = jsonedit.lookup(text, path[:-1])
        if found is not None and holder is not None and jsonedit.is_empty(text, found):
            text = jsonedit.remove_member(text, holder, path[-1])
    return text


def _check(target: JsonFile, before: str | None, after: str, present: bool) -> None:
    """Refuse an edit that changed more than cardvault's entries (or missed them)."""
    old = json.loads(before) if before is not None else {}
    new = json.loads(after)
    if _strip(old, target) != _strip(new, target) or _has_ours(new, target) != present:
        raise HostFileError("could not edit the file safely: add cardvault by hand", target.path)


def _strip(data: dict[str, Any], target: JsonFile) -> dict[str, Any]:
    """`data` without cardvault's entries and the containers on their way left empty."""
    data = copy.deepcopy(data)
    for slot in target.slots:
        parent = table_at(data, slot.parent)
        if isinstance(slot, Member) and isinstance(parent, dict):
            parent.pop(slot.key, None)
        elif isinstance(slot, Item) and isinstance(parent, list):
            parent[:] = [item for item in parent if not slot.ours(item)]
        for depth in range(len(slot.parent), 0, -1):
            holder, here = table_at(data, slot.parent[: depth - 1]), slot.parent[depth - 1]
            if isinstance(holder, dict) and holder.get(here) in ({}, []):
                del holder[here]
    return {} if data == dict(target.skeleton) else data


def _has_ours(data: dict[str, Any], target: JsonFile) -> bool:
    for slot in target.slots:
        parent = table_at(data, slot.parent)
        if isinstance(slot, Member):
            if not (isinstance(parent, dict) and parent.get(slot.key) == slot.value):
                return False
        elif not (isinstance(parent, list) and any(slot.ours(item) for item in parent)):
            return False
    return True


def _value(text: str, value: jsonedit.Value) -> Any:
    return json.loads(text[value.start : value.end])


def _install_toml(target: TomlTable, before: str | None) -> tuple[str, str | None]:
    text = before or ""
    data = tomledit.load(text, target.path)
    block = tomledit.table_text(target.dotted, target.values)
    present = tomledit.table_at(data, target.dotted)
    if present == target.values and tomledit.table_span(text, target.dotted):
        return text, None
    after, separator = tomledit.upsert(text, target.dotted, block, target.path)
    tomledit.check(text, after, target.dotted, target.values, target.path)
    return after, (separator if present is None else None)


def _uninstall_toml(target: TomlTable, before: str, record: FileRecord | None) -> str | None:
    separator = record.separator if record is not None else None
    after = tomledit.remove(before, target.dotted, separator, target.path)
    tomledit.check(before, after, target.dotted, None, target.path)
    if record is not None and record.created_file and not after:
        return None
    return after
