"""Retrieval benchmark: quality (recall@5, MRR) of full text, vector and hybrid norm search on
labelled questions, exact resolution of every citation form, and hybrid search latency on the
shipped corpus and with N synthetic chunks added. Runs in its own database (helena_bench) on the
embedded server.

Question sets (bench/data/):
- fragen_2026.jsonl: 185 questions on the 85-statute corpus of April 2026 across Zivil, Miete,
  Arbeit, Verkehr, Straf, Familie, Sozial, Verwaltung, Kosten, Insolvenz and Gesellschaft, 94 in the
  words of a Mandant or a Sekretariat ("stil": "laie"). Written before any tuning and split then
  ("teil"): "abstimmung" may be used to tune, "kontrolle" is the held-out half whose failures are
  never looked at while tuning; only its figures are reported.
- fragen_2026_abstimmung2.jsonl: 80 more tuning questions (60 in a lawyer's search words, which mix
  legal terms with everyday words, 20 lay), written on 2026-11-25 without sight of the
  vocabularies or the other sets, to see what the everyday vocabulary does to expert questions.
- fragen_2026_abstimmung3.jsonl: 70 more tuning questions (55 lay, 15 expert, 12 fields), written on
  2026-11-25 by someone who saw neither the vocabularies nor the other sets nor the code, to judge
  that day's second round of the everyday vocabulary before it was measured on the held-out sets.
- fragen_2026_neu.jsonl: 90 more held-out questions (60 "laie", 30 "fach", 13 fields of law),
  written on 2026-11-25 by someone who had not seen the vocabularies, the other question sets or
  the search code, before the tuning of that day; never tuned on, its failures never looked at.
- fragen.jsonl (67) and fragen_kontrolle.jsonl (40): the sets of the 16-statute corpus, kept as
  regression sets.
- abwegig.jsonl: 80 questions that are not about law at all ("Welche Farbe hat der Himmel?"),
  for the relevance floor: 40 written on 2026-11-25 (20 "abstimmung", 20 "kontrolle", held out),
  40 more tuning ones later that day, many with words the statutes also use ("Auto", "Geld",
  "Hochzeit"), written before the floor was tuned. The number answered with "nothing found" is
  reported per part; every set of questions about law reports its own "nothing_found" (the
  floor's misses there).
- zitatformen.jsonl: every citation form of issue 13 with the targets it names (also a test).

    .venv/bin/python bench/retrieval.py [--synthetic 100000] [--synthetic-only]
    .venv/bin/python bench/retrieval.py --tuning-only [--failures]
    .venv/bin/python bench/retrieval.py --citations-only
    .venv/bin/python bench/retrieval.py --held-out-only

`--tuning-only` measures the tuning half alone (quick, nothing saved; the held-out half is neither
embedded nor searched), `--failures` lists the tuning questions whose hits miss a wanted norm.
`--held-out-only` measures both held-out sets (quality only, nothing saved, no failures listed).
`--citations-only` runs the citation figures alone (citation forms, the check on the scripted
answers; quick, nothing saved).

Prints the figures and saves them to bench/results/retrieval.json (without synthetic chunks) or
bench/results/retrieval_synthetic_N.json (`--synthetic-only`: retrieval_synthetic_N_only.json).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")
os.environ.setdefault("HELENA_EMBEDDED_DB_NAME", "helena_bench")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from recherche.citations import extract, law_names, resolve  # noqa: E402
from recherche.embeddings import LocalE5Backend  # noqa: E402
from recherche.models import Chunk, Gesetz, Norm  # noqa: E402
from recherche.search import embedding_query, search_normen  # noqa: E402
from recherche.services import lexem_statistik_refresh  # noqa: E402

DATA = ROOT / "recherche" / "data"


def label_to_zitat(label: str) -> str:
    """ "BGB § 573c" -> "§ 573c BGB"; "GG Art 1" -> "Art. 1 GG"; "GKG 2004 § 34" -> "§ 34 GKG";
    labels already written as citations ("§ 7 SGB II", "Anlage 1 RVG") stay as they are."""
    if label.startswith(("§", "Art.", "Anlage")):
        return label
    if " Art " in label:
        abk, number = label.split(" Art ")
        return f"Art. {number.strip()} {abk.strip()}"
    abk, number = label.split(" § ")
    abk = abk.strip().split(" ")[0] if abk.strip().split(" ")[-1].isdigit() else abk.strip()
    return f"§ {number.strip()} {abk}"


class PrecomputedQueries(LocalE5Backend):
    """The local model, with the query vectors computed before timing (query embedding excluded).
    Keyed by what the search embeds: the question with its vocabulary's statute wording."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self.vectors = vectors

    def embed_query(self, text: str) -> list[float]:
        return self.vectors[text]


