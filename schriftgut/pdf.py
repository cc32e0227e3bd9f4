"""PDF from the rendered DOCX (fpdf2): the same paragraphs, tables, letterhead, header with the
Aktenzeichen and „Seite X von Y“, so DOCX and PDF never differ in content.

Why not LibreOffice: see README „Schriftsätze, Vorlagen und Kostennote“ and bench/documents.py —
fpdf2 is pure Python from PyPI, works offline and renders a two-page Schriftsatz in a few tens of
milliseconds; a headless LibreOffice needs a large Debian install and seconds per conversion.
The conversion covers what our templates and ordinary firm templates use: paragraphs with
alignment, bold/italic runs, font sizes, headings, line and page breaks, paragraph spacing and line
height as Word resolves them (w:spacing through document defaults and styles), simple tables,
tables fixed on the page (w:tblpPr: the DIN 5008 address field and information block, drawn where
Word draws them, the text flowing below), lines fixed on the page (fold and hole marks), header and
footer text, images in the header (logo) in their Word size and the PAGE/NUMPAGES fields.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
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
PT_MM = 25.4 / 72
# Word's single line is the font's ascent + descent + line gap; 1.15 of the size for Liberation Sans
# and Arial. Used where no font file was found.
ZEILENFAKTOR = 1.15
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


@dataclass(frozen=True)
class Abstand:
    """A paragraph's spacing as Word lays it out (w:spacing): space before and after in mm, and its
    line height – a multiple of the font's single line („auto“), exactly or at least a height in mm."""

    vor: float = 0.0
    nach: float = 0.0
    vielfaches: float = 1.0
    genau: float | None = None
    mindestens: float | None = None
    kontextuell: bool = False  # contextualSpacing: none of it next to a paragraph of the same style

    def zeile(self, punkt: float, faktor: float) -> float:
        """The height in mm of a line at font size `punkt`; `faktor` is the font's single line per pt."""
        einfach = punkt * PT_MM * faktor
        if self.genau is not None:
            return self.genau
        if self.mindestens is not None:
            return max(self.mindestens, einfach)
        return einfach * self.vielfaches


Linie = tuple[float, float, float, float, float]  # x1, y1, x2, y2 on the page and the width, in mm


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
    abstand: Abstand = field(default_factory=Abstand)
    stil: str = ""  # the paragraph style's id, as resolved for the spacing
    linien: list[Linie] = field(default_factory=list)  # lines fixed on the page (fold marks)

    @property
    def text(self) -> str:
        return "".join(t.text for t in self.teile)

    @property
    def groesse(self) -> float:
        """The font size of its text: the first run that says one, else the paragraph's."""
        return next((t.size for t in self.teile if t.size and t.text.strip()), None) or self.size


def _absatz(
    p: Any,
    part: Any,
    default_size: float,
    fussnoten: dict[str, int] | None = None,
    *,
    verborgen: HiddenText,
    formate: _Formate | None = None,
) -> Absatz:
    """Read a <w:p>: runs in order, fields as markers, cached field results skipped; hidden text
    (`verborgen`) is left out, as Word prints by default, but a field around it stays whole. Its
    spacing is resolved through the styles (`formate`)."""
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
    if formate is not None:
        absatz.abstand, absatz.stil = formate.abstand(p), formate.stil(p)
    for anker in p.iter(qn("wp:anchor")):
        if next(anker.iterancestors(_MC_FALLBACK), None) is None and (linie := _linie(anker)) is not None:
            absatz.linien.append(linie)
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


def _linie(anker: Any) -> Linie | None:
    """A straight line anchored to the page (a DrawingML shape „line“ or connector, as Word writes
    fold marks): its ends and width in mm; None for any other shape or position."""
    geometrie = next(anker.iter(qn("a:prstGeom")), None)
    if geometrie is None or geometrie.get("prst") not in ("line", "straightConnector1"):
        return None
    try:
        lage = []
        for achse in ("wp:positionH", "wp:positionV"):
            element = anker.find(qn(achse))
            versatz = element.find(qn("wp:posOffset")) if element is not None else None
            if element is None or element.get("relativeFrom") != "page" or versatz is None:
                return None
            lage.append(int((versatz.text or "").strip()) / EMU_PER_MM)
        ausdehnung = anker.find(qn("wp:extent"))
        cx, cy = (int(ausdehnung.get(a) or 0) / EMU_PER_MM for a in ("cx", "cy")) if ausdehnung is not None else (0.0, 0.0)
        strich = next(anker.iter(qn("a:ln")), None)
        if strich is not None and strich.find(qn("a:noFill")) is not None:
            return None
        breite = int(strich.get("w") or 9525) / EMU_PER_MM if strich is not None else 9525 / EMU_PER_MM
    except ValueError:
        return None
    xfrm = next(anker.iter(qn("a:xfrm")), None)
    x, y = lage
    oben, unten = (y + cy, y) if xfrm is not None and xfrm.get("flipV") in ("1", "true") else (y, y + cy)
    return (x, oben, x + cx, unten, breite)


