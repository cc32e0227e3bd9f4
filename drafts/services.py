"""The only path from a Helena proposal to a real record (Endkontrolle).

All services take the draft id and the acting user, look the draft up through
`HelenaDraft.objects.visible_to(user)` (so a draft of an invisible Akte is "not found"), lock the
draft row for the whole transaction and check its status under the lock. Two concurrent accepts
therefore serialise on the row lock: the first creates the record, the second sees ACCEPTED and
gets DraftConflict.
"""

from __future__ import annotations

import datetime
from decimal import Decimal
from functools import partial
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import FieldDoesNotExist
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import models, transaction
from django.utils import timezone
from pydantic import ValidationError

from akten import services as akten_services
from akten.fristen_rules import KalenderRegelFehler, kalender_eintrag_pruefen, wiedervorlage_hinweis
from akten.models import Akte, AktenActivity, User
from akten.policy import sees_internal
from akten.services import ERR_VERANTWORTLICH, ERR_ZEIT_ZUKUNFT
from helena.errors import NotFound, ServiceError
from helena.text import shorten
from schriftgut import services as schriftgut_services
from schriftgut.vorlagen import VorlagenFehler

from .events import draft_changed_announce
from .models import DraftRevision, HelenaAlert, HelenaDraft
from .schemas import (
    AkteUpdatePayload,
    DokumentPayload,
    KalenderPayload,
    KostennotePayload,
    NotizPayload,
    ZeiterfassungPayload,
    format_validation_error,
    payload_to_json,
    validate_payload,
)
from .selectors import draft_get

if TYPE_CHECKING:
    from agent.models import AgentRun, AgentStep

ERR_NOT_FOUND = "Entwurf nicht gefunden."
ERR_NOT_PENDING = "Der Entwurf ist bereits {status} und kann nicht mehr {action} werden."
ERR_NOT_PROPOSER = "Entwürfe können nur Mitarbeitende der Kanzlei anlegen."
ERR_NOT_APPROVER = "Du darfst Entwürfe nicht übernehmen. Bitte wende dich an eine Anwältin oder einen Anwalt."
ERR_NOT_EDITOR = "Du darfst Entwürfe nicht bearbeiten. Bitte wende dich an eine Anwältin oder einen Anwalt."
ERR_NOT_REJECTER = "Du darfst Entwürfe nicht ablehnen. Bitte wende dich an eine Anwältin oder einen Anwalt."
ERR_UNDO_NOT_ACCEPTED = "Nur übernommene Entwürfe können rückgängig gemacht werden."
ERR_UNDO_EXPIRED = "Die Übernahme liegt mehr als {seconds} Sekunden zurück und kann nicht mehr rückgängig gemacht werden."
ERR_UNDO_NOT_APPROVER = "Du darfst Übernahmen nicht rückgängig machen. Bitte wende dich an eine Anwältin oder einen Anwalt."
ERR_UNDO_NOT_REVIEWER = "Nur wer den Entwurf übernommen hat, kann die Übernahme rückgängig machen."
ERR_UNDO_AKTE_CHANGED = "Die Akte wurde seit der Übernahme erneut geändert; bitte ändere sie direkt."
ERR_VERSION_NEEDED = (
    "Der Entwurf wurde seit dem Vorschlag bearbeitet (jetzt Fassung {jetzt}). Bitte prüfe ihn und übernimm die "
    "geprüfte Fassung (version)."
)
ERR_KOSTENNOTE_RECHNER = (
    "Beträge und Grundlagen einer Kostennote kommen aus dem RVG-Rechner und lassen sich im Entwurf nicht ändern "
    "(geändert: {felder}). Rechne im Rechner neu und lege daraus einen neuen Entwurf an."
)
ERR_UNDO_RECORD_GONE = (
    "Was aus dem Entwurf „{titel}“ entstand, ist inzwischen gelöscht; die Übernahme lässt sich nicht mehr rückgängig machen."
)
ERR_UNDO_RECORD_CHANGED = (
    "„{titel}“ wurde seit der Übernahme geändert (z. B. erledigt, bearbeitet oder eine neue Fassung); "
    "Rückgängig würde diese Änderung löschen. Bitte bearbeite oder lösche den Eintrag direkt."
)
# Fields a record's own processing fills after its creation (text recognition of a Dokument): not
# a change by anyone.
_UNDO_IGNORED_FIELDS = frozenset({"text", "text_status", "text_fehler"})
ERR_CONTENT_HIDDEN = (
    "Helena hat für diesen Entwurf eine Akte gelesen, die du nicht siehst. Prüfen (übernehmen, bearbeiten, ablehnen, "
    "rückgängig machen) kann ihn nur, wer alle Akten sehen darf, die Helena dafür gelesen hat."
)
ERR_REJECT_NEEDS_REASON = "Bitte gib einen Grund oder mindestens eine Kategorie für die Ablehnung an."
ERR_INVALID = "Der Entwurf ist ungültig: {details}"
ERR_AKTE_REQUIRED = "Dieser Entwurf braucht eine Akte."
ERR_CHANGED_SINCE = (
    "Der Entwurf wurde inzwischen geändert (jetzt Fassung {jetzt}, geprüft hast du Fassung {geprueft}). "
    "Bitte prüfe die neue Fassung und übernimm sie dann."
)
ERR_RUN_ENDED = "Der Lauf ist beendet oder abgebrochen; er legt keine Entwürfe mehr an."
ERR_RENDER = "Das Dokument konnte nicht erzeugt werden; der Entwurf bleibt erhalten. {details}"


