"""A released PDF can carry text that the Kanzlei never saw on its pages: content on a layer (optional
content) that the document's default configuration switches off, forms and annotations on such a
layer, annotations marked hidden, a hidden form field's value, the layers' names; application data of
Illustrator or Word (/PieceInfo), XMP of a page, user properties and element IDs of the structure tree
and article threads with their titles. None of it reaches the Mandantin: what the firm's staff saw in
the default view stays, as it looked (also with the colour a hidden layer set), and everything else
goes; the layers themselves go, so that what she sees cannot depend on her viewer. The invisible text
that OCR lays over a scanned page stays: it is what the picture shows."""

from __future__ import annotations

import io

import pytest
from django.urls import reverse
from fpdf import FPDF
from pypdf import PdfReader, PdfWriter
from pypdf.generic import (
    ArrayObject,
    BooleanObject,
    DictionaryObject,
    FloatObject,
    NameObject,
    NumberObject,
    StreamObject,
    TextStringObject,
)

from tests.akten.test_pdf_release_xfa import _alle_bytes
from tests.confidentiality.test_released_files import _download, _released
from tests.confidentiality.test_released_files_hidden_parts import _pdf_roh
from tests.confidentiality.world import build_world

pytestmark = pytest.mark.django_db

SICHTBAR = "Vereinbarung zur Ratenzahlung"
EBENE_SICHTBAR = "Anlage K1 Kontoauszug"
FARBIG = "Zahlungsplan in Blau"
OCMD_SICHTBAR = "Rate 250 monatlich"
FELD_SICHTBAR = "Unterschrift Mandantin"

EBENE_VERBORGEN = "Ebene intern Mandantin zahlt nie"
VERSCHACHTELT = "Verschachtelt Vergleich bis 9000"
FORM_MIT_EBENE = "Formular Ebene Honorar 350 pro Stunde"
FORM_IN_EBENE = "Formular in Ebene Rueckruf Gegenseite"
ANNOTATION_EBENE = "Textfeld Ebene Notiz Dr. Katrin Privat"
OCMD_VERBORGEN = "OCMD Richter voreingenommen"
NUTZUNG = "Ansicht aus Sekretariat Schulz"
ANNOTATION_VERSTECKT = "Versteckte Anmerkung Akte 99/25 Anders"
FELD_VERSTECKT = "Verstecktes Feld Streitwert intern 48000"
EBENENNAME = "Ebenenname Notizen Privat"
GEHEIM_EBENEN = (
    EBENE_VERBORGEN,
    VERSCHACHTELT,
    FORM_MIT_EBENE,
    FORM_IN_EBENE,
    ANNOTATION_EBENE,
    OCMD_VERBORGEN,
    NUTZUNG,
    ANNOTATION_VERSTECKT,
    FELD_VERSTECKT,
    EBENENNAME,
)

NUTZEREIGENSCHAFT = "Kostenstelle Mandat Privat GmbH"
KLASSE = "Klasse Bearbeiterin Schulz"
ELEMENT_ID = "ID Entwurf Vergleich 9000"
ANWENDUNGSDATEN = "Illustrator privat Honorarnote"
SEITEN_XMP = "XMP Seite Dr. Katrin Privat"
ARTIKEL = "Artikel Gegenseite luegt"
GEHEIM_ANGABEN = (NUTZEREIGENSCHAFT, KLASSE, ELEMENT_ID, ANWENDUNGSDATEN, SEITEN_XMP, ARTIKEL)

OCR_TEXT = "Amtsgericht Koeln Beschluss"


def _seite_mit_text(text: str) -> tuple[PdfWriter, DictionaryObject]:
    fpdf = FPDF()
    fpdf.add_page()
    fpdf.set_font("Helvetica", size=12)
    fpdf.cell(text=text)
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(bytes(fpdf.output()))))
    seite = writer.pages[0]
    seite[NameObject("/Resources")] = DictionaryObject(seite["/Resources"].get_object())
    return writer, seite


def _schrift(seite) -> str:
    return next(iter(seite["/Resources"]["/Font"]))


def _text(schrift: str, text: str, y: int) -> str:
    return f"BT {schrift} 12 Tf 72 {y} Td ({text}) Tj ET"


def _inhalt_anhaengen(seite, inhalt: str) -> None:
    stream = seite["/Contents"].get_object()
    stream.set_data(stream.get_data() + b"\n" + inhalt.encode("latin-1"))


def _objekt(writer: PdfWriter, eintraege: dict):
    return writer._add_object(DictionaryObject({NameObject(k): v for k, v in eintraege.items()}))


