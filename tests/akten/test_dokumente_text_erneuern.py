"""`manage.py dokumente_text_erneuern`: PDFs stored before hidden layers were left out of the text
kept the text of those layers (in the Akte's search, Helena's tools and a Mandantin's API `text`).
The command recognises the text of stored documents again as an upload does today and re-indexes
the changed ones; `--dry-run` only counts. Its output names counts and numbers, never a title or text."""

from __future__ import annotations

import contextlib
import io
import re

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from pypdf import PdfReader
from pypdf.generic import ArrayObject, DictionaryObject, NameObject, TextStringObject

from akten import services
from akten.models import Dokument
from recherche.models import Chunk
from recherche.services import dokument_index
from tests.akten.test_pdf_release_layers import (
    EBENE_SICHTBAR,
    EBENE_VERBORGEN,
    SICHTBAR,
    VERSCHACHTELT,
    _inhalt_anhaengen,
    _objekt,
    _pdf_mit_ebenen,
    _schrift,
    _seite_mit_text,
    _text,
)
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db

VERBORGEN = (EBENE_VERBORGEN, VERSCHACHTELT)
TITEL = "Ratenzahlung Mandantin Geheimtitel"


def _alter_text(pdf: bytes) -> str:
    """The text as the extraction read it before hidden layers were left out: every page's text layer."""
    return "\n\n".join(seite.extract_text() or "" for seite in PdfReader(io.BytesIO(pdf)).pages).strip()


def _mit_altem_text(akte, pdf: bytes) -> Dokument:
    """A PDF with a hidden layer as it was stored before the fix: its text and index hold the layer."""
    dokument = services.dokument_create(akte=akte, by=akte.anwalt, name=TITEL, filename="vereinbarung.pdf", content=pdf)
    alt = _alter_text(pdf)
    assert all(wort in alt for wort in VERBORGEN)  # the test sees what it looks for
    Dokument.objects.filter(pk=dokument.pk).update(text=alt)
    dokument.refresh_from_db()
    dokument_index(dokument)
    return dokument