class DraftError(ServiceError):
    """A refusal of the draft services (German message, HTTP status for the API)."""


class DraftNotFound(DraftError, NotFound):
    status_code = 404


class DraftPermissionDenied(DraftError):
    status_code = 403


class DraftConflict(DraftError):
    status_code = 409


class DraftInvalid(DraftError):
    status_code = 400


def user_may_approve(user: User) -> bool:
    """The Endkontrolle is a professional act: by role (HELENA_APPROVER_ROLES) only - a technical
    superuser in another role (Sekretariat, IT) does not approve."""
    return user.is_active and user.role in settings.HELENA_APPROVER_ROLES


def user_may_review(user: User, draft: HelenaDraft) -> bool:
    """May `user` accept, edit, reject or undo `draft`? The approver roles; and for a general note
    (no Akte) its requester too: it becomes their own note, in no Akte, so nobody else sees it - a
    Sekretariat's note would otherwise wait for ever."""
    if draft.hides_content:  # its run read an Akte `user` may not see (drafts.models.DraftQuerySet)
        return False
    if user_may_approve(user):
        return True
    return draft.akte_id is None and draft.requested_by_id == user.pk and sees_internal(user)


def _validated(typ: str, payload: dict[str, Any]) -> Any:
    try:
        return validate_payload(typ, payload)
    except ValidationError as exc:
        raise DraftInvalid(ERR_INVALID.format(details=format_validation_error(exc))) from exc


def _kalender_pruefen(akte: Akte | None, payload: Any) -> User | None:
    """The calendar-entry rules (§ 193 BGB, not in the past) and the responsible person on every
    path (create, edit, accept): someone active who may see the Akte, else DraftInvalid (the card
    would otherwise show the name of any user whose id was written into the payload). Returns
    that person (None: the approver)."""
    if not isinstance(payload, KalenderPayload):
        return None
    try:
        kalender_eintrag_pruefen(typ=payload.typ, fristablauf=payload.fristablauf, vorfrist=payload.vorfrist)
    except KalenderRegelFehler as exc:
        raise DraftInvalid(ERR_INVALID.format(details=exc.message)) from exc
    return verantwortlich_pruefen(akte=akte, user_id=payload.verantwortlich_id)


def draft_hinweis(draft: HelenaDraft) -> str:
    """What a draft is shown with but not refused for, in German: a Wiedervorlage on a weekend or
    holiday (`akten.fristen_rules.wiedervorlage_hinweis`, the rule of the stored entry too); "" for
    every other draft and for a payload that no longer validates (its error comes on approval)."""
    if draft.typ != HelenaDraft.Typ.FRIST or not isinstance(draft.payload, dict):
        return ""
    try:
        payload = validate_payload(draft.typ, draft.payload)
    except (ValidationError, KeyError):
        return ""
    if not isinstance(payload, KalenderPayload):
        return ""
    return wiedervorlage_hinweis(akte=draft.akte, typ=payload.typ, datum=payload.datum, fristablauf=payload.fristablauf)


def _mit_hinweis(beschreibung: str, draft: HelenaDraft) -> str:
    hinweis = draft_hinweis(draft)
    return f"{beschreibung}. {hinweis}" if hinweis else beschreibung


