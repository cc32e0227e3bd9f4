"""Text extraction from uploaded documents (PDF, DOCX, plain text, Markdown)."""

from __future__ import annotations

import io

MARKDOWN_TYPES = {"text/markdown", "text/x-markdown"}
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
SUPPORTED_TYPES = {"application/pdf", DOCX_TYPE, "text/plain", *MARKDOWN_TYPES}

ERR_UNSUPPORTED = "Dateityp {mime} wird für die Texterkennung nicht unterstützt."
ERR_EMPTY = "Die Datei enthält keinen erkennbaren Text (z. B. ein gescanntes PDF ohne Texterkennung)."
ERR_BROKEN = "Die Datei konnte nicht gelesen werden: {reason}"
ERR_ENCRYPTED = "Das PDF ist verschlüsselt (Passwortschutz); bitte lade es ohne Passwortschutz hoch."


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
    }
    for suffix, mime in by_suffix.items():
        if name.endswith(suffix):
            return mime
    return declared or "application/octet-stream"


def extract_text(data: bytes, mime_type: str) -> str:
    """Return the plain text of a document; raises ExtractionError with a German reason."""
    try:
        if mime_type == "application/pdf":
            from pypdf import PdfReader

            reader = PdfReader(io.BytesIO(data))
            # PDFs that only restrict permissions open with the empty password; real ones do not.
            if reader.is_encrypted and not reader.decrypt(""):
                raise ExtractionError(ERR_ENCRYPTED)
            text = "\n\n".join((page.extract_text() or "") for page in reader.pages)
        elif mime_type == DOCX_TYPE:
            import docx

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