def _aufruf(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("dokumente_text_erneuern", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def _index(dokument: Dokument) -> str:
    return "\n".join(Chunk.objects.filter(dokument=dokument).values_list("text", flat=True))


def test_the_hidden_layers_text_leaves_the_stored_text_and_the_search_index(django_capture_on_commit_callbacks):
    akte = AkteFactory()
    dokument = _mit_altem_text(akte, _pdf_mit_ebenen(grundzustand_aus=False))
    assert all(wort in _index(dokument) for wort in VERBORGEN)

    with django_capture_on_commit_callbacks(execute=True):
        ausgabe, fehler = _aufruf()

    dokument.refresh_from_db()
    assert SICHTBAR in dokument.text and EBENE_SICHTBAR in dokument.text
    assert [wort for wort in VERBORGEN if wort in dokument.text] == []
    assert dokument.text_status == Dokument.TextStatus.OK
    assert SICHTBAR in _index(dokument) and [wort for wort in VERBORGEN if wort in _index(dokument)] == []
    assert ausgabe == "1 geprüft, 1 geändert, 0 Fehler.\n" and fehler == ""
    # a second run finds nothing left to change
    assert _aufruf()[0] == "1 geprüft, 0 geändert, 0 Fehler.\n"


def test_a_dry_run_counts_and_changes_nothing(django_capture_on_commit_callbacks):
    akte = AkteFactory()
    dokument = _mit_altem_text(akte, _pdf_mit_ebenen(grundzustand_aus=True))
    vorher = dokument.text

    with django_capture_on_commit_callbacks(execute=True) as rueckrufe:
        ausgabe, _ = _aufruf("--dry-run", "--verbosity", "2")

    dokument.refresh_from_db()
    assert dokument.text == vorher and all(wort in _index(dokument) for wort in VERBORGEN)
    assert rueckrufe == []
    assert ausgabe == (
        f"Dokument {dokument.pk}: Text geändert\nProbelauf: 1 geprüft, 1 würden geändert, 0 Fehler. Nichts gespeichert.\n"
    )


def test_akte_and_nur_pdf_limit_what_is_checked():
    akte, andere = AkteFactory(), AkteFactory()
    pdf = _pdf_mit_ebenen(grundzustand_aus=False)
    hier, dort = _mit_altem_text(akte, pdf), _mit_altem_text(andere, pdf)
    notiz = services.dokument_create(
        akte=akte, by=akte.anwalt, name=TITEL, filename="notiz.txt", content="Rückruf bei Müller".encode("cp1252")
    )
    Dokument.objects.filter(pk=notiz.pk).update(text="R\ufffdckruf bei M\ufffdller")  # read as UTF-8 before
    foto = services.dokument_create(akte=akte, by=akte.anwalt, name="Foto", filename="foto.png", content=_png())

    ausgabe, _ = _aufruf("--akte", akte.aktenzeichen, "--nur-pdf")

    assert ausgabe == "1 geprüft, 1 geändert, 0 Fehler.\n"
    for dokument in (hier, dort, notiz):
        dokument.refresh_from_db()
    assert EBENE_VERBORGEN not in hier.text and EBENE_VERBORGEN in dort.text
    assert notiz.text == "R\ufffdckruf bei M\ufffdller"

    assert _aufruf("--akte", akte.aktenzeichen)[0] == "2 geprüft, 1 geändert, 0 Fehler.\n"  # the photo is skipped
    notiz.refresh_from_db()
    assert notiz.text == "Rückruf bei Müller"
    foto.refresh_from_db()
    assert foto.text_status == Dokument.TextStatus.BILD


def _png() -> bytes:
    from PIL import Image

    puffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(puffer, format="PNG")
    return puffer.getvalue()


def test_an_unknown_akte_is_a_german_error():
    with pytest.raises(CommandError, match="Eine Akte mit dem Aktenzeichen „99/99“ gibt es nicht."):
        _aufruf("--akte", "99/99")


def test_a_missing_file_is_counted_and_named_by_number_and_the_others_are_done():
    akte = AkteFactory()
    fehlt = _mit_altem_text(akte, _pdf_mit_ebenen(grundzustand_aus=False))
    da = _mit_altem_text(akte, _pdf_mit_ebenen(grundzustand_aus=False))
    fehlt.datei.storage.delete(fehlt.datei.name)
    out, err = io.StringIO(), io.StringIO()

    with pytest.raises(CommandError, match=f"Bei 1 Dokument\\(en\\) blieb der Text, wie er war: Nummer {fehlt.pk}"):
        call_command("dokumente_text_erneuern", stdout=out, stderr=err)

    assert out.getvalue() == "2 geprüft, 1 geändert, 1 Fehler.\n"
    assert err.getvalue() == f"Dokument {fehlt.pk}: Datei nicht lesbar (FileNotFoundError)\n"
    da.refresh_from_db()
    assert EBENE_VERBORGEN not in da.text
    assert TITEL not in out.getvalue() + err.getvalue()


def test_a_text_that_cannot_be_read_now_stays_as_it_was():
    """A damaged file whose text was recognised once keeps that text; a failure is reported."""
    akte = AkteFactory()
    dokument = services.dokument_create(akte=akte, by=akte.anwalt, name=TITEL, filename="notiz.txt", content=b"Vermerk")
    with dokument.datei.open("wb") as handle:
        handle.write(b"\x00\x01\x02 kaputt")

    with pytest.raises(CommandError, match="blieb der Text, wie er war"):
        _aufruf()

    dokument.refresh_from_db()
    assert dokument.text == "Vermerk" and dokument.text_status == Dokument.TextStatus.OK


def _nur_auf_verborgener_ebene() -> bytes:
    """A PDF whose only text is on a layer its default view hides."""
    writer, seite = _seite_mit_text(" ")
    intern = _objekt(writer, {"/Type": NameObject("/OCG"), "/Name": TextStringObject("Intern")})
    writer.root_object[NameObject("/OCProperties")] = DictionaryObject(
        {
            NameObject("/OCGs"): ArrayObject([intern]),
            NameObject("/D"): DictionaryObject({NameObject("/OFF"): ArrayObject([intern])}),
        }
    )
    seite["/Resources"][NameObject("/Properties")] = DictionaryObject({NameObject("/oc1"): intern})
    _inhalt_anhaengen(seite, f"/OC /oc1 BDC {_text(_schrift(seite), EBENE_VERBORGEN, 700)} EMC")
    puffer = io.BytesIO()
    writer.write(puffer)
    return puffer.getvalue()


def test_a_pdf_whose_only_text_is_hidden_loses_it():
    """No visible text is no failure to read: the hidden layer's text does not stay."""
    akte = AkteFactory()
    pdf = _nur_auf_verborgener_ebene()
    dokument = services.dokument_create(akte=akte, by=akte.anwalt, name=TITEL, filename="leer.pdf", content=pdf)
    assert dokument.text_status == Dokument.TextStatus.FEHLER  # as an upload reads it today
    Dokument.objects.filter(pk=dokument.pk).update(text=_alter_text(pdf), text_status=Dokument.TextStatus.OK, text_fehler="")

    assert _aufruf()[0] == "1 geprüft, 1 geändert, 0 Fehler.\n"

    dokument.refresh_from_db()
    assert dokument.text == "" and dokument.text_status == Dokument.TextStatus.FEHLER
    assert EBENE_VERBORGEN in _alter_text(pdf)


@contextlib.contextmanager
def _suche_verweigert_schreiben():
    """The database refuses every write to the search chunks, as it does on a full disk or a lock
    timeout: a real failure of the index, not a stand-in for its code. (The test settings run the
    embedding task at once and keep its failures in the task's result, as the task worker does: a
    failing embedding never reaches the command and leaves no old text in the chunks.)"""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION test_suche_verweigert() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION 'Suche nicht beschreibbar'; END $$"
        )
        cursor.execute(
            "CREATE TRIGGER test_suche_verweigert BEFORE INSERT OR UPDATE OR DELETE ON recherche_chunk "
            "FOR EACH ROW EXECUTE FUNCTION test_suche_verweigert()"
        )
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER test_suche_verweigert ON recherche_chunk")
            cursor.execute("DROP FUNCTION test_suche_verweigert()")


@pytest.mark.django_db(transaction=True)
def test_a_failed_index_is_an_index_error_and_the_next_run_repairs_it():
    """The text was committed before the index followed: a failed index was reported as an unreadable
    file whose text stayed (it had changed), and every later run found nothing to change while the
    hidden layer's text stayed in the search for good. Committed transactions as in production."""
    akte = AkteFactory()
    dokument = _mit_altem_text(akte, _pdf_mit_ebenen(grundzustand_aus=False))
    out, err = io.StringIO(), io.StringIO()

    with _suche_verweigert_schreiben(), pytest.raises(CommandError) as fehler:
        call_command("dokumente_text_erneuern", stdout=out, stderr=err)

    assert fehler.value.returncode == 1
    assert str(fehler.value) == (
        "Bei 1 Dokument(en) ließ sich die Suche nicht aktualisieren (Index-Fehler); ihr Text blieb, wie er war, "
        f"und wird beim nächsten Lauf erneut erkannt: Nummer {dokument.pk}"
    )
    assert out.getvalue() == "1 geprüft, 0 geändert, 0 Fehler, 1 Index-Fehler.\n"
    assert re.fullmatch(
        rf"Dokument {dokument.pk}: Index-Fehler \(\w+Error\), der neue Text ist nicht gespeichert; "
        r"der nächste Lauf versucht es wieder\n",
        err.getvalue(),
    )
    dokument.refresh_from_db()
    assert all(wort in dokument.text for wort in VERBORGEN) and all(wort in _index(dokument) for wort in VERBORGEN)

    assert _aufruf() == ("1 geprüft, 1 geändert, 0 Fehler.\n", "")

    dokument.refresh_from_db()
    assert [wort for wort in VERBORGEN if wort in dokument.text + _index(dokument)] == []
    assert SICHTBAR in dokument.text and SICHTBAR in _index(dokument)


@pytest.mark.django_db(transaction=True)
def test_a_failed_index_of_a_long_text_is_an_index_error_too(settings):
    """A text longer than HELENA_SYNC_INDEX_CHARS was left to the task worker: the command committed
    the new text, reported it as changed, and the worker's failed index kept the hidden layer's text
    in the search while every later run found the text unchanged."""
    akte = AkteFactory()
    dokument = _mit_altem_text(akte, _pdf_mit_ebenen(grundzustand_aus=False))
    settings.HELENA_SYNC_INDEX_CHARS = 10  # shorter than both the old and the new text
    out, err = io.StringIO(), io.StringIO()

    with _suche_verweigert_schreiben(), pytest.raises(CommandError) as fehler:
        call_command("dokumente_text_erneuern", stdout=out, stderr=err)

    assert fehler.value.returncode == 1
    assert out.getvalue() == "1 geprüft, 0 geändert, 0 Fehler, 1 Index-Fehler.\n"
    dokument.refresh_from_db()
    assert all(wort in dokument.text for wort in VERBORGEN)

    assert _aufruf() == ("1 geprüft, 1 geändert, 0 Fehler.\n", "")

    dokument.refresh_from_db()
    assert [wort for wort in VERBORGEN if wort in dokument.text + _index(dokument)] == []
    assert SICHTBAR in dokument.text and SICHTBAR in _index(dokument)


def test_a_stored_text_with_a_dos_end_and_control_characters_is_read_again_without_error():
    """Such a text was "no text" after the upload check read texts as it does now: every run kept
    its old text and ended with exit code 1."""
    akte = AkteFactory()
    dokument = services.dokument_create(akte=akte, by=akte.anwalt, name=TITEL, filename="notiz.txt", content=b"Vermerk")
    with dokument.datei.open("wb") as handle:
        handle.write("Rückruf\x0bbei Müller\x1b[0m erledigt\r\n\x1a".encode("cp1252"))

    assert _aufruf() == ("1 geprüft, 1 geändert, 0 Fehler.\n", "")

    dokument.refresh_from_db()
    assert dokument.text == "Rückruf\nbei Müller erledigt" and dokument.text_status == Dokument.TextStatus.OK
    assert "Müller erledigt" in _index(dokument)
