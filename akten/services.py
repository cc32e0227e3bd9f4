"""Writes of the Kanzlei domain. Every write records an AktenActivity with its actor."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.db import transaction
from django.db.models import Sum
from django.http import Http404
from django.utils import timezone

from .extraction import (
    DATEIARTEN,
    EMAIL,
    ERR_EMPTY,
    JPEG,
    MARKDOWN,
    MARKDOWN_TYPES,
    OLE_SIGNATURE,
    PDF,
    WORD,
    Dateiart,
    ExtractionError,
    decode_text,
    email_parse,
    extract_text,
    has_pdf_header,
    inhalt_art,
)
from .fristen_rules import wiedervorlage_hinweis
from .metadaten import freigabe_pruefen
from .models import (
    Akte,
    AktenActivity,
    Beteiligter,
    Dokument,
    KalenderEintrag,
    Kontakt,
    Notiz,
    Role,
    User,
    Zeiterfassung,
)
from .policy import sees_internal
from .signals import dokument_saved

if TYPE_CHECKING:
    from agent.models import AgentRun

ERR_FILE_TOO_LARGE = "Die Datei ist zu groß (höchstens {limit} MB)."
ERR_FILE_EMPTY = "Die Datei ist leer."

# The kinds of file an Akte holds and their signatures: akten.extraction.DATEIARTEN, the one table of
# this check and the release cleaning (akten.metadaten).
_ART_NACH_ENDUNG = {endung: art for art in DATEIARTEN for endung in art.endungen}
_ART_NACH_TYP = (
    {art.mime_type: art for art in DATEIARTEN}
    | {typ: MARKDOWN for typ in MARKDOWN_TYPES}
    | {"image/jpg": JPEG, "image/pjpeg": JPEG, "application/x-pdf": PDF, "message/eml": EMAIL}
)
# An extension is a letter and up to nine letters or digits after the last dot, in one case
# ("Klage vom 03.05.2026" and "Brief an Dr.Schulze" have none; ".PDF" and ".pdf" are one).
_ENDUNG = re.compile(r"\.(?:[a-z][a-z0-9]{0,9}|[A-Z][A-Z0-9]{0,9})$")

ERLAUBTE_DATEIARTEN = "PDF, Word (.docx), Text (.txt), Markdown (.md), E-Mails (.eml) und Bilder (JPEG, PNG, TIFF, WebP)"
ERR_DATEI_ABGELEHNT = "Die Datei „{datei}“ wird nicht angenommen: {grund}. Erlaubt sind " + ERLAUBTE_DATEIARTEN + "."
GRUND_ENDUNG = "Dateien mit der Endung „{endung}“ nimmt Helena nicht auf; speichere sie zum Beispiel als PDF"
GRUND_OUTLOOK = (
    "Outlook-Nachrichten (.msg) nimmt Helena nicht auf; speichere die E-Mail als .eml (z. B. in Outlook im Web: "
    "„Herunterladen“) oder drucke sie als PDF"
)
GRUND_OHNE_ENDUNG = "ihr Name hat keine Endung, und ihr Inhalt ist keine der erlaubten Arten"
GRUND_HEIC = (
    "HEIC-Fotos (iPhone) nimmt Helena nicht auf; speichere das Foto als JPEG (am iPhone: Einstellungen → Kamera → "
    "Formate → „Maximale Kompatibilität“, oder beim Senden „Als JPEG“)"
)
GRUND_INHALT = "laut {quelle} ist sie {erwartet}, ihr Inhalt ist aber {gefunden}"
GRUND_WORD_ALT = (
    "sie ist verschlüsselt (Kennwortschutz) oder im alten Word-Format (.doc); speichere sie ohne Kennwort als .docx oder als PDF"
)
GRUND_KEIN_TEXT = (
    "sie ist keine Textdatei, die Helena lesen kann (UTF-8, UTF-16 mit BOM oder Windows-1252); "
    "speichere den Text als UTF-8 oder als PDF"
)
GRUND_KEINE_EMAIL = "sie ist keine E-Mail im Format .eml (Absender, Empfänger, Datum oder Betreff fehlen)"
GRUND_BESONDERS = {".msg": GRUND_OUTLOOK, ".heic": GRUND_HEIC, ".heif": GRUND_HEIC}
QUELLE_NAME = "Name"
QUELLE_TYP = "angegebenem Dateityp"
ANDERER_INHALT = "etwas anderes"


def _inhalt_passt_nicht(art: Dateiart, content: bytes, quelle: str) -> str | None:
    """Why `content` is not of the kind `art` its name (or declared type) says, or None."""
    gefunden = inhalt_art(content)
    if gefunden is art:
        return None
    if art is PDF and gefunden is None and has_pdf_header(content):
        return None
    if art is EMAIL:
        return None if gefunden is None and email_parse(content) is not None else GRUND_KEINE_EMAIL
    if art is WORD and content.startswith(OLE_SIGNATURE):
        return GRUND_WORD_ALT
    if art.text and gefunden is None:
        return None if decode_text(content) is not None else GRUND_KEIN_TEXT
    return GRUND_INHALT.format(quelle=quelle, erwartet=art.ist, gefunden=gefunden.ist if gefunden else ANDERER_INHALT)


def dokument_datei_pruefen(*, filename: str, content: bytes, mime_type: str | None = None) -> tuple[str, str]:
    """The MIME type and the file name `content` is stored under, if an Akte holds it (`DATEIARTEN`).

    Its kind is what its name's extension says, for a name without one its declared `mime_type` or,
    when that names none of them (browsers send application/octet-stream), what its first bytes are
    (the name then gets the kind's extension: a download carries the stored extension); its content
    must be of that kind, and a text one Helena reads (`extraction.decode_text`: UTF-8, UTF-16 with
    BOM, Windows-1252). Raises ValueError (German, naming the allowed kinds) otherwise. The one check
    of every path that stores a file.
    """
    name = filename.strip() or "Dokument"
    endung = _ENDUNG.search(name)
    if endung is not None:
        art = _ART_NACH_ENDUNG.get(endung.group(0).lower())
        if art is None:
            endung_klein = endung.group(0).lower()
            grund = GRUND_BESONDERS.get(endung_klein) or GRUND_ENDUNG.format(endung=endung_klein)
            raise ValueError(ERR_DATEI_ABGELEHNT.format(datei=name[:120], grund=grund))
        quelle = QUELLE_NAME
    else:
        # A phone or scanner upload without an extension: what the browser declares, else (it sends
        # application/octet-stream then) what the first bytes are.
        typ = (mime_type or "").split(";")[0].strip().lower()
        art = _ART_NACH_TYP.get(typ) or inhalt_art(content) or (PDF if has_pdf_header(content) else None)
        if art is None:
            raise ValueError(ERR_DATEI_ABGELEHNT.format(datei=name[:120], grund=GRUND_OHNE_ENDUNG))
        name, quelle = f"{name}{art.endungen[0]}", QUELLE_TYP
    problem = _inhalt_passt_nicht(art, content, quelle)
    if problem is not None:
        raise ValueError(ERR_DATEI_ABGELEHNT.format(datei=filename.strip()[:120], grund=problem))
    return art.mime_type, name


def text_erkennen(content: bytes, mime_type: str) -> tuple[str, str, str]:
    """Text, `Dokument.TextStatus` and German reason of a failure for a file of an accepted kind: a
    photo or scan is kept without text recognition (BILD, not a failure); for every other kind a
    failure is recorded, never raised, so that nothing fails silently."""
    if mime_type.startswith("image/"):
        return "", Dokument.TextStatus.BILD, ""
    try:
        return extract_text(content, mime_type), Dokument.TextStatus.OK, ""
    except ExtractionError as exc:
        return "", Dokument.TextStatus.FEHLER, str(exc)[:300]


class IndexFehler(Exception):
    """The search index could not follow a document's new text (`dokument_text_erneuern`); the text
    stays as it was. The message is the failure's type, never a text."""


@transaction.atomic
def dokument_text_erneuern(*, dokument_id: int, speichern: bool = True) -> bool:
    """Recognise the text of a stored document again from its file, as an upload does today
    (`text_erkennen`): a PDF stored before hidden layers were left out still carries their text in
    the Akte's search, Helena's tools and a Mandant's API `text`. Returns whether text, status or
    reason of a failure change; with `speichern` they are stored and the search index and embeddings
    follow (`dokument_saved`, as after an upload). The file and everything else stay as they are, so
    no Aktenverlauf entry is written. Locks the Dokument row while it reads (a new version waits).

    The index follows in the same transaction, not after the commit as after an upload: committed
    first, a failed index would keep the old text in the search chunks while the next run found the
    text unchanged and left it so for good. A failure rolls the new text back too and raises
    IndexFehler; the next run finds the text changed again and repairs both. This holds for texts of
    any length: a text longer than HELENA_SYNC_INDEX_CHARS, which after an upload is left to the task
    worker, is indexed here too (`index_now`), else its failure would go unseen. The embeddings
    follow in the task worker, as after an upload.

    Raises Dokument.DoesNotExist, OSError when the stored file cannot be read, ExtractionError
    (German reason) when a text recognised before cannot be read now: that text stays, and
    IndexFehler. A file found to show no text at all (all of it on hidden layers) loses its text."""
    dokumente = Dokument.objects.select_for_update() if speichern else Dokument.objects
    dokument = dokumente.get(pk=dokument_id)
    with dokument.datei.open("rb") as handle:
        inhalt = handle.read()
    neu = text_erkennen(inhalt, dokument.mime_type)
    if neu == (dokument.text, dokument.text_status, dokument.text_fehler):
        return False
    if neu[1] == Dokument.TextStatus.FEHLER and dokument.text_status == Dokument.TextStatus.OK and neu[2] != ERR_EMPTY:
        raise ExtractionError(neu[2])  # unreadable now: keep the text; showing none (ERR_EMPTY): drop it
    if speichern:
        dokument.text, dokument.text_status, dokument.text_fehler = neu
        dokument.save(update_fields=["text", "text_status", "text_fehler"])
        try:
            dokument_saved.send(sender=Dokument, dokument=dokument, index_now=True)
        except Exception as exc:  # the index's own failures (database, task queue): the text goes back too
            raise IndexFehler(type(exc).__name__) from exc
    return True


AKTE_EDITABLE_FIELDS = (
    "kurzrubrum",
    "wegen",
    "sachgebiet",
    "status",
    "gegenstandswert",
    "notizen",
    "zusammenfassung",
    "tags",
)

# The rules of every path to a record (tools, drafts, admin): the responsible person, no time in the
# future; and a document released to the Mandantschaft needs a title of its own: the uploaded file's
# name may say what its title does not (API upload and admin).
ERR_VERANTWORTLICH = "Die verantwortliche Person ist unbekannt oder hat keinen Zugriff auf die Akte."
ERR_ZEIT_ZUKUNFT = "Das Datum {datum} liegt in der Zukunft; Zeit kann nur für heute oder vergangene Tage erfasst werden."
ERR_TITEL_FUER_FREIGABE = "Gib dem Dokument einen Titel, bevor du es freigibst: den Dateinamen sieht die Mandantschaft nicht."


class FreigabeTitelFehler(ValueError):
    """A document released to the Mandantschaft under its file's name (ERR_TITEL_FUER_FREIGABE)."""


ERR_FREIGABE_ROLLE = (
    "Als Praktikantin oder Praktikant kannst du Dokumente nicht für die Mandantschaft freigeben; bitte eine "
    "Anwältin, einen Anwalt oder die Sachbearbeitung."
)


def freigabe_rolle_pruefen(by: User) -> None:
    """Who releases a document to the Mandantschaft (she receives it at once, also each new version):
    the Kanzlei's staff, not a Praktikant, whose part is reading. ValueError (German) otherwise."""
    if not sees_internal(by) or getattr(by, "role", None) == Role.PRAKTIKANT:
        raise ValueError(ERR_FREIGABE_ROLLE)


def freigabe_titel_pruefen(*, name: str, dateiname: str) -> None:
    """A document released to the Mandantschaft needs a title of its own: she sees its title, and a
    file's name ("Entwurf_intern_v3.txt") may say what the title does not. Refused: no title, the
    file's name, or a title ending in the file's extension. The one check of every path that
    releases (upload, admin, approval); raises FreigabeTitelFehler (German)."""
    titel, datei = name.strip().lower(), PurePath(dateiname).name
    endung = _ENDUNG.search(datei)
    if not titel or titel == datei.lower() or (endung is not None and titel.endswith(endung.group(0).lower())):
        raise FreigabeTitelFehler(ERR_TITEL_FUER_FREIGABE)


def activity_record(
    *,
    akte: Akte,
    typ: str,
    beschreibung: str,
    by: User | None = None,
    run: AgentRun | None = None,
    data: dict[str, Any] | None = None,
) -> AktenActivity:
    activity = AktenActivity(
        akte=akte,
        typ=typ,
        beschreibung=beschreibung[:500],
        actor_user=by,
        actor_run=run,
        data=data or {},
    )
    activity.full_clean()
    activity.save()
    return activity


def verantwortlich_zulaessig(*, akte: Akte | None, user: User | None) -> bool:
    """May `user` be responsible for a calendar entry of `akte`? An active member of the Kanzlei who
    may see the Akte, never a client login (a MANDANT sees her Akte, but no Frist is hers to keep, and
    her name is client data). The one rule for every path: tools, drafts, admin."""
    return (
        user is not None
        and user.is_active
        and akte is not None
        and sees_internal(user)
        and Akte.objects.visible_to(user).filter(pk=akte.pk).exists()
    )


@transaction.atomic
def dokument_create(
    *,
    akte: Akte,
    by: User,
    name: str,
    filename: str,
    content: bytes,
    mime_type: str | None = None,
    mandant_sichtbar: bool = False,
    erstellt_von_helena: bool = False,
    status: str = Dokument.Status.ENTWURF,
    activity_data: dict[str, Any] | None = None,
) -> Dokument:
    """Store `content` as a file of `akte` and extract its text.

    Only the kinds of file an Akte holds, with content of the kind its name says
    (`dokument_datei_pruefen`, ValueError otherwise). A file released to the Mandantschaft needs a
    title of its own (`freigabe_titel_pruefen`, FreigabeTitelFehler, a ValueError) and must be one
    she can receive cleaned (`akten.metadaten.freigabe_pruefen`, ValueError otherwise).
    Extraction failures do not fail the upload: they are recorded on the Dokument
    (text_status FEHLER with the German reason) so that nothing fails silently.
    """
    from django.conf import settings

    # the title against the name the file is stored under: at once for a name with an extension; one
    # without (a scan "Vertrag", stored as "Vertrag.pdf") once it has the extension it gets
    named_with_extension = bool(_ENDUNG.search(filename.strip()))
    if mandant_sichtbar:
        freigabe_rolle_pruefen(by)
    if mandant_sichtbar and named_with_extension:
        freigabe_titel_pruefen(name=name, dateiname=filename)
    if not content:
        raise ValueError(ERR_FILE_EMPTY)
    if len(content) > settings.HELENA_MAX_UPLOAD_BYTES:
        raise ValueError(ERR_FILE_TOO_LARGE.format(limit=settings.HELENA_MAX_UPLOAD_BYTES // (1024 * 1024)))
    mime, filename = dokument_datei_pruefen(filename=filename, content=content, mime_type=mime_type)
    if mandant_sichtbar:
        if not named_with_extension:
            freigabe_titel_pruefen(name=name, dateiname=filename)
        freigabe_pruefen(content, mime_type=mime)
    dokument = Dokument(
        akte=akte,
        name=name,
        status=status,
        mime_type=mime,
        groesse=len(content),
        erstellt_von=by,
        erstellt_von_helena=erstellt_von_helena,
        mandant_sichtbar=mandant_sichtbar,
    )
    dokument.text, dokument.text_status, dokument.text_fehler = text_erkennen(content, mime)
    dokument.datei.save(filename, ContentFile(content), save=False)
    dokument.full_clean()
    dokument.save()
    transaction.on_commit(lambda: dokument_saved.send(sender=Dokument, dokument=dokument))
    activity_record(
        akte=akte,
        typ=AktenActivity.Typ.DOKUMENT_ANGELEGT if erstellt_von_helena else AktenActivity.Typ.DOKUMENT_HOCHGELADEN,
        beschreibung=f"Dokument „{name}“ angelegt",
        by=by,
        data={"dokument": dokument.pk, **(activity_data or {})},
    )
    return dokument


@transaction.atomic
def kalender_eintrag_create(
    *,
    akte: Akte,
    by: User,
    typ: str,
    titel: str,
    datum: datetime.date,
    fristablauf: datetime.date | None = None,
    vorfrist: datetime.date | None = None,
    notfrist: bool = False,
    uhrzeit: datetime.time | None = None,
    beschreibung: str = "",
    verantwortlich: User | None = None,
    berechnung: dict[str, Any] | None = None,
    activity_data: dict[str, Any] | None = None,
) -> KalenderEintrag:
    """Store a calendar entry. A Wiedervorlage on a weekend or holiday is stored (it may be meant
    so), with the hint in the Aktenverlauf (`fristen_rules.wiedervorlage_hinweis`)."""
    eintrag = KalenderEintrag(
        akte=akte,
        typ=typ,
        titel=titel,
        datum=datum,
        fristablauf=fristablauf,
        vorfrist=vorfrist,
        notfrist=notfrist,
        uhrzeit=uhrzeit,
        beschreibung=beschreibung,
        verantwortlich=verantwortlich or by,
        berechnung=berechnung,
    )
    eintrag.full_clean()
    eintrag.save()
    hinweis = wiedervorlage_hinweis(akte=akte, typ=typ, datum=datum, fristablauf=fristablauf)
    activity_record(
        akte=akte,
        typ=AktenActivity.Typ.KALENDER_ANGELEGT,
        beschreibung=f"{eintrag.get_typ_display()} „{titel}“ angelegt" + (f". {hinweis}" if hinweis else ""),
        by=by,
        data={"kalender_eintrag": eintrag.pk, **({"hinweis": hinweis} if hinweis else {}), **(activity_data or {})},
    )
    return eintrag


@transaction.atomic
def notiz_create(
    *,
    akte: Akte | None,
    by: User,
    text: str,
    titel: str = "",
    activity_data: dict[str, Any] | None = None,
) -> Notiz:
    notiz = Notiz(akte=akte, autor=by, titel=titel, text=text)
    notiz.full_clean()
    notiz.save()
    if akte is not None:
        activity_record(
            akte=akte,
            typ=AktenActivity.Typ.NOTIZ_ANGELEGT,
            beschreibung=f"Notiz „{titel or text[:40]}“ angelegt",
            by=by,
            data={"notiz": notiz.pk, **(activity_data or {})},
        )
    return notiz


MINUTEN_JE_TAG = 24 * 60
ERR_TAG_VOLL = (
    "Am {datum} sind schon {erfasst} Minuten erfasst; mit {minuten} weiteren wären es mehr als 24 Stunden an einem Tag."
)


ERR_ZEIT_PERSON = (
    "Für {person} kann keine Zeit erfasst werden: das Konto ist nicht aktiv, gehört nicht zur Kanzlei "
    "oder hat keinen Zugriff auf die Akte."
)


@transaction.atomic
def zeiterfassung_pruefen(
    *, akte: Akte, user: User, datum: datetime.date, minuten: int, zeiterfassung_id: int | None = None
) -> None:
    """The rules of a time record on every path (`zeiterfassung_create`, so draft approval; the
    admin's add and change): no day in the future; a person who may work on the Akte as the
    account is now (`verantwortlich_zulaessig`: active, of the Kanzlei, sees the Akte; a draft
    proposed before a change of role, deactivation or loss of access books nothing); and at most 24
    hours of one person's records on one day. For a change (`zeiterfassung_id`) the record's own
    stored minutes do not count, and a rule is checked only when what it is about changed (an old
    record's text stays editable). Raises ValidationError (German, by field).

    Locks the person's User row (FOR NO KEY UPDATE) before reading it and summing the day, so that
    two records of one person (two approvals, admin and approval) serialise: the second sums the
    day with the first's minutes. Call it in the transaction that saves the record (the admin's add
    and change views run in one), else the lock ends with this function."""
    tag = Zeiterfassung.objects.filter(user=user, datum=datum)
    bisher = None
    if zeiterfassung_id is not None:
        bisher = Zeiterfassung.objects.filter(pk=zeiterfassung_id).values_list("akte_id", "user_id", "datum", "minuten").first()
        tag = tag.exclude(pk=zeiterfassung_id)
    neu = (akte.pk, user.pk, datum, minuten)
    if bisher == neu:
        return
    if (bisher is None or bisher[2] != datum) and datum > timezone.localdate():
        raise ValidationError({"datum": ERR_ZEIT_ZUKUNFT.format(datum=f"{datum:%d.%m.%Y}")})
    person = User.objects.select_for_update(no_key=True).filter(pk=user.pk).first()
    if (bisher is None or bisher[:2] != neu[:2]) and not verantwortlich_zulaessig(akte=akte, user=person):
        raise ValidationError({"user": ERR_ZEIT_PERSON.format(person=user.get_full_name() or user.email)})
    if bisher is None or bisher[1:] != neu[1:]:
        erfasst = tag.aggregate(summe=Sum("minuten"))["summe"] or 0
        if erfasst + minuten > MINUTEN_JE_TAG:
            raise ValidationError({"minuten": ERR_TAG_VOLL.format(datum=f"{datum:%d.%m.%Y}", erfasst=erfasst, minuten=minuten)})


@transaction.atomic
def zeiterfassung_create(
    *,
    akte: Akte,
    by: User,
    user: User | None = None,
    datum: datetime.date,
    minuten: int,
    beschreibung: str,
    abrechenbar: bool = True,
    stundensatz: Decimal | None = None,
    activity_data: dict[str, Any] | None = None,
) -> Zeiterfassung:
    """Book `minuten` of `user` (default: `by`) on `akte`, under the rules of `zeiterfassung_pruefen`
    (ValidationError, German)."""
    zeiterfassung_pruefen(akte=akte, user=user or by, datum=datum, minuten=minuten)
    eintrag = Zeiterfassung(
        akte=akte,
        user=user or by,
        datum=datum,
        minuten=minuten,
        beschreibung=beschreibung,
        abrechenbar=abrechenbar,
        stundensatz=stundensatz,
    )
    eintrag.full_clean()
    eintrag.save()
    activity_record(
        akte=akte,
        typ=AktenActivity.Typ.ZEIT_ERFASST,
        beschreibung=f"{minuten} Minuten erfasst: {beschreibung[:60]}",
        by=by,
        data={"zeiterfassung": eintrag.pk, **(activity_data or {})},
    )
    return eintrag


def _jsonable(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    return value


@transaction.atomic
def akte_update(
    *,
    akte: Akte,
    by: User,
    changes: dict[str, Any],
    activity_data: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Apply `changes` to the Akte (locked for the update). Returns the previous values.

    Precondition: the caller has checked that `by` may see and change the Akte.
    """
    unknown = set(changes) - set(AKTE_EDITABLE_FIELDS)
    if unknown:
        raise ValueError(f"Diese Felder der Akte können nicht geändert werden: {', '.join(sorted(unknown))}")
    locked = Akte.objects.select_for_update().get(pk=akte.pk)
    before = {field: _jsonable(getattr(locked, field)) for field in changes}
    for field, value in changes.items():
        setattr(locked, field, value)
    locked.full_clean()
    locked.save()
    activity_record(
        akte=locked,
        typ=AktenActivity.Typ.AKTE_GEAENDERT,
        beschreibung="Akte geändert: " + ", ".join(str(getattr(Akte._meta.get_field(f), "verbose_name", f)) for f in changes),
        by=by,
        data={"before": before, "after": {k: _jsonable(v) for k, v in changes.items()}, **(activity_data or {})},
    )
    akte.refresh_from_db()
    return before


@transaction.atomic
def akte_create(
    *,
    by: User,
    aktenzeichen: str,
    kurzrubrum: str,
    sachgebiet: str,
    wegen: str = "",
    anwalt: User | None = None,
    sachbearbeiter: User | None = None,
    gegenstandswert: Decimal | None = None,
    status: str = Akte.Status.OFFEN,
    tags: list[str] | None = None,
    dezernate: list[Any] | None = None,
) -> Akte:
    akte = Akte(
        aktenzeichen=aktenzeichen,
        kurzrubrum=kurzrubrum,
        sachgebiet=sachgebiet,
        wegen=wegen,
        anwalt=anwalt,
        sachbearbeiter=sachbearbeiter,
        gegenstandswert=gegenstandswert,
        status=status,
        tags=tags or [],
    )
    akte.full_clean()
    akte.save()
    if dezernate:
        akte.dezernate.set(dezernate)
    activity_record(akte=akte, typ=AktenActivity.Typ.AKTE_ANGELEGT, beschreibung=f"Akte {aktenzeichen} angelegt", by=by)
    return akte


@transaction.atomic
def akte_gericht_set(*, akte: Akte, by: User, name: str, ort: str, bundesland: str, aktenzeichen: str = "") -> Akte:
    """Record the court of ``akte``; its Ort and Bundesland decide the holidays of the Akte's deadlines."""
    akte.gericht_name, akte.gericht_ort, akte.gericht_bundesland, akte.gericht_aktenzeichen = name, ort, bundesland, aktenzeichen
    akte.full_clean()
    akte.save(update_fields=["gericht_name", "gericht_ort", "gericht_bundesland", "gericht_aktenzeichen", "changed_at"])
    activity_record(akte=akte, typ=AktenActivity.Typ.AKTE_GEAENDERT, beschreibung=f"Gericht: {name}, {ort}", by=by)
    return akte


@transaction.atomic
def beteiligter_add(*, akte: Akte, by: User, kontakt: Kontakt, rolle: str, aktenzeichen_extern: str = "") -> Beteiligter:
    beteiligter = Beteiligter(akte=akte, kontakt=kontakt, rolle=rolle, aktenzeichen_extern=aktenzeichen_extern)
    beteiligter.full_clean()
    beteiligter.save()
    activity_record(
        akte=akte,
        typ=AktenActivity.Typ.AKTE_GEAENDERT,
        beschreibung=f"{beteiligter.get_rolle_display()} {kontakt} hinzugefügt",
        by=by,
        data={"beteiligter": beteiligter.pk},
    )
    return beteiligter


ERR_KALENDER_NOT_OPEN = "Dieser Eintrag ist bereits erledigt."
ERR_KALENDER_NOT_ALLOWED = "Du darfst Fristen nicht als erledigt markieren."
ERR_KALENDER_REOPEN_NOT_ALLOWED = "Du darfst erledigte Fristen nicht wieder öffnen."
ERR_KALENDER_STILL_OPEN = "Dieser Eintrag ist nicht erledigt."


def kalender_erledigen_darf(user: User) -> bool:
    """Who may mark an entry done or open it again: the Kanzlei's staff, not a Praktikant (whose
    part is reading) nor a MANDANT. A Frist struck by mistake leaves the Fristenkontrolle."""
    return sees_internal(user) and getattr(user, "role", None) != Role.PRAKTIKANT


def kalender_eintrag_erledigen(*, eintrag_id: int, by: User) -> KalenderEintrag:
    """Mark an open Frist, Termin or Wiedervorlage done, with who and when, in the Aktenverlauf.

    Locks the row (a second, concurrent click gets ValidationError, nothing is written twice).
    Raises Http404 when `by` may not see the entry, ValidationError for a MANDANT or a done entry.
    """
    return _kalender_erledigt_setzen(eintrag_id=eintrag_id, by=by, erledigt=True)


def kalender_eintrag_wieder_oeffnen(*, eintrag_id: int, by: User) -> KalenderEintrag:
    """Open a done entry again (struck by mistake): back into the Fristenkontrolle, recorded in the
    Aktenverlauf with who. Raises Http404 when `by` may not see it, ValidationError otherwise."""
    return _kalender_erledigt_setzen(eintrag_id=eintrag_id, by=by, erledigt=False)


# erledigt → (refusal for the role, refusal for the entry's state, Aktenverlauf type, its wording)
_KALENDER_WECHSEL = {
    True: (ERR_KALENDER_NOT_ALLOWED, ERR_KALENDER_NOT_OPEN, AktenActivity.Typ.KALENDER_ERLEDIGT, "erledigt"),
    False: (ERR_KALENDER_REOPEN_NOT_ALLOWED, ERR_KALENDER_STILL_OPEN, AktenActivity.Typ.KALENDER_WIEDER_OFFEN, "wieder offen"),
}


@transaction.atomic
def _kalender_erledigt_setzen(*, eintrag_id: int, by: User, erledigt: bool) -> KalenderEintrag:
    """Set the entry's `erledigt` under a row lock, with who and when (or neither, when opened
    again), and record it in the Aktenverlauf."""
    err_rolle, err_stand, typ, wort = _KALENDER_WECHSEL[erledigt]
    eintrag = KalenderEintrag.objects.visible_to(by).select_for_update(of=("self",)).filter(pk=eintrag_id).first()
    if eintrag is None:
        raise Http404
    if not kalender_erledigen_darf(by):
        raise ValidationError(err_rolle)
    if eintrag.erledigt == erledigt:
        raise ValidationError(err_stand)
    eintrag.erledigt = erledigt
    eintrag.erledigt_at = timezone.now() if erledigt else None
    eintrag.erledigt_von = by if erledigt else None
    eintrag.full_clean()
    eintrag.save(update_fields=["erledigt", "erledigt_at", "erledigt_von"])
    activity_record(
        akte=eintrag.akte,
        typ=typ,
        beschreibung=f"{eintrag.get_typ_display()} „{eintrag.titel}“ {wort}",
        by=by,
        data={"kalender_eintrag": eintrag.pk},
    )
    return eintrag