def embed_questions(backend: PrecomputedQueries, questions: list[dict], local: LocalE5Backend | None = None) -> None:
    """Add the query vectors of `questions` that `backend` does not hold yet."""
    local = local or LocalE5Backend()
    for item in questions:
        text = embedding_query(item["frage"])
        if text not in backend.vectors:
            backend.vectors[text] = local.embed_query(text)


def quality(
    questions: list[dict], backend: PrecomputedQueries, modes: tuple[str, ...] = ("fulltext", "vector", "hybrid")
) -> dict[str, dict[str, float]]:
    import recherche.search as search_module

    figures = {}
    original = search_module.get_backend
    search_module.get_backend = lambda: backend
    try:
        for mode in modes:
            recalls, reciprocal, empty = [], [], 0
            for item in questions:
                wanted = {label_to_zitat(label) for label in item["normen"]}
                got = [r["zitat"] for r in search_normen(query=item["frage"], limit=10, mode=mode).results]
                empty += not got
                recalls.append(len(wanted & set(got[:5])) / len(wanted))
                rank = next((i + 1 for i, z in enumerate(got) if z in wanted), None)
                reciprocal.append(1 / rank if rank else 0.0)
            hit5 = [1.0 if r > 0 else 0.0 for r in recalls]
            figures[mode] = {
                "recall@5": round(statistics.mean(recalls), 3),
                "hit@5": round(statistics.mean(hit5), 3),
                "mrr": round(statistics.mean(reciprocal), 3),
                # questions about law answered with "nothing found" (the relevance floor's misses)
                "nothing_found": empty,
            }
    finally:
        search_module.get_backend = original
    return figures


def latency(questions: list[dict], backend: PrecomputedQueries, repeat: int = 3) -> dict[str, float]:
    import recherche.search as search_module

    original = search_module.get_backend
    search_module.get_backend = lambda: backend
    timings = []
    try:
        for _ in range(repeat):
            for item in questions:
                start = time.perf_counter()
                with transaction.atomic():
                    search_normen(query=item["frage"], limit=10)
                timings.append((time.perf_counter() - start) * 1000)
    finally:
        search_module.get_backend = original
    timings.sort()
    return {
        "p50_ms": round(statistics.median(timings), 2),
        "p95_ms": round(timings[int(len(timings) * 0.95) - 1], 2),
        "n": len(timings),
    }


def add_synthetic(count: int, model: str) -> None:
    """Synthetic norms whose text mixes words of the real corpus, with random unit vectors."""
    import numpy as np

    words = " ".join(Norm.objects.values_list("text", flat=True)[:3000]).split()
    rng = random.Random(7)
    gesetz, _ = Gesetz.objects.get_or_create(abkuerzung="SYNTH", defaults={"titel": "Synthetisch", "slug": "synth"})
    existing = Norm.objects.filter(gesetz=gesetz).count()
    vectors = np.random.default_rng(7).standard_normal((count - existing, 384)).astype("float32")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    batch = 2000
    for start in range(0, count - existing, batch):
        size = min(batch, count - existing - start)
        norms = Norm.objects.bulk_create(
            [
                Norm(
                    gesetz=gesetz,
                    art="§",
                    nummer=str(existing + start + i + 1),
                    titel="Synthetisch",
                    position=existing + start + i,
                )
                for i in range(size)
            ]
        )
        Chunk.objects.bulk_create(
            [
                Chunk(
                    kind="NORM",
                    norm=norm,
                    titel=f"§ {norm.nummer} SYNTH",
                    text=" ".join(rng.choices(words, k=120)),
                    content_hash=f"synth-{norm.pk}",
                    embedding=vectors[start + i].tolist(),
                    embedding_model=model,
                    embedding_dim=384,
                )
                for i, norm in enumerate(norms)
            ]
        )
        print(f"  synthetische Abschnitte: {existing + start + size}/{count}", flush=True)
    # As after any ingestion: the full-text statistics include the new chunks.
    lexem_statistik_refresh(kind="NORM")
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE recherche_chunk")
        cursor.execute("VACUUM ANALYZE recherche_chunk_posting")


