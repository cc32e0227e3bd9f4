"""What a Word or PDF file says about itself besides its text.

Generated Word files (`metadaten_setzen`, called by schriftgut when it renders): a firm template is
often an old letter saved as template: its core properties (author, last editor, comments, subject,
keywords), its extended properties (company, manager, the Word template it was based on), custom
properties, SharePoint metadata (customXml), Word comments, tracked changes (also of moved text and
table cells) and editing permissions still name the colleague who wrote it, or the client it was
written for; hidden text holds notes to colleagues, building blocks (the glossary) and the mail
merge's data source and query texts of other matters; an Excel table pasted into it as object
(`eingebettete_dateien_entfernen`) carries its own authors and figures. None of that may reach a
court, an opponent or another client: every generated document leaves with metadata of its own (the
Kanzlei as author, the document's title, the time it was made) and nothing else; an object of the
template stays as its picture, without the file behind it.

Released files (`mandant_fassung`): a MANDANT receives an uploaded Word or PDF file or image that a
lawyer released to her without what it says about its making: in Word the same cleaning as above
(the comments, tracked changes with their deleted text, hidden text, author and company); in a PDF
its document information and XMP metadata (also of its pages and images), embedded and attached files
(also PDF/A-3 and ZUGFeRD's /AF), bookmarks, scripts, notes (their text, subject and author), the
XFA form and the texts for screen readers that no page shows (replacement texts, expansions, user
properties and IDs of the structure tree), application data, article threads, and what the firm's
staff did not see on its pages: layers the default view hides and annotations marked hidden (shown
layers stay, as content without layers; text on a page that nobody reads, such as the invisible
OCR text over a scan or white on white, stays: _PDF_ZUSTAND); in a photo or scan its EXIF (camera,
owner, GPS position), XMP and comments — also in the photos inside a Word file or PDF (a JPEG keeps
its picture data, without new compression). A
Word file with embedded files (a workbook, another document, a pasted document or HTML as
alternative-format chunk; recognised by relationship and content type, not by part name) is not
released: their own authors and comments would travel inside it. Staff keep the file as it was uploaded: it is the Akte's record.

What a file is, is decided by its first bytes, never by its name or declared type (a Word file
uploaded as "brief.txt" is still cleaned as Word). Only these kinds and plain text reach her; any
other file (Excel, PowerPoint, OpenDocument, old binary Office, RTF, e-mails, archives, HTML) can
carry comments, revisions and authors this module does not remove, so it is refused: at release
(`freigabe_pruefen`, called by every service and form that releases a file) and, for files
released before, at download.
"""

from __future__ import annotations

import datetime
import io
import logging
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from docx import Document
from docx.document import Document as DocxDocument
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement
from lxml import etree
from PIL import Image, ImageOps, ImageSequence, UnidentifiedImageError
from pypdf import PdfWriter
from pypdf.errors import PyPdfError
from pypdf.generic import (
    ArrayObject,
    ContentStream,
    DecodedStreamObject,
    DictionaryObject,
    IndirectObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)

from helena.errors import ServiceError

from .extraction import (
    MARKDOWN_TYPES,
    OLE_SIGNATURE,
    WORD,
    HiddenText,
    docx_problem,
    has_pdf_header,
    hidden_text_remove,
    inhalt_art,
    is_word_package,
    pdf_open,
    text_charset,
)

logger = logging.getLogger(__name__)

# Characters XML 1.0 (and so Word) cannot hold; user and model text is cleaned of them.
NICHT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

ERR_NICHT_BEREITSTELLBAR = "Diese Datei kann dir gerade nicht bereitgestellt werden. Bitte wende dich an deine Kanzlei."
ERR_NICHT_FREIGEBBAR = (
    "Diese Datei kann der Mandantschaft nicht ohne ihre Metadaten (Kommentare, Änderungen, Autoren) "
    "bereitgestellt werden: {grund}. Freigeben lassen sich PDF, Word (.docx), Fotos und Scans (JPEG, PNG, "
    "TIFF, WebP) und reiner Text – bitte lade die Datei zum Beispiel als PDF hoch."
)
GRUND_FORMAT = "dieses Dateiformat wird nicht bereinigt"
GRUND_DEFEKT = "die Datei ist beschädigt oder verschlüsselt"
GRUND_EINGEBETTET = "sie enthält eingebettete Dateien (etwa eine Excel-Tabelle), deren Metadaten nicht entfernt werden"
GRUND_XFA = (
    "es ist ein dynamisches XFA-Formular, dessen Inhalt nur Adobe Reader aus versteckten Formulardaten aufbaut "
    "(bitte das ausgefüllte Formular als PDF drucken)"
)
# Declared types whose files are what they show: no comments, no authors, no history.
_TEXT_TYPES = frozenset({"text/plain", "text/csv", *MARKDOWN_TYPES})

_CP = "http://schemas.openxmlformats.org/package/2006/metadata/core-properties"
_DC = "http://purl.org/dc/elements/1.1/"
_DCTERMS = "http://purl.org/dc/terms/"
_XSI = "http://www.w3.org/2001/XMLSchema-instance"


def _beziehungsart(reltype: str) -> str:
    """A relationship's kind ("oleObject", "glossaryDocument"), the same in the transitional, strict
    and Microsoft namespaces."""
    return reltype.rstrip("/").rsplit("/", 1)[-1]


