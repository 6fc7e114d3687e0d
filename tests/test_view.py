"""`cardvault view`: the page's data model, hostile card text kept inert, where the page may be
written, and the page itself in a real headless Chromium (it draws every card, filters by
title, opens a card, and a screenshot of its graph is not blank)."""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import html
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from cardvault.insight.card_html import card_html
from cardvault.insight.stats import vault_stats
from cardvault.insight.view import vault_view
from cardvault.insight.view_html import render_page
from cardvault.vault.layout import open_vault_at
from tests.support.cli import run_cli, snapshot
from tests.support.insight import card_files, frontmatter, git
from tests.support.machine import scaled
from tests.support.maintain import ask_cross_project
from tests.support.view import (
    EVIDENCE_OF_EVERY_KIND,
    RAW_EVIDENCE,
    WINDOW,
    DevTools,
    ask_every_kind,
    body_data,
    dump_dom,
    inked_pixels,
    parse_tags,
    read_png,
    screenshot,
)

TODAY = dt.date(2026, 12, 1)
HOSTILE = """---
topic: "</script><script>document.body.dataset.pwned='topic'</script>"
category: tools
tags: [hostile]
aliases: ["<img src=x onerror=document.body.dataset.pwned='alias'>"]
updated: 2026-11-30
---
<script>document.body.dataset.pwned = 'body'</script>
<img src=x onerror="document.body.dataset.pwned='img'">
[click me](javascript:document.body.dataset.pwned='link')
[or me](JaVaScRiPt:alert(1)) [or this](data:text/html,<script>alert(1)</script>)
<a href="javascript:alert(1)">raw anchor</a>
[[x" onmouseover="document.body.dataset.pwned='wiki']]
<iframe src="https://example.com/frame"></iframe>
![tracker](https://example.com/pixel.png)
<style>body { display: none }</style>
<!-- </script> -->
"""


def _hostile_vault(root: Path) -> Path:
    (root / "memory" / "cards" / "hostile-card.md").write_text(HOSTILE, encoding="utf-8")
    return root


def _activity(meta: dict) -> dt.date | None:
    dates = [meta[k] for k in ("updated", "last_used") if isinstance(meta.get(k), dt.date)]
    return max(dates) if dates else meta.get("created")


# ---- the data model ----


def test_view_holds_every_card_marked_as_the_files_say(sample_vault: Path) -> None:
    vault = open_vault_at(sample_vault)
    view = vault_view(vault, TODAY)
    live, archived = card_files(sample_vault), card_files(sample_vault, "archive")
    by_path = {c.path: c for c in view.cards}
    assert sorted(by_path) == sorted(
        p.relative_to(sample_vault).as_posix() for p in live + archived
    )
    cutoff = TODAY - dt.timedelta(days=vault.config.archive_days)
    for path in live + archived:
        meta, card = frontmatter(path), by_path[path.relative_to(sample_vault).as_posix()]
        assert card.topic == meta["topic"] and card.tags == tuple(meta.get("tags") or ())
        assert card.archived == (path in archived)
        assert card.promoted == (meta.get("status") == "promoted")
        last = _activity(meta)
        expect_stale = (
            path in live and meta.get("status") != "promoted" and last is not None and last < cutoff
        )
        assert bool(card.stale) == expect_stale, card.path
    assert sum(c.promoted for c in view.cards) >= 1  # the sample has a promoted card
    assert any(c.stale for c in view.cards)  # the sample has a card untouched for months
    # the figures are `stats`' own, from the same read
    assert view.stats == vault_stats(vault)
    # links: every [[target]] of a card naming another card by slug or alias
    assert {(link.source, link.target) for link in view.graph.links} == _independent_links(
        live + archived
    )


