"""PDF from the rendered DOCX (fpdf2): the same paragraphs, tables, letterhead, header with the
Aktenzeichen and „Seite X von Y“, so DOCX and PDF never differ in content.

Why not LibreOffice: see README „Schriftsätze, Vorlagen und Kostennote“ and bench/documents.py —
fpdf2 is pure Python from PyPI, works offline and renders a two-page Schriftsatz in a few tens of
milliseconds; a headless LibreOffice needs a large Debian install and seconds per conversion.
The conversion covers what our templates and ordinary firm templates use: paragraphs with
alignment, bold/italic runs, font sizes, headings, line and page breaks, simple tables, header and
footer text, images in the header (logo) and the PAGE/NUMPAGES fields.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from docx.document import Document as DocxDocument
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml import parse_xml
from docx.oxml.ns import qn
from fontTools.ttLib import TTFont
from fpdf import FPDF
from fpdf.enums import Align
from fpdf.fonts import FontFace
from lxml import etree

from akten.extraction import HiddenText

logging.getLogger("fontTools").setLevel(logging.WARNING)
logger = logging.getLogger(__name__)

FONT_DIRS = (Path("/usr/share/fonts/truetype/liberation"), Path("/usr/share/fonts/truetype/dejavu"))
FONTS = {
    "Liberation Sans": (
        "LiberationSans-Regular.ttf",
        "LiberationSans-Bold.ttf",
        "LiberationSans-Italic.ttf",
        "LiberationSans-BoldItalic.ttf",
    ),
    "Liberation Serif": (
        "LiberationSerif-Regular.ttf",
        "LiberationSerif-Bold.ttf",
        "LiberationSerif-Italic.ttf",
        "LiberationSerif-BoldItalic.ttf",
    ),
    "DejaVu Sans": ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"),
}
ERSATZSCHRIFT = "DejaVu Sans"
EMU_PER_MM = 36000
SEITE = "\x00PAGE\x00"
SEITEN = "\x00NUMPAGES\x00"
# Line breaks, tabs and the page-field markers are never drawn as glyphs.
_OHNE_GLYPHE = frozenset(ord(c) for c in "\x00\n\r\t")
ALIGN = {
    WD_ALIGN_PARAGRAPH.CENTER: Align.C,
    WD_ALIGN_PARAGRAPH.RIGHT: Align.R,
    WD_ALIGN_PARAGRAPH.JUSTIFY: Align.J,
}
_MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
HEADING_SIZE = {"Title": 16.0, "Heading 1": 14.0, "Heading 2": 12.5, "Heading 3": 11.5}


@dataclass
class Teil:
    text: str
    bold: bool = False
    italic: bool = False
    size: float | None = None


@dataclass
class Absatz:
    teile: list[Teil] = field(default_factory=list)
    align: Align = Align.L
    size: float = 11.0
    bold: bool = False
    bilder: list[bytes] = field(default_factory=list)
    bildmasse: list[tuple[float, float] | None] = field(default_factory=list)  # per picture: width, height in mm
    seitenumbruch: bool = False  # a page break after the paragraph's text
    umbruch_vorher: bool = False  # a page break before it (pageBreakBefore, or a break before any text)
    einzug: float = 0.0  # left indent in mm (nested lists, quotes, Anträge)
    mit_naechstem: bool = False  # a heading, or keepNext: not alone at the foot of a page

    @property
    def text(self) -> str:
        return "".join(t.text for t in self.teile)


def _absatz(p: Any, part: Any, default_size: float, fussnoten: dict[str, int] | None = None, *, verborgen: HiddenText) -> Absatz:
    """Read a <w:p>: runs in order, fields as markers, cached field results skipped; hidden text
    (`verborgen`) is left out, as Word prints by default, but a field around it stays whole."""
    from docx.text.paragraph import Paragraph

    paragraph = Paragraph(p, None)  # type: ignore[arg-type]  # only the alignment is read
    style_name = ""
    style_id = p.pPr.pStyle.val if p.pPr is not None and p.pPr.pStyle is not None else ""
    if style_id:
        style_name = {"Title": "Title", "Heading1": "Heading 1", "Heading2": "Heading 2", "Heading3": "Heading 3"}.get(
            style_id, ""
        )
    absatz = Absatz(
        align=ALIGN.get(paragraph.alignment, Align.L),  # type: ignore[arg-type]
        size=HEADING_SIZE.get(style_name, default_size),
        bold=bool(style_name),
    )
    einzug = paragraph.paragraph_format.left_indent
    absatz.einzug = max(0.0, min(float(einzug.mm), 80.0)) if einzug is not None else 0.0
    if p.pPr is not None and p.pPr.find(qn("w:pageBreakBefore")) is not None:
        absatz.umbruch_vorher = True
    absatz.mit_naechstem = bool(style_name) or (p.pPr is not None and p.pPr.find(qn("w:keepNext")) is not None)
    # A field's cached result is skipped only where the PDF puts its own value (page numbers); the
    # result of any other field (a date, a name, a cross-reference) is the text Word shows.
    feld = ""
    im_ergebnis = False
    for run in p.iter(qn("w:r")):
        if next(run.iterancestors(_MC_FALLBACK), None) is not None:
            continue  # the fallback copy of alternate content (a text box) would print it twice
        versteckt = verborgen(run)
        rpr = run.rPr
        bold = absatz.bold or (rpr is not None and rpr.b is not None and rpr.b.val is not False)
        italic = rpr is not None and rpr.i is not None and rpr.i.val is not False
        size = rpr.sz.val.pt if rpr is not None and rpr.sz is not None and rpr.sz.val is not None else None
        for child in run:
            tag = child.tag
            if versteckt and tag != qn("w:fldChar"):
                continue
            if tag == qn("w:fldChar"):
                typ = child.get(qn("w:fldCharType"))
                if typ == "begin":
                    feld = ""
                im_ergebnis = typ == "separate" and feld in ("PAGE", "NUMPAGES")
            elif tag == qn("w:instrText"):
                instr = (child.text or "").strip().split(" ")[0].upper()
                if instr:
                    feld = instr
                if instr in ("PAGE", "NUMPAGES"):
                    absatz.teile.append(Teil(SEITE if instr == "PAGE" else SEITEN, bold, italic, size))
            elif im_ergebnis:
                continue
            elif tag == qn("w:t"):
                absatz.teile.append(Teil(child.text or "", bold, italic, size))
            elif tag == qn("w:footnoteReference") and fussnoten is not None:
                # numbered in the order of reference, as Word shows them; the notes follow the text
                nummer = fussnoten.setdefault(child.get(qn("w:id")) or "", len(fussnoten) + 1)
                absatz.teile.append(Teil(str(nummer).translate(_HOCH), bold, italic, size))
            elif tag == qn("w:tab"):
                absatz.teile.append(Teil("    ", bold, italic, size))
            elif tag == qn("w:noBreakHyphen"):
                absatz.teile.append(Teil("-", bold, italic, size))  # Word's non-breaking hyphen (Ctrl+Shift+-)
            elif tag == qn("w:sym"):
                absatz.teile.append(Teil(_symbol(child), bold, italic, size))
            elif tag in (qn("w:br"), qn("w:cr")):
                if child.get(qn("w:type")) == "page":
                    if absatz.text.strip():
                        absatz.seitenumbruch = True
                    else:
                        absatz.umbruch_vorher = True
                else:
                    absatz.teile.append(Teil("\n", bold, italic, size))
            elif tag == qn("w:drawing") and part is not None:
                ausdehnung = next(child.iter(qn("wp:extent")), None)
                cx, cy = (int(ausdehnung.get(x) or 0) for x in ("cx", "cy")) if ausdehnung is not None else (0, 0)
                for blip in child.iter(qn("a:blip")):
                    rid = blip.get(qn("r:embed"))
                    if rid and rid in part.related_parts:
                        absatz.bilder.append(part.related_parts[rid].blob)
                        absatz.bildmasse.append((cx / EMU_PER_MM, cy / EMU_PER_MM) if cx and cy else None)
    # Simple fields (<w:fldSimple w:instr="PAGE">) as Word writes them.
    for simple in p.iter(qn("w:fldSimple")):
        instr = (simple.get(qn("w:instr")) or "").strip().split(" ")[0].upper()
        if instr in ("PAGE", "NUMPAGES"):
            absatz.teile.append(Teil(SEITE if instr == "PAGE" else SEITEN))
    return absatz


@dataclass
class Tabelle:
    zeilen: list[list[Absatz]]
    breiten: list[float] = field(default_factory=list)  # the grid's column widths (twips), if it has them


# Characters of Word's symbol fonts (<w:sym w:font="Symbol" w:char="F0B7"/>) as Unicode; the code is
# the font's own, offset by F000. Unknown ones print as a bullet rather than vanish.
_SYMBOLE = {
    "symbol": {0xB7: "•", 0xAE: "→", 0xAC: "←", 0xB3: "≥", 0xA3: "≤", 0xB1: "±", 0xD7: "×", 0xA7: "§", 0xB0: "°"},
    "wingdings": {0xA8: "☐", 0xFC: "✓", 0xFB: "✗", 0xFD: "☒", 0xFE: "☑", 0x6C: "●", 0x9F: "•", 0xA7: "▪", 0xD8: "➢"},
}


def _symbol(sym: Any) -> str:
    font = (sym.get(qn("w:font")) or "").lower()
    try:
        code = int(sym.get(qn("w:char")) or "", 16)
    except ValueError:
        return ""
    code = code - 0xF000 if code >= 0xF000 else code
    tabelle = next((t for name, t in _SYMBOLE.items() if font.startswith(name)), {})
    return tabelle.get(code, "•")


def _wert(element: Any, tag: str) -> str | None:
    kind = element.find(qn(tag))
    return kind.get(qn("w:val")) if kind is not None else None


def _buchstaben(n: int) -> str:
    """1 → A, 26 → Z, 27 → AA (Word repeats the letter)."""
    return chr(ord("A") + (n - 1) % 26) * ((n - 1) // 26 + 1) if n > 0 else ""


def _roemisch(n: int) -> str:
    werte: list[tuple[int, str]] = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC")]
    werte += [(50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    text = ""
    for wert, zeichen in werte:
        while n >= wert:
            text, n = text + zeichen, n - wert
    return text


TWIPS_PER_MM = 1440 / 25.4
_HOCH = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


class _Nummerierung:
    """Word's automatic numbering (numbering.xml): the number a paragraph shows ("1.", "a)", "II.",
    "•") and its level's indent, counted through the document as Word counts it."""

    FORMATE: ClassVar[dict[str, Callable[[int], str]]] = {
        "decimal": str,
        "lowerLetter": lambda n: _buchstaben(n).lower(),
        "upperLetter": _buchstaben,
        "lowerRoman": lambda n: _roemisch(n).lower(),
        "upperRoman": _roemisch,
    }

    def __init__(self, docx: DocxDocument) -> None:
        self.ebenen: dict[str, dict[int, tuple[str, str, int, float]]] = {}
        # Word counts per list definition (abstractNum): list instances sharing one continue each
        # other's numbers, unless an instance restarts a level (startOverride) where it is first used
        self.definition: dict[str, str] = {}
        self.neustart: dict[str, dict[int, int]] = {}
        self.neu_begonnen: set[tuple[str, int]] = set()
        self.zaehler: dict[str, dict[int, int]] = {}
        self.stil_nummern: dict[str, tuple[str, int]] = {}
        try:
            wurzel = docx.part.numbering_part.element
        except (KeyError, NotImplementedError):
            return
        abstrakt = {a.get(qn("w:abstractNumId")): a for a in wurzel.iterchildren(qn("w:abstractNum"))}
        for num in wurzel.iterchildren(qn("w:num")):
            ref = num.find(qn("w:abstractNumId"))
            definition_id = ref.get(qn("w:val")) if ref is not None else None
            definition = abstrakt.get(definition_id)
            if definition is None:
                continue
            self.definition[num.get(qn("w:numId"))] = definition_id or ""
            for override in num.iterchildren(qn("w:lvlOverride")):
                start_override = override.find(qn("w:startOverride"))
                if start_override is not None and (wert := start_override.get(qn("w:val"))) is not None:
                    self.neustart.setdefault(num.get(qn("w:numId")), {})[int(override.get(qn("w:ilvl")) or 0)] = int(wert)
            ebenen = {}
            for lvl in definition.iterchildren(qn("w:lvl")):
                fmt = _wert(lvl, "w:numFmt") or "decimal"
                text = _wert(lvl, "w:lvlText") or ""
                start = int(_wert(lvl, "w:start") or 1)
                ind = lvl.find(f"{qn('w:pPr')}/{qn('w:ind')}")
                links = ind.get(qn("w:left")) or ind.get(qn("w:start")) if ind is not None else None
                ebenen[int(lvl.get(qn("w:ilvl")) or 0)] = (fmt, text, start, int(links) / TWIPS_PER_MM if links else 0.0)
            self.ebenen[num.get(qn("w:numId"))] = ebenen
        for stil in docx.styles.element.iterchildren(qn("w:style")):
            num_pr = stil.find(f"{qn('w:pPr')}/{qn('w:numPr')}")
            if num_pr is not None and (num_id := _wert(num_pr, "w:numId")):
                self.stil_nummern[stil.get(qn("w:styleId"))] = (num_id, int(_wert(num_pr, "w:ilvl") or 0))

    def naechste(self, p: Any) -> tuple[str, float] | None:
        """The number of paragraph `p` and its level's indent in mm, or None if it has none."""
        ppr = p.pPr
        num_pr = ppr.find(qn("w:numPr")) if ppr is not None else None
        num_id: str | None
        if num_pr is not None:
            num_id, ebene = _wert(num_pr, "w:numId"), int(_wert(num_pr, "w:ilvl") or 0)
        else:
            stil = str(ppr.pStyle.val) if ppr is not None and ppr.pStyle is not None else ""
            num_id, ebene = self.stil_nummern.get(stil, ("", 0))
        ebenen = self.ebenen.get(num_id or "")
        if not ebenen or ebene not in ebenen:
            return None
        zaehler = self.zaehler.setdefault(self.definition.get(num_id or "", num_id or ""), {})
        fmt, text, start, einzug = ebenen[ebene]
        neustart = self.neustart.get(num_id or "", {}).get(ebene)
        if neustart is not None and (num_id or "", ebene) not in self.neu_begonnen:
            self.neu_begonnen.add((num_id or "", ebene))
            zaehler[ebene] = neustart - 1
        zaehler[ebene] = zaehler.get(ebene, start - 1) + 1
        for tiefer in [e for e in zaehler if e > ebene]:
            del zaehler[tiefer]
        if fmt == "bullet":
            return "•", einzug
        if fmt == "none":
            return None
        for stufe in range(ebene + 1):
            fmt_stufe, _, start_stufe, _ = ebenen.get(stufe, ("decimal", "", 1, 0.0))
            wert = zaehler.get(stufe, start_stufe)
            text = text.replace(f"%{stufe + 1}", self.FORMATE.get(fmt_stufe, str)(wert))
        return text, einzug