_AN = ("1", "true", "on")


def _abstandswerte(ppr: Any) -> dict[str, str]:
    """The attributes of <w:spacing> in a paragraph's or style's properties."""
    spacing = ppr.find(qn("w:spacing")) if ppr is not None else None
    werte: dict[str, str] = {}
    if spacing is not None:
        namen = ("before", "after", "line", "lineRule", "beforeAutospacing", "afterAutospacing")
        werte = {name: wert for name in namen if (wert := spacing.get(qn(f"w:{name}"))) is not None}
    kontextuell = ppr.find(qn("w:contextualSpacing")) if ppr is not None else None
    if kontextuell is not None:
        werte["contextualSpacing"] = kontextuell.get(qn("w:val")) or "1"
    return werte


class _Formate:
    """Paragraph spacing as Word resolves it: the document defaults, then the paragraph's style and
    the styles it is based on, then the paragraph's own properties."""

    def __init__(self, docx: DocxDocument) -> None:
        wurzel = docx.styles.element
        self.stile = {s.get(qn("w:styleId")): s for s in wurzel.iterchildren(qn("w:style")) if s.get(qn("w:type")) == "paragraph"}
        self.standard = next((i for i, s in self.stile.items() if s.get(qn("w:default")) in _AN), None)
        self.vorgabe = _abstandswerte(wurzel.find(f"{qn('w:docDefaults')}/{qn('w:pPrDefault')}/{qn('w:pPr')}"))
        self.je_stil: dict[str | None, dict[str, str]] = {}

    def _stilwerte(self, stil: str | None) -> dict[str, str]:
        if stil not in self.stile:
            stil = self.standard
        if stil not in self.je_stil:
            kette: list[Any] = []
            aktuell = stil
            while aktuell in self.stile and len(kette) < 20 and self.stile[aktuell] not in kette:
                kette.append(self.stile[aktuell])
                aktuell = _wert(self.stile[aktuell], "w:basedOn")
            werte = dict(self.vorgabe)
            for element in reversed(kette):
                werte.update(_abstandswerte(element.find(qn("w:pPr"))))
            self.je_stil[stil] = werte
        return self.je_stil[stil]

    def stil(self, p: Any) -> str:
        ppr = p.find(qn("w:pPr"))
        stil = _wert(ppr, "w:pStyle") if ppr is not None else None
        return (stil if stil in self.stile else self.standard) or ""

    def abstand(self, p: Any) -> Abstand:
        ppr = p.find(qn("w:pPr"))
        werte = dict(self._stilwerte(_wert(ppr, "w:pStyle") if ppr is not None else None))
        werte.update(_abstandswerte(ppr))
        kontextuell = werte.get("contextualSpacing") in _AN

        def mm(name: str, auto: str) -> float:
            if werte.get(auto) in _AN:
                return 14 * PT_MM  # „automatic“ spacing as in HTML: 14 pt
            try:
                return max(0.0, float(werte.get(name) or 0) / TWIPS_PER_MM)
            except ValueError:
                return 0.0

        vor, nach = mm("before", "beforeAutospacing"), mm("after", "afterAutospacing")
        try:
            zeile = abs(float(werte["line"])) if werte.get("line") else None
        except ValueError:
            zeile = None
        regel = werte.get("lineRule", "auto")
        if zeile and regel == "exact":
            return Abstand(vor, nach, genau=zeile / TWIPS_PER_MM, kontextuell=kontextuell)
        if zeile and regel == "atLeast":
            return Abstand(vor, nach, mindestens=zeile / TWIPS_PER_MM, kontextuell=kontextuell)
        return Abstand(vor, nach, vielfaches=zeile / 240 if zeile else 1.0, kontextuell=kontextuell)


@dataclass
class Tabelle:
    zeilen: list[list[Absatz]]
    breiten: list[float] = field(default_factory=list)  # the grid's column widths (twips), if it has them