# Package parts that only describe the file, its history or its people, or that are other documents
# travelling along; Word needs none of them to show the text. By relationship kind, never by name.
_BESCHREIBENDE_BEZIEHUNGEN = frozenset(
    {
        *map(_beziehungsart, (RT.EXTENDED_PROPERTIES, RT.CUSTOM_PROPERTIES, RT.CUSTOM_XML, RT.COMMENTS, RT.THUMBNAIL)),
        # The path of the .dotm on the author's machine ("C:\\Users\\kmueller\\…").
        "attachedTemplate",
        "commentsExtended",
        "commentsIds",
        "commentsExtensible",
        "people",
        # Building blocks (AutoText, Quick Parts): texts of other matters stored with the template.
        "glossaryDocument",
        # The mail merge's data source (a path, a list of recipients) and its recipients.
        "mailMergeSource",
        "mailMergeHeaderSource",
        "recipientData",
        # The printer's settings (its network name) and digital signatures (the signer's certificate).
        "printerSettings",
        "origin",
    }
)
# Relationships to other files inside a Word file (an OLE object, a workbook or document as package,
# a pasted document or HTML as alternative-format chunk, a sub-document, ActiveX data, macros): their
# own authors and comments would travel inside it, so such a file is not released.
_EINGEBETTETE_BEZIEHUNGEN = frozenset({"oleObject", "package", "aFChunk", "subDocument", "activeXControlBinary", "vbaProject"})
# Content types of other files, whatever relationship points at them.
_EINGEBETTETE_TYPEN = frozenset(
    {
        "application/vnd.openxmlformats-officedocument.oleObject",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "application/vnd.ms-excel",
        "application/vnd.ms-excel.sheet.macroEnabled.12",
        "application/vnd.ms-powerpoint",
        "application/vnd.ms-word.document.macroEnabled.12",
        "application/vnd.ms-office.activeX",
        "application/vnd.ms-office.vbaProject",
        "application/msword",
        "application/pdf",
        "application/rtf",
        "text/rtf",
        "text/html",
        "application/xhtml+xml",
        "message/rfc822",
    }
)
# Comment anchors and revision marks whose content is history, not text.
_ENTFERNEN = tuple(
    qn(tag)
    for tag in (
        "w:commentRangeStart",
        "w:commentRangeEnd",
        "w:commentReference",
        "w:del",
        "w:moveFrom",
        "w:rPrChange",
        "w:pPrChange",
        "w:sectPrChange",
        "w:tblPrChange",
        "w:trPrChange",
        "w:tcPrChange",
        "w:numberingChange",
        # Range and cell revision marks and editing permissions: they only name who did what.
        "w:moveFromRangeStart",
        "w:moveFromRangeEnd",
        "w:moveToRangeStart",
        "w:moveToRangeEnd",
        "w:customXmlInsRangeStart",
        "w:customXmlInsRangeEnd",
        "w:customXmlDelRangeStart",
        "w:customXmlDelRangeEnd",
        "w:customXmlMoveFromRangeStart",
        "w:customXmlMoveFromRangeEnd",
        "w:customXmlMoveToRangeStart",
        "w:customXmlMoveToRangeEnd",
        "w:cellIns",
        "w:cellDel",
        "w:cellMerge",
        "w:permStart",
        "w:permEnd",
    )
)
# Attributes naming a person ("KANZLEI\\kmueller"), dropped from whatever element still has them.
_PERSONEN_ATTRIBUTE = frozenset({"author", "initials", "ed", "edGrp"})
# Revision marks whose content is the current text: keep the content, drop the mark (and its author).
_AUFLOESEN = (qn("w:ins"), qn("w:moveTo"))
# Settings that point at the author's machine (attached .dotm path, mail-merge data source and
# query) or hold hidden variables.
_EINSTELLUNGEN = (qn("w:attachedTemplate"), qn("w:docVars"), qn("w:mailMerge"))


def _bereinigen(element: BaseOxmlElement, verborgen: HiddenText) -> None:
    for alt in list(element.iter(*_ENTFERNEN)):
        parent = alt.getparent()
        if parent is None:
            continue
        parent.remove(alt)
        # The run that held a comment reference is empty now (only its „CommentReference“ style).
        if parent.tag == qn("w:r") and all(kind.tag == qn("w:rPr") for kind in parent):
            grosseltern = parent.getparent()
            if grosseltern is not None:
                grosseltern.remove(parent)
    for markierung in list(element.iter(*_AUFLOESEN)):
        parent = markierung.getparent()
        if parent is None:
            continue
        index = parent.index(markierung)
        for kind in list(markierung):
            parent.insert(index, kind)
            index += 1
        parent.remove(markierung)
    hidden_text_remove(element, verborgen)
    for kind in element.iter(etree.Element):
        for name in [name for name in kind.attrib if etree.QName(name).localname in _PERSONEN_ATTRIBUTE]:
            del kind.attrib[name]


_XML_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


def metadaten_setzen(docx: DocxDocument, *, titel: str, autor: str, jetzt: datetime.datetime) -> None:
    """Replace everything `docx` says about its origin with the Kanzlei (`autor`), `titel` and
    `jetzt`; drop comments, tracked changes, hidden text, custom and extended properties, building
    blocks and the mail merge."""
    package = docx.part.package
    verborgen = HiddenText.of(docx)
    for quelle in (package, *package.iter_parts()):
        for rid, rel in list(quelle.rels.items()):
            if _beziehungsart(rel.reltype) in _BESCHREIBENDE_BEZIEHUNGEN:
                _beziehung_entfernen(quelle, rid)
    for part in package.iter_parts():
        if not part.partname.startswith("/word/"):
            continue
        element = getattr(part, "element", None)
        if element is not None:
            _bereinigen(element, verborgen)
        elif part.content_type.endswith("+xml"):
            # Parts python-docx keeps as bytes (footnotes, endnotes, …) hold tracked changes and
            # comment anchors just the same: cleaned from their parsed XML and written back.
            wurzel = etree.fromstring(part.blob, parser=_XML_PARSER)
            _bereinigen(wurzel, verborgen)
            part._blob = etree.tostring(wurzel, xml_declaration=True, encoding="UTF-8", standalone=True)
    for einstellung in list(docx.settings.element.iter(*_EINSTELLUNGEN)):
        eltern = einstellung.getparent()
        if eltern is not None:
            eltern.remove(einstellung)
    # Written with explicit namespaces: docxcompose (imported by docxtpl) rebinds python-docx's
    # "cp" prefix to the custom-properties namespace, so its setters would write
    # <cp:lastModifiedBy> and <cp:revision> where Word does not look for them.
    core = docx.core_properties._element
    for alt in list(core):
        core.remove(alt)
    zeitpunkt = jetzt.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    for tag, text in (
        (f"{{{_DC}}}title", titel[:255]),
        (f"{{{_DC}}}creator", autor[:255]),
        (f"{{{_CP}}}lastModifiedBy", autor[:255]),
        (f"{{{_CP}}}revision", "1"),
        (f"{{{_DCTERMS}}}created", zeitpunkt),
        (f"{{{_DCTERMS}}}modified", zeitpunkt),
    ):
        kind = etree.SubElement(core, tag)
        kind.text = NICHT_XML.sub("", text)
        if tag.startswith(f"{{{_DCTERMS}}}"):
            kind.set(f"{{{_XSI}}}type", "dcterms:W3CDTF")


def _beziehung_entfernen(quelle: Any, rid: str) -> None:
    """Drop the relationship `rid` of a part or the package; a part no relationship reaches any
    more is not saved."""
    del quelle.rels[rid]
    quelle.rels._target_parts_by_rId.pop(rid, None)


_R_NAMENSRAEUME = (
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
    "http://purl.oclc.org/ooxml/officeDocument/relationships",
)
# VML (python-docx knows no prefix for it): an object's OLE link and its picture
_O_OLE = "{urn:schemas-microsoft-com:office:office}OLEObject"
_V_SHAPE = "{urn:schemas-microsoft-com:vml}shape"


def eingebettete_dateien_entfernen(docx: DocxDocument) -> None:
    """Drop the other files inside `docx` (`_eingebettete_datei`: OLE objects, also linked ones,
    embedded workbooks and documents, alternative-format chunks, sub-documents, ActiveX data) with
    the elements that point at them. An object keeps its picture (Word's w:object becomes a picture,
    w:pict, as Word shows it); a part whose root element points at such a file (an ActiveX control)
    goes with it, and so do the elements pointing at that part. For generated documents: a released
    file with other files inside is refused instead (`_docx_fassung`), not changed."""
    package = docx.part.package
    weg: set[Any] = set()
    geaendert = True
    while geaendert:
        geaendert = False
        for quelle in (package, *package.iter_parts()):
            for rid, rel in list(quelle.rels.items()):
                if not _eingebettete_datei(rel) and (rel.is_external or rel.target_part not in weg):
                    continue
                _beziehung_entfernen(quelle, rid)
                geaendert = True
                if quelle is not package and _verweise_entfernen(quelle, rid):
                    weg.add(quelle)


