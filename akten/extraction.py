"""Text extraction from uploaded documents (PDF, DOCX, plain text, Markdown, e-mails), and the kinds of
file an Akte holds (`DATEIARTEN`) with their recognition by content."""

from __future__ import annotations

import codecs
import datetime
import email.policy
import email.utils
import hashlib
import html
import io
import itertools
import re
import threading
import zipfile
from dataclasses import dataclass
from email.message import EmailMessage
from email.parser import BytesParser
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pypdf import PdfReader

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"

MARKDOWN_TYPES = {"text/markdown", "text/x-markdown"}
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
EMAIL_TYPE = "message/rfc822"

ERR_UNSUPPORTED = "Dateityp {mime} wird für die Texterkennung nicht unterstützt."
ERR_EMPTY = "Die Datei enthält keinen erkennbaren Text (z. B. ein gescanntes PDF ohne Texterkennung)."
ERR_BROKEN = "Die Datei konnte nicht gelesen werden: {reason}"
ERR_EMAIL = "Die Datei ist keine E-Mail im Format .eml (bitte im E-Mail-Programm „Speichern unter“ als .eml wählen)."
ERR_ENCRYPTED = "Das PDF ist verschlüsselt (Passwortschutz); bitte lade es ohne Passwortschutz hoch."
ERR_NO_TEXT = "Die Datei ist keine lesbare Textdatei (gelesen werden UTF-8, UTF-16 mit BOM und Windows-1252)."


ERR_DOCX_ENCRYPTED = (
    "Die Word-Datei ist verschlüsselt (Kennwortschutz) oder im alten .doc-Format; bitte ohne Kennwort als .docx speichern."
)
ERR_DOCX_UNPACKED = (
    "Die Word-Datei würde entpackt mehr als {mb} MB belegen (beschädigt oder eine sogenannte ZIP-Bombe) und wird nicht geöffnet."
)
ERR_DOCX_NO_ZIP = "Die Datei ist keine Word-Datei im DOCX-Format (bitte in Word als .docx speichern)."
# A DOCX is a ZIP: a few MB may unpack to gigabytes. python-docx reads every part into memory, so
# the declared sizes are checked first (zipfile stops reading a member at its declared size).
MAX_DOCX_UNPACKED_BYTES = 150 * 1024 * 1024
# An encrypted Word file (and a .doc) is an OLE compound file, not a ZIP.
OLE_SIGNATURE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


class DocxProblem(Enum):
    ENCRYPTED = "encrypted"  # or an old .doc
    NO_ZIP = "no_zip"
    TOO_LARGE_UNPACKED = "too_large_unpacked"


def docx_problem(data: bytes) -> DocxProblem | None:
    """What keeps a Word file from being opened by python-docx without risk, or None. The one check
    for uploads, new versions, firm templates and the PDF links (schriftgut.vorlagen.docx_pruefen)."""
    if data.startswith(OLE_SIGNATURE):
        return DocxProblem.ENCRYPTED
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
    except (zipfile.BadZipFile, ValueError, OSError):
        return DocxProblem.NO_ZIP
    return DocxProblem.TOO_LARGE_UNPACKED if unpacked > MAX_DOCX_UNPACKED_BYTES else None


_MAIN_DOCUMENT = re.compile(
    rb'<Relationship\b[^>]*?\bType="[^"]*/officeDocument"[^>]*?\bTarget="/?([^"]+)"'
    rb'|<Relationship\b[^>]*?\bTarget="/?([^"]+)"[^>]*?\bType="[^"]*/officeDocument"'
)


def is_word_package(archive: zipfile.ZipFile) -> bool:
    """Whether the ZIP `archive` is a Word document: its package relationships name a main part
    (`word/document.xml`, or `word/document2.xml` as Word Online and SharePoint save it) that is
    in the archive, and that part is no workbook or presentation."""
    names = set(archive.namelist())
    if "word/document.xml" in names:
        return True
    if "_rels/.rels" not in names:
        return False
    try:
        rels = archive.read("_rels/.rels")
    except (zipfile.BadZipFile, KeyError, OSError, ValueError):
        return False
    for match in _MAIN_DOCUMENT.finditer(rels):
        target = (match.group(1) or match.group(2)).decode("utf-8", errors="replace")
        if target.startswith("word/") and target in names:
            return True
    return False