@dataclass
class Feld:
    """A cell of a table fixed on the page: its paragraphs and how Word lays it out."""

    absaetze: list[Absatz]
    spalte: int  # first column of the grid
    spannweite: int  # columns of the grid it spans (gridSpan)
    raender: tuple[float, float, float, float]  # inner margins left, top, right, bottom in mm
    vertikal: str  # top, center, bottom
    verbunden: str  # "", "restart" or "continue" (vMerge: a cell spanning rows)


@dataclass
class Reihe:
    felder: list[Feld]
    hoehe: float  # mm
    genau: bool  # hRule exact: Word cuts what does not fit


@dataclass
class Positioniert:
    """A floating table (w:tblpPr), e.g. the DIN 5008 address field: Word draws it at its place on the
    page, the text flows around it – here below it (it spans the text width in our templates)."""

    anker_x: str  # page, margin, text
    anker_y: str
    x: float  # mm from the anchor
    y: float
    ausrichtung_x: str  # tblpXSpec (left, center, right) instead of x, if given
    ausrichtung_y: str
    abstand_oben: float  # topFromText, bottomFromText in mm
    abstand_unten: float
    spalten: list[float]
    reihen: list[Reihe]


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
    formate: _Formate | None = None,
    schwebend: bool = False,
) -> list[Absatz | Tabelle | Positioniert]:
    """The paragraphs and tables of `container` in order; with `schwebend`, a table fixed on the page
    (w:tblpPr) becomes a Positioniert block (in the body; in headers it stays a table of lines)."""
    bloecke: list[Absatz | Tabelle | Positioniert] = []
    for child in container.iterchildren():
        if child.tag == qn("w:p"):
            if _ausgeblendet(child, verborgen):
                continue  # no line, no number, no page break: Word shows nothing of it
            absatz = _absatz(child, part, default_size, fussnoten, verborgen=verborgen, formate=formate)
            vorher = bloecke[-1] if bloecke else None
            if isinstance(vorher, Absatz) and vorher.stil and vorher.stil == absatz.stil:
                # contextualSpacing (Word's list styles): no space between paragraphs of one style
                if vorher.abstand.kontextuell:
                    vorher.abstand = replace(vorher.abstand, nach=0.0)
                if absatz.abstand.kontextuell:
                    absatz.abstand = replace(absatz.abstand, vor=0.0)
            nummer = nummern.naechste(child) if nummern is not None else None
            if nummer is not None:
                text, einzug = nummer
                absatz.teile.insert(0, Teil(f"{text} ", absatz.bold))
                if not absatz.einzug:
                    absatz.einzug = min(einzug, 80.0)
            bloecke.append(absatz)
        elif child.tag == qn("w:tbl"):
            if schwebend and (positioniert := _positioniert(child, part, default_size, verborgen=verborgen, formate=formate)):
                bloecke.append(positioniert)
                continue
            zeilen = []
            for tr in child.iterchildren(qn("w:tr")):
                zellen = []
                for tc in tr.iterchildren(qn("w:tc")):
                    absaetze = _zelle(tc, part, default_size, fussnoten, verborgen=verborgen, formate=formate)
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
                bloecke += _block_elemente(
                    inhalt, part, default_size, nummern, fussnoten, verborgen=verborgen, formate=formate, schwebend=schwebend
                )
    return bloecke


def _twips_mm(element: Any, attribut: str = "w:w") -> float | None:
    try:
        return float(element.get(qn(attribut))) / TWIPS_PER_MM if element is not None and element.get(qn(attribut)) else None
    except ValueError:
        return None