def _block_elemente(
    container: Any,
    part: Any,
    default_size: float,
    nummern: _Nummerierung | None = None,
    fussnoten: dict[str, int] | None = None,
    *,
    verborgen: HiddenText,
) -> list[Absatz | Tabelle]:
    bloecke: list[Absatz | Tabelle] = []
    for child in container.iterchildren():
        if child.tag == qn("w:p"):
            if _ausgeblendet(child, verborgen):
                continue  # no line, no number, no page break: Word shows nothing of it
            absatz = _absatz(child, part, default_size, fussnoten, verborgen=verborgen)
            nummer = nummern.naechste(child) if nummern is not None else None
            if nummer is not None:
                text, einzug = nummer
                absatz.teile.insert(0, Teil(f"{text} ", absatz.bold))
                if not absatz.einzug:
                    absatz.einzug = min(einzug, 80.0)
            bloecke.append(absatz)
        elif child.tag == qn("w:tbl"):
            zeilen = []
            for tr in child.iterchildren(qn("w:tr")):
                zellen = []
                for tc in tr.iterchildren(qn("w:tc")):
                    absaetze = _zelle(tc, part, default_size, fussnoten, verborgen=verborgen)
                    zelle = absaetze[0] if absaetze else Absatz()
                    for weitere in absaetze[1:]:
                        zelle.teile += [Teil("\n"), *weitere.teile]
                    zellen.append(zelle)
                zeilen.append(zellen)
            if zeilen:
                raster = child.find(qn("w:tblGrid"))
                spalten = [] if raster is None else list(raster.iterchildren(qn("w:gridCol")))
                breiten = [float(spalte.get(qn("w:w")) or 0) for spalte in spalten]
                bloecke.append(Tabelle(zeilen, breiten if breiten and all(breiten) else []))
        elif child.tag in (qn("w:sdt"), qn("w:customXml")):
            # a content control (or custom XML) around whole paragraphs or tables: its content counts
            inhalt = child.find(qn("w:sdtContent")) if child.tag == qn("w:sdt") else child
            if inhalt is not None:
                bloecke += _block_elemente(inhalt, part, default_size, nummern, fussnoten, verborgen=verborgen)
    return bloecke


