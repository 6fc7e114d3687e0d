"""Helpers for tests/test_view.py: headless Chromium (Debian's package) run for one dump or
screenshot or driven over the DevTools protocol on a pipe, a small PNG reader, and an HTML tag
collector.

Chromium runs as the machine's own program, with nothing downloaded: `--dump-dom` prints the
DOM after the page's load event (the page lays out and draws synchronously while loading, so
what is dumped is what a person sees), `--screenshot` writes a PNG. The flags are those the
machine notes give for running as root on a closed network, with a fresh profile each run.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import struct
import subprocess
import zlib
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tests.support.machine import scaled

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--hide-scrollbars", "--force-device-scale-factor=1",
)  # fmt: skip
WINDOW = (1400, 900)
#: Seconds one Chromium run may take (it takes 2-4 s here; far more on a loaded machine).
TIMEOUT = scaled(180)


def chromium() -> str:
    """The Chromium program. Where it is not installed the test skips, saying how to install
    it; in CI ($CI set) it fails instead: `.ci/browser` installs Debian's chromium there."""
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None and os.environ.get("CI"):
        pytest.fail("Chromium is not installed in CI: .ci/browser should have installed it")
    if found is None:
        pytest.skip(
            "Chromium is not installed: `apt-get install chromium chromium-driver` "
            "(.ci/browser does it where apt-get is available)"
        )
    return found


def run_chromium(profile: Path, *args: str) -> str:
    """Chromium headless with `args`; its standard output."""
    profile.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [chromium(), *FLAGS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def dump_dom(page: Path, profile: Path, fragment: str = "") -> str:
    """The page's DOM after load, as HTML text (`fragment` is the address's #part)."""
    return run_chromium(profile, "--dump-dom", page.as_uri() + fragment)


def screenshot(page: Path, profile: Path, out: Path, *extra: str) -> Path:
    """A PNG of the page in a WINDOW-sized viewport."""
    run_chromium(
        profile,
        *extra,
        f"--window-size={WINDOW[0]},{WINDOW[1]}",
        f"--screenshot={out}",
        page.as_uri(),
    )
    assert out.exists(), "Chromium wrote no screenshot"
    return out


def body_data(dom: str) -> dict[str, str]:
    """The `data-*` attributes of the dumped DOM's <body> (the page's counters)."""
    match = re.search(r"<body([^>]*)>", dom)
    assert match, "no <body> in the dumped DOM"
    return dict(re.findall(r'data-([\w-]+)="([^"]*)"', match.group(1)))


@dataclass(frozen=True)
class Image:
    """Decoded RGB pixels, row by row."""

    width: int
    height: int
    rows: list[bytes]  # each width * 3 bytes (RGB)

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        row = self.rows[y]
        return row[3 * x], row[3 * x + 1], row[3 * x + 2]


def read_png(path: Path) -> Image:
    """A non-interlaced 8-bit RGB or RGBA PNG (what Chromium writes), with the standard
    library's zlib: chunks, inflate, then each row's filter undone (PNG spec, section 9)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, chunk = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = chunk
        elif kind == b"IDAT":
            idat += chunk
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, "unexpected PNG format"
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        _unfilter(kind, line, previous, channels)
        rows.append(bytes(line) if channels == 3 else _rgb(line))
        previous = line
    return Image(width, height, rows)


def _unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> None:
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            corner = previous[i - bpp] if i >= bpp else 0
            line[i] = (line[i] + _paeth(left, up, corner)) & 0xFF


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _rgb(line: bytearray) -> bytes:
    return bytes(b for i, b in enumerate(line) if i % 4 != 3)


def inked_pixels(image: Image, box: tuple[int, int, int, int], tolerance: int = 24) -> int:
    """Pixels in box (x0, y0, x1, y1) whose colour differs from the box's commonest colour
    (its background) by more than `tolerance` in some channel."""
    x0, y0, x1, y1 = box
    counts: dict[tuple[int, int, int], int] = {}
    for y in range(y0, y1):
        for x in range(x0, x1):
            colour = image.pixel(x, y)
            counts[colour] = counts.get(colour, 0) + 1
    background = max(counts, key=lambda c: counts[c])
    return sum(
        n
        for colour, n in counts.items()
        if max(abs(a - b) for a, b in zip(colour, background, strict=True)) > tolerance
    )


class Tags(HTMLParser):
    """Every start tag of a page with its attributes, and the text inside each <script>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._inside: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._inside = tag
            (self.scripts if tag == "script" else self.styles).append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == self._inside:
            self._inside = None

    def handle_data(self, data: str) -> None:
        if self._inside == "script":
            self.scripts[-1] += data
        elif self._inside == "style":
            self.styles[-1] += data


def parse_tags(page: str) -> Tags:
    parser = Tags()
    parser.feed(page)
    parser.close()
    return parser


class DevTools:
    """Chromium driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
    commands as NUL-terminated JSON on the child's fd 3, replies and events on its fd 4), so
    a test can type and click like a person without a websocket client or any download."""

    def __init__(self, profile: Path) -> None:
        profile.mkdir(parents=True, exist_ok=True)
        to_child, self._commands = os.pipe()
        self._replies, from_child = os.pipe()

        def wire() -> None:  # runs in the child before exec: its fd 3 and fd 4 are the pipe
            os.dup2(to_child, 3)
            os.dup2(from_child, 4)

        self._process = subprocess.Popen(
            [chromium(), *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe",
             f"--window-size={WINDOW[0]},{WINDOW[1]}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=wire, pass_fds=(3, 4),
        )  # fmt: skip
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, object]] = []
        self.session = ""

    def send(self, method: str, session: bool = True, **params: object) -> dict:
        """One command; its result (raises AssertionError on a protocol error)."""
        self._next += 1
        message: dict[str, object] = {"id": self._next, "method": method, "params": params}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                assert "error" not in reply, reply
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str) -> dict:
        """The first event called `method` (one already received, or the next to come)."""
        for event in self.events:
            if event.get("method") == method:
                self.events.remove(event)
                return event
        while True:
            event = self._read()
            if event.get("method") == method:
                return event
            self.events.append(event)

    def _read(self) -> dict:
        while b"\0" not in self._buffer:
            chunk = os.read(self._replies, 1 << 16)
            assert chunk, "Chromium closed the DevTools pipe"
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def open(self, url: str) -> None:
        """Attach to the first page and load `url` (returns after its load event)."""
        targets = self.send("Target.getTargets", session=False)["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        attached = self.send(
            "Target.attachToTarget", session=False, targetId=page["targetId"], flatten=True
        )
        self.session = attached["sessionId"]
        self.send("Page.enable")
        self.send("Page.navigate", url=url)
        self.wait_event("Page.loadEventFired")

    def evaluate(self, expression: str) -> object:
        """A JavaScript expression's value in the page."""
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def settled(self, expression: str) -> object:
        """`expression`'s value once it equals itself twice in a row, polled in the page every
        20 ms at most 500 times (events a click queues, such as hashchange, run in between)."""
        script = f"""new Promise(resolve => {{
          let last = JSON.stringify({expression}), tries = 0;
          const again = () => {{
            const now = JSON.stringify({expression});
            if ((now === last && tries > 1) || tries > 500) resolve(JSON.parse(now));
            else {{ last = now; tries++; setTimeout(again, 20); }}
          }};
          setTimeout(again, 20);
        }})"""
        result = self.send(
            "Runtime.evaluate", expression=script, awaitPromise=True, returnByValue=True
        )
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def click(self, x: float, y: float) -> None:
        """A left click at (x, y) in the viewport, as a mouse makes it."""
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def close(self) -> None:
        with contextlib.suppress(OSError, AssertionError):
            self.send("Browser.close", session=False)
        try:
            self._process.wait(timeout=scaled(30))
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        os.close(self._commands)
        os.close(self._replies)


