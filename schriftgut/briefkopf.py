"""The Kanzlei's letterhead in a rendered DOCX: first-page header (logo, name, partners, address),
following-page header and a footer with bank details, USt-IdNr. and „Seite X von Y" — the
Aktenzeichen in the header of every page.

On a DIN 5008 letter of our templates (its address field and information block fixed on the page,
see builtin.py) the letterhead stays within the 45 mm above the address field: page 1 shows „Unser
Zeichen“ in the information block only, and a letterhead that would reach into the address field
makes the logo a little smaller, then sets its partners in running lines. What still does not fit
overlaps the field in Word – its position is fixed –, and so it does in the PDF; `briefkopf_anwenden`
then returns a German note saying so.

A firm template that brings its own letterhead (text in its header) keeps it; Helena then only adds
the Aktenzeichen and the page numbers.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from docx.document import Document as DocxDocument
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.image.exceptions import UnrecognizedImageError
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.section import Section
from docx.shared import Mm, Pt
from docx.text.paragraph import Paragraph

from akten.models import KanzleiProfil

from .builtin import FELD_OBEN, hat_anschriftfeld
from .pdf import BILD_UNTERLAENGE, schrift_masse

logger = logging.getLogger(__name__)

AUSRICHTUNG: dict[str, WD_ALIGN_PARAGRAPH] = {
    KanzleiProfil.Ausrichtung.LINKS: WD_ALIGN_PARAGRAPH.LEFT,
    KanzleiProfil.Ausrichtung.ZENTRIERT: WD_ALIGN_PARAGRAPH.CENTER,
    KanzleiProfil.Ausrichtung.RECHTS: WD_ALIGN_PARAGRAPH.RIGHT,
}
SCHRIFT: dict[str, str] = {KanzleiProfil.Schrift.SANS: "Liberation Sans", KanzleiProfil.Schrift.SERIF: "Liberation Serif"}
NAME_PT, ZEILE_PT = 14.0, 8.0
LOGO_MM, LOGO_EINZELN_MIN_MM, LOGO_MIN_MM = 16.0, 12.0, 8.0
LUFT_MM = 1.0  # between the letterhead and the address field
HINWEIS_ZU_HOCH = (
    "Der Briefkopf ist höher als die {grenze:.0f} mm über dem Anschriftfeld (DIN 5008) und ragt in das Fenster "
    "des Umschlags. Kürze im Kanzleiprofil die Partnerliste oder die Kontaktzeile oder nimm ein flacheres Logo."
)


def _feld(paragraph: Paragraph, instruktion: str) -> None:
    """A Word field (PAGE, NUMPAGES) that Word and LibreOffice update when they lay out pages."""
    run = paragraph.add_run()
    for typ, text in (("begin", None), (None, instruktion), ("separate", None), (None, "1"), ("end", None)):
        if typ:
            element = OxmlElement("w:fldChar")
            element.set(qn("w:fldCharType"), typ)
        elif text == instruktion:
            element = OxmlElement("w:instrText")
            element.set(qn("xml:space"), "preserve")
            element.text = f" {instruktion} "
        else:
            element = OxmlElement("w:t")
            element.text = text
        run._r.append(element)


def _seitenzeile(paragraph: Paragraph, aktenzeichen: str) -> None:
    paragraph.add_run(f"Unser Zeichen: {aktenzeichen} · Seite ")
    _feld(paragraph, "PAGE")
    paragraph.add_run(" von ")
    _feld(paragraph, "NUMPAGES")


def _klein(paragraph: Paragraph, punkt: float = 8) -> None:
    for run in paragraph.runs:
        run.font.size = Pt(punkt)


def briefkopf_zeilen(profil: KanzleiProfil | None, *, partner_fortlaufend: bool = False) -> list[tuple[str, bool]]:
    """(text, bold) lines of the first-page letterhead; with `partner_fortlaufend` the partners in one
    paragraph („Dr. Katrin Müller · Jonas Becker · …“) that wraps at the text width."""
    if profil is None or not profil.name:
        return []
    zeilen = [(profil.name, True)]
    partner = [z.strip() for z in profil.partner.splitlines() if z.strip()]
    if partner_fortlaufend:
        zeilen.append((" · ".join(partner), False))
    else:
        zeilen += [(z, False) for z in partner]
    if profil.anschrift:
        zeilen.append((profil.anschrift, False))
    kontakt = " · ".join(
        p
        for p in (
            profil.telefon and f"Tel. {profil.telefon}",
            profil.telefax and f"Fax {profil.telefax}",
            profil.email,
            profil.web,
        )
        if p
    )
    if kontakt:
        zeilen.append((kontakt, False))
    return zeilen


def fusszeile(profil: KanzleiProfil | None) -> str:
    if profil is None or not profil.briefkopf_fusszeile:
        return ""
    teile = [
        profil.bank_name,
        profil.iban and f"IBAN {profil.iban}",
        profil.bic and f"BIC {profil.bic}",
        (profil.ust_id and f"USt-IdNr. {profil.ust_id}") or (profil.steuernummer and f"St.-Nr. {profil.steuernummer}"),
        profil.kammer,
    ]
    return " · ".join(t for t in teile if t)


def _hat_text(paragraphs: list[Paragraph]) -> bool:
    return any(p.text.strip() for p in paragraphs)


def _eng(paragraph: Paragraph) -> None:
    """Single line spacing, no space before or after: the letterhead's height does not depend on the
    template's default paragraph spacing."""
    format_ = paragraph.paragraph_format
    format_.space_before, format_.space_after, format_.line_spacing = Pt(0), Pt(0), 1.0