def pdf_open(data: bytes) -> PdfReader | None:
    """A reader for the PDF `data`, or None when it is encrypted with a password. PDFs that only
    restrict permissions open with the empty password. Raises pypdf's errors for damaged files."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return None if reader.is_encrypted and not reader.decrypt("") else reader


def _pdf_ohne_verborgene_ebenen(reader: PdfReader, data: bytes) -> PdfReader:
    """`reader`, or for a PDF with layers (optional content) a reader of its copy without the layers
    its default view hides: their text is on no page anyone sees, yet a text layer would carry it into
    the Akte's search, Helena's tools and the text a Mandantin receives of a released PDF. The copy
    is the release cleaning's (akten.metadaten); a PDF it cannot clean keeps its own text."""
    katalog = reader.trailer["/Root"].get_object()
    if not isinstance(katalog, dict) or "/OCProperties" not in katalog:
        return reader
    from .metadaten import NichtBereitstellbar, mandant_fassung

    try:
        bereinigt = mandant_fassung(
            data, mime_type="application/pdf", titel="", autor="", stand=datetime.datetime.now(datetime.UTC)
        )
    except NichtBereitstellbar:
        return reader
    return pdf_open(bereinigt) or reader


class HiddenText:
    """Which runs and paragraph marks of a Word document are hidden text, which Word neither shows
    nor prints by default. Hidden text is where a template keeps notes to colleagues; it never
    leaves the Kanzlei.

    `w:vanish` is a toggle property (ECMA-376 Part 1, §17.7.3). Set on the run (or the paragraph
    mark) itself, its value is absolute: `<w:vanish w:val="0"/>` shows text every style hides.
    Otherwise each level of the style hierarchy (§17.7.2: document defaults, the table's style,
    the paragraph's style, the run's character style; where none is named, the default style of
    that type) contributes the first value found along its basedOn chain, and every `true` flips
    the state reached so far: a hidden paragraph style and a hidden character style together show
    the text, as Word does. `w:specVanish` is no toggle: wherever it is set, the text is hidden."""

    def __init__(self, styles: Any | None) -> None:
        """`styles`: the <w:styles> element of the document (None: no styles part)."""
        self._styles: dict[str, Any] = {}
        self._default_styles: dict[str, str] = {}
        self._first_values: dict[tuple[str, str], bool | None] = {}
        self._defaults: Any = None
        if styles is None:
            return
        for style in styles.iterchildren(f"{_W}style"):
            style_id = style.get(f"{_W}styleId") or ""
            self._styles[style_id] = style
            if _on(style.get(f"{_W}default")):
                # the last default of a type counts (§17.7.4.17)
                self._default_styles[style.get(f"{_W}type") or "paragraph"] = style_id
        self._defaults = styles.find(f"{_W}docDefaults/{_W}rPrDefault/{_W}rPr")

    @classmethod
    def of(cls, document: Any) -> HiddenText:
        """For a python-docx Document (without adding a styles part it does not have)."""
        styles = next((rel.target_part for rel in document.part.rels.values() if rel.reltype.endswith("/styles")), None)
        return cls(getattr(styles, "element", None))

    def __call__(self, run: Any) -> bool:
        """Whether the <w:r> `run` is hidden."""
        return self._hidden(run.find(f"{_W}rPr"), next(run.iterancestors(f"{_W}p"), None))

    def mark(self, paragraph: Any) -> bool:
        """Whether the mark of the <w:p> `paragraph` is hidden (its run properties are w:pPr/w:rPr).
        A paragraph whose mark and text are hidden takes no line in Word."""
        return self._hidden(paragraph.find(f"{_W}pPr/{_W}rPr"), paragraph)

    def _hidden(self, rpr: Any, paragraph: Any) -> bool:
        styles = [*self._table_and_paragraph_style(paragraph), self._style(rpr, "rStyle", "character")]
        if _setting(self._defaults, "specVanish") or _setting(rpr, "specVanish"):
            return True
        if any(self._first_value(style_id, "specVanish") for style_id in styles):
            return True
        direct = _setting(rpr, "vanish")
        if direct is not None:
            return direct
        hidden = bool(_setting(self._defaults, "vanish"))
        for style_id in styles:
            hidden ^= bool(self._first_value(style_id, "vanish"))
        return hidden

    def _table_and_paragraph_style(self, paragraph: Any) -> list[str]:
        if paragraph is None:
            return []
        styles = [self._style(paragraph.find(f"{_W}pPr"), "pStyle", "paragraph")]
        table = next(paragraph.iterancestors(f"{_W}tbl"), None)
        if table is not None:
            styles.insert(0, self._style(table.find(f"{_W}tblPr"), "tblStyle", "table"))
        return styles

    def _style(self, properties: Any, tag: str, kind: str) -> str:
        """The style `properties` name in <`tag`>, or the default style of `kind` when they name
        none (or one the document does not define)."""
        reference = properties.find(f"{_W}{tag}") if properties is not None else None
        style_id = reference.get(f"{_W}val") if reference is not None else None
        return style_id if style_id in self._styles else self._default_styles.get(kind, "")

    def _first_value(self, style_id: str, tag: str) -> bool | None:
        """The first setting of <`tag`> along the basedOn chain of the style `style_id` (§17.7.3:
        a style that sets it, even to false, hides the value of the style it is based on)."""
        key = (style_id, tag)
        if key not in self._first_values:
            value, seen = None, set()
            while value is None and style_id and style_id not in seen and style_id in self._styles:
                seen.add(style_id)
                style = self._styles[style_id]
                value = _setting(style.find(f"{_W}rPr"), tag)
                based_on = style.find(f"{_W}basedOn")
                style_id = based_on.get(f"{_W}val") if based_on is not None else ""
            self._first_values[key] = value
        return self._first_values[key]