def _zellraender(tcmar: Any, vorgabe: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
    """Inner cell margins (w:tblCellMar, w:tcMar) in mm: left, top, right, bottom."""
    if tcmar is None:
        return vorgabe
    werte = []
    for namen, standard in zip((("left", "start"), ("top",), ("right", "end"), ("bottom",)), vorgabe, strict=True):
        element = next((e for n in namen if (e := tcmar.find(qn(f"w:{n}"))) is not None), None)
        wert = _twips_mm(element)
        werte.append(standard if wert is None else wert)
    return (werte[0], werte[1], werte[2], werte[3])


def _positioniert(
    tbl: Any, part: Any, default_size: float, *, verborgen: HiddenText, formate: _Formate | None
) -> Positioniert | None:
    """A floating table (w:tblpPr) with its grid, rows and cells; None for a table in the text flow
    or one without a grid (it stays an ordinary table)."""
    tblpr = tbl.find(qn("w:tblPr"))
    lage = tblpr.find(qn("w:tblpPr")) if tblpr is not None else None
    raster = tbl.find(qn("w:tblGrid"))
    spalten = [_twips_mm(spalte) or 0.0 for spalte in raster.iterchildren(qn("w:gridCol"))] if raster is not None else []
    if lage is None or not spalten or not all(spalten):
        return None
    # Word's default cell margins (the default table style „Normal Table“): 0.19 cm left and right
    vorgabe = _zellraender(tblpr.find(qn("w:tblCellMar")), (1.905, 0.0, 1.905, 0.0))
    reihen = []
    for tr in tbl.iterchildren(qn("w:tr")):
        hoehe_element = tr.find(f"{qn('w:trPr')}/{qn('w:trHeight')}")
        felder = []
        spalte = 0
        for tc in tr.iterchildren(qn("w:tc")):
            tcpr = tc.find(qn("w:tcPr"))
            spannweite = int(_wert(tcpr, "w:gridSpan") or 1) if tcpr is not None else 1
            verbund = tcpr.find(qn("w:vMerge")) if tcpr is not None else None
            felder.append(
                Feld(
                    absaetze=[
                        block
                        for block in _block_elemente(tc, part, default_size, verborgen=verborgen, formate=formate)
                        if isinstance(block, Absatz)
                    ],
                    spalte=spalte,
                    spannweite=max(1, spannweite),
                    raender=_zellraender(tcpr.find(qn("w:tcMar")) if tcpr is not None else None, vorgabe),
                    vertikal=(_wert(tcpr, "w:vAlign") if tcpr is not None else None) or "top",
                    verbunden="" if verbund is None else (verbund.get(qn("w:val")) or "continue"),
                )
            )
            spalte += max(1, spannweite)
        reihen.append(
            Reihe(
                felder=felder,
                hoehe=_twips_mm(hoehe_element, "w:val") or 0.0,
                genau=hoehe_element is not None and hoehe_element.get(qn("w:hRule")) == "exact",
            )
        )
    return Positioniert(
        anker_x=lage.get(qn("w:horzAnchor")) or "text",
        anker_y=lage.get(qn("w:vertAnchor")) or "margin",
        x=_twips_mm(lage, "w:tblpX") or 0.0,
        y=_twips_mm(lage, "w:tblpY") or 0.0,
        ausrichtung_x=lage.get(qn("w:tblpXSpec")) or "",
        ausrichtung_y=lage.get(qn("w:tblpYSpec")) or "",
        abstand_oben=_twips_mm(lage, "w:topFromText") or 0.0,
        abstand_unten=_twips_mm(lage, "w:bottomFromText") or 0.0,
        spalten=spalten,
        reihen=reihen,
    )


def _ausgeblendet(p: Any, verborgen: HiddenText) -> bool:
    """Whether Word shows nothing of the paragraph `p`: its mark is hidden, and so is every run
    that shows something (a run of field characters alone shows nothing)."""
    return verborgen.mark(p) and all(
        verborgen(run) or all(kind.tag in (qn("w:rPr"), qn("w:fldChar")) for kind in run) for run in p.iter(qn("w:r"))
    )


def _zelle(
    tc: Any,
    part: Any,
    default_size: float,
    fussnoten: dict[str, int] | None,
    *,
    verborgen: HiddenText,
    formate: _Formate | None = None,
) -> list[Absatz]:
    """The paragraphs of a table cell, also inside content controls and nested tables (a nested
    table's cells, row by row, as lines of text)."""
    absaetze: list[Absatz] = []
    for block in _block_elemente(tc, part, default_size, None, fussnoten, verborgen=verborgen, formate=formate):
        if isinstance(block, Positioniert):
            continue  # never made inside a cell (schwebend is off)
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
        kopf_abstand: float = 12.7,
        **kw: Any,
    ) -> None:
        super().__init__(**kw)
        self.kopf_erste, self.kopf, self.fuss_erste, self.fuss = kopf_erste, kopf, fuss_erste, fuss
        self.kopf_abstand = kopf_abstand  # where Word starts the header: its distance from the top edge
        self.schrift = "Helvetica"
        self.unicode = False
        self.zeilenfaktor = ZEILENFAKTOR
        # areas of a page that a table fixed there keeps free of text: (page, top, bottom) in mm
        self.sperren: list[tuple[int, float, float]] = []

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
        """Header or footer paragraphs, one below the other from the current y, each with Word's
        line height and spacing; pictures (the logo) in their Word size."""
        for block in bloecke:
            if isinstance(block, Tabelle):
                self._spalten(block)
                continue
            absatz = block
            _linien_zeichnen(self, absatz.linien)
            for bild, masse in zip(absatz.bilder, absatz.bildmasse, strict=True):
                breite, hoehe = masse or (40.0, 14.0)
                x = {Align.C: (self.w - breite) / 2, Align.R: self.w - self.r_margin - breite}.get(absatz.align, self.l_margin)
                try:
                    info = self.image(io.BytesIO(bild), x=x, y=self.get_y(), h=hoehe)
                except Exception as exc:  # fpdf2 and Pillow raise many types; EMF/WMF logos are common in Word
                    logger.warning("Bild im Briefkopf nicht darstellbar (%s), im PDF ausgelassen", type(exc).__name__)
                    continue
                self.set_y(self.get_y() + float(getattr(info, "rendered_height", hoehe)) + BILD_UNTERLAENGE)
            text = "".join(
                str(self.page_no()) if t.text == SEITE else "{nb}" if t.text == SEITEN else t.text for t in absatz.teile
            )
            if not text.strip():
                continue
            erster = absatz.teile[0] if absatz.teile else Teil("")
            groesse = absatz.groesse
            self.set_font(self.schrift, "B" if erster.bold else "", groesse)
            self.set_y(self.get_y() + absatz.abstand.vor)
            zeile = absatz.abstand.zeile(groesse, self.zeilenfaktor)
            # fpdf2 keeps its cell margin inside the cell; Word's text reaches the page margins
            self.set_x(self.l_margin - self.c_margin)
            breite = self.w - self.l_margin - self.r_margin + 2 * self.c_margin
            self.multi_cell(breite, zeile, self.text_fuer(text), align=absatz.align, new_x="LMARGIN", new_y="NEXT")
            self.set_y(self.get_y() + absatz.abstand.nach)

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
                zeile_hoehe = groesse * PT_MM * self.zeilenfaktor
                self.multi_cell(breite, zeile_hoehe, self.text_fuer(text), align=zelle.align, new_x="LEFT", new_y="NEXT")
                unten = max(unten, self.get_y())
            self.set_xy(self.l_margin, unten)

    def header(self) -> None:
        self.set_y(self.kopf_abstand)
        self._zeilen(self.kopf_erste if self.page_no() == 1 and self.kopf_erste else self.kopf)
        self.set_y(max(self.get_y() + 4, self.t_margin))

    def footer(self) -> None:
        bloecke = self.fuss_erste if self.page_no() == 1 and self.fuss_erste else self.fuss
        if not _hat_text(bloecke):
            return
        self.set_y(-max(15.0, _hoehe(bloecke, self.zeilenfaktor) + 5))
        self._zeilen(bloecke)