def verantwortlich_pruefen(*, akte: Akte | None, user_id: int | None) -> User | None:
    """The person responsible for a calendar entry of `akte`: an active member of the Kanzlei who
    may see the Akte, never a client login (a MANDANT sees her Akte, but no Frist or Wiedervorlage is
    hers to keep, and her name is client data). None for no `user_id`; DraftInvalid otherwise."""
    if user_id is None:
        return None
    verantwortlich = User.objects.filter(pk=user_id).first()
    if not akten_services.verantwortlich_zulaessig(akte=akte, user=verantwortlich):
        raise DraftInvalid(ERR_VERANTWORTLICH)
    return verantwortlich


def _zeit_pruefen(payload: Any) -> None:
    """Time is recorded for today or days past, on every path (create, edit, accept)."""
    if isinstance(payload, ZeiterfassungPayload) and payload.datum > timezone.localdate():
        raise DraftInvalid(ERR_ZEIT_ZUKUNFT.format(datum=f"{payload.datum:%d.%m.%Y}"))


def _regeln_pruefen(akte: Akte | None, payload: Any) -> User | None:
    """The rules beyond the payload's own shape that every path applies (create, edit, accept):
    calendar rules and responsible person, time not in the future. Returns the responsible person
    of a calendar entry (None: the approver)."""
    _zeit_pruefen(payload)
    return _kalender_pruefen(akte, payload)


def _akte_field_label(name: str) -> str:
    """The German label of an Akte field ("Zusammenfassung"), never the raw field name."""
    try:
        field = Akte._meta.get_field(name)
    except FieldDoesNotExist:
        return name.replace("_", " ").capitalize()
    return str(getattr(field, "verbose_name", name))


def _title_for(typ: str, payload: Any) -> str:
    if isinstance(payload, DokumentPayload | KalenderPayload | KostennotePayload):
        return payload.titel
    if isinstance(payload, NotizPayload):
        return payload.titel or shorten(payload.text, 80)
    if isinstance(payload, ZeiterfassungPayload):
        return f"{payload.minuten} Min.: {shorten(payload.beschreibung, 60)}"
    if isinstance(payload, AkteUpdatePayload):
        return "Änderung: " + ", ".join(sorted(_akte_field_label(name) for name in payload.changes.model_fields_set))
    raise DraftInvalid(ERR_INVALID.format(details=f"unbekannter Typ {typ}"))


@transaction.atomic
def draft_create(
    *,
    typ: str,
    akte: Akte | None,
    requested_by: User,
    payload: dict[str, Any],
    run: AgentRun | None = None,
    step: AgentStep | None = None,
    tool_call_id: str = "",
    untrusted_input: bool = False,
    proposed_by_run: bool = False,
) -> HelenaDraft:
    """Create a PENDING draft. Precondition: the caller checked that `requested_by` may see `akte`.
    Raises DraftPermissionDenied for a requester outside the Kanzlei (a MANDANT proposes nothing,
    whatever the tool matrix allows her) and DraftInvalid for an invalid payload.

    `proposed_by_run`: `run` itself proposes (a write tool), so it must still be active: DraftConflict
    otherwise. Without it `run` only says where the content comes from (a finished answer saved as
    Word)."""
    if not sees_internal(requested_by):
        raise DraftPermissionDenied(ERR_NOT_PROPOSER)
    if akte is None and typ != HelenaDraft.Typ.NOTIZ:
        raise DraftInvalid(ERR_AKTE_REQUIRED)
    model = _validated(typ, payload)
    _regeln_pruefen(akte, model)
    if proposed_by_run and (run is None or not _run_still_proposing(run)):
        raise DraftConflict(ERR_RUN_ENDED)
    draft = HelenaDraft(
        typ=typ,
        akte=akte,
        requested_by=requested_by,
        payload=payload_to_json(model),
        titel=shorten(_title_for(typ, model), 200),
        origin_run=run,
        origin_step=step,
        origin_tool_call_id=tool_call_id,
        untrusted_input=untrusted_input,
    )
    draft.full_clean()
    draft.save()
    if akte is not None:
        akten_services.activity_record(
            akte=akte,
            typ=AktenActivity.Typ.ENTWURF_ERSTELLT,
            beschreibung=_mit_hinweis(f"Entwurf erstellt: {draft.get_typ_display()} „{draft.titel}“", draft),
            by=None if run else requested_by,
            run=run,
            data={"draft": draft.pk},
        )
    draft_changed_announce(draft, created=True)
    return draft


