"""Shared setup: a Kanzleiprofil with letterhead and an Akte with parties and court."""

from __future__ import annotations

import io
from decimal import Decimal

import docx
from pypdf import PdfReader

from akten.models import Akte, Beteiligter, KanzleiProfil, Kontakt
from tests.factories import AkteFactory, BeteiligterFactory, KontaktFactory, UserFactory


def kanzlei() -> KanzleiProfil:
    profil = KanzleiProfil(
        name="Kanzlei Müller & Becker",
        partner="Dr. Katrin Müller, Fachanwältin für Mietrecht\nJonas Becker",
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


__all__ = ["Kontakt", "akte_mit_parteien", "docx_text", "kanzlei", "pdf_text"]


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
