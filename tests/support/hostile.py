"""Hostile vault content for tests/test_hostile_input.py and benchmarks/hostile.py: hypothesis
strategies for card files, daily logs and export files as a careful attacker or a clumsy tool
would write them, a small base vault to plant them in, and a runner of every read command.

Every strategy yields bytes (or JSON-ready data for exports), so encodings, byte-order marks
and NUL bytes are in reach, not only the text Python would write.
"""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from tests.support.cli import run_cli
from tests.support.machine import scaled

SAMPLE = Path(__file__).resolve().parents[2] / "sample-vault"
#: A few cards and logs of the sample vault: enough for every command to have work to do.
BASE_CARDS = (
    "docker-buildx-platform-flag",
    "nginx-upload-size-limit",
    "postgres-connection-pooling",
    "release-tagging",
)
BASE_LOGS = ("2026-11-05", "2026-11-06")
#: A command that computes longer than this (CPU seconds of this process, so a loaded machine
#: does not shorten it) is a hang: the suite's runs take well under a second.
HANG_SECONDS = 30
#: A run that needs more memory than this has let a few bytes expand (the model alone is ~1 GB).
MEMORY_LIMIT_MB = 2500


def attacker_git(root: Path, *args: str) -> str:
    """Run git in `root` as the attacker (an identity of its own); its stdout."""
    who = ["-c", "user.name=Mallory", "-c", "user.email=m@example.com"]
    done = subprocess.run(
        ["git", *who, "-C", str(root), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def published(attacker: Path, tmp_path: Path, message: str, add: tuple[str, ...] = ("-A",)) -> Path:
    """The attacker's vault committed (`git add ADD`), pushed to a bare remote and cloned by
    the victim with real git; the victim's clone."""
    attacker_git(attacker, "add", *add)
    attacker_git(attacker, "commit", "-q", "-m", message)
    remote = tmp_path / "remote.git"
    attacker_git(tmp_path, "clone", "-q", "--bare", str(attacker), str(remote))
    victim = tmp_path / "victim"
    attacker_git(tmp_path, "clone", "-q", str(remote), str(victim))
    return victim


def make_base(root: Path) -> Path:
    """Create `root` holding the base vault."""
    (root / "memory" / "cards").mkdir(parents=True)
    (root / "memory" / "archive").mkdir()
    for name in ("cardvault.toml", "MEMORY.md", "AGENTS.md"):
        shutil.copy(SAMPLE / name, root / name)
    for slug in BASE_CARDS:
        shutil.copy(SAMPLE / "memory" / "cards" / f"{slug}.md", root / "memory" / "cards")
    for day in BASE_LOGS:
        shutil.copy(SAMPLE / "memory" / f"{day}.md", root / "memory")
    return root


# --- frontmatter ---------------------------------------------------------------------------


def alias_bomb(levels: int, width: int) -> str:
    """`levels` anchors, each listing the previous one `width` times; `tags` names the last."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    return "\n".join([*lines, f"tags: *l{levels - 1}"])


BAD_DATES = ("2026-02-30", "2026-13-01", "0000-00-00", "2026-02-29", "9999-12-31", "1-1-1")
ODD_SCALARS = (
    "null",
    "~",
    "true",
    "0",
    "-1",
    "1e400",
    ".nan",
    "-.inf",
    "9" * 5000,
    "0x1F",
    "'   '",
    '"\\0 NUL inside"',
    '"\\x1b[31mred\\x1b[0m"',
    '"\\u202eRTL"',
    '"line\\nbreak"',
    "!!binary aGVsbG8=",
    "!!binary not base64 !!",
    "!!python/object/apply:os.system [echo]",
    "!!set {a, b}",
    "!!omap [a: 1]",
    "&x [*x]",
    "[a, [b, [c, [d]]]]",
    "{a: {b: {c: 1}}}",
    "'" + "x" * 20000 + "'",
    "<<: {a: 1}",
    "? complex\n: key",
)
KEYS = (
    "topic",
    "category",
    "tags",
    "created",
    "updated",
    "status",
    "seen",
    "sources",
    "aliases",
    "rule",
    "severity",
    "impact",
    "merged_from",
    "promoted",
    "last_used",
)


def _value() -> st.SearchStrategy[str]:
    nesting = st.integers(1, 1200).map(lambda n: "[" * n + "]" * n)
    return st.one_of(
        st.sampled_from(BAD_DATES),
        st.sampled_from(ODD_SCALARS),
        nesting,
        st.text(max_size=40).map(json.dumps),  # any unicode, as a quoted scalar
        st.lists(st.sampled_from(["a", "b-c", "UPPER", "x y", "1", "''"]), max_size=5).map(
            lambda items: "[" + ", ".join(items) + "]"
        ),
    )


VALID = {
    "topic": "Hostile card",
    "category": "tools",
    "tags": "[nginx, upload]",
    "created": "2026-01-01",
    "updated": "2026-11-01",
    "status": "promoted",
    "seen": "3",
    "rule": "Always check the upload limit.",
    "sources": "[memory/2026-11-05.md#10:00]",
}


@st.composite
def frontmatter(draw: st.DrawFn) -> str:
    """YAML frontmatter text: a valid card's keys (some dropped), one to four of them (or other
    keys cardvault reads) given hostile values, sometimes an alias bomb."""
    meta = {k: v for k, v in VALID.items() if draw(st.integers(0, 5))}
    for key in draw(st.lists(st.sampled_from(KEYS), min_size=1, max_size=4, unique=True)):
        meta[key] = draw(_value())
    lines = [f"{key}: {value}" for key, value in meta.items()]
    if draw(st.booleans()):
        lines.insert(draw(st.integers(0, len(lines))), alias_bomb(draw(st.integers(2, 9)), 9))
    return "\n".join(lines)


BODIES = (
    "Plain body text.",
    "→ card: " + "a" * 3000,
    "→ card: ../../../etc/passwd",
    "[[" * 500 + "link" + "]]" * 500,
    "```\n" * 41,
    "Lesson: " + "word " * 5000,
    "<!-- cardvault:end rules -->\n<!-- cardvault:begin rules -->",
)


@st.composite
def card_bytes(draw: st.DrawFn) -> bytes:
    """A card file's bytes: hostile frontmatter, a hostile body, sometimes a hostile encoding."""
    text = f"---\n{draw(frontmatter())}\n---\n{draw(st.sampled_from(BODIES))}\n"
    return draw(encoded(text))


@st.composite
def encoded(draw: st.DrawFn, text: str) -> bytes:
    """`text` as UTF-8, or damaged: a BOM, UTF-16, Latin-1 bytes, a NUL, a cut multi-byte char,
    CRLF or lone CR line ends."""
    how = draw(st.sampled_from(["utf8", "bom", "utf16", "latin1", "nul", "cut", "crlf", "cr"]))
    data = text.encode("utf-8", "surrogatepass")
    if how == "bom":
        return b"\xef\xbb\xbf" + data
    if how == "utf16":
        return text.encode("utf-16", "surrogatepass")
    if how == "latin1":
        return data.replace(b"e", b"\xe9")
    if how == "nul":
        at = draw(st.integers(0, len(data)))
        return data[:at] + b"\x00" + data[at:]
    if how == "cut":
        return data + "é".encode()[:1]
    if how in ("crlf", "cr"):
        return data.replace(b"\n", b"\r\n" if how == "crlf" else b"\r")
    return data


# --- daily logs ----------------------------------------------------------------------------

HEADINGS = (
    "## 10:00 — Plain",
    "## 99:99 — Impossible time",
    "## 10:00 —",
    "## 10:00 — " + "T" * 5000,
    "##10:00—squashed",
    "## 24:00 - midnight",
    "## 10:00 — Duplicate",
    "## 10:00 — Duplicate",
    "## 7:5 — short",
)
LOG_LINES = (
    "Lesson: something useful about nginx",
    "Lesson:",
    "Fix: " + "x" * 10000,
    "→ card: " + "z" * 400,
    "→ card: ../../outside",
    "→ card: nginx-upload-size-limit",
    "Mistake: a\nFix: b\nSeverity: catastrophic",
    "#lesson #lesson #lesson",
    "```",
    "~~~",
    "Correction: \x1b[31mred\x1b[0m",
    "- Rule: <!-- cardvault:end rules -->",
)
LOG_NAMES = ("2026-02-30", "2026-13-01", "2026-11-20", "0000-00-00", "2026-11-05")


@st.composite
def log_file(draw: st.DrawFn) -> tuple[str, bytes]:
    """(file stem, bytes) of a daily log with hostile headings, signals and encodings."""
    parts = ["# some day", ""]
    for _ in range(draw(st.integers(1, 6))):
        parts.append(draw(st.sampled_from(HEADINGS)))
        parts += draw(st.lists(st.sampled_from(LOG_LINES), max_size=4))
        parts.append("")
    if draw(st.booleans()):
        parts += [
            "## 10:00 — Many",
            *(["Lesson: repeated lesson text"] * draw(st.integers(50, 400))),
        ]
    return draw(st.sampled_from(LOG_NAMES)), draw(encoded("\n".join(parts)))


# --- export files --------------------------------------------------------------------------

PATHS = (
    "memory/cards/imported.md",
    "memory/cards/../../../escape.md",
    "/etc/passwd",
    "memory/cards/a/b/c/deep.md",
    "memory/cards/" + "x" * 300 + ".md",
    "memory/cards/UPPER.md",
    "memory/cards/\x00nul.md",
    "memory/archive/imported.md",
    "memory/2026-02-30.md",
    "memory/2026-11-20.md",
)
CARD_TEXT = (
    "---\ntopic: Imported\ncategory: tools\ntags: [a]\ncreated: 2026-01-01\n"
    "updated: 2026-01-02\n---\nImported body.\n"
)
JSON_ODD = (None, True, 0, -1, 10**400, 1.5e308, "", "text", [], {}, ["nested", ["list"]])


def _json_leaf() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(JSON_ODD), st.text(max_size=30))


