"""factory-boy factories for every model, with realistic German data."""

import datetime
from decimal import Decimal

import factory
from django.utils import timezone

from agent.models import AgentRun
from akten.models import (
    Akte,
    AktenActivity,
    Beteiligter,
    Dezernat,
    Dokument,
    KalenderEintrag,
    Kontakt,
    Notiz,
    Role,
    Sachgebiet,
    User,
    Vertretung,
    Zeiterfassung,
)
from drafts.models import HelenaAlert, HelenaDraft
from rechner.models import Basiszinssatz
from tests.support.dates import next_workday

factory.Faker._DEFAULT_LOCALE = "de_DE"


class KontaktFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Kontakt

    typ = Kontakt.Typ.NATUERLICH
    vorname = factory.Faker("first_name")
    nachname = factory.Faker("last_name")
    strasse = factory.Faker("street_address")
    plz = factory.Faker("postcode")
    ort = factory.Faker("city")
    email = factory.Faker("email")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    email = factory.Sequence(lambda n: f"nutzer{n}@kanzlei.example")
    first_name = factory.Faker("first_name")
    last_name = factory.Faker("last_name")
    role = Role.ANWALT
    password = factory.django.Password("geheim-1234")
    kontakt = factory.Maybe(
        factory.LazyAttribute(lambda o: o.role == Role.MANDANT),
        yes_declaration=factory.SubFactory(KontaktFactory),
        no_declaration=None,
    )


class DezernatFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Dezernat

    name = factory.Sequence(lambda n: f"Dezernat {n}")


class VertretungFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Vertretung

    vertretener = factory.SubFactory(UserFactory)
    vertreter = factory.SubFactory(UserFactory)
    beginn = factory.LazyFunction(lambda: timezone.localdate() - datetime.timedelta(days=1))
    ende = factory.LazyFunction(lambda: timezone.localdate() + datetime.timedelta(days=7))


class AkteFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Akte

    aktenzeichen = factory.Sequence(lambda n: f"{n + 1}/26")
    kurzrubrum = factory.LazyFunction(lambda: "Mustermann ./. Schmidt")
    wegen = "Kündigung des Mietverhältnisses"
    sachgebiet = Sachgebiet.MIETRECHT
    gegenstandswert = Decimal("5400.00")
    anwalt = factory.SubFactory(UserFactory, role=Role.ANWALT)


class BeteiligterFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Beteiligter

    akte = factory.SubFactory(AkteFactory)
    kontakt = factory.SubFactory(KontaktFactory)
    rolle = Beteiligter.Rolle.GEGNER


class DokumentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Dokument

    akte = factory.SubFactory(AkteFactory)
    name = "Klageschrift"
    datei = factory.django.FileField(filename="klageschrift.md", data=b"# Klageschrift\n\nText")
    text = "Klageschrift Text"
    text_status = Dokument.TextStatus.OK
    mime_type = "text/markdown"
    groesse = 21


class KalenderEintragFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = KalenderEintrag

    akte = factory.SubFactory(AkteFactory)
    typ = KalenderEintrag.Typ.FRIST
    titel = "Berufungsfrist"
    datum = factory.LazyFunction(timezone.localdate)
    fristablauf = factory.LazyFunction(lambda: next_workday(30))


class ZeiterfassungFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Zeiterfassung

    akte = factory.SubFactory(AkteFactory)
    user = factory.SelfAttribute("akte.anwalt")
    datum = factory.LazyFunction(timezone.localdate)
    minuten = 30
    beschreibung = "Mandantengespräch"


class NotizFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Notiz

    akte = factory.SubFactory(AkteFactory)
    autor = factory.SelfAttribute("akte.anwalt")
    text = "Telefonnotiz: Mandant ruft zurück."


class AgentRunFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AgentRun

    user = factory.SubFactory(UserFactory)


class AktenActivityFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = AktenActivity

    akte = factory.SubFactory(AkteFactory)
    typ = AktenActivity.Typ.AKTE_GEAENDERT
    beschreibung = "Akte geändert"
    actor_user = factory.SelfAttribute("akte.anwalt")


class HelenaDraftFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = HelenaDraft

    typ = HelenaDraft.Typ.NOTIZ
    akte = factory.SubFactory(AkteFactory)
    titel = "Notiz"
    payload = factory.LazyFunction(lambda: {"titel": "Notiz", "text": "Bitte Rückruf."})
    requested_by = factory.SelfAttribute("akte.anwalt")


class HelenaAlertFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = HelenaAlert

    typ = HelenaAlert.Typ.FRIST_KRITISCH
    severity = 8
    titel = "Frist läuft in 2 Tagen ab"
    akte = factory.SubFactory(AkteFactory)
    recipient = factory.SelfAttribute("akte.anwalt")


class BasiszinssatzFactory(factory.django.DjangoModelFactory):
    """The half year right after the shipped history, with a made-up rate (tests only)."""

    class Meta:
        model = Basiszinssatz

    gueltig_ab = datetime.date(2026, 7, 1)
    satz = Decimal("1.52")
    created_by = factory.SubFactory(UserFactory, role=Role.ADMIN, is_staff=True)
