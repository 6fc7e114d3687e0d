"""A merge made in git's object store alone: nothing of it touches the work tree until the
caller applies it, so a kill at any moment of the merge leaves the vault as it was.

`merge_in_objects` is up to date, a fast-forward, a merge commit (`git merge-tree --write-tree`
with the vault's merge drivers, then `git commit-tree`) or the conflicts. git runs the drivers
in a scratch work tree holding only HEAD's `.gitattributes` files, so its temporary copies are
never in the vault. The caller writes the changed files through its journal, then `move_head`
brings everything else (files that are not the vault's, the branch, the index) to the merge;
`finish_move` does the same after a crash.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cardvault.history.runner import (
    GitError,
    git_dir,
    git_said,
    identity_env,
    pathspec,
    run_git,
)


@dataclass(frozen=True)
class TreeMerge:
    """How HEAD (`old`) and the target come together: `how` is "up to date", "fast-forward",
    "merged" or "conflict"; `new` the commit HEAD moves to; `changed` the paths that differ
    from `old` to `new`; `conflicts` each conflicted path and its text with git's markers."""

    how: str
    old: str
    new: str | None = None
    changed: tuple[str, ...] = ()
    conflicts: tuple[tuple[str, str], ...] = ()
    tree: str | None = None  # a conflicted merge's tree (conflicted files with git's markers)


def merge_in_objects(
    top: Path,
    target: str,
    message: str,
    removed: Sequence[str] = (),
    taken: Mapping[str, str | None] | None = None,
    dropped: str | None = None,
) -> TreeMerge:
    """Merge `target` into HEAD without touching the work tree or the index. Conflicts all in
    `removed` are resolved by the removal; `taken` maps paths to the blob the merge holds there
    (None: left out), whatever git made of them (sync/run.py decides both).

    `dropped`: the remote's old head when its history was rewritten without it
    (remote.dropped_tip). Then only HEAD's own commits since `dropped` are carried over, onto
    `target`, so nothing the rewrite removed comes back."""
    old = _sha(top, "HEAD")
    theirs = _sha(top, target)
    parents = [old, theirs]
    sides = (old, theirs)
    if dropped is not None:
        if _is_ancestor(top, old, dropped):
            return TreeMerge("fast-forward", old, theirs, changed_paths(top, old, theirs))
        sides, parents = _over(top, dropped, old, theirs), [theirs]
    elif _is_ancestor(top, theirs, old):
        return TreeMerge("up to date", old)
    elif _is_ancestor(top, old, theirs):
        return TreeMerge("fast-forward", old, theirs, changed_paths(top, old, theirs))
    folder = git_dir(top)
    if folder is None:
        raise GitError("not a git repository", top)
    with tempfile.TemporaryDirectory(prefix="cardvault-merge-") as scratch:
        _attributes_into(top, Path(scratch), old)
        done = run_git(
            Path(scratch),
            f"--git-dir={folder}",
            f"--work-tree={scratch}",
            "merge-tree",
            "--write-tree",
            "--name-only",
            "--no-messages",
            *sides,
            check=False,
        )
    lines = done.stdout.splitlines()
    if done.returncode not in (0, 1) or not lines:
        raise GitError(f"git merge-tree failed: {git_said(done)}", top)
    tree = lines[0].strip()
    taken = taken or {}
    if done.returncode == 1:
        listed = [line for line in lines[1:] if line.strip()]
        paths = [path for path in listed if path not in taken]
        if not listed or not set(paths) <= set(removed):
            conflicts = tuple((p, blob_text(top, tree, p) or "") for p in paths)
            return TreeMerge("conflict", old, conflicts=conflicts, tree=tree)
        taken = {**dict.fromkeys(paths), **taken}
    if taken:
        tree = tree_with(top, tree, taken)
    sha = commit_tree(top, tree, parents, message)
    return TreeMerge("merged", old, sha, changed_paths(top, old, sha))


