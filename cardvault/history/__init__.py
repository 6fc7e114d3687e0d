"""Git: everything cardvault knows about it lives in this folder, and nothing else starts it.

Every command that changes the vault records exactly one commit here. A vault that is not a git
repository still works (`commit` says the change was not recorded); a repository with no user
configured gets cardvault's default identity. Every git command runs through
`runner.run_git` with one set of safe settings (`runner.safe_env`); GitPython (repo.py),
imported when first needed, only reads refs, config and trees in-process for sync and review
branches: its import costs more than the gits it would save a reader.

runner.py (safe settings, finding the repository), repo.py (the one `Repo`), commits.py,
states.py (what git is in the middle of), treemerge.py (sync's merge in the object store),
status.py, locks.py (git's lock files), drivers.py and merging.py (the merge drivers),
dates.py (file dates for import), remote.py (fetch, push), changes.py (for `history`).
"""

from cardvault.history.changes import (
    CommitChanges,
    FileChange,
    memory_commits,
    one_commit,
)
from cardvault.history.commits import (
    CommitResult,
    commit,
    commit_to_branch,
    unstage,
)
from cardvault.history.dates import file_dates
from cardvault.history.drivers import (
    SUBJECT,
    attributes_text,
    configure_drivers,
    drivers_configured,
    needs_attributes,
)
from cardvault.history.locks import (
    clear_stale_git_locks,
    git_lock_files,
    settle_git_locks,
)
from cardvault.history.merging import merge_files_in_place, merge_texts
from cardvault.history.runner import (
    MANY_PATHS,
    configured_identity,
    git_dir,
    init_repo,
    is_repo,
    work_tree_of,
)
from cardvault.history.states import unfinished_operation
from cardvault.history.status import (
    CommitInfo,
    commit_count,
    committed_texts,
    head,
    last_commit_with_subject,
    parse_status,
    project_files,
    project_head,
    remote_url,
    reverted_commits,
    tracked_under,
    uncommitted,
)
from cardvault.history.treemerge import (
    TreeMerge,
    blob_id,
    blob_text,
    changed_paths,
    finish_move,
    merge_base,
    merge_in_objects,
    merge_sides,
    move_head,
    removing_subjects,
    renamed_pairs,
    with_texts,
    write_blob,
)

__all__ = [
    "MANY_PATHS",
    "SUBJECT",
    "CommitChanges",
    "CommitInfo",
    "CommitResult",
    "FileChange",
    "TreeMerge",
    "attributes_text",
    "blob_id",
    "blob_text",
    "changed_paths",
    "clear_stale_git_locks",
    "commit",
    "commit_count",
    "commit_to_branch",
    "committed_texts",
    "configure_drivers",
    "configured_identity",
    "drivers_configured",
    "file_dates",
    "finish_move",
    "git_dir",
    "git_lock_files",
    "head",
    "init_repo",
    "is_repo",
    "last_commit_with_subject",
    "memory_commits",
    "merge_base",
    "merge_files_in_place",
    "merge_in_objects",
    "merge_sides",
    "merge_texts",
    "move_head",
    "needs_attributes",
    "one_commit",
    "parse_status",
    "project_files",
    "project_head",
    "remote_url",
    "removing_subjects",
    "renamed_pairs",
    "reverted_commits",
    "settle_git_locks",
    "tracked_under",
    "uncommitted",
    "unfinished_operation",
    "unstage",
    "with_texts",
    "work_tree_of",
    "write_blob",
]