#: A pending question of each kind maintenance and verify ask, with evidence in the shape each
#: step writes (maintain/grouping.py, maintain/merge.py, verify/questions.py).
EVIDENCE_OF_EVERY_KIND = {
    "same-lesson": {
        "score": 9.0, "certain_at": 13.0, "asked_from": -3.0,
        "pairs": [{"between": ["memory/2026-03-02.md#10:15", "memory/cards/timeouts.md"],
                   "score": 9.0, "cosine": 0.655, "shared_terms": ["request", "timeout"]}],
    },
    "duplicate": {"cosine": 0.812, "asked_from": 0.75, "figures": [["5"], ["10"]],
                  "sentences": ["Retry 5 times.", "Retry 10 times."]},
    "contradiction": {"cosine": 0.7, "sentences": ["Use tabs.", "Never use tabs."]},
    "split": {"tokens": 780, "budget": 800, "overflow_tokens": 120, "from": ["b", "c"]},
    "stale": {"reasons": ["names scripts/gone.sh, which the project no longer has"],
              "since": "2026-11-20"},
}  # fmt: skip
#: What no Review tab may show: the evidence's field names and raw structure.
RAW_EVIDENCE = ("asked_from", "certain_at", "shared_terms", "overflow_tokens", "pairs", "[{", "{'")


def ask_every_kind(root: Path) -> list[str]:
    """Write a review queue holding one pending question of each kind into the vault at `root`
    (members: its first two cards); their ids, in the queue's order."""
    from cardvault.vault.decisions import Member, ReviewItem, item_id, queue_path, render_queue

    cards = sorted((root / "memory" / "cards").glob("*.md"))[:2]
    members = tuple(
        Member(key=p.relative_to(root).as_posix(), path=p.relative_to(root).as_posix(),
               text=f"What card {n} says, in its own words.")
        for n, p in enumerate(cards, start=1)
    )  # fmt: skip
    items = []
    for kind, evidence in EVIDENCE_OF_EVERY_KIND.items():
        chosen = members[:1] if kind in ("split", "stale") else members
        made = ReviewItem("", kind, chosen, evidence, "2026-11-29")
        items.append(replace(made, id=item_id(kind, made.keys, (i.id for i in items))))
    queue_path(root).write_text(render_queue(items), encoding="utf-8")
    return [i.id for i in items]