def _zeilenzahl(text: str, breite_mm: float, breite: Callable[[str], float]) -> int:
    """How many lines `text` takes when wrapped at spaces within `breite_mm` (as Word wraps)."""
    zeilen, aktuell = 1, ""
    for wort in text.split(" "):
        kandidat = f"{aktuell} {wort}" if aktuell else wort
        if aktuell and breite(kandidat) > breite_mm:
            zeilen, aktuell = zeilen + 1, wort
        else:
            aktuell = kandidat
    return zeilen


@dataclass(frozen=True)
class Briefkopf:
    """How the first page's letterhead is set: its lines, the logo's height and the height it takes."""

    zeilen: list[tuple[str, bool]]
    logo_mm: float  # 0 without a logo
    hoehe_mm: float
    passt: bool


def briefkopf_planen(profil: KanzleiProfil | None, *, schrift: str, breite_mm: float, platz_mm: float | None) -> Briefkopf:
    """The first-page letterhead (without the „Unser Zeichen“ line) within `platz_mm` if there is a
    limit: one partner per line with the logo at most slightly smaller (down to 12 mm); else the
    partners as running lines and the logo as large as then fits (down to 8 mm). `passt` is False
    when even that is too high."""
    name_breite, name_zeile = schrift_masse(schrift, NAME_PT, fett=True)
    text_breite, text_zeile = schrift_masse(schrift, ZEILE_PT)

    def text_hoehe(zeilen: list[tuple[str, bool]]) -> float:
        return sum(
            _zeilenzahl(text, breite_mm, name_breite if fett else text_breite) * (name_zeile if fett else text_zeile)
            for text, fett in zeilen
        )

    mit_logo = profil is not None and bool(profil.logo)
    zusatz = BILD_UNTERLAENGE if mit_logo else 0.0

    def plan(zeilen: list[tuple[str, bool]], logo_min: float) -> Briefkopf:
        hoehe = text_hoehe(zeilen)
        logo = LOGO_MM if mit_logo else 0.0
        if mit_logo and platz_mm is not None:
            logo = min(LOGO_MM, max(logo_min, platz_mm - hoehe - zusatz))
        gesamt = hoehe + logo + zusatz
        return Briefkopf(zeilen, logo, gesamt, platz_mm is None or gesamt <= platz_mm + 0.01)

    einzeln = plan(briefkopf_zeilen(profil), LOGO_EINZELN_MIN_MM)
    if einzeln.passt:
        return einzeln
    return plan(briefkopf_zeilen(profil, partner_fortlaufend=True), LOGO_MIN_MM)


def _textbreite(section: Section) -> float:
    breite = section.page_width or Mm(210)
    return float((breite - (section.left_margin or Mm(25)) - (section.right_margin or Mm(20))) / 36000)


