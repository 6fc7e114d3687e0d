"""Independent readers for the stats/graph/forget/portable tests.

These parse vault files with plain yaml and regular expressions, not through cardvault's own
card and log parsers, so the tests compare the code under test with a second, separate count.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import yaml

SIGNAL_WORDS = ("lesson", "fix", "gotcha", "rule", "decision", "preference", "correction")
HEADING = re.compile(r"^## (\d{1,2}):(\d{2})\s*(?:—|–|-{1,2})\s*(.*)$")
ENTRY_ID = re.compile(r"\s*<!-- id:([0-9a-f]+) -->\s*$")
SIGNAL = re.compile(r"^\s*(?:[-*+]\s+)?(\w+)\s*:\s*\S")
FIELD = re.compile(r"^\s*(?:[-*+]\s+)?(mistake|fix|prevention)\s*:\s*\S", re.IGNORECASE)


def frontmatter(path: Path) -> dict[str, Any]:
    """The YAML between the first two `---` lines of a card."""
    text = path.read_text(encoding="utf-8")
    _, front, _ = text.split("---\n", 2)
    data = yaml.safe_load(front)
    assert isinstance(data, dict)
    return data


def body(path: Path) -> str:
    """A card's text after its frontmatter."""
    return path.read_text(encoding="utf-8").split("---\n", 2)[2]


def card_files(root: Path, folder: str = "cards") -> list[Path]:
    return sorted((root / "memory" / folder).rglob("*.md"))


def log_files(root: Path) -> list[Path]:
    return sorted(
        p for p in (root / "memory").glob("*.md") if re.match(r"\d{4}-\d{2}-\d{2}\.md$", p.name)
    )


def log_entries(path: Path) -> list[dict[str, Any]]:
    """Entries of a log file: ref, title and body lines (headings inside ``` fences ignored)."""
    entries: list[dict[str, Any]] = []
    fenced = False
    times: dict[str, int] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = None if fenced else HEADING.match(line)
        if match:
            time = f"{int(match.group(1)):02d}:{match.group(2)}"
            times[time] = times.get(time, 0) + 1
            suffix = "" if times[time] == 1 else f"-{times[time]}"
            title, marked = match.group(3), ENTRY_ID.search(match.group(3))
            anchor = marked.group(1) if marked else f"{time}{suffix}"  # by id, else position
            title = title[: marked.start()] if marked else title
            ref = f"memory/{path.name}#{anchor}"
            entries.append({"ref": ref, "title": title, "lines": [], "time": time})
        elif entries:
            entries[-1]["lines"].append(line)
    return entries


def has_signal(lines: list[str]) -> bool:
    """A signal word line, a #lesson tag, or a mistake with a fix/prevention."""
    for line in lines:
        match = SIGNAL.match(line)
        if match and match.group(1).lower() in SIGNAL_WORDS:
            return True
        if re.search(r"(?<![\w#])#lesson\b", line, re.IGNORECASE):
            return True
    found = {m.group(1).lower() for line in lines if (m := FIELD.match(line))}
    return "mistake" in found and bool(found & {"fix", "prevention"})


def git(root: Path, *args: str) -> str:
    """Run git in `root` with a fixed identity; return stdout."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    done = subprocess.run(
        ["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env
    )
    return done.stdout
