"""JSON and TOML read as the standard library reads them, nesting too deep included.

`json.loads` and `tomllib.loads` recurse once per level, so 100,000 nested brackets in a file a
vault or project ships raise RecursionError, which no handler of bad input expects. Here that
depth is each parser's own decode error (a ValueError), which every caller already handles."""

from __future__ import annotations

import json
import tomllib
from typing import Any

TOO_DEEP = "nested too deeply"


def json_loads(text: str | bytes) -> Any:
    """`json.loads(text)`; JSONDecodeError (at the text's start) for nesting too deep."""
    try:
        return json.loads(text)
    except RecursionError:
        shown = text if isinstance(text, str) else ""
        raise json.JSONDecodeError(TOO_DEEP, shown, 0) from None


def toml_loads(text: str) -> dict[str, Any]:
    """`tomllib.loads(text)`; TOMLDecodeError for nesting too deep."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise tomllib.TOMLDecodeError(TOO_DEEP) from None
