"""Rendering and numbering. Synchronous, CPU-bound work: call it from views and services (threads),
never on the event loop that serves the websockets.

- `vorlage_waehlen` finds a template by id or name (firm templates first, then the shipped ones) and
  stores an immutable copy (VorlagenStand) that drafts refer to.
- `schriftstueck_rendern` fills a template with an Akte's data and the free text, puts the
  letterhead on it and returns DOCX bytes, PDF on demand, and the missing fields.
- `rechnungsnummer_vergeben` issues the next Rechnungsnummer of a year under a row lock.
"""

from __future__ import annotations

import datetime
import hashlib
import io
import re
from dataclasses import dataclass, replace
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone
from fpdf.errors import FPDFException

from akten import services as akten_services
from akten.metadaten import freigabe_pruefen, metadaten_setzen
from akten.models import (
    Akte,
    AktenActivity,
    Dokument,
    DokumentVersion,
    DokumentVorlage,
    KanzleiProfil,
    RechnungsnummerZaehler,
    User,
    VorlagenStand,
)
from akten.signals import dokument_saved
from helena.text import as_id

from .briefkopf import briefkopf_anwenden
from .builtin import MITGELIEFERT, NACH_SCHLUESSEL, mitgeliefert_inhalt
from .pdf import docx_zu_pdf
from .platzhalter import kontext_fuer_akte
from .vorlagen import VorlagenFehler, docx_oeffnen, docx_pruefen, vorlage_pruefen, vorlage_rendern, xml_sauber

ERR_VORLAGE_UNBEKANNT = "Keine Vorlage „{ref}“ gefunden. Vorhanden: {namen}."
# Whom a letter goes to (the template's {{ empfaenger }}, {{ anrede }}): the other side - its lawyer
# where it has one (§ 12 BORA) - or the firm's own client.
EMPFAENGER = ("GEGENSEITE", "MANDANT")
ERR_EMPFAENGER = (
    "Die Vorlage „{name}“ ist ein Brief: sag mit 'empfaenger', an wen er geht – 'GEGENSEITE' (die Gegnerin oder, "
    "wenn sie anwaltlich vertreten ist, ihr Anwalt) oder 'MANDANT' (die eigene Mandantschaft)."
)
ERR_STAND_FEHLT = "Die Vorlage dieses Entwurfs ist nicht mehr gespeichert."
ERR_PDF_UNMOEGLICH = (
    "Das PDF ließ sich nicht setzen (z. B. eine Tabelle mit zu vielen Spalten für die Seitenbreite); "
    "lade das Dokument als Word-Datei herunter."
)
DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PDF_MIME = "application/pdf"


@dataclass(frozen=True)
class VorlagenWahl:
    stand: VorlagenStand
    art: str
    mandant_partei: str
    # the template addresses someone ({{ empfaenger }}, {{ anrede }}) who may be either side: the
    # request must say whom (a Mahnschreiben always goes to the other side)
    empfaenger_offen: bool = False

    @property
    def mahnschreiben(self) -> bool:
        """A Mahnschreiben, the shipped one or the firm's own: it goes to the other side."""
        return "mahn" in self.stand.name.lower()

    def als_payload(self) -> dict[str, str]:
        return {"sha256": self.stand.sha256, "name": self.stand.name, "mandant_partei": self.mandant_partei, "art": self.art}


def vorlage_stand_sichern(*, name: str, inhalt: bytes) -> VorlagenStand:
    sha = hashlib.sha256(inhalt).hexdigest()
    stand, _ = VorlagenStand.objects.get_or_create(sha256=sha, defaults={"name": name[:100], "inhalt": inhalt})
    return stand


def vorlagen_namen() -> list[str]:
    eigene = list(DokumentVorlage.objects.filter(aktiv=True).values_list("name", flat=True))
    return eigene + [m.name for m in MITGELIEFERT if m.name not in eigene]


# Words a request may put before the template's name ("eine Klageerwiderung", "neuer Brief").
_VORWORTE = re.compile(
    r"^(?:(?:bitte|ein|eine|einen|einer|eines|der|die|das|den|neue[nrs]?|kurze[nrs]?|erste[nrs]?|entwurf|vorlage)\b[\s:,]*)+"
)


def _nennt(gesucht: str, begriff: str) -> bool:
    """Does the request name the template `begriff` as what it asks for: at its start (after an
    article), as a whole word ("Kündigungsschutzklage für Herrn X")? Not a word inside another
    ("Widerklage", "Klagerücknahme", "Berufungserwiderung") nor what a request is about ("Replik auf
    die Klageerwiderung": a Replik is not a Klageerwiderung, whose Rubrum names the client Beklagte)."""
    kopf = _VORWORTE.sub("", gesucht)
    folgt = kopf[len(begriff) : len(begriff) + 1]
    return kopf.startswith(begriff) and not folgt.isalnum() and folgt != "-"  # "Klage-Erwiderung" is no Klage


