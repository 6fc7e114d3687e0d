"""`cardvault mcp`: the vault as an MCP server over stdio, on the official `mcp` SDK.

The only package that imports the SDK. `session` holds the vault, its warm search handle and the
locks; `tools` are the model's tools, each a thin call of the same service the CLI command
calls; `resources` exposes MEMORY.md, the learned rules, each card and each day's log;
`server` assembles them; `registration` prints the snippet that registers the server with an
agent host.
"""
