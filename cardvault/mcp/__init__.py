"""`cardvault mcp`: the vault as an MCP server over stdio, on the official `mcp` SDK.

The only package that imports the SDK. The server holds one app `Session` on the vault;
`turns` keeps what is the connection's own (the turns its tools take, its background threads);
`tools` are the model's tools, each a call of the Session method the CLI command calls;
`resources` exposes MEMORY.md, the learned rules, each card and each day's log; `server`
assembles them; `transport` bounds every message read over stdio.
"""
