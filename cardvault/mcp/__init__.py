"""`cardvault mcp`: the vault as an MCP server over stdio, on the official `mcp` SDK.

The only package that imports the SDK. The server holds one app `Session` on the vault, and
each tool calls the Session method the CLI command calls; `turns` keeps what is the
connection's own (the turns its tools take, its background threads).
"""