def vorlage_waehlen(ref: str | int) -> VorlagenWahl:
    """A template by id (firm template) or by name/what the user asked ("Klageerwiderung",
    "Kündigungsschutzklage für Herrn X"; `_nennt`). The most specific name wins
    ("Kündigungsschutzklage" before "Klage"); on equal length a firm template wins over a shipped
    one. Raises VorlagenFehler (with the names there are) for anything else."""
    text = str(ref).strip()
    eigene = list(DokumentVorlage.objects.filter(aktiv=True))
    gesucht = " ".join(text.lower().split())
    if (pk := as_id(text)) is not None:
        treffer_eigen = [v for v in eigene if v.pk == pk]
    else:
        treffer_eigen = sorted((v for v in eigene if _nennt(gesucht, v.name.lower())), key=lambda v: len(v.name), reverse=True)
    mitgeliefert_treffer = sorted(
        (
            (len(begriff), mitgeliefert)
            for mitgeliefert in MITGELIEFERT
            for begriff in (mitgeliefert.name.lower(), mitgeliefert.schluessel.lower(), *mitgeliefert.suchbegriffe)
            if _nennt(gesucht, begriff) and not text.isdigit()
        ),
        key=lambda paar: paar[0],
        reverse=True,
    )
    laenge_mitgeliefert = mitgeliefert_treffer[0][0] if mitgeliefert_treffer else -1
    if treffer_eigen and (text.isdigit() or len(treffer_eigen[0].name) >= laenge_mitgeliefert):
        vorlage = treffer_eigen[0]
        with vorlage.datei.open("rb") as datei:
            inhalt = datei.read()
        return _wahl(name=vorlage.name, art=vorlage.art, mandant_partei=vorlage.mandant_partei, inhalt=inhalt)
    if mitgeliefert_treffer:
        mitgeliefert = mitgeliefert_treffer[0][1]
        inhalt = mitgeliefert_inhalt(mitgeliefert.schluessel)
        return _wahl(name=mitgeliefert.name, art=mitgeliefert.art, mandant_partei=mitgeliefert.mandant_partei, inhalt=inhalt)
    raise VorlagenFehler(ERR_VORLAGE_UNBEKANNT.format(ref=text, namen=", ".join(vorlagen_namen())))


def _wahl(*, name: str, art: str, mandant_partei: str, inhalt: bytes) -> VorlagenWahl:
    """The chosen template, its stored copy, and whether the request must say whom it addresses:
    a template that addresses someone ({{ empfaenger }}, {{ anrede }}), unless it is a Mahnschreiben
    (also the firm's own: to the other side) or a Kostennote (to the client)."""
    stand = vorlage_stand_sichern(name=name, inhalt=inhalt)
    wahl = VorlagenWahl(stand=stand, art=art, mandant_partei=mandant_partei)
    if wahl.mahnschreiben or art == DokumentVorlage.Art.KOSTENNOTE:
        return wahl
    spricht_an = bool(vorlage_pruefen(inhalt) & {"empfaenger", "empfaenger_anschrift", "anrede"})
    return replace(wahl, empfaenger_offen=spricht_an)


def vorlage_stand_inhalt(sha256: str) -> bytes:
    stand = VorlagenStand.objects.filter(sha256=sha256).first()
    if stand is None:
        raise VorlagenFehler(ERR_STAND_FEHLT)
    return bytes(stand.inhalt)


@dataclass(frozen=True)
class Schriftstueck:
    docx: bytes
    fehlend: list[str]
    docx_objekt: Any

    def pdf(self) -> bytes:
        """Raises VorlagenFehler (German) when fpdf2 cannot lay the document out."""
        return _pdf(self.docx_objekt)


def _pdf(docx: Any) -> bytes:
    try:
        return docx_zu_pdf(docx)
    except FPDFException as fehler:
        # e.g. a table with so many columns that not one letter fits a cell
        raise VorlagenFehler(ERR_PDF_UNMOEGLICH) from fehler


def _docx_bytes(docx: Any) -> bytes:
    buffer = io.BytesIO()
    docx.save(buffer)
    return buffer.getvalue()


