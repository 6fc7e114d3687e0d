"""How a front end gives a model stored memory: each text quoted with its source, the notices
as one quoted block (context/pack.py's rule, one definition for the context pack and the MCP
server). Not imported by the app's package: the pack's module loads the tokenizer's."""

from __future__ import annotations

from cardvault.context.pack import NOTICES_SOURCE, PREAMBLE, quoted, quoted_notices

__all__ = ["NOTICES_SOURCE", "PREAMBLE", "quoted", "quoted_notices"]