def _run_still_proposing(run: AgentRun) -> bool:
    """Whether `run` is still active (PENDING or RUNNING) and not asked to cancel, read under a row
    lock (so neither the orphan sweep nor the run's end can pass between this check and the draft):
    a run swept as FAILED or cancelled elsewhere while its process still works proposes nothing more."""
    runs = type(run).objects  # drafts does not import the agent app (import contract)
    return (
        runs.select_for_update()
        .filter(pk=run.pk, status__in=type(run).ACTIVE_STATUSES, cancel_requested=False)
        .values_list("pk", flat=True)
        .first()
        is not None
    )


def _lock_draft(*, draft_id: int, user: User) -> HelenaDraft:
    """Lock and return the draft if `user` may see it (DraftNotFound otherwise) and all its run read
    (DraftPermissionDenied otherwise: its content may come from an Akte `user` may not see). Must
    run inside a transaction."""
    draft = draft_get(user=user, pk=draft_id, lock=True)
    if draft.hides_content:
        raise DraftPermissionDenied(ERR_CONTENT_HIDDEN)
    return draft


def _require_pending(draft: HelenaDraft, action: str) -> None:
    if draft.status != HelenaDraft.Status.PENDING:
        raise DraftConflict(ERR_NOT_PENDING.format(status=draft.get_status_display(), action=action))


def _akte_of(draft: HelenaDraft) -> Akte:
    if draft.akte is None:
        raise DraftInvalid(ERR_AKTE_REQUIRED)
    return draft.akte


def _create_record(draft: HelenaDraft, by: User) -> tuple[models.Model, dict[str, Any]]:
    """Create the record the draft describes. Returns the record and the data needed to undo it."""
    model = _validated(draft.typ, draft.payload)
    verantwortlich = _regeln_pruefen(draft.akte, model)
    origin = {"draft": draft.pk, "origin_run": draft.origin_run_id}
    if isinstance(model, NotizPayload):
        record: models.Model = akten_services.notiz_create(
            akte=draft.akte,
            by=by if draft.akte else draft.requested_by,
            text=model.text,
            titel=model.titel,
            activity_data=origin,
        )
        return record, {}
    akte = _akte_of(draft)
    if isinstance(model, DokumentPayload):
        try:
            schriftstueck = schriftgut_services.schriftstueck_rendern(
                akte=akte,
                titel=model.titel,
                markdown=model.inhalt_markdown,
                vorlage=model.vorlage.model_dump() if model.vorlage else None,
            )
        except VorlagenFehler as exc:
            raise DraftInvalid(ERR_RENDER.format(details=exc.message)) from exc
        record = schriftgut_services.dokument_aus_entwurf(
            akte=akte,
            by=by,
            name=model.titel,
            docx=schriftstueck.docx,
            quelle_markdown=model.inhalt_markdown,
            mandant_sichtbar=model.mandant_sichtbar,
            vorlage=model.vorlage.model_dump() if model.vorlage else None,
            activity_data=origin,
        )
        return record, {}
    if isinstance(model, KostennotePayload):
        nummer = schriftgut_services.rechnungsnummer_vergeben(jahr=timezone.localdate().year)
        try:
            schriftstueck = schriftgut_services.kostennote_rendern(akte=akte, payload=model, nummer=nummer)
        except VorlagenFehler as exc:
            raise DraftInvalid(ERR_RENDER.format(details=exc.message)) from exc
        record = schriftgut_services.dokument_aus_entwurf(
            akte=akte,
            by=by,
            name=f"{model.titel} Nr. {nummer}"[:255],
            docx=schriftstueck.docx,
            # No Markdown source: a new version from text would be set as a letter and lose the
            # invoice (positions, totals, number); a corrected Kostennote comes as an upload.
            quelle_markdown="",
            mandant_sichtbar=False,
            activity_data={**origin, "rechnungsnummer": nummer},
        )
        return record, {"rechnungsnummer": nummer}
    if isinstance(model, KalenderPayload):
        record = akten_services.kalender_eintrag_create(
            akte=akte,
            by=by,
            typ=model.typ,
            titel=model.titel,
            datum=model.datum,
            fristablauf=model.fristablauf,
            vorfrist=model.vorfrist,
            notfrist=model.notfrist,
            uhrzeit=model.uhrzeit,
            beschreibung=model.beschreibung,
            verantwortlich=verantwortlich,
            berechnung=model.berechnung.model_dump(mode="json") if model.berechnung else None,
            activity_data=origin,
        )
        return record, {}
    if isinstance(model, ZeiterfassungPayload):
        record = akten_services.zeiterfassung_create(
            akte=akte,
            by=by,
            user=draft.requested_by,
            datum=model.datum,
            minuten=model.minuten,
            beschreibung=model.beschreibung,
            abrechenbar=model.abrechenbar,
            stundensatz=model.stundensatz,
            activity_data=origin,
        )
        return record, {}
    if isinstance(model, AkteUpdatePayload):
        changes = model.changes.model_dump(exclude_unset=True)
        before = akten_services.akte_update(akte=akte, by=by, changes=changes, activity_data=origin)
        after = model.changes.model_dump(mode="json", exclude_unset=True)
        # the Akte as this approval left it: an undo only while nobody saved it since
        return akte, {"before": before, "after": after, "changed_at": akte.changed_at.isoformat()}
    raise DraftInvalid(ERR_INVALID.format(details=f"unbekannter Typ {draft.typ}"))


