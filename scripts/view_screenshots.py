"""Screenshots of `cardvault view` at 1, 30, 300 and 3,000 cards, 1280 and 800 px wide.

Builds each vault in a temporary folder with the real CLI, writes its page with `cardvault view
--out`, and has headless Chromium (Debian's `chromium`; `.ci/browser` installs it) take the
screenshots into docs/view/ as PNG:
- 1 card: `cardvault init` and the README tour's first `cardvault new`;
- 30 cards: the bundled sample-vault/ after one real `cardvault maintain` (it distils the
  sample's logs and asks its questions, so the Review tab has real ones; loads the model once);
- 300 and 3,000 cards: generated (`generated_vault`): ten categories of very different sizes,
  titles of 2 to 9 words, tags from each category's own pool, and [[links]] mostly within a
  category, the same on every run.
For the 30-card vault also its Review tab and an open card. Where `pngquant` is installed the
PNGs are reduced to 64 colours, undithered (a third of the size; `apt-get install pngquant`).

    python scripts/view_screenshots.py [--out docs/view] [--sizes 1,30,300,3000]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WIDTHS = ((1280, 800), (800, 800))
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--hide-scrollbars", "--force-device-scale-factor=1",
)  # fmt: skip
CATEGORIES = (
    "infrastructure", "tools", "workflow", "projects", "lessons", "security", "models", "human",
    "system", "career",
)  # fmt: skip
#: Each category's share of the cards: a few large ones and a tail of small ones.
WEIGHTS = (30, 22, 14, 10, 8, 6, 4, 3, 2, 1)
_VOCABULARY = (
    "postgres connection pool timeout retry backoff queue worker cron deploy rollback docker "
    "image build cache layer kubernetes ingress certificate dns proxy nginx latency memory leak "
    "profile python import wheel venv lint flaky fixture race lock async socket firewall secret "
    "rotation backup restore snapshot volume review merge branch commit hook release migration "
    "schema index query replica alert metric dashboard trace budget quota throttle batch kafka "
    "partition offset csrf token login session cookie header redis s3 pagination"
)
WORDS = tuple(_VOCABULARY.split())


def generated_vault(root: Path, cards: int, seed: int = 42) -> None:
    """`cards` cards under root/memory/cards (see the module docstring)."""
    rng = random.Random(seed)
    folder = root / "memory" / "cards"
    categories = rng.choices(CATEGORIES, WEIGHTS, k=cards)
    pools = {c: rng.sample(WORDS, 8) for c in CATEGORIES}
    slugs: list[str] = []
    by_category: dict[str, list[str]] = {c: [] for c in CATEGORIES}
    for number, category in enumerate(categories):
        title = " ".join(rng.sample(WORDS, rng.randint(2, 9))).capitalize()
        slug = f"{'-'.join(title.lower().split()[:5])}-{number}"
        tags = rng.sample(pools[category], rng.randint(1, 3))
        near = by_category[category]
        targets = {rng.choice(near) for _ in range(rng.randint(0, 3)) if near}
        if slugs and rng.random() < 0.1:
            targets.add(rng.choice(slugs))
        links = " ".join(f"See [[{t}]]." for t in sorted(targets))
        body = " ".join(rng.choices(WORDS, k=rng.randint(30, 80))).capitalize() + ". " + links
        (folder / f"{slug}.md").write_text(
            f"---\ntopic: {title}\ncategory: {category}\ntags: [{', '.join(tags)}]\n"
            f"created: 2026-10-01\nupdated: 2026-11-{1 + number % 28:02d}\n---\n{body}\n",
            encoding="utf-8",
        )
        slugs.append(slug)
        near.append(slug)


def cardvault(*args: str, cwd: Path | None = None) -> None:
    subprocess.run([sys.executable, "-m", "cardvault", *args], check=True, cwd=cwd,
                   stdout=subprocess.DEVNULL)  # fmt: skip


def build(work: Path, size: int) -> Path:
    """The vault of `size` cards (see the module docstring)."""
    root = work / f"vault-{size}"
    if size == 30:
        shutil.copytree(REPO / "sample-vault", root)
        for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "sample vault"]):
            subprocess.run(["git", "-C", str(root), *args], check=True)
        cardvault("--vault", str(root), "maintain", "--json")
        return root
    cardvault("init", str(root))
    if size == 1:
        body = "Cortex 3.1.8 wants the CSRF token as cookie AND header on every POST."
        cardvault("--vault", str(root), "new", "Cortex CSRF Automation", "-c", "infrastructure",
                  "-t", "cortex,csrf", "--body", body)  # fmt: skip
        return root
    generated_vault(root, size)
    for args in (["add", "-A"], ["commit", "-qm", f"{size} generated cards"]):
        subprocess.run(["git", "-C", str(root), *args], check=True)
    return root


def shoot(page: Path, out: Path, width: int, height: int, profile: Path, where: str = "") -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        sys.exit("Chromium is not installed: apt-get install chromium (see .ci/browser)")
    subprocess.run(
        [chromium, *FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}",
         f"--screenshot={out}", page.as_uri() + where],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    if shutil.which("pngquant"):
        subprocess.run(["pngquant", "--nofs", "--force", "--skip-if-larger", "--output", str(out),
                        "64", str(out)], check=False)  # fmt: skip
    print(f"{out.relative_to(REPO) if out.is_relative_to(REPO) else out}: "
          f"{out.stat().st_size // 1024} KB")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "view")
    parser.add_argument("--sizes", default="1,30,300,3000")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cardvault-screens-") as folder:
        work = Path(folder)
        os.environ.update(
            CARDVAULT_HOME=str(work / "home"), GIT_AUTHOR_NAME="screens",
            GIT_AUTHOR_EMAIL="screens@example.invalid", GIT_COMMITTER_NAME="screens",
            GIT_COMMITTER_EMAIL="screens@example.invalid", PYTHONPATH=str(REPO),
        )  # fmt: skip
        for size in (int(s) for s in args.sizes.split(",")):
            root = build(work, size)
            page = work / f"view-{size}.html"
            cardvault("--vault", str(root), "view", "--out", str(page), "--json")
            for width, height in WIDTHS:
                shoot(page, args.out / f"view-{size}-{width}.png", width, height, work / "p")
            if size == 30:
                shoot(page, args.out / "review-30-1280.png", 1280, 1000, work / "p", "#tab=review")
                shoot(page, args.out / "card-30-800.png", 800, 800, work / "p",
                      "#card=postgres-connection-pooling")  # fmt: skip


if __name__ == "__main__":
    main()