def _verweise_entfernen(part: Any, rid: str) -> bool:
    """Remove the elements of `part` that point at its relationship `rid`; True when its root
    element does (the part is of no use without it)."""
    wurzel: Any = getattr(part, "element", None)
    roh = wurzel is None
    if roh and not part.content_type.endswith("xml"):
        return False
    if roh:
        try:
            wurzel = etree.fromstring(part.blob, parser=_XML_PARSER)
        except etree.XMLSyntaxError:
            return True  # where it points cannot be read: the part goes rather than the file stays
    for element in list(wurzel.iter(etree.Element)):
        if not any(etree.QName(name).namespace in _R_NAMENSRAEUME and wert == rid for name, wert in element.attrib.items()):
            continue
        eltern = element.getparent()
        if eltern is None:
            return True
        eltern.remove(element)
        if eltern.tag == qn("w:object"):
            _objekt_als_bild(eltern)
    if roh:
        part._blob = etree.tostring(wurzel, xml_declaration=True, encoding="UTF-8", standalone=True)
    return False


def _objekt_als_bild(objekt: Any) -> None:
    """A w:object whose file is gone as what Word shows of it: its VML picture (w:pict) or its
    drawing; without either it goes."""
    for kind in list(objekt):
        if kind.tag in (_O_OLE, qn("w:control")):
            objekt.remove(kind)
    eltern = objekt.getparent()
    if objekt.find(_V_SHAPE) is not None:
        objekt.tag = qn("w:pict")
        objekt.attrib.clear()  # dxaOrig, dyaOrig: attributes of an object only
    elif eltern is not None:
        index = eltern.index(objekt)
        for kind in [kind for kind in objekt if kind.tag == qn("w:drawing")]:
            eltern.insert(index, kind)
            index += 1
        eltern.remove(objekt)


class NichtBereitstellbar(ServiceError):
    """A released file that cannot be cleaned for a MANDANT (damaged, encrypted, with embedded
    files): she gets an error in German instead of the uncleaned file; `grund` tells the person
    releasing it why."""

    status_code = 409

    def __init__(self, grund: str = GRUND_DEFEKT) -> None:
        super().__init__(ERR_NICHT_BEREITSTELLBAR)
        self.grund = grund


# Annotations that are notes about the document rather than part of it: sticky notes and their
# pop-ups, attached files, voice notes.
_PDF_NOTIZEN = frozenset({"/Text", "/Popup", "/FileAttachment", "/Sound"})
# What an annotation that stays (a highlight, a link) says about its note: author (/T), subject,
# unique name (/NM, often the author's login), text (/RC, /Contents), pop-up and reply thread.
_PDF_NOTIZ_ANGABEN = ("/T", "/Subj", "/NM", "/Popup", "/IRT", "/RC")
# In the catalog: XMP, application data, bookmarks (their titles are the author's), what runs on
# opening, a portfolio's file list, article threads (their titles, authors and keywords; the pages'
# beads, /B, point at them).
_PDF_KATALOG_ENTFERNEN = ("/Metadata", "/PieceInfo", "/Outlines", "/OpenAction", "/Collection", "/Threads")
# In any object: XMP of pages and images, application data (/PieceInfo) of pages and forms, files
# attached by association (/AF, PDF/A-3 and ZUGFeRD) and the file content of any file
# specification (/EF, /RF), actions run on events (/AA).
_PDF_UEBERALL_ENTFERNEN = ("/Metadata", "/PieceInfo", "/AF", "/EF", "/RF", "/AA")
# Actions that run code or open other files, on a link or form field (/A), and those that point at
# what a released file no longer has: an article thread, the state of a layer.
_PDF_SKRIPTE = frozenset({"/JavaScript", "/Launch", "/ImportData", "/GoToE", "/Rendition", "/Thread", "/SetOCGState"})
# Texts for screen readers that the page does not show and the person releasing never sees, so any
# note could stand in them: the replacement text of content (/ActualText), the expansion of an
# abbreviation (/E), the alternative description (/Alt), in the structure tree also a title (/T).
# Accessibility stays: the structure (types, reading order, tables, language) is kept, and without
# /ActualText and /E a screen reader reads the page's own text, which is what a sighted reader sees.
# A figure's description cannot be checked either; it becomes the neutral _PDF_ALT_NEUTRAL, so that
# a screen reader still announces the picture (PDF/UA requires an /Alt on it), other /Alt go.
_PDF_ERSATZTEXTE = ("/ActualText", "/E", "/Alt")
# The element's ID (/ID, also the key of the root's /IDTree) is a name its author chose.
_PDF_STRUKTUR_TEXTE = ("/ActualText", "/E", "/T", "/ID")
_PDF_ALT_NEUTRAL = {"/Figure": "Abbildung", "/Formula": "Formel"}
# Content streams marking content with a property list: only these are parsed and rewritten.
_PDF_MARKIERT = b"BDC"
# Annotation flags of annotations no viewer shows on screen: Hidden, NoView.
_PDF_UNSICHTBAR = 2 | 32
# Optional content (layers) that the default configuration hides was not seen by the firm's staff:
# it goes. A viewer still applies the state operators of hidden content (colour, font, position,
# clipping), so these stay (_PDF_ZUSTAND) and only what paints goes: text shown, paths filled or
# stroked (ended without painting, `n`, so that a clip they set stays), images, forms, shadings.
# Text after hidden text in the same text object starts where the hidden text began, not where it
# ended (its width is not computed); layer content is written as text objects of its own.
# Text drawn invisibly on purpose stays: render mode 3 (`3 Tr`) is how OCR lays the recognised text of
# a scan over its picture, so that the letter can be searched and copied; that text says what the
# picture shows, and removing it would leave every scanned document without text. Nor is text
# detected that a viewer draws but nobody can read (white on white, under a picture, off the page):
# that limit is stated in the README.
_PDF_ZUSTAND = frozenset(
    b"q Q cm w J j M d ri i gs CS cs SC SCN sc scn G g RG rg K k BT ET Tc Tw Tz TL Tf Tr Ts Td TD Tm T* "
    b"m l c v y h re W W* n BX EX d0 d1".split()
)
_PDF_MALEN = frozenset(b"S s f F f* B B* b b*".split())


# Photos and scans, recognised by their first bytes as the upload check does (`inhalt_art`; an
# upload's declared type may be anything): EXIF (camera, owner, GPS position, time), XMP and comments
# go; the colour profile and resolution stay (_BILD_BEHALTEN), the orientation is applied to the pixels.
_BILD_BEHALTEN = ("icc_profile", "dpi")


def mandant_fassung(inhalt: bytes, *, mime_type: str, titel: str, autor: str, stand: datetime.datetime) -> bytes:
    """`inhalt` as a MANDANT receives it (module docstring): cleaned by what its first bytes say it
    is; plain text (by `mime_type`) unchanged. Raises NichtBereitstellbar for every other file and
    for a file of a known kind that cannot be cleaned."""
    art = _art(inhalt, mime_type)
    if art == "docx":
        return _docx_fassung(inhalt, titel=titel, autor=autor, stand=stand)
    if art == "pdf":
        return _pdf_fassung(inhalt, titel=titel)
    if art == "text":
        return inhalt
    if art is not None:
        return _bild_fassung(inhalt, art)
    raise NichtBereitstellbar(GRUND_FORMAT)