@st.composite
def export_item(draw: st.DrawFn) -> Any:
    """One item of `cards` or `logs`: mostly well-shaped, with hostile fields."""
    text = draw(
        st.one_of(
            st.just(CARD_TEXT),
            st.builds(lambda fm: f"---\n{fm}\n---\nbody\n", frontmatter()),
            st.sampled_from(["", "\x00", "\ud800", "\ufeff" + CARD_TEXT, CARD_TEXT * 3]),
            _json_leaf(),
        )
    )
    item = {"path": draw(st.one_of(st.sampled_from(PATHS), _json_leaf())), "text": text}
    return item if draw(st.integers(0, 9)) else draw(_json_leaf())


RULES = (
    "- Always pin versions. (memory/cards/imported.md)",
    "- rule\n- injected second line",
    "<!-- cardvault:end rules -->",
    "- " + "r" * 5000,
    "\x00",
    "\ud800",
)


@st.composite
def export_data(draw: st.DrawFn) -> Any:
    """A whole export document: header fields, cards, rules and logs, each possibly hostile."""
    data: dict[str, Any] = {
        "format": draw(st.sampled_from(["cardvault-export", "other", None])),
        "version": draw(st.sampled_from([1, 2, "1", None, 10**400])),
        "cards": draw(st.one_of(st.lists(export_item(), max_size=6), _json_leaf())),
        "rules": draw(st.one_of(st.lists(st.sampled_from(RULES), max_size=4), _json_leaf())),
    }
    if draw(st.booleans()):
        data["logs"] = draw(st.lists(export_item(), max_size=3))
    return data if draw(st.integers(0, 9)) else draw(_json_leaf())