def _independent_links(paths: list[Path]) -> set[tuple[str, str]]:
    metas = {p.stem: frontmatter(p) for p in paths}
    names = {a: slug for slug, m in metas.items() for a in m.get("aliases") or []}
    names |= {slug: slug for slug in metas}
    found = set()
    for path in paths:
        for raw in re.findall(r"\[\[([^\]|#]+)", path.read_text(encoding="utf-8")):
            target = names.get(raw.strip().removesuffix(".md").split("/")[-1])
            if target and target != path.stem:
                found.add((path.stem, target))
    return found


def test_a_stale_field_is_shown_and_promotion_outlives_age(vault_path: Path) -> None:
    cards = vault_path / "memory" / "cards"
    old = "created: 2025-01-01\nupdated: 2025-01-02\n"
    for slug, extra in [
        ("marked", "stale: superseded by the new runbook\nupdated: 2026-11-30\n"),
        ("flagged", "stale: true\nupdated: 2026-11-30\n"),
        ("old", old),
        ("old-rule", old + "status: promoted\n"),
        ("fresh", "updated: 2026-11-30\n"),
    ]:
        (cards / f"{slug}.md").write_text(
            f"---\ntopic: {slug}\ncategory: tools\n{extra}---\nBody.\n", encoding="utf-8"
        )
    stale = {c.slug: c.stale for c in vault_view(open_vault_at(vault_path), TODAY).cards}
    assert stale["marked"] == "marked stale: superseded by the new runbook"
    assert stale["flagged"] == "marked stale"
    assert stale["old"] == "untouched since 2025-01-02: the next maintain archives it"
    assert stale["old-rule"] is None and stale["fresh"] is None


def test_the_review_queue_shows_what_each_question_asks(sample_vault: Path) -> None:
    vault = open_vault_at(sample_vault)
    asked = ask_cross_project(vault)
    (question,) = vault_view(vault, TODAY).questions
    assert question.id == asked.id and question.kind == "cross-project"
    assert question.question == "the same lesson in several projects: one global card?"
    assert [m.where for m in question.members] == [m.path for m in asked.members]
    assert all(m.text == "HTTP calls need a timeout" for m in question.members)
    assert question.evidence == "similar, not certain"
    assert question.answers[0][0] == f"cardvault review --global accept {asked.id} [--only 1,2]"
    assert question.answers[1][0] == f"cardvault review --global reject {asked.id}"
    page = render_page(vault_view(vault, TODAY))
    assert "Review (1)" in page and "HTTP calls need a timeout" in page


