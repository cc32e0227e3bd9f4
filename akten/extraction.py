"""Text extraction from uploaded documents (PDF, DOCX, plain text, Markdown)."""

from __future__ import annotations

import io
import zipfile
from enum import Enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pypdf import PdfReader

MARKDOWN_TYPES = {"text/markdown", "text/x-markdown"}
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
SUPPORTED_TYPES = {"application/pdf", DOCX_TYPE, "text/plain", *MARKDOWN_TYPES}

ERR_UNSUPPORTED = "Dateityp {mime} wird für die Texterkennung nicht unterstützt."
ERR_EMPTY = "Die Datei enthält keinen erkennbaren Text (z. B. ein gescanntes PDF ohne Texterkennung)."
ERR_BROKEN = "Die Datei konnte nicht gelesen werden: {reason}"
ERR_ENCRYPTED = "Das PDF ist verschlüsselt (Passwortschutz); bitte lade es ohne Passwortschutz hoch."


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


def pdf_open(data: bytes) -> PdfReader | None:
    """A reader for the PDF `data`, or None when it is encrypted with a password. PDFs that only
    restrict permissions open with the empty password. Raises pypdf's errors for damaged files."""
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    return None if reader.is_encrypted and not reader.decrypt("") else reader


class ExtractionError(Exception):
    """Extraction failed; the message is German and shown on the Dokument."""


def guess_mime_type(filename: str, declared: str | None) -> str:
    name = filename.lower()
    by_suffix = {
        ".pdf": "application/pdf",
        ".docx": DOCX_TYPE,
        ".txt": "text/plain",
        ".md": "text/markdown",
        ".markdown": "text/markdown",
        ".jpg": "image/jpeg",
        ".jpeg": "image/jpeg",
        ".png": "image/png",
        ".webp": "image/webp",
        ".tif": "image/tiff",
        ".tiff": "image/tiff",
    }
    for suffix, mime in by_suffix.items():
        if name.endswith(suffix):
            return mime
    return declared or "application/octet-stream"


def extract_text(data: bytes, mime_type: str) -> str:
    """Return the plain text of a document; raises ExtractionError with a German reason."""
    try:
        if mime_type == "application/pdf":
            reader = pdf_open(data)
            if reader is None:
                raise ExtractionError(ERR_ENCRYPTED)
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
            text = "\n".join(p.text for p in document.paragraphs)
        elif mime_type == "text/plain" or mime_type in MARKDOWN_TYPES:
            text = data.decode("utf-8", errors="replace")
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
