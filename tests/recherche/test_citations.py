"""Citation forms: extraction (pure) and exact resolution against the shipped corpus."""

import json
from pathlib import Path

import pytest

from recherche.citations import LawNames, check_text, extract, link_citations, resolve
from recherche.gesetze_parser import canonical_abkuerzung, split_front_matter

SHIPPED = Path(__file__).resolve().parents[2] / "recherche" / "data" / "gesetze"
BENCH_DATA = Path(__file__).resolve().parents[2] / "bench" / "data"


def _shipped_names() -> LawNames:
    names: dict[str, str] = {}
    titles: dict[str, str] = {}
    for path in SHIPPED.glob("*.md"):
        if path.name == "README.md":
            continue
        with path.open(encoding="utf-8") as fh:
            head = "".join(next(fh) for _ in range(8))
        front, _ = split_front_matter(head)
        raw = str(front.get("amtabk") or front["jurabk"])
        canonical = canonical_abkuerzung(raw)
        names[canonical] = canonical
        for alias in (raw, str(front["jurabk"]), canonical_abkuerzung(str(front["jurabk"]))):
            names.setdefault(alias, canonical)
        titles[str(front["Title"])] = canonical
    return LawNames(names, titles)


NAMES = _shipped_names()


def _targets(text: str, **kwargs) -> list[tuple[str, str, str, str]]:
    return [(z.art, z.nummer, z.gesetz, z.absatz) for z in extract(text, NAMES, **kwargs)]


# Every citation form of issue 13 → the targets it names: (art, nummer, gesetz, absatz). The same
# list is the citation part of bench/retrieval.py.
FORMS = [
    (row["zitat"], [tuple(target) for target in row["ziele"]])
    for row in map(json.loads, (BENCH_DATA / "zitatformen.jsonl").read_text(encoding="utf-8").splitlines())
]


@pytest.mark.parametrize(("text", "expected"), FORMS)
def test_every_citation_form_is_extracted_exactly(text, expected):
    assert _targets(text) == expected
    assert _targets(f"Nach {text} ist das so.") == expected  # also inside a sentence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("§ 12 I 2 BGB", [("§", "12", "BGB", "1")]),
        ("§ 622 II 1 Nr. 2 BGB", [("§", "622", "BGB", "2")]),
        ("§ 1565 I 1 BGB", [("§", "1565", "BGB", "1")]),
    ],
)
def test_a_roman_absatz_with_its_satz_is_never_read_as_another_section(text, expected):
    """As a search query (bare numbers count as sections) "§ 12 I 2 BGB" once became § 2 BGB."""
    assert _targets(text, bare_numbers=True) == expected
    assert _targets(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("§ 5 f. BGB", [("§", "5", "BGB", "")]),  # f. = folgende, no section 5f
        ("§§ 5 f., 7 BGB", [("§", "5", "BGB", ""), ("§", "7", "BGB", "")]),
        ("§ 626 i. V. m. § 174 BGB", [("§", "626", "BGB", ""), ("§", "174", "BGB", "")]),
        ("§ 3 Abs. 2 Nr. 1 lit. a Hs. 2 Alt. 1 StVO", [("§", "3", "StVO", "2")]),
        ("§ 823 I 1 BGB", [("§", "823", "BGB", "1")]),  # a roman Absatz is no letter suffix
        ("§ 1 a und b", []),  # prose, no statute: nothing, and never a "§ 1ab"
        ("§ 573 c", []),
        ("§ 35 a SGB VIII", [("§", "35a", "SGB VIII", "")]),  # a law not in the corpus
        ("§§ 573 a bis 573 c BGB", [("§", "573a", "BGB", ""), ("§", "573c", "BGB", "")]),
        ("§ 3 Nr. 1 a EStG", [("§", "3", "EStG", "")]),
    ],
)
def test_a_section_letter_written_apart_belongs_to_the_number_and_nothing_else_does(text, expected):
    assert _targets(text) == expected
    assert _targets(text, bare_numbers=True) == expected