def citation_forms() -> dict[str, Any]:
    """Share of the citation forms whose every target is extracted and resolved exactly."""
    rows = load_questions("zitatformen.jsonl")
    names = law_names()
    failed = []
    for row in rows:
        targets = extract(row["zitat"], names)
        got = [[t.art, t.nummer, t.gesetz, t.absatz] for t in targets]
        if got != row["ziele"] or not all(r.ok for r in resolve(targets)):
            failed.append(row["zitat"])
    return {"forms": len(rows), "exact": round(1 - len(failed) / len(rows), 3), "failed": failed}


def scripted_answers_check() -> dict[str, Any]:
    """The citation check on the answers of the scripted test runs: every "text" step of a scripted
    model in tests/ checked against the corpus. Citations it flags are listed; the test of the check
    itself cites a missing § and an unknown law on purpose."""
    import ast

    from recherche.citations import check_text

    answers = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Dict):
                continue
            for key, value in zip(node.keys, node.values, strict=True):
                if isinstance(key, ast.Constant) and key.value == "text" and isinstance(value, ast.Constant):
                    if isinstance(value.value, str):
                        answers.append((str(path.relative_to(ROOT)), value.value))
    checked, flagged = 0, []
    for where, text in answers:
        report = check_text(text).as_dict()
        checked += report["geprueft"]
        flagged += [[where, item["zitiert"]] for item in report["normen"] + report["urteile"] if not item["ok"]]
    return {"texts": len(answers), "citations": checked, "flagged": flagged}


def load_questions(name: str) -> list[dict[str, Any]]:
    lines = (ROOT / "bench" / "data" / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def synthetic_only(count: int) -> None:
    """Latency and quality of the held-out questions with `count` synthetic chunks, reusing the
    synthetic chunks already in the database (topped up to `count`)."""
    call_command("migrate", verbosity=0)
    call_command("ingest_gesetze", str(DATA / "gesetze"), verbosity=0)
    local = LocalE5Backend()
    held_out = [q for q in load_questions("fragen_2026.jsonl") if q["teil"] == "kontrolle"]
    start = time.perf_counter()
    vectors = {embedding_query(item["frage"]): local.embed_query(embedding_query(item["frage"])) for item in held_out}
    embed_ms = (time.perf_counter() - start) * 1000 / len(held_out)
    add_synthetic(count, local.name)
    backend = PrecomputedQueries(vectors)
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average": os.getloadavg(),
        "synthetic_chunks": count,
        "query_embedding_ms_mean": round(embed_ms, 2),
        "latency_with_synthetic": latency(held_out, backend),
        "quality_with_synthetic": quality(held_out, backend)["hybrid"],
    }
    print(json.dumps(results, indent=2, ensure_ascii=False))
    # Its own file: the full run's file (retrieval_synthetic_N.json) keeps every other figure.
    out = ROOT / "bench" / "results" / f"retrieval_synthetic_{count}_only.json"
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"gespeichert: {out.relative_to(ROOT)}")


def prepare_corpus() -> None:
    """The shipped corpus alone, settled, in the bench database."""
    call_command("migrate", verbosity=0)
    # Every run starts from the shipped corpus alone; synthetic chunks of an earlier run would skew it.
    if Gesetz.objects.filter(abkuerzung="SYNTH").delete()[0]:
        with connection.cursor() as cursor:  # the indexes would keep the deleted rows' entries
            cursor.execute("REINDEX TABLE recherche_chunk")
            cursor.execute("REINDEX TABLE recherche_chunk_posting")
            cursor.execute("VACUUM ANALYZE recherche_chunk")
            cursor.execute("VACUUM ANALYZE recherche_chunk_posting")
    call_command("ingest_gesetze", str(DATA / "gesetze"), verbosity=0)
    # The IDF weights of the shipped corpus alone: an unchanged corpus is not re-ingested, so after
    # an earlier run's synthetic chunks were deleted nothing else would refresh them.
    lexem_statistik_refresh(kind="NORM")
    # A re-indexing run (new chunking or embedding input) leaves dead index entries that autovacuum
    # would clear later; measure the settled index, as a fresh installation has it.
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE recherche_chunk")
        cursor.execute("VACUUM ANALYZE recherche_chunk_posting")