def freigabe_pruefen(inhalt: bytes, *, mime_type: str) -> None:
    """Raise ValueError (German, for the person releasing) when `inhalt` could not be given to a
    MANDANT: its kind is not cleaned, or cleaning it fails (damaged, encrypted, embedded files)."""
    try:
        mandant_fassung(inhalt, mime_type=mime_type, titel="", autor="", stand=datetime.datetime.now(datetime.UTC))
    except NichtBereitstellbar as exc:
        raise ValueError(ERR_NICHT_FREIGEBBAR.format(grund=exc.grund)) from exc


def _art(inhalt: bytes, mime_type: str) -> str | None:
    """What `inhalt` is for a MANDANT: "docx", "pdf", an image format, "text", or None when she
    may not receive it."""
    if inhalt.startswith(WORD.signaturen):
        return "docx" if _ist_word(inhalt) else None
    if inhalt.startswith(OLE_SIGNATURE):
        return None
    art = inhalt_art(inhalt)
    if art is not None and art.bildformat:
        return art.bildformat
    if has_pdf_header(inhalt):
        return "pdf"
    if mime_type.split(";")[0].strip().lower() not in _TEXT_TYPES:
        return None
    # a text as the upload check reads it (UTF-16 holds NUL bytes); binary data is none. text_charset
    # keeps its answer: the Mandant's download names the charset without reading the file again.
    return "text" if text_charset(inhalt) is not None else None


def _ist_word(inhalt: bytes) -> bool:
    if docx_problem(inhalt) is not None:
        return False
    with zipfile.ZipFile(io.BytesIO(inhalt)) as archiv:
        return is_word_package(archiv)


def _bild_fassung(inhalt: bytes, format: str) -> bytes:
    """Every frame (a scanned fax as multi-page TIFF keeps every page) redrawn without metadata."""
    try:
        with Image.open(io.BytesIO(inhalt)) as bild:
            behalten: dict[str, Any] = {key: bild.info[key] for key in _BILD_BEHALTEN if key in bild.info}
            seiten = []
            for seite in ImageSequence.Iterator(bild):
                sauber = ImageOps.exif_transpose(seite.copy())
                sauber.info.clear()
                seiten.append(sauber)
        if format in ("JPEG", "WEBP"):
            behalten["quality"] = 95
        if len(seiten) > 1:
            behalten.update(save_all=True, append_images=seiten[1:])
        puffer = io.BytesIO()
        seiten[0].save(puffer, format=format, **behalten)
    except (OSError, ValueError, UnidentifiedImageError, Image.DecompressionBombError) as exc:
        logger.warning("released image not cleanable for a Mandant (%s)", type(exc).__name__)
        raise NichtBereitstellbar from exc
    return puffer.getvalue()


# JPEG segments that only describe the picture: APP1 (EXIF, XMP), APP3–APP13 (IPTC, maker data),
# APP15 and comments. APP0 (JFIF), APP2 (colour profile) and APP14 (Adobe colour transform) are
# needed to show it as it was.
_JPEG_BESCHREIBEND = frozenset({0xE1, *range(0xE3, 0xEE), 0xEF, 0xFE})


def jpeg_ohne_metadaten(daten: bytes) -> bytes:
    """The JPEG `daten` without its describing segments and without what follows its end (phones
    append data there), the picture data unchanged (no new compression). Only its orientation stays
    (a viewer that turns the photo by it still shows it upright). Raises ValueError for data that is
    not a JPEG."""
    if not daten.startswith(b"\xff\xd8"):
        raise ValueError("no JPEG")
    teile = _jpeg_segmente(daten)
    orientierung = _jpeg_orientierung(daten)
    if orientierung is not None:
        exif = Image.Exif()
        exif[_ORIENTIERUNG] = orientierung
        nutzdaten = exif.tobytes()
        # APP1 with the orientation alone, after the JFIF segment if there is one
        teile.insert(
            2 if teile[1:2] and teile[1].startswith(b"\xff\xe0") else 1,
            b"\xff\xe1" + (len(nutzdaten) + 2).to_bytes(2, "big") + nutzdaten,
        )
    return b"".join(teile)


_ORIENTIERUNG = 0x0112


def _jpeg_orientierung(daten: bytes) -> int | None:
    try:
        with Image.open(io.BytesIO(daten)) as bild:
            wert = bild.getexif().get(_ORIENTIERUNG)
    except (OSError, ValueError, UnidentifiedImageError, SyntaxError):
        return None
    return wert if isinstance(wert, int) and 2 <= wert <= 8 else None


def _jpeg_segmente(daten: bytes) -> list[bytes]:
    teile, position, laenge = [daten[:2]], 2, len(daten)
    while position + 1 < laenge:
        if daten[position] != 0xFF:
            raise ValueError("JPEG marker expected")
        marker = daten[position + 1]
        if marker == 0xFF:  # fill byte before a marker
            position += 1
            continue
        if marker == 0xD9:  # end of the picture
            teile.append(b"\xff\xd9")
            return teile
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:  # markers without a length
            teile.append(daten[position : position + 2])
            position += 2
            continue
        ende = position + 2 + int.from_bytes(daten[position + 2 : position + 4], "big")
        if ende > laenge:
            raise ValueError("truncated JPEG segment")
        if marker not in _JPEG_BESCHREIBEND:
            teile.append(daten[position:ende])
        position = ende
        if marker == 0xDA:  # a scan: compressed data up to the next marker (0xFF not followed by 0x00 or RSTn)
            anfang = position
            while True:
                position = daten.find(b"\xff", position)
                if position < 0 or position + 1 >= laenge:  # no end marker: keep what there is
                    teile.append(daten[anfang:])
                    return teile
                folgt = daten[position + 1]
                if folgt == 0x00 or 0xD0 <= folgt <= 0xD7:
                    position += 2
                    continue
                teile.append(daten[anfang:position])
                break
    return teile


def _eingebettetes_bild(daten: bytes) -> bytes:
    """A picture inside a Word file without its metadata: JPEG without new compression, the other
    image kinds redrawn; kinds Pillow does not know (EMF, WMF, SVG) hold no EXIF and stay."""
    if daten.startswith(b"\xff\xd8"):
        return jpeg_ohne_metadaten(daten)
    art = _art(daten, "")
    return _bild_fassung(daten, art) if art not in (None, "pdf", "docx", "text") else daten


def _docx_fassung(inhalt: bytes, *, titel: str, autor: str, stand: datetime.datetime) -> bytes:
    try:
        docx = Document(io.BytesIO(inhalt))
        metadaten_setzen(docx, titel=titel, autor=autor, jetzt=stand)
        package = docx.part.package
        for quelle in (package, *package.iter_parts()):
            if any(_eingebettete_datei(rel) for rel in quelle.rels.values()):
                # an embedded workbook, document or PDF: its own authors and comments stay in it
                raise NichtBereitstellbar(GRUND_EINGEBETTET)
        for part in package.iter_parts():
            if part.content_type.startswith("image/"):
                part._blob = _eingebettetes_bild(part.blob)
        puffer = io.BytesIO()
        docx.save(puffer)
    except NichtBereitstellbar:
        raise
    except Exception as exc:  # python-docx raises several types for damaged files
        logger.warning("released Word file not cleanable for a Mandant (%s)", type(exc).__name__)
        raise NichtBereitstellbar from exc
    return puffer.getvalue()