def _formular(writer: PdfWriter, seite, inhalt: str, **eintraege):
    form = StreamObject()
    form.set_data(inhalt.encode("latin-1"))
    form.update(
        {
            NameObject("/Type"): NameObject("/XObject"),
            NameObject("/Subtype"): NameObject("/Form"),
            NameObject("/BBox"): ArrayObject([NumberObject(0), NumberObject(0), NumberObject(595), NumberObject(842)]),
            NameObject("/Resources"): DictionaryObject({NameObject("/Font"): seite["/Resources"]["/Font"]}),
            **{NameObject(f"/{k}"): v for k, v in eintraege.items()},
        }
    )
    return writer._add_object(form)


def _annotation(writer: PdfWriter, subtype: str, **eintraege):
    return _objekt(
        writer,
        {
            "/Type": NameObject("/Annot"),
            "/Subtype": NameObject(subtype),
            "/Rect": ArrayObject([FloatObject(v) for v in (72, 500, 300, 520)]),
            **{f"/{k}": v for k, v in eintraege.items()},
        },
    )


def _pdf_mit_ebenen(*, grundzustand_aus: bool) -> bytes:
    """A page with layers: `intern` hidden in the default configuration (listed as OFF, or not
    listed as ON when the base state is OFF), `anlage` shown, `ansicht` switched on but hidden on
    opening by its view usage; content on them directly, nested, in forms, in annotations and
    through membership dictionaries; further a hidden note and a hidden form field."""
    writer, seite = _seite_mit_text(SICHTBAR)
    schrift = _schrift(seite)
    intern = _objekt(writer, {"/Type": NameObject("/OCG"), "/Name": TextStringObject(EBENENNAME)})
    anlage = _objekt(writer, {"/Type": NameObject("/OCG"), "/Name": TextStringObject("Anlagen")})
    ansicht = _objekt(
        writer,
        {
            "/Type": NameObject("/OCG"),
            "/Name": TextStringObject("Bildschirm"),
            "/Usage": DictionaryObject({NameObject("/View"): DictionaryObject({NameObject("/ViewState"): NameObject("/OFF")})}),
        },
    )
    alle_aus = _objekt(  # visible: `intern` is off
        writer, {"/Type": NameObject("/OCMD"), "/OCGs": ArrayObject([intern]), "/P": NameObject("/AllOff")}
    )
    beide = _objekt(  # hidden: `intern` is off
        writer, {"/Type": NameObject("/OCMD"), "/VE": ArrayObject([NameObject("/And"), anlage, intern])}
    )
    konfiguration = (
        {"/BaseState": NameObject("/OFF"), "/ON": ArrayObject([anlage, ansicht])}
        if grundzustand_aus
        else {"/OFF": ArrayObject([intern])}
    )
    konfiguration["/AS"] = ArrayObject(
        [
            DictionaryObject(
                {
                    NameObject("/Event"): NameObject("/View"),
                    NameObject("/OCGs"): ArrayObject([ansicht]),
                    NameObject("/Category"): ArrayObject([NameObject("/View")]),
                }
            )
        ]
    )
    konfiguration["/Order"] = ArrayObject([intern, anlage, ansicht])
    writer.root_object[NameObject("/OCProperties")] = DictionaryObject(
        {
            NameObject("/OCGs"): ArrayObject([intern, anlage, ansicht]),
            NameObject("/D"): DictionaryObject({NameObject(k): v for k, v in konfiguration.items()}),
        }
    )

    form_mit_ebene = _formular(writer, seite, _text(schrift, FORM_MIT_EBENE, 600), OC=intern)
    form_in_ebene = _formular(writer, seite, _text(schrift, FORM_IN_EBENE, 580))
    ressourcen = seite["/Resources"]
    ressourcen[NameObject("/Properties")] = DictionaryObject(
        {
            NameObject("/oc1"): intern,
            NameObject("/oc2"): anlage,
            NameObject("/oc3"): ansicht,
            NameObject("/oc4"): alle_aus,
            NameObject("/oc5"): beide,
        }
    )
    ressourcen[NameObject("/XObject")] = DictionaryObject({NameObject("/Fm1"): form_mit_ebene, NameObject("/Fm2"): form_in_ebene})
    _inhalt_anhaengen(
        seite,
        "\n".join(
            (
                # the hidden layer sets the colour the visible text after it is drawn in
                f"/OC /oc1 BDC 0 0 1 rg {_text(schrift, EBENE_VERBORGEN, 700)} EMC",
                _text(schrift, FARBIG, 690),
                f"/OC /oc2 BDC {_text(schrift, EBENE_SICHTBAR, 680)}",
                f"/OC /oc1 BDC /Span <</MCID 3>> BDC {_text(schrift, VERSCHACHTELT, 670)} EMC EMC",
                "EMC",
                "/Fm1 Do",
                "/OC /oc1 BDC /Fm2 Do EMC",
                f"/OC /oc3 BDC {_text(schrift, NUTZUNG, 660)} EMC",
                f"/OC /oc4 BDC {_text(schrift, OCMD_SICHTBAR, 650)} EMC",
                f"/OC /oc5 BDC {_text(schrift, OCMD_VERBORGEN, 640)} EMC",
            )
        ),
    )

    auf_ebene = _annotation(writer, "/FreeText", Contents=TextStringObject(ANNOTATION_EBENE), OC=intern)
    versteckt = _annotation(writer, "/FreeText", Contents=TextStringObject(ANNOTATION_VERSTECKT), F=NumberObject(2))
    # a link that switches the hidden layer on would keep it, with its name, in the file
    schalter = _annotation(
        writer,
        "/Link",
        A=DictionaryObject(
            {
                NameObject("/S"): NameObject("/SetOCGState"),
                NameObject("/State"): ArrayObject([NameObject("/ON"), intern]),
            }
        ),
    )
    # a field whose only widget is hidden: its value is in the field, not in the widget
    feld_versteckt = _objekt(
        writer, {"/FT": NameObject("/Tx"), "/T": TextStringObject("streitwert"), "/V": TextStringObject(FELD_VERSTECKT)}
    )
    widget_versteckt = _annotation(writer, "/Widget", Parent=feld_versteckt, F=NumberObject(2), P=seite.indirect_reference)
    feld_versteckt.get_object()[NameObject("/Kids")] = ArrayObject([widget_versteckt])
    feld_sichtbar = _annotation(
        writer,
        "/Widget",
        FT=NameObject("/Tx"),
        T=TextStringObject("unterschrift"),
        V=TextStringObject(FELD_SICHTBAR),
        P=seite.indirect_reference,
    )
    seite[NameObject("/Annots")] = ArrayObject([auf_ebene, versteckt, schalter, widget_versteckt, feld_sichtbar])
    writer.root_object[NameObject("/AcroForm")] = DictionaryObject(
        {NameObject("/Fields"): ArrayObject([feld_versteckt, feld_sichtbar])}
    )
    puffer = io.BytesIO()
    writer.write(puffer)
    return puffer.getvalue()


