"""Where the shared benchmark data lives: $CARDVAULT_DATA, else the nearest `shared/data` folder
above this checkout (the main checkout and the worktrees sit at different depths)."""

from __future__ import annotations

import os
from pathlib import Path


def shared_data() -> Path:
    """The folder holding scifact-train/, til-jbranchaud/ and the other data sets."""
    if os.environ.get("CARDVAULT_DATA"):
        return Path(os.environ["CARDVAULT_DATA"])
    for parent in Path(__file__).resolve().parents:
        if (parent / "shared" / "data").is_dir():
            return parent / "shared" / "data"
    raise SystemExit("no shared/data folder found above the checkout; set CARDVAULT_DATA")
