"""`cardvault export` / `import`: exact round trips, idempotence, validation, the secret guard,
and (with the real model) the counts on a constructed overlap."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import git_log, run_cli, snapshot
from tests.support.insight import card_files, log_files

TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
NOW = {"CARDVAULT_NOW": "2026-11-30T09:15"}


def run(root: Path, *args: str):
    return run_cli(["--vault", str(root), *args], env=NOW)


def export(root: Path, target: Path, *extra: str) -> dict[str, Any]:
    result = run(root, "export", str(target), *extra)
    assert result.exit_code == 0, result.output
    return json.loads(target.read_text(encoding="utf-8"))


def import_json(root: Path, source: Path, *extra: str) -> dict[str, Any]:
    result = run(root, "import", str(source), "--json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def card(slug: str, body: str, topic: str | None = None, tags: str = "test") -> str:
    topic = topic or slug.replace("-", " ").title()
    return (
        f"---\ntopic: {topic}\ncategory: tools\ntags: [{tags}]\ncreated: 2026-03-19\n"
        f"updated: 2026-03-19\n---\n{body}\n"
    )


def test_export_shape(sample_vault: Path, tmp_path: Path) -> None:
    data = export(sample_vault, tmp_path / "out.json")
    assert (data["format"], data["version"], data["exported"]) == (
        "cardvault-export",
        1,
        "2026-11-30T09:15:00",
    )
    files = card_files(sample_vault) + card_files(sample_vault, "archive")
    assert [c["path"] for c in data["cards"]] == [
        p.relative_to(sample_vault).as_posix() for p in files
    ]
    for item, path in zip(data["cards"], files, strict=True):
        assert item["text"].encode("utf-8") == path.read_bytes()
        assert item["body"] in item["text"] and item["meta"]["topic"]
    assert data["rules"] and all("memory/cards/" in r for r in data["rules"])
    assert "logs" not in data
    again = run(sample_vault, "export", str(tmp_path / "out.json"))
    assert again.exit_code == 1 and "--force" in again.stderr


def test_export_then_import_into_an_empty_vault_is_byte_for_byte(
    sample_vault: Path, vault_path: Path, tmp_path: Path
) -> None:
    data = export(sample_vault, tmp_path / "all.json", "--logs")
    assert len(data["logs"]) == len(log_files(sample_vault))
    outcome = import_json(vault_path, tmp_path / "all.json")
    assert outcome["counts"]["new"] == len(data["cards"])
    assert outcome["counts"]["merged"] == outcome["counts"]["conflicting"] == 0
    source, copy = snapshot(sample_vault), snapshot(vault_path)
    for rel, data_bytes in source.items():
        if rel.startswith("memory/"):
            assert copy.get(rel) == data_bytes, rel
    assert git_log(vault_path)[0].startswith(
        "import: 34 new" if len(data["cards"]) == 34 else "import: "
    )
    assert len(git_log(vault_path)) == 2  # init + one import commit
    rules = [
        line
        for line in (vault_path / "AGENTS.md").read_text().splitlines()
        if "memory/cards/" in line
    ]
    assert rules == data["rules"]


def test_import_into_the_same_vault_changes_nothing(sample_vault: Path, tmp_path: Path) -> None:
    data = export(sample_vault, tmp_path / "all.json", "--logs")
    before, commits = snapshot(sample_vault), git_log(sample_vault)
    outcome = import_json(sample_vault, tmp_path / "all.json")
    assert outcome["counts"]["skipped"] == len(data["cards"])
    assert outcome["counts"]["log_entries"] == 0 and outcome["commit"] is None
    assert snapshot(sample_vault) == before and git_log(sample_vault) == commits


def bad_file(tmp_path: Path, vault_path: Path) -> Path:
    good = card("good-card", "A fine card about nothing in particular.")
    data = {
        "format": "something-else",
        "version": 2,
        "cards": [
            {"path": "memory/cards/good-card.md", "text": good},
            {"path": "memory/cards/no-text.md", "meta": {}},
            {"path": "memory/cards/bad-yaml.md", "text": "---\ntopic: [unclosed\n---\nBody\n"},
            {"path": "../escape.md", "text": good},
            {
                "path": "memory/cards/odd-category.md",
                "text": card("x", "b").replace("tools", "cooking"),
            },
        ],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_a_bad_file_is_refused_with_every_problem_listed(vault_path: Path, tmp_path: Path) -> None:
    before = snapshot(vault_path)
    result = run(vault_path, "import", str(bad_file(tmp_path, vault_path)))
    assert result.exit_code == 1
    err = " ".join(result.stderr.split())
    for expected in (
        "format: is 'something-else', expected 'cardvault-export'",
        "version: 2 is not supported",
        "card 2 (memory/cards/no-text.md): missing 'text'",
        "card 3 (memory/cards/bad-yaml.md): line 3: bad frontmatter: invalid YAML",
        "card 4 (../escape.md): 'path' must be",
        "card 5 (memory/cards/odd-category.md): unknown category 'cooking'",
        "--partial imports the 1 valid card(s)",
    ):
        assert expected in err, expected
    assert snapshot(vault_path) == before


def test_partial_imports_the_compatible_part(vault_path: Path, tmp_path: Path) -> None:
    outcome = import_json(vault_path, bad_file(tmp_path, vault_path), "--partial")
    assert outcome["counts"]["new"] == 1 and outcome["counts"]["invalid"] == 6
    assert (vault_path / "memory" / "cards" / "good-card.md").is_file()
    assert not (tmp_path / "escape.md").exists()


def test_not_json_names_the_line(vault_path: Path, tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "format": "cardvault-export",\n  oops\n}\n')
    result = run(vault_path, "import", str(path))
    assert result.exit_code == 1 and "broken.json:3: not JSON" in result.stderr


def export_of(tmp_path: Path, cards: dict[str, str], rules: list[str] | None = None) -> Path:
    data = {
        "format": "cardvault-export",
        "version": 1,
        "exported": "2026-11-30T09:15:00",
        "cards": [
            {"path": f"memory/cards/{slug}.md", "text": text} for slug, text in cards.items()
        ],
        "rules": rules or [],
    }
    path = tmp_path / "in.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_secrets_are_refused_or_redacted(vault_path: Path, tmp_path: Path) -> None:
    source = export_of(tmp_path, {"leaky": card("leaky", f"Deploy token is {TOKEN} for now.")})
    refused = run(vault_path, "import", str(source))
    assert refused.exit_code == 1 and "card 1 (memory/cards/leaky.md)" in refused.stderr
    assert (
        TOKEN not in refused.stderr and not (vault_path / "memory" / "cards" / "leaky.md").exists()
    )
    outcome = import_json(vault_path, source, "--redact")
    assert outcome["counts"]["new"] == 1
    text = (vault_path / "memory" / "cards" / "leaky.md").read_text()
    assert TOKEN not in text and "Deploy token is" in text


def test_a_secret_in_a_rule_line_is_refused(vault_path: Path, tmp_path: Path) -> None:
    source = export_of(tmp_path, {}, rules=[f"- Use token {TOKEN} for deploys."])
    refused = run(vault_path, "import", str(source))
    assert refused.exit_code == 1 and "rule 1" in refused.stderr and TOKEN not in refused.stderr
    assert TOKEN not in (vault_path / "AGENTS.md").read_text()


def test_dry_run_writes_nothing(vault_path: Path, tmp_path: Path) -> None:
    source = export_of(tmp_path, {"alpha": card("alpha", "Alpha body.")})
    before, commits = snapshot(vault_path), git_log(vault_path)
    outcome = import_json(vault_path, source, "--dry-run")
    assert outcome["counts"]["new"] == 1 and outcome["dry_run"] is True
    assert snapshot(vault_path) == before and git_log(vault_path) == commits


def test_slug_taken_by_a_different_card_is_renamed(vault_path: Path, tmp_path: Path) -> None:
    first = export_of(tmp_path, {"shared-name": card("shared-name", "About bread baking.")})
    import_json(vault_path, first)
    # The vault's card moves to the archive: its slug stays taken, and with no live card to
    # compare with, no model is needed.
    live = vault_path / "memory" / "cards" / "shared-name.md"
    archived = vault_path / "memory" / "archive" / "shared-name.md"
    archived.parent.mkdir(parents=True, exist_ok=True)
    live.rename(archived)
    second = export_of(tmp_path, {"shared-name": card("shared-name", "About ocean tides.")})
    outcome = import_json(vault_path, second)
    assert outcome["counts"]["new"] == 1
    assert (vault_path / "memory" / "cards" / "shared-name-2.md").read_text() == card(
        "shared-name", "About ocean tides."
    )


def test_hand_written_rules_are_added_once(vault_path: Path, tmp_path: Path) -> None:
    source = export_of(tmp_path, {}, rules=["- Ask before deleting branches."])
    import_json(vault_path, source)
    agents = (vault_path / "AGENTS.md").read_text()
    assert agents.count("- Ask before deleting branches.") == 1
    commits = git_log(vault_path)
    assert import_json(vault_path, source)["commit"] is None and git_log(vault_path) == commits


# --- with the real model: a constructed overlap with known answers -------------------------

BASE = {
    "npm-ci-in-pipelines": (
        "Always use `npm ci` in CI pipelines. It installs exactly what package-lock.json "
        "lists and fails when the lockfile and package.json disagree. "
        "It also deletes node_modules first."
    ),
    "postgres-lock-timeout": (
        "Every Postgres migration sets `lock_timeout` to 5s before an ALTER TABLE. "
        "Without it, the ALTER waits behind a long query and blocks every other query on the table."
    ),
    "nginx-upload-limit": (
        "Nginx rejects request bodies over 1 MB with 413 Request Entity Too Large. "
        "Raise `client_max_body_size` in the ingress annotation for the upload service."
    ),
    "pytest-temp-dirs": (
        "Use the `tmp_path` fixture for files in tests. Each test gets its own folder, "
        "so parallel runs under pytest-xdist never share files."
    ),
    "utc-timestamps": (
        "Store every timestamp as UTC `timestamptz`. Convert to local time only when "
        "displaying it, never before writing it to the database."
    ),
    "redis-key-expiry": (
        "Rate-limit keys in Redis get an expiry with `SET key value EX 60`. Keys "
        "without expiry pile up until Redis runs out of memory."
    ),
}


@pytest.mark.slow
def test_overlap_counts_match_the_construction(vault_path: Path, tmp_path: Path) -> None:
    for slug, body in BASE.items():
        (vault_path / "memory" / "cards" / f"{slug}.md").write_text(card(slug, body))
    assert run(vault_path, "check").exit_code in (0, 1)
    from tests.support.insight import git

    git(vault_path, "add", "-A")
    git(vault_path, "commit", "-qm", "cards")
    data = export(vault_path, tmp_path / "base.json")
    items = {Path(c["path"]).stem: c for c in data["cards"]}
    items["npm-ci-in-pipelines"]["text"] = card(
        "npm-ci-in-pipelines", BASE["npm-ci-in-pipelines"].replace("Always use", "Never use")
    )  # contradiction
    items["postgres-lock-timeout"]["text"] = card(
        "postgres-lock-timeout",
        BASE["postgres-lock-timeout"] + " Build indexes CONCURRENTLY as well.",
    )  # same card, one new fact
    items["nginx-upload-limit"]["text"] = card(
        "nginx-upload-limit", BASE["nginx-upload-limit"] + " The default proxy body limit is 1m."
    )
    renamed = dict(items["pytest-temp-dirs"], path="memory/cards/pytest-tmp-path-fixture.md")
    renamed["text"] = card(
        "pytest-tmp-path-fixture",
        BASE["pytest-temp-dirs"] + " Prefer it over the older `tmpdir`.",
        topic="Pytest tmp_path Fixture",
    )  # near duplicate under another slug
    new_cards = {
        "kafka-consumer-lag": (
            "Consumer lag above 10,000 messages on the ingest topic pages on-call. "
            "Check the consumer group with `kafka-consumer-groups --describe`."
        ),
        "terraform-state-locks": (
            "Terraform state lives in S3 with a DynamoDB lock table. A crashed "
            "apply leaves the lock; release it with `terraform force-unlock ID`."
        ),
    }
    cards = [
        items["npm-ci-in-pipelines"],
        items["postgres-lock-timeout"],
        items["nginx-upload-limit"],
        renamed,
        items["utc-timestamps"],  # unchanged: skipped
        items["redis-key-expiry"],  # unchanged: skipped
        *({"path": f"memory/cards/{s}.md", "text": card(s, b)} for s, b in new_cards.items()),
    ]
    source = tmp_path / "overlap.json"
    source.write_text(json.dumps(dict(data, cards=cards)), encoding="utf-8")
    npm_before = (vault_path / "memory" / "cards" / "npm-ci-in-pipelines.md").read_bytes()

    outcome = import_json(vault_path, source)
    assert outcome["counts"] | {"invalid": 0, "log_entries": 0, "logs": 0} == {
        "new": 2, "merged": 3, "skipped": 2, "conflicting": 1, "invalid": 0, "log_entries": 0,
        "logs": 0,
    }  # fmt: skip
    assert (
        git_log(vault_path)[0]
        == "import: 2 new, 3 merged, 2 skipped, 1 conflicting from overlap.json"
    )
    cards_dir = vault_path / "memory" / "cards"
    assert (cards_dir / "npm-ci-in-pipelines.md").read_bytes() == npm_before
    postgres = (cards_dir / "postgres-lock-timeout.md").read_text()
    assert postgres.startswith(
        card("postgres-lock-timeout", BASE["postgres-lock-timeout"]).rstrip("\n")
    )
    assert (
        "CONCURRENTLY" in postgres and "aliases" not in postgres and "merged_from" not in postgres
    )
    pytest_card = (cards_dir / "pytest-temp-dirs.md").read_text()
    assert "pytest-tmp-path-fixture" in pytest_card and "tmpdir" in pytest_card
    assert not (cards_dir / "pytest-tmp-path-fixture.md").exists()
    for slug, body in new_cards.items():
        assert (cards_dir / f"{slug}.md").read_text() == card(slug, body)

    commits = git_log(vault_path)
    again = import_json(vault_path, source)
    assert again["counts"]["new"] == again["counts"]["merged"] == 0
    assert again["counts"]["conflicting"] == 1 and again["commit"] is None
    assert git_log(vault_path) == commits


def test_one_commit_holds_more_paths_than_a_command_line(vault_path: Path) -> None:
    from cardvault import history
    from cardvault.vault.layout import open_vault_at
    from tests.support.insight import git

    folder = vault_path / "memory" / "cards"
    paths = []
    for number in range(history.MANY_PATHS + 50):
        path = folder / f"c-{number:05d}-{'x' * 80}.md"
        path.write_text(card(f"c-{number}", "Body."), encoding="utf-8")
        paths.append(path)
    (vault_path / "unrelated.txt").write_text("not part of the commit\n")
    message = "import: many\n\n" + "\n".join(f"imported {p.name}" for p in paths) * 2
    assert len(message) > 200_000  # longer than one command-line argument may be
    result = history.commit(open_vault_at(vault_path), message, paths)
    assert result.recorded
    assert git(vault_path, "log", "-1", "--format=%B").strip() == message.strip()
    from tests.support.insight import git

    committed = git(vault_path, "show", "--name-only", "--format=", "HEAD").split()
    assert len(committed) == len(paths)
    assert git(vault_path, "status", "--porcelain").strip() == "?? unrelated.txt"
    again = history.commit(open_vault_at(vault_path), "nothing", paths)
    assert not again.recorded and again.note == "nothing to commit"
