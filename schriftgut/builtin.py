"""Templates shipped with Helena (so that the demo works without uploads), built with python-docx
in the same placeholder syntax a firm uses in Word. A firm template with the same name wins.

Letters, the Kostennote and Schriftsätze follow DIN 5008, Form B: the address field 45 mm from the
top and 20 mm from the left edge (85 × 45 mm: the Zusatz- und Vermerkzone with the sender line, then
the Anschriftzone, text 5 mm in), the information block (Unser Zeichen, Az. des Gerichts, date) at
125 mm beside it – both one table fixed on the page (w:tblpPr), so that the letterhead's height does
not move the address out of the envelope's window –, fold marks at 105 and 210 mm and the hole mark
at 148.5 mm on the left edge of page 1, and the spacing of DIN 5008: a blank line between paragraphs,
two after the Betreff, three for the handwritten signature.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cache
from typing import Any
from xml.sax.saxutils import escape

import docx
from docx.document import Document
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement, parse_xml
from docx.oxml.ns import qn
from docx.shared import Cm, Mm, Pt

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
    Mitgeliefert("KLAGEERWIDERUNG", "Klageerwiderung", DokumentVorlage.Art.SCHRIFTSATZ, PARTEI_BEKLAGTER, ("klageerwiderung",)),
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


# DIN 5008 Form B, in mm from the page's top and left edge
OBEN = 25.0  # top margin (and of the following pages)
KOPF_ABSTAND = 10.0  # where the letterhead (the first page's header) begins
FELD_OBEN = 45.0  # address field: below the letterhead zone of 45 mm
FELD_LINKS = 20.0
FELD_BREITE = 85.0
VERMERKZONE = 17.7  # Zusatz- und Vermerkzone (sender line at its foot), 45–62.7 mm
ANSCHRIFTZONE = 27.3  # Anschriftzone, 62.7–90 mm
FELD_EINZUG = 5.0  # the address's text 25 mm from the left edge
INFO_LINKS = 125.0  # information block
TEXT_RECHTS = 190.0  # the right margin of 2 cm
FALZMARKEN = (105.0, 210.0)
LOCHMARKE = 148.5
MARKE_X = 5.0  # marks from 5 mm (what printers print) to 10 mm, the hole mark to 12 mm
# one blank line of the 11 pt text; the Betreff two blank lines below the address field (98.46 mm)
LEERZEILE = 12.0
# The caption (w:tblCaption) that marks the positioned table; the letterhead looks for it.
ANSCHRIFTFELD = "Anschriftfeld und Informationsblock (DIN 5008, Form B)"
_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _tw(mm: float) -> int:
    return round(mm * 1440 / 25.4)


def _neu() -> Document:
    doc = docx.Document()
    section = doc.sections[0]
    section.page_width, section.page_height = Cm(21), Cm(29.7)
    section.left_margin, section.right_margin = Cm(2.5), Cm(2)
    section.top_margin, section.bottom_margin = Mm(OBEN), Cm(2)
    section.header_distance = Mm(KOPF_ABSTAND)
    doc.styles["Normal"].font.size = Pt(11)
    doc.core_properties.author = "Helena"
    doc.core_properties.language = "de-DE"
    _deutsch(doc)
    _abstaende(doc)
    return doc


def _abstaende(doc: Document) -> None:
    """Single line spacing and a blank line after every paragraph (DIN 5008), as the document's
    default: the free text's paragraphs get it, while tables („Table Grid“), header and footer keep
    their own spacing of 0."""
    standard = doc.styles.element.find(f"{qn('w:docDefaults')}/{qn('w:pPrDefault')}/{qn('w:pPr')}")
    if standard is None:
        return
    spacing = standard.find(qn("w:spacing"))
    if spacing is None:
        spacing = OxmlElement("w:spacing")
        standard.append(spacing)
    for name, wert in (("before", "0"), ("after", str(round(LEERZEILE * 20))), ("line", "240"), ("lineRule", "auto")):
        spacing.set(qn(f"w:{name}"), wert)


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


def _p(
    doc: Document,
    text: str = "",
    *,
    bold: bool = False,
    size: float | None = None,
    align: Any = None,
    vor: float | None = None,
    nach: float | None = None,
) -> None:
    """A paragraph; `vor` and `nach`: its space before and after in pt (else the default's blank line after)."""
    paragraph = doc.add_paragraph()
    if text:
        run = paragraph.add_run(text)
        run.bold = bold
        if size:
            run.font.size = Pt(size)
    if align is not None:
        paragraph.alignment = align
    if vor is not None:
        paragraph.paragraph_format.space_before = Pt(vor)
    if nach is not None:
        paragraph.paragraph_format.space_after = Pt(nach)


def _feld_absatz(text: str, *, einzug: float, punkt: float | None = None) -> str:
    groesse = f'<w:rPr><w:sz w:val="{round(punkt * 2)}"/></w:rPr>' if punkt else ""
    lauf = f'<w:r>{groesse}<w:t xml:space="preserve">{escape(text)}</w:t></w:r>' if text else ""
    return (
        '<w:p><w:pPr><w:spacing w:before="0" w:after="0" w:line="240" w:lineRule="auto"/>'
        f'<w:ind w:left="{_tw(einzug)}"/></w:pPr>{lauf}</w:p>'
    )


def _anschriftfeld(doc: Document, *, anschrift: tuple[str, ...], info: tuple[str, ...]) -> None:
    """The DIN 5008 address field (sender line at the foot of the Zusatz- und Vermerkzone, the
    recipient in the Anschriftzone) and the information block beside it: one borderless table fixed
    on the page (w:tblpPr, anchored to the page, rows of exact height), so that neither the
    letterhead's height nor the text moves it. Its distance above (topFromText) reaches up to the top
    margin and below it two blank lines: the text begins under it, with the Betreff at 98.5 mm."""
    spalte = _tw(FELD_BREITE)
    rechts = _tw(TEXT_RECHTS - FELD_LINKS - FELD_BREITE)
    feld_einzug, info_einzug = FELD_EINZUG, INFO_LINKS - FELD_LINKS - FELD_BREITE
    absender = _feld_absatz("{{ kanzlei_absender }}", einzug=feld_einzug, punkt=7)
    empfaenger = "".join(_feld_absatz(zeile, einzug=feld_einzug) for zeile in anschrift)
    informationen = "".join(_feld_absatz(zeile, einzug=info_einzug, punkt=10) for zeile in info)
    zelle = '<w:tc><w:tcPr><w:tcW w:w="{breite}" w:type="dxa"/>{mehr}</w:tcPr>{inhalt}</w:tc>'
    xml = (
        f"<w:tbl {_W}><w:tblPr>"
        f'<w:tblpPr w:leftFromText="0" w:rightFromText="0" w:topFromText="{_tw(FELD_OBEN - OBEN)}" '
        f'w:bottomFromText="{round(2 * LEERZEILE * 20)}" w:vertAnchor="page" w:horzAnchor="page" '
        f'w:tblpX="{_tw(FELD_LINKS)}" w:tblpY="{_tw(FELD_OBEN)}"/>'
        '<w:tblOverlap w:val="never"/>'
        f'<w:tblW w:w="{spalte + rechts}" w:type="dxa"/><w:tblLayout w:type="fixed"/>'
        '<w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="0" w:type="dxa"/><w:bottom w:w="0" w:type="dxa"/>'
        '<w:right w:w="0" w:type="dxa"/></w:tblCellMar>'
        f'<w:tblCaption w:val="{ANSCHRIFTFELD}"/></w:tblPr>'
        f'<w:tblGrid><w:gridCol w:w="{spalte}"/><w:gridCol w:w="{rechts}"/></w:tblGrid>'
        f'<w:tr><w:trPr><w:cantSplit/><w:trHeight w:val="{_tw(VERMERKZONE)}" w:hRule="exact"/></w:trPr>'
        + zelle.format(breite=spalte, mehr='<w:vAlign w:val="bottom"/>', inhalt=absender)
        + zelle.format(breite=rechts, mehr='<w:vMerge w:val="restart"/>', inhalt=informationen)
        + f'</w:tr><w:tr><w:trPr><w:cantSplit/><w:trHeight w:val="{_tw(ANSCHRIFTZONE)}" w:hRule="exact"/></w:trPr>'
        + zelle.format(breite=spalte, mehr="", inhalt=empfaenger)
        + zelle.format(breite=rechts, mehr="<w:vMerge/>", inhalt="<w:p/>")
        + "</w:tr></w:tbl>"
    )
    doc.element.body.sectPr.addprevious(parse_xml(xml))
    _falzmarken(doc)


def _marke(nummer: int, name: str, y: float, laenge: float) -> str:
    """A line fixed on the page at `y` mm from the top, from MARKE_X to MARKE_X + `laenge` (DrawingML,
    with the VML line for Word before 2010, as Word itself writes shapes)."""
    emu = 36000
    x, breite, hoehe = round(MARKE_X * emu), round(laenge * emu), round(y * emu)
    pt = 72 / 25.4
    return (
        f"<w:r {_W} "
        'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" '
        'xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" '
        'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
        'xmlns:wps="http://schemas.microsoft.com/office/word/2010/wordprocessingShape" '
        'xmlns:v="urn:schemas-microsoft-com:vml"><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing>'
        f'<wp:anchor distT="0" distB="0" distL="0" distR="0" simplePos="0" relativeHeight="{251650000 + nummer}" '
        'behindDoc="1" locked="1" layoutInCell="1" allowOverlap="1"><wp:simplePos x="0" y="0"/>'
        f'<wp:positionH relativeFrom="page"><wp:posOffset>{x}</wp:posOffset></wp:positionH>'
        f'<wp:positionV relativeFrom="page"><wp:posOffset>{hoehe}</wp:posOffset></wp:positionV>'
        f'<wp:extent cx="{breite}" cy="0"/><wp:effectExtent l="0" t="0" r="0" b="0"/><wp:wrapNone/>'
        f'<wp:docPr id="{5000 + nummer}" name="{name}"/><wp:cNvGraphicFramePr/>'
        '<a:graphic><a:graphicData uri="http://schemas.microsoft.com/office/word/2010/wordprocessingShape">'
        f'<wps:wsp><wps:cNvCnPr/><wps:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="{breite}" cy="0"/></a:xfrm>'
        '<a:prstGeom prst="line"><a:avLst/></a:prstGeom><a:ln w="6350"><a:solidFill><a:srgbClr val="000000"/>'
        "</a:solidFill></a:ln></wps:spPr><wps:bodyPr/></wps:wsp></a:graphicData></a:graphic></wp:anchor>"
        "</w:drawing></mc:Choice><mc:Fallback><w:pict>"
        f'<v:line id="{name}" style="position:absolute;z-index:-{nummer};mso-position-horizontal-relative:page;'
        f'mso-position-vertical-relative:page" from="{MARKE_X * pt:.2f}pt,{y * pt:.2f}pt" '
        f'to="{(MARKE_X + laenge) * pt:.2f}pt,{y * pt:.2f}pt" strokeweight=".5pt"/>'
        "</w:pict></mc:Fallback></mc:AlternateContent></w:r>"
    )


def _falzmarken(doc: Document) -> None:
    """Fold marks (105 and 210 mm) and the hole mark (148.5 mm) on the left edge of page 1: lines in
    the first page's header, fixed on the page, so that the letterhead added later leaves them."""
    section = doc.sections[0]
    section.different_first_page_header_footer = True
    absatz = section.first_page_header.paragraphs[0]
    marken = ((FALZMARKEN[0], "Falzmarke 1", 5.0), (LOCHMARKE, "Lochmarke", 7.0), (FALZMARKEN[1], "Falzmarke 2", 5.0))
    for nummer, (y, name, laenge) in enumerate(marken, start=1):
        absatz._p.append(parse_xml(_marke(nummer, name, y, laenge)))


def hat_anschriftfeld(doc: Document) -> bool:
    """Whether the document has the DIN 5008 address field of our templates (its caption)."""
    return any(element.get(qn("w:val")) == ANSCHRIFTFELD for element in doc.element.body.iter(qn("w:tblCaption")))


def _schriftsatz(titel: str, *, streitwert: bool) -> Document:
    doc = _neu()
    info = ["Unser Zeichen: {{ aktenzeichen }}"]
    if titel not in ("Klage", "Kündigungsschutzklage"):
        info.append("Az. des Gerichts: {{ gericht_aktenzeichen }}")
    _anschriftfeld(doc, anschrift=("{{ gericht }}", "{{ gericht_anschrift }}"), info=(*info, "{{ ort_datum }}"))
    _p(doc, titel, bold=True, size=14, align=WD_ALIGN_PARAGRAPH.CENTER, nach=2 * LEERZEILE)
    _p(doc, "{{ rubrum }}")
    if streitwert:
        _p(doc, "Vorläufiger Streitwert: {{ streitwert }}")
    _p(doc, "{{p freitext }}")
    _p(doc, "{{ unterschrift }}", vor=2 * LEERZEILE, nach=0)  # three blank lines for the signature
    return doc


def _schriftsatz_allgemein() -> Document:
    doc = _neu()
    info = ("Unser Zeichen: {{ aktenzeichen }}", "Az. des Gerichts: {{ gericht_aktenzeichen }}", "{{ ort_datum }}")
    _anschriftfeld(doc, anschrift=("{{ gericht }}", "{{ gericht_anschrift }}"), info=info)
    _p(doc, "In Sachen {{ kurzrubrum }}", bold=True, nach=0)
    _p(doc, "{{ betreff }}", bold=True, size=13, nach=2 * LEERZEILE)
    _p(doc, "{{p freitext }}")
    _p(doc, "{{ unterschrift }}", vor=2 * LEERZEILE, nach=0)
    return doc


def _brief(*, mahnung: bool) -> Document:
    doc = _neu()
    _anschriftfeld(
        doc,
        anschrift=("{{ empfaenger }}", "{{ empfaenger_anschrift }}"),
        info=("Unser Zeichen: {{ aktenzeichen }}", "{{ ort_datum }}"),
    )
    _p(doc, "{{ betreff }}", bold=True, nach=2 * LEERZEILE)
    _p(doc, "{{ anrede }}")
    if mahnung:
        _p(doc, "wir zeigen an, dass wir die rechtlichen Interessen von {{ mandant }} vertreten.")
    _p(doc, "{{p freitext }}")
    _p(doc, "Mit freundlichen Grüßen", nach=3 * LEERZEILE)  # room for the handwritten signature
    _p(doc, "{{ unterschrift }}", nach=0)
    return doc


def _ohne_abstand(table: Any) -> None:
    """Cells without the blank line after each paragraph (a table row is one line)."""
    for row in table.rows:
        for cell in row.cells:
            for paragraph in cell.paragraphs:
                paragraph.paragraph_format.space_after = Pt(0)


def _kostennote() -> Document:
    doc = _neu()
    _anschriftfeld(
        doc,
        anschrift=("{{ mandant }}", "{{ mandant_anschrift }}"),
        info=("Unser Zeichen: {{ aktenzeichen }}", "{{ ort_datum }}"),
    )
    _p(doc, "{{ rechnung.titel }} Nr. {{ rechnung.nummer }}", bold=True, size=13, nach=2 * LEERZEILE)
    _p(doc, "Angelegenheit: {{ kurzrubrum }} wegen {{ wegen }}", nach=0)
    _p(doc, "Leistungszeitraum: {{ rechnung.leistungszeitraum }}", nach=0)
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
    _ohne_abstand(table)
    summen = doc.add_table(rows=3, cols=2)
    summen.cell(0, 0).text = "{%tr for summe in rechnung.summen %}"
    summen.cell(1, 0).text = "{{ summe.bezeichnung }}"
    summen.cell(1, 1).text = "{{ summe.betrag }}"
    summen.cell(1, 1).paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.RIGHT
    summen.cell(2, 0).text = "{%tr endfor %}"
    _ohne_abstand(summen)
    _p(doc, "Zu zahlen: {{ rechnung.zahlbetrag }}", bold=True, vor=LEERZEILE)
    _p(doc, "{{p freitext }}")
    _p(
        doc,
        "Bitte überweisen Sie den Betrag unter Angabe der Rechnungsnummer auf unser Konto bei {{ kanzlei_bank }}, "
        "IBAN {{ kanzlei_iban }}, BIC {{ kanzlei_bic }}.",
    )
    _p(doc, "{{ kanzlei_steuer }}")
    _p(doc, "{{ unterschrift }}", vor=2 * LEERZEILE, nach=0)
    return doc


def _schlicht() -> Document:
    """A document without addressee (memo, draft text): title, date, text; „Unser Zeichen“ stands
    in the letterhead."""
    doc = _neu()
    _p(doc, "{{ betreff }}", bold=True, size=14, nach=LEERZEILE / 2)
    _p(doc, "{{ datum }}")
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