def draft_version(draft: HelenaDraft) -> int:
    """The version a reviewer saw: 0 as proposed, +1 per edit (DraftRevision); from the list query's
    annotation where there is one (selectors), else counted now."""
    gezaehlt = getattr(draft, "revision_count", None)
    return gezaehlt if isinstance(gezaehlt, int) else draft.revisions.count()


@transaction.atomic
def draft_accept(*, draft_id: int, by: User, version: int | None = None) -> HelenaDraft:
    """Create the draft's record and mark the draft ACCEPTED by `by` (Endkontrolle).

    `version` is the version `by` reviewed (`draft_version`; the card and the admin always send it):
    when the draft was edited since, nothing is created (DraftConflict), so the Endkontrolle never
    names someone for content they did not see. Without `version` only a draft never edited is
    accepted. Locks the draft row. Raises DraftNotFound
    (invisible or missing), DraftPermissionDenied (role may not approve), DraftConflict (not PENDING
    any more, e.g. a concurrent accept won; or changed since `version`) and DraftInvalid (payload no
    longer valid).
    """
    draft = _lock_draft(draft_id=draft_id, user=by)
    if not user_may_review(by, draft):
        raise DraftPermissionDenied(ERR_NOT_APPROVER)
    _require_pending(draft, "übernommen")
    jetzt = draft_version(draft)
    if version is None and jetzt != 0:
        # edited since it was proposed: without the version reviewed, a replayed or scripted accept
        # would put the approver's name under content they may never have seen
        raise DraftConflict(ERR_VERSION_NEEDED.format(jetzt=jetzt))
    if version is not None and version != jetzt:
        raise DraftConflict(ERR_CHANGED_SINCE.format(jetzt=jetzt, geprueft=version))
    try:
        record, undo_data = _create_record(draft, by)
    except DjangoValidationError as exc:  # a record service's own rule (German): refused, nothing written
        raise DraftInvalid("; ".join(exc.messages)) from exc
    except ValueError as exc:  # the document rules (akten.services.dokument_create, for every document): German
        raise DraftInvalid(str(exc)) from exc
    if draft.typ != HelenaDraft.Typ.AKTE_UPDATE:
        undo_data = {**undo_data, "record": _record_state(record)}
    draft.status = HelenaDraft.Status.ACCEPTED
    draft.reviewer = by
    draft.reviewed_at = timezone.now()
    draft.result_content_type = ContentType.objects.get_for_model(record)
    draft.result_object_id = record.pk
    draft.undo_data = undo_data
    draft.full_clean()
    draft.save()
    if draft.akte is not None:
        akten_services.activity_record(
            akte=draft.akte,
            typ=AktenActivity.Typ.ENTWURF_UEBERNOMMEN,
            beschreibung=f"Entwurf „{draft.titel}“ übernommen (Endkontrolle)",
            by=by,
            data={
                "draft": draft.pk,
                "origin_run": draft.origin_run_id,
                "record": record.pk,
                "record_type": draft.result_content_type.model,
            },
        )
    draft_changed_announce(draft)
    return draft


