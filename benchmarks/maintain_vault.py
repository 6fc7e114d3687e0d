"""Generated vaults for the maintenance benchmark: N distinct cards and a year of daily logs.

Card bodies are real technical English: docstrings of the Python standard library and of
installed packages (numpy, sympy, scipy, networkx, ...), read with `ast` (nothing imported).
Word-salad cards would not do: drawn from one vocabulary they sit at cosine ~0.7 to each other
and everything would merge. The build:

1. writes N + 50 % cards from the docstrings (topic from the function name, a category, two
   tags, `updated` dates over the last 14 months, so about a tenth are stale);
2. indexes them (`cardvault index`: this is the embedding time, reported on its own);
3. removes cards that are already near-duplicates (cosine ≥ the merge threshold, read from that
   index) and trims to N, so the only duplicates are the ones planted next:
4. N/100 near-duplicate cards (a card's sentences reordered, one dropped, a new topic) and
   N/1000 contradicting ones ("Always use `x`" / "Never use `x`");
5. a daily log for every day of 2026: a standup entry (no signal), a lesson restating an
   existing card, a new lesson, plus 20 lessons recurring three times and a structured
   correction each month;
6. commits, and indexes again, so the benchmark's own run starts with an up-to-date index.

Everything is deterministic (seeded) and reused while `<root>.json` (the build facts) exists.
"""

from __future__ import annotations

import ast
import datetime as dt
import json
import random
import re
import shutil
from pathlib import Path

PACKAGES = (
    "numpy", "sympy", "scipy", "networkx", "sklearn", "hypothesis", "mpmath", "mypy", "pip",
    "setuptools", "huggingface_hub", "_pytest", "jinja2", "git", "rich", "click", "torch",
    "transformers", "sentence_transformers", "onnxruntime", "pydantic", "pygments", "fsspec",
    "urllib3",
)  # fmt: skip
CORRECTION = (
    "Domain: operations\nMistake: ran the cleanup job with the prod context.\n"
    "Fix: restored the rows from the backup.\n"
    "Prevention: pass the context explicitly on every run.\nSeverity: high"
)
CATEGORIES = ("tools", "infrastructure", "workflow", "projects", "lessons", "security", "models")
YEAR = 2026
Doc = tuple[str, str, str]  # module, name, docstring


def collect_docstrings(cache: Path) -> list[Doc]:
    """Distinct docstrings of 25+ words (one per function name and per opening), cached."""
    if cache.exists():
        return [tuple(d) for d in json.loads(cache.read_text(encoding="utf-8"))]  # type: ignore[misc]
    import sysconfig

    site = Path(sysconfig.get_paths()["purelib"])
    roots = [Path(sysconfig.get_paths()["stdlib"])] + [site / name for name in PACKAGES]
    names: set[str] = set()
    heads: set[str] = set()
    docs: list[Doc] = []
    for root in roots:
        for path in sorted(root.rglob("*.py")) if root.is_dir() else []:
            parts = path.relative_to(root).parts
            if {"test", "tests", "testing", "site-packages", "idlelib"} & set(parts):
                continue
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for node in ast.walk(tree):
                if not isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
                    continue
                text = " ".join((ast.get_docstring(node) or "").split())
                head = " ".join(text.split()[:6]).lower()
                if node.name.startswith("_") or len(text.split()) < 25:
                    continue
                if node.name.lower() in names or head in heads:
                    continue
                names.add(node.name.lower())
                heads.add(head)
                docs.append((path.stem, node.name, text))
    cache.write_text(json.dumps(docs), encoding="utf-8")
    return docs


def sentences(text: str, limit: int = 120) -> list[str]:
    """The docstring's first `limit` words as sentences (backticks and doctest marks dropped)."""
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text)  # a few docstrings hold control characters
    words = re.sub(r"[`>]{2,}|\.\.\s", " ", text).replace("`", "").split()[:limit]
    found = re.split(r"(?<=[.!?])\s+(?=[A-Z])", " ".join(words))
    return [s.strip() for s in found if len(s.split()) >= 3]


