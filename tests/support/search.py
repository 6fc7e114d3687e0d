"""Helpers shared by the search tests. The indexed fixture vault is built once per run by the
session fixture `search_vault_template` (tests/conftest.py); each test copies it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "search-vault"


def copy_vault(source: Path, target: Path) -> Path:
    """A copy of a vault (with its .cardvault index) at `target`; mtimes are kept."""
    shutil.copytree(source, target)
    return target


def write_card(root: Path, slug: str, topic: str, body: str, category: str = "tools") -> Path:
    """Write a valid card `memory/cards/<slug>.md`."""
    path = root / "memory" / "cards" / f"{slug}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\ntopic: {topic}\ncategory: {category}\ntags: [test]\n"
        f"created: 2026-03-19\nupdated: 2026-03-19\n---\n{body}\n",
        encoding="utf-8",
    )
    return path


def warm_and_fresh(
    root: Path, queries: Iterable[str]
) -> Iterator[tuple[str, str, list[tuple[str, float]], list[tuple[str, float]]]]:
    """For each query and mode: the hits (path, score) of a warm, watching handle (asked twice,
    the second answer kept) and of a fresh search — which must be the same (`same_hits`)."""
    from cardvault import open_vault
    from cardvault.search.engine import search

    with open_vault(root, watch=True) as handle:
        for query in queries:
            for mode in ("hybrid", "semantic", "keyword"):
                handle.search(query, mode=mode)
                warm = [(h.path, h.score) for h in handle.search(query, mode=mode)]
                fresh = search(handle.vault, query, mode=mode).results
                yield query, mode, warm, [(h.path, h.score) for h in fresh]


#: How far a warm and a fresh search's scores of one hit may be apart: a long-lived process
#: loads the model with its weights repacked (search/onnx.py), and the query's vector then
#: differs from a one-shot search's in the last float digits (about 1e-7).
SCORE_PRECISION = 1e-5


def same_hits(warm: list[tuple[str, float]], fresh: list[tuple[str, float]]) -> bool:
    """The same hits in the same order, each scored the same to `SCORE_PRECISION`."""
    return [path for path, _ in warm] == [path for path, _ in fresh] and all(
        abs(a - b) <= SCORE_PRECISION for (_, a), (_, b) in zip(warm, fresh, strict=True)
    )


#: Embeds the texts of a JSON file with sentence-transformers and saves the rows (.npy).
_REFERENCE = """
import json, sys
import numpy as np
from pathlib import Path
from cardvault.search.embedder import SentenceTransformerEmbedder
from cardvault.search.model import resolve_model
texts = json.loads(Path(sys.argv[2]).read_text(encoding="utf-8"))
rows = SentenceTransformerEmbedder(resolve_model(sys.argv[1], Path("."))).embed(texts)
np.save(sys.argv[3], rows)
"""


def reference_vectors(model: str, texts: list[str], folder: Path) -> np.ndarray:
    """`texts` embedded by sentence-transformers (the reference the ONNX copy must match), in a
    process of its own: torch peaks near 1 GB and would stay in the test process."""
    import numpy as np

    given, rows = folder / "texts.json", folder / "rows.npy"
    given.write_text(json.dumps(texts), encoding="utf-8")
    subprocess.run([sys.executable, "-c", _REFERENCE, model, str(given), str(rows)], check=True)
    return np.load(rows)