def _logo_setzen(paragraph: Any, profil: KanzleiProfil, hoehe: Any) -> bool:
    """The Kanzlei's logo into `paragraph`; False when its file is gone or no picture (a restored
    database without its media, a damaged upload): the letter is then set without it, not refused."""
    run = paragraph.add_run()
    try:
        with profil.logo.open("rb") as logo:
            run.add_picture(logo, height=hoehe)
    except (OSError, ValueError, UnrecognizedImageError):
        logger.warning("Logo des Kanzleiprofils nicht lesbar; Briefkopf ohne Logo")
        paragraph._p.remove(run._r)
        return False
    return True


def briefkopf_anwenden(docx: DocxDocument, *, profil: KanzleiProfil | None, aktenzeichen: str) -> list[str]:
    """Put the letterhead, the Aktenzeichen and page numbers into every section of `docx`. Returns
    notes (German) for the person who sends it: a letterhead reaching into the DIN address field."""
    # Empty choices (a profile saved before the letterhead existed) mean the defaults.
    schrift = SCHRIFT.get(profil.briefkopf_schrift if profil else "", SCHRIFT[KanzleiProfil.Schrift.SANS])
    docx.styles["Normal"].font.name = schrift
    ausrichtung = AUSRICHTUNG.get(profil.briefkopf_ausrichtung if profil else "", WD_ALIGN_PARAGRAPH.RIGHT)
    din = hat_anschriftfeld(docx)
    hinweise: list[str] = []
    for nummer, section in enumerate(docx.sections):
        if nummer and section.header.is_linked_to_previous:
            # It shows the previous section's header: writing to it would write there a second time.
            continue
        eigener_briefkopf = _hat_text(section.header.paragraphs) or _hat_text(section.first_page_header.paragraphs)
        if eigener_briefkopf:
            paragraph = section.header.add_paragraph()
            _seitenzeile(paragraph, aktenzeichen)
            _klein(paragraph)
            continue
        section.different_first_page_header_footer = True
        erste = section.first_page_header
        # On a DIN letter the letterhead ends above the address field (45 mm from the top edge).
        oben = (section.header_distance or Mm(12.7)) / 36000
        grenze = FELD_OBEN - LUFT_MM - oben if din and nummer == 0 else None
        plan = briefkopf_planen(profil, schrift=schrift, breite_mm=_textbreite(section), platz_mm=grenze)
        # Reported only when it really reaches the field: within the 1 mm of air above it, it does not.
        if not plan.passt and grenze is not None and oben + plan.hoehe_mm > FELD_OBEN:
            logger.warning("Briefkopf %.1f mm hoch, ragt in das Anschriftfeld nach DIN 5008", oben + plan.hoehe_mm)
            hinweise.append(HINWEIS_ZU_HOCH.format(grenze=FELD_OBEN))
        kopf = erste.paragraphs[0]  # may hold the fold marks of a DIN letter: they are fixed on the page
        _eng(kopf)
        if profil is not None and profil.logo and plan.logo_mm and _logo_setzen(kopf, profil, Mm(plan.logo_mm)):
            kopf.alignment = ausrichtung
            kopf = erste.add_paragraph()
        for index, (text, fett) in enumerate(plan.zeilen):
            paragraph = kopf if index == 0 else erste.add_paragraph()
            run = paragraph.add_run(text)
            run.bold = fett
            run.font.size = Pt(NAME_PT if fett else ZEILE_PT)
            paragraph.alignment = ausrichtung
            _eng(paragraph)
        if not din:
            # a DIN letter names „Unser Zeichen“ in its information block on page 1
            seitenzeile = erste.add_paragraph()
            _seitenzeile(seitenzeile, aktenzeichen)
            _klein(seitenzeile)
            seitenzeile.alignment = ausrichtung
            _eng(seitenzeile)
        folge = section.header.paragraphs[0]
        if profil is not None and profil.name:
            folge.add_run(f"{profil.name} · ")
        _seitenzeile(folge, aktenzeichen)
        _klein(folge)
        folge.alignment = WD_ALIGN_PARAGRAPH.RIGHT
        _eng(folge)
        text = fusszeile(profil)
        for footer in (section.footer, section.first_page_footer):
            if text and not _hat_text(footer.paragraphs):
                footer.paragraphs[0].add_run(text)
                _klein(footer.paragraphs[0], 7)
                footer.paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.CENTER
                _eng(footer.paragraphs[0])
    return hinweise
