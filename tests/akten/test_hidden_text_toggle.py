"""Hidden Word text is a toggle property (ECMA-376 Part 1 §17.7.3): in styles a `w:vanish` flips
the state reached so far in the style hierarchy (document defaults, table style, paragraph style,
character style; each the first value along its basedOn chain), so a hidden paragraph style and a
hidden character style show the text; on the run itself `w:vanish` is absolute. Helena removes what
Word hides, and only that: the Mandantin neither loses text Word shows nor receives text Word hides."""

from __future__ import annotations

import io

import docx
import pytest
from django.test import Client
from django.urls import reverse
from docx.enum.style import WD_STYLE_TYPE
from docx.oxml.ns import qn
from lxml import etree

from akten.extraction import HiddenText
from tests.confidentiality.test_released_files import _download, _released
from tests.confidentiality.world import build_world
from tests.schriftgut.helpers import docx_text, pdf_text


def _stil(document, name: str, typ: WD_STYLE_TYPE, *, versteckt: bool | None = None, basis: str | None = None):
    stil = document.styles.add_style(name, typ)
    if basis is not None:
        stil.base_style = document.styles[basis]
    if versteckt is not None:
        stil.font.hidden = versteckt  # False writes <w:vanish w:val="0"/>
    return stil


def _verborgen(document) -> dict[str, bool]:
    """Text of each run → whether HiddenText calls it hidden."""
    verborgen = HiddenText.of(document)
    return {
        "".join(t.text or "" for t in run.iter(qn("w:t"))): verborgen(run)
        for run in document.element.body.iter(qn("w:r"))
        if run.find(qn("w:t")) is not None
    }


def _dokument_mit_stilen():
    """Paragraph and character styles that hide text, on their own, combined, through basedOn."""
    document = docx.Document()
    _stil(document, "Notizabsatz", WD_STYLE_TYPE.PARAGRAPH, versteckt=True)
    _stil(document, "Notizzeichen", WD_STYLE_TYPE.CHARACTER, versteckt=True)
    _stil(document, "Notizabsatz Anlage", WD_STYLE_TYPE.PARAGRAPH, basis="Notizabsatz")
    _stil(document, "Notizzeichen Betont", WD_STYLE_TYPE.CHARACTER, basis="Notizzeichen")
    _stil(document, "Anlage sichtbar", WD_STYLE_TYPE.PARAGRAPH, versteckt=False, basis="Notizabsatz")

    document.add_paragraph("Sichtbarer Einleitungssatz.")
    notiz = document.add_paragraph(style="Notizabsatz")
    notiz.add_run("Absatzstil versteckt.")
    notiz.add_run("Beide Stile zeigen.", style="Notizzeichen")
    notiz.add_run("Direkt gezeigt.").font.hidden = False
    zeichen = document.add_paragraph()
    zeichen.add_run("Zeichenstil versteckt.", style="Notizzeichen")
    direkt = zeichen.add_run("Direkt versteckt trotz Stil.", style="Notizzeichen")
    anlage = document.add_paragraph(style="Notizabsatz Anlage")
    anlage.add_run("Geerbt versteckt.")
    anlage.add_run("Geerbt zweimal gezeigt.", style="Notizzeichen Betont")
    document.add_paragraph(style="Anlage sichtbar").add_run("Basis ueberschrieben gezeigt.")
    # direct formatting is absolute: hidden, although the styles (paragraph + character) show it
    beide = document.add_paragraph(style="Notizabsatz")
    beide.add_run("Direkt versteckt trotz zwei Stilen.", style="Notizzeichen").font.hidden = True
    direkt.font.hidden = True
    return document


ERWARTET = {
    "Sichtbarer Einleitungssatz.": False,
    "Absatzstil versteckt.": True,
    "Beide Stile zeigen.": False,  # paragraph style vanish XOR character style vanish
    "Direkt gezeigt.": False,  # <w:vanish w:val="0"/> on the run wins over the paragraph style
    "Zeichenstil versteckt.": True,
    "Direkt versteckt trotz Stil.": True,
    "Geerbt versteckt.": True,  # basedOn: the paragraph style inherits vanish from its base
    "Geerbt zweimal gezeigt.": False,  # both inherited through basedOn, then combined by XOR
    "Basis ueberschrieben gezeigt.": False,  # the first value along the basedOn chain counts (val="0")
    "Direkt versteckt trotz zwei Stilen.": True,
}


def test_vanish_in_styles_toggles_and_direct_formatting_is_absolute():
    assert _verborgen(_dokument_mit_stilen()) == ERWARTET