def _eingebettete_datei(rel: Any) -> bool:
    """Whether `rel` points at another file inside the Word file: by its kind, or by what the part it
    points at is (a workbook related as anything else), never by the part's name."""
    if _beziehungsart(rel.reltype) in _EINGEBETTETE_BEZIEHUNGEN:
        return True
    if rel.is_external:
        return False
    typ = rel.target_part.content_type.split(";")[0].strip()
    return typ in _EINGEBETTETE_TYPEN or typ.startswith("application/vnd.oasis.opendocument")


def _pdf_fassung(inhalt: bytes, *, titel: str) -> bytes:
    try:
        reader = pdf_open(inhalt)
        if reader is None:
            raise NichtBereitstellbar
        writer = PdfWriter(clone_from=reader)
        wurzel = writer.root_object
        _pdf_xfa_entfernen(wurzel)
        for schluessel in _PDF_KATALOG_ENTFERNEN:
            wurzel.pop(NameObject(schluessel), None)
        if wurzel.get("/PageMode") in ("/UseOutlines", "/UseAttachments"):
            wurzel.pop(NameObject("/PageMode"), None)  # it would open the removed bookmarks' panel
        namen = wurzel.get("/Names")
        if namen is not None:
            for schluessel in ("/EmbeddedFiles", "/JavaScript"):
                namen.get_object().pop(NameObject(schluessel), None)
        markierung = _pdf_aufgeloest(wurzel.get("/MarkInfo"))
        if isinstance(markierung, DictionaryObject):
            # only says that the structure tree has user properties (_pdf_struktur_bereinigen)
            markierung.pop(NameObject("/UserProperties"), None)
        struktur = wurzel.get("/StructTreeRoot")
        if struktur is not None:
            _pdf_struktur_bereinigen(struktur.get_object())
        _pdf_verborgenes_entfernen(writer)
        for seite in writer.pages:
            seite.pop(NameObject("/B"), None)  # the beads of the removed article threads
            _pdf_notizen_entfernen(seite)
        _pdf_markierte_inhalte_bereinigen(writer)
        for objekt in writer._objects:
            _pdf_objekt_bereinigen(objekt)
            if isinstance(objekt, StreamObject) and objekt.get("/Subtype") == "/Image" and objekt.get("/Filter") == "/DCTDecode":
                # a photo or scan stored as JPEG keeps its EXIF (camera, owner, GPS) in the stream
                objekt._data = jpeg_ohne_metadaten(objekt._data)
        writer.metadata = None
        writer.add_metadata({"/Title": titel[:255]})
        # the XMP streams, notes, bookmarks, scripts and files no longer reached would still be written
        _pdf_unerreichbare_entfernen(writer)
        puffer = io.BytesIO()
        writer.write(puffer)
    except NichtBereitstellbar:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, OSError) as exc:
        logger.warning("released PDF not cleanable for a Mandant (%s)", type(exc).__name__)
        raise NichtBereitstellbar from exc
    return puffer.getvalue()


def _pdf_xfa_entfernen(wurzel: DictionaryObject) -> None:
    """Drop the XFA form (its template and its data streams, which only Adobe Reader reads; the
    AcroForm fields and the pages show the form). A dynamic XFA form (/NeedsRendering) has no pages
    of its own without it: raises NichtBereitstellbar."""
    formular = wurzel.get("/AcroForm")
    formular = formular.get_object() if formular is not None else None
    if isinstance(formular, DictionaryObject) and formular.get("/XFA") is not None:
        if getattr(wurzel.get("/NeedsRendering"), "value", False) is True:
            raise NichtBereitstellbar(GRUND_XFA)
        formular.pop(NameObject("/XFA"), None)
    wurzel.pop(NameObject("/NeedsRendering"), None)


def _pdf_struktur_bereinigen(struktur: DictionaryObject) -> None:
    """The structure tree without the texts that no page shows (_PDF_ERSATZTEXTE): every element,
    reached through /K; marked-content and object references (/MCR, /OBJR) are left as they are.
    User properties (attributes of owner /UserProperties: names and values an application such as
    a CAD program or Word's document properties attached to an element) go from the elements and
    from the classes of the class map, and so do the elements' IDs with the tree finding them."""
    struktur.pop(NameObject("/IDTree"), None)
    klassen = struktur.get("/ClassMap")
    klassen = klassen.get_object() if klassen is not None else None
    if isinstance(klassen, DictionaryObject):
        for name in list(klassen):
            if not _pdf_attribute_bereinigen(klassen, name):
                klassen.pop(name)
    rollen = struktur.get("/RoleMap")
    rollen = rollen.get_object() if rollen is not None else DictionaryObject()
    offen: list[Any] = [struktur.get("/K")]
    gesehen: set[int] = set()
    while offen:
        element = offen.pop()
        if isinstance(element, IndirectObject):
            if element.idnum in gesehen:
                continue
            gesehen.add(element.idnum)
            element = element.get_object()
        if isinstance(element, ArrayObject):
            offen.extend(element)
            continue
        if not isinstance(element, DictionaryObject) or element.get("/Type") in ("/MCR", "/OBJR"):
            continue
        for schluessel in _PDF_STRUKTUR_TEXTE:
            element.pop(NameObject(schluessel), None)
        if "/A" in element and not _pdf_attribute_bereinigen(element, "/A"):
            element.pop(NameObject("/A"))
        if "/Alt" in element:
            neutral = _PDF_ALT_NEUTRAL.get(_pdf_rolle(element.get("/S"), rollen))
            if neutral:
                element[NameObject("/Alt")] = TextStringObject(neutral)
            else:
                element.pop(NameObject("/Alt"))
        offen.append(element.get("/K"))


def _pdf_attribute_bereinigen(eltern: DictionaryObject, schluessel: str) -> bool:
    """Drop the user properties from the attributes at `eltern[schluessel]` (an attribute object or
    an array of them, each optionally followed by its revision number); False when none is left."""
    wert = eltern[schluessel]
    attribute = wert.get_object() if isinstance(wert, IndirectObject) else wert
    if not isinstance(attribute, ArrayObject):
        return not _pdf_nutzereigenschaften(attribute)
    behalten: list[Any] = []
    weg = False
    for eintrag in attribute:
        if isinstance(eintrag, NumberObject):  # the revision of the attribute before it
            if not weg:
                behalten.append(eintrag)
            continue
        weg = _pdf_nutzereigenschaften(eintrag)
        if not weg:
            behalten.append(eintrag)
    attribute[:] = behalten
    return bool(behalten)


def _pdf_nutzereigenschaften(attribut: Any) -> bool:
    attribut = attribut.get_object() if isinstance(attribut, IndirectObject) else attribut
    return isinstance(attribut, DictionaryObject) and attribut.get("/O") == "/UserProperties"


def _pdf_rolle(typ: Any, rollen: Any) -> str:
    """The standard structure type of `typ`, through the tree's role map (a chain, at most a few)."""
    for _ in range(8):
        if not isinstance(rollen, DictionaryObject) or typ not in rollen:
            break
        typ = rollen[typ]
    return str(typ)