# Below an inline picture Word keeps the descent of the paragraph's font (about 1 mm).
BILD_UNTERLAENGE = 1.0


def _linien_zeichnen(pdf: FPDF, linien: list[Linie]) -> None:
    for x1, y1, x2, y2, breite in linien:
        pdf.set_line_width(breite)
        pdf.line(x1, y1, x2, y2)


def _hat_text(bloecke: list[Absatz | Tabelle]) -> bool:
    return any(
        any(zelle.text.strip() for zeile in b.zeilen for zelle in zeile) if isinstance(b, Tabelle) else b.text.strip()
        for b in bloecke
    )


def _hoehe(bloecke: list[Absatz | Tabelle], faktor: float = ZEILENFAKTOR) -> float:
    """Roughly how many mm a letterhead's or footer's text takes (lines × line height)."""

    def zeilen(absatz: Absatz) -> int:
        return absatz.text.count("\n") + 1 if absatz.text.strip() else 0

    hoehe = 0.0
    for block in bloecke:
        if isinstance(block, Tabelle):
            hoehe += sum(max((zeilen(zelle) for zelle in zeile), default=0) for zeile in block.zeilen) * 8.0 * PT_MM * faktor
        else:
            hoehe += zeilen(block) * block.abstand.zeile(block.groesse, faktor)
    return hoehe