def _on(value: str | None) -> bool:
    """An ST_OnOff attribute value: on unless "0", "false" or "off" (absent: off)."""
    return value is not None and value not in ("0", "false", "off")


def _setting(rpr: Any, tag: str) -> bool | None:
    """The on/off property <`tag`> of run properties `rpr`: True, False (explicitly off) or None
    (unset). An element without w:val is on."""
    element = rpr.find(f"{_W}{tag}") if rpr is not None else None
    return None if element is None else _on(element.get(f"{_W}val", "true"))


def hidden_text_remove(element: Any, hidden: HiddenText) -> None:
    """Remove the hidden runs under `element`. A hidden run's field characters stay (the field
    around it stays whole); a paragraph left empty whose mark is hidden too goes with them (Word
    shows none of it), unless it is the last of its cell, text box or body."""
    for run in list(element.iter(f"{_W}r")):
        if not hidden(run):
            continue
        for child in list(run):
            if child.tag not in (f"{_W}rPr", f"{_W}fldChar"):
                run.remove(child)
        parent = run.getparent()
        if parent is not None and all(child.tag == f"{_W}rPr" for child in run):
            parent.remove(run)
    for paragraph in list(element.iter(f"{_W}p")):
        parent = paragraph.getparent()
        if (
            parent is None
            or not hidden.mark(paragraph)
            or next(paragraph.iter(f"{_W}r", f"{_W}sectPr"), None) is not None
            or parent.findall(f"{_W}p")[-1] is paragraph
        ):
            continue
        parent.remove(paragraph)


class ExtractionError(Exception):
    """Extraction failed; the message is German and shown on the Dokument."""


def has_pdf_header(data: bytes) -> bool:
    """Whether `data` is a PDF by its header: PDF readers accept "%PDF-" anywhere in the first KiB
    (scanners and mail gateways put bytes before it). The one test of the upload check and the
    release cleaning."""
    return b"%PDF-" in data[:1024]


@dataclass(frozen=True)
class Dateiart:
    """A kind of file an Akte holds; `ist` names it in a German sentence ("ein PDF"), the first of
    `endungen` is the extension a stored file gets whose name has none, `bildformat` is the Pillow
    format a photo or scan is redrawn in for a Mandant (akten.metadaten)."""

    ist: str
    mime_type: str
    endungen: tuple[str, ...]
    signaturen: tuple[bytes, ...] = ()  # first bytes; none for text
    bildformat: str = ""

    @property
    def text(self) -> bool:
        return not self.signaturen


# The kinds Helena reads and shows: PDF, Word, plain text, Markdown, photos and scans (all of them
# releasable cleaned, akten.metadaten) and e-mails saved as .eml (read for the Akte's search and
# Helena; never released to a Mandant: headers and attachments are not cleaned). Everything else
# (Outlook .msg, Excel, old .doc, archives, HTML, programs) would lie in the Akte unread, unprintable
# and not releasable, and may carry what nobody checked: it is refused on every path that stores a
# file (`akten.services.dokument_datei_pruefen`). The one table of the upload check and the release
# cleaning (`inhalt_art`).
PDF = Dateiart("ein PDF", "application/pdf", (".pdf",), (b"%PDF-",))
WORD = Dateiart("eine Word-Datei (.docx)", DOCX_TYPE, (".docx",), (b"PK\x03\x04",))
TEXT = Dateiart("ein Text", "text/plain", (".txt",))
MARKDOWN = Dateiart("ein Markdown-Text", "text/markdown", (".md", ".markdown"))
JPEG = Dateiart("ein JPEG-Bild", "image/jpeg", (".jpg", ".jpeg", ".jfif"), (b"\xff\xd8\xff",), "JPEG")
PNG = Dateiart("ein PNG-Bild", "image/png", (".png",), (b"\x89PNG\r\n\x1a\n",), "PNG")
TIFF = Dateiart("ein TIFF-Bild", "image/tiff", (".tif", ".tiff"), (b"II*\x00", b"MM\x00*"), "TIFF")
WEBP = Dateiart("ein WebP-Bild", "image/webp", (".webp",), (b"RIFF",), "WEBP")  # RIFF, its size, WEBP
EMAIL = Dateiart("eine E-Mail (.eml)", EMAIL_TYPE, (".eml",))
DATEIARTEN = (PDF, WORD, TEXT, MARKDOWN, JPEG, PNG, TIFF, WEBP, EMAIL)