def _pdf_markierte_inhalte_bereinigen(writer: PdfWriter) -> None:
    """Drop _PDF_ERSATZTEXTE from the property lists of marked content: named ones in resources
    (/Properties) and those written into content streams (/Span <</ActualText (…)>> BDC). Only
    streams with such a list are parsed and written anew."""
    inhalte: set[int] = set()
    for seite in writer.pages:
        verweise = seite.get("/Contents")
        for verweis in verweise if isinstance(verweise, ArrayObject) else [verweise]:
            if isinstance(verweis, IndirectObject):
                inhalte.add(verweis.idnum)
    schluessel = [s.encode() for s in _PDF_ERSATZTEXTE]
    for index, objekt in enumerate(writer._objects):
        if isinstance(objekt, DictionaryObject):
            # resources are their own object or written into a page, form or pattern
            ressourcen = objekt.get("/Resources")
            ressourcen = ressourcen.get_object() if isinstance(ressourcen, IndirectObject) else ressourcen
            eingebettet = ressourcen.get("/Properties") if isinstance(ressourcen, DictionaryObject) else None
            for liste in (*_pdf_werte(objekt.get("/Properties")), *_pdf_werte(eingebettet)):
                for name in _PDF_ERSATZTEXTE:
                    liste.pop(NameObject(name), None)
        if not isinstance(objekt, StreamObject):
            continue
        if index + 1 not in inhalte and objekt.get("/Subtype") != "/Form" and objekt.get("/PatternType") != 1:
            continue
        daten = objekt.get_data()
        if _PDF_MARKIERT not in daten or not any(s in daten for s in schluessel):
            continue
        inhalt = ContentStream(objekt, writer)
        for operanden, operator in inhalt.operations:
            if operator in (b"BDC", b"DP") and len(operanden) > 1 and isinstance(operanden[1], DictionaryObject):
                for name in _PDF_ERSATZTEXTE:
                    operanden[1].pop(NameObject(name), None)
        objekt.set_data(inhalt.get_data())


def _pdf_werte(eigenschaften: Any) -> list[DictionaryObject]:
    """The property lists in a resources' /Properties dictionary."""
    eigenschaften = eigenschaften.get_object() if isinstance(eigenschaften, IndirectObject) else eigenschaften
    if not isinstance(eigenschaften, DictionaryObject):
        return []
    werte = (wert.get_object() for wert in eigenschaften.values())
    return [wert for wert in werte if isinstance(wert, DictionaryObject)]


def _pdf_verborgenes_entfernen(writer: PdfWriter) -> None:
    """Drop what the firm's staff did not see when they viewed the file: annotations marked hidden
    (with a form field's value), and content, forms and annotations on layers that the default
    configuration of /OCProperties hides (_pdf_sichtbarkeit). What it shows stays, without the
    layers: the Mandantin sees it whatever her viewer makes of layers, and no layer's name."""
    wurzel = writer.root_object
    eigenschaften = wurzel.get("/OCProperties")
    sichtbar = _pdf_sichtbarkeit(eigenschaften.get_object() if eigenschaften is not None else None)
    entfernt: set[int] = set()
    for seite in writer.pages:
        entfernt |= _pdf_verborgene_annotationen_entfernen(seite, sichtbar)
    formular = _pdf_aufgeloest(wurzel.get("/AcroForm"))
    felder = _pdf_aufgeloest(formular.get("/Fields")) if isinstance(formular, DictionaryObject) else None
    if entfernt and isinstance(felder, ArrayObject):
        _pdf_felder_entfernen(felder, entfernt, tiefe=0)
    if eigenschaften is None:
        return
    wurzel.pop(NameObject("/OCProperties"))
    # XObjects whose own /OC hides them: never drawn. A form is emptied, as it may also be an
    # annotation's appearance.
    verborgen: set[int] = set()
    for index, objekt in enumerate(writer._objects):
        if isinstance(objekt, StreamObject) and "/OC" in objekt and not sichtbar(objekt["/OC"]):
            verborgen.add(index + 1)
            if objekt.get("/Subtype") == "/Form":
                objekt.pop(NameObject("/Resources"), None)
                _pdf_stream_ersetzen(writer, index + 1, objekt, b"")
    zeichnungen = _Zeichnungen()
    for seite in writer.pages:
        inhalt = seite.get_contents()
        if inhalt is None:
            continue
        neu = _pdf_ohne_verborgenes(inhalt.operations, _pdf_ressourcen(seite), sichtbar, verborgen, zeichnungen)
        if neu is not None:
            inhalt.operations = neu
            inhalt.get_data()  # serialised, so that it is written compressed
            seite.replace_contents(inhalt.flate_encode())
    for nummer, stream, ressourcen in _pdf_weitere_inhalte(writer):
        inhalt = ContentStream(stream, writer)
        neu = _pdf_ohne_verborgenes(inhalt.operations, ressourcen, sichtbar, verborgen, zeichnungen)
        if neu is not None:
            inhalt.operations = neu
            _pdf_stream_ersetzen(writer, nummer, stream, inhalt.get_data())
    # Forms and images drawn only on hidden layers, and those hidden by their own /OC, leave the
    # resources (and so the file); one drawn by a name no resources resolve is kept.
    xobjekte = _pdf_ressourcen_eintraege(writer, "/XObject")
    weg = zeichnungen.verborgen - zeichnungen.sichtbar
    weg -= {_pdf_nummer(wert) for eintraege in xobjekte for name, wert in eintraege.items() if name in zeichnungen.namen}
    weg |= verborgen
    for eintraege in xobjekte:
        for name in [name for name, wert in eintraege.items() if isinstance(wert, IndirectObject) and wert.idnum in weg]:
            eintraege.pop(name)
    # no content refers to a layer any more, nothing is optional
    for eintraege in _pdf_ressourcen_eintraege(writer, "/Properties"):
        for name, wert in list(eintraege.items()):
            gruppe = _pdf_aufgeloest(wert)
            if isinstance(gruppe, DictionaryObject) and gruppe.get("/Type") in ("/OCG", "/OCMD"):
                eintraege.pop(name)
    for objekt in writer._objects:
        if isinstance(objekt, DictionaryObject):
            objekt.pop(NameObject("/OC"), None)