def docx_zu_pdf(docx: DocxDocument) -> bytes:
    """Render the DOCX (after the letterhead was applied) as PDF bytes."""
    section = docx.sections[0]
    normal = docx.styles["Normal"].font
    default_size = normal.size.pt if normal.size else 11.0
    erste_anders = section.different_first_page_header_footer
    verborgen = HiddenText.of(docx)
    formate = _Formate(docx)

    def lesen(hf: Any) -> list[Absatz | Tabelle]:
        if hf.is_linked_to_previous and hf is not section.header:
            return []
        bloecke = _block_elemente(hf._element, hf.part, 8.0, verborgen=verborgen, formate=formate)
        return [block for block in bloecke if not isinstance(block, Positioniert)]

    pdf = _Pdf(
        kopf_erste=lesen(section.first_page_header) if erste_anders else [],
        kopf=lesen(section.header),
        fuss_erste=lesen(section.first_page_footer) if erste_anders else [],
        fuss=lesen(section.footer),
        kopf_abstand=section.header_distance / EMU_PER_MM if section.header_distance is not None else 12.7,
        unit="mm",
        format=(section.page_width / EMU_PER_MM, section.page_height / EMU_PER_MM)
        if section.page_width and section.page_height
        else "A4",
    )
    fussnoten: dict[str, int] = {}
    bloecke = _block_elemente(
        docx.element.body,
        docx.part,
        default_size,
        _Nummerierung(docx),
        fussnoten,
        verborgen=verborgen,
        formate=formate,
        schwebend=True,
    )
    bloecke += _fussnoten(docx, fussnoten, default_size, verborgen=verborgen, formate=formate)
    fonts = _font_files()
    wunsch = normal.name if normal.name in fonts else "Liberation Sans"
    familie = wunsch if wunsch in fonts else next(iter(fonts), None)
    if familie:
        _schrift_laden(pdf, "Text", fonts[familie])
        pdf.schrift, pdf.unicode = "Text", True
        pdf.zeilenfaktor = _zeilenfaktor(fonts[familie][0])
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
    fuss_hoehe = max(_hoehe(pdf.fuss, pdf.zeilenfaktor), _hoehe(pdf.fuss_erste, pdf.zeilenfaktor))
    pdf.set_auto_page_break(True, margin=max(unten, 20, fuss_hoehe + 8))
    pdf.set_title(docx.core_properties.title or "")
    pdf.set_lang("de-DE")  # screen readers read it as German (PDF/UA: the document's language)
    # no creator: the file goes to the client and the other side, and which tool wrote it is the firm's business
    pdf.add_page()
    for block in bloecke:
        if isinstance(block, Positioniert):
            _positioniert_schreiben(pdf, block)
        elif isinstance(block, Tabelle):
            _sperre_beachten(pdf, 5.0)
            _tabelle(pdf, block, default_size)
        else:
            _absatz_schreiben(pdf, block)
    return bytes(pdf.output())


def _sperre_beachten(pdf: _Pdf, hoehe: float) -> None:
    """Text that would run into a table fixed on this page (with its distance from the text) goes
    below it, as Word wraps text around a floating table."""
    for seite, oben, unten in pdf.sperren:
        if seite == pdf.page and pdf.get_y() < unten and pdf.get_y() + hoehe > oben:
            pdf.set_y(unten)


def _positioniert_schreiben(pdf: _Pdf, block: Positioniert) -> None:
    """Draw a floating table where Word draws it (cells with their margins, vertical alignment and
    exact row heights, rows spanned by a merged cell) and keep its area free of the following text."""
    breite = sum(block.spalten)
    if block.anker_x == "page":
        links, bereich = 0.0, pdf.w
    else:
        links, bereich = pdf.l_margin, pdf.w - pdf.l_margin - pdf.r_margin
    x = links + {"center": (bereich - breite) / 2, "right": bereich - breite}.get(block.ausrichtung_x, block.x)
    if block.anker_y == "page":
        oben, bereich = 0.0, pdf.h
    elif block.anker_y == "margin":
        oben, bereich = pdf.t_margin, pdf.h - pdf.t_margin - pdf.b_margin
    else:  # the paragraph it is anchored to: here, where the text stands
        oben, bereich = pdf.get_y(), 0.0
    hoehen = []
    for reihe in block.reihen:
        hoehe = reihe.hoehe
        if not reihe.genau:
            for feld in reihe.felder:
                if not feld.verbunden:
                    innen = _feldbreite(block, feld) - feld.raender[0] - feld.raender[2]
                    hoehe = max(hoehe, _inhalt_hoehe(pdf, feld.absaetze, innen) + feld.raender[1] + feld.raender[3])
        hoehen.append(hoehe)
    gesamt = sum(hoehen)
    y = oben + {"center": (bereich - gesamt) / 2, "bottom": bereich - gesamt}.get(block.ausrichtung_y, block.y)
    vorher_x, vorher_y = pdf.get_x(), pdf.get_y()
    for index, reihe in enumerate(block.reihen):
        for feld in reihe.felder:
            if feld.verbunden == "continue":
                continue
            hoehe = hoehen[index]
            if feld.verbunden == "restart":
                for weiter, folgende in enumerate(block.reihen[index + 1 :], start=index + 1):
                    if not any(f.spalte == feld.spalte and f.verbunden == "continue" for f in folgende.felder):
                        break
                    hoehe += hoehen[weiter]
            _feld_schreiben(
                pdf, feld, x + sum(block.spalten[: feld.spalte]), y + sum(hoehen[:index]), _feldbreite(block, feld), hoehe
            )
    pdf.set_xy(vorher_x, vorher_y)
    pdf.sperren.append((pdf.page, y - block.abstand_oben, y + gesamt + block.abstand_unten))


