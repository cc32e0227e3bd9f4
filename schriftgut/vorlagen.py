"""DOCX templates: check a firm's upload, render one with an Akte's values (docxtpl, Jinja syntax).

`vorlage_pruefen` refuses what would fail later (no DOCX, broken syntax, unknown placeholder,
`freitext` not standing as its own paragraph), each with a German message naming the problem.
`vorlage_rendern` fills the template; missing values become visible „[fehlt: …]“ markers and are
returned as a list, so that nothing is silently empty. Files embedded in the template (an Excel
table as object) do not travel into the filled document; their pictures do.
"""

from __future__ import annotations

import io
import logging
import re
from dataclasses import dataclass
from typing import Any

import jinja2
import lxml.html
from docx import Document
from docx.document import Document as DocxDocument
from docx.enum.text import WD_ALIGN_PARAGRAPH
from docx.shared import Cm
from docx.text.paragraph import Paragraph
from docxtpl import DocxTemplate, Listing

from akten import extraction
from akten.metadaten import NICHT_XML, eingebettete_dateien_entfernen
from helena.markdown import render_markdown

from .platzhalter import MEHRZEILIG, OPTIONAL, PLATZHALTER, Kontext

logger = logging.getLogger(__name__)

ERR_KEIN_DOCX = "Die Datei ist keine Word-Datei im DOCX-Format (bitte in Word als .docx speichern; .doc und PDF gehen nicht)."
ERR_SYNTAX = "Die Vorlage hat einen Fehler in der Platzhalter-Syntax: {detail}"
ERR_UNBEKANNT = "Die Vorlage verwendet unbekannte Platzhalter: {namen}. Erlaubt sind: {erlaubt}."
ERR_FREITEXT = "Der Platzhalter freitext muss als eigener Absatz stehen: {{p freitext }}."
ERR_ZU_GROSS = "Die Vorlage ist zu groß (höchstens {mb} MB)."
ERR_RENDER = "Die Vorlage konnte nicht gefüllt werden: {detail}"
# What the template engine's (English) errors mean for the person filling the template.
RENDER_UNDEFINED = (
    "sie verwendet einen Platzhalter, der für dieses Schriftstück keinen passenden Wert hat (etwa „rechnung“ "
    "außerhalb einer Kostennote). Bitte die Vorlage prüfen oder eine andere wählen."
)
RENDER_SYNTAX = "ihre Platzhalter enthalten einen Fehler (Zeile {zeile}). Bitte die Vorlage in der Verwaltung prüfen."
RENDER_OTHER = "ihre Platzhalter enthalten einen Fehler. Bitte die Vorlage in der Verwaltung prüfen."

MAX_VORLAGE_BYTES = 10 * 1024 * 1024
FEHLT = "[fehlt: {was}]"
# Jinja names a template may use besides our placeholders: loop variables and filters' helpers.
_JINJA_INTERN = frozenset({"loop", "range", "p", "position", "partei"})


