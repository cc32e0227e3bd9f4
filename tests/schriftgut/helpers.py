"""Shared setup: a Kanzleiprofil with letterhead and an Akte with parties and court."""

from __future__ import annotations

import datetime
import io
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import docx
from pypdf import PdfReader

from akten.models import Akte, Beteiligter, KanzleiProfil, Kontakt
from tests.factories import AkteFactory, BeteiligterFactory, KontaktFactory, UserFactory

# A firm with many lawyers: with a logo its letterhead would reach far into the DIN address field.
VIELE_PARTNER = "\n".join(
    (
        "Dr. Katrin Müller, Fachanwältin für Mietrecht",
        "Jonas Becker, Fachanwalt für Arbeitsrecht",
        "Prof. Dr. Anna Schulz, LL.M., Fachanwältin für Familienrecht",
        "Mehmet Yilmaz, Fachanwalt für Verkehrsrecht",
        "Dr. Julia Wagner, Fachanwältin für Erbrecht",
        "Lukas Hoffmann, Fachanwalt für Steuerrecht",
        "Sophie Klein, Rechtsanwältin",
        "Dr. Felix Wolf, Fachanwalt für Bau- und Architektenrecht",
        "Marie Schröder, Rechtsanwältin",
        "Paul Neumann, Rechtsanwalt",
    )
)


def logo_png(breite: int = 300, hoehe: int = 120) -> bytes:
    from PIL import Image

    puffer = io.BytesIO()
    Image.new("RGB", (breite, hoehe), "navy").save(puffer, format="PNG")
    return puffer.getvalue()


def kanzlei(*, logo: bool = False, partner: str | None = None) -> KanzleiProfil:
    """The Kanzleiprofil of the tests; `logo` adds a logo, `partner` replaces the two partners (e.g.
    VIELE_PARTNER for a tall letterhead)."""
    from django.core.files.base import ContentFile

    profil = KanzleiProfil(
        name="Kanzlei Müller & Becker",
        partner="Dr. Katrin Müller, Fachanwältin für Mietrecht\nJonas Becker" if partner is None else partner,
        strasse="Friedrichstraße 100",
        plz="10117",
        ort="Berlin",
        sitz_ort="Berlin",
        sitz_bundesland="BE",
        telefon="030 1234567",
        email="kanzlei@kanzlei.example",
        bank_name="Berliner Volksbank",
        iban="DE89 3704 0044 0532 0130 00",
        bic="BEVODEBBXXX",
        ust_id="DE123456789",
        kammer="Rechtsanwaltskammer Berlin",
    )
    if logo:
        profil.logo.save("logo.png", ContentFile(logo_png()), save=False)
    profil.full_clean()
    profil.save()
    return profil


def akte_mit_parteien(**kwargs: object) -> Akte:
    anwalt = UserFactory(first_name="Katrin", last_name="Müller")
    akte = AkteFactory(
        anwalt=anwalt,
        aktenzeichen="12/26",
        kurzrubrum="Mustermann ./. Schmidt",
        wegen="Mietzahlung",
        gegenstandswert=Decimal("5400.00"),
        gericht_name="Amtsgericht Tempelhof-Kreuzberg",
        gericht_ort="Berlin",
        gericht_bundesland="BE",
        gericht_aktenzeichen="7 C 123/26",
        **kwargs,
    )
    mandantin = KontaktFactory(
        anrede="Frau", vorname="Erika", nachname="Mustermann", strasse="Musterweg 1", plz="10115", ort="Berlin"
    )
    gegner = KontaktFactory(anrede="Herr", vorname="Hans", nachname="Schmidt", strasse="Hauptstraße 5", plz="10827", ort="Berlin")
    BeteiligterFactory(akte=akte, kontakt=mandantin, rolle=Beteiligter.Rolle.MANDANT)
    BeteiligterFactory(akte=akte, kontakt=gegner, rolle=Beteiligter.Rolle.GEGNER)
    return akte