def _pdf_sichtbarkeit(eigenschaften: DictionaryObject | None) -> Callable[[Any], bool]:
    """Whether content marked with an optional content group or membership dictionary is shown in
    the default configuration /D of `eigenschaften` (the catalog's /OCProperties): a group is off
    when /D lists it in /OFF, or its base state is /OFF and /ON does not list it, or (as Acrobat
    does on opening) its view usage says so and /D applies that automatically (/AS). A group the
    document does not list (/OCGs), and any content when `eigenschaften` is None, is shown."""
    if not isinstance(eigenschaften, DictionaryObject):
        return lambda _: True
    konfiguration = _pdf_aufgeloest(eigenschaften.get("/D"))
    konfiguration = konfiguration if isinstance(konfiguration, DictionaryObject) else DictionaryObject()
    gruppen = _pdf_nummern(eigenschaften.get("/OCGs"))
    if konfiguration.get("/BaseState") == "/OFF":
        aus = gruppen - _pdf_nummern(konfiguration.get("/ON"))
    else:
        aus = gruppen & _pdf_nummern(konfiguration.get("/OFF"))
    for anwendung in map(_pdf_aufgeloest, _pdf_eintraege(konfiguration.get("/AS"))):
        if not isinstance(anwendung, DictionaryObject) or anwendung.get("/Event") != "/View":
            continue
        if "/View" not in _pdf_eintraege(anwendung.get("/Category")):
            continue
        for gruppe in _pdf_eintraege(anwendung.get("/OCGs")):
            nutzung = _pdf_aufgeloest(gruppe)
            for schluessel in ("/Usage", "/View"):
                nutzung = _pdf_aufgeloest(nutzung.get(schluessel)) if isinstance(nutzung, DictionaryObject) else None
            if isinstance(nutzung, DictionaryObject) and nutzung.get("/ViewState") == "/OFF":
                aus |= gruppen & {_pdf_nummer(gruppe)}

    def an(gruppe: Any) -> bool:
        return _pdf_nummer(gruppe) not in aus

    def ausdruck(wert: Any, tiefe: int) -> bool:
        """A visibility expression: [/And …], [/Or …], [/Not x] over groups and expressions."""
        wert = _pdf_aufgeloest(wert)
        if not isinstance(wert, ArrayObject):
            return an(wert)
        if not wert or tiefe > 16:
            return True
        werte = [ausdruck(teil, tiefe + 1) for teil in wert[1:]]
        if wert[0] == "/Not":
            return not werte[0] if werte else True
        return all(werte) if wert[0] == "/And" else any(werte) if wert[0] == "/Or" else True

    def sichtbar(oc: Any) -> bool:
        inhalt = _pdf_aufgeloest(oc)
        if not isinstance(inhalt, DictionaryObject):
            return True
        if inhalt.get("/Type") != "/OCMD":
            return an(oc)
        if inhalt.get("/VE") is not None:
            return ausdruck(inhalt["/VE"], 0)
        zustaende = [
            an(gruppe) for gruppe in _pdf_eintraege(inhalt.get("/OCGs")) if isinstance(_pdf_aufgeloest(gruppe), DictionaryObject)
        ]
        if not zustaende:
            return True
        regel = inhalt.get("/P", "/AnyOn")
        if regel == "/AllOn":
            return all(zustaende)
        if regel == "/AnyOff":
            return not all(zustaende)
        if regel == "/AllOff":
            return not any(zustaende)
        return any(zustaende)

    return sichtbar


@dataclass
class _Zeichnungen:
    """The XObjects that content streams draw: in visible content (by object number, or by name where
    a stream's resources do not resolve it) and in hidden content."""

    sichtbar: set[int] = field(default_factory=set)
    namen: set[str] = field(default_factory=set)
    verborgen: set[int] = field(default_factory=set)


def _pdf_ohne_verborgenes(
    operationen: list[tuple[Any, bytes]],
    ressourcen: Any,
    sichtbar: Callable[[Any], bool],
    verborgen: set[int],
    zeichnungen: _Zeichnungen,
) -> list[tuple[Any, bytes]] | None:
    """`operationen` without what hidden optional content (also nested) paints, its state operators
    kept (_PDF_ZUSTAND), without drawing the XObjects in `verborgen` and without the marks of the
    optional content that is shown; None when nothing changes. Records in `zeichnungen` which
    XObjects are drawn in shown and in hidden content."""
    neu: list[tuple[Any, bytes]] = []
    offen: list[str] = []  # per open marked-content sequence: "verborgen", "ebene" (shown), "bleibt"
    versteckt = 0  # how many of them are hidden
    geaendert = False
    for operanden, operator in operationen:
        if operator in (b"BMC", b"BDC"):
            if operator == b"BDC" and not versteckt and operanden[:1] == ["/OC"] and len(operanden) > 1:
                eigenschaft = operanden[1]
                if isinstance(eigenschaft, NameObject):
                    eigenschaft = _pdf_ressource(ressourcen, "/Properties", eigenschaft)
                art = "ebene" if sichtbar(eigenschaft) else "verborgen"
                geaendert = True
            else:
                art = "verborgen" if versteckt else "bleibt"
                if not versteckt:
                    neu.append((operanden, operator))
            offen.append(art)
            versteckt += art == "verborgen"
            continue
        if operator == b"EMC" and offen:
            art = offen.pop()
            versteckt -= art == "verborgen"
            if art == "bleibt":
                neu.append((operanden, operator))
            continue
        if operator == b"Do" and operanden:
            ziel = _pdf_nummer(_pdf_ressource(ressourcen, "/XObject", operanden[0]))
            if versteckt:
                if ziel is not None:
                    zeichnungen.verborgen.add(ziel)
            elif ziel in verborgen:
                geaendert = True
                continue
            elif ziel is None:
                zeichnungen.namen.add(str(operanden[0]))
            else:
                zeichnungen.sichtbar.add(ziel)
        if not versteckt or operator in _PDF_ZUSTAND:
            neu.append((operanden, operator))
        elif operator in _PDF_MALEN:
            neu.append(([], b"n"))
        elif operator == b"'":
            neu.append(([], b"T*"))
        elif operator == b'"' and len(operanden) == 3:
            neu.extend((([operanden[0]], b"Tw"), ([operanden[1]], b"Tc"), ([], b"T*")))
    return neu if geaendert else None


def _pdf_verborgene_annotationen_entfernen(seite: Any, sichtbar: Callable[[Any], bool]) -> set[int]:
    """Take the annotations no viewer shows off the page (flagged hidden, or on a hidden layer) and
    empty them, in case something else still refers to them; returns their object numbers."""
    annots = seite.get("/Annots")
    liste = annots.get_object() if annots is not None else None
    if not isinstance(liste, ArrayObject):
        return set()
    entfernt: set[int] = set()
    behalten = []
    for verweis in liste:
        annotation = verweis.get_object()
        if not isinstance(annotation, DictionaryObject):
            behalten.append(verweis)
            continue
        flags = annotation.get("/F", 0)
        if (isinstance(flags, int) and flags & _PDF_UNSICHTBAR) or not sichtbar(annotation.get("/OC")):
            for schluessel in [s for s in annotation if s not in ("/Type", "/Subtype", "/Rect")]:
                annotation.pop(schluessel)
            annotation[NameObject("/F")] = NumberObject(_PDF_UNSICHTBAR)
            if isinstance(verweis, IndirectObject):
                entfernt.add(verweis.idnum)
            continue
        annotation.pop(NameObject("/OC"), None)  # shown: no layer decides any more
        behalten.append(verweis)
    liste[:] = behalten
    return entfernt


def _pdf_felder_entfernen(felder: ArrayObject, entfernt: set[int], *, tiefe: int) -> None:
    """Drop the removed widgets (`entfernt`) from the form's field tree, and a field none of whose
    widgets is left: its value was shown nowhere."""
    behalten = []
    for verweis in felder:
        if _pdf_nummer(verweis) in entfernt:
            continue
        feld = _pdf_aufgeloest(verweis)
        kinder = _pdf_aufgeloest(feld.get("/Kids")) if isinstance(feld, DictionaryObject) else None
        if isinstance(kinder, ArrayObject) and kinder and tiefe < 32:
            _pdf_felder_entfernen(kinder, entfernt, tiefe=tiefe + 1)
            if not kinder:
                continue
        behalten.append(verweis)
    felder[:] = behalten