def inhalt_art(content: bytes) -> Dateiart | None:
    """What the first bytes say `content` is: PDF, Word or an image; None for anything else (text
    included). A Word file is a ZIP from its first byte (not a program with a ZIP appended) whose
    package names a Word main part; only its directory is read, nothing is unpacked. The one
    recognition by content of the upload check and the release cleaning."""
    art = next((art for art in DATEIARTEN if any(content.startswith(s) for s in art.signaturen)), None)
    if art is WEBP and content[8:12] != b"WEBP":
        return None
    if art is WORD:
        try:
            with zipfile.ZipFile(io.BytesIO(content)) as archiv:
                return WORD if is_word_package(archiv) else None
        except (zipfile.BadZipFile, ValueError, OSError):
            return None
    return art


_UTF16_BOMS = ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_UNDEFINIERT_IN_CP1252 = b"\x81\x8d\x8f\x90\x9d"
# Each byte as Windows-1252 reads it, ASCII as itself (the five bytes it leaves undefined as the C1
# control characters Windows maps them to): a decoding table for codecs.charmap_decode.
_CP1252 = "".join(
    chr(byte) if byte < 0x80 or byte in _UNDEFINIERT_IN_CP1252 else bytes([byte]).decode("cp1252") for byte in range(0x100)
)
_ASCII = bytes(range(0x80))
# Valid UTF-8 sequences that Windows-1252 text forms by accident: "Ö", "Ü", "ß" (D4-DF) or "É", "Ê",
# "Ë" (C9-CB) before a quote, dash, ellipsis or guillemet („ … ‹ ‘ ’ “ ” • – — › « », the only second
# bytes taken: "Gruß“" is DF 93, an NKo letter; "«CAFÉ»" ends in C9 BB, an IPA letter). Their
# characters are some IPA letters and spacing modifiers (U+0240-02FF) and some of Armenian to NKo
# (U+0500-07FF); "˚" (CB 9A, the ring a Mac types for degrees), "ʼ" (CA BC), "ʃ" and a Hebrew "א"
# (D7 90) are not among them and stay UTF-8.
_ZUFALLSFOLGE = rb"[\xc9\xca\xcb\xd4-\xdf][\x84\x85\x8b\x91-\x97\x9b\xab\xbb]"
_ZUFALLSFOLGE_ALS_CP1252 = {
    chr(zeichen): codecs.charmap_decode(chr(zeichen).encode(), "strict", _CP1252)[0]
    for zeichen in range(0x80, 0x800)
    if re.fullmatch(_ZUFALLSFOLGE, chr(zeichen).encode())
}
_ZUFALLSZEICHEN = re.compile(f"[{''.join(_ZUFALLSFOLGE_ALS_CP1252)}]")
_NICHT_ZUFALL = re.compile(f"[^\\x00-\\x7f{''.join(_ZUFALLSFOLGE_ALS_CP1252)}]")
_ZUFALLSFOLGE_TABELLE = {ord(zeichen): gelesen for zeichen, gelesen in _ZUFALLSFOLGE_ALS_CP1252.items()}
# Two characters of their blocks (IPA and spacing modifiers, Armenian to Arabic Extended-A, U+0500-08FF)
# or of the Hebrew and Arabic presentation forms side by side: a word in Hebrew, Arabic, Armenian (or IPA).
_SCHRIFTWORT = re.compile("[\u0250-\u02ff\u0500-\u08ff\ufb1d-\ufdff\ufe70-\ufefe]{2}")
# From a byte outside a valid UTF-8 sequence on: ASCII, continuation bytes, bytes UTF-8 never holds
# (C0, C1, F5-FF) and lead bytes no continuation byte follows. None of its bytes begins or continues
# a valid UTF-8 sequence, so it reads whole as Windows-1252 ("Grüße, daß" in Windows-1252 at once).
# Possessive, in runs: no regex engine state per byte (a repeated alternative costs memory and time
# for every byte it matches).
_FREMDE_BYTES = re.compile(rb"(?:[\x00-\xc1\xf5-\xff]++|[\xc2-\xf4](?![\x80-\xbf]))*+")
# The codec error handler reads that many stretches of foreign bytes one by one, the rest of a file
# with more at once (Windows-1252 bytes between many UTF-8 characters: a handler call each is slow).
_WINDOWS_1252_FEHLER = "helena-windows-1252"
_STRECKEN_EINZELN = 20_000
_STRECKE_HOECHSTENS = 256 * 1024
_SURROGATE_ALS_CP1252 = {0xDC00 + byte: _CP1252[byte] for byte in range(0x80, 0x100)}
# The decoding in this thread: how many stretches and bytes were read as Windows-1252.
_zaehler = threading.local()


