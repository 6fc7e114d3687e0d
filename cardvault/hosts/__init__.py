"""Agent hosts (Claude Code, Codex, Cursor): where each keeps its MCP servers and hooks, how
`cardvault install` edits those files (merged, shown as a diff, undone byte for byte), what a
host sends a hook and expects back, and how its session transcript is read. `hosts` holds the
table of hosts; each other module owns one step (`plan`, `apply`, `state`, `payload`, ...).
"""
