"""Templates shipped with Helena (so that the demo works without uploads), built with python-docx
in the same placeholder syntax a firm uses in Word. A firm template with the same name wins."""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from typing import Any

import docx
from docx.document import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Cm, Pt

from akten.models import DokumentVorlage

from .platzhalter import PARTEI_BEKLAGTER, PARTEI_KLAEGER


@dataclass(frozen=True)
class Mitgeliefert:
    schluessel: str
    name: str
    art: str
    mandant_partei: str
    suchbegriffe: tuple[str, ...]


MITGELIEFERT = (
    Mitgeliefert(
        "KLAGEERWIDERUNG", "Klageerwiderung", DokumentVorlage.Art.SCHRIFTSATZ, PARTEI_BEKLAGTER, ("klageerwiderung", "erwiderung")
    ),
    Mitgeliefert("KLAGE", "Klage", DokumentVorlage.Art.SCHRIFTSATZ, PARTEI_KLAEGER, ("klage", "klageschrift")),
    Mitgeliefert(
        "KUENDIGUNGSSCHUTZKLAGE",
        "Kündigungsschutzklage",
        DokumentVorlage.Art.SCHRIFTSATZ,
        PARTEI_KLAEGER,
        ("kündigungsschutzklage", "kuendigungsschutzklage", "kündigungsschutz"),
    ),
    Mitgeliefert("SCHRIFTSATZ", "Schriftsatz", DokumentVorlage.Art.SCHRIFTSATZ, "", ("schriftsatz",)),
    Mitgeliefert(
        "MAHNSCHREIBEN", "Mahnschreiben", DokumentVorlage.Art.BRIEF, "", ("mahnschreiben", "mahnung", "zahlungsaufforderung")
    ),
    Mitgeliefert("BRIEF", "Brief", DokumentVorlage.Art.BRIEF, "", ("brief", "schreiben", "anschreiben")),
    Mitgeliefert("DOKUMENT", "Dokument", DokumentVorlage.Art.BRIEF, "", ("vermerk", "dokument")),
    Mitgeliefert("KOSTENNOTE", "Kostennote", DokumentVorlage.Art.KOSTENNOTE, "", ("kostennote", "rechnung", "vorschussrechnung")),
)
NACH_SCHLUESSEL = {m.schluessel: m for m in MITGELIEFERT}


def _neu() -> Document:
    doc = docx.Document()
    section = doc.sections[0]
    section.page_width, section.page_height = Cm(21), Cm(29.7)
    section.left_margin, section.right_margin = Cm(2.5), Cm(2)
    section.top_margin, section.bottom_margin = Cm(2.5), Cm(2)
    doc.styles["Normal"].font.size = Pt(11)
    doc.core_properties.author = "Helena"
    doc.core_properties.language = "de-DE"
    _deutsch(doc)
    return doc


def _deutsch(doc: Document) -> None:
    """German as the document's language (spelling and hyphenation in Word): python-docx's default
    template says en-US in its default run properties and its theme font language."""
    standard = doc.styles.element.find(qn("w:docDefaults"))
    rpr = standard.find(f"{qn('w:rPrDefault')}/{qn('w:rPr')}") if standard is not None else None
    if rpr is not None:
        lang = rpr.find(qn("w:lang"))
        if lang is None:
            lang = OxmlElement("w:lang")
            rpr.append(lang)
        lang.set(qn("w:val"), "de-DE")
        lang.set(qn("w:eastAsia"), "de-DE")
    theme = doc.settings.element.find(qn("w:themeFontLang"))
    if theme is not None:
        theme.set(qn("w:val"), "de-DE")


def _breiten(table: Any, cm: tuple[float, ...]) -> None:
    """Column widths in cm, in the grid (read by the PDF) and on every cell (read by Word)."""
    table.autofit = False
    for spalte, breite in zip(table.columns, cm, strict=True):
        spalte.width = Cm(breite)
        for zelle in spalte.cells:
            zelle.width = Cm(breite)


def _p(doc: Document, text: str = "", *, bold: bool = False, size: float | None = None, align: Any = None) -> None:
    paragraph = doc.add_paragraph()
    if text:
        run = paragraph.add_run(text)
        run.bold = bold
        if size:
            run.font.size = Pt(size)
    if align is not None:
        paragraph.alignment = align


def _schriftsatz(titel: str, *, streitwert: bool) -> Document:
    doc = _neu()
    _p(doc, "{{ kanzlei_absender }}", size=7)
    _p(doc, "{{ gericht }}")
    _p(doc, "{{ gericht_ort }}")
    _p(doc, "{{ ort_datum }}", align=WD_ALIGN_PARAGRAPH.RIGHT)
    _p(doc, "Unser Zeichen: {{ aktenzeichen }}", align=WD_ALIGN_PARAGRAPH.RIGHT)
    _p(doc, "Az. des Gerichts: {{ gericht_aktenzeichen }}" if titel != "Klage" and titel != "Kündigungsschutzklage" else "")
    _p(doc, titel, bold=True, size=14, align=WD_ALIGN_PARAGRAPH.CENTER)
    _p(doc, "{{ rubrum }}")
    if streitwert:
        _p(doc, "Vorläufiger Streitwert: {{ streitwert }}")
    _p(doc, "{{p freitext }}")
    _p(doc, "{{ unterschrift }}")
    return doc