def _over(top: Path, base: str, ours: str, theirs: str) -> tuple[str, str]:
    """Two commits holding the trees of `ours` and `theirs`, each the child of one holding
    `base`'s tree: their merge is `base..ours` applied to `theirs`, without `base`'s history."""
    root = commit_tree(top, f"{base}^{{tree}}", [], "side")
    return (
        commit_tree(top, f"{ours}^{{tree}}", [root], "side"),
        commit_tree(top, f"{theirs}^{{tree}}", [root], "side"),
    )


def tree_with(
    top: Path, tree: str, taken: Mapping[str, str | None], modes: Mapping[str, str] | None = None
) -> str:
    """`tree` with each path holding its blob (None: removed) in its mode (default 100644),
    made in a scratch index (the repository's own is not touched) with one `update-index`."""
    zero = "0" * len(tree.partition("^")[0])  # a removal's line: mode 0, a null id of that length
    modes = modes or {}
    entries = "".join(
        f"{modes.get(path, '100644')} {blob}\t{path}\0"
        if blob is not None
        else f"0 {zero}\t{path}\0"
        for path, blob in taken.items()
    )
    with tempfile.TemporaryDirectory(prefix="cardvault-merge-") as scratch:
        env = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
        run_git(top, "read-tree", tree, env=env)
        run_git(top, "update-index", "-z", "--index-info", input=entries, env=env)
        return run_git(top, "write-tree", env=env).stdout.strip()


def commit_tree(top: Path, tree: str, parents: Sequence[str], message: str) -> str:
    """A new commit of `tree` with `parents`, by the repository's identity (else cardvault's)."""
    args = [arg for parent in parents for arg in ("-p", parent)]
    done = run_git(top, "commit-tree", tree, *args, "-m", message, env=identity_env(top))
    return done.stdout.strip()


def merge_base(top: Path, old: str, target: str) -> str | None:
    """The merge base of two commits (None: unrelated histories)."""
    done = run_git(top, "merge-base", old, target, check=False)
    return done.stdout.strip() or None if done.returncode == 0 else None


def merge_sides(top: Path, old: str, target: str, path: str) -> tuple[str | None, ...]:
    """The texts of `path` in the merge base of `old` and `target`, in `old` and in `target`
    (None: not there)."""
    base = merge_base(top, old, target)
    texts = [blob_text(top, base, path) if base else None]
    return (*texts, blob_text(top, old, path), blob_text(top, target, path))


def renamed_pairs(top: Path, old: str, target: str) -> list[tuple[str, str, str]]:
    """The renames git's merge of `old` and `target` would see, each side against their merge
    base: (the side's commit, the old path, the new path). None when one side is the base (up
    to date, a fast-forward: nothing is merged)."""
    base = merge_base(top, old, target)
    if not base or base in (_sha(top, old), _sha(top, target)):
        return []
    pairs = []
    for side in (old, target):
        out = run_git(top, "diff", "--name-status", "-M", "-z", base, side).stdout.split("\0")
        fields = iter(out)
        for status in fields:
            if status.startswith("R"):
                pairs.append((side, next(fields, ""), next(fields, "")))
            elif status.strip():
                next(fields, "")
    return pairs


def changed_paths(top: Path, old: str, new: str) -> tuple[str, ...]:
    """Paths (relative to the work tree) whose content differs between two commits."""
    out = run_git(top, "diff", "--name-only", "--no-renames", "-z", old, new).stdout
    return tuple(path for path in out.split("\0") if path)


def removing_subjects(top: Path, old: str, new: str, path: str) -> tuple[str, ...]:
    """The subjects of the commits after `old` up to `new` that removed `path`."""
    out = run_git(
        top, "log", "--diff-filter=D", "--no-renames", "--format=%s", f"{old}..{new}", "--", path
    ).stdout
    return tuple(line for line in out.splitlines() if line)


def blob_id(top: Path, commit: str, path: str) -> str | None:
    """The blob `commit` holds at `path` (None: not there)."""
    done = run_git(top, "rev-parse", "--verify", "-q", f"{commit}:{path}", check=False)
    return done.stdout.strip() if done.returncode == 0 else None


