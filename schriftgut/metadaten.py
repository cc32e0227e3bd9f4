"""What a generated Word file says about itself besides its text.

A firm template is often an old letter saved as template: its core properties (author, last
editor, comments, subject, keywords), its extended properties (company, manager, the Word template
it was based on), custom properties, SharePoint metadata (customXml), Word comments and tracked
changes still name the colleague who wrote it, or the client it was written for. None of that may
reach a court, an opponent or another client: every generated document leaves with metadata of
its own (the Kanzlei as author, the document's title, the time it was made) and nothing else.
"""

from __future__ import annotations

import datetime

from docx.document import Document as DocxDocument
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.oxml.ns import qn
from docx.oxml.xmlchemy import BaseOxmlElement
from lxml import etree

_CP = "http://schemas.openxmlformats.org/package/2006/metadata/core-properties"
_DC = "http://purl.org/dc/elements/1.1/"
_DCTERMS = "http://purl.org/dc/terms/"
_XSI = "http://www.w3.org/2001/XMLSchema-instance"
# Package parts that only describe the file, its history or its people; Word needs none of them.
_BESCHREIBENDE_BEZIEHUNGEN = frozenset(
    {
        RT.EXTENDED_PROPERTIES,
        RT.CUSTOM_PROPERTIES,
        RT.CUSTOM_XML,
        RT.COMMENTS,
        RT.THUMBNAIL,
        # The path of the .dotm on the author's machine ("C:\\Users\\kmueller\\…").
        "http://schemas.openxmlformats.org/officeDocument/2006/relationships/attachedTemplate",
        "http://schemas.microsoft.com/office/2011/relationships/commentsExtended",
        "http://schemas.microsoft.com/office/2016/09/relationships/commentsIds",
        "http://schemas.microsoft.com/office/2018/08/relationships/commentsExtensible",
        "http://schemas.microsoft.com/office/2011/relationships/people",
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
    )
)
# Revision marks whose content is the current text: keep the content, drop the mark (and its author).
_AUFLOESEN = (qn("w:ins"), qn("w:moveTo"))
# Settings that point at the author's machine (attached .dotm path) or hold hidden variables.
_EINSTELLUNGEN = (qn("w:attachedTemplate"), qn("w:docVars"))


def _bereinigen(element: BaseOxmlElement) -> None:
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


def metadaten_setzen(docx: DocxDocument, *, titel: str, autor: str, jetzt: datetime.datetime) -> None:
    """Replace everything `docx` says about its origin with the Kanzlei (`autor`), `titel` and
    `jetzt`; drop comments, tracked changes, custom and extended properties."""
    package = docx.part.package
    for quelle in (package, *package.iter_parts()):
        for rid, rel in list(quelle.rels.items()):
            if rel.reltype in _BESCHREIBENDE_BEZIEHUNGEN:
                del quelle.rels[rid]
                quelle.rels._target_parts_by_rId.pop(rid, None)
    for part in package.iter_parts():
        element = getattr(part, "element", None)
        if element is not None and part.partname.startswith("/word/"):
            _bereinigen(element)
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
        kind.text = text
        if tag.startswith(f"{{{_DCTERMS}}}"):
            kind.set(f"{{{_XSI}}}type", "dcterms:W3CDTF")