def _keep_vorlage(draft: HelenaDraft, payload: dict[str, Any]) -> dict[str, Any]:
    """A document draft keeps the template and recipient it was proposed with: an edit changes its
    text and title, never to whom it goes or in which role the Rubrum names the client (for that a
    new draft is made)."""
    payload = {key: value for key, value in payload.items() if key != "vorlage"}
    stored = draft.payload.get("vorlage") if isinstance(draft.payload, dict) else None
    return {**payload, "vorlage": stored} if stored is not None else payload


def _keep_berechnung(draft: HelenaDraft, payload: dict[str, Any]) -> dict[str, Any]:
    """The Fristenrechner's result stays as the draft was proposed with it: an edit neither drops
    nor changes it (else moving the Fristablauf later would only need the key left out)."""
    payload = {key: value for key, value in payload.items() if key != "berechnung"}
    stored = draft.payload.get("berechnung") if isinstance(draft.payload, dict) else None
    return {**payload, "berechnung": stored} if stored is not None else payload


# What the RVG calculator computed for a Kostennote: an edit keeps it (text, period, advances and
# title stay editable), so the issued note is always the calculator's result.
RECHNER_FELDER = (
    "gegenstandswert",
    "auftragsdatum",
    "tabelle",
    "positionen",
    "anrechnungen",
    "auslagen",
    "netto",
    "ust_satz",
    "ust",
    "brutto",
)


def _keep_rechnung(draft: HelenaDraft, payload: dict[str, Any]) -> None:
    """Refuse an edit that changes what the calculator computed (DraftInvalid, German)."""
    stored = draft.payload if isinstance(draft.payload, dict) else {}
    geaendert = [feld for feld in RECHNER_FELDER if payload.get(feld) != stored.get(feld)]
    if geaendert:
        raise DraftInvalid(ERR_KOSTENNOTE_RECHNER.format(felder=", ".join(geaendert)))


@transaction.atomic
def draft_edit(*, draft_id: int, by: User, payload: dict[str, Any]) -> HelenaDraft:
    """Replace the payload of a PENDING draft, keeping the previous version as a revision; the
    rules of `draft_create` apply, and a computed Frist keeps its computation (`_keep_berechnung`).
    Locks the draft row; raises DraftNotFound, DraftPermissionDenied, DraftConflict, DraftInvalid."""
    draft = _lock_draft(draft_id=draft_id, user=by)
    if not user_may_review(by, draft):
        raise DraftPermissionDenied(ERR_NOT_EDITOR)
    _require_pending(draft, "bearbeitet")
    if draft.typ == HelenaDraft.Typ.FRIST and isinstance(payload, dict):
        payload = _keep_berechnung(draft, payload)
    if draft.typ == HelenaDraft.Typ.DOKUMENT and isinstance(payload, dict):
        payload = _keep_vorlage(draft, payload)
    model = _validated(draft.typ, payload)
    if draft.typ == HelenaDraft.Typ.KOSTENNOTE:
        _keep_rechnung(draft, payload_to_json(model))
    _regeln_pruefen(draft.akte, model)
    number = draft.revisions.count() + 1
    DraftRevision.objects.create(draft=draft, number=number, titel=draft.titel, payload=draft.payload, edited_by=by)
    draft.payload = payload_to_json(model)
    draft.titel = shorten(_title_for(draft.typ, model), 200)
    draft.full_clean()
    draft.save()
    if draft.akte is not None:
        akten_services.activity_record(
            akte=draft.akte,
            typ=AktenActivity.Typ.ENTWURF_BEARBEITET,
            beschreibung=_mit_hinweis(f"Entwurf „{draft.titel}“ bearbeitet (Version {number + 1})", draft),
            by=by,
            data={"draft": draft.pk},
        )
    draft_changed_announce(draft)
    return draft


