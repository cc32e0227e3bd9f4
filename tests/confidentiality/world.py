"""A Kanzlei in which every piece of internal data carries a unique marker, for the "what does a
Mandant (or a former deputy) receive" suites: whatever they collect must contain none of them."""

from __future__ import annotations

import datetime
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from akten.models import AktenActivity, Beteiligter, Dokument, KalenderEintrag, Role, Vertretung
from drafts.models import HelenaDraft
from tests.factories import (
    AkteFactory,
    AktenActivityFactory,
    BeteiligterFactory,
    DokumentFactory,
    HelenaAlertFactory,
    HelenaDraftFactory,
    KalenderEintragFactory,
    KontaktFactory,
    NotizFactory,
    UserFactory,
    ZeiterfassungFactory,
)

RELEASED_DOCUMENT = "Freigegebenes Schreiben an die Mandantin"
TERMIN_TITLE = "Mündliche Verhandlung Saal 3"


@dataclass
class World:
    lawyer: Any
    mandantin: Any
    akte: Any
    foreign_akte: Any
    colleague: Any  # staff who may see the Akte (positive control)
    deputy: Any  # stood in for the lawyer; `end_vertretung()` ends it
    vertretung: Any
    pending_drafts: list[Any]
    markers: dict[str, str] = field(default_factory=dict)
    ids: set[int] = field(default_factory=set)

    def leaked(self, text: str) -> list[str]:
        """The markers found in `text`."""
        return sorted(kind for kind, marker in self.markers.items() if marker in text)

    def end_vertretung(self) -> None:
        yesterday = timezone.localdate() - datetime.timedelta(days=1)
        Vertretung.objects.filter(pk=self.vertretung.pk).update(beginn=yesterday - datetime.timedelta(days=7), ende=yesterday)


def build_world() -> World:
    markers: dict[str, str] = {}

    def mark(kind: str) -> str:
        markers[kind] = f"GEHEIM{kind.upper().replace('-', '')}{uuid.uuid4().hex[:10]}"
        return markers[kind]

    lawyer = UserFactory(role=Role.ANWALT, last_name="Anwaltfrau")
    mandantin = UserFactory(role=Role.MANDANT)
    colleague = UserFactory(role=Role.ADMIN)
    deputy = UserFactory(role=Role.ANWALT)
    vertretung = Vertretung.objects.create(
        vertretener=lawyer,
        vertreter=deputy,
        beginn=timezone.localdate() - datetime.timedelta(days=1),
        ende=timezone.localdate() + datetime.timedelta(days=7),
    )
    akte = AkteFactory(
        anwalt=lawyer,
        notizen=mark("akte-notizen"),
        zusammenfassung=mark("sachstand"),
        tags=[mark("tag")],
    )
    BeteiligterFactory(akte=akte, kontakt=mandantin.kontakt, rolle=Beteiligter.Rolle.MANDANT)
    BeteiligterFactory(akte=akte, kontakt=KontaktFactory(strasse=mark("gegner-anschrift")), rolle=Beteiligter.Rolle.GEGNER)
    NotizFactory(akte=akte, titel=mark("notiz-titel"), text=mark("notiz"))
    DokumentFactory(akte=akte, name=mark("dokument-intern"), text=mark("dokument-intern-text"), mandant_sichtbar=False)
    DokumentFactory(akte=akte, name=RELEASED_DOCUMENT, text="Sehr geehrte Frau, anbei die Klageschrift.", mandant_sichtbar=True)
    DokumentFactory(
        akte=akte,
        name="Extraktion",
        text="",
        mandant_sichtbar=True,
        text_status=Dokument.TextStatus.FEHLER,
        text_fehler=mark("extraktionsfehler"),
    )
    KalenderEintragFactory(akte=akte, typ=KalenderEintrag.Typ.FRIST, titel=mark("frist"), beschreibung=mark("frist-text"))
    KalenderEintragFactory(akte=akte, typ=KalenderEintrag.Typ.WIEDERVORLAGE, titel=mark("wiedervorlage"), fristablauf=None)
    # her Termin: the title and date are hers, the internal description is not
    KalenderEintragFactory(
        akte=akte,
        typ=KalenderEintrag.Typ.TERMIN,
        titel=TERMIN_TITLE,
        beschreibung=mark("termin-text"),
        datum=timezone.localdate() + datetime.timedelta(days=10),
        fristablauf=None,
    )
    ZeiterfassungFactory(akte=akte, beschreibung=mark("zeit"))
    pending = [
        HelenaDraftFactory(akte=akte, titel=mark(f"entwurf-{n}"), payload={"titel": "Notiz", "text": mark(f"entwurf-text-{n}")})
        for n in range(3)
    ]
    HelenaDraftFactory(
        akte=akte,
        titel=mark("abgelehnt-titel"),
        status=HelenaDraft.Status.REJECTED,
        reviewer=lawyer,
        reviewed_at=timezone.now(),
        rejection_reason=mark("ablehnungsgrund"),
    )
    AktenActivityFactory(akte=akte, typ=AktenActivity.Typ.AKTE_GEAENDERT, beschreibung=mark("verlauf"))
    HelenaAlertFactory(akte=akte, recipient=lawyer, titel=mark("hinweis-titel"), text=mark("hinweis"))

    foreign_akte = AkteFactory(kurzrubrum=mark("fremde-akte"), wegen=mark("fremde-sache"))
    BeteiligterFactory(
        akte=foreign_akte, kontakt=KontaktFactory(nachname=mark("fremder-mandant")), rolle=Beteiligter.Rolle.MANDANT
    )
    DokumentFactory(akte=foreign_akte, name=mark("fremdes-dokument"), mandant_sichtbar=True)
    KalenderEintragFactory(akte=foreign_akte, typ=KalenderEintrag.Typ.TERMIN, titel=mark("fremder-termin"), fristablauf=None)

    world = World(
        lawyer=lawyer,
        mandantin=mandantin,
        akte=akte,
        foreign_akte=foreign_akte,
        colleague=colleague,
        deputy=deputy,
        vertretung=vertretung,
        pending_drafts=pending,
        markers=markers,
    )
    world.ids = _all_ids()
    return world


def _all_ids() -> set[int]:
    """The primary keys of the world's client data: URL parameters are tried with each of them."""
    from agent.models import AgentRun, Conversation
    from akten.models import Akte, Kontakt, Notiz, Zeiterfassung
    from drafts.models import HelenaAlert

    models = (Akte, Beteiligter, Kontakt, Dokument, KalenderEintrag, Zeiterfassung, Notiz, AktenActivity)
    models += (HelenaDraft, HelenaAlert, AgentRun, Conversation)
    ids: set[int] = set()
    for model in models:
        ids.update(model.objects.values_list("pk", flat=True))
    return ids
