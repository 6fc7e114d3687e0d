"""What the tests share besides fixtures: the CLI runner, vault builders, attackers' remotes,
kill harnesses. Fixtures stay in tests/conftest.py; helpers live here, one module per area."""