def _als_windows_1252(fehler: UnicodeError) -> tuple[str, int]:
    """Codec error handler: the bytes outside valid UTF-8 sequences as Windows-1252 (`_CP1252`), with
    the ones after them that are no UTF-8 either (`_FREMDE_BYTES`); counts them for `text_charset`."""
    if not isinstance(fehler, UnicodeDecodeError):
        raise fehler
    daten = fehler.object
    _zaehler.strecken = getattr(_zaehler, "strecken", 0) + 1
    if _zaehler.strecken > _STRECKEN_EINZELN:
        rest = daten[fehler.start :]
        text = rest.decode("utf-8", "surrogateescape")
        _zaehler.cp1252 = getattr(_zaehler, "cp1252", 0) + len(rest) - len(text.encode("utf-8", "ignore"))
        return text.translate(_SURROGATE_ALS_CP1252), len(daten)
    # At most a chunk at once, little memory besides the text: the decoder goes on where it ends. At
    # its end the match cannot see whether a continuation byte follows a lead byte: that one is left.
    grenze = fehler.start + _STRECKE_HOECHSTENS
    ende = _FREMDE_BYTES.match(daten, fehler.end, grenze).end()  # type: ignore[union-attr]  # matches ""
    if ende == grenze < len(daten):
        ende -= 1
    strecke = daten[fehler.start : ende]
    _zaehler.cp1252 = getattr(_zaehler, "cp1252", 0) + len(strecke.translate(None, _ASCII))
    return codecs.charmap_decode(strecke, "strict", _CP1252)[0], ende


codecs.register_error(_WINDOWS_1252_FEHLER, _als_windows_1252)

# Control characters and the C1 range: what `_text_bereinigen` may have to clean (NUL is sorted out
# before). A text without any is read as it is.
_ZU_BEREINIGEN = re.compile("[\x01-\x08\x0b\x0e-\x1f\x7f-\x9f]")
# A C1 control character in a text is what a conversion from Windows-1252 as if it were Latin-1 left
# of a Windows character ("„" as U+0084, "€" as U+0080): it reads as that character again; U+0085
# (NEL, only valid UTF-8 or UTF-16 holds it: a Windows byte 0x85 reads as "…") is a line break. A
# vertical tab is the manual line break of Word's text export.
_UEBERSETZEN = {chr(byte): _CP1252[byte] for byte in range(0x80, 0xA0) if byte not in _UNDEFINIERT_IN_CP1252} | {
    "\x85": "\n",
    "\x0b": "\n",
}
_ZU_UEBERSETZEN = re.compile(f"[{''.join(sorted(_UEBERSETZEN))}]")
# Up to as many characters are replaced one by one, more in one pass over the text per character
# (str.translate takes a dictionary lookup per character of a non-ASCII text).
_EINZELN_ERSETZEN = 20_000
# DOS and CP/M ended a text with Ctrl-Z (padding a record with more of them): what a text may end
# with after its content.
_DOS_ENDE = "\x1a\t\n\f\r "
# An ANSI escape sequence (ECMA-48 CSI: parameter bytes, intermediate bytes, a final byte): colour
# and cursor codes in a terminal log. A space is not taken as intermediate byte: "ESC [ Geheim" keeps
# its word (the ESC is a stray control character).
_ANSI = re.compile(r"\x1b\[[0-?]*[!-/]*[@-~]")
# Control characters other than tab, line breaks and form feed, left after the above (C0, DEL, the
# C1 characters of the bytes Windows-1252 leaves undefined); NUL is binary data by itself.
_STEUERZEICHEN = re.compile("[\x01-\x08\x0e-\x1f\x7f\x81\x8d\x8f\x90\x9d]")
_SICHTBAR = re.compile(r"\S")
# A text holds such a character now and then (a stray escape, Ctrl-Z in the middle); binary data
# without NUL bytes is about one in ten. More than one in a hundred characters (and more than five
# in a short text) is binary.
STEUERZEICHEN_ANTEIL = 0.01
STEUERZEICHEN_MINDESTENS = 5