def _pdf_weitere_inhalte(writer: PdfWriter) -> list[tuple[int, StreamObject, Any]]:
    """The content streams besides the pages' (with their object numbers) and their resources:
    forms (also appearances of annotations), tiling patterns and the glyphs of Type 3 fonts."""
    inhalte = []
    for index, objekt in enumerate(writer._objects):
        if isinstance(objekt, StreamObject) and (objekt.get("/Subtype") == "/Form" or objekt.get("/PatternType") == 1):
            inhalte.append((index + 1, objekt, _pdf_aufgeloest(objekt.get("/Resources"))))
        elif isinstance(objekt, DictionaryObject) and objekt.get("/Subtype") == "/Type3":
            glyphen = _pdf_aufgeloest(objekt.get("/CharProcs"))
            if isinstance(glyphen, DictionaryObject):
                ressourcen = _pdf_aufgeloest(objekt.get("/Resources"))
                for verweis in glyphen.values():
                    glyph = _pdf_aufgeloest(verweis)
                    if isinstance(verweis, IndirectObject) and isinstance(glyph, StreamObject):
                        inhalte.append((verweis.idnum, glyph, ressourcen))
    return inhalte


def _pdf_stream_ersetzen(writer: PdfWriter, nummer: int, alt: StreamObject, daten: bytes) -> None:
    """The stream `alt`, object `nummer`, with `daten` instead of its data, compressed anew whatever
    its filters were (pypdf writes only Flate)."""
    neu = DecodedStreamObject()
    neu.update({k: v for k, v in alt.items() if k not in ("/Filter", "/DecodeParms", "/Length", "/DL")})
    neu.set_data(daten)
    writer._replace_object(nummer, neu.flate_encode())


def _pdf_ressourcen(seite: Any) -> Any:
    """A page's resources, also inherited from the page tree."""
    knoten = seite
    for _ in range(32):
        if not isinstance(knoten, DictionaryObject):
            return None
        if "/Resources" in knoten:
            return _pdf_aufgeloest(knoten["/Resources"])
        knoten = _pdf_aufgeloest(knoten.get("/Parent"))
    return None


def _pdf_ressource(ressourcen: Any, art: str, name: Any) -> Any:
    """The entry `name` of kind `art` (/XObject, /Properties) in `ressourcen`, as written there."""
    eintraege = _pdf_aufgeloest(ressourcen.get(art)) if isinstance(ressourcen, DictionaryObject) else None
    return eintraege.get(name) if isinstance(eintraege, DictionaryObject) else None


def _pdf_ressourcen_eintraege(writer: PdfWriter, art: str) -> list[DictionaryObject]:
    """Every dictionary of resources of kind `art`, whether the resources are an object of their own
    or written into a page, form, pattern or font."""
    listen = []
    for objekt in writer._objects:
        if not isinstance(objekt, DictionaryObject):
            continue
        for ressourcen in (objekt, _pdf_aufgeloest(objekt.get("/Resources"))):
            eintraege = _pdf_aufgeloest(ressourcen.get(art)) if isinstance(ressourcen, DictionaryObject) else None
            if isinstance(eintraege, DictionaryObject):
                listen.append(eintraege)
    return listen


def _pdf_aufgeloest(wert: Any) -> Any:
    return wert.get_object() if isinstance(wert, IndirectObject) else wert


def _pdf_eintraege(wert: Any) -> list[Any]:
    """`wert` as a list: an array's entries as written (references unresolved), else itself."""
    wert = _pdf_aufgeloest(wert)
    if wert is None:
        return []
    return list(wert) if isinstance(wert, ArrayObject) else [wert]


def _pdf_nummer(wert: Any) -> int | None:
    """The object number of `wert` (a reference or an object read through one)."""
    if isinstance(wert, IndirectObject):
        return wert.idnum
    verweis = getattr(wert, "indirect_reference", None)
    return verweis.idnum if verweis is not None else None


def _pdf_nummern(wert: Any) -> set[int]:
    return {nummer for nummer in map(_pdf_nummer, _pdf_eintraege(wert)) if nummer is not None}


def _pdf_unerreichbare_entfernen(writer: PdfWriter) -> None:
    """Drop every object the catalog and the document information no longer reach. pypdf's
    compress_identical_objects keeps an object as long as any object refers to it, even one that is
    itself unreachable (a bookmark's children, the script of a removed name tree)."""
    erreichbar: set[int] = set()
    info = writer._info
    offen: list[Any] = [writer.root_object.indirect_reference, info.indirect_reference if info is not None else None]
    while offen:
        objekt = offen.pop()
        if isinstance(objekt, IndirectObject):
            if objekt.idnum in erreichbar:
                continue
            erreichbar.add(objekt.idnum)
            objekt = objekt.get_object()
        if isinstance(objekt, DictionaryObject):
            offen.extend(objekt.values())
        elif isinstance(objekt, ArrayObject):
            offen.extend(objekt)
    for index in range(len(writer._objects)):
        if index + 1 not in erreichbar:
            writer._objects[index] = None


def _pdf_objekt_bereinigen(objekt: object) -> None:
    """Drop _PDF_UEBERALL_ENTFERNEN and script actions from `objekt` and the dictionaries and arrays
    written into it (objects it refers to are cleaned as objects of their own)."""
    if isinstance(objekt, DictionaryObject):
        for schluessel in _PDF_UEBERALL_ENTFERNEN:
            objekt.pop(NameObject(schluessel), None)
        aktion = objekt.get("/A")
        aktion = aktion.get_object() if isinstance(aktion, IndirectObject) else aktion
        if isinstance(aktion, DictionaryObject) and aktion.get("/S") in _PDF_SKRIPTE:
            objekt.pop(NameObject("/A"), None)
        for wert in objekt.values():
            _pdf_objekt_bereinigen(wert)
    elif isinstance(objekt, ArrayObject):
        for wert in objekt:
            _pdf_objekt_bereinigen(wert)


def _pdf_notizen_entfernen(seite: object) -> None:
    annots = seite.get("/Annots")  # type: ignore[attr-defined]
    if annots is None:
        return
    behalten = []
    for verweis in annots.get_object():
        annotation = verweis.get_object()
        if annotation.get("/Subtype") in _PDF_NOTIZEN:
            continue
        # Markup annotations keep their look; their author, note text and reply thread go. A form
        # field's /T is its name, not an author: without it the field would lose its value.
        for schluessel in _PDF_NOTIZ_ANGABEN:
            if schluessel != "/T" or annotation.get("/Subtype") != "/Widget":
                annotation.pop(NameObject(schluessel), None)
        if annotation.get("/Subtype") != "/FreeText":  # a text box shows /Contents on the page
            annotation.pop(NameObject("/Contents"), None)
        behalten.append(verweis)
    if behalten:
        annots.get_object()[:] = behalten
    else:
        seite.pop(NameObject("/Annots"), None)  # type: ignore[attr-defined]