def _schriftsatz_allgemein() -> Document:
    doc = _neu()
    _p(doc, "{{ kanzlei_absender }}", size=7)
    _p(doc, "{{ gericht }}")
    _p(doc, "{{ gericht_ort }}")
    _p(doc, "{{ ort_datum }}", align=WD_ALIGN_PARAGRAPH.RIGHT)
    _p(doc, "Az. des Gerichts: {{ gericht_aktenzeichen }}", align=WD_ALIGN_PARAGRAPH.RIGHT)
    _p(doc, "In Sachen {{ kurzrubrum }}", bold=True)
    _p(doc, "{{ betreff }}", bold=True, size=13)
    _p(doc, "{{p freitext }}")
    _p(doc, "{{ unterschrift }}")
    return doc


def _brief(*, mahnung: bool) -> Document:
    doc = _neu()
    _p(doc, "{{ kanzlei_absender }}", size=7)
    _p(doc, "{{ empfaenger }}")
    _p(doc, "{{ empfaenger_anschrift }}")
    _p(doc, "{{ ort_datum }}", align=WD_ALIGN_PARAGRAPH.RIGHT)
    _p(doc, "Unser Zeichen: {{ aktenzeichen }}", align=WD_ALIGN_PARAGRAPH.RIGHT)
    _p(doc, "{{ betreff }}", bold=True)
    _p(doc, "{{ anrede }}")
    if mahnung:
        _p(doc, "wir zeigen an, dass wir die rechtlichen Interessen von {{ mandant }} vertreten.")
    _p(doc, "{{p freitext }}")
    _p(doc, "Mit freundlichen Grüßen")
    _p(doc, "{{ unterschrift }}")
    return doc


def _brief_an_mandant() -> Document:
    doc = _neu()
    _p(doc, "{{ kanzlei_absender }}", size=7)
    _p(doc, "{{ mandant }}")
    _p(doc, "{{ mandant_anschrift }}")
    return doc


def _kostennote() -> Document:
    doc = _brief_an_mandant()
    _p(doc, "{{ ort_datum }}", align=WD_ALIGN_PARAGRAPH.RIGHT)
    _p(doc, "Unser Zeichen: {{ aktenzeichen }}", align=WD_ALIGN_PARAGRAPH.RIGHT)
    _p(doc, "{{ rechnung.titel }} Nr. {{ rechnung.nummer }}", bold=True, size=13)
    _p(doc, "Angelegenheit: {{ kurzrubrum }} wegen {{ wegen }}")
    _p(doc, "Leistungszeitraum: {{ rechnung.leistungszeitraum }}")
    _p(doc, "Gegenstandswert: {{ rechnung.gegenstandswert }} ({{ rechnung.tabelle }})")
    table = doc.add_table(rows=4, cols=5)
    kopf = ("Nr. VV RVG", "Gebühr/Auslage", "Satz", "Wert", "Betrag")
    for index, text in enumerate(kopf):
        table.cell(0, index).paragraphs[0].add_run(text).bold = True
    table.cell(1, 0).text = "{%tr for position in rechnung.positionen %}"
    werte = (
        "{{ position.vv }}",
        "{{ position.bezeichnung }}",
        "{{ position.satz }}",
        "{{ position.wert }}",
        "{{ position.betrag }}",
    )
    for index, text in enumerate(werte):
        table.cell(2, index).text = text
    table.cell(3, 0).text = "{%tr endfor %}"
    for row in table.rows:
        for index in (2, 3, 4):
            row.cells[index].paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.RIGHT
    _breiten(table, (2.2, 7.6, 1.6, 2.6, 2.5))  # the description gets the room, not five equal columns
    summen = doc.add_table(rows=3, cols=2)
    summen.cell(0, 0).text = "{%tr for summe in rechnung.summen %}"
    summen.cell(1, 0).text = "{{ summe.bezeichnung }}"
    summen.cell(1, 1).text = "{{ summe.betrag }}"
    summen.cell(1, 1).paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.RIGHT
    summen.cell(2, 0).text = "{%tr endfor %}"
    _p(doc, "Zu zahlen: {{ rechnung.zahlbetrag }}", bold=True)
    _p(doc, "{{p freitext }}")
    _p(
        doc,
        "Bitte überweisen Sie den Betrag unter Angabe der Rechnungsnummer auf unser Konto bei {{ kanzlei_bank }}, "
        "IBAN {{ kanzlei_iban }}, BIC {{ kanzlei_bic }}.",
    )
    _p(doc, "USt-IdNr.: {{ kanzlei_ust_id }}")
    _p(doc, "{{ unterschrift }}")
    return doc


def _schlicht() -> Document:
    """A document without addressee (memo, draft text): title, Aktenzeichen, date, text."""
    doc = _neu()
    _p(doc, "{{ betreff }}", bold=True, size=14)
    _p(doc, "Unser Zeichen: {{ aktenzeichen }} · {{ datum }}")
    _p(doc, "{{p freitext }}")
    return doc


def _bauen(schluessel: str) -> Document:
    if schluessel == "DOKUMENT":
        return _schlicht()
    if schluessel == "KLAGEERWIDERUNG":
        return _schriftsatz("Klageerwiderung", streitwert=False)
    if schluessel == "KLAGE":
        return _schriftsatz("Klage", streitwert=True)
    if schluessel == "KUENDIGUNGSSCHUTZKLAGE":
        return _schriftsatz("Kündigungsschutzklage", streitwert=True)
    if schluessel == "SCHRIFTSATZ":
        return _schriftsatz_allgemein()
    if schluessel == "MAHNSCHREIBEN":
        return _brief(mahnung=True)
    if schluessel == "BRIEF":
        return _brief(mahnung=False)
    return _kostennote()


@cache
def mitgeliefert_inhalt(schluessel: str) -> bytes:
    """The DOCX bytes of a shipped template (built once per process)."""
    buffer = io.BytesIO()
    _bauen(schluessel).save(buffer)
    return buffer.getvalue()