@pytest.mark.parametrize("grundzustand_aus", [False, True], ids=["ebene-aus", "grundzustand-aus"])
def test_a_released_pdf_loses_what_its_default_view_hides_and_keeps_what_it_shows(grundzustand_aus):
    world = build_world()
    original = _pdf_mit_ebenen(grundzustand_aus=grundzustand_aus)
    assert all(geheim in _pdf_roh(original) for geheim in GEHEIM_EBENEN)  # the file holds them
    dokument = _released(world, "vereinbarung.pdf", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    alles = _alle_bytes(antwort.content)
    assert [geheim for geheim in GEHEIM_EBENEN if geheim in alles] == []
    assert "/OCProperties" not in alles and "/OCG" not in alles and "/OC " not in alles
    reader = PdfReader(io.BytesIO(antwort.content))
    text = reader.pages[0].extract_text()
    for sichtbar in (SICHTBAR, EBENE_SICHTBAR, FARBIG, OCMD_SICHTBAR):
        assert sichtbar in text, sichtbar
    # the colour set on the hidden layer still colours the text after it, as the firm saw it
    inhalt = reader.pages[0].get_contents().get_data().decode("latin-1")
    assert inhalt.index("0 0 1 rg") < inhalt.index(FARBIG)
    # the visible field stays a field with its value; the note and the hidden field's page entry go
    assert reader.get_fields()["unterschrift"]["/V"] == FELD_SICHTBAR and "streitwert" not in reader.get_fields()
    assert [a.get_object()["/Subtype"] for a in reader.pages[0]["/Annots"]] == ["/Link", "/Widget"]
    assert "/A" not in reader.pages[0]["/Annots"][0].get_object()
    assert _download(world.lawyer, dokument).content == original  # the Akte's record stays as uploaded


def _pdf_mit_angaben() -> bytes:
    """A tagged page with user properties and IDs in its structure tree, application data on the
    page and the catalog, XMP on the page and an article thread."""
    writer, seite = _seite_mit_text(SICHTBAR)
    wurzel = writer.root_object
    eigenschaften = ArrayObject(
        [
            DictionaryObject(
                {NameObject("/N"): TextStringObject("Kostenstelle"), NameObject("/V"): TextStringObject(NUTZEREIGENSCHAFT)}
            )
        ]
    )
    baum = _objekt(writer, {"/Type": NameObject("/StructTreeRoot")})
    absatz = _objekt(
        writer,
        {
            "/Type": NameObject("/StructElem"),
            "/S": NameObject("/P"),
            "/P": baum,
            "/Pg": seite.indirect_reference,
            "/ID": TextStringObject(ELEMENT_ID),
            "/C": NameObject("/Bearbeitung"),
            "/A": ArrayObject(
                [
                    DictionaryObject({NameObject("/O"): NameObject("/Layout"), NameObject("/TextAlign"): NameObject("/Center")}),
                    NumberObject(0),
                    DictionaryObject({NameObject("/O"): NameObject("/UserProperties"), NameObject("/P"): eigenschaften}),
                    NumberObject(0),
                ]
            ),
        },
    )
    baum.get_object().update(
        {
            NameObject("/K"): absatz,
            NameObject("/IDTree"): DictionaryObject({NameObject("/Names"): ArrayObject([TextStringObject(ELEMENT_ID), absatz])}),
            NameObject("/ClassMap"): DictionaryObject(
                {
                    NameObject("/Bearbeitung"): DictionaryObject(
                        {
                            NameObject("/O"): NameObject("/UserProperties"),
                            NameObject("/P"): ArrayObject(
                                [
                                    DictionaryObject(
                                        {NameObject("/N"): TextStringObject("Von"), NameObject("/V"): TextStringObject(KLASSE)}
                                    )
                                ]
                            ),
                        }
                    )
                }
            ),
        }
    )
    wurzel[NameObject("/StructTreeRoot")] = baum
    wurzel[NameObject("/MarkInfo")] = DictionaryObject(
        {NameObject("/Marked"): BooleanObject(True), NameObject("/UserProperties"): BooleanObject(True)}
    )
    anwendungsdaten = DictionaryObject(
        {
            NameObject("/Illustrator"): DictionaryObject(
                {
                    NameObject("/LastModified"): TextStringObject("D:20250101120000Z"),
                    NameObject("/Private"): DictionaryObject({NameObject("/Notiz"): TextStringObject(ANWENDUNGSDATEN)}),
                }
            )
        }
    )
    wurzel[NameObject("/PieceInfo")] = anwendungsdaten
    seite[NameObject("/PieceInfo")] = anwendungsdaten.clone(writer)
    xmp = StreamObject()
    xmp.set_data(f'<x:xmpmeta xmlns:x="adobe:ns:meta/"><dc:creator>{SEITEN_XMP}</dc:creator></x:xmpmeta>'.encode())
    xmp.update({NameObject("/Type"): NameObject("/Metadata"), NameObject("/Subtype"): NameObject("/XML")})
    seite[NameObject("/Metadata")] = writer._add_object(xmp)
    faden = _objekt(
        writer, {"/Type": NameObject("/Thread"), "/I": DictionaryObject({NameObject("/Title"): TextStringObject(ARTIKEL)})}
    )
    perle = _objekt(
        writer,
        {
            "/Type": NameObject("/Bead"),
            "/T": faden,
            "/P": seite.indirect_reference,
            "/R": ArrayObject([FloatObject(v) for v in (72, 600, 300, 760)]),
        },
    )
    perle.get_object().update({NameObject("/N"): perle, NameObject("/V"): perle})
    faden.get_object()[NameObject("/F")] = perle
    wurzel[NameObject("/Threads")] = ArrayObject([faden])
    seite[NameObject("/B")] = ArrayObject([perle])
    # a link jumping to the article would keep it, with its title, in the file
    seite[NameObject("/Annots")] = ArrayObject(
        [
            _annotation(
                writer,
                "/Link",
                A=DictionaryObject({NameObject("/S"): NameObject("/Thread"), NameObject("/D"): faden}),
            )
        ]
    )
    puffer = io.BytesIO()
    writer.write(puffer)
    return puffer.getvalue()


def test_a_released_pdf_loses_user_properties_ids_application_data_and_articles():
    world = build_world()
    original = _pdf_mit_angaben()
    assert all(geheim in _pdf_roh(original) for geheim in GEHEIM_ANGABEN)
    dokument = _released(world, "vereinbarung.pdf", original)

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    alles = _alle_bytes(antwort.content)
    assert [geheim for geheim in GEHEIM_ANGABEN if geheim in alles] == []
    for schluessel in ("/UserProperties", "/IDTree", "/PieceInfo", "/Threads", "/Bead"):
        assert schluessel not in alles, schluessel
    reader = PdfReader(io.BytesIO(antwort.content))
    assert SICHTBAR in reader.pages[0].extract_text()
    katalog = reader.trailer["/Root"]
    assert katalog["/MarkInfo"]["/Marked"]
    # the structure for screen readers stays: the element, its class and its layout attribute
    absatz = katalog["/StructTreeRoot"]["/K"]
    assert absatz["/S"] == "/P" and absatz["/C"] == "/Bearbeitung"
    assert [attribut["/O"] for attribut in absatz["/A"] if isinstance(attribut, DictionaryObject)] == ["/Layout"]


def test_the_invisible_ocr_text_of_a_scanned_page_stays_searchable():
    """OCR lays the recognised text over the picture of the scan in render mode 3 (invisible): it is
    what the picture shows, so it stays, and the Mandantin can search and copy her scanned letter."""
    world = build_world()
    writer, seite = _seite_mit_text(SICHTBAR)
    _inhalt_anhaengen(seite, f"BT 3 Tr {_schrift(seite)} 12 Tf 72 700 Td ({OCR_TEXT}) Tj ET")
    puffer = io.BytesIO()
    writer.write(puffer)
    dokument = _released(world, "scan.pdf", puffer.getvalue())

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200
    assert OCR_TEXT in PdfReader(io.BytesIO(antwort.content)).pages[0].extract_text()


def test_pages_sharing_a_content_stream_with_a_hidden_layer_keep_their_own_and_the_shared_text():
    """Producers write a letterhead once and list it in every page's contents, each page's contents
    an array of streams: the hidden layer goes from every page, the letterhead and the page's own
    text stay on each."""
    fpdf = FPDF()
    fpdf.set_font("Helvetica", size=12)
    for text in ("Seite eins", "Seite zwei"):
        fpdf.add_page()
        fpdf.cell(text=text)
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(bytes(fpdf.output()))))
    intern = _objekt(writer, {"/Type": NameObject("/OCG"), "/Name": TextStringObject("Intern")})
    writer.root_object[NameObject("/OCProperties")] = DictionaryObject(
        {
            NameObject("/OCGs"): ArrayObject([intern]),
            NameObject("/D"): DictionaryObject({NameObject("/OFF"): ArrayObject([intern])}),
        }
    )
    schrift = _schrift(writer.pages[0])
    briefkopf = StreamObject()
    briefkopf.set_data(f"/OC /oc1 BDC {_text(schrift, EBENE_VERBORGEN, 760)} EMC {_text(schrift, SICHTBAR, 780)}".encode())
    geteilt = writer._add_object(briefkopf)
    for seite in writer.pages:
        seite[NameObject("/Resources")] = DictionaryObject(seite["/Resources"].get_object())
        seite["/Resources"][NameObject("/Properties")] = DictionaryObject({NameObject("/oc1"): intern})
        seite[NameObject("/Contents")] = ArrayObject([geteilt, seite.raw_get("/Contents")])
    puffer = io.BytesIO()
    writer.write(puffer)
    world = build_world()
    dokument = _released(world, "brief.pdf", puffer.getvalue())

    antwort = _download(world.mandantin, dokument)

    assert antwort.status_code == 200 and EBENE_VERBORGEN not in _alle_bytes(antwort.content)
    seiten = [seite.extract_text() for seite in PdfReader(io.BytesIO(antwort.content)).pages]
    assert len(seiten) == 2
    for seite, eigener_text in zip(seiten, ("Seite eins", "Seite zwei"), strict=True):
        assert SICHTBAR in seite and eigener_text in seite


def test_the_text_of_a_pdf_with_layers_is_what_its_default_view_shows(client):
    """The Mandantin's API `text` of a released PDF (and the Akte's search, Helena's tools) came from
    the original's text layer, hidden layers included: the download was clean, the text was not."""
    world = build_world()
    dokument = _released(world, "vereinbarung.pdf", _pdf_mit_ebenen(grundzustand_aus=False))

    for wer in (world.mandantin, world.lawyer):
        client.force_login(wer)
        text = client.get(reverse("api-dokument-detail", args=[dokument.pk])).json()["text"]
        assert SICHTBAR in text and EBENE_SICHTBAR in text
        assert [geheim for geheim in (EBENE_VERBORGEN, VERSCHACHTELT, OCMD_VERBORGEN) if geheim in text] == []
