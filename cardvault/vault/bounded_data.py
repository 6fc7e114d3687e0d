"""JSON and TOML read as the standard library reads them, nesting too deep included.

`json.loads` and `tomllib.loads` recurse once per level: 100,000 nested brackets in a file a
vault or a project ships (the review queue, `cardvault.toml`, `.mcp.json`, a lock file) make
them raise RecursionError, which no handler of bad input expects, and the command ended in a
traceback. Here that depth is each parser's own decode error (`json.JSONDecodeError`,
`tomllib.TOMLDecodeError`, both ValueErrors), so every caller's handler for invalid text
covers it with the message it already gives.
"""

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
