"""Letters review of 2026-12-04: a letter to the other side goes to its lawyer where it has one
(§ 12 BORA), with a salutation for the person, a foreign address ends with the country, the Rubrum
names the other side's Prozessbevollmächtigte, and the shipped templates are German documents."""

from __future__ import annotations

import datetime
import io

import docx
import pytest
from docx.oxml.ns import qn

from akten.models import Beteiligter, Kontakt
from schriftgut.services import schriftstueck_rendern, vorlage_waehlen
from tests.factories import BeteiligterFactory, KontaktFactory

from .helpers import akte_mit_parteien, docx_text, kanzlei

pytestmark = pytest.mark.django_db
HEUTE = datetime.date(2026, 12, 4)


def _brief(akte, vorlage: str = "Brief") -> str:
    ergebnis = schriftstueck_rendern(
        akte=akte, titel="Zahlungsaufforderung", markdown="Text.", vorlage=vorlage_waehlen(vorlage).als_payload(), heute=HEUTE
    )
    return docx_text(ergebnis.docx)


def test_a_letter_goes_to_the_other_sides_lawyer_where_it_has_one():
    kanzlei()
    akte = akte_mit_parteien()
    ohne = _brief(akte)
    assert "Hans Schmidt" in ohne and "Hauptstraße 5" in ohne and "Sehr geehrter Herr Schmidt," in ohne

    anwalt = KontaktFactory(
        typ=Kontakt.Typ.JURISTISCH, firma="Kanzlei Groß & Partner", strasse="Am Markt 1", plz="10178", ort="Berlin"
    )
    BeteiligterFactory(akte=akte, kontakt=anwalt, rolle=Beteiligter.Rolle.GEGNERVERTRETER)
    for vorlage in ("Brief", "Mahnschreiben"):
        text = _brief(akte, vorlage)
        assert "Kanzlei Groß & Partner" in text and "Am Markt 1" in text and "Sehr geehrte Damen und Herren," in text
        assert "Hauptstraße 5" not in text  # no letter to the represented party itself


def test_a_foreign_address_ends_with_the_country():
    kanzlei()
    akte = akte_mit_parteien()
    Beteiligter.objects.filter(akte=akte, rolle=Beteiligter.Rolle.GEGNER).update(
        kontakt=KontaktFactory(
            typ=Kontakt.Typ.JURISTISCH, firma="Alpen GmbH", strasse="Ölweg 2", plz="1010", ort="Wien", land="AT"
        )
    )
    zeilen = _brief(akte).splitlines()
    index = zeilen.index("1010 Wien")
    assert zeilen[index + 1] == "ÖSTERREICH"


def test_the_rubrum_names_the_other_sides_prozessbevollmaechtigte():
    kanzlei()
    akte = akte_mit_parteien()
    anwalt = KontaktFactory(
        typ=Kontakt.Typ.JURISTISCH, firma="Kanzlei Groß & Partner", strasse="Am Markt 1", plz="10178", ort="Berlin"
    )
    BeteiligterFactory(akte=akte, kontakt=anwalt, rolle=Beteiligter.Rolle.GEGNERVERTRETER)
    wahl = vorlage_waehlen("Klageerwiderung")
    text = docx_text(
        schriftstueck_rendern(akte=akte, titel="Klageerwiderung", markdown="Text.", vorlage=wahl.als_payload(), heute=HEUTE).docx
    )
    klaeger = text.index("– Kläger –")
    assert "Prozessbevollmächtigte: Kanzlei Groß & Partner, Am Markt 1, 10178 Berlin" in text[klaeger:]


def test_the_shipped_templates_are_german_documents():
    kanzlei()
    ergebnis = schriftstueck_rendern(
        akte=akte_mit_parteien(), titel="Brief", markdown="Text.", vorlage=vorlage_waehlen("Brief").als_payload(), heute=HEUTE
    )
    gelesen = docx.Document(io.BytesIO(ergebnis.docx))
    lang = gelesen.styles.element.find(f"{qn('w:docDefaults')}/{qn('w:rPrDefault')}/{qn('w:rPr')}/{qn('w:lang')}")
    assert lang is not None and lang.get(qn("w:val")) == "de-DE"


@pytest.mark.parametrize("freitext", ["", "Text davor.\n\n| A | B |\n|---|---|\n| 1 | 2 |"])
def test_a_cell_holding_the_free_text_still_ends_with_a_paragraph(freitext):
    """Word requires a paragraph at the end of every table cell; a cell with "{{p freitext }}" was
    left with none when the text was empty or ended in a table, and Word refused the file."""
    from schriftgut.platzhalter import PLATZHALTER, Kontext
    from schriftgut.vorlagen import vorlage_rendern

    vorlage = docx.Document()
    tabelle = vorlage.add_table(rows=1, cols=2)
    tabelle.cell(0, 0).paragraphs[0].text = "{{ mandant }}"
    tabelle.cell(0, 1).paragraphs[0].text = "{{p freitext }}"
    puffer = io.BytesIO()
    vorlage.save(puffer)
    werte = dict.fromkeys(PLATZHALTER) | {"mandant": "Erika Mustermann", "freitext": freitext}
    gerendert = vorlage_rendern(puffer.getvalue(), Kontext(werte=werte))
    zellen = list(gerendert.docx.element.body.iter(qn("w:tc")))
    assert zellen and all(zelle[-1].tag == qn("w:p") for zelle in zellen)