def docx_text(data: bytes) -> str:
    """All text of a DOCX: body paragraphs, tables, headers and footers (python-docx)."""
    document = docx.Document(io.BytesIO(data))
    teile = [p.text for p in document.paragraphs]
    for table in document.tables:
        teile += [cell.text for row in table.rows for cell in row.cells]
    for section in document.sections:
        for hf in (section.header, section.first_page_header, section.footer, section.first_page_footer):
            teile += [p.text for p in hf.paragraphs]
    return "\n".join(teile)


def pdf_text(data: bytes) -> str:
    return "\n".join(page.extract_text() or "" for page in PdfReader(io.BytesIO(data)).pages)


MM_PRO_PT = 25.4 / 72


@dataclass(frozen=True)
class Textstelle:
    """A piece of text drawn on a PDF page: its start (x) and baseline (y) in mm from the page's
    left and top edge, and its font size in pt."""

    text: str
    x: float
    y: float
    groesse: float


def zeilen_positionen(data: bytes, seite: int = 0) -> list[Textstelle]:
    """The text pieces of page `seite` of a PDF with their positions (pypdf's text visitor)."""
    page = PdfReader(io.BytesIO(data)).pages[seite]
    hoehe = float(page.mediabox.height)
    stellen: list[Textstelle] = []

    def merken(text, cm, tm, font, size):  # noqa: ANN001 - pypdf's visitor signature
        if not text.strip():
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        stellen.append(Textstelle(text.strip(), x * MM_PRO_PT, (hoehe - y) * MM_PRO_PT, float(size)))

    page.extract_text(visitor_text=merken)
    return stellen


__all__ = [
    "VIELE_PARTNER",
    "Kontakt",
    "Textstelle",
    "logo_png",
    "akte_mit_parteien",
    "docx_text",
    "kanzlei",
    "pdf_text",
    "zeilen_positionen",
]


def mit_fussnoten(word: bytes, fussnoten_xml: str, *, nach: bytes = b"", verweis: str = "") -> bytes:
    """`word` with a footnotes part (`fussnoten_xml`) and, after the text `nach` of document.xml, a
    reference to footnote `verweis`: a part python-docx keeps as bytes, as Word writes it."""
    import zipfile

    aus = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(word)) as ein, zipfile.ZipFile(aus, "w", zipfile.ZIP_DEFLATED) as ziel:
        for info in ein.infolist():
            daten = ein.read(info.filename)
            if info.filename == "[Content_Types].xml":
                daten = daten.replace(
                    b"</Types>",
                    b'<Override PartName="/word/footnotes.xml" ContentType="application/vnd.openxmlformats-'
                    b'officedocument.wordprocessingml.footnotes+xml"/></Types>',
                )
            if info.filename == "word/_rels/document.xml.rels":
                daten = daten.replace(
                    b"</Relationships>",
                    b'<Relationship Id="rIdFn" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/'
                    b'footnotes" Target="footnotes.xml"/></Relationships>',
                )
            if info.filename == "word/document.xml" and nach:
                daten = daten.replace(nach, nach + f'<w:r><w:footnoteReference w:id="{verweis}"/></w:r>'.encode())
            ziel.writestr(info, daten)
        ziel.writestr("word/footnotes.xml", fussnoten_xml)
    return aus.getvalue()


def kostennote_fuer(*nummern: str) -> Any:
    """The payload of a Kostennote over 5.400 € with the fees `nummern` (Nr. VV RVG, default the
    Verfahrensgebühr 3100), ordered on 1 July 2025, for work from July to November 2025."""
    from drafts.schemas import KostennotePayload
    from rechner import rvg
    from schriftgut.kostennote import ART_KOSTENNOTE, kostennote_payload

    berechnung = rvg.calculate(
        gegenstandswert=Decimal("5400"),
        auftragsdatum=datetime.date(2025, 7, 1),
        positions=[rvg.PositionRequest(nummer) for nummer in nummern or ("3100",)],
    )
    return KostennotePayload.model_validate(
        kostennote_payload(
            berechnung=berechnung,
            art=ART_KOSTENNOTE,
            gegenstandswert=Decimal("5400.00"),
            leistungszeitraum_von=datetime.date(2025, 7, 1),
            leistungszeitraum_bis=datetime.date(2025, 11, 30),
        )
    )