def schriftstueck_rendern(
    *,
    akte: Akte,
    titel: str,
    markdown: str,
    vorlage: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    heute: datetime.date | None = None,
) -> Schriftstueck:
    """Fill the draft's template (its stored copy) or, without one, the plain „Dokument“ with
    `akte`'s data and `markdown` as free text; add the letterhead. Raises VorlagenFehler."""
    profil = KanzleiProfil.current()
    if vorlage:
        inhalt = vorlage_stand_inhalt(vorlage["sha256"])
        mandant_partei = vorlage.get("mandant_partei", "")
    else:
        inhalt = mitgeliefert_inhalt(NACH_SCHLUESSEL["DOKUMENT"].schluessel)
        mandant_partei = ""
    kontext = kontext_fuer_akte(
        akte=akte,
        profil=profil,
        betreff=titel,
        freitext=markdown,
        mandant_partei=mandant_partei,
        empfaenger=(vorlage or {}).get("empfaenger", ""),
        heute=heute,
    )
    gerendert = vorlage_rendern(inhalt, kontext, extra=extra)
    briefkopf_anwenden(gerendert.docx, profil=profil, aktenzeichen=akte.aktenzeichen)
    metadaten_setzen(gerendert.docx, titel=titel, autor=profil.name if profil else "", jetzt=timezone.now())
    return Schriftstueck(docx=_docx_bytes(gerendert.docx), fehlend=gerendert.fehlend, docx_objekt=gerendert.docx)


def docx_als_pdf(docx: bytes, *, titel: str) -> bytes:
    """PDF of a stored DOCX (an approved document keeps the letterhead it was approved with). The
    PDF's title is `titel`, never what the file says of itself. Raises VorlagenFehler (German) for
    a damaged, encrypted or oversized Word file."""
    dokument = docx_oeffnen(docx)
    dokument.core_properties.title = xml_sauber(titel)[:255]
    return _pdf(dokument)


@transaction.atomic
def rechnungsnummer_vergeben(*, jahr: int) -> str:
    """The next Rechnungsnummer of `jahr` ("2026-0007"). Locks the year's counter row until the
    surrounding transaction ends, so concurrent approvals get consecutive numbers; a rolled-back
    transaction gives its number back, a committed one is never issued again."""
    RechnungsnummerZaehler.objects.bulk_create([RechnungsnummerZaehler(jahr=jahr)], ignore_conflicts=True)
    zaehler = RechnungsnummerZaehler.objects.select_for_update().get(jahr=jahr)
    zaehler.letzte_nummer += 1
    zaehler.save(update_fields=["letzte_nummer"])
    return f"{jahr}-{zaehler.letzte_nummer:04d}"


def kostennote_rendern(*, akte: Akte, payload: Any, nummer: str, heute: datetime.date | None = None) -> Schriftstueck:
    """The Kostennote on the firm's template of art KOSTENNOTE (or the shipped one)."""
    from .kostennote import rechnung_kontext

    eigene = DokumentVorlage.objects.filter(aktiv=True, art=DokumentVorlage.Art.KOSTENNOTE).order_by("name").first()
    wahl = vorlage_waehlen(eigene.pk if eigene else "Kostennote")
    return schriftstueck_rendern(
        akte=akte,
        titel=payload.titel,
        markdown=payload.text,
        # an invoice goes to the client (a firm template may address someone: never the other side)
        vorlage={**wahl.als_payload(), "empfaenger": "MANDANT"},
        extra={"rechnung": rechnung_kontext(payload, nummer=nummer)},
        heute=heute,
    )


ERR_KEINE_QUELLE = "Dieses Dokument hat keinen Quelltext; lade stattdessen die geänderte Datei hoch."
ERR_NEUE_VERSION_LEER = "Bitte gib den geänderten Text an oder lade eine Datei hoch."


def _dateiname(name: str, endung: str) -> str:
    from django.utils.text import slugify

    return f"{slugify(name)[:80] or 'dokument'}.{endung}"


@transaction.atomic
def dokument_aus_entwurf(
    *,
    akte: Akte,
    by: User,
    name: str,
    docx: bytes,
    quelle_markdown: str,
    mandant_sichtbar: bool,
    vorlage: dict[str, Any] | None = None,
    activity_data: dict[str, Any] | None = None,
) -> Dokument:
    """Store an approved draft as DOCX in the Akte, with its source as version 1.
    Called only from drafts.services.draft_accept (inside its transaction)."""
    dokument = akten_services.dokument_create(
        akte=akte,
        by=by,
        name=name,
        filename=_dateiname(name, "docx"),
        content=docx,
        mime_type=DOCX_MIME,
        mandant_sichtbar=mandant_sichtbar,
        erstellt_von_helena=True,
        activity_data=activity_data,
    )
    version = DokumentVersion(
        dokument=dokument,
        nummer=1,
        mime_type=DOCX_MIME,
        quelle_markdown=quelle_markdown,
        vorlage=vorlage or {},
        erstellt_von=by,
    )
    version.datei.save(_dateiname(name, "docx"), ContentFile(docx), save=False)
    version.save()
    return dokument


