"""How a front end gives a model stored memory: each text quoted with its source, the notices
as one quoted block (context/pack.py's rule, one definition for the context pack and the MCP
server). Apart from the app's package, which need not load the pack's module to start."""

from __future__ import annotations

from cardvault.context.pack import NOTICES_SOURCE, PREAMBLE, quoted, quoted_notices

__all__ = ["NOTICES_SOURCE", "PREAMBLE", "quoted", "quoted_notices"]
