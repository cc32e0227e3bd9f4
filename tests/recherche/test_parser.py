from pathlib import Path

from recherche.gesetze_parser import parse_file, parse_gesetz

MINI = Path(__file__).resolve().parent / "data" / "testg.md"
SHIPPED = Path(__file__).resolve().parents[2] / "recherche" / "data" / "gesetze"


def test_parses_front_matter_stand_structure_and_norms():
    gesetz = parse_file(MINI)
    assert (gesetz.abkuerzung, gesetz.slug, gesetz.titel) == ("TestG", "testg", "Gesetz zur Erprobung der Suche")
    assert gesetz.stand == "Zuletzt geändert durch Art. 1 G v. 1.2.2021 I 99"
    assert [n.nummer for n in gesetz.normen] == ["1", "1a", "2 bis 4", "5", "6", "1"]
    first = gesetz.normen[0]
    assert first.titel == "Beginn der Kündigungsfrist"
    assert first.gliederung == "Abschnitt 1 - Allgemeines › Unterabschnitt 1 - Fristen"
    assert first.text == (
        "(1) Die Kündigungsfrist beginnt mit dem Zugang der Kündigung.\n\n"
        "(2) Sie endet mit dem Ablauf des letzten Tages der Frist."
    )
    assert [n.aufgehoben for n in gesetz.normen] == [False, False, True, True, False, False]
    raeumung = gesetz.normen[4]
    assert raeumung.gliederung == "Abschnitt 2 - Schlussvorschriften"
    anlage = gesetz.normen[5]
    assert (anlage.art, anlage.nummer, anlage.titel) == ("Anlage", "1", "Gebührentabelle")
    assert "| 500 | 49 |" in anlage.text  # the empty heading continues the annex


def test_grundgesetz_articles_and_year_suffix_in_abbreviation():
    gg = parse_gesetz(
        "---\njurabk: GG\nslug: gg\n---\n# GG\n\n## I. - Die Grundrechte\n\n"
        "### Art 1\n\n(1) Die Würde des Menschen ist unantastbar.\n"
    )
    assert [(n.art, n.nummer) for n in gg.normen] == [("Art.", "1")]
    gkg = parse_gesetz("---\njurabk: GKG 2004\nslug: gkg_2004\n---\n# GKG\n")
    assert gkg.abkuerzung == "GKG"


def test_every_shipped_statute_parses_with_norms():
    for path in sorted(SHIPPED.glob("*.md")):
        if path.name == "README.md":
            continue
        gesetz = parse_file(path)
        assert gesetz.normen, path.name
        assert gesetz.abkuerzung and gesetz.slug
        assert len({n.position for n in gesetz.normen}) == len(gesetz.normen)


def test_2026_front_matter_without_closing_line_and_official_abbreviations():
    sgb = parse_gesetz(
        '---\nTitle: "SGB X"\njurabk: "SGB 10"\namtabk: "SGB X"\nslug: sgb_10\nbjnr: BJNR114690980\n'
        "# Sozialgesetzbuch (SGB) Zehntes Buch (X)\n\nZuletzt geändert durch\n:   Art. 2 G v. 16.4.2026 I Nr. 106\n\n"
        "## § 44 Rücknahme eines rechtswidrigen nicht begünstigenden Verwaltungsaktes\n\n(1) Text.\n"
    )
    assert (sgb.abkuerzung, sgb.aliase, sgb.bjnr, sgb.slug) == ("SGB X", ["SGB 10"], "BJNR114690980", "sgb_10")
    assert sgb.stand == "Zuletzt geändert durch Art. 2 G v. 16.4.2026 I Nr. 106"
    assert [(n.art, n.nummer) for n in sgb.normen] == [("§", "44")]


def test_canonical_abbreviations():
    from recherche.gesetze_parser import canonical_abkuerzung

    assert canonical_abkuerzung("SGB 2") == "SGB II"
    assert canonical_abkuerzung("SGB 12") == "SGB XII"
    assert canonical_abkuerzung("GKG 2004") == "GKG"
    assert canonical_abkuerzung("TDDDG") == "TDDDG"