def write_blob(top: Path, text: str) -> str:
    """Store `text` in the object store; its blob id."""
    return run_git(top, "hash-object", "-w", "--stdin", input=text).stdout.strip()


def blob_text(top: Path, commit: str, path: str) -> str | None:
    """The text `commit` holds at `path` (None: not there)."""
    done = run_git(top, "cat-file", "blob", f"{commit}:{path}", check=False)
    return done.stdout if done.returncode == 0 else None


def move_head(top: Path, old: str, new: str, journaled: Sequence[str]) -> None:
    """After the caller wrote the `journaled` paths (relative to the work tree) as `new` holds
    them: check out every other changed path from `new`, move the branch from `old` to `new`
    (refused if it moved meanwhile), and set the index of the journaled paths to `new`."""
    mine = set(journaled)
    others = [path for path in changed_paths(top, old, new) if path not in mine]
    present = [p for p in others if blob_text(top, new, p) is not None]
    gone = [p for p in others if p not in present]
    if present:
        with pathspec(present) as spec:
            run_git(top, "checkout", "-q", new, *spec)
    if gone:
        with pathspec(gone) as spec:
            run_git(top, "rm", "-q", "--ignore-unmatch", *spec)
    run_git(top, "update-ref", "-m", "cardvault sync: merge", "HEAD", new, old)
    _index_to_head(top, journaled)


def finish_move(top: Path, old: str, new: str, journaled: Sequence[str]) -> str:
    """Finish `move_head` after a crash; what was found: "moved" (done now), "already" (HEAD
    was at `new`), "in the branch" (HEAD moved on from `new`), "moved on" (left as it is)."""
    head = _sha(top, "HEAD")
    if head == old:
        move_head(top, old, new, journaled)
        return "moved"
    if head == new:
        _index_to_head(top, journaled)
        return "already"
    return "in the branch" if _is_ancestor(top, new, head) else "moved on"


def with_texts(top: Path, merge: TreeMerge, texts: Mapping[str, str], note: str) -> TreeMerge:
    """`merge` made again with each path of `texts` (relative to the work tree) holding its
    text: the same parents, its message followed by `note`. Nothing touches the work tree."""
    assert merge.new is not None
    blobs: dict[str, str | None] = {rel: write_blob(top, text) for rel, text in texts.items()}
    tree = tree_with(top, f"{merge.new}^{{tree}}", blobs)
    parents = run_git(top, "rev-parse", f"{merge.new}^@").stdout.split()
    message = run_git(top, "log", "-1", "--format=%B", merge.new).stdout.rstrip("\n")
    new = commit_tree(top, tree, parents, f"{message}\n\n{note}")
    return TreeMerge(merge.how, merge.old, new, changed_paths(top, merge.old, new))


def _index_to_head(top: Path, paths: Sequence[str]) -> None:
    if paths:
        with pathspec(list(paths)) as spec:
            run_git(top, "reset", "-q", "HEAD", *spec, check=False)


def _attributes_into(top: Path, scratch: Path, commit: str) -> None:
    """Every `.gitattributes` `commit` holds, written at its path under `scratch` (where git
    looks for attributes when it merges there)."""
    listed = run_git(top, "ls-tree", "-r", "-z", "--name-only", commit).stdout.split("\0")
    for rel in listed:
        if rel == ".gitattributes" or rel.endswith("/.gitattributes"):
            text = blob_text(top, commit, rel)
            if text is not None and ".." not in rel.split("/"):
                target = scratch / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8", errors="surrogateescape")


def _sha(top: Path, ref: str) -> str:
    return run_git(top, "rev-parse", "--verify", f"{ref}^{{commit}}").stdout.strip()


def _is_ancestor(top: Path, maybe: str, of: str) -> bool:
    return run_git(top, "merge-base", "--is-ancestor", maybe, of, check=False).returncode == 0