def export_bytes(data: Any, how: str) -> bytes:
    """`data` serialised, or damaged: nesting past any parser's depth, truncation, bad bytes."""
    if how == "deep":
        return ("[" * 200_000 + "]" * 200_000).encode()
    text = json.dumps(data, ensure_ascii=False)
    raw = text.encode("utf-8", "surrogatepass")
    if how == "truncated":
        return raw[: len(raw) // 2]
    if how == "latin1":
        return raw.replace(b"a", b"\xe0")
    return raw


# --- running commands ----------------------------------------------------------------------

READ_COMMANDS = (
    ("check",),
    ("list",),
    ("list", "--archived"),
    ("stats",),
    ("graph",),
    ("search", "nginx upload"),
    ("search", "--logs", "lesson"),
    ("context",),
    ("context", "--task", "release tagging"),
    ("export", "-", "--logs"),
    ("show", "nginx-upload-size-limit"),
    ("maintain", "--dry-run"),
)


@dataclass(frozen=True)
class Run:
    """One command's outcome."""

    args: tuple[str, ...]
    exit_code: int
    output: str
    exception: BaseException | None
    seconds: float


class Hang(Exception):
    """A command ran past HANG_SECONDS."""


@contextmanager
def hang_guard(seconds: int = HANG_SECONDS) -> Iterator[None]:
    """Raise Hang in the main thread when the block has used `seconds` of CPU time (all threads
    of this process), or has waited ten times that on the wall clock scaled by the load (a
    block that hangs without computing, on a pipe or a lock)."""

    def expire(signum: int, frame: object) -> None:
        what = "computing" if signum == signal.SIGPROF else "waiting"
        raise Hang(f"still {what} after {seconds} s")

    previous = {sig: signal.signal(sig, expire) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, scaled(seconds * 10))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def run(root: Path, *args: str, stdin: str | None = None) -> Run:
    """`cardvault --vault root ARGS` in-process, with the hang guard."""

    start = time.perf_counter()
    with hang_guard():
        result = run_cli(["--vault", str(root), *args], input=stdin)
    exception = None if isinstance(result.exception, SystemExit) else result.exception
    return Run(args, result.exit_code, result.output, exception, time.perf_counter() - start)


def problems_of(runs: list[Run]) -> list[str]:
    """What is wrong with `runs`: a traceback, an exit code other than 0 or 1."""
    found = []
    for outcome in runs:
        name = " ".join(outcome.args)
        if outcome.exception is not None:
            found.append(f"{name}: {type(outcome.exception).__name__}: {outcome.exception}")
        elif outcome.exit_code not in (0, 1) or "Traceback" in outcome.output:
            found.append(f"{name}: exit {outcome.exit_code}: {outcome.output[-300:]}")
    return found


def worst_vault(root: Path, entries: int) -> Path:
    """The base vault plus one of each known worst case: the 482-byte alias bomb in `tags`,
    nesting at libyaml's own limit, a 1 MB single-line card, a daily log of `entries`
    near-identical lessons; and beside the vault, `deep-export.json` nested 200,000 deep."""
    make_base(root)
    cards = root / "memory" / "cards"
    head = "topic: W\ncategory: tools\ncreated: 2026-01-01\nupdated: 2026-01-01\n"
    (cards / "bomb.md").write_text(f"---\n{head}{alias_bomb(9, 9)}\n---\nbody\n")
    deep = "[" * 999 + "]" * 999
    (cards / "deep.md").write_text(f"---\n{head}tags: {deep}\n---\nbody\n")
    (cards / "huge.md").write_text(f"---\n{head}tags: [a]\n---\n" + "word " * 199_000 + "\n")
    lessons = "".join(
        f"## {8 + i // 60:02d}:{i % 60:02d} — entry {i}\nLesson: repeated thing {i}\n\n"
        for i in range(entries)
    )
    (root / "memory" / "2026-11-20.md").write_text("# 2026-11-20\n\n" + lessons)
    (root.parent / "deep-export.json").write_bytes(export_bytes(None, "deep"))
    return root


# Peak RSS from /proc (VmHWM belongs to this program's memory map); rusage's ru_maxrss would
# also count the parent's size at the fork, which under pytest is the model's ~1.5 GB.
_WRAPPER = """
import resource, sys
from cardvault.cli.app import main
try:
    main()
finally:
    try:
        status = open("/proc/self/status").read()
        peak = int(status.split("VmHWM:")[1].split()[0])
    except (OSError, IndexError, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    sys.stderr.write(f"\\nMAXRSS_KB={peak}\\n")
"""


def run_in_process(
    root: Path, args: tuple[str, ...], env: dict[str, str] | None = None
) -> tuple[float, int, bool, int]:
    """(wall seconds, peak RSS in MB, clean?, exit code) of `cardvault --vault root ARGS` run as
    a new process; clean = exit 0 or 1 and no traceback."""
    command = [sys.executable, "-c", _WRAPPER, "--vault", str(root), *args]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=scaled(1800), env=env)
    seconds = time.perf_counter() - start
    marker = done.stderr.rfind("MAXRSS_KB=")
    peak = int(done.stderr[marker + 10 :].split()[0]) // 1024 if marker >= 0 else -1
    clean = done.returncode in (0, 1) and "Traceback" not in done.stderr
    return seconds, peak, clean, done.returncode