def tuning_only(show_failures: bool) -> None:
    """The figures of the tuning half alone (for tuning; the held-out half is not touched)."""
    prepare_corpus()
    tuning = [q for q in load_questions("fragen_2026.jsonl") if q["teil"] == "abstimmung"]
    tuning_2 = load_questions("fragen_2026_abstimmung2.jsonl")
    tuning_3 = load_questions("fragen_2026_abstimmung3.jsonl")
    backend = PrecomputedQueries({})
    embed_questions(backend, tuning + tuning_2 + tuning_3)
    results = {
        "load_average": os.getloadavg(),
        "tuning": {"questions": len(tuning), **quality(tuning, backend)},
        "tuning_lay": quality([q for q in tuning if q["stil"] == "laie"], backend, ("hybrid",))["hybrid"],
        "tuning_expert": quality([q for q in tuning if q["stil"] == "fach"], backend, ("hybrid",))["hybrid"],
        "tuning_2": quality(tuning_2, backend, ("hybrid",))["hybrid"],
        "tuning_2_lay": quality([q for q in tuning_2 if q["stil"] == "laie"], backend, ("hybrid",))["hybrid"],
        "tuning_2_expert": quality([q for q in tuning_2 if q["stil"] == "fach"], backend, ("hybrid",))["hybrid"],
        "tuning_3": quality(tuning_3, backend, ("hybrid",))["hybrid"],
        "tuning_3_lay": quality([q for q in tuning_3 if q["stil"] == "laie"], backend, ("hybrid",))["hybrid"],
        "latency_tuning": latency(tuning, backend, repeat=1),
        "off_topic": off_topic(backend, ("abstimmung",)),
    }
    print(json.dumps(results, indent=2, ensure_ascii=False))
    if show_failures:
        import recherche.search as search_module

        search_module.get_backend = lambda: backend
        for item in tuning + tuning_2 + tuning_3:
            wanted = {label_to_zitat(label) for label in item["normen"]}
            got = [r["zitat"] for r in search_normen(query=item["frage"], limit=10).results]
            if not wanted <= set(got[:5]):
                print(f"- {item['stil']} {item['frage']}\n  gesucht {sorted(wanted)}\n  gefunden {got[:8]}")
        for item in load_questions("abwegig.jsonl"):
            if item["teil"] == "abstimmung" and (got := search_normen(query=item["frage"], limit=5).results):
                print(f"- abwegig {item['frage']}\n  gefunden {[r['zitat'] for r in got]}")


def off_topic(backend: PrecomputedQueries, parts: tuple[str, ...] = ("abstimmung", "kontrolle")) -> dict[str, Any]:
    """How many questions that are not about law the norm search answers with "nothing found", per
    part of abwegig.jsonl (the tuning part's misses are listed by --tuning-only --failures)."""
    import recherche.search as search_module

    questions = [item for item in load_questions("abwegig.jsonl") if item["teil"] in parts]
    embed_questions(backend, questions)
    original = search_module.get_backend
    search_module.get_backend = lambda: backend
    figures: dict[str, Any] = {}
    try:
        for part in parts:
            asked = [item for item in questions if item["teil"] == part]
            empty = sum(1 for item in asked if not search_normen(query=item["frage"], limit=5).results)
            figures[part] = {"questions": len(asked), "nothing_found": empty}
    finally:
        search_module.get_backend = original
    return figures