def topic_of(doc: Doc) -> str:
    """A readable topic from a function name: `parse_args` in argparse: "Parse Args (argparse)"."""
    words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", doc[1]).replace("_", " ").split()
    return f"{' '.join(w.capitalize() for w in words)} ({doc[0]})"


def card_text(
    doc: Doc, rng: random.Random, topic: str | None = None, body: str | None = None
) -> str:
    """A card file for `doc`."""
    updated = dt.date(YEAR, 12, 31) - dt.timedelta(
        days=rng.choice([rng.randint(0, 170)] * 9 + [rng.randint(200, 420)])
    )
    created = updated - dt.timedelta(days=rng.randint(0, 60))
    tags = ", ".join(dict.fromkeys(_tag(t) for t in (doc[0], doc[1].split("_")[0])))
    text = body or " ".join(sentences(doc[2]))
    return (
        f"---\ntopic: {json.dumps(topic or topic_of(doc))}\ncategory: {rng.choice(CATEGORIES)}\n"
        f"tags: [{tags}]\ncreated: {created}\nupdated: {updated}\n---\n{text}\n"
    )


def _tag(word: str) -> str:
    tag = re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-")
    return (
        "misc" if tag in ("", "yes", "no", "on", "off", "true", "false", "null", "y", "n") else tag
    )


def slug_of(doc: Doc, number: int) -> str:
    """A unique slug."""
    base = re.sub(r"[^a-z0-9]+", "-", f"{doc[0]}-{doc[1]}".lower())[:50].strip("-")
    return f"{base}-{number}"


def write_cards(root: Path, docs: list[Doc], rng: random.Random) -> list[tuple[str, Doc]]:
    """Write one card per doc; return (slug, doc) in order."""
    folder = root / "memory" / "cards"
    written = []
    for number, doc in enumerate(docs):
        slug = slug_of(doc, number)
        (folder / f"{slug}.md").write_text(card_text(doc, rng), encoding="utf-8")
        written.append((slug, doc))
    return written


