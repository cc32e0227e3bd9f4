"""The Kanzlei's letterhead in a rendered DOCX: first-page header (logo, name, partners, address),
following-page header and a footer with bank details, USt-IdNr. and „Seite X von Y" — the
Aktenzeichen in the header of every page.

A firm template that brings its own letterhead (text in its header) keeps it; Helena then only adds
the Aktenzeichen and the page numbers.
"""

from __future__ import annotations

from docx.document import Document as DocxDocument
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.oxml import OxmlElement
from docx.oxml.ns import qn
from docx.shared import Cm, Pt
from docx.text.paragraph import Paragraph

from akten.models import KanzleiProfil

AUSRICHTUNG: dict[str, WD_ALIGN_PARAGRAPH] = {
    KanzleiProfil.Ausrichtung.LINKS: WD_ALIGN_PARAGRAPH.LEFT,
    KanzleiProfil.Ausrichtung.ZENTRIERT: WD_ALIGN_PARAGRAPH.CENTER,
    KanzleiProfil.Ausrichtung.RECHTS: WD_ALIGN_PARAGRAPH.RIGHT,
}
SCHRIFT: dict[str, str] = {KanzleiProfil.Schrift.SANS: "Liberation Sans", KanzleiProfil.Schrift.SERIF: "Liberation Serif"}


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


def briefkopf_zeilen(profil: KanzleiProfil | None) -> list[tuple[str, bool]]:
    """(text, bold) lines of the first-page letterhead."""
    if profil is None or not profil.name:
        return []
    zeilen = [(profil.name, True)]
    zeilen += [(z.strip(), False) for z in profil.partner.splitlines() if z.strip()]
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
        profil.ust_id and f"USt-IdNr. {profil.ust_id}",
        profil.kammer,
    ]
    return " · ".join(t for t in teile if t)


def _hat_text(paragraphs: list[Paragraph]) -> bool:
    return any(p.text.strip() for p in paragraphs)


def briefkopf_anwenden(docx: DocxDocument, *, profil: KanzleiProfil | None, aktenzeichen: str) -> None:
    """Put the letterhead, the Aktenzeichen and page numbers into every section of `docx`."""
    # Empty choices (a profile saved before the letterhead existed) mean the defaults.
    schrift = SCHRIFT.get(profil.briefkopf_schrift if profil else "", SCHRIFT[KanzleiProfil.Schrift.SANS])
    docx.styles["Normal"].font.name = schrift
    ausrichtung = AUSRICHTUNG.get(profil.briefkopf_ausrichtung if profil else "", WD_ALIGN_PARAGRAPH.RIGHT)
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
        kopf = erste.paragraphs[0]
        if profil is not None and profil.logo:
            with profil.logo.open("rb") as logo:
                kopf.add_run().add_picture(logo, height=Cm(1.6))
            kopf.alignment = ausrichtung
            kopf = erste.add_paragraph()
        for index, (text, fett) in enumerate(briefkopf_zeilen(profil)):
            paragraph = kopf if index == 0 else erste.add_paragraph()
            run = paragraph.add_run(text)
            run.bold = fett
            run.font.size = Pt(14 if fett else 8)
            paragraph.alignment = ausrichtung
        seitenzeile = erste.add_paragraph()
        _seitenzeile(seitenzeile, aktenzeichen)
        _klein(seitenzeile)
        seitenzeile.alignment = ausrichtung
        folge = section.header.paragraphs[0]
        if profil is not None and profil.name:
            folge.add_run(f"{profil.name} · ")
        _seitenzeile(folge, aktenzeichen)
        _klein(folge)
        folge.alignment = WD_ALIGN_PARAGRAPH.RIGHT
        text = fusszeile(profil)
        for footer in (section.footer, section.first_page_footer):
            if text and not _hat_text(footer.paragraphs):
                footer.paragraphs[0].add_run(text)
                _klein(footer.paragraphs[0], 7)
                footer.paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.CENTER