@transaction.atomic
def draft_reject(*, draft_id: int, by: User, reason: str = "", categories: list[str] | None = None) -> HelenaDraft:
    """Reject a PENDING draft with a reason and/or categories; the reasons teach later runs."""
    categories = sorted(set(categories or []))
    invalid = set(categories) - set(HelenaDraft.RejectionCategory.values)
    if invalid:
        raise DraftInvalid(ERR_INVALID.format(details=f"unbekannte Kategorie {', '.join(sorted(invalid))}"))
    if not reason.strip() and not categories:
        raise DraftInvalid(ERR_REJECT_NEEDS_REASON)
    draft = _lock_draft(draft_id=draft_id, user=by)
    if not user_may_review(by, draft):
        raise DraftPermissionDenied(ERR_NOT_REJECTER)
    _require_pending(draft, "abgelehnt")
    draft.status = HelenaDraft.Status.REJECTED
    draft.reviewer = by
    draft.reviewed_at = timezone.now()
    draft.rejection_reason = reason.strip()
    draft.rejection_categories = categories
    draft.full_clean()
    draft.save()
    if draft.akte is not None:
        labels = ", ".join(str(HelenaDraft.RejectionCategory(c).label) for c in categories)
        akten_services.activity_record(
            akte=draft.akte,
            typ=AktenActivity.Typ.ENTWURF_ABGELEHNT,
            beschreibung=f"Entwurf „{draft.titel}“ abgelehnt" + (f" ({labels})" if labels else ""),
            by=by,
            data={"draft": draft.pk, "categories": categories},
        )
    draft_changed_announce(draft)
    return draft


def _restore_akte(draft: HelenaDraft, akte: Akte, by: User) -> None:
    locked = Akte.objects.select_for_update().get(pk=akte.pk)
    # Saved since (another draft setting the same value, the admin): undoing would silently undo that too.
    gespeichert = draft.undo_data.get("changed_at")
    if gespeichert and locked.changed_at.isoformat() != gespeichert:
        raise DraftConflict(ERR_UNDO_AKTE_CHANGED)
    after = draft.undo_data.get("after", {})
    current = {field: getattr(locked, field) for field in after}
    for field, value in after.items():
        if field == "gegenstandswert" and value is not None:
            value = Decimal(value)
        if current[field] != value:
            raise DraftConflict(ERR_UNDO_AKTE_CHANGED)
    before = dict(draft.undo_data.get("before", {}))
    if before.get("gegenstandswert") is not None:
        before["gegenstandswert"] = Decimal(before["gegenstandswert"])
    akten_services.akte_update(akte=locked, by=by, changes=before, activity_data={"undo_draft": draft.pk})


def _record_state(record: Any) -> dict[str, Any]:
    """What a record created by an approval holds (its own fields as text, and its versions): an
    undo deletes it only while this is unchanged."""
    state = {
        field.attname: field.value_to_string(record)
        for field in record._meta.concrete_fields
        if not field.primary_key and not getattr(field, "auto_now", False) and field.name not in _UNDO_IGNORED_FIELDS
    }
    if hasattr(record, "versionen"):
        state["versionen"] = str(record.versionen.count())
    return state


@transaction.atomic
def draft_undo(*, draft_id: int, by: User) -> HelenaDraft:
    """Undo an approval within HELENA_DRAFT_UNDO_SECONDS: delete exactly the record this draft
    created (looked up from the draft itself) and return the draft to PENDING. Only the reviewer
    (or ADMIN), and only while their role may approve. Locks the draft row; raises DraftNotFound,
    DraftPermissionDenied and DraftConflict (not accepted, window over, Akte changed since)."""
    draft = _lock_draft(draft_id=draft_id, user=by)
    if not user_may_review(by, draft):  # taking back an approval is an approval's act (a role changed since)
        raise DraftPermissionDenied(ERR_UNDO_NOT_APPROVER)
    if draft.status != HelenaDraft.Status.ACCEPTED:
        raise DraftConflict(ERR_UNDO_NOT_ACCEPTED)
    if draft.reviewer_id != by.pk and not by.is_admin_role:
        raise DraftPermissionDenied(ERR_UNDO_NOT_REVIEWER)
    window = datetime.timedelta(seconds=settings.HELENA_DRAFT_UNDO_SECONDS)
    if draft.reviewed_at is None or timezone.now() - draft.reviewed_at > window:
        raise DraftConflict(ERR_UNDO_EXPIRED.format(seconds=settings.HELENA_DRAFT_UNDO_SECONDS))
    if draft.typ == HelenaDraft.Typ.AKTE_UPDATE:
        _restore_akte(draft, _akte_of(draft), by)
    else:
        # The record is looked up from the draft's own result link, never from client input.
        record_model = draft.result_content_type.model_class() if draft.result_content_type else None
        if record_model is None:
            raise DraftConflict(ERR_UNDO_NOT_ACCEPTED)
        record = record_model._default_manager.select_for_update().filter(pk=draft.result_object_id).first()
        if record is None:  # deleted elsewhere since (the admin): nothing left to take back
            raise DraftConflict(ERR_UNDO_RECORD_GONE.format(titel=draft.titel))
        if "record" in draft.undo_data and _record_state(record) != draft.undo_data["record"]:
            raise DraftConflict(ERR_UNDO_RECORD_CHANGED.format(titel=draft.titel))
        stored_files = [getattr(record, "datei", None)]
        if hasattr(record, "versionen"):
            stored_files += [version.datei for version in record.versionen.all()]
        record.delete()
        # The files go only once the deletion is committed: a rolled-back undo keeps the Dokument
        # and must keep what it points to.
        for stored_file in stored_files:
            if stored_file:
                transaction.on_commit(partial(stored_file.storage.delete, stored_file.name))
    draft.status = HelenaDraft.Status.PENDING
    draft.reviewer = None
    draft.reviewed_at = None
    draft.result_content_type = None
    draft.result_object_id = None
    draft.undo_data = {}
    draft.full_clean()
    draft.save()
    if draft.akte is not None:
        akten_services.activity_record(
            akte=draft.akte,
            typ=AktenActivity.Typ.ENTWURF_RUECKGAENGIG,
            beschreibung=f"Übernahme von „{draft.titel}“ rückgängig gemacht",
            by=by,
            data={"draft": draft.pk},
        )
    draft_changed_announce(draft)
    return draft


