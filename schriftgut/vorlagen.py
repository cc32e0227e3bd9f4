"""DOCX templates: check a firm's upload, render one with an Akte's values (docxtpl, Jinja syntax).

`vorlage_pruefen` refuses what would fail later (no DOCX, broken syntax, unknown placeholder,
`freitext` not standing as its own paragraph), each with a German message naming the problem.
`vorlage_rendern` fills the template; missing values become visible „[fehlt: …]“ markers and are
returned as a list, so that nothing is silently empty.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import Any

import jinja2
from docx import Document
from docx.document import Document as DocxDocument
from docx.text.paragraph import Paragraph
from docxtpl import DocxTemplate, Listing

from akten import extraction

from .platzhalter import MEHRZEILIG, OPTIONAL, PLATZHALTER, Kontext

ERR_KEIN_DOCX = "Die Datei ist keine Word-Datei im DOCX-Format (bitte in Word als .docx speichern; .doc und PDF gehen nicht)."
ERR_SYNTAX = "Die Vorlage hat einen Fehler in der Platzhalter-Syntax: {detail}"
ERR_UNBEKANNT = "Die Vorlage verwendet unbekannte Platzhalter: {namen}. Erlaubt sind: {erlaubt}."
ERR_FREITEXT = "Der Platzhalter freitext muss als eigener Absatz stehen: {{p freitext }}."
ERR_ZU_GROSS = "Die Vorlage ist zu groß (höchstens {mb} MB)."
ERR_RENDER = "Die Vorlage konnte nicht gefüllt werden: {detail}"

MAX_VORLAGE_BYTES = 10 * 1024 * 1024
FEHLT = "[fehlt: {was}]"
# Characters XML 1.0 (and so Word) cannot hold; user and model text is cleaned of them.
_NICHT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
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


_INLINE = re.compile(r"(\*\*[^*]+\*\*|\*[^*]+\*)")


def _inline(paragraph: Paragraph, text: str) -> None:
    for teil in _INLINE.split(text):
        if not teil:
            continue
        if teil.startswith("**") and teil.endswith("**") and len(teil) > 4:
            paragraph.add_run(teil[2:-2]).bold = True
        elif teil.startswith("*") and teil.endswith("*") and len(teil) > 2:
            paragraph.add_run(teil[1:-1]).italic = True
        else:
            paragraph.add_run(teil)


# More columns do not fit a page in the PDF; such a "table" stays text.
MAX_TABELLENSPALTEN = 12
_TABELLE_TRENNZEILE = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$")
_ZELLGRENZE = re.compile(r"(?<!\\)\|")


def _zellen(zeile: str) -> list[str]:
    """The cells of a Markdown table row „| a | b |“ (an escaped „\\|“ stays in its cell)."""
    innen = zeile.strip()
    innen = innen[1:] if innen.startswith("|") else innen
    innen = innen[:-1] if innen.endswith("|") and not innen.endswith("\\|") else innen
    return [zelle.strip().replace("\\|", "|") for zelle in _ZELLGRENZE.split(innen)]


def _tabelle(ziel: Any, kopf: list[str], zeilen: list[list[str]]) -> None:
    """A Word table; a row with more cells than the head keeps the rest in its last cell."""
    spalten = len(kopf)
    tabelle = ziel.add_table(rows=1 + len(zeilen), cols=spalten)
    if _has_style(ziel, "Table Grid"):
        tabelle.style = ziel.styles["Table Grid"]
    for index, zeile in enumerate((kopf, *zeilen)):
        zellen = [*zeile[: spalten - 1], " | ".join(zeile[spalten - 1 :])]
        for spalte, text in enumerate(zellen):
            absatz = tabelle.cell(index, spalte).paragraphs[0]
            _inline(absatz, text)
            if index == 0:
                for run in absatz.runs:
                    run.bold = True


def markdown_absaetze(ziel: Any, markdown: str) -> None:
    """Write Markdown (headings, paragraphs, lists, tables, **bold**, *italic*) as Word paragraphs
    and tables into `ziel` (a python-docx Document or docxtpl Subdoc)."""
    absatz: list[str] = []

    def flush() -> None:
        if absatz:
            _inline(ziel.add_paragraph(), " ".join(absatz))
            absatz.clear()

    zeilen = markdown.splitlines()
    nummer = 0
    while nummer < len(zeilen):
        text = zeilen[nummer].strip()
        nummer += 1
        if not text:
            flush()
            continue
        trennzeile = zeilen[nummer].strip() if nummer < len(zeilen) else ""
        kopf = _zellen(text) if "|" in text and "|" in trennzeile and _TABELLE_TRENNZEILE.match(trennzeile) else []
        if 0 < len(kopf) <= MAX_TABELLENSPALTEN:
            flush()
            koerper = []
            nummer += 1
            while nummer < len(zeilen) and "|" in zeilen[nummer] and zeilen[nummer].strip():
                koerper.append(_zellen(zeilen[nummer]))
                nummer += 1
            _tabelle(ziel, kopf, koerper)
            continue
        if text.startswith("#"):
            flush()
            ebene = min(len(text) - len(text.lstrip("#")), 3)
            paragraph = ziel.add_paragraph()
            run = paragraph.add_run(text.lstrip("#").strip())
            run.bold = True
            paragraph.style = ziel.styles[f"Heading {ebene}"] if _has_style(ziel, f"Heading {ebene}") else paragraph.style
            continue
        liste = re.match(r"^([-*]|\d+[.)])\s+(.*)$", text)
        if liste:
            flush()
            marke = "•" if liste.group(1) in "-*" else liste.group(1)
            _inline(ziel.add_paragraph(), f"{marke} {liste.group(2)}")
            continue
        absatz.append(text)
    flush()


def _has_style(ziel: Any, name: str) -> bool:
    try:
        ziel.styles[name]
    except (KeyError, AttributeError):
        return False
    return True


def xml_sauber(wert: Any) -> Any:
    if isinstance(wert, str):
        return _NICHT_XML.sub("", wert)
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
        raise VorlagenFehler(ERR_RENDER.format(detail=getattr(exc, "message", None) or type(exc).__name__)) from exc
    return Gerendert(docx=tpl.docx, fehlend=fehlend)
