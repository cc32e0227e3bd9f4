"""Texts from Windows: a Kanzlei still receives notes saved as Windows-1252 ("Müller", "§", "€" as
0x80) and as UTF-16 with a BOM (Notepad's "Unicode"). They are accepted and read as what they say;
the stored file stays as uploaded. The rules are fixed, no guess: UTF-16 only with its BOM; otherwise
UTF-8 (a BOM is no part of the text) with every byte that is no UTF-8 read as Windows-1252, and what
Windows-1252 forms of a UTF-8 sequence by accident ("Gruß“", "«CAFÉ»") too unless the file holds a
Hebrew or Arabic word. What DOS and Windows leave in a text (Ctrl-Z at its end, a vertical tab, an
ANSI colour code, C1 characters of a bad conversion, a stray control character) is cleaned from the
text read; a NUL, more than one control character in a hundred, or control characters with nothing
to read are binary data and refused in German (akten.extraction.decode_text). Reading a text takes
memory in proportion to its size."""

from __future__ import annotations

import codecs
import io
import tracemalloc

import docx
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from akten import extraction, services
from akten.models import Dokument
from tests.akten.test_upload_types import _upload
from tests.confidentiality.world import build_world
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db

TEXT = "Rückruf bei Herrn Müller: Vorschuss 500 € nach § 9 RVG, Frist „Montag“ – erledigt"

ENCODINGS = [
    pytest.param(TEXT.encode("cp1252"), id="windows-1252"),
    pytest.param(codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), id="utf-16-le-bom"),
    pytest.param(codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), id="utf-16-be-bom"),
    pytest.param(codecs.BOM_UTF8 + TEXT.encode(), id="utf-8-bom"),
    pytest.param(TEXT.encode(), id="utf-8"),
]


@pytest.mark.parametrize("inhalt", ENCODINGS)
def test_a_text_from_windows_is_read_as_what_it_says_and_stored_as_uploaded(client, inhalt):
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, "Telefonnotiz.txt", inhalt)

    assert antwort.status_code == 201, antwort.content
    assert antwort.json()["mime_type"] == "text/plain" and antwort.json()["text_status"] == "OK"
    dokument = Dokument.objects.get(pk=antwort.json()["id"])
    assert dokument.text == TEXT
    assert client.get(reverse("api-dokument-detail", args=[dokument.pk])).json()["text"] == TEXT
    assert client.get(antwort.json()["download_url"]).content == inhalt


def test_a_latin_1_text_reads_as_windows_1252():
    assert extraction.decode_text("Grüße aus Köln, § 823 BGB".encode("latin-1")) == "Grüße aus Köln, § 823 BGB"


MIXED = [
    pytest.param(
        "Herr Müller schreibt: ".encode() + "Grüße".encode("cp1252"),
        "Herr Müller schreibt: Grüße",
        "windows-1252",
        id="utf-8-then-windows-1252",
    ),
    pytest.param(
        "Rückruf bei Herrn Müller, „Montag“ – ".encode() + "Grüße".encode("cp1252"),
        "Rückruf bei Herrn Müller, „Montag“ – Grüße",
        "utf-8",
        id="mostly-utf-8",
    ),
    pytest.param(codecs.BOM_UTF8 + "Müller".encode("cp1252"), "Müller", "utf-8", id="utf-8-bom-then-windows-1252"),
    pytest.param(codecs.BOM_UTF8 + "Grüße".encode(), "Grüße", "utf-8", id="utf-8-bom"),
    pytest.param(b"M\xfcller", "Müller", "windows-1252", id="windows-1252"),
    # "ß“" is DF 93, a valid UTF-8 sequence (an NKo letter): in a Windows text it stays "ß“"
    pytest.param(
        "Mit freundlichem „Gruß“ – daß…".encode("cp1252"),
        "Mit freundlichem „Gruß“ – daß…",
        "windows-1252",
        id="windows-1252-sharp-s-before-quote",
    ),
    # valid UTF-8 throughout, and all its non-ASCII such an accident
    pytest.param("Mit freundlichem Gruß“".encode("cp1252"), "Mit freundlichem Gruß“", "windows-1252", id="only-gruss"),
    # "É»" is C9 BB and "É“" C9 93: IPA letters in UTF-8 ("«CAFɻ")
    pytest.param("«CAFÉ»".encode("cp1252"), "«CAFÉ»", "windows-1252", id="windows-1252-cafe-in-guillemets"),
    pytest.param("„RÉSUMÉ“ – Müller".encode("cp1252"), "„RÉSUMÉ“ – Müller", "windows-1252", id="windows-1252-resume"),
    pytest.param(
        "Herr Müller notiert: ".encode() + "«CAFÉ»".encode("cp1252"),
        "Herr Müller notiert: «CAFÉ»",
        "windows-1252",
        id="utf-8-then-windows-1252-cafe",
    ),
    # Hebrew and Arabic letters are two-byte sequences like "ß“": in a file with words of them they stay
    pytest.param(
        "שלום, בית המשפט ב-2020, Herr Müller schreibt: ".encode() + "Grüße".encode("cp1252"),
        "שלום, בית המשפט ב-2020, Herr Müller schreibt: Grüße",
        "utf-8",
        id="hebrew-utf-8-then-windows-1252",
    ),
    pytest.param(
        "مرحبا و شكرا، Herr Müller: ".encode() + "Grüße".encode("cp1252"),
        "مرحبا و شكرا، Herr Müller: Grüße",
        "utf-8",
        id="arabic-utf-8-then-windows-1252",
    ),
]