def held_out_only() -> None:
    """Quality of both held-out sets, without their failures (for a before/after comparison)."""
    prepare_corpus()
    sets = {
        "held_out": [q for q in load_questions("fragen_2026.jsonl") if q["teil"] == "kontrolle"],
        "held_out_neu": load_questions("fragen_2026_neu.jsonl"),
    }
    backend = PrecomputedQueries({})
    embed_questions(backend, [item for questions in sets.values() for item in questions])
    results: dict[str, Any] = {"load_average": os.getloadavg()}
    for name, questions in sets.items():
        results[name] = {"questions": len(questions), **quality(questions, backend, ("hybrid",))}
        for stil in ("laie", "fach"):
            results[f"{name}_{stil}"] = quality([q for q in questions if q["stil"] == stil], backend, ("hybrid",))["hybrid"]
    results["off_topic"] = off_topic(backend)
    print(json.dumps(results, indent=2, ensure_ascii=False))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--synthetic", type=int, default=100_000)
    parser.add_argument(
        "--synthetic-only",
        action="store_true",
        help="only the figures with N synthetic chunks, keeping those of an earlier run (adding 100,000 takes "
        "about 25 minutes on two loaded cores); the shipped corpus's own figures need a full run",
    )
    parser.add_argument("--tuning-only", action="store_true", help="only the tuning half, nothing saved")
    parser.add_argument("--failures", action="store_true", help="with --tuning-only: list the misses")
    parser.add_argument("--citations-only", action="store_true", help="only the citation figures, nothing saved")
    parser.add_argument("--held-out-only", action="store_true", help="only both held-out sets' quality, nothing saved")
    args = parser.parse_args()
    if args.held_out_only:
        held_out_only()
        return
    if args.citations_only:
        prepare_corpus()
        results = {"citation_forms": citation_forms(), "citation_check_scripted_answers": scripted_answers_check()}
        print(json.dumps(results, indent=2, ensure_ascii=False))
        return
    if args.tuning_only:
        tuning_only(args.failures)
        return
    if args.synthetic_only:
        synthetic_only(args.synthetic)
        return

    prepare_corpus()
    new_set = load_questions("fragen_2026.jsonl")
    tuning = [q for q in new_set if q["teil"] == "abstimmung"]
    held_out = [q for q in new_set if q["teil"] == "kontrolle"]
    held_out_neu = load_questions("fragen_2026_neu.jsonl")
    tuning_2 = load_questions("fragen_2026_abstimmung2.jsonl")
    tuning_3 = load_questions("fragen_2026_abstimmung3.jsonl")
    regression = load_questions("fragen.jsonl")
    regression_control = load_questions("fragen_kontrolle.jsonl")

    local = LocalE5Backend()
    start = time.perf_counter()
    vectors = {embedding_query(item["frage"]): local.embed_query(embedding_query(item["frage"])) for item in held_out}
    embed_ms = (time.perf_counter() - start) * 1000 / len(held_out)
    backend = PrecomputedQueries(vectors)
    embed_questions(backend, held_out_neu + tuning + tuning_2 + tuning_3 + regression + regression_control, local)

    real_chunks = Chunk.objects.filter(kind="NORM").exclude(norm__gesetz__abkuerzung="SYNTH").count()
    results = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average": os.getloadavg(),
        "corpus_statutes": Gesetz.objects.exclude(abkuerzung="SYNTH").count(),
        "corpus_chunks": real_chunks,
        "held_out": {"questions": len(held_out), **quality(held_out, backend)},
        "held_out_lay": quality([q for q in held_out if q["stil"] == "laie"], backend, ("hybrid",))["hybrid"],
        "held_out_expert": quality([q for q in held_out if q["stil"] == "fach"], backend, ("hybrid",))["hybrid"],
        "held_out_neu": {"questions": len(held_out_neu), **quality(held_out_neu, backend)},
        "held_out_neu_lay": quality([q for q in held_out_neu if q["stil"] == "laie"], backend, ("hybrid",))["hybrid"],
        "held_out_neu_expert": quality([q for q in held_out_neu if q["stil"] == "fach"], backend, ("hybrid",))["hybrid"],
        "tuning": {"questions": len(tuning), **quality(tuning, backend, ("hybrid",))},
        "tuning_2": {"questions": len(tuning_2), **quality(tuning_2, backend, ("hybrid",))},
        "tuning_2_expert": quality([q for q in tuning_2 if q["stil"] == "fach"], backend, ("hybrid",))["hybrid"],
        "tuning_3": {"questions": len(tuning_3), **quality(tuning_3, backend, ("hybrid",))},
        "tuning_3_lay": quality([q for q in tuning_3 if q["stil"] == "laie"], backend, ("hybrid",))["hybrid"],
        "regression_67": quality(regression, backend, ("hybrid",))["hybrid"],
        "regression_control_40": quality(regression_control, backend, ("hybrid",))["hybrid"],
        "citation_forms": citation_forms(),
        "citation_check_scripted_answers": scripted_answers_check(),
        "off_topic": off_topic(backend),
        "query_embedding_ms_mean": round(embed_ms, 2),
        "latency_shipped_corpus": latency(held_out, backend),
    }
    questions = held_out
    if args.synthetic:
        add_synthetic(args.synthetic, local.name)
        results["synthetic_chunks"] = args.synthetic
        results["latency_with_synthetic"] = latency(questions, backend)
        results["quality_with_synthetic"] = quality(questions, backend)["hybrid"]

    print(json.dumps(results, indent=2, ensure_ascii=False))
    name = f"retrieval_synthetic_{args.synthetic}.json" if args.synthetic else "retrieval.json"
    out = ROOT / "bench" / "results" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"gespeichert: {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
