"""The project a vault is checked against (`verify`): its files, scripts and locked versions,
each read once, on first use (verify/marks.py's `project_of` decides which folder it is).

Only files are read, never run, and only inside the project (vault/confine.py: no `..`, no
`.git`, no symlink at any component; each read bounded to `PROJECT_MANIFEST` bytes). Commands
are looked up with `shutil.which` and in the project's `node_modules/.bin` and `.venv/bin`:
nothing is started.
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from cardvault.errors import CardFormatError, UnsafePathError
from cardvault.limits import PROJECT_FILES, PROJECT_MANIFEST
from cardvault.vault.bounded_data import json_loads, toml_loads
from cardvault.vault.confine import confined, read_confined
from cardvault.vault.finding import Finding
from cardvault.verify.symbols import mentioned, source_files, walk_files

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# Both read one line at a time (blanks are [ \t], never a newline): a `\s` that runs on across
# lines made a 120 KB Makefile of one-letter lines cost minutes (squared in the lines).
_TARGET = re.compile(r"^([A-Za-z0-9_.\-/%]+(?:[ \t]+[A-Za-z0-9_.\-/%]+)*)[ \t]*::?(?!=)", re.M)
_REQUIREMENT = re.compile(
    r"^[ \t]*([A-Za-z0-9][\w.\-]*)(?:\[[^\]\n]*\])?[ \t]*==[ \t]*([\w.\-+!]+)", re.M
)


def normal_name(name: str) -> str:
    """A package name compared case- and separator-blind (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Project:
    """One project's facts (see the module docstring)."""

    root: Path
    problems: list[Finding] = field(default_factory=list, compare=False)
    blobs: dict[tuple[str, str], str | None] = field(default_factory=dict, compare=False)

    def read(self, rel: str) -> str | None:
        """The text of the project file `rel`, or None when it is absent, unsafe or too big."""
        try:
            data = read_confined(self.root, self.root / rel, PROJECT_MANIFEST)
        except FileNotFoundError:
            return None
        except (OSError, UnsafePathError, CardFormatError) as exc:
            self.problems.append(Finding(rel, 0, f"not read ({exc})"))
            return None
        if len(data) > PROJECT_MANIFEST:
            self.problems.append(Finding(rel, 0, f"over {PROJECT_MANIFEST} bytes, not read"))
            return None
        return data.decode("utf-8", "replace")

    def exists(self, rel: str) -> bool | None:
        """Whether `rel` exists in the project; None when it cannot be checked (a symlink on
        the way, a name that leaves the project)."""
        try:
            path = confined(self.root, self.root / rel)
        except (UnsafePathError, NotADirectoryError):
            return None
        except OSError:
            return False
        return os.path.lexists(path)

    @cached_property
    def make_targets(self) -> frozenset[str] | None:
        """The Makefile's targets; None when the project has no Makefile."""
        for name in MAKEFILES:
            text = self.read(name)
            if text is not None:
                return frozenset(t for m in _TARGET.finditer(text) for t in m.group(1).split())
        return None

    @cached_property
    def npm_scripts(self) -> frozenset[str] | None:
        """package.json's scripts; None when there is no package.json."""
        text = self.read("package.json")
        if text is None:
            return None
        try:
            scripts = json_loads(text).get("scripts") or {}
        except (ValueError, AttributeError):
            self.problems.append(Finding("package.json", 0, "not valid JSON"))
            return frozenset()
        return frozenset(scripts) if isinstance(scripts, dict) else frozenset()

    @cached_property
    def python_scripts(self) -> frozenset[str]:
        """The console scripts pyproject.toml declares."""
        data = self._toml("pyproject.toml")
        project, tool = data.get("project"), data.get("tool")
        poetry = tool.get("poetry") if isinstance(tool, dict) else None
        tables = [o.get("scripts") if isinstance(o, dict) else None for o in (project, poetry)]
        return frozenset(name for table in tables if isinstance(table, dict) for name in table)

    @cached_property
    def locked(self) -> dict[str, tuple[set[str], str]]:
        """Normalised package name -> (the versions the lock files pin, the first lock file)."""
        found: dict[str, tuple[set[str], str]] = {}

        def add(name: str, version: str, where: str) -> None:
            found.setdefault(normal_name(name), (set(), where))[0].add(version)

        for rel in self._requirement_files():
            for match in _REQUIREMENT.finditer(self.read(rel) or ""):
                add(match.group(1), match.group(2), rel)
        lock = self.read("package-lock.json")
        if lock is not None:
            try:
                packages = json_loads(lock).get("packages") or {}
            except (ValueError, AttributeError):
                packages = {}
            for key, info in packages.items() if isinstance(packages, dict) else ():
                if key.startswith("node_modules/") and isinstance(info, dict):
                    version = info.get("version")
                    if isinstance(version, str):
                        add(key.rsplit("node_modules/", 1)[1], version, "package-lock.json")
        for rel in ("poetry.lock", "uv.lock"):
            packages = self._toml(rel).get("package")
            for package in packages if isinstance(packages, list) else []:
                if isinstance(package, dict) and isinstance(package.get("version"), str):
                    add(str(package.get("name", "")), package["version"], rel)
        return found

    @cached_property
    def file_names(self) -> frozenset[str]:
        """The names of the project's files (verify/symbols.py `walk_files`)."""
        found, more = walk_files(self.root)
        if more:
            self.problems.append(
                Finding("", 0, f"over {PROJECT_FILES} files: bare file names checked in part")
            )
        return frozenset(name.rsplit("/", 1)[-1] for name in found)

    def source_names(self, names: frozenset[str]) -> frozenset[str] | None:
        """Which of `names` the project's tracked source files hold as identifiers; None when
        it has no source file to check them against (a project of documents only)."""
        from cardvault.history import project_files

        files, more = source_files(self.root, project_files(self.root))
        if not files:
            return None
        if more:
            self.problems.append(
                Finding("", 0, f"over {len(files)} source files: code symbols not checked")
            )
            return None
        found, read = mentioned(self.root, files, names)
        return frozenset(found) if read else None

    @cached_property
    def head(self) -> str | None:
        """The commit the project's HEAD points at (None: no repository or no commit)."""
        from cardvault.history import project_head

        return project_head(self.root)

    def committed(self, commit: str, rel: str) -> str | None:
        """The text `commit` holds for `rel` (git's objects; None: not there)."""
        from cardvault.history import blob_text, work_tree_of

        top = work_tree_of(self.root)
        hexadecimal = 7 <= len(commit) <= 40 and all(c in "0123456789abcdef" for c in commit)
        if top is None or not hexadecimal:
            return None
        where = Path(os.path.relpath(self.root / rel, top)).as_posix()
        if where.startswith(".."):
            return None
        if (commit, where) not in self.blobs:  # cards citing one file at one commit: one read
            self.blobs[commit, where] = blob_text(top, commit, where)
        return self.blobs[commit, where]

    def has_command(self, name: str) -> bool:
        """Whether `name` is on PATH or among the project's own installed tools. A name with a
        `/` is a path, checked inside the project as any path a card names (`shutil.which`
        would look it up wherever it points: a card naming `uv run /home/x/.ssh/tool` would
        learn, through its stale mark, whether that file exists on this machine)."""
        if "/" in name:
            return self.exists(name.removeprefix("./")) is not False
        if shutil.which(name) is not None:
            return True
        return any(self.exists(f"{folder}/{name}") for folder in ("node_modules/.bin", ".venv/bin"))

    def _requirement_files(self) -> list[str]:
        try:
            names = sorted(os.listdir(self.root))
        except OSError:
            return []
        return [n for n in names if n.startswith("requirements") and n.endswith(".txt")]

    def _toml(self, rel: str) -> dict[str, object]:
        text = self.read(rel)
        if text is None:
            return {}
        try:
            return toml_loads(text)
        except tomllib.TOMLDecodeError as exc:
            self.problems.append(Finding(rel, 0, f"not valid TOML ({exc})"))
            return {}