def plant_duplicates(
    root: Path, cards: list[tuple[str, Doc]], rng: random.Random
) -> dict[str, int]:
    """N/100 near-duplicates and N/1000 contradicting pairs; returns how many of each."""
    folder = root / "memory" / "cards"
    chosen = rng.sample(cards, max(1, len(cards) // 100) + max(1, len(cards) // 1000))
    duplicates = chosen[: max(1, len(cards) // 100)]
    for slug, doc in duplicates:
        parts = sentences(doc[2])
        if len(parts) > 2:
            parts.pop(rng.randrange(len(parts)))
        rng.shuffle(parts)
        text = card_text(doc, rng, topic=f"Notes on {topic_of(doc)}", body=" ".join(parts))
        (folder / f"{slug}-notes.md").write_text(text, encoding="utf-8")
    contradictions = chosen[len(duplicates) :]
    for slug, doc in contradictions:
        tool = doc[1].lower()
        body = " ".join(sentences(doc[2]))
        for suffix, rule in (
            ("always", f"Always use `{tool}` here."),
            ("never", f"Never use `{tool}` here."),
        ):
            path = folder / f"{slug}-{suffix}.md"
            path.write_text(
                card_text(doc, rng, topic=f"{topic_of(doc)} ({suffix})", body=f"{rule} {body}"),
                "utf-8",
            )
        (folder / f"{slug}.md").unlink()
    return {"near_duplicates": len(duplicates), "contradictions": len(contradictions)}


def write_logs(
    root: Path, cards: list[tuple[str, Doc]], spare: list[Doc], rng: random.Random
) -> int:
    """A daily log for every day of YEAR; returns the number of entries with a signal."""
    recurring = spare[:20]
    fresh = iter(spare[20:])
    schedule: dict[dt.date, list[Doc]] = {}
    for doc in recurring:
        for _ in range(3):
            day = dt.date(YEAR, 1, 1) + dt.timedelta(days=rng.randint(0, 364))
            schedule.setdefault(day, []).append(doc)
    signals = 0
    day = dt.date(YEAR, 1, 1)
    while day.year == YEAR:
        _slug, doc = rng.choice(cards)
        entries = [
            ("09:00", "Standup", f"Worked on {doc[0]}; reviewed two PRs. Nothing new to keep."),
            ("11:30", f"{topic_of(doc)} again", f"Lesson: {sentences(doc[2])[0]}"),
        ]
        new = next(fresh, None)
        if new is not None:
            entries.append(("15:00", topic_of(new), f"Gotcha: {' '.join(sentences(new[2])[:2])}"))
        for number, doc_again in enumerate(schedule.get(day, [])):
            entries.append(
                (
                    f"16:{10 + number:02d}",
                    f"{topic_of(doc_again)} bit us",
                    f"Lesson: {sentences(doc_again[2])[0]}",
                )
            )
        if day.day == 15:
            entries.append(
                (
                    "17:30",
                    "Ran the job against prod",
                    CORRECTION,
                )
            )
        signals += len(entries) - 1
        text = f"# {day}\n" + "".join(f"\n## {t} — {title}\n{body}\n" for t, title, body in entries)
        (root / "memory" / f"{day}.md").write_text(text, encoding="utf-8")
        day += dt.timedelta(days=1)
    return signals


def build_vault(root: Path, size: int, pool: list[Doc], seed: int = 11) -> dict[str, object]:
    """Build (or reuse) the benchmark vault of `size` cards at `root`; returns build facts."""
    facts_file = root.parent / f"{root.name}.json"
    if facts_file.exists():
        return json.loads(facts_file.read_text(encoding="utf-8"))
    import time

    from cardvault import history, open_vault
    from cardvault.app.vaults import init_vault
    from cardvault.vault.layout import open_vault_at

    if root.exists():
        shutil.rmtree(root)
    rng = random.Random(seed)
    docs = list(pool)
    rng.shuffle(docs)
    spare, docs = docs[:400], docs[400 : 400 + int(size * 1.5)]
    init_vault(root)
    cards = write_cards(root, docs, rng)
    print(f"  indexing {len(cards):,} cards (the model: ~20-27 texts/s here)", flush=True)
    started, cpu = time.perf_counter(), time.process_time()
    report = open_vault(root).index()
    print(f"  indexed in {time.perf_counter() - started:.0f} s", flush=True)
    embed_seconds, embed_cpu = time.perf_counter() - started, time.process_time() - cpu
    cards = _drop_near_duplicates(open_vault_at(root), cards, size)
    planted = plant_duplicates(root, cards, rng)
    signals = write_logs(root, cards, spare, rng)
    history.commit(open_vault_at(root), "benchmark vault", None)
    print("  indexing the planted cards and the year of logs", flush=True)
    started, cpu = time.perf_counter(), time.process_time()
    second = open_vault(root).index()
    facts: dict[str, object] = {
        "cards": len(list((root / "memory" / "cards").glob("*.md"))),
        "embedded_at_build": report.embedded + second.embedded,
        "embed_seconds": round(embed_seconds + time.perf_counter() - started, 1),
        "embed_cpu_seconds": round(embed_cpu + time.process_time() - cpu, 1),
        "signal_entries": signals,
        **planted,
    }
    facts_file.write_text(json.dumps(facts), encoding="utf-8")
    return facts


def _drop_near_duplicates(  # type: ignore[no-untyped-def]
    vault, cards: list[tuple[str, Doc]], size: int
) -> list[tuple[str, Doc]]:
    """Remove cards at cosine ≥ 0.80 (the merge threshold) to an earlier one (vectors from the
    index), so that only the planted pairs are duplicates; keep `size`."""
    from cardvault.maintain.calibration import constants_for
    from cardvault.maintain.similarity import Embeddings, pairs_above
    from cardvault.maintain.similarity import card_text as embed_text
    from cardvault.vault.read import read_card

    embeddings = Embeddings(vault)
    parsed = [read_card(vault.card_path(slug)) for slug, _ in cards]
    vectors = embeddings.vectors([embed_text(c) for c in parsed])
    drop = {j for _i, j, _s in pairs_above(vectors, constants_for(vault.config).merge_threshold)}
    kept = [c for n, c in enumerate(cards) if n not in drop]
    for slug, _ in [c for n, c in enumerate(cards) if n in drop] + kept[size:]:
        vault.card_path(slug).unlink()
    return kept[:size]
