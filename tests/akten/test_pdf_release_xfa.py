"""A released PDF can carry text its pages never show: an XFA form (its template and its data, which
only Adobe Reader reads), and in the structure tree for screen readers the replacement text of
content (/ActualText), alternative descriptions (/Alt), expansions of abbreviations (/E) and titles
(/T), also in the marked content of the page itself. The Mandantin's copy holds none of it: the XFA
goes, replacement texts and expansions go (a screen reader reads the page's own text), and a
figure's description becomes the neutral „Abbildung“; the structure itself stays (headings, reading
order, language), so the file stays accessible. A dynamic XFA form, whose pages are empty without
the XFA, cannot be released at all."""

from __future__ import annotations

import io
import re
import zlib

import pytest
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    BooleanObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)

from tests.confidentiality.test_released_files import _download, _released, _released_before_the_check
from tests.confidentiality.test_released_files_hidden_parts import _pdf_roh
from tests.confidentiality.world import build_world

pytestmark = pytest.mark.django_db

SICHTBAR = "Vereinbarung zur Ratenzahlung"
XFA_VORLAGE = "XFA Vorlage Honorar intern 350"
XFA_DATEN = "Vergleichsgrenze 12000 nicht nennen"
ERSATZTEXT = "ActualText Mandantin wirkt unglaubwuerdig"
BESCHREIBUNG = "Alt Notiz Anruf Gegenseite vertraulich"
ABKUERZUNG = "Expansion Verhandlungsspielraum 9000"
TITEL = "Titel Entwurf Dr. Katrin Privat"
MARKIERT = "Markierter Inhalt Rueckruf nicht vor Freitag"
EIGENSCHAFT = "Eigenschaft Akte 99/25 Anders"
GEHEIM = (XFA_VORLAGE, XFA_DATEN, ERSATZTEXT, BESCHREIBUNG, ABKUERZUNG, TITEL, MARKIERT, EIGENSCHAFT)


def _stream(writer: PdfWriter, inhalt: bytes):
    stream = StreamObject()
    stream.set_data(inhalt)
    return writer._add_object(stream.flate_encode())


def _element(writer: PdfWriter, typ: str, eltern, seite, **eintraege):
    element = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/StructElem"),
            NameObject("/S"): NameObject(typ),
            NameObject("/P"): eltern,
            NameObject("/Pg"): seite,
            **{NameObject(f"/{k}"): v for k, v in eintraege.items()},
        }
    )
    return writer._add_object(element)


def _pdf_mit_xfa_und_struktur(*, dynamisch: bool) -> bytes:
    fpdf = FPDF()
    fpdf.add_page()
    fpdf.set_font("Helvetica", size=12)
    fpdf.cell(text=SICHTBAR)
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(bytes(fpdf.output()))))
    wurzel, seite = writer.root_object, writer.pages[0]
    xfa = ArrayObject(
        [
            TextStringObject("template"),
            _stream(
                writer, f"<template><subform><draw><value><text>{XFA_VORLAGE}</text></value></draw></subform></template>".encode()
            ),
            TextStringObject("datasets"),
            _stream(writer, f"<xfa:datasets><xfa:data><notiz>{XFA_DATEN}</notiz></xfa:data></xfa:datasets>".encode()),
        ]
    )
    wurzel[NameObject("/AcroForm")] = writer._add_object(
        DictionaryObject({NameObject("/Fields"): ArrayObject(), NameObject("/XFA"): xfa})
    )
    wurzel[NameObject("/NeedsRendering")] = BooleanObject(dynamisch)  # a static form says so too

    # marked content on the page: an inline property list and a named one from the resources
    inhalt = seite["/Contents"].get_object()
    inhalt.set_data(
        f"/P <</MCID 0 /ActualText ({MARKIERT}) /E (Abk.)>> BDC\n".encode() + inhalt.get_data() + b"\nEMC\n/Span /MC1 BDC\nEMC\n"
    )
    # resources written into the page, as many producers do
    ressourcen = DictionaryObject(seite["/Resources"].get_object())
    ressourcen[NameObject("/Properties")] = DictionaryObject(
        {NameObject("/MC1"): DictionaryObject({NameObject("/ActualText"): TextStringObject(EIGENSCHAFT)})}
    )
    seite[NameObject("/Resources")] = ressourcen
    seite[NameObject("/StructParents")] = NumberObject(0)

    baum = writer._add_object(DictionaryObject({NameObject("/Type"): NameObject("/StructTreeRoot")}))
    dokument = _element(writer, "/Document", baum, seite.indirect_reference, Lang=TextStringObject("de-DE"))
    absatz = _element(
        writer, "/Absatz", dokument, seite.indirect_reference, K=NumberObject(0), ActualText=TextStringObject(ERSATZTEXT)
    )
    bild = _element(writer, "/Figure", dokument, seite.indirect_reference, Alt=TextStringObject(BESCHREIBUNG))
    kurz = _element(
        writer, "/Span", dokument, seite.indirect_reference, E=TextStringObject(ABKUERZUNG), T=TextStringObject(TITEL)
    )
    dokument.get_object()[NameObject("/K")] = ArrayObject([absatz, bild, kurz])
    baum.get_object().update(
        {
            NameObject("/K"): dokument,
            NameObject("/RoleMap"): DictionaryObject({NameObject("/Absatz"): NameObject("/P")}),
            NameObject("/ParentTree"): DictionaryObject(
                {NameObject("/Nums"): ArrayObject([NumberObject(0), ArrayObject([absatz])])}
            ),
        }
    )
    wurzel[NameObject("/StructTreeRoot")] = baum
    wurzel[NameObject("/MarkInfo")] = DictionaryObject({NameObject("/Marked"): BooleanObject(True)})
    puffer = io.BytesIO()
    writer.write(puffer)
    return puffer.getvalue()


