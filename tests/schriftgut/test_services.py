"""Rendering an Akte's Schriftsatz to DOCX and PDF with letterhead; Rechnungsnummern."""

from __future__ import annotations

import datetime

import pytest

from akten.models import RechnungsnummerZaehler
from schriftgut.services import rechnungsnummer_vergeben, schriftstueck_rendern, vorlage_waehlen
from schriftgut.vorlagen import VorlagenFehler

from .helpers import akte_mit_parteien, docx_text, kanzlei, pdf_text

pytestmark = pytest.mark.django_db

FREITEXT = "## Anträge\n\nDie Klage wird abgewiesen.\n\n## Begründung\n\nDie Miete wurde **vollständig** gezahlt."


def test_klageerwiderung_docx_has_letterhead_rubrum_and_every_field() -> None:
    kanzlei()
    akte = akte_mit_parteien()
    wahl = vorlage_waehlen("Klageerwiderung")
    ergebnis = schriftstueck_rendern(
        akte=akte, titel="Klageerwiderung", markdown=FREITEXT, vorlage=wahl.als_payload(), heute=datetime.date(2026, 11, 24)
    )
    text = docx_text(ergebnis.docx)
    for erwartet in (
        "Kanzlei Müller & Becker",  # letterhead
        "Dr. Katrin Müller, Fachanwältin für Mietrecht",
        "Friedrichstraße 100, 10117 Berlin",
        "IBAN DE89 3704 0044 0532 0130 00",  # footer
        "Unser Zeichen: 12/26",  # Aktenzeichen in the information block
        "Amtsgericht Tempelhof-Kreuzberg",
        "Az. des Gerichts: 7 C 123/26",
        "Berlin, 24. November 2026",
        "Erika Mustermann, Musterweg 1, 10115 Berlin",
        "– Beklagte –",
        "Hans Schmidt, Hauptstraße 5, 10827 Berlin",
        "– Kläger –",
        "Prozessbevollmächtigte: Kanzlei Müller & Becker",  # not "Rechtsanwälte Kanzlei …"
        "wegen Mietzahlung",
        "Die Miete wurde vollständig gezahlt.",
        "Katrin Müller",
    ):
        assert erwartet in text, erwartet
    assert ergebnis.fehlend == []
    assert "{{" not in text and "{%" not in text and "[fehlt" not in text


def test_pdf_has_the_same_content_page_numbers_and_aktenzeichen() -> None:
    kanzlei()
    akte = akte_mit_parteien()
    wahl = vorlage_waehlen("Kündigungsschutzklage")
    ergebnis = schriftstueck_rendern(akte=akte, titel="Kündigungsschutzklage", markdown=FREITEXT, vorlage=wahl.als_payload())
    text = pdf_text(ergebnis.pdf())
    for erwartet in (
        "Kanzlei Müller & Becker",
        "Unser Zeichen: 12/26",  # in the information block; „Seite X von Y“ only from page 2 (DIN 5008)
        "Kündigungsschutzklage",
        "– Klägerin –",
        "Vorläufiger Streitwert: 5.400,00 €",
        "Die Miete wurde vollständig gezahlt.",
        "BEVODEBBXXX",
    ):
        assert erwartet in text, erwartet


def test_missing_court_data_is_listed_and_marked() -> None:
    kanzlei()
    akte = akte_mit_parteien()
    akte.gericht_aktenzeichen = ""
    akte.save()
    ergebnis = schriftstueck_rendern(
        akte=akte, titel="Klageerwiderung", markdown="Text.", vorlage=vorlage_waehlen("klageerwiderung").als_payload()
    )
    assert ergebnis.fehlend == ["Aktenzeichen des Gerichts"]
    assert "[fehlt: Aktenzeichen des Gerichts]" in docx_text(ergebnis.docx)


def test_unknown_template_name_lists_what_exists() -> None:
    with pytest.raises(VorlagenFehler, match="Vorhanden: .*Klageerwiderung.*Mahnschreiben"):
        vorlage_waehlen("Testament")


def test_rechnungsnummern_are_sequential_per_year_and_never_reused() -> None:
    assert rechnungsnummer_vergeben(jahr=2026) == "2026-0001"
    assert rechnungsnummer_vergeben(jahr=2026) == "2026-0002"
    assert rechnungsnummer_vergeben(jahr=2027) == "2027-0001"
    assert RechnungsnummerZaehler.objects.get(jahr=2026).letzte_nummer == 2


def test_the_most_specific_template_name_wins_and_firm_templates_first() -> None:
    import io

    import docx
    from django.core.files.uploadedfile import SimpleUploadedFile

    from akten.models import DokumentVorlage

    document = docx.Document()
    document.add_paragraph("{{ gericht }}")
    buffer = io.BytesIO()
    document.save(buffer)
    DokumentVorlage.objects.create(name="Klageerwiderung", datei=SimpleUploadedFile("k.docx", buffer.getvalue()))
    assert vorlage_waehlen("Kündigungsschutzklage für Herrn Schmidt").stand.name == "Kündigungsschutzklage"
    assert vorlage_waehlen("Klage").stand.name == "Klage"
    firm = vorlage_waehlen("klageerwiderung")
    assert firm.stand.name == "Klageerwiderung" and bytes(firm.stand.inhalt) == buffer.getvalue()