def test_a_section_letter_written_apart_is_part_of_the_span_and_of_bare_query_numbers():
    text = "Die Frist aus § 573 c Abs. 1 BGB gilt."
    (target,) = extract(text, NAMES)
    assert text[target.start : target.end] == "§ 573 c Abs. 1 BGB" and target.text == "§ 573c Abs. 1 BGB"
    assert _targets("573 c BGB", bare_numbers=True) == [("§", "573c", "BGB", "")]
    (nummer,) = extract("§ 3 Nr. 1 a EStG", NAMES)
    assert nummer.detail == "Nr. 1 a"


@pytest.mark.parametrize(
    ("text", "gesetz"),
    [
        ("§ 433 des Bürgerlichen Gesetzbuchs", "BGB"),
        ("§ 433 des Bürgerlichen Gesetzbuches", "BGB"),
        ("§ 433 des Bürgerlichen Gesetzbuche", "BGB"),
        ("§ 433 dem Bürgerlichen Gesetzbuch", "BGB"),
        ("§ 433 im Bürgerlichen Gesetzbuch", "BGB"),
        ("§ 433 Bürgerliches Gesetzbuch", "BGB"),
        ("§ 433 des bürgerlichen Gesetzbuchs", "BGB"),
        ("§ 1 des Allgemeinen Gleichbehandlungsgesetzes", "AGG"),
        ("§ 1 des Gesetzes gegen den unlauteren Wettbewerb", "UWG"),
        ("§ 1 des Gesetzes betreffend die Gesellschaften mit beschränkter Haftung", "GmbHG"),
        ("§ 1 der Straßenverkehrs-Ordnung", "StVO"),
        ("§ 1 der Straßenverkehrsordnung", "StVO"),
        ("§ 1 des Sozialgesetzbuchs Erstes Buch", "SGB I"),
        ("§ 1 des Ersten Buches Sozialgesetzbuch", "SGB I"),
        ("§ 1 Sozialgesetzbuch Zwölftes Buch", "SGB XII"),
        ("§ 1 des Familienverfahrensgesetzes", "FamFG"),
        ("§ 1 des Bundesurlaubsgesetzes", "BUrlG"),
        ("§ 1 des Urheberrechtsgesetzes", "UrhG"),
        ("§ 1 des Markengesetzes", "MarkenG"),
        ("§ 1 des Zwangsversteigerungsgesetzes", "ZVG"),
        ("§ 1 des Gesetzes über die Zwangsversteigerung und die Zwangsverwaltung", "ZVG"),
        ("§ 1 der Zivilprozeßordnung", "ZPO"),
        ("§ 1 der Strafprozessordnung", "StPO"),
    ],
)
def test_a_statute_named_by_its_title_is_cited_by_its_abbreviation(text, gesetz):
    assert _targets(text) == [("§", text.split()[1], gesetz, "")]
    sentence = f"Nach {text}, so die Klägerin, gilt das."
    (target,) = extract(sentence, NAMES)
    assert sentence[target.start : target.end] == text  # the link covers the title


@pytest.mark.parametrize(
    "text",
    [
        "Das Bürgerliche Gesetzbuch regelt den Kauf.",
        "Das Bürgerliche Gesetzbuch regelt in § 433 den Kauf.",
        "§ 5 des Vertrags nach dem Bürgerlichen Gesetzbuch",
        "§ 1 Satz 2 des Gesetzes über die",
        "Nach dem Kündigungsschutzgesetz und § 3 der Satzung",
        "§ 2 der Handelsgesetzbuch-Novelle",
    ],
)
def test_a_title_counts_only_where_a_cited_law_stands(text):
    assert extract(text, NAMES) == []


def test_every_everyday_statute_name_names_a_shipped_statute():
    from recherche.citations import everyday_law_names

    entries = everyday_law_names()
    assert len(entries) >= 30
    for name, abk in entries:
        assert NAMES.lookup(abk) in NAMES.canonical_names, (name, abk)
        assert _targets(f"§ 1 des {name}") == [("§", "1", NAMES.lookup(abk), "")], name