def _doc_defaults_vanish(document) -> None:
    styles = document.styles.element
    defaults = styles.find(qn("w:docDefaults"))
    rpr = defaults.find(f"{qn('w:rPrDefault')}/{qn('w:rPr')}")
    etree.SubElement(rpr, qn("w:vanish"))


def test_document_defaults_are_the_start_of_the_toggle():
    document = docx.Document()
    _doc_defaults_vanish(document)
    _stil(document, "Zeigen", WD_STYLE_TYPE.PARAGRAPH, versteckt=True)
    document.add_paragraph("Standard versteckt.")
    document.add_paragraph("Stil zeigt.", style="Zeigen")
    document.add_paragraph().add_run("Direkt gezeigt.").font.hidden = False
    assert _verborgen(document) == {"Standard versteckt.": True, "Stil zeigt.": False, "Direkt gezeigt.": False}


def test_a_table_style_is_a_level_of_the_toggle():
    document = docx.Document()
    tabellenstil = _stil(document, "Interne Tabelle", WD_STYLE_TYPE.TABLE, versteckt=True)
    _stil(document, "Notizzeichen", WD_STYLE_TYPE.CHARACTER, versteckt=True)
    tabelle = document.add_table(rows=1, cols=2)
    tabelle.style = tabellenstil
    tabelle.cell(0, 0).paragraphs[0].add_run("Tabellenstil versteckt.")
    tabelle.cell(0, 1).paragraphs[0].add_run("Tabelle und Zeichenstil zeigen.", style="Notizzeichen")
    document.add_paragraph().add_run("Ausserhalb versteckt.", style="Notizzeichen")
    assert _verborgen(document) == {
        "Tabellenstil versteckt.": True,
        "Tabelle und Zeichenstil zeigen.": False,
        "Ausserhalb versteckt.": True,
    }


def _marke(absatz):
    """The run properties of the paragraph mark (w:pPr/w:rPr), created."""
    return etree.SubElement(absatz._p.get_or_add_pPr(), qn("w:rPr"))


def test_a_paragraph_mark_follows_the_same_rule():
    document = docx.Document()
    _stil(document, "Notizabsatz", WD_STYLE_TYPE.PARAGRAPH, versteckt=True)
    _stil(document, "Notizzeichen", WD_STYLE_TYPE.CHARACTER, versteckt=True)
    versteckt = document.add_paragraph(style="Notizabsatz")
    gezeigt = document.add_paragraph(style="Notizabsatz")
    etree.SubElement(_marke(gezeigt), qn("w:rStyle")).set(qn("w:val"), "Notizzeichen")
    direkt = document.add_paragraph()
    etree.SubElement(_marke(direkt), qn("w:vanish"))
    normal = document.add_paragraph("Normal")
    verborgen = HiddenText.of(document)
    assert [verborgen.mark(p._p) for p in (versteckt, gezeigt, direkt, normal)] == [True, False, True, False]


def _speichern(document) -> bytes:
    puffer = io.BytesIO()
    document.save(puffer)
    return puffer.getvalue()


@pytest.mark.django_db
def test_the_mandantin_receives_exactly_the_text_word_shows():
    world = build_world()
    document = _dokument_mit_stilen()
    # a whole paragraph in the hidden paragraph style: its mark is hidden by the style, so it goes
    document.add_paragraph("Notiz an Kollegin: Mandantin wirkt unglaubwuerdig.", style="Notizabsatz")
    document.add_paragraph("Mit freundlichen Gruessen")
    dokument = _released(world, "brief.docx", _speichern(document))
    gezeigt = [text for text, versteckt in ERWARTET.items() if not versteckt]
    versteckt = [*(text for text, versteckt in ERWARTET.items() if versteckt), "unglaubwuerdig"]

    antwort = _download(world.mandantin, dokument)
    assert antwort.status_code == 200
    word = docx.Document(io.BytesIO(antwort.content))
    text = docx_text(antwort.content)
    assert all(g in text for g in gezeigt), text
    assert not [v for v in versteckt if v in text]
    # the hidden paragraph left no empty line between the visible ones
    assert [p.text for p in word.paragraphs][-2:] == ["Basis ueberschrieben gezeigt.", "Mit freundlichen Gruessen"]

    pdf = pdf_text(_download(world.mandantin, dokument, "api-dokument-datei", ausgabe="pdf").content)
    assert all(g in pdf for g in gezeigt) and not [v for v in versteckt if v in pdf]

    client = Client()
    client.force_login(world.mandantin)
    detail = client.get(reverse("api-dokument-detail", args=[dokument.pk])).json()
    assert all(g in detail["text"] for g in gezeigt) and not [v for v in versteckt if v in detail["text"]]