def _ausgeblendet(p: Any, verborgen: HiddenText) -> bool:
    """Whether Word shows nothing of the paragraph `p`: its mark is hidden, and so is every run
    that shows something (a run of field characters alone shows nothing)."""
    return verborgen.mark(p) and all(
        verborgen(run) or all(kind.tag in (qn("w:rPr"), qn("w:fldChar")) for kind in run) for run in p.iter(qn("w:r"))
    )


def _zelle(tc: Any, part: Any, default_size: float, fussnoten: dict[str, int] | None, *, verborgen: HiddenText) -> list[Absatz]:
    """The paragraphs of a table cell, also inside content controls and nested tables (a nested
    table's cells, row by row, as lines of text)."""
    absaetze: list[Absatz] = []
    for block in _block_elemente(tc, part, default_size, None, fussnoten, verborgen=verborgen):
        if isinstance(block, Absatz):
            absaetze.append(block)
        else:
            for zeile in block.zeilen:
                absaetze.append(Absatz(teile=[Teil(" | ".join(zelle.text for zelle in zeile if zelle.text.strip()))]))
    return absaetze


def _font_files() -> dict[str, tuple[Path, ...]]:
    gefunden = {}
    for name, dateien in FONTS.items():
        for verzeichnis in FONT_DIRS:
            pfade = tuple(verzeichnis / d for d in dateien)
            if all(p.exists() for p in pfade):
                gefunden[name] = pfade
    return gefunden


