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
from functools import partial
from pathlib import Path
from typing import Any

from cardvault.hosts import jsonedit, tomledit
from cardvault.hosts.hosts import Item, JsonFile, Member, Target, TomlTable
from cardvault.hosts.jsonedit import HostFileError
from cardvault.hosts.state import FileRecord
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
    old = jsonedit.load(text, target.path)
    made: list[tuple[str, ...]] = []
    if before is None:
        for key, value in target.skeleton:
            text = jsonedit.insert(text, (), key, value)
    for slot in target.slots:
        text, added = _ensure_parents(text, slot, target.path)
        made += added
        text = _place(text, slot)
    _check(target, old, json.loads(text), present=True)
    return (before if text == before else text), made


def _ensure_parents(
    text: str, slot: Member | Item, path: Path
) -> tuple[str, list[tuple[str, ...]]]:
    """`text` with the containers on the way to `slot` added where missing (and which)."""
    made = []
    for depth in range(1, len(slot.parent) + 1):
        here = slot.parent[:depth]
        wants = list if isinstance(slot, Item) and depth == len(slot.parent) else dict
        found = jsonedit.find(text, here)
        if found is None:
            text = jsonedit.insert(text, here[:-1], here[-1], wants())
            made.append(here)
        elif not isinstance(found.data, wants):
            kind = "array" if wants is list else "object"
            raise HostFileError(f"'{'.'.join(here)}' should be a JSON {kind}", path)
    return text, made


def _place(text: str, slot: Member | Item) -> str:
    """`text` with the slot's value in place: added, or the first of cardvault's entries
    replaced and the others taken out."""
    parent = jsonedit.find(text, slot.parent)
    assert parent is not None
    ours = [e for e in jsonedit.elements(text, parent) if _is_ours(slot, e)]
    if [element.value.data for element in ours] == [slot.value]:
        return text
    if not ours:
        key = slot.key if isinstance(slot, Member) else None
        return jsonedit.insert(text, slot.parent, key, slot.value)
    first = ours[0]
    text = jsonedit.remove(text, slot.parent, lambda e: e.start > first.start and _is_ours(slot, e))
    return jsonedit.replace(text, first, slot.value)


def _is_ours(slot: Member | Item, element: jsonedit.Element) -> bool:
    """Whether `element`, in the container at `slot.parent`, is cardvault's entry for `slot`."""
    if isinstance(slot, Member):
        return element.key == slot.key
    return element.key is None and slot.ours(element.value.data)


def _uninstall_json(target: JsonFile, before: str, record: FileRecord | None) -> str | None:
    if not before.strip():
        return before
    old = jsonedit.load(before, target.path)
    text = before
    for slot in target.slots:
        text = jsonedit.remove(text, slot.parent, partial(_is_ours, slot))
    if text == before:
        return before
    text = _prune(text, target, record)
    _check(target, old, json.loads(text), present=False)
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
        found = jsonedit.find(text, path)
        if found is not None and found.data in ({}, []):
            text = jsonedit.remove(text, path[:-1], partial(_is_at, path[-1], found))
    return text


def _is_at(key: str, value: jsonedit.Value, element: jsonedit.Element) -> bool:
    """Whether `element` is member `key` with `value` (of a repeated key, the one that counts)."""
    return element.key == key and element.value == value


def _check(target: Target, old: dict[str, Any], new: dict[str, Any], present: bool) -> None:
    """Refuse an edit that changed more than cardvault's entries, or left them otherwise than
    wanted: each entry once as written (`present`), or none."""
    wanted = [[slot.value] if present else [] for slot in target.slots]
    if _strip(old, target) != _strip(new, target) or _entries(new, target) != wanted:
        raise HostFileError(
            "could not edit the file safely: make cardvault's change by hand", target.path
        )


def _strip(data: dict[str, Any], target: Target) -> dict[str, Any]:
    """`data` without cardvault's entries and the containers on their way left empty."""
    data = copy.deepcopy(data)
    for slot in target.slots:
        parent = _at(data, slot.parent)
        if isinstance(slot, Member) and isinstance(parent, dict):
            parent.pop(slot.key, None)
        elif isinstance(slot, Item) and isinstance(parent, list):
            parent[:] = [item for item in parent if not slot.ours(item)]
        for depth in range(len(slot.parent), 0, -1):
            holder, here = _at(data, slot.parent[: depth - 1]), slot.parent[depth - 1]
            if isinstance(holder, dict) and holder.get(here) in ({}, []):
                del holder[here]
    return {} if data == dict(target.skeleton) else data


def _entries(data: dict[str, Any], target: Target) -> list[list[Any]]:
    """cardvault's entries in `data`, for each of the target's slots."""
    found = []
    for slot in target.slots:
        parent = _at(data, slot.parent)
        if isinstance(slot, Member):
            has = isinstance(parent, dict) and slot.key in parent
            found.append([parent[slot.key]] if has else [])
        else:
            listed = parent if isinstance(parent, list) else []
            found.append([item for item in listed if slot.ours(item)])
    return found


def _at(data: Any, dotted: tuple[str, ...]) -> Any:
    """What `data` holds at the dotted name (None when any part of it is missing)."""
    for part in dotted:
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    return data


def _install_toml(target: TomlTable, before: str | None) -> tuple[str, str | None]:
    text = before or ""
    old = tomledit.load(text, target.path)
    span = _toml_span(target, text, old)
    present = _entries(old, target)[0]
    if present == [target.values]:
        return text, None
    block = tomledit.table_text(target.dotted, target.values)
    after, separator = tomledit.upsert(text, span, block)
    _check(target, old, tomledit.load(after, target.path), present=True)
    return after, (None if present else separator)


def _uninstall_toml(target: TomlTable, before: str, record: FileRecord | None) -> str | None:
    old = tomledit.load(before, target.path)
    span = _toml_span(target, before, old)
    if span is None:
        return before
    after = tomledit.remove(before, span, record.separator if record is not None else None)
    _check(target, old, tomledit.load(after, target.path), present=False)
    if record is not None and record.created_file and not after:
        return None
    return after


def _toml_span(target: TomlTable, text: str, data: dict[str, Any]) -> tuple[int, int] | None:
    """Where cardvault's table is written in `text` (None: it is not there); HostFileError when
    it is there without its own `[header]`, which cardvault does not edit."""
    span = tomledit.table_span(text, target.dotted)
    if span is None and _entries(data, target)[0]:
        raise HostFileError(
            f"[{'.'.join(target.dotted)}] is defined without its own header (inline or dotted "
            "keys): edit it by hand",
            target.path,
        )
    return span