def _feldbreite(block: Positioniert, feld: Feld) -> float:
    return sum(block.spalten[feld.spalte : feld.spalte + feld.spannweite])


def _feld_schreiben(pdf: _Pdf, feld: Feld, x: float, y: float, breite: float, hoehe: float) -> None:
    links, oben, rechts, unten = feld.raender
    innen = breite - links - rechts
    frei = hoehe - oben - unten - _inhalt_hoehe(pdf, feld.absaetze, innen)
    start = y + oben + {"bottom": max(0.0, frei), "center": max(0.0, frei) / 2}.get(feld.vertikal, 0.0)
    # Word cuts what does not fit into a row of exact height; so does the PDF
    with pdf.rect_clip(x=x, y=y, w=breite, h=hoehe):
        pdf.set_y(start)
        for absatz in feld.absaetze:
            _absatz_schreiben(pdf, absatz, links=x + links, rechts=pdf.w - (x + breite - rechts), im_feld=True)


def _inhalt_hoehe(pdf: _Pdf, absaetze: list[Absatz], breite: float) -> float:
    """The height in mm the paragraphs take in a cell of inner width `breite` (lines as fpdf2 wraps
    them, Word's line height and spacing)."""
    hoehe = 0.0
    for absatz in absaetze:
        zeile = absatz.abstand.zeile(absatz.groesse, pdf.zeilenfaktor)
        text = absatz.text.replace(SEITE, "1").replace(SEITEN, "1")
        zeilen = 1
        if text.strip():
            erster = next((t for t in absatz.teile if t.text.strip()), Teil(""))
            pdf.set_font(pdf.schrift, _style(erster, absatz), absatz.groesse)
            breite_text = max(1.0, breite - absatz.einzug)
            umbrochen = pdf.multi_cell(breite_text, zeile, pdf.text_fuer(text), dry_run=True, output="LINES")
            zeilen = len(umbrochen) if isinstance(umbrochen, list) else 1
        hoehe += absatz.abstand.vor + zeilen * zeile + absatz.abstand.nach
    return hoehe


@cache
def _zeilenfaktor(datei: Path) -> float:
    """Word's single line of the font per pt of size: ascent + descent (the Windows metrics) and the
    line gap beyond them (GDI's external leading); 1.149 for Liberation Sans as for Arial."""
    try:
        font = TTFont(str(datei), lazy=True)
        os2, hhea, einheiten = font["OS/2"], font["hhea"], font["head"].unitsPerEm
        hoch = os2.usWinAscent + os2.usWinDescent
        luecke = max(0, hhea.lineGap - (hoch - (hhea.ascent - hhea.descent)))
        return float((hoch + luecke) / einheiten)
    except Exception:  # noqa: BLE001 - a broken font file: the usual factor
        return ZEILENFAKTOR


@cache
def _glyphenbreiten(datei: Path) -> tuple[dict[int, int], int]:
    font = TTFont(str(datei), lazy=True)
    breiten = font["hmtx"].metrics
    return {code: breiten[name][0] for code, name in font.getBestCmap().items() if name in breiten}, font["head"].unitsPerEm


