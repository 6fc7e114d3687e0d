"""`Progress`, the one shape of a progress report: `progress(stage, done, total)`.

Services that take a while (maintenance, the search index's sync, embedding, an import of
notes) call it as they go; the front ends render it (a bar, an MCP progress notification) and
services never print. `total` 0 means the stage has no known size (loading the model).
"""

from __future__ import annotations

from collections.abc import Callable

#: progress(stage, done, total): what is being done, how far it got, out of how much.
Progress = Callable[[str, int, int], None]