@pytest.mark.parametrize(("inhalt", "text", "charset"), MIXED)
def test_a_utf_8_text_with_a_few_windows_bytes_keeps_its_utf_8_and_the_bom_is_no_text(client, inhalt, text, charset):
    """A note written in UTF-8 into which Windows-1252 was pasted read whole as Windows-1252
    ("Herr MÃ¼ller"), a UTF-8 BOM before Windows-1252 bytes as "ï»¿Müller". The download names the
    charset of the greater part of its non-ASCII characters: no charset shows a mixed file right."""
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, "Notiz.txt", inhalt)

    assert antwort.status_code == 201, antwort.content
    assert Dokument.objects.get(pk=antwort.json()["id"]).text == text
    download = client.get(antwort.json()["download_url"])
    assert download.content == inhalt and download["Content-Type"] == f"text/plain; charset={charset}"


# What DOS, Word's text export, terminals and bad conversions leave in a text; the stored file keeps it
WINDOWS_UND_DOS = [
    pytest.param(TEXT.encode("cp1252") + b"\r\n\x1a", TEXT, id="dos-ctrl-z-at-the-end"),
    pytest.param(TEXT.encode() + b"\r\n" + b"\x1a" * 60, TEXT, id="cp-m-ctrl-z-padding"),
    pytest.param(
        "Sehr geehrter Herr Müller,\x0bwie besprochen".encode("cp1252"),
        "Sehr geehrter Herr Müller,\nwie besprochen",
        id="vertical-tab",
    ),
    pytest.param(b"\x1b[1;31mEILT:\x1b[0m " + TEXT.encode(), f"EILT: {TEXT}", id="ansi-escape"),
    # no escape sequence: ESC "[" and a space do not take the word that follows
    pytest.param(b"Vermerk \x1b[ Geheim", "Vermerk  [ Geheim", id="escape-bracket-space"),
    # NEL (U+0085) in UTF-8 is a line break; a Windows byte 0x85 is "…" ("daß…" above)
    pytest.param("Zeile 1\u0085Zeile 2".encode(), "Zeile 1\nZeile 2", id="utf-8-next-line"),
    pytest.param("Zitat \x84Montag\x93 \x96 500 \x80".encode(), "Zitat „Montag“ – 500 €", id="utf-8-c1-of-windows-1252"),
    pytest.param("Rückruf\x1aMüller\x1f erledigt".encode("cp1252"), "Rückruf Müller  erledigt", id="stray-control-characters"),
]


@pytest.mark.parametrize(("inhalt", "text"), WINDOWS_UND_DOS)
def test_what_dos_and_windows_leave_in_a_text_is_cleaned_from_the_text_read(client, inhalt, text):
    """A text from DOS or Windows with a Ctrl-Z, a vertical tab, an ANSI colour code or C1 characters
    was refused as binary; Ctrl-Z inside a text does not end it (an editor shows what follows)."""
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, "Notiz.txt", inhalt)

    assert antwort.status_code == 201, antwort.content
    assert Dokument.objects.get(pk=antwort.json()["id"]).text == text
    assert client.get(antwort.json()["download_url"]).content == inhalt