def schrift_masse(schrift: str, punkt: float, *, fett: bool = False) -> tuple[Callable[[str], float], float]:
    """For laying out text before Word does (the letterhead's height): a function giving a text's
    width in mm and the height of a single line in mm, in `schrift` at `punkt`."""
    dateien = _font_files().get(schrift) or _font_files().get("Liberation Sans")
    if not dateien:
        return (lambda text: len(text) * punkt * PT_MM * 0.55), punkt * PT_MM * ZEILENFAKTOR
    datei = dateien[1 if fett else 0]
    breiten, einheiten = _glyphenbreiten(datei)
    standard = einheiten // 2

    def breite(text: str) -> float:
        return sum(breiten.get(ord(c), standard) for c in text) / einheiten * punkt * PT_MM

    return breite, punkt * PT_MM * _zeilenfaktor(datei)


def _fussnoten(
    docx: DocxDocument, nummern: dict[str, int], default_size: float, *, verborgen: HiddenText, formate: _Formate | None = None
) -> list[Absatz | Tabelle | Positioniert]:
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
    bloecke: list[Absatz | Tabelle | Positioniert] = [Absatz(teile=[Teil("―――――")], size=groesse)]
    for kennung, nummer in sorted(nummern.items(), key=lambda eintrag: eintrag[1]):
        note = notizen.get(kennung)
        if note is None:
            continue
        for index, p in enumerate(note.iterchildren(qn("w:p"))):
            absatz = _absatz(p, teil, groesse, verborgen=verborgen, formate=formate)
            absatz.size = groesse
            if index == 0:
                erster = next((t for t in absatz.teile if t.text.strip()), None)
                if erster is not None:
                    erster.text = erster.text.lstrip()  # Word writes the space after its mark
                absatz.teile.insert(0, Teil(f"{nummer} ", size=groesse))
            bloecke.append(absatz)
    return bloecke


def _alle_texte(bloecke: list[Absatz | Tabelle | Positioniert]) -> Iterator[str]:
    for block in bloecke:
        if isinstance(block, Positioniert):
            yield from (absatz.text for reihe in block.reihen for feld in reihe.felder for absatz in feld.absaetze)
        elif isinstance(block, Tabelle):
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


def _absatz_schreiben(
    pdf: _Pdf, absatz: Absatz, *, links: float | None = None, rechts: float | None = None, im_feld: bool = False
) -> None:
    """A body paragraph (or, `im_feld`, one of a fixed table's cell between `links` and `rechts`, the
    distance from the right edge) with Word's spacing before and after and its line height – also
    between lines that a line break (w:br) separates."""
    if not im_feld:
        if (absatz.seitenumbruch or absatz.umbruch_vorher) and not absatz.text.strip():
            pdf.add_page()
            return
        if absatz.umbruch_vorher:
            pdf.add_page()
    _linien_zeichnen(pdf, absatz.linien)
    groesse = absatz.groesse
    zeilenhoehe = absatz.abstand.zeile(groesse, pdf.zeilenfaktor)
    if not im_feld:
        _sperre_beachten(pdf, absatz.abstand.vor + zeilenhoehe)
    if not absatz.text.strip():
        if absatz.bilder:
            _bilder_schreiben(pdf, absatz)
        else:
            pdf.ln(absatz.abstand.vor + zeilenhoehe + absatz.abstand.nach)  # an empty paragraph is one line high
        return
    links = (pdf.l_margin if links is None else links) + absatz.einzug
    rechts = pdf.r_margin if rechts is None else rechts
    if not im_feld and absatz.mit_naechstem and pdf.get_y() + zeilenhoehe * 4 > pdf.page_break_trigger:
        pdf.add_page()  # a heading never ends a page: it goes with the start of its text
    # fpdf2 keeps its cell margin (c_margin) inside the column; Word's text starts at the margin
    links, rechts = links - pdf.c_margin, rechts - pdf.c_margin
    # text_columns starts at the larger of the current x and its margin: an indented paragraph
    # before (a list, a quote) left x there, and every later paragraph kept that indent
    pdf.set_x(links)
    # fpdf2's line height is a factor of the font size (1.0 by default): Word's line is the font's
    # single line (1.15 of the size) times the paragraph's line spacing
    faktor = zeilenhoehe / (groesse * PT_MM)
    with pdf.text_columns(text_align=absatz.align, l_margin=links, r_margin=rechts, line_height=faktor) as spalten:
        with spalten.paragraph(top_margin=absatz.abstand.vor, bottom_margin=absatz.abstand.nach) as par:
            for teil in absatz.teile:
                pdf.set_font(pdf.schrift, _style(teil, absatz), teil.size or absatz.size)
                par.write(pdf.text_fuer(teil.text))
    _bilder_schreiben(pdf, absatz)
    if absatz.seitenumbruch and not im_feld:
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
