"""A firm template may carry other files: an Excel table pasted as object (OLE, or an embedded
workbook package), in the text or in the letterhead, or an ActiveX control with its data. Their own
authors, comments and figures would travel inside every document generated from it, and a released
document with them is refused. A generated document carries none of them: the object stays as its
picture, the file goes; so the draft can be released to the Mandantin."""

from __future__ import annotations

import io
import zipfile

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from docx.opc.constants import RELATIONSHIP_TYPE as RT
from docx.opc.packuri import PackURI
from docx.opc.part import Part
from lxml import etree

from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from akten.models import Dokument, DokumentVorlage
from tests.agent.tools.conftest import run_call
from tests.factories import AgentRunFactory
from tests.schriftgut.helpers import akte_mit_parteien, docx_text, kanzlei

pytestmark = pytest.mark.django_db

XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
OLE = "application/vnd.openxmlformats-officedocument.oleObject"
ACTIVEX_DATEN = "http://schemas.microsoft.com/office/2006/relationships/activeXControlBinary"
GEHEIM = b"Honorarkalkulation Dr. Katrin Privat"
NS = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office" '
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"'
)


def _mappe() -> bytes:
    """An .xlsx with its author and a cell comment (the parts that matter)."""
    puffer = io.BytesIO()
    with zipfile.ZipFile(puffer, "w", zipfile.ZIP_DEFLATED) as archiv:
        archiv.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types/>')
        archiv.writestr("xl/workbook.xml", '<?xml version="1.0"?><workbook/>')
        archiv.writestr("xl/comments1.xml", b"<comments><text>" + GEHEIM + b"</text></comments>")
    return puffer.getvalue()


def _bild() -> bytes:
    from PIL import Image

    puffer = io.BytesIO()
    Image.new("RGB", (60, 20), (200, 200, 200)).save(puffer, format="PNG")
    return puffer.getvalue()


def _objekt(part, nummer: int, datei: bytes, typ: str, reltype: str, prog_id: str):
    """A paragraph holding an embedded object as Word writes it: its picture (VML) and the file."""
    paket = part.package
    bild = part.relate_to(Part(PackURI(f"/word/media/objektbild{nummer}.png"), "image/png", _bild(), paket), RT.IMAGE)
    endung = "xlsx" if typ == XLSX else "bin"
    datei_rid = part.relate_to(Part(PackURI(f"/word/embeddings/objekt{nummer}.{endung}"), typ, datei, paket), reltype)
    return etree.fromstring(
        f'<w:p {NS}><w:r><w:object w:dxaOrig="1440" w:dyaOrig="480">'
        f'<v:shape id="_x0000_i10{nummer}" type="#_x0000_t75" style="width:72pt;height:24pt">'
        f'<v:imagedata r:id="{bild}" o:title=""/></v:shape>'
        f'<o:OLEObject Type="Embed" ProgID="{prog_id}" ShapeID="_x0000_i10{nummer}" DrawAspect="Content" '
        f'ObjectID="_17000000{nummer}" r:id="{datei_rid}"/></w:object></w:r></w:p>'
    )


def _steuerelement(part):
    """An ActiveX control (a check box): its picture, its description part and, behind that, its data."""
    paket = part.package
    bild = part.relate_to(Part(PackURI("/word/media/steuerelement.png"), "image/png", _bild(), paket), RT.IMAGE)
    beschreibung = Part(
        PackURI("/word/activeX/activeX1.xml"),
        "application/vnd.ms-office.activeX+xml",
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
        b'<ax:ocx xmlns:ax="http://schemas.microsoft.com/office/2006/activeX" '
        b'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" '
        b'ax:classid="{8BD21D40-EC42-11CE-9E0D-00AA006002F3}" ax:persistence="persistStorage" r:id="rId1"/>',
        paket,
    )
    beschreibung.rels.add_relationship(
        ACTIVEX_DATEN, Part(PackURI("/word/activeX/activeX1.bin"), "application/vnd.ms-office.activeX", GEHEIM, paket), "rId1"
    )
    steuerung = part.relate_to(beschreibung, RT.CONTROL)
    return etree.fromstring(
        f'<w:p {NS}><w:r><w:object w:dxaOrig="225" w:dyaOrig="225">'
        f'<v:shape id="_x0000_i1099" type="#_x0000_t75" style="width:12pt;height:12pt">'
        f'<v:imagedata r:id="{bild}" o:title=""/></v:shape>'
        f'<w:control r:id="{steuerung}" w:name="CheckBox1" w:shapeid="_x0000_i1099"/></w:object></w:r></w:p>'
    )