def decode_text(data: bytes) -> str | None:
    """The Unicode text of a plain-text or Markdown file, or None when `data` is no text. Read as:
    UTF-16 little or big endian only with its BOM (Notepad's "Unicode"; without one it cannot be
    told from binary data), strictly; otherwise UTF-8 (a BOM is never part of the text), and every
    byte that is no valid UTF-8 as Windows-1252, as Windows writes German text ("Müller", "§", "€"
    as 0x80; Latin-1 text reads the same): a Windows text reads whole as Windows-1252, a UTF-8 text
    with a few pasted Windows bytes keeps its UTF-8 ("Müller" in UTF-8, "Grüße" in Windows-1252).
    What Windows-1252 text forms of a valid UTF-8 sequence by accident ("Gruß“", "«CAFÉ»":
    `_ZUFALLSFOLGE`) reads as Windows-1252 too, unless the file holds a word of their scripts
    (`_SCHRIFTWORT`: Hebrew or Arabic in UTF-8 with a stray Windows byte keeps all its letters), in
    a file that is not UTF-8 throughout or whose only non-ASCII characters they are ("Gruß“" alone).

    The text read is cleaned of what files from DOS and Windows carry; the stored file stays as it
    is. A vertical tab and NEL are line breaks; DOS's end of file (Ctrl-Z after the content, only
    line breaks or more Ctrl-Z after it) goes; an ANSI escape sequence goes; a C1 character reads as
    its Windows-1252 character; any other control character becomes a space (a Ctrl-Z inside a text
    too: an editor shows what follows it, so Helena reads it). A NUL, more control characters than
    one in a hundred (`STEUERZEICHEN_ANTEIL`), or control characters with nothing visible besides,
    is binary data: no guess makes a binary file a text. Time and memory grow with the size of the
    file alone, memory a few times it.
    The one decoding of an uploaded text, for the upload check, the extraction, the release check,
    the letterhead copy of a text and the charset of its download (`text_charset`)."""
    decoded = _decode_text(data)
    return decoded[0] if decoded else None


def text_charset(data: bytes) -> str | None:
    """The charset (utf-8, utf-16 or windows-1252) in which a browser shows `data` as `decode_text`
    reads it, for the Content-Type of a download of the file as stored; None when `data` is no text.
    A file after a UTF-8 BOM is utf-8 (a browser reads it so whatever the header says); a file of
    UTF-8 and Windows-1252 bytes mixed shows right in neither: the charset is the one of the greater
    part of its non-ASCII characters, ties utf-8. The last answer is kept by the file's SHA-256: a
    Mandant's download reads a released text once for the release check and the Content-Type."""
    schluessel = hashlib.sha256(data).digest()
    zuletzt, charset = _ZEICHENSATZ_ZULETZT[0]
    if zuletzt != schluessel:
        decoded = _decode_text(data)
        charset = decoded[1] if decoded else None
        _ZEICHENSATZ_ZULETZT[0] = (schluessel, charset)
    return charset


# text_charset's last answer: the SHA-256 of the file and its charset (nothing of its text)
_ZEICHENSATZ_ZULETZT: list[tuple[bytes, str | None]] = [(b"", None)]


def download_content_type(inhalt: bytes, mime_type: str) -> str:
    """The Content-Type of a stored file sent as it is: a text or Markdown file names the charset in
    which `decode_text` reads it (uploads keep UTF-8, UTF-16 with BOM or Windows-1252 as they came).
    The one Content-Type of the downloads of stored files (akten.api, schriftgut.api)."""
    art = mime_type.split(";")[0].strip().lower()
    if art != "text/plain" and art not in MARKDOWN_TYPES:
        return mime_type
    charset = text_charset(inhalt)
    return f"{art}; charset={charset}" if charset else mime_type


def _decode_text(data: bytes) -> tuple[str, str] | None:
    """decode_text's text and text_charset's charset."""
    for bom, codec in _UTF16_BOMS:
        if data.startswith(bom):
            try:
                text, charset = data[len(bom) :].decode(codec), "utf-16"
            except UnicodeDecodeError:
                return None
            if "\x00" in text:
                return None
            break
    else:
        if b"\x00" in data:
            return None
        ohne_bom = data.removeprefix(codecs.BOM_UTF8)
        text, charset = _utf8_und_cp1252(ohne_bom)
        if len(ohne_bom) < len(data):
            charset = "utf-8"
    bereinigt = _text_bereinigen(text)
    return None if bereinigt is None else (bereinigt, charset)