class VorlagenFehler(Exception):
    """A template cannot be used; `message` is German and names the problem."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _jinja_env() -> jinja2.Environment:
    return jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)  # noqa: S701 - autoescape is on


def docx_pruefen(inhalt: bytes) -> None:
    """Refuse what python-docx must not open (akten.extraction.docx_problem): no ZIP (encrypted,
    .doc, anything else) or a ZIP that unpacks to more than MAX_DOCX_UNPACKED_BYTES. Raises
    VorlagenFehler."""
    problem = extraction.docx_problem(inhalt)
    if problem is extraction.DocxProblem.ENCRYPTED:
        raise VorlagenFehler(extraction.ERR_DOCX_ENCRYPTED)
    if problem is extraction.DocxProblem.TOO_LARGE_UNPACKED:
        raise VorlagenFehler(extraction.ERR_DOCX_UNPACKED.format(mb=extraction.MAX_DOCX_UNPACKED_BYTES // (1024 * 1024)))
    if problem is extraction.DocxProblem.NO_ZIP:
        raise VorlagenFehler(ERR_KEIN_DOCX)


def docx_oeffnen(inhalt: bytes) -> DocxDocument:
    """A stored Word file as python-docx Document. Raises VorlagenFehler (German)."""
    docx_pruefen(inhalt)
    try:
        return Document(io.BytesIO(inhalt))
    except Exception as exc:  # python-docx raises several types for damaged or non-Word zips
        raise VorlagenFehler(ERR_KEIN_DOCX) from exc


def _template(inhalt: bytes) -> DocxTemplate:
    if len(inhalt) > MAX_VORLAGE_BYTES:
        raise VorlagenFehler(ERR_ZU_GROSS.format(mb=MAX_VORLAGE_BYTES // (1024 * 1024)))
    docx_pruefen(inhalt)
    try:
        tpl = DocxTemplate(io.BytesIO(inhalt))
        tpl.init_docx()
    except Exception as exc:  # python-docx raises several types for non-Word zips
        raise VorlagenFehler(ERR_KEIN_DOCX) from exc
    return tpl


def _benutzte_namen(tpl: DocxTemplate) -> set[str]:
    try:
        return set(tpl.get_undeclared_template_variables(jinja_env=_jinja_env()))
    except jinja2.TemplateSyntaxError as exc:
        raise VorlagenFehler(ERR_SYNTAX.format(detail=_syntax_detail(exc))) from exc


def _syntax_detail(exc: jinja2.TemplateSyntaxError) -> str:
    message = exc.message or "unbekannt"
    replacements = {
        "unexpected end of template": "ein Block ist nicht geschlossen (z. B. {% endfor %} fehlt)",
        "unexpected '}'": "eine geschweifte Klammer ist zu viel oder fehlt",
        "unexpected char": "unerwartetes Zeichen",
        "Encountered unknown tag": "unbekannter Befehl",
        "expected token": "erwartetes Zeichen fehlt",
    }
    for english, german in replacements.items():
        if english in message:
            return f"{german} ({message})"
    return message


def vorlage_pruefen(inhalt: bytes) -> set[str]:
    """Check a template file; return the placeholders it uses. Raises VorlagenFehler."""
    tpl = _template(inhalt)
    namen = _benutzte_namen(tpl)
    unbekannt = sorted(namen - set(PLATZHALTER) - _JINJA_INTERN)
    if unbekannt:
        raise VorlagenFehler(ERR_UNBEKANNT.format(namen=", ".join(unbekannt), erlaubt=", ".join(PLATZHALTER)))
    if "freitext" in namen and not re.search(r"\{\{p\s+freitext\s*\}\}", tpl.get_xml() + _patched_xml(tpl)):
        raise VorlagenFehler(ERR_FREITEXT)
    return namen


def _patched_xml(tpl: DocxTemplate) -> str:
    # docxtpl merges runs that Word splits inside a tag; search the merged form as well.
    return str(tpl.patch_xml(tpl.get_xml()))


@dataclass(frozen=True)
class Gerendert:
    docx: DocxDocument
    fehlend: list[str]


# Markdown in Word: parsed by the renderer of the screen (helena.markdown, Python-Markdown, then
# sanitised), and its HTML written as paragraphs, runs and tables; the PDF is made from the Word
# file. What the preview shows is what Word and the PDF show.
# Only ASCII white space collapses: a non-breaking space ("§\u00a0573", "1.200\u00a0€") must stay one.
_LEERRAUM = re.compile(r"[ \t\r\n\f\v]+")
_UEBERSCHRIFTEN = {f"h{n}": min(n, 3) for n in range(1, 7)}
_BLOCKS_IM_PUNKT = ("ul", "ol", "p", "blockquote", "pre", "table")
_EINZUG = Cm(0.63)
_AUSRICHTUNG = {"right": WD_ALIGN_PARAGRAPH.RIGHT, "center": WD_ALIGN_PARAGRAPH.CENTER}
MONOSPACE = "Courier New"
# More columns do not fit a page in the PDF; such a "table" stays text, a row per line.
MAX_TABELLENSPALTEN = 12


def markdown_absaetze(ziel: Any, markdown: str) -> None:
    """Write Markdown (headings, paragraphs, nested lists, tables, quotes, code, links, **bold**,
    *italic*) as Word paragraphs and tables into `ziel` (a python-docx Document or docxtpl Subdoc)."""
    html = render_markdown(markdown)
    if html.strip():
        _bloecke(ziel, lxml.html.fragment_fromstring(html, create_parent="div"), ebene=0, zitat=False)


def _bloecke(ziel: Any, element: Any, *, ebene: int, zitat: bool) -> None:
    """The blocks inside `element`; loose text between them becomes a paragraph of its own."""
    for text, kind in ((element.text, None), *((kind.tail, kind) for kind in element)):
        if kind is not None:
            _block(ziel, kind, ebene=ebene, zitat=zitat)
        if text and text.strip():
            _run(_absatz(ziel, ebene=ebene), text, kursiv=zitat)


def _block(ziel: Any, element: Any, *, ebene: int, zitat: bool) -> None:
    tag = element.tag
    if tag in _UEBERSCHRIFTEN:
        absatz = ziel.add_paragraph()
        if _has_style(ziel, stil := f"Heading {_UEBERSCHRIFTEN[tag]}"):
            absatz.style = ziel.styles[stil]
        _runs(absatz, element, fett=True)
        _ende(absatz)
    elif tag in ("ul", "ol"):
        _liste(ziel, element, ebene=ebene, zitat=zitat)
    elif tag == "table":
        _tabelle(ziel, element)
    elif tag == "blockquote":
        _bloecke(ziel, element, ebene=ebene + 1, zitat=True)
    elif tag == "pre":
        absatz = _absatz(ziel, ebene=ebene)
        for nummer, zeile in enumerate(element.text_content().rstrip("\n").split("\n")):
            if nummer:
                absatz.runs[-1].add_break()
            absatz.add_run(zeile).font.name = MONOSPACE
    elif tag == "hr":
        ziel.add_paragraph()
    else:  # p, and inline content standing alone
        absatz = _absatz(ziel, ebene=ebene)
        _runs(absatz, element, kursiv=zitat, selbst=tag != "p")
        _ende(absatz)


def _absatz(ziel: Any, *, ebene: int) -> Paragraph:
    absatz = ziel.add_paragraph()
    if ebene:
        absatz.paragraph_format.left_indent = _EINZUG * ebene
    return absatz


def _liste(ziel: Any, liste: Any, *, ebene: int, zitat: bool) -> None:
    """Each item a paragraph with its mark („•“, or its number from the list's start) hanging
    before the text; nested lists one step further in."""
    try:
        nummer = int(liste.get("start") or 1)
    except ValueError:
        nummer = 1
    for punkt in liste.iterchildren("li"):
        absatz = _absatz(ziel, ebene=ebene + 1)
        absatz.paragraph_format.first_line_indent = -_EINZUG
        absatz.add_run(f"{nummer}. " if liste.tag == "ol" else "• ")
        nummer += 1
        _runs(absatz, punkt, kursiv=zitat, ohne=_BLOCKS_IM_PUNKT)
        leer = len(absatz.runs) == 1
        for kind in punkt:
            if kind.tag == "p" and leer:  # a loose list: the item's first paragraph is its text
                _runs(absatz, kind, kursiv=zitat)
                leer = False
            elif kind.tag in _BLOCKS_IM_PUNKT:
                _ende(absatz)
                _block(ziel, kind, ebene=ebene + 1, zitat=zitat)
        _ende(absatz)


def _tabelle(ziel: Any, element: Any) -> None:
    zeilen = [list(zeile.iterchildren("th", "td")) for zeile in element.iter("tr")]
    spalten = max((len(zeile) for zeile in zeilen), default=0)
    if not spalten:
        return
    if spalten > MAX_TABELLENSPALTEN:
        for zeile in zeilen:
            _run(ziel.add_paragraph(), " | ".join(" ".join(zelle.text_content().split()) for zelle in zeile))
        return
    tabelle = ziel.add_table(rows=len(zeilen), cols=spalten)
    if _has_style(ziel, "Table Grid"):
        tabelle.style = ziel.styles["Table Grid"]
    # Row by row: `tabelle.cell(r, c)` walks every cell of the table on each call (quadratic; a
    # draft with a table of 3,000 rows took minutes to render)
    for zeile, zellen in zip(zeilen, tabelle.rows, strict=True):
        ziel_zellen = zellen.cells
        for spalte, zelle in enumerate(zeile):
            absatz = ziel_zellen[spalte].paragraphs[0]
            _runs(absatz, zelle, fett=zelle.tag == "th")
            _ende(absatz)
            if zelle.get("align") in _AUSRICHTUNG:
                absatz.alignment = _AUSRICHTUNG[zelle.get("align")]


def _runs(
    absatz: Paragraph,
    element: Any,
    *,
    fett: bool = False,
    kursiv: bool = False,
    code: bool = False,
    ohne: tuple[str, ...] = (),
    selbst: bool = False,
) -> None:
    """The inline content of `element` as runs of `absatz`, formatted by the tags around it;
    children tagged as in `ohne` are left out (their tails are not). With `selbst`, `element`'s
    own tag counts (a <strong> standing alone), else only its children's."""
    tag = element.tag if selbst else ""
    fett, kursiv, code = fett or tag in ("strong", "b"), kursiv or tag in ("em", "i"), code or tag == "code"
    if tag == "br":
        (absatz.runs[-1] if absatz.runs else absatz.add_run()).add_break()
        return
    _run(absatz, element.text, fett=fett, kursiv=kursiv, code=code)
    for kind in element:
        if kind.tag not in ohne:
            _runs(absatz, kind, fett=fett, kursiv=kursiv, code=code, selbst=True)
        _run(absatz, kind.tail, fett=fett, kursiv=kursiv, code=code)
    adresse = (element.get("href") or "").removeprefix("mailto:") if tag == "a" else ""
    if adresse and adresse != " ".join(element.text_content().split()):
        # on paper a link is its address: „Urteil (https://…)“, unless its text is the address
        _run(absatz, f" ({adresse})", fett=fett, kursiv=kursiv)


def _ende(absatz: Paragraph) -> None:
    """No space at the end of a paragraph (before a nested list, a closing tag)."""
    runs = absatz.runs
    if runs and runs[-1].text.endswith(" "):
        runs[-1].text = runs[-1].text.rstrip(" ")


def _run(absatz: Paragraph, text: str | None, *, fett: bool = False, kursiv: bool = False, code: bool = False) -> None:
    if not text:
        return
    text = _LEERRAUM.sub(" ", text)
    bisher = absatz.runs
    if not bisher or bisher[-1].text.endswith((" ", "\n")) or not "".join(run.text for run in bisher).strip():
        text = text.lstrip()
    if not text:
        return
    run = absatz.add_run(text)
    run.bold, run.italic = fett or None, kursiv or None
    if code:
        run.font.name = MONOSPACE


def _has_style(ziel: Any, name: str) -> bool:
    try:
        ziel.styles[name]
    except (KeyError, AttributeError):
        return False
    return True


def xml_sauber(wert: Any) -> Any:
    if isinstance(wert, str):
        return NICHT_XML.sub("", wert)
    if isinstance(wert, list):
        return [xml_sauber(w) for w in wert]
    if isinstance(wert, dict):
        return {k: xml_sauber(v) for k, v in wert.items()}
    return wert


def _wert(name: str, wert: Any, tpl: DocxTemplate) -> Any:
    wert = xml_sauber(wert)
    if name == "freitext":
        subdoc = tpl.new_subdoc()
        markdown_absaetze(subdoc, wert)
        return subdoc
    if name in MEHRZEILIG and isinstance(wert, str):
        return Listing(wert)
    return wert


def _zellen_schliessen(body: Any) -> None:
    """Every table cell ends with a paragraph, as Word requires: a cell whose "{{p freitext }}" was
    empty, or ended in a table, was left without one, and Word called the file unreadable."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    for zelle in body.iter(qn("w:tc")):
        letztes = zelle[-1] if len(zelle) else None
        if letztes is None or letztes.tag != qn("w:p"):
            zelle.append(OxmlElement("w:p"))


def vorlage_rendern(inhalt: bytes, kontext: Kontext, *, extra: dict[str, Any] | None = None) -> Gerendert:
    """Fill the template. Missing placeholders become „[fehlt: …]“ and are listed.
    Raises VorlagenFehler (never leaves a half-rendered file behind: the caller keeps its draft)."""
    tpl = _template(inhalt)
    benutzt = _benutzte_namen(tpl)
    werte = {**kontext.werte, **(extra or {})}
    fehlend = Kontext(werte=werte).fehlend(benutzt)
    context: dict[str, Any] = {}
    for name in PLATZHALTER:
        wert = werte.get(name)
        if wert in (None, "", []):
            wert = ("" if name == "freitext" else []) if name in OPTIONAL else FEHLT.format(was=PLATZHALTER[name])
        context[name] = _wert(name, wert, tpl)
    try:
        tpl.render(context, jinja_env=_jinja_env(), autoescape=True)
    except jinja2.TemplateError as exc:
        # the engine's own text (English, names of its objects) is for the operators' log only
        logger.warning("Vorlage nicht gefüllt: %s: %s", type(exc).__name__, getattr(exc, "message", ""))
        if isinstance(exc, jinja2.UndefinedError):
            detail = RENDER_UNDEFINED
        elif isinstance(exc, jinja2.TemplateSyntaxError):
            detail = RENDER_SYNTAX.format(zeile=exc.lineno)
        else:
            detail = RENDER_OTHER
        raise VorlagenFehler(ERR_RENDER.format(detail=detail)) from exc
    _zellen_schliessen(tpl.docx.element.body)
    # docxtpl writes the filled headers and footers into new parts that python-docx's objects do not
    # point to until the file is read again: without this the letterhead went into a part never
    # saved, and the PDF showed the header's placeholders unfilled.
    puffer = io.BytesIO()
    tpl.docx.save(puffer)
    gefuellt = Document(io.BytesIO(puffer.getvalue()))
    # the template's embedded files (an Excel table as object) with their own authors and figures
    # are no part of the document: it keeps their pictures
    eingebettete_dateien_entfernen(gefuellt)
    return Gerendert(docx=gefuellt, fehlend=fehlend)