def test_names_with_prepositions_and_hanging_hyphens_work_in_the_genitive():
    assert _targets("§ 1 des Gesetzes über Teilzeitarbeit und befristete Arbeitsverträge") == [("§", "1", "TzBfG", "")]
    assert _targets("§ 1 des Teilzeit- und Befristungsgesetzes") == [("§", "1", "TzBfG", "")]
    assert _targets("§ 1 des Bundeselterngeld- und Elternzeitgesetzes") == [("§", "1", "BEEG", "")]


def test_every_shipped_statute_is_recognised_by_its_official_abbreviation():
    assert len(NAMES.canonical_names) == 85
    for abk in NAMES.canonical_names:
        assert _targets(f"§ 1 {abk}") == [("§", "1", abk, "")], abk


def test_every_shipped_statute_is_recognised_by_its_title():
    for path in SHIPPED.glob("*.md"):
        if path.name == "README.md":
            continue
        with path.open(encoding="utf-8") as fh:
            front, _ = split_front_matter("".join(next(fh) for _ in range(8)))
        abk = NAMES.lookup(str(front.get("amtabk") or front["jurabk"]))
        assert _targets(f"§ 1 des {front['Title']}") == [("§", "1", abk, "")], front["Title"]


def test_citation_spans_cover_the_cited_text():
    text = "Der Anspruch folgt aus § 280 Abs. 1 BGB i. V. m. § 241 Abs. 2 BGB."
    spans = [text[z.start : z.end] for z in extract(text, NAMES)]
    assert spans == ["§ 280 Abs. 1 BGB", "§ 241 Abs. 2 BGB"]


@pytest.mark.parametrize(
    "text",
    [
        "Die Frist beträgt zwei Wochen.",
        "gemäß § 1 Satz 2 des Gesetzes",  # no statute named: nothing to check
        "Das Urteil vom 12. 3. 2024 ist rechtskräftig.",
        "Akte 12/25 Müller ./. Schmidt",
        "Wir haben am 3. Mai 2026 um 10 Uhr Termin.",
    ],
)
def test_text_without_citations_yields_nothing(text):
    assert extract(text, NAMES) == []


def test_unknown_abbreviations_are_citations_of_laws_not_in_the_corpus():
    assert _targets("Art. 6 Abs. 1 lit. f DSGVO") == [("Art.", "6", "DSGVO", "1")]
    assert _targets("§ 12 XYZ") == [("§", "12", "XYZ", "")]
    assert _targets("§ 5 Die Kündigung") == []  # an ordinary word is no statute


def test_bare_numbers_count_only_in_search_queries():
    assert _targets("573c BGB", bare_numbers=True) == [("§", "573c", "BGB", "")]
    assert _targets("Seite 573 BGB-Kommentar") == []


# The tests' corpus is a subset (tests/recherche/conftest.py); bench/retrieval.py resolves every form
# against all 85 statutes.
SUBSET_LAWS = {"BGB", "ZPO", "GG", "KSchG", "TzBfG", "ArbGG", "RVG", "GKG", "SGB II", "SGB X", "WEG"}
FORMS_IN_SUBSET = [(text, targets) for text, targets in FORMS if {t[2] for t in targets} <= SUBSET_LAWS]


@pytest.mark.django_db
@pytest.mark.parametrize(("text", "expected"), FORMS_IN_SUBSET)
def test_every_citation_form_resolves_exactly_against_the_corpus(shipped_gesetze, text, expected):
    results = resolve(extract(text, NAMES))
    assert [r.ok for r in results] == [True] * len(expected), [r.grund for r in results]
    for result, (art, nummer, gesetz, absatz) in zip(results, expected, strict=True):
        assert result.zitat == f"{art} {nummer} {gesetz}"
        assert result.stand.startswith("Zuletzt geändert durch")
        assert result.anker == (f"abs-{absatz}" if absatz else result.anker)
        assert result.reader_url.startswith("/recherche/normen/")


