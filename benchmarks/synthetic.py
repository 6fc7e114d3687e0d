"""Generated vaults of N cards for the speed benchmark (deterministic, reused while present).

Each card has a topic of three words, a category, two or three tags and a body of 60-140 words
drawn from a technical vocabulary, so cards are of realistic size (~100-200 tokens) and keyword
queries match a realistic share of them.
"""

from __future__ import annotations

import random
from pathlib import Path

_VOCABULARY = (
    "api auth token cookie header csrf login session cache redis postgres pool connection "
    "timeout retry backoff queue worker cron deploy rollback docker image build layer "
    "arm64 kubernetes pod node ingress tls certificate dns proxy nginx gateway latency "
    "throughput memory leak profile flame graph python import module package wheel pip "
    "venv lint test fixture flaky race lock mutex thread async await event loop socket "
    "port firewall vpn secret vault key rotation backup restore snapshot disk volume mount "
    "permission user group review merge branch commit hook rebase conflict release version "
    "tag changelog migration schema index query plan join vacuum replica failover alert "
    "metric dashboard log trace span sample budget quota limit rate throttle batch stream "
    "kafka topic partition offset "
)
WORDS = tuple(_VOCABULARY.split())
CATEGORIES = ("infrastructure", "tools", "workflow", "projects", "lessons", "security")
QUERIES = (
    "why does the login POST fail with a csrf error",
    "postgres connection pool exhausted under load",
    "docker image built on arm64 does not run in production",
    "flaky test caused by a race between fixtures",
    "rotate the secret key without downtime",
)


def build_synthetic_vault(root: Path, cards: int, seed: int = 7) -> Path:
    """Write `cards` generated cards under `root` (skipped when already built)."""
    marker = root / ".built"
    if marker.exists():
        return root
    rng = random.Random(seed)
    folder = root / "memory" / "cards"
    folder.mkdir(parents=True, exist_ok=True)
    (root / "cardvault.toml").write_text("", encoding="utf-8")
    for number in range(cards):
        topic_words = rng.sample(WORDS, 3)
        tags = rng.sample(WORDS, rng.randint(2, 3))
        sentences = []
        for _ in range(rng.randint(6, 12)):
            sentence = " ".join(rng.choices(WORDS, k=rng.randint(8, 14)))
            sentences.append(sentence.capitalize() + ".")
        text = (
            f"---\ntopic: {' '.join(topic_words).title()}\n"
            f"category: {rng.choice(CATEGORIES)}\ntags: [{', '.join(tags)}]\n"
            "created: 2026-01-01\nupdated: 2026-01-01\n---\n" + " ".join(sentences) + "\n"
        )
        (folder / f"card-{number:05d}-{'-'.join(topic_words)}.md").write_text(text, "utf-8")
    marker.write_text("ok\n", encoding="utf-8")
    return root
