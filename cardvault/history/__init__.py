"""Git: everything cardvault knows about it lives in this folder, and nothing else starts it.

Every command that changes the vault records exactly one commit here. A vault that is not a git
repository still works (the change is written, `commit` returns a result saying it was not
recorded); a repository with no user configured gets cardvault's default identity, so commits
never fail for want of `git config user.name`.

Two ways to run git, one set of safe settings (`runner.safe_env`: literal pathspecs,
`safe.bareRepository=explicit`, no prompt):
- GitPython (repo.py) for the repository as objects and the git work that is more than one
  commit: sync's fetch, merge and push (`history.remote`, imported by sync/ alone), review
  branches, the merge drivers' set-up, the text HEAD holds. Imported when such a function is
  first called: readers, `--help` and the everyday commit never load it (its import costs more
  than the gits it would save them: docs/benchmarks.md);
- `runner.run_git`, a plain subprocess, for the readers' questions, the everyday commit of a
  few files (one or two gits), the merge drivers' line merge.

- runner.py: the safe settings, finding the repository, the default identity;
- repo.py: the one place a GitPython `Repo` is made (private to this folder);
- commits.py: `commit` (one per write, of exactly its files), `commit_to_branch`, `unstage`;
- states.py: what git is in the middle of (a rebase, a merge, a detached HEAD...);
- treemerge.py: sync's merge made in the object store, then the branch moved to it;
- status.py: uncommitted paths, what the index tracks, what HEAD holds, past commits (and the
  reverted ones), the remote;
- locks.py: git's lock files, and clearing those a killed git left;
- drivers.py: `.gitattributes` and the merge drivers in the clone's config;
- merging.py: git's line-by-line three-way merge, for the drivers;
- dates.py: when git first and last saw each file of a folder (import);
- remote.py: the branch and remote to sync, fetch, push;
- changes.py: what each commit changed under memory/ (files before and after), for `history`.
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
    head_of,
    signed,
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
    DEFAULT_NAME,
    MANY_PATHS,
    GitError,
    configured_identity,
    git_dir,
    init_repo,
    is_repo,
    work_tree_of,
)
from cardvault.history.states import unfinished_operation
from cardvault.history.status import (
    IGNORED,
    CommitInfo,
    Reverted,
    commit_count,
    committed_texts,
    head,
    last_commit_with_subject,
    merge_in_progress,
    parse_status,
    project_files,
    project_head,
    remote_url,
    reverted_commits,
    tracked_under,
    uncommitted,
    work_tree,
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
    "DEFAULT_NAME",
    "IGNORED",
    "MANY_PATHS",
    "SUBJECT",
    "CommitChanges",
    "CommitInfo",
    "CommitResult",
    "FileChange",
    "GitError",
    "Reverted",
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
    "head_of",
    "init_repo",
    "is_repo",
    "last_commit_with_subject",
    "memory_commits",
    "merge_base",
    "merge_files_in_place",
    "merge_in_objects",
    "merge_in_progress",
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
    "signed",
    "tracked_under",
    "uncommitted",
    "unfinished_operation",
    "unstage",
    "with_texts",
    "work_tree",
    "work_tree_of",
    "write_blob",
]