def test_the_review_tab_says_each_question_in_words(sample_vault: Path, tmp_path: Path) -> None:
    """Every kind of question shows what it asks, its members' text, why it was asked in words
    and the two commands that answer it; none of the evidence's field names or raw JSON."""
    ids = ask_every_kind(sample_vault)
    out = tmp_path / "view.html"
    result = run_cli(["--vault", str(sample_vault), "view", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    found = re.search(r'<div class="tab" id="tab-review" hidden>(.*?)</div></section>',
                      out.read_text(encoding="utf-8"), re.S)  # fmt: skip
    assert found
    tab = html.unescape(found.group(1))
    for raw in RAW_EVIDENCE:
        assert raw not in tab, f"the review tab shows {raw!r}"
    questions = re.findall(r'<div class="question">(.*?)</ul></div>', tab, re.S)
    assert len(questions) == len(ids) == len(EVIDENCE_OF_EVERY_KIND)
    for question, item in zip(questions, ids, strict=True):
        assert f"<code>cardvault review accept {item}" in question
        assert f"<code>cardvault review reject {item}</code>" in question
        assert "What card 1 says, in its own words." in question
        assert re.search(r'<p class="why">Why asked: [^<]{12,}</p>', question), question
    assert "the closest pair scores 9.0 (maintenance joins them alone from 13.0)" in tab
    assert "they share the words request, timeout" in tab
    assert "81% alike in meaning; they differ in figures: 5 against 10" in tab
    assert f"cardvault review accept {ids[2]} --keep N" in tab
    assert "member 1 says “Use tabs.”; member 2 says “Never use tabs.”" in tab


def _page_colours(root: Path, out: Path) -> dict[str, str]:
    result = run_cli(["--vault", str(root), "view", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    found = re.search(r'<script type="application/json" id="view-data">(.*?)</script>',
                      out.read_text(encoding="utf-8"), re.S)  # fmt: skip
    assert found
    return {c["name"]: c["colour"] for c in json.loads(found.group(1))["categories"]}


def test_a_category_keeps_its_colour_when_another_grows(vault_path: Path, tmp_path: Path) -> None:
    """Colours follow the categories' names, not their sizes: after one small category grows
    past all the others, every category has the colour it had, and no two share one."""
    cards = vault_path / "memory" / "cards"
    sizes = {"infrastructure": 6, "tools": 4, "workflow": 2, "lessons": 1, "security": 1}
    for category, count in sizes.items():
        for n in range(count):
            (cards / f"{category}-{n}.md").write_text(
                f"---\ntopic: {category} {n}\ncategory: {category}\n---\nText.\n", "utf-8"
            )
    before = _page_colours(vault_path, tmp_path / "before.html")
    for n in range(1, 12):
        (cards / f"lessons-{n}.md").write_text(
            f"---\ntopic: lessons {n}\ncategory: lessons\n---\nText.\n", "utf-8"
        )
    after = _page_colours(vault_path, tmp_path / "after.html")
    assert set(before) == set(sizes) and after == before
    assert len(set(before.values())) == len(before)


def test_the_palette_colours_are_clearly_apart() -> None:
    """Every two category colours, and each against the grey of untagged and archived cards,
    differ by at least 20 in CIE76 (about twice what a person tells apart at a glance)."""
    from cardvault.insight.view_html import PALETTE, colours
    from cardvault.vault.config import DEFAULT_CATEGORIES

    shown = [*PALETTE, "#9ca3af"]
    nearest = min((_delta_e(a, b), a, b) for n, a in enumerate(shown) for b in shown[n + 1 :])
    assert nearest[0] >= 20, nearest
    # the default categories each have a colour of their own
    assert len(set(colours(DEFAULT_CATEGORIES, DEFAULT_CATEGORIES).values())) == len(
        DEFAULT_CATEGORIES
    )


def _delta_e(a: str, b: str) -> float:
    first, second = _lab(a), _lab(b)
    return sum((x - y) ** 2 for x, y in zip(first, second, strict=True)) ** 0.5


def _lab(colour: str) -> tuple[float, float, float]:
    """sRGB hex to CIE L*a*b* (D65)."""
    linear = []
    for at in (1, 3, 5):
        c = int(colour[at : at + 2], 16) / 255
        linear.append(((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92)
    r, g, b = linear
    xyz = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )
    x, y, z = (v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in xyz)
    return 116 * y - 16, 500 * (x - y), 200 * (y - z)


def test_rendered_bodies_are_kept_by_digest_and_follow_edits(sample_vault: Path) -> None:
    vault = open_vault_at(sample_vault)
    first = render_page(vault_view(vault, TODAY))
    assert render_page(vault_view(vault, TODAY)) == first  # from the catalog, the same page
    card = sample_vault / "memory" / "cards" / "prompt-caching.md"
    card.write_text(card.read_text(encoding="utf-8") + "\nNew **line** here.\n", encoding="utf-8")
    (shown,) = [c for c in vault_view(vault, TODAY).cards if c.slug == "prompt-caching"]
    assert "<p>New <strong>line</strong> here.</p>" in shown.html


def test_the_stats_tab_shows_the_budgets(sample_vault: Path) -> None:
    vault = open_vault_at(sample_vault)
    card = sample_vault / "memory" / "cards" / "release-tagging.md"
    card.write_text(card.read_text(encoding="utf-8") + "\nword " * 400, encoding="utf-8")
    page = render_page(vault_view(vault, TODAY))
    stats = page[page.index('id="tab-stats"') : page.index('id="tab-review"')]
    memory = len((sample_vault / "MEMORY.md").read_bytes())
    assert f"{memory} of {vault.config.memory_byte_budget} bytes" in stats
    assert (
        "1 over budget" in stats and 'over budget: <a href="#card=memory%2Fcards%2Frelease' in stats
    )
    assert f"each of {vault.config.card_token_budget}" in stats
    assert "<h3>Tiers</h3>" in stats and "<td>HOT</td>" in stats


# ---- hostile text stays inert ----


def test_card_markdown_renders_without_raw_html_script_links_or_images() -> None:
    rendered = card_html(HOSTILE.split("---\n", 2)[2])
    tags = parse_tags(rendered)
    assert {tag for tag, _ in tags.tags} <= {"p", "a", "span", "code", "strong", "em"}
    for tag, attrs in tags.tags:
        assert not [name for name in attrs if name.startswith("on") or name == "style"], tag
        assert "javascript" not in (attrs.get("href") or "").lower()
        if tag == "a" and "href" in attrs:
            assert attrs["href"].startswith("#card="), attrs  # only the wiki-link is followed
    assert "&lt;script&gt;" in rendered and "&lt;iframe" in rendered
    assert card_html("[site](https://example.com/a)") == (
        '<p><a href="https://example.com/a" rel="noopener noreferrer">site</a></p>\n'
    )
    assert 'class="wikilink" href="#card=other%20card"' in card_html("see [[other card|it]]")
    assert "<code>[[not a link]]</code>" in card_html("`[[not a link]]`")


def test_the_page_runs_only_its_own_script_and_style(vault_path: Path) -> None:
    page = render_page(vault_view(open_vault_at(_hostile_vault(vault_path)), TODAY))
    tags = parse_tags(page)
    names = [tag for tag, _ in tags.tags]
    assert names.count("script") == 2 and names.count("style") == 1
    assert not {"img", "iframe", "object", "embed", "form", "base", "link"} & set(names)
    for tag, attrs in tags.tags:
        assert not [name for name in attrs if name.startswith("on") or name == "style"], tag
        for name in ("href", "src", "action"):
            assert "javascript" not in (attrs.get(name) or "").lower(), (tag, attrs)
    data_script, code = tags.scripts
    assert "<" not in data_script  # nothing in the JSON can close its <script> element
    nodes = json.loads(data_script)["nodes"]
    assert "</script><script>document.body.dataset.pwned='topic'</script>" in [n[1] for n in nodes]
    policy = next(
        a["content"] for t, a in tags.tags if a.get("http-equiv") == "Content-Security-Policy"
    )
    assert policy is not None and policy.startswith("default-src 'none'; ")
    assert f"script-src '{_sha256(code)}';" in policy
    assert f"style-src '{_sha256(tags.styles[0])}';" in policy
    assert "unsafe-inline" not in policy and "http" not in policy


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


# ---- the command: where it writes ----


def test_view_out_writes_the_page_and_says_where(sample_vault: Path, tmp_path: Path) -> None:
    out = tmp_path / "pages" / "vault.html"
    result = run_cli(["--vault", str(sample_vault), "view", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["path"] == str(out) and summary["bytes"] == out.stat().st_size
    assert summary["cards"] == len(card_files(sample_vault))
    assert summary["archived"] == len(card_files(sample_vault, "archive"))
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>") and "Prompt Caching" in text
    again = run_cli(["--vault", str(sample_vault), "view", "--out", str(out)])
    assert again.exit_code == 0 and str(out) in again.stdout  # an earlier page is replaced


def test_view_never_writes_inside_memory_or_over_another_file(
    sample_vault: Path, tmp_path: Path
) -> None:
    before = snapshot(sample_vault)
    for place in ("memory/view.html", "memory/cards/view.html", ".git/view.html"):
        result = run_cli(["--vault", str(sample_vault), "view", "--out", str(sample_vault / place)])
        assert result.exit_code != 0
        assert "not writing the page inside the vault's" in result.stderr, result.output
    link = tmp_path / "sneaky"
    link.symlink_to(sample_vault / "memory")
    result = run_cli(["--vault", str(sample_vault), "view", "--out", str(link / "x.html")])
    assert result.exit_code != 0 and "inside the vault's memory/" in result.stderr
    assert snapshot(sample_vault) == before
    notes = tmp_path / "notes.html"
    notes.write_text("<p>my own page</p>\n", encoding="utf-8")
    result = run_cli(["--vault", str(sample_vault), "view", "--out", str(notes)])
    assert result.exit_code != 0 and "is not a page `cardvault view` wrote" in result.stderr
    assert notes.read_text(encoding="utf-8") == "<p>my own page</p>\n"
    both = run_cli(["--vault", str(sample_vault), "view", "--out", str(notes), "--open"])
    assert both.exit_code != 0 and "do not go together" in both.stderr


def test_view_over_a_device_reads_a_bounded_head_and_refuses(vault_path: Path) -> None:
    """`--out /dev/zero` exists and never ends: its head is read (bounded) and it is no page."""
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", "--vault", str(vault_path), "view", "--out",
         "/dev/zero"],
        capture_output=True, text=True, check=False, timeout=scaled(120),
    )  # fmt: skip
    assert done.returncode == 1
    assert "/dev/zero: exists and is not a page `cardvault view` wrote" in done.stderr


def test_view_by_default_goes_to_the_ignored_cache_folder(vault_path: Path) -> None:
    """In a vault `cardvault init` made (its .gitignore ignores .cardvault/)."""
    result = run_cli(["--vault", str(vault_path), "view", "--json"])
    assert result.exit_code == 0, result.output
    page = vault_path / ".cardvault" / "view.html"
    assert json.loads(result.stdout)["path"] == str(page) and page.is_file()
    assert git(vault_path, "status", "--porcelain") == ""
    assert "No cards in this vault yet." in page.read_text(encoding="utf-8")


def test_view_open_hands_the_page_to_the_browser(sample_vault: Path, tmp_path: Path) -> None:
    """`--open` through Python's webbrowser, with $BROWSER a script that records its argument."""
    record = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {record}\n', encoding="utf-8")
    browser.chmod(0o755)
    env = {**os.environ, "BROWSER": str(browser)}
    done = subprocess.run(
        [sys.executable, "-m", "cardvault", "--vault", str(sample_vault), "view", "--open",
         "--json"],
        capture_output=True, text=True, env=env, check=False, timeout=scaled(120),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    page = Path(json.loads(done.stdout)["path"])
    assert record.read_text(encoding="utf-8") == page.as_uri()
    assert page.name.startswith("cardvault-view-") and "Prompt Caching" in page.read_text("utf-8")
    page.unlink()


# ---- the page in a real browser ----


@pytest.fixture
def page_file(sample_vault: Path, tmp_path: Path) -> Path:
    _hostile_vault(sample_vault)
    out = tmp_path / "view.html"
    result = run_cli(["--vault", str(sample_vault), "view", "--out", str(out), "--json"])
    assert result.exit_code == 0, result.output
    return out


def _topics(root: Path) -> list[str]:
    paths = card_files(root) + card_files(root, "archive")
    return [yaml.safe_load(p.read_text("utf-8").split("---\n")[1])["topic"] for p in paths]


def _open_articles(dom: str) -> list[str]:
    return re.findall(r'<article id="(card-\d+)">', dom)  # no `hidden` attribute: shown


@pytest.mark.slow
def test_the_page_draws_every_card_and_runs_nothing_from_them(
    page_file: Path, sample_vault: Path, tmp_path: Path
) -> None:
    dom = dump_dom(page_file, tmp_path / "profile")
    found = body_data(dom)
    cards = len(_topics(sample_vault))
    assert found["ready"] == "1"
    assert int(found["nodes"]) == cards == len(re.findall(r"<circle ", dom)) - _legend_dots(dom)
    assert int(found["visible"]) == cards and found["links"] == str(_link_count(sample_vault))
    assert "pwned" not in found  # no card's script, handler or link ran
    assert _open_articles(dom) == []


def _legend_dots(dom: str) -> int:
    legend = re.search(r'<div id="legend-colours">(.*?)</div>', dom, re.S)
    assert legend
    return legend.group(1).count("<circle ")


def _link_count(root: Path) -> int:
    return len(_independent_links(card_files(root) + card_files(root, "archive")))


@pytest.mark.slow
def test_the_filter_keeps_the_cards_whose_title_matches(
    page_file: Path, sample_vault: Path, tmp_path: Path
) -> None:
    dom = dump_dom(page_file, tmp_path / "profile", "#q=docker")
    topics = _topics(sample_vault)
    expected = sorted(t for t in topics if "docker" in t.lower())
    assert len(expected) >= 3
    shown = re.findall(r'<li data-i="\d+">.*?<a [^>]*>(.*?)</a>', dom)
    assert sorted(_unescape(t) for t in shown) == expected
    assert len(re.findall(r'<li data-i="\d+" hidden', dom)) == len(topics) - len(expected)
    assert len(re.findall(r'<circle [^>]*class="[^"]*\bdim\b', dom)) == len(topics) - len(expected)
    assert body_data(dom)["visible"] == str(len(expected))
    assert f'<p id="count">{len(expected)} of {len(topics)} cards match</p>' in dom


def _unescape(text: str) -> str:
    import html

    return html.unescape(text)


@pytest.mark.slow
def test_a_card_opens_from_the_address(page_file: Path, sample_vault: Path, tmp_path: Path) -> None:
    dom = dump_dom(page_file, tmp_path / "profile", "#card=prompt-caching")
    (opened,) = _open_articles(dom)
    article = re.search(rf'<article id="{opened}">(.*?)</article>', dom, re.S)
    assert article and "<h2>Prompt Caching</h2>" in article.group(1)
    assert "cache_read_input_tokens" in article.group(1)  # the body, rendered


@pytest.mark.slow
def test_a_screenshot_of_the_graph_is_not_blank(page_file: Path, tmp_path: Path) -> None:
    """The graph pane of the real page has drawn nodes; the same page without its script (what
    a broken script leaves: an empty graph) fails the same measure, so the check can fail."""
    graph = (290, 60, WINDOW[0] - 460, WINDOW[1] - 120)  # inside the graph pane, above the legend
    drawn = read_png(screenshot(page_file, tmp_path / "p1", tmp_path / "drawn.png"))
    assert (drawn.width, drawn.height) == WINDOW
    text = page_file.read_text(encoding="utf-8")
    broken = tmp_path / "broken.html"
    broken.write_text(re.sub(r"<script>.*?</script>", "", text, flags=re.S), encoding="utf-8")
    assert broken.stat().st_size < len(text.encode())
    empty = read_png(screenshot(broken, tmp_path / "p2", tmp_path / "empty.png"))
    inked, blank = inked_pixels(drawn, graph), inked_pixels(empty, graph)
    assert blank < 200, f"the page without script inked {blank} pixels of its graph pane"
    assert inked > 3000, f"only {inked} pixels of the graph pane are drawn"


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    tools = DevTools(tmp_path / "devtools-profile")
    yield tools
    tools.close()


def _centre(browser: DevTools, selector: str) -> tuple[float, float]:
    """The viewport point at the middle of the element, checked to be what a click there hits."""
    found = browser.evaluate(
        f"""(function () {{
          const e = document.querySelector({json.dumps(selector)});
          const b = e.getBoundingClientRect(), x = b.x + b.width / 2, y = b.y + b.height / 2;
          const hit = document.elementFromPoint(x, y);
          return [x, y, hit === e || e.contains(hit)];
        }})()"""
    )
    assert isinstance(found, list) and found[2], f"{selector} is covered where it is drawn"
    return found[0], found[1]


@pytest.mark.slow
def test_typing_in_the_filter_then_clicking_a_node_and_a_link(
    page_file: Path, sample_vault: Path, browser: DevTools
) -> None:
    """A person's way through the page, over the DevTools protocol: type into the filter box,
    click a dot in the graph, then a [[link]] in the card that opened."""
    browser.open(page_file.as_uri())
    assert browser.evaluate("document.body.dataset.ready") == "1"
    browser.click(*_centre(browser, "#filter"))
    browser.send("Input.insertText", text="Docker")
    expected = sorted(t for t in _topics(sample_vault) if "docker" in t.lower())
    shown = browser.evaluate(
        "[...document.querySelectorAll('#list li:not([hidden]) a')].map(a => a.textContent)"
    )
    assert sorted(shown) == expected  # type: ignore[arg-type]
    assert browser.evaluate("location.hash") == "#q=Docker"
    topics = browser.evaluate("JSON.parse(document.getElementById('view-data').textContent).nodes")
    index = [n[0] for n in topics].index("docker-apple-silicon-builds")  # type: ignore[union-attr]
    browser.click(*_centre(browser, f'#graph circle[data-i="{index}"]'))
    assert (
        browser.evaluate("location.hash") == "#q=Docker&card=docker-apple-silicon-builds&tab=card"
    )
    opened = "[...document.querySelectorAll('article:not([hidden]) h2')].map(h => h.textContent)"
    assert browser.evaluate(opened) == ["Docker Builds on Apple Silicon"]
    browser.click(*_centre(browser, f"#card-{index} a.wikilink"))
    assert browser.settled(opened) == ["Docker BuildKit Cache Mounts"]
    assert (
        browser.evaluate("location.hash") == "#q=Docker&card=docker-buildkit-cache-mounts&tab=card"
    )
    assert browser.evaluate("document.getElementById('filter').value") == "Docker"  # kept
    assert "pwned" not in str(browser.evaluate("JSON.stringify(document.body.dataset)"))


PANES = """(() => {
  const svg = document.getElementById('graph').getBoundingClientRect();
  const labels = [...document.querySelectorAll('#graph text')].map(t => t.getBoundingClientRect());
  const cut = labels.filter(b => b.left < svg.left - 1 || b.right > svg.right + 1
    || b.top < svg.top - 1 || b.bottom > svg.bottom + 1).length;
  const panes = ['#side', '#graph', '#panel'].map(s => {
    const b = document.querySelector(s).getBoundingClientRect();
    return [b.left, b.right, b.width, b.height];
  });
  return [innerWidth, panes, labels.length, cut];
})()"""


@pytest.mark.slow
@pytest.mark.parametrize("width", [375, 800, 1280])
def test_every_pane_fits_the_window_and_no_label_is_cut(
    page_file: Path, browser: DevTools, width: int
) -> None:
    """At 375 (a phone: one column), 800 and 1280 px the list, the graph and the reader each
    lie across the window and are of a usable size, and every label the graph draws lies
    inside the graph."""
    browser.open(page_file.as_uri())
    browser.send(
        "Emulation.setDeviceMetricsOverride", width=width, height=800, deviceScaleFactor=1,
        mobile=False,
    )  # fmt: skip
    inner, panes, labels, cut = browser.settled(PANES)  # type: ignore[misc]
    assert inner == width
    for left, right, wide, high in panes:
        assert left >= 0 and right <= width + 0.5 and wide >= 250 and high >= 200, panes
    assert labels >= 10 and cut == 0, (labels, cut)