def test_the_shipped_corpus_is_the_2026_one_with_stand_for_every_statute():
    index = (SHIPPED / "INDEX.tsv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(index) == 85
    rvg = parse_file(SHIPPED / "rvg.md")
    assert rvg.stand == "Zuletzt geändert durch Art. 14 G v. 8.12.2025 I Nr. 318"
    # never amended since its Ausfertigung: before, its Stand read "unbekannt"
    assert parse_file(SHIPPED / "woflv.md").stand == "Ursprüngliche Fassung vom 25.11.2003 (keine Änderung vermerkt)"


def test_sections_inside_an_egbgb_article_are_norms_of_that_article():
    """The EGBGB's articles hold sections ("Art 246a" with "§ 1 Informationspflichten"). Before, each
    became "§ 1 BGBEG": twenty norms of one citation, none citable as "Art. 246a § 1 EGBGB"."""
    text = (
        "---\njurabk: BGBEG\nslug: bgbeg\n---\n# EGBGB\n\n## Siebter Teil\n\n"
        "##### Art 246a\n\n###### § 1 Informationspflichten\n\n(1) Der Unternehmer ist verpflichtet.\n\n"
        "###### § 2 Erleichterte Informationspflichten\n\n(1) Bei Reparaturen.\n\n"
        "##### Art 248 Zahlungsdienste\n\n###### Art 248\n\n###### § 1 Konkurrierende Informationspflichten\n\nText.\n\n"
        "## Achter Teil\n\n##### Art 250\n\nEin Artikel mit eigenem Text.\n"
    )
    gesetz = parse_gesetz(text)
    assert [(n.art, n.nummer, n.titel) for n in gesetz.normen] == [
        ("Art.", "246a", ""),
        ("Art.", "246a § 1", "Informationspflichten"),
        ("Art.", "246a § 2", "Erleichterte Informationspflichten"),
        ("Art.", "248", "Zahlungsdienste"),
        ("Art.", "248 § 1", "Konkurrierende Informationspflichten"),
        ("Art.", "250", ""),
    ]
    assert gesetz.normen[1].gliederung == "Siebter Teil › Art 246a"
    assert gesetz.normen[0].aufgehoben and not gesetz.normen[1].aufgehoben and not gesetz.normen[5].aufgehoben


def test_the_shipped_egbgb_has_no_two_norms_of_one_citation():
    gesetz = parse_file(SHIPPED / "bgbeg.md")
    citations = [(n.art, n.nummer) for n in gesetz.normen]
    assert len(citations) == len(set(citations))
    assert ("Art.", "246a § 1") in citations and ("Art.", "229 § 6") in citations
    assert not [n for n in gesetz.normen if n.art == "§"]


def test_the_outline_of_a_section_follows_the_kind_of_heading_not_the_sources_levels():
    """Before, the path kept every heading of a higher Markdown level: § 1922 BGB read "Buch 1
    Allgemeiner Teil › Buch 5 Erbrecht", § 21 BGB "Titel 1 … › Titel 2 …" without its Untertitel,
    Art. 20 GG "I. Die Grundrechte › II. Der Bund und die Länder" (14,926 of 16,412 paths)."""

    def outline(name: str, art: str, nummer: str) -> str:
        return next(n.gliederung for n in parse_file(SHIPPED / f"{name}.md").normen if (n.art, n.nummer) == (art, nummer))

    assert outline("bgb", "§", "1922") == "Buch 5 Erbrecht › Abschnitt 1 Erbfolge"
    assert outline("bgb", "§", "21") == (
        "Buch 1 Allgemeiner Teil › Abschnitt 1 Personen › Titel 2 Juristische Personen › Untertitel 1 Vereine › "
        "Kapitel 1 Allgemeine Vorschriften"
    )
    assert outline("bgb", "§", "573") == (
        "Buch 2 Recht der Schuldverhältnisse › Abschnitt 8 Einzelne Schuldverhältnisse › Titel 5 Mietvertrag, Pachtvertrag › "
        "Untertitel 2 Mietverhältnisse über Wohnraum › Kapitel 5 Beendigung des Mietverhältnisses › "
        "Unterkapitel 2 Mietverhältnisse auf unbestimmte Zeit"
    )
    assert outline("zpo", "§", "517") == "Buch 3 Rechtsmittel › Abschnitt 1 Berufung"
    assert outline("gg", "Art.", "20") == "II. Der Bund und die Länder"
    assert (
        outline("stgb", "§", "38")
        == "Allgemeiner Teil › Dritter Abschnitt Rechtsfolgen der Tat › Erster Titel Strafen › Freiheitsstrafe"
    )
    assert outline("estg", "§", "15") == (
        "II. Einkommen › 8. Die einzelnen Einkunftsarten › b) Gewerbebetrieb (§ 2 Absatz 1 Satz 1 Nummer 2)"
    )