@transaction.atomic
def dokument_version_anlegen(
    *,
    dokument: Dokument,
    by: User,
    markdown: str = "",
    datei: bytes | None = None,
    dateiname: str = "",
    mime_type: str | None = None,
) -> DokumentVersion:
    """A new version of an approved document: edited Markdown source (rendered again on the
    template of the previous version) or an uploaded file. The Dokument shows the new version;
    earlier versions stay downloadable. Locks the Dokument row. Raises ValueError (German)."""
    if datei is not None and len(datei) > settings.HELENA_MAX_UPLOAD_BYTES:
        # The same limit as the first upload (akten.services.dokument_create).
        raise ValueError(akten_services.ERR_FILE_TOO_LARGE.format(limit=settings.HELENA_MAX_UPLOAD_BYTES // (1024 * 1024)))
    dokument = Dokument.objects.select_for_update().get(pk=dokument.pk)
    if dokument.mandant_sichtbar:  # she receives the new version at once: a release of its own
        akten_services.freigabe_rolle_pruefen(by)
    versionen = list(dokument.versionen.order_by("nummer"))
    letzte = versionen[-1] if versionen else None
    # Everything is checked and rendered before a file is stored: a refused version must leave no
    # copy of client data behind (the rollback does not remove files).
    if datei:
        # The same kinds and content check as the first upload (akten.services.dokument_create).
        mime, name = akten_services.dokument_datei_pruefen(filename=dateiname, content=datei, mime_type=mime_type)
        if dokument.mandant_sichtbar:  # she receives the new version at once
            freigabe_pruefen(datei, mime_type=mime)
        inhalt, quelle = datei, ""
    elif markdown.strip():
        if letzte is None or not letzte.quelle_markdown:
            raise ValueError(ERR_KEINE_QUELLE)
        try:
            inhalt = schriftstueck_rendern(
                akte=dokument.akte, titel=dokument.name, markdown=markdown, vorlage=letzte.vorlage or None
            ).docx
        except VorlagenFehler as fehler:
            raise ValueError(fehler.message) from fehler
        mime, quelle, name = DOCX_MIME, markdown, _dateiname(dokument.name, "docx")
    else:
        raise ValueError(ERR_NEUE_VERSION_LEER)
    if letzte is None:
        with dokument.datei.open("rb") as handle:
            bisher = handle.read()
        letzte = DokumentVersion(
            dokument=dokument,
            nummer=1,
            mime_type=dokument.mime_type,
            erstellt_von=dokument.erstellt_von,
            created_at=dokument.created_at,
        )
        letzte.datei.save((dokument.datei.name or "dokument").rsplit("/", 1)[-1], ContentFile(bisher), save=False)
        letzte.save()
    version = DokumentVersion(
        dokument=dokument,
        nummer=letzte.nummer + 1,
        mime_type=mime,
        quelle_markdown=quelle,
        vorlage=letzte.vorlage if quelle else {},
        erstellt_von=by,
    )
    version.datei.save(name, ContentFile(inhalt), save=False)
    version.save()
    dokument.datei.save(name, ContentFile(inhalt), save=False)
    dokument.mime_type, dokument.groesse = mime, len(inhalt)
    # The earlier version's text goes with it in every case: it is no longer the document (and a
    # Mandant gets no earlier versions).
    try:
        if mime == DOCX_MIME:
            docx_pruefen(inhalt)  # before python-docx unpacks a ZIP bomb into memory
        dokument.text, dokument.text_status, dokument.text_fehler = akten_services.text_erkennen(inhalt, mime)
    except VorlagenFehler as fehler:
        dokument.text, dokument.text_status, dokument.text_fehler = "", Dokument.TextStatus.FEHLER, str(fehler)[:300]
    dokument.full_clean()
    dokument.save()
    # The search index follows the new version (its chunks held the old text, for every searcher).
    transaction.on_commit(lambda: dokument_saved.send(sender=Dokument, dokument=dokument))
    akten_services.activity_record(
        akte=dokument.akte,
        typ=AktenActivity.Typ.DOKUMENT_NEUE_VERSION,
        beschreibung=f"Dokument „{dokument.name}“: Version {version.nummer}",
        by=by,
        data={"dokument": dokument.pk, "version": version.nummer},
    )
    return version