def alert_mark_read(*, alert: HelenaAlert, by: User) -> HelenaAlert:
    if alert.read_at is None:
        alert.read_at = timezone.now()
        alert.read_by = by
        alert.save(update_fields=["read_at", "read_by"])
    return alert


def alert_dismiss(*, alert: HelenaAlert, by: User) -> HelenaAlert:
    if alert.dismissed_at is None:
        alert.dismissed_at = timezone.now()
        alert.dismissed_by = by
        alert.save(update_fields=["dismissed_at", "dismissed_by"])
    return alert


ERR_MESSAGE_EMPTY = "Bitte schreib eine Nachricht."
ERR_MESSAGE_TOO_LONG = "Die Nachricht ist zu lang (höchstens {max} Zeichen)."
ERR_MESSAGE_NOBODY = "Für diese Akte ist niemand zuständig eingetragen. Bitte ruf in der Kanzlei an."
MANDANT_MESSAGE_TITLE = "Nachricht von {name} zur Akte {aktenzeichen}"


@transaction.atomic
def mandant_message_send(*, akte: Akte, by: User, text: str) -> list[HelenaAlert]:
    """A MANDANT's message on her Akte: an alert for the responsible lawyer (or, without one, the
    Sachbearbeitung) and for whoever stands in for them today. The caller has checked that `by`
    sees `akte`. The Aktenverlauf notes that a message arrived, not its text."""
    from akten.models import Vertretung
    from akten.policy import MANDANT_MESSAGE_MAX_CHARS

    text = "".join(ch for ch in (text or "") if ch in "\n\t" or ch.isprintable()).strip()
    if not text:
        raise DraftInvalid(ERR_MESSAGE_EMPTY)
    if len(text) > MANDANT_MESSAGE_MAX_CHARS:
        raise DraftInvalid(ERR_MESSAGE_TOO_LONG.format(max=MANDANT_MESSAGE_MAX_CHARS))
    responsible = akte.anwalt or akte.sachbearbeiter
    if responsible is None:
        raise DraftInvalid(ERR_MESSAGE_NOBODY)
    recipients = [responsible]
    deputies = Vertretung.objects.active().filter(vertretener=responsible).select_related("vertreter")
    recipients += [v.vertreter for v in deputies if v.vertreter.is_active and v.vertreter not in recipients]
    titel = MANDANT_MESSAGE_TITLE.format(name=by.get_full_name() or by.email, aktenzeichen=akte.aktenzeichen)[:200]
    alerts = []
    for recipient in recipients:
        alert = HelenaAlert(
            typ=HelenaAlert.Typ.MANDANT_NACHRICHT, severity=6, titel=titel, text=text, akte=akte, recipient=recipient
        )
        alert.full_clean()
        alert.save()
        alerts.append(alert)
    akten_services.activity_record(
        akte=akte,
        typ=AktenActivity.Typ.NACHRICHT_EINGEGANGEN,
        beschreibung="Nachricht der Mandantschaft eingegangen",
        by=by,
        data={"alerts": [a.pk for a in alerts]},
    )
    return alerts