@pytest.mark.django_db
def test_an_annex_is_cited_as_the_annex_never_as_the_section_of_its_number(shipped_gesetze):
    for text in ("Anlage 2 RVG", "Anlage 2 zu § 13 RVG", "Anl. 2 zum RVG", "Anlage 2 (zu § 13 Absatz 1 Satz 3) RVG"):
        (result,) = resolve(extract(text, NAMES, bare_numbers=True))
        assert result.ok and result.zitat == "Anlage 2 RVG", text
    (missing,) = resolve(extract("Anlage 7 RVG", NAMES))
    assert not missing.ok and missing.ziel.text == "Anlage 7 RVG"


@pytest.mark.django_db
def test_a_citation_of_an_old_version_links_the_current_one_and_says_so(shipped_gesetze):
    for text in ("§ 434 BGB a. F.", "§ 434 Abs. 1 BGB aF", "BGB § 434 a.F.", "§ 434 BGB in der alten Fassung"):
        (result,) = resolve(extract(text, NAMES))
        assert result.ok and result.zitat == "§ 434 BGB", text
        assert "alte Fassung" in result.hinweis and result.stand in result.hinweis, text
        assert result.ziel.end == len(text), text  # the link covers "a. F."
    (current,) = resolve(extract("§ 434 BGB ist geändert worden.", NAMES))
    assert current.ok and current.hinweis == ""
    html = link_citations("<p>Nach § 434 BGB a. F. war das anders.</p>")
    assert "verlinkt ist die geltende Fassung" in html and "alte Fassung (a. F.)" in html
    assert "nicht im Bestand" not in html


@pytest.mark.django_db
def test_fee_numbers_resolve_to_their_entry_and_missing_ones_are_flagged(shipped_gesetze):
    (vv,) = resolve(extract("Nr. 3100 VV RVG", NAMES))
    assert vv.ok and vv.zitat == "Anlage 1 RVG" and vv.anker == "nr-3100"
    (missing,) = resolve(extract("Nr. 9999 VV RVG", NAMES))
    assert not missing.ok and "9999" in missing.grund


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "grund"),
    [
        ("Art. 6 Abs. 1 lit. f DSGVO", "Gesetz „DSGVO“ ist nicht im Bestand."),
        ("§ 9999 BGB", "§ 9999 BGB gibt es im Bestand nicht."),
        ("§ 10 BGB", "§ 10 BGB ist weggefallen (aufgehoben)."),
        ("§ 573 Abs. 9 BGB", "§ 573 BGB hat keinen Absatz 9."),
    ],
)
def test_citations_that_do_not_resolve_say_why(shipped_gesetze, text, grund):
    (result,) = resolve(extract(text, NAMES))
    assert not result.ok and result.grund == grund


@pytest.mark.django_db
def test_check_text_counts_unresolved_norms_and_decisions(shipped_gesetze):
    from recherche.models import Urteil

    Urteil.objects.create(
        external_id="t1", gericht="BGH", datum="2024-01-10", aktenzeichen="VIII ZR 123/22", text="…", typ="Urteil"
    )
    report = check_text(
        "Die Kündigung ist nach § 573 Abs. 2 Nr. 2 BGB wirksam (BGH, Urteil vom 10.1.2024 – VIII ZR 123/22); "
        "§ 9999 BGB und BGH VIII ZR 1/99 helfen nicht."
    )
    data = report.as_dict()
    assert data["geprueft"] == 4 and data["nicht_im_bestand"] == 2
    assert [n["ok"] for n in data["normen"]] == [True, False]
    assert [u["ok"] for u in data["urteile"]] == [True, False]


def test_every_statute_named_in_the_fields_of_law_is_in_the_corpus():
    from recherche.search import _sachgebiete

    named = {law for laws, _signals in _sachgebiete().values() for law in laws}
    assert named and named <= NAMES.canonical_names