@pytest.mark.parametrize(("inhalt", "text"), WINDOWS_UND_DOS)
def test_a_released_text_stored_with_such_characters_stays_readable(inhalt, text):
    """Stored and released before the upload check refused such texts: the Mandantin's download
    answered 409 and the letterhead 400."""
    world = build_world()
    dokument = services.dokument_create(
        akte=world.akte, by=world.lawyer, name="Notiz", filename="notiz.txt", content=b"Vermerk", mandant_sichtbar=True
    )
    with dokument.datei.open("wb") as handle:
        handle.write(inhalt)
    mandantin, kanzlei = Client(), Client()
    mandantin.force_login(world.mandantin)
    kanzlei.force_login(world.lawyer)

    download = mandantin.get(reverse("api-dokument-download", args=[dokument.pk]))
    brief = kanzlei.get(reverse("api-dokument-datei", args=[dokument.pk, "docx"]))

    assert download.status_code == 200 and download.content == inhalt
    assert brief.status_code == 200, brief.content
    absaetze = "\n".join(p.text for p in docx.Document(io.BytesIO(brief.content)).paragraphs)
    assert text.split()[-1] in absaetze and "\x1b" not in absaetze and "[0m" not in absaetze


BINARY = [
    pytest.param(bytes(range(256)) * 4, id="binary-with-nul"),
    pytest.param(b"\x7fELF\x02\x01\x01" + bytes(range(1, 32)) + b"\xe4\xf6\xfc", id="binary-without-nul"),
    pytest.param("Rückruf bei Müller".encode("utf-16-le"), id="utf-16-without-bom"),
    pytest.param(codecs.BOM_UTF16_LE + bytes(range(1, 200)), id="utf-16-bom-then-binary"),
    pytest.param(b"\xff\xfe" + b"\x00\xd8" + b"A\x00", id="utf-16-bom-unpaired-surrogate"),
    pytest.param("Rückruf bei Müller".encode("utf-32"), id="utf-32-with-bom"),
    pytest.param("Rückruf bei Müller".encode("utf-32-be"), id="utf-32-be-without-bom"),
    pytest.param("Rückruf bei Müller\x00".encode("cp1252"), id="text-with-nul"),
    pytest.param(("Rückruf bei Müller " * 10).encode() + bytes(range(1, 9)) * 3, id="text-then-control-characters"),
    # fewer control characters than make a text binary, but nothing to read
    pytest.param(b"\x01\x02\x03", id="only-control-characters"),
    pytest.param(b"\x1b\x07\r\n", id="only-escape-and-bell"),
]


@pytest.mark.parametrize("inhalt", BINARY)
def test_binary_data_named_txt_is_refused_in_german(client, inhalt):
    akte = AkteFactory()
    client.force_login(akte.anwalt)

    antwort = _upload(client, akte, "notiz.txt", inhalt, "text/plain")

    assert antwort.status_code == 400, antwort.content
    assert antwort.json()["datei"].startswith(
        "Die Datei „notiz.txt“ wird nicht angenommen: sie ist keine Textdatei, die Helena lesen kann "
        "(UTF-8, UTF-16 mit BOM oder Windows-1252); speichere den Text als UTF-8 oder als PDF."
    )
    assert not Dokument.objects.filter(akte=akte).exists()


def test_tabs_line_breaks_and_form_feeds_are_text():
    assert extraction.decode_text(b"Seite 1\tA\r\nB\nC\fSeite 2") == "Seite 1\tA\r\nB\nC\fSeite 2"


def test_a_windows_markdown_file_is_set_on_the_letterhead_with_its_umlauts(client):
    """Word and PDF of a Markdown or text document read the file as the extraction does."""
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    antwort = _upload(client, akte, "vermerk.md", "# Vermerk Müller\n\nVorschuss 500 € nach § 9 RVG".encode("cp1252"))
    assert antwort.status_code == 201, antwort.content

    datei = client.get(reverse("api-dokument-datei", args=[antwort.json()["id"], "docx"]))

    assert datei.status_code == 200, datei.content
    absaetze = [p.text for p in docx.Document(io.BytesIO(datei.content)).paragraphs]
    assert "Vermerk Müller" in absaetze and "Vorschuss 500 € nach § 9 RVG" in absaetze


def test_a_utf_16_text_can_be_released_and_the_mandantin_reads_its_text():
    """The release check read a text by its NUL bytes: a UTF-16 note could not be released."""
    world = build_world()
    inhalt = codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le")

    dokument = services.dokument_create(
        akte=world.akte, by=world.lawyer, name="Notiz", filename="notiz.txt", content=inhalt, mandant_sichtbar=True
    )

    client = Client()
    client.force_login(world.mandantin)
    assert client.get(reverse("api-dokument-detail", args=[dokument.pk])).json()["text"] == TEXT
    assert client.get(reverse("api-dokument-download", args=[dokument.pk])).content == inhalt