def _vorlage_mit_objekten() -> bytes:
    document = docx.Document()
    document.add_paragraph("Schreiben an {{ mandant }}")
    document.add_paragraph("{{p freitext }}")
    body = document.element.body
    body.insert(len(body) - 1, _objekt(document.part, 1, _mappe(), XLSX, RT.PACKAGE, "Excel.Sheet.12"))
    body.insert(len(body) - 1, _objekt(document.part, 2, b"\xd0\xcf\x11\xe0" + GEHEIM, OLE, RT.OLE_OBJECT, "Excel.Sheet.8"))
    body.insert(len(body) - 1, _steuerelement(document.part))
    kopf = document.sections[0].header
    kopf.paragraphs[0].text = "Kanzlei-Briefkopf"
    kopf._element.append(_objekt(kopf.part, 3, _mappe(), XLSX, RT.PACKAGE, "Excel.Sheet.12"))
    puffer = io.BytesIO()
    document.save(puffer)
    return puffer.getvalue()


def _beziehungen_und_typen(word: bytes) -> tuple[list[str], list[str]]:
    """Every relationship type and every part's content type of the Word file."""
    paket = docx.Document(io.BytesIO(word)).part.package
    arten = [rel.reltype for quelle in (paket, *paket.iter_parts()) for rel in quelle.rels.values()]
    return arten, [part.content_type for part in paket.iter_parts()]


def test_a_document_from_a_template_with_embedded_files_carries_none_of_them(settings):
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True  # the tool reads this test's transaction
    kanzlei()
    akte = akte_mit_parteien()
    inhalt = _vorlage_mit_objekten()
    arten, typen = _beziehungen_und_typen(inhalt)
    assert RT.PACKAGE in arten and RT.OLE_OBJECT in arten and RT.CONTROL in arten and XLSX in typen  # the template holds them
    vorlage = DokumentVorlage(name="Anschreiben mit Tabelle", datei=SimpleUploadedFile("a.docx", inhalt))
    vorlage.full_clean()
    vorlage.save()
    run = AgentRunFactory(user=akte.anwalt, akte=akte)
    box = toolbox_for(ToolContext(user=akte.anwalt, akte=akte, run=run))
    ergebnis = run_call(
        box,
        "create_draft_dokument",
        {"titel": "Info", "vorlage": str(vorlage.pk), "inhalt_markdown": "Stand der Sache.", "mandant_sichtbar": True},
    )
    assert ergebnis.ok, ergebnis.error
    client = Client()
    client.force_login(akte.anwalt)

    word = client.get(f"/api/drafts/{ergebnis.data['draft_id']}/datei/docx/")

    assert word.status_code == 200
    arten, typen = _beziehungen_und_typen(word.content)
    assert not [art for art in arten if art.endswith(("/package", "/oleObject", "/control", "/activeXControlBinary"))]
    assert XLSX not in typen and OLE not in typen and not [typ for typ in typen if "activeX" in typ]
    with zipfile.ZipFile(io.BytesIO(word.content)) as archiv:
        namen = archiv.namelist()
        alles = b"".join(archiv.read(name) for name in namen)
    assert not [name for name in namen if "embeddings" in name] and GEHEIM not in alles
    assert b"OLEObject" not in alles and b"w:control" not in alles and b"w:object" not in alles
    # what the page shows stays: the objects' pictures, the text, the letterhead
    assert sum(name.startswith("word/media/") for name in namen) >= 3 and alles.count(b"v:imagedata") == 4
    text = docx_text(word.content)
    assert "Schreiben an Erika Mustermann" in text and "Stand der Sache." in text and "Kanzlei-Briefkopf" in text
    assert client.get(f"/api/drafts/{ergebnis.data['draft_id']}/datei/pdf/").status_code == 200

    angenommen = client.post(f"/api/drafts/{ergebnis.data['draft_id']}/accept/", {"version": 0}, content_type="application/json")
    assert angenommen.status_code == 200, angenommen.content.decode()
    dokument = Dokument.objects.get(akte=akte)
    assert dokument.mandant_sichtbar
