"""`cardvault graph`: links, shared tags, hubs and orphans, checked against independent counts."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path

from cardvault.insight.graph import build_graph
from cardvault.insight.graph_render import render_dot, render_mermaid, render_tree
from cardvault.vault.card import parse_card
from cardvault.vault.files import FileText
from cardvault.vault.read import CardFile
from tests.support.cli import run_cli
from tests.support.insight import body, card_files, frontmatter

LINK = re.compile(r"\[\[([^\]|#]+)")


def graph_json(root: Path, *extra: str) -> dict:
    result = run_cli(["--vault", str(root), "graph", "--format", "json", *extra])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def independent_graph(root: Path) -> dict:
    """Links, shared-tag pairs and neighbours computed from the files with yaml and regex."""
    paths = card_files(root)
    metas = {p.stem: frontmatter(p) for p in paths}
    names = {alias: slug for slug, m in metas.items() for alias in m.get("aliases") or []}
    names.update({slug: slug for slug in metas})
    links = set()
    for path in paths:
        for raw in LINK.findall(body(path)):
            target = names.get(raw.strip().removesuffix(".md").split("/")[-1])
            if target and target != path.stem:
                links.add((path.stem, target))
    tagged = {
        (a, b)
        for a, b in combinations(sorted(metas), 2)
        if set(metas[a]["tags"]) & set(metas[b]["tags"])
    }
    usage = Counter(t for m in metas.values() for t in set(m["tags"]))
    assert max(usage.values()) <= 20, "every sample tag is narrow enough to list its pairs"
    pairs = tagged
    near: dict[str, set[str]] = defaultdict(set)
    for a, b in links | tagged:
        near[a].add(b)
        near[b].add(a)
    return {"metas": metas, "links": links, "pairs": pairs, "near": near}


def test_sample_vault_graph_matches_independent_counts(sample_vault: Path) -> None:
    data = graph_json(sample_vault)
    truth = independent_graph(sample_vault)
    assert {(link["source"], link["target"]) for link in data["links"]} == truth["links"]
    assert len(truth["links"]) >= 3, "the sample vault links cards with [[slug]]"
    assert {(s["a"], s["b"]) for s in data["shared"]} == truth["pairs"]
    assert sorted(data["orphans"]) == sorted(s for s in truth["metas"] if not truth["near"][s])
    degrees = {slug: len(truth["near"][slug]) for slug in truth["metas"]}
    assert data["hubs"][0]["connections"] == max(degrees.values())
    assert {h["slug"]: h["connections"] for h in data["hubs"]} == {
        h["slug"]: degrees[h["slug"]] for h in data["hubs"]
    }
    assert [h["connections"] for h in data["hubs"]] == sorted(degrees.values(), reverse=True)[:5]


def test_tag_tree_counts_cards_per_category_and_tag(sample_vault: Path) -> None:
    data = graph_json(sample_vault)
    metas = [frontmatter(p) for p in card_files(sample_vault)]
    expected: dict[str, Counter[str]] = defaultdict(Counter)
    for meta in metas:
        expected[meta["category"]].update(set(meta["tags"]))
    assert data["tag_tree"] == {cat: dict(tags) for cat, tags in expected.items()}
    assert len(data["nodes"]) == len(metas)


def card(
    slug: str,
    tags: list[str],
    text: str = "",
    aliases: list[str] | None = None,
    category: str = "tools",
):
    extra = f"aliases: [{', '.join(aliases)}]\n" if aliases else ""
    front = (
        f"---\ntopic: {slug.title()}\ncategory: {category}\ntags: [{', '.join(tags)}]\n{extra}---\n"
    )
    path = Path(f"memory/cards/{slug}.md")
    text = front + (text or "Body.") + "\n"
    return CardFile(FileText(path, text, ""), parse_card(text, path), archived=False)


def small_graph():
    return build_graph(
        [
            card("alpha", ["x"], "See [[beta]] and [[old-gamma]] and [[alpha]] and [[missing]]."),
            card("beta", ["x", "y"], "Back to [[memory/cards/alpha.md]]."),
            card("gamma", ["z"], aliases=["old-gamma"], category="workflow"),
            card("delta", ["w"]),
        ]
    )


def test_links_resolve_slugs_paths_and_aliases() -> None:
    graph = small_graph()
    assert {(link.source, link.target) for link in graph.links} == {
        ("alpha", "beta"),
        ("alpha", "gamma"),
        ("beta", "alpha"),
    }
    assert [link.text for link in graph.unresolved] == ["missing"]
    assert [(s.a, s.b, s.tags) for s in graph.shared] == [("alpha", "beta", ("x",))]
    assert graph.orphans == ("delta",)
    assert graph.hubs[0].slug == "alpha" and graph.hubs[0].connections == 2
    assert graph.tag_tree == {"tools": {"x": 2, "w": 1, "y": 1}, "workflow": {"z": 1}}


def test_renderers_show_every_edge() -> None:
    graph = small_graph()
    mermaid = render_mermaid(graph)
    assert mermaid.startswith("graph LR\n")
    assert "c_alpha --> c_beta" in mermaid and "c_alpha --> c_gamma" in mermaid
    assert 'c_alpha -.-|"x"| c_beta' in mermaid
    assert mermaid.count("subgraph") == mermaid.count("\n  end") == 2
    dot = render_dot(graph)
    assert '"alpha" -> "beta";' in dot and '"beta" -> "alpha";' in dot
    assert dot.count("{") == dot.count("}")
    tree = render_tree(graph)
    assert "├── tools (3)" in tree and "└── workflow (1)" in tree
    assert "orphans (1)\n  delta" in tree and "alpha → [[missing]]" in tree


def test_cli_formats(sample_vault: Path) -> None:
    for fmt, marker in (("tree", "cards ("), ("mermaid", "graph LR"), ("dot", "digraph cardvault")):
        result = run_cli(["--vault", str(sample_vault), "graph", "-f", fmt])
        assert result.exit_code == 0, result.output
        assert result.stdout.startswith(marker)
    bad = run_cli(["--vault", str(sample_vault), "graph", "-f", "png"])
    assert bad.exit_code != 0
    asked = run_cli(["--vault", str(sample_vault), "graph", "--json"])  # the graph, not the tree
    assert json.loads(asked.stdout) == graph_json(sample_vault)


def test_archived_cards_join_only_when_asked(sample_vault: Path) -> None:
    live = graph_json(sample_vault)
    both = graph_json(sample_vault, "--archived")
    archived = len(card_files(sample_vault, "archive"))
    assert archived > 0
    assert len(both["nodes"]) == len(live["nodes"]) + archived


def test_facts_pairs_share_tags_in_the_graph(sample_vault: Path) -> None:
    facts = json.loads((Path(__file__).parent / "fixtures" / "sample-vault-facts.json").read_text())
    shared = {(s["a"], s["b"]) for s in graph_json(sample_vault)["shared"]}
    for a, b in facts["near_duplicates"] + [facts["contradiction"]]:
        assert tuple(sorted((a, b))) in shared, (a, b)


def test_broad_tags_count_as_connections_without_listing_pairs() -> None:
    from cardvault.insight.graph import SHARED_PAIR_LIMIT

    size = SHARED_PAIR_LIMIT + 5
    cards = [card(f"c{n:02d}", ["common"] + (["pair"] if n < 2 else [])) for n in range(size)]
    graph = build_graph([*cards, card("alone", ["solo"])])
    assert graph.broad_tags == {"common": size}
    assert [(s.a, s.b, s.tags) for s in graph.shared] == [("c00", "c01", ("pair",))]
    assert graph.connections["c05"] == size - 1 and graph.orphans == ("alone",)
    assert "#common (25)" in render_tree(graph) and "common (25)" in render_mermaid(graph)