class _Pdf(FPDF):
    def __init__(
        self,
        *,
        kopf_erste: list[Absatz | Tabelle],
        kopf: list[Absatz | Tabelle],
        fuss_erste: list[Absatz | Tabelle],
        fuss: list[Absatz | Tabelle],
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.kopf_erste, self.kopf, self.fuss_erste, self.fuss = kopf_erste, kopf, fuss_erste, fuss
        self.schrift = "Helvetica"
        self.unicode = False

    def text_fuer(self, text: str) -> str:
        if self.unicode:
            return text
        return (
            text.replace("€", "EUR")
            .replace("–", "-")
            .replace("„", '"')
            .replace("“", '"')
            .encode("latin-1", "replace")
            .decode("latin-1")
        )

    def _zeilen(self, bloecke: list[Absatz | Tabelle]) -> None:
        for block in bloecke:
            if isinstance(block, Tabelle):
                self._spalten(block)
                continue
            absatz = block
            for bild in absatz.bilder:
                breite = 40.0
                x = {Align.C: (self.w - breite) / 2, Align.R: self.w - self.r_margin - breite}.get(absatz.align, self.l_margin)
                try:
                    info = self.image(io.BytesIO(bild), x=x, h=14)
                except Exception as exc:  # fpdf2 and Pillow raise many types; EMF/WMF logos are common in Word
                    logger.warning("Bild im Briefkopf nicht darstellbar (%s), im PDF ausgelassen", type(exc).__name__)
                    continue
                self.set_y(self.get_y() + float(getattr(info, "rendered_height", 14)) + 1)
            text = "".join(
                str(self.page_no()) if t.text == SEITE else "{nb}" if t.text == SEITEN else t.text for t in absatz.teile
            )
            if not text.strip():
                continue
            erster = absatz.teile[0] if absatz.teile else Teil("")
            groesse = next((t.size for t in absatz.teile if t.size), None) or 8.0
            self.set_font(self.schrift, "B" if erster.bold else "", groesse)
            self.multi_cell(0, groesse * 0.45, self.text_fuer(text), align=absatz.align, new_x="LMARGIN", new_y="NEXT")

    def _spalten(self, tabelle: Tabelle) -> None:
        """A table in a letterhead or footer (address | bank | phone, as firms lay them out): its
        cells side by side, each in its share of the text width."""
        for zeile in tabelle.zeilen:
            breite = (self.w - self.l_margin - self.r_margin) / max(1, len(zeile))
            oben, unten = self.get_y(), self.get_y()
            for index, zelle in enumerate(zeile):
                text = zelle.text.replace(SEITE, str(self.page_no())).replace(SEITEN, "{nb}")
                if not text.strip():
                    continue
                groesse = next((t.size for t in zelle.teile if t.size), None) or 8.0
                self.set_font(self.schrift, "B" if zelle.bold else "", groesse)
                self.set_xy(self.l_margin + index * breite, oben)
                self.multi_cell(breite, groesse * 0.45, self.text_fuer(text), align=zelle.align, new_x="LEFT", new_y="NEXT")
                unten = max(unten, self.get_y())
            self.set_xy(self.l_margin, unten)

    def header(self) -> None:
        self.set_y(10)
        self._zeilen(self.kopf_erste if self.page_no() == 1 and self.kopf_erste else self.kopf)
        self.set_y(max(self.get_y() + 4, self.t_margin))

    def footer(self) -> None:
        bloecke = self.fuss_erste if self.page_no() == 1 and self.fuss_erste else self.fuss
        if not _hat_text(bloecke):
            return
        self.set_y(-max(15.0, _hoehe(bloecke) + 5))
        self._zeilen(bloecke)


def _hat_text(bloecke: list[Absatz | Tabelle]) -> bool:
    return any(
        any(zelle.text.strip() for zeile in b.zeilen for zelle in zeile) if isinstance(b, Tabelle) else b.text.strip()
        for b in bloecke
    )


def _hoehe(bloecke: list[Absatz | Tabelle]) -> float:
    """Roughly how many mm a letterhead's or footer's text takes (lines × line height)."""

    def zeilen(absatz: Absatz) -> int:
        return absatz.text.count("\n") + 1 if absatz.text.strip() else 0

    hoehe = 0.0
    for block in bloecke:
        if isinstance(block, Tabelle):
            hoehe += sum(max((zeilen(zelle) for zelle in zeile), default=0) for zeile in block.zeilen) * 8.0 * 0.45
        else:
            groesse = next((t.size for t in block.teile if t.size), None) or 8.0
            hoehe += zeilen(block) * groesse * 0.45
    return hoehe


def docx_zu_pdf(docx: DocxDocument) -> bytes:
    """Render the DOCX (after the letterhead was applied) as PDF bytes."""
    section = docx.sections[0]
    normal = docx.styles["Normal"].font
    default_size = normal.size.pt if normal.size else 11.0
    erste_anders = section.different_first_page_header_footer
    verborgen = HiddenText.of(docx)

    def lesen(hf: Any) -> list[Absatz | Tabelle]:
        if hf.is_linked_to_previous and hf is not section.header:
            return []
        return _block_elemente(hf._element, hf.part, 8.0, verborgen=verborgen)

    pdf = _Pdf(
        kopf_erste=lesen(section.first_page_header) if erste_anders else [],
        kopf=lesen(section.header),
        fuss_erste=lesen(section.first_page_footer) if erste_anders else [],
        fuss=lesen(section.footer),
        unit="mm",
        format=(section.page_width / EMU_PER_MM, section.page_height / EMU_PER_MM)
        if section.page_width and section.page_height
        else "A4",
    )
    fussnoten: dict[str, int] = {}
    bloecke = _block_elemente(docx.element.body, docx.part, default_size, _Nummerierung(docx), fussnoten, verborgen=verborgen)
    bloecke += _fussnoten(docx, fussnoten, default_size, verborgen=verborgen)
    fonts = _font_files()
    wunsch = normal.name if normal.name in fonts else "Liberation Sans"
    familie = wunsch if wunsch in fonts else next(iter(fonts), None)
    if familie:
        _schrift_laden(pdf, "Text", fonts[familie])
        pdf.schrift, pdf.unicode = "Text", True
        # Liberation lacks letters of names (Vietnamese „Nguyễn“) and signs like ✓ or 😀; without a
        # fallback they silently vanish from the PDF while the DOCX shows them. Loaded only when
        # needed: parsing the fallback font doubles the time of an ordinary PDF.
        texte = _alle_texte([*pdf.kopf_erste, *pdf.kopf, *pdf.fuss_erste, *pdf.fuss, *bloecke])
        zeichen = {ord(c) for text in texte for c in text}
        fehlend = zeichen - _zeichensatz(fonts[familie][0]) - _OHNE_GLYPHE
        if fehlend and familie != ERSATZSCHRIFT and ERSATZSCHRIFT in fonts:
            _schrift_laden(pdf, "Ersatz", fonts[ERSATZSCHRIFT])
            pdf.set_fallback_fonts(["Ersatz"])
    links = section.left_margin / EMU_PER_MM if section.left_margin else 25
    rechts = section.right_margin / EMU_PER_MM if section.right_margin else 20
    oben = section.top_margin / EMU_PER_MM if section.top_margin else 25
    unten = section.bottom_margin / EMU_PER_MM if section.bottom_margin else 20
    pdf.set_margins(links, max(oben, 20), rechts)
    # the text stops above the footer, however many lines the firm's footer has
    fuss_hoehe = max(_hoehe(pdf.fuss), _hoehe(pdf.fuss_erste))
    pdf.set_auto_page_break(True, margin=max(unten, 20, fuss_hoehe + 8))
    pdf.set_title(docx.core_properties.title or "")
    # no creator: the file goes to the client and the other side, and which tool wrote it is the firm's business
    pdf.add_page()
    for block in bloecke:
        if isinstance(block, Tabelle):
            _tabelle(pdf, block, default_size)
        else:
            _absatz_schreiben(pdf, block)
    return bytes(pdf.output())


def _fussnoten(
    docx: DocxDocument, nummern: dict[str, int], default_size: float, *, verborgen: HiddenText
) -> list[Absatz | Tabelle]:
    """The footnotes referenced in the text, in their order, after it (a PDF page has no footnote
    area here); each starts with its number."""
    teil = next((rel.target_part for rel in docx.part.rels.values() if rel.reltype == RT.FOOTNOTES), None)
    if not nummern or teil is None:
        return []
    try:
        wurzel = parse_xml(teil.blob)  # python-docx's parser (its element classes; no entities resolved)
    except etree.XMLSyntaxError:
        logger.warning("Fußnoten nicht lesbar, im PDF ausgelassen")
        return []
    notizen = {note.get(qn("w:id")): note for note in wurzel.iterchildren(qn("w:footnote"))}
    groesse = default_size - 2
    bloecke: list[Absatz | Tabelle] = [Absatz(teile=[Teil("―――――")], size=groesse)]
    for kennung, nummer in sorted(nummern.items(), key=lambda eintrag: eintrag[1]):
        note = notizen.get(kennung)
        if note is None:
            continue
        for index, p in enumerate(note.iterchildren(qn("w:p"))):
            absatz = _absatz(p, teil, groesse, verborgen=verborgen)
            absatz.size = groesse
            if index == 0:
                erster = next((t for t in absatz.teile if t.text.strip()), None)
                if erster is not None:
                    erster.text = erster.text.lstrip()  # Word writes the space after its mark
                absatz.teile.insert(0, Teil(f"{nummer} ", size=groesse))
            bloecke.append(absatz)
    return bloecke


def _alle_texte(bloecke: list[Absatz | Tabelle]) -> Iterator[str]:
    for block in bloecke:
        if isinstance(block, Tabelle):
            yield from (zelle.text for zeile in block.zeilen for zelle in zeile)
        else:
            yield block.text


@cache
def _zeichensatz(datei: Path) -> frozenset[int]:
    """The code points `datei` has glyphs for."""
    return frozenset(TTFont(str(datei), lazy=True).getBestCmap())


def _schrift_laden(pdf: FPDF, name: str, dateien: tuple[Path, ...]) -> None:
    for stil, datei in zip(("", "B", "I", "BI"), dateien, strict=True):
        pdf.add_font(name, stil, str(datei))


def _style(teil: Teil, absatz: Absatz) -> str:
    return ("B" if teil.bold or absatz.bold else "") + ("I" if teil.italic else "")


def _absatz_schreiben(pdf: _Pdf, absatz: Absatz) -> None:
    if (absatz.seitenumbruch or absatz.umbruch_vorher) and not absatz.text.strip():
        pdf.add_page()
        return
    if absatz.umbruch_vorher:
        pdf.add_page()
    zeilenhoehe = absatz.size * 0.5
    if not absatz.text.strip():
        if absatz.bilder:
            _bilder_schreiben(pdf, absatz)
        else:
            pdf.ln(zeilenhoehe)
        return
    links = pdf.l_margin + absatz.einzug
    if absatz.mit_naechstem and pdf.get_y() + zeilenhoehe * 4 > pdf.page_break_trigger:
        pdf.add_page()  # a heading never ends a page: it goes with the start of its text
    # text_columns starts at the larger of the current x and its margin: an indented paragraph
    # before (a list, a quote) left x there, and every later paragraph kept that indent
    pdf.set_x(links)
    with pdf.text_columns(text_align=absatz.align, l_margin=links, r_margin=pdf.r_margin) as spalten:
        with spalten.paragraph(bottom_margin=zeilenhoehe * 0.4) as par:
            for teil in absatz.teile:
                pdf.set_font(pdf.schrift, _style(teil, absatz), teil.size or absatz.size)
                par.write(pdf.text_fuer(teil.text))
    _bilder_schreiben(pdf, absatz)
    if absatz.seitenumbruch:
        pdf.add_page()


def _bilder_schreiben(pdf: _Pdf, absatz: Absatz) -> None:
    """Pictures of a body paragraph (a scanned signature, a stamp, a plan) in their Word size,
    at most the text width, placed as the paragraph is aligned."""
    links = pdf.l_margin + absatz.einzug
    breite_max = pdf.w - links - pdf.r_margin
    for bild, masse in zip(absatz.bilder, absatz.bildmasse, strict=True):
        breite = min(masse[0] if masse else 40.0, breite_max)
        x = {Align.C: links + (breite_max - breite) / 2, Align.R: pdf.w - pdf.r_margin - breite}.get(absatz.align, links)
        try:
            pdf.image(io.BytesIO(bild), x=x, w=breite)
        except Exception as exc:  # fpdf2 and Pillow raise many types; EMF/WMF pictures are common in Word
            logger.warning("Bild im Text nicht darstellbar (%s), im PDF ausgelassen", type(exc).__name__)


def _tabelle(pdf: _Pdf, tabelle: Tabelle, default_size: float) -> None:
    spalten = max(len(z) for z in tabelle.zeilen)
    pdf.set_font(pdf.schrift, "", default_size - 1)
    # the Word grid's proportions where it has as many columns as the rows (a description wider than a number)
    breiten = tuple(tabelle.breiten) if len(tabelle.breiten) == spalten else None
    with pdf.table(
        first_row_as_headings=False,
        line_height=(default_size - 1) * 0.5,
        borders_layout="HORIZONTAL_LINES",
        col_widths=breiten,
    ) as table:
        for zeile in tabelle.zeilen:
            row = table.row()
            for index in range(spalten):
                zelle = zeile[index] if index < len(zeile) else Absatz()
                bold = zelle.bold or any(t.bold for t in zelle.teile if t.text.strip())
                row.cell(
                    pdf.text_fuer(zelle.text),
                    align=zelle.align if zelle.align != Align.J else Align.L,
                    style=FontFace(emphasis="BOLD") if bold else None,
                )
    pdf.set_font(pdf.schrift, "", default_size)
    pdf.ln(2)