def _alle_bytes(pdf: bytes) -> str:
    """The file's bytes and every stream in it inflated, whether or not the cross-reference table
    still points at it."""
    teile = [pdf]
    for treffer in re.finditer(rb"stream\r?\n", pdf):
        try:
            teile.append(zlib.decompressobj().decompress(pdf[treffer.end() :]))
        except zlib.error:
            continue
    return b"\n".join(teile).decode("latin-1")


def test_a_released_pdf_loses_its_xfa_and_the_hidden_texts_of_its_structure_tree():
    world = build_world()
    original = _pdf_mit_xfa_und_struktur(dynamisch=False)
    assert all(geheim in _pdf_roh(original) for geheim in GEHEIM)  # the file holds them
    dokument = _released(world, "vereinbarung.pdf", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    roh, alles = _pdf_roh(antwort.content), _alle_bytes(antwort.content)
    for geheim in (*GEHEIM, "/XFA", "/ActualText", "/E (", "/T ("):
        assert geheim not in roh, geheim
    assert not [geheim for geheim in GEHEIM if geheim in alles]
    reader = PdfReader(io.BytesIO(antwort.content))
    assert SICHTBAR in reader.pages[0].extract_text()
    # what serves a screen reader stays: the tree, its types and language, a figure announced as one
    baum = reader.trailer["/Root"]["/StructTreeRoot"]
    dokument_element = baum["/K"]
    assert dokument_element["/S"] == "/Document" and dokument_element["/Lang"] == "de-DE"
    absatz, bild, kurz = (kind.get_object() for kind in dokument_element["/K"])
    assert absatz["/K"] == 0 and baum["/RoleMap"]["/Absatz"] == "/P"
    assert bild["/Alt"] == "Abbildung" and "/Alt" not in kurz
    assert reader.trailer["/Root"]["/MarkInfo"]["/Marked"]
    assert b"BDC" in reader.pages[0].get_contents().get_data()  # the marked content stays marked
    assert _download(world.lawyer, dokument).content == original  # the Akte's record stays as uploaded


def test_a_dynamic_xfa_form_cannot_be_released():
    world = build_world()
    original = _pdf_mit_xfa_und_struktur(dynamisch=True)

    with pytest.raises(ValueError, match="XFA"):
        _released(world, "formular.pdf", original)
    frueher = _released_before_the_check(world, "formular.pdf", original)
    antwort = _download(world.mandantin, frueher)
    assert antwort.status_code == 409 and not [g for g in GEHEIM if g.encode() in antwort.content]