def _utf8_und_cp1252(data: bytes) -> tuple[str, str]:
    """`data` read as UTF-8, every byte outside a valid UTF-8 sequence as Windows-1252, and what
    Windows-1252 forms of one by accident too (`_ZUFALLSFOLGE`, `decode_text`); and the charset of
    the greater part of its non-ASCII characters."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        # UTF-8 throughout: Windows-1252 only when all its non-ASCII is such accidents ("Gruß“")
        if text.isascii() or _NICHT_ZUFALL.search(text) or _SCHRIFTWORT.search(text):
            return text, "utf-8"
        return _zeichen_ersetzen(text, _ZUFALLSZEICHEN, _ZUFALLSFOLGE_ALS_CP1252, _ZUFALLSFOLGE_TABELLE), "windows-1252"
    _zaehler.strecken = _zaehler.cp1252 = 0
    text = data.decode("utf-8", _WINDOWS_1252_FEHLER)
    cp1252 = _zaehler.cp1252
    utf8 = len(text) - (len(data) - len(data.translate(None, _ASCII))) - cp1252
    if _ZUFALLSZEICHEN.search(text) and not _SCHRIFTWORT.search(text):
        laenge = len(text)
        text = _zeichen_ersetzen(text, _ZUFALLSZEICHEN, _ZUFALLSFOLGE_ALS_CP1252, _ZUFALLSFOLGE_TABELLE)
        gelesen = len(text) - laenge  # each such character is two bytes, two Windows-1252 characters
        utf8, cp1252 = utf8 - gelesen, cp1252 + 2 * gelesen
    return text, "utf-8" if utf8 >= cp1252 else "windows-1252"


def _zeichen_ersetzen(text: str, muster: re.Pattern[str], ersatz: dict[str, str], tabelle: dict[int, str] | None = None) -> str:
    """`text` with the characters `muster` finds replaced (`ersatz`): one by one when they are few;
    many by translating the whole text with `tabelle`, without one by a pass per character present."""
    treffer = sum(1 for _ in itertools.islice(muster.finditer(text), _EINZELN_ERSETZEN + 1))
    if treffer <= _EINZELN_ERSETZEN:
        return muster.sub(lambda gefunden: ersatz[gefunden.group()], text) if treffer else text
    if tabelle is not None:
        return text.translate(tabelle)
    for zeichen, neu in ersatz.items():
        if zeichen in text:
            text = text.replace(zeichen, neu)
    return text


def _text_bereinigen(text: str) -> str | None:
    """The text `decode_text` gives of the decoded `text` (its docstring), or None for binary data."""
    if not _ZU_BEREINIGEN.search(text):
        return text
    gelesen = text
    text = _zeichen_ersetzen(text, _ZU_UEBERSETZEN, _UEBERSETZEN)
    if "\x1a" in text:
        inhalt = len(text.rstrip(_DOS_ENDE))
        if (ende := text.find("\x1a", inhalt)) >= 0:
            text = text[:ende]
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    grenze = max(STEUERZEICHEN_MINDESTENS, len(text) * STEUERZEICHEN_ANTEIL)
    steuerzeichen = sum(1 for _ in itertools.islice(_STEUERZEICHEN.finditer(text), int(grenze) + 1))
    if steuerzeichen > grenze:
        return None
    if steuerzeichen:
        text = _STEUERZEICHEN.sub(" ", text)
    if not _SICHTBAR.search(text) and text != gelesen:
        return None  # control characters and nothing to read
    return text


def extract_text(data: bytes, mime_type: str) -> str:
    """Return the plain text of a document; raises ExtractionError with a German reason."""
    try:
        if mime_type == "application/pdf":
            reader = pdf_open(data)
            if reader is None:
                raise ExtractionError(ERR_ENCRYPTED)
            reader = _pdf_ohne_verborgene_ebenen(reader, data)
            text = "\n\n".join((page.extract_text() or "") for page in reader.pages)
        elif mime_type == DOCX_TYPE:
            import docx

            problem = docx_problem(data)
            if problem is DocxProblem.ENCRYPTED:
                raise ExtractionError(ERR_DOCX_ENCRYPTED)
            if problem is DocxProblem.TOO_LARGE_UNPACKED:
                raise ExtractionError(ERR_DOCX_UNPACKED.format(mb=MAX_DOCX_UNPACKED_BYTES // (1024 * 1024)))
            if problem is DocxProblem.NO_ZIP:
                raise ExtractionError(ERR_DOCX_NO_ZIP)
            document = docx.Document(io.BytesIO(data))
            hidden_text_remove(document.element.body, HiddenText.of(document))
            text = "\n".join(p.text for p in document.paragraphs)
        elif mime_type == "text/plain" or mime_type in MARKDOWN_TYPES:
            decoded = decode_text(data)
            if decoded is None:
                raise ExtractionError(ERR_NO_TEXT)
            text = decoded
        elif mime_type == EMAIL_TYPE:
            text = email_text(data)
        else:
            raise ExtractionError(ERR_UNSUPPORTED.format(mime=mime_type))
    except ExtractionError:
        raise
    except Exception as exc:  # pypdf/docx raise many types on damaged files
        raise ExtractionError(ERR_BROKEN.format(reason=type(exc).__name__)) from exc
    text = text.replace("\x00", "").strip()
    if not text:
        raise ExtractionError(ERR_EMPTY)
    return text


# --- e-mails (.eml, RFC 5322 as Outlook, Thunderbird and Apple Mail save them) ---------------------

EMAIL_HEADERS = (("From", "Von"), ("To", "An"), ("Cc", "Cc"), ("Date", "Datum"), ("Subject", "Betreff"))
# A header line: a field name of printable characters without colon or space, then a colon.
_HEADER_LINE = re.compile(rb"^[!-9;-~]+:")
_HTML_BREAKS = re.compile(r"<br\s*/?>|</(?:p|div|tr|li|h[1-6]|table|blockquote)\s*>", re.IGNORECASE)


def email_parse(data: bytes) -> EmailMessage | None:
    """The e-mail `data` holds, or None when it is none: it must begin with a header line and name
    a sender, recipient, date or subject (a text or a file of another kind renamed .eml does not)."""
    data = data.removeprefix(b"\xef\xbb\xbf").lstrip(b"\r\n")
    if data.startswith(b"From "):  # the separator line of an mbox export (Thunderbird)
        data = data.partition(b"\n")[2]
    if b"\x00" in data[:4096] or not _HEADER_LINE.match(data[:1000]):
        return None
    message = BytesParser(policy=email.policy.default).parsebytes(data)
    if not isinstance(message, EmailMessage) or not any(message.get(name) for name, _ in EMAIL_HEADERS):
        return None
    return message


def _email_datum(wert: str) -> str:
    """The sending time in German form and the firm's time zone ("03.11.2026 10:15"); as written if
    it cannot be read."""
    from django.utils import timezone

    try:
        zeitpunkt = email.utils.parsedate_to_datetime(wert)
    except (TypeError, ValueError):
        return wert
    if zeitpunkt.tzinfo is None:
        return f"{zeitpunkt:%d.%m.%Y %H:%M}"
    return f"{timezone.localtime(zeitpunkt):%d.%m.%Y %H:%M}"


def _html_text(markup: str) -> str:
    """The text of an HTML body: line breaks where blocks end, no tags, scripts or styles."""
    import nh3

    text = nh3.clean(_HTML_BREAKS.sub("\n", markup), tags=set())
    return "\n".join(line.strip() for line in html.unescape(text).splitlines()).strip()


def _part_text(part: EmailMessage) -> str:
    try:
        content = part.get_content()
    except (LookupError, UnicodeError, AssertionError):  # an unknown or wrong charset
        payload = part.get_payload(decode=True)
        if not isinstance(payload, bytes):
            return ""
        # read as an uploaded text is; what is no text by those rules, as UTF-8 with replacements
        content = decode_text(payload)
        if content is None:
            content = payload.decode("utf-8", errors="replace")
    if not isinstance(content, str):
        return ""
    return _html_text(content) if part.get_content_subtype() == "html" else content


def email_text(data: bytes) -> str:
    """Sender, recipients, date, subject, the body (plain text, else the HTML's text) and the names
    of the attachments (which are not read). Raises ExtractionError when `data` is no e-mail."""
    message = email_parse(data)
    if message is None:
        raise ExtractionError(ERR_EMAIL)
    zeilen = []
    for name, label in EMAIL_HEADERS:
        wert = str(message.get(name, "") or "").strip()
        if wert:
            zeilen.append(f"{label}: {_email_datum(wert) if name == 'Date' else wert}")
    body = message.get_body(preferencelist=("plain", "html"))
    text = _part_text(body) if isinstance(body, EmailMessage) else ""
    anhaenge = [part.get_filename() for part in message.iter_attachments() if part.get_filename()]
    teile = ["\n".join(zeilen), text.strip()]
    if anhaenge:
        teile.append("Anhänge (nicht gelesen): " + ", ".join(str(name) for name in anhaenge))
    return "\n\n".join(teil for teil in teile if teil)