@pytest.mark.django_db
def test_fee_numbers_of_annexes_the_source_lacks_resolve_with_a_notice(shipped_gesetze):
    (kv,) = resolve(extract("KV 1210 GKG", NAMES))
    assert kv.ok and kv.zitat == "Anlage 1 GKG" and "nur die Fundstelle" in kv.hinweis


@pytest.mark.django_db
def test_an_article_that_only_holds_sections_is_no_repealed_one():
    from recherche.models import Gesetz, Norm

    gesetz = Gesetz.objects.create(abkuerzung="BGBEG", titel="EGBGB", slug="bgbeg", aliase=["EGBGB"])
    Norm.objects.create(
        gesetz=gesetz, art="Art.", nummer="246a", titel="Informationspflichten", text="", aufgehoben=True, position=1
    )
    Norm.objects.create(gesetz=gesetz, art="Art.", nummer="247", titel="(weggefallen)", text="", aufgehoben=True, position=2)
    from recherche.citations import law_names

    names = law_names()
    (container,) = resolve(extract("Art. 246a § 1 EGBGB", names))
    assert container.ok and container.zitat == "Art. 246a BGBEG"
    (repealed,) = resolve(extract("Art. 247 EGBGB", names))
    assert not repealed.ok and "weggefallen" in repealed.grund


@pytest.mark.django_db
def test_the_law_names_follow_every_change_of_the_statutes_names():
    """The parsed names are kept per fingerprint of the statutes' names: an added statute, a new
    alias and a new title (also written past the ORM's save) are known on the next call."""
    from recherche.citations import law_names
    from recherche.models import Gesetz

    gesetz = Gesetz.objects.create(abkuerzung="PrüfG", titel="Prüfgesetz", slug="pruefg")
    assert law_names().lookup("PrüfG") == "PrüfG" and law_names().lookup("PrüfVG") is None
    Gesetz.objects.filter(pk=gesetz.pk).update(aliase=["PrüfVG"])
    assert law_names().lookup("PrüfVG") == "PrüfG"
    Gesetz.objects.filter(pk=gesetz.pk).update(titel="Gesetz über die Prüfung von Namen")
    assert law_names().law_at("nach dem Gesetz über die Prüfung von Namen", 5)[0] == "PrüfG"
    Gesetz.objects.create(abkuerzung="ZweitG", titel="Zweitgesetz", slug="zweitg")
    assert law_names().lookup("ZweitG") == "ZweitG"


@pytest.mark.django_db
def test_a_section_of_an_egbgb_article_resolves_to_itself_with_its_absatz():
    """Before, "Art. 246a § 1 Abs. 2 EGBGB" was not recognised at all (no check), "Art. 229 § 6
    EGBGB" linked to the empty article, and "§ 1 EGBGB" (no such norm: the EGBGB has articles) to
    one of twenty sections numbered 1."""
    from django.core.management import call_command

    from recherche.citations import law_names
    from recherche.models import Norm

    call_command("ingest_gesetze", str(SHIPPED), "--only", "bgbeg", "--no-embed", verbosity=0)
    names = law_names()
    abs2, missing_absatz, missing, bare, article = resolve(
        extract(
            "Art. 246a § 1 Abs. 2 EGBGB, Art. 246a § 1 Abs. 9 EGBGB, Art. 246a § 9 EGBGB, § 1 EGBGB, Art. 229 EGBGB",
            names,
        )
    )
    assert abs2.ok and abs2.zitat == "Art. 246a § 1 BGBEG" and abs2.anker == "abs-2"
    assert not missing_absatz.ok and "Absatz 9" in missing_absatz.grund
    assert not missing.ok and not bare.ok
    assert article.ok and article.zitat == "Art. 229 BGBEG"
    (transition,) = resolve(extract("Art. 229 § 6 Abs. 1 EGBGB", names))
    assert (
        transition.ok
        and transition.zitat == "Art. 229 § 6 BGBEG"
        and "Verjährung" in Norm.objects.get(pk=transition.norm_id).titel
    )