def test_an_e_mail_part_with_an_unknown_charset_is_read_like_an_uploaded_text(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    mail = (
        b"From: a@b.de\r\nSubject: Anfrage\r\nMIME-Version: 1.0\r\n"
        b"Content-Type: text/plain; charset=x-unbekannt\r\n\r\n" + "Grüße von Müller, 500 € nach § 9 RVG".encode("cp1252")
    )

    antwort = _upload(client, akte, "Anfrage.eml", mail)

    assert antwort.status_code == 201, antwort.content
    assert "Grüße von Müller, 500 € nach § 9 RVG" in Dokument.objects.get(pk=antwort.json()["id"]).text


CHARSETS = [
    pytest.param(TEXT.encode("cp1252"), "windows-1252", id="windows-1252"),
    pytest.param(codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"), "utf-16", id="utf-16-le-bom"),
    pytest.param(codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"), "utf-16", id="utf-16-be-bom"),
    pytest.param(codecs.BOM_UTF8 + TEXT.encode(), "utf-8", id="utf-8-bom"),
    pytest.param(TEXT.encode(), "utf-8", id="utf-8"),
]


def _gelesen(antwort) -> str:
    """The downloaded text as a browser reads it: by the charset of its Content-Type."""
    charset = antwort["Content-Type"].partition("charset=")[2]
    return antwort.content.decode(charset).lstrip("\ufeff")


@pytest.mark.parametrize(("inhalt", "charset"), CHARSETS)
@pytest.mark.parametrize(("name", "mime"), [("Telefonnotiz.txt", "text/plain"), ("Vermerk.md", "text/markdown")])
def test_the_download_of_a_text_names_the_charset_it_was_stored_in(client, inhalt, charset, name, mime):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    antwort = _upload(client, akte, name, inhalt)
    assert antwort.status_code == 201, antwort.content

    download = client.get(antwort.json()["download_url"])

    assert download["Content-Type"] == f"{mime}; charset={charset}"
    assert download.content == inhalt and _gelesen(download) == TEXT


@pytest.mark.parametrize(("inhalt", "charset"), CHARSETS[:3])
def test_the_mandantin_s_download_of_a_released_text_names_its_charset(inhalt, charset):
    world = build_world()
    dokument = services.dokument_create(
        akte=world.akte, by=world.lawyer, name="Notiz", filename="notiz.txt", content=inhalt, mandant_sichtbar=True
    )
    client = Client()
    client.force_login(world.mandantin)

    download = client.get(reverse("api-dokument-download", args=[dokument.pk]))

    assert download.status_code == 200
    assert download["Content-Type"] == f"text/plain; charset={charset}" and _gelesen(download) == TEXT


def test_the_download_of_an_earlier_version_of_a_text_names_its_charset(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    inhalt = TEXT.encode("cp1252")
    antwort = _upload(client, akte, "Telefonnotiz.txt", inhalt)
    assert antwort.status_code == 201, antwort.content
    pk = antwort.json()["id"]
    neu = codecs.BOM_UTF16_LE + "Rückruf erledigt".encode("utf-16-le")
    versionen = client.post(reverse("api-dokument-versionen", args=[pk]), {"datei": SimpleUploadedFile("notiz-neu.txt", neu)})
    assert versionen.status_code == 201, versionen.content

    erste = client.get(reverse("api-dokument-version", args=[pk, 1]))
    zweite = client.get(reverse("api-dokument-version", args=[pk, 2]))

    assert erste["Content-Type"] == "text/plain; charset=windows-1252" and _gelesen(erste) == TEXT
    assert zweite["Content-Type"] == "text/plain; charset=utf-16" and _gelesen(zweite) == "Rückruf erledigt"


def test_a_file_that_is_no_text_keeps_its_type():
    from akten.extraction import download_content_type

    assert download_content_type(b"%PDF-1.7\n", "application/pdf") == "application/pdf"
    # a text file stored before the upload check read texts as it does now: no charset is guessed
    assert download_content_type(bytes(range(256)), "text/plain") == "text/plain"
    assert extraction.text_charset(bytes(range(256))) is None


def _zaehle_lesungen(monkeypatch) -> list[bytes]:
    """The files `decode_text`'s decoding reads from now on (text_charset's last answer forgotten)."""
    gelesen: list[bytes] = []
    lesen = extraction._decode_text

    def zaehlen(data):
        gelesen.append(data)
        return lesen(data)

    monkeypatch.setattr(extraction, "_decode_text", zaehlen)
    monkeypatch.setattr(extraction, "_ZEICHENSATZ_ZULETZT", [(b"", None)], raising=False)
    return gelesen


def test_a_download_reads_the_text_once(monkeypatch):
    """The Mandantin's download read a released text twice: for the release check and again for the
    charset of the Content-Type (a 25 MB text twice the work); staff download it reading it once."""
    world = build_world()
    inhalt = TEXT.encode("cp1252")
    dokument = services.dokument_create(
        akte=world.akte, by=world.lawyer, name="Notiz", filename="notiz.txt", content=inhalt, mandant_sichtbar=True
    )
    mandantin, kanzlei = Client(), Client()
    mandantin.force_login(world.mandantin)
    kanzlei.force_login(world.lawyer)

    gelesen = _zaehle_lesungen(monkeypatch)
    download = mandantin.get(reverse("api-dokument-download", args=[dokument.pk]))
    assert download.status_code == 200 and download["Content-Type"] == "text/plain; charset=windows-1252"
    assert gelesen == [inhalt]

    gelesen = _zaehle_lesungen(monkeypatch)
    download = kanzlei.get(reverse("api-dokument-download", args=[dokument.pk]))
    assert download.status_code == 200 and download["Content-Type"] == "text/plain; charset=windows-1252"
    assert gelesen == [inhalt]


_MB = 1024 * 1024
_DEUTSCH = "Herr Müller schreibt über die Kündigung, § 9 RVG „Montag“ – erledigt.\n"
GROSSE_DATEIEN = [
    pytest.param((_DEUTSCH * (5 * _MB // len(_DEUTSCH))).encode() + b"Gr\xfc\xdfe", id="utf-8-and-one-windows-byte"),
    pytest.param((_DEUTSCH * (5 * _MB // len(_DEUTSCH))).encode(), id="utf-8"),
    pytest.param(("שלום עולם, مرحبا بالعالم " * (5 * _MB // 45)).encode() + b"\xfc", id="hebrew-arabic-and-one-windows-byte"),
    pytest.param(_DEUTSCH.encode("cp1252") * (5 * _MB // len(_DEUTSCH)), id="windows-1252"),
    pytest.param(b"a\x80" * (5 * _MB // 2), id="windows-byte-after-every-letter"),
    pytest.param(b"\x01" * 5 * _MB, id="control-characters"),
]


@pytest.mark.parametrize("inhalt", GROSSE_DATEIEN)
def test_reading_a_large_text_takes_memory_in_proportion_to_its_size(inhalt, monkeypatch):
    """A UTF-8 text with one Windows byte took about 90 bytes of memory per byte of the file (at the
    upload limit of 25 MB 2.3 GB), a Windows text a list of its pieces and a file of control
    characters a list of them. Reading takes a few times the file's size: the text itself is up to
    twice it („ “ – € take two bytes a character), the decoder's buffer grows to that once."""
    monkeypatch.setattr(extraction, "_ZEICHENSATZ_ZULETZT", [(b"", None)], raising=False)
    tracemalloc.start()
    try:
        extraction.decode_text(inhalt)
        extraction.text_charset(inhalt)
        _, spitze = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert spitze < 6 * len(inhalt)


def test_a_windows_text_longer_than_a_chunk_keeps_the_utf_8_character_at_its_end():
    """The bytes after a Windows byte are read in chunks: a UTF-8 lead byte at a chunk's end is read
    with its continuation byte, as one character."""
    laenge = extraction._STRECKE_HOECHSTENS
    inhalt = b"\xfc" + b"a" * (laenge - 2) + "ü".encode() + b"\xfc"

    assert extraction.decode_text(inhalt) == "ü" + "a" * (laenge - 2) + "üü"


@pytest.mark.parametrize(
    "text",
    [
        "Raumtemperatur 20˚C",  # CB 9A: the ring a Mac types for degrees
        "Kyivʼs Gericht",  # CA BC
        "Aussprache [ʃ]",  # CA 83
        "Buchstabe א",  # D7 90
        "„Gruß“ – daß… «CAFÉ»",  # UTF-8 throughout
    ],
)
def test_a_utf_8_text_with_one_rare_character_stays_utf_8(text):
    """Only a letter before a Windows quote, dash, ellipsis or guillemet is one that Windows-1252 text
    forms by accident; a UTF-8 file whose one non-ASCII character is another stays UTF-8."""
    assert extraction.decode_text(text.encode()) == text
    assert extraction.text_charset(text.encode()) == "utf-8"
