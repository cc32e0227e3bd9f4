"""Demo Kanzlei for `make run` and manual testing. Idempotent: existing rows are kept."""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from akten import services
from akten.fristen_rules import frist_ort_oder_fehler
from akten.models import Akte, Beteiligter, Dezernat, Dokument, KanzleiProfil, Kontakt, Role, Sachgebiet, User, Vertretung
from drafts.models import HelenaDraft
from drafts.services import draft_create
from rechner.feiertage import Feiertagskalender
from rechner.fristen import berechne_preset, vorfrist_datum

DEMO_PASSWORD = "Helena-Demo-2026"  # noqa: S105 - printed by `make run`, demo data only
DEMO_TEXTS = Path(__file__).parent / "demo_data" / "dokumente"
KANZLEI = "Kanzlei Müller & Becker Rechtsanwälte"
KANZLEI_SITZ = ("Köln", "NW")  # all demo courts (Köln, Bonn) are in Nordrhein-Westfalen
# Demo letterhead; the IBAN is the standard example IBAN (valid check digits, no real account).
KANZLEI_BRIEFKOPF = {
    "partner": "Dr. Katrin Müller, Fachanwältin für Mietrecht\nJonas Becker, Fachanwalt für Arbeitsrecht",
    "strasse": "Hohenzollernring 12",
    "plz": "50672",
    "ort": "Köln",
    "telefon": "0221 123456-0",
    "email": "kanzlei@kanzlei.example",
    "web": "www.kanzlei.example",
    "bank_name": "Demo-Bank Köln",
    "iban": "DE89 3704 0044 0532 0130 00",
    "bic": "COBADEFFXXX",
    "ust_id": "DE123456789",
    "kammer": "Rechtsanwaltskammer Köln",
}


@dataclass(frozen=True)
class DemoUser:
    email: str
    first_name: str
    last_name: str
    role: str
    berufsbezeichnung: str = ""


DEMO_USERS = [
    DemoUser("admin@kanzlei.example", "Andrea", "Admin", Role.ADMIN),
    DemoUser("k.mueller@kanzlei.example", "Katrin", "Müller", Role.ANWALT, "Rechtsanwältin und Fachanwältin für Mietrecht"),
    DemoUser("j.becker@kanzlei.example", "Jonas", "Becker", Role.ANWALT, "Rechtsanwalt und Fachanwalt für Arbeitsrecht"),
    DemoUser("s.yilmaz@kanzlei.example", "Selin", "Yılmaz", Role.SACHBEARBEITER),
    DemoUser("m.schulz@kanzlei.example", "Monika", "Schulz", Role.SEKRETARIAT),
    DemoUser("t.wagner@kanzlei.example", "Tim", "Wagner", Role.PRAKTIKANT),
    DemoUser("erika.mustermann@example.org", "Erika", "Mustermann", Role.MANDANT),
]

NACHNAMEN = [
    "Schmidt",
    "Schneider",
    "Fischer",
    "Weber",
    "Meyer",
    "Hoffmann",
    "Schäfer",
    "Koch",
    "Bauer",
    "Richter",
    "Klein",
    "Wolf",
    "Schröder",
    "Neumann",
    "Schwarz",
    "Zimmermann",
    "Braun",
    "Krüger",
    "Hofmann",
    "Hartmann",
    "Lange",
    "Schmitt",
    "Werner",
    "Krause",
    "Lehmann",
    "Köhler",
    "Maier",
    "Herrmann",
    "König",
    "Walter",
]
VORNAMEN = ["Anna", "Lukas", "Sophie", "Felix", "Marie", "Paul", "Laura", "Jan", "Julia", "Tobias", "Lea", "Stefan"]
FIRMEN = [
    "Wohnbau Rhein-Ruhr GmbH",
    "Stadtwerke Musterstadt GmbH",
    "Logistik Nord AG",
    "Autohaus Berger KG",
    "Pflegedienst Sonnenschein gGmbH",
    "HUK-Demo Versicherung AG",
    "Immobilienverwaltung Altstadt GmbH",
]
GERICHTE = [
    "Amtsgericht Köln",
    "Landgericht Köln",
    "Arbeitsgericht Köln",
    "Amtsgericht Bonn",
    "Amtsgericht – Familiengericht – Köln",
]

# (Sachgebiet, wegen, Dokument-Vorlagen, Gericht, Gegner ist Firma)
FALLTYPEN = [
    (Sachgebiet.MIETRECHT, "Eigenbedarfskündigung", ["kuendigung_mietverhaeltnis", "schriftwechsel_gegner"], 0, False),
    (Sachgebiet.MIETRECHT, "Räumung und Mietrückstand", ["klageschrift_miete", "gerichtsverfuegung"], 0, True),
    (Sachgebiet.MIETRECHT, "Mietminderung wegen Schimmelbefall", ["schriftwechsel_gegner", "mandantenanschreiben"], None, True),
    (Sachgebiet.ARBEITSRECHT, "Kündigungsschutzklage", ["arbeitgeber_kuendigung", "kuendigungsschutzklage"], 2, True),
    (
        Sachgebiet.ARBEITSRECHT,
        "Urlaubsabgeltung und Arbeitszeugnis",
        ["schriftwechsel_gegner", "mandantenanschreiben"],
        None,
        True,
    ),
    (
        Sachgebiet.VERKEHRSRECHT,
        "Verkehrsunfall vom Frühjahr, Schadensersatz",
        ["unfallbericht_schadensanzeige", "mandantenanschreiben"],
        None,
        True,
    ),
    (Sachgebiet.FAMILIENRECHT, "Ehescheidung und Versorgungsausgleich", ["scheidungsantrag", "mandantenanschreiben"], 4, False),
    (Sachgebiet.INKASSO, "offene Werklohnforderung", ["mahnung_inkasso", "schriftwechsel_gegner"], None, False),
    (Sachgebiet.INKASSO, "Forderung aus Kaufvertrag, Mahnverfahren", ["mahnung_inkasso", "gerichtsverfuegung"], 3, False),
]

DOKUMENT_TITEL = {
    "klageschrift_miete": "Klageschrift",
    "kuendigung_mietverhaeltnis": "Kündigungsschreiben des Vermieters",
    "schriftwechsel_gegner": "Schreiben der Gegenseite",
    "kuendigungsschutzklage": "Kündigungsschutzklage",
    "arbeitgeber_kuendigung": "Kündigung des Arbeitgebers",
    "unfallbericht_schadensanzeige": "Unfallbericht und Schadensanzeige",
    "mahnung_inkasso": "Mahnung",
    "scheidungsantrag": "Scheidungsantrag",
    "mandantenanschreiben": "Sachstandsbericht an Mandantschaft",
    "gerichtsverfuegung": "Verfügung des Gerichts",
}

AKTEN_COUNT = 30


def _user(spec: DemoUser, kontakt: Kontakt | None) -> User:
    user = User.objects.filter(email=spec.email).first()
    if user is None:
        user = User.objects.create_user(
            spec.email,
            DEMO_PASSWORD,
            first_name=spec.first_name,
            last_name=spec.last_name,
            role=spec.role,
            berufsbezeichnung=spec.berufsbezeichnung,
            kontakt=kontakt,
            is_staff=spec.role == Role.ADMIN,
            is_superuser=spec.role == Role.ADMIN,
        )
    return user


def _kontakt(**fields: Any) -> Kontakt:
    kontakt, _ = Kontakt.objects.get_or_create(**fields)
    return kontakt


def _person(rng: random.Random) -> Kontakt:
    vorname, nachname = rng.choice(VORNAMEN), rng.choice(NACHNAMEN)
    ort = rng.choice(["Köln", "Bonn", "Leverkusen", "Bergisch Gladbach", "Hürth"])
    return _kontakt(
        typ=Kontakt.Typ.NATUERLICH,
        vorname=vorname,
        nachname=nachname,
        strasse=f"{rng.choice(['Lindenstraße', 'Am Markt', 'Rheinufer', 'Gartenweg'])} {rng.randint(1, 120)}",
        plz=str(rng.randint(50667, 51149)),
        ort=ort,
        email=f"{vorname.lower()}.{nachname.lower()}@example.org".replace("ä", "ae").replace("ö", "oe").replace("ü", "ue"),
    )


def _text(name: str, **values: str) -> str:
    return (DEMO_TEXTS / f"{name}.md").read_text(encoding="utf-8").format(**values)


@transaction.atomic
@dataclass(frozen=True)
class _Kanzlei:
    """The people of the demo Kanzlei that the Akten are built around."""

    erika: Kontakt
    users: dict[str, User]
    zivil: Dezernat
    arbeit: Dezernat

    def user(self, local: str) -> User:
        return self.users[f"{local}@kanzlei.example"]


def seed_demo(*, today: datetime.date | None = None) -> dict[str, int]:
    """Create the demo Kanzlei. Returns how many Akten were created (0 on a second run)."""
    today = today or timezone.localdate()
    rng = random.Random(2026)  # noqa: S311 - deterministic demo data, not security relevant
    kanzlei = _seed_people(today)
    if KanzleiProfil.current() is None:
        KanzleiProfil(name=KANZLEI, sitz_ort=KANZLEI_SITZ[0], sitz_bundesland=KANZLEI_SITZ[1], **KANZLEI_BRIEFKOPF).save()
    created = 0
    for index in range(AKTEN_COUNT):
        aktenzeichen = f"{101 + index}/{today:%y}"
        if not Akte.objects.filter(aktenzeichen=aktenzeichen).exists():
            _seed_akte(kanzlei, index=index, aktenzeichen=aktenzeichen, rng=rng, today=today)
            created += 1
    if created:
        _seed_drafts(today=today, mueller=kanzlei.user("k.mueller"), becker=kanzlei.user("j.becker"))
    return {"akten": created, "users": len(kanzlei.users), "admin": kanzlei.user("admin").pk}


def _seed_people(today: datetime.date) -> _Kanzlei:
    """The demo users (the Mandantin with her Kontakt), the two Dezernate and a running Vertretung."""
    erika = _kontakt(
        typ=Kontakt.Typ.NATUERLICH,
        anrede="Frau",
        vorname="Erika",
        nachname="Mustermann",
        strasse="Heidestraße 17",
        plz="51147",
        ort="Köln",
        email="erika.mustermann@example.org",
        telefon="0221 555 0172",
    )
    users = {spec.email: _user(spec, erika if spec.role == Role.MANDANT else None) for spec in DEMO_USERS}
    mueller, becker = users["k.mueller@kanzlei.example"], users["j.becker@kanzlei.example"]
    zivil, _ = Dezernat.objects.get_or_create(name="Zivil- und Mietrecht")
    zivil.members.add(mueller, users["s.yilmaz@kanzlei.example"], users["m.schulz@kanzlei.example"])
    arbeit, _ = Dezernat.objects.get_or_create(name="Arbeits- und Verkehrsrecht")
    arbeit.members.add(becker, users["t.wagner@kanzlei.example"])
    Vertretung.objects.get_or_create(
        vertretener=mueller,
        vertreter=becker,
        defaults={"beginn": today - datetime.timedelta(days=2), "ende": today + datetime.timedelta(days=12), "grund": "Urlaub"},
    )
    return _Kanzlei(erika=erika, users=users, zivil=zivil, arbeit=arbeit)


def _seed_akte(kanzlei: _Kanzlei, *, index: int, aktenzeichen: str, rng: random.Random, today: datetime.date) -> Akte:
    """One Akte of the case type `index` picks, with Beteiligte, Dokumente, Kalender, Zeiten and a note.

    The calls to `rng` keep their order: the demo data is the same on every machine."""
    sachgebiet, wegen, vorlagen, gericht_index, gegner_firma = FALLTYPEN[index % len(FALLTYPEN)]
    is_arbeit = sachgebiet in (Sachgebiet.ARBEITSRECHT, Sachgebiet.VERKEHRSRECHT)
    anwalt, dezernat = (kanzlei.user("j.becker"), kanzlei.arbeit) if is_arbeit else (kanzlei.user("k.mueller"), kanzlei.zivil)
    mandant = kanzlei.erika if index in (0, 3) else _person(rng)
    gegner = _kontakt(typ=Kontakt.Typ.JURISTISCH, firma=rng.choice(FIRMEN), ort="Köln") if gegner_firma else _person(rng)
    status = Akte.Status.OFFEN if index < 26 else rng.choice([Akte.Status.RUHEND, Akte.Status.ARCHIVIERT])
    akte = services.akte_create(
        by=anwalt,
        aktenzeichen=aktenzeichen,
        kurzrubrum=f"{mandant.nachname or mandant.firma} ./. {gegner.nachname or gegner.firma}",
        sachgebiet=sachgebiet,
        wegen=wegen,
        anwalt=anwalt,
        sachbearbeiter=None if is_arbeit else kanzlei.user("s.yilmaz"),
        gegenstandswert=Decimal(rng.choice([1800, 4250, 7600, 12000, 23500, 48000])),
        status=status,
        tags=[str(sachgebiet.label)],
        dezernate=[dezernat] if index % 4 else [],
    )
    gericht_name = _seed_beteiligte(akte, anwalt=anwalt, mandant=mandant, gegner=gegner, gericht_index=gericht_index, rng=rng)
    values = {
        "mandant": mandant.display_name,
        "gegner": gegner.display_name,
        "aktenzeichen": aktenzeichen,
        "gericht": gericht_name or "Amtsgericht Köln",
        "datum": (today - datetime.timedelta(days=10 + index)).strftime("%d.%m.%Y"),
        "anwalt": anwalt.get_full_name(),
        "kanzlei": KANZLEI,
        "betrag": f"{rng.randint(800, 9800)},00 EUR",
    }
    for position, vorlage in enumerate(vorlagen):
        services.dokument_create(
            akte=akte,
            by=anwalt,
            name=f"{DOKUMENT_TITEL[vorlage]} {mandant.nachname or mandant.firma}",
            filename=f"{vorlage}.md",
            content=_text(vorlage, **values).encode(),
            mime_type="text/markdown",
            status=Dokument.Status.FREIGEGEBEN if position == 0 else Dokument.Status.ZUR_PRUEFUNG,
            mandant_sichtbar=vorlage == "mandantenanschreiben",
        )
    _seed_kalender(
        akte, anwalt=anwalt, sekretariat=kanzlei.user("m.schulz"), gericht_name=gericht_name, index=index, rng=rng, today=today
    )
    for offset, (minuten, taetigkeit) in enumerate([(30, "Mandantengespräch"), (45, "Aktenstudium und Schriftsatzentwurf")]):
        services.zeiterfassung_create(
            akte=akte,
            by=anwalt,
            datum=today - datetime.timedelta(days=offset + 1),
            minuten=minuten,
            beschreibung=taetigkeit,
            stundensatz=Decimal("220.00"),
        )
    services.notiz_create(
        akte=akte,
        by=kanzlei.user("t.wagner") if is_arbeit else kanzlei.user("s.yilmaz"),
        titel="Telefonnotiz",
        text=f"{mandant.display_name} hat angerufen und nach dem Sachstand gefragt. "
        f"Rückruf durch {anwalt.get_full_name()} erbeten.",
    )
    return akte


def _seed_beteiligte(
    akte: Akte, *, anwalt: User, mandant: Kontakt, gegner: Kontakt, gericht_index: int | None, rng: random.Random
) -> str:
    """Mandant, Gegner and (for a court case) the court with its Aktenzeichen; the court's name or ""."""
    services.beteiligter_add(akte=akte, by=anwalt, kontakt=mandant, rolle=Beteiligter.Rolle.MANDANT)
    services.beteiligter_add(akte=akte, by=anwalt, kontakt=gegner, rolle=Beteiligter.Rolle.GEGNER)
    if gericht_index is None:
        return ""
    gericht_name = GERICHTE[gericht_index]
    gericht = _kontakt(typ=Kontakt.Typ.JURISTISCH, firma=gericht_name, ort=gericht_name.split()[-1])
    gericht_aktenzeichen = f"{rng.randint(2, 29)} C {rng.randint(100, 999)}/{akte.aktenzeichen.split('/')[-1]}"
    services.beteiligter_add(
        akte=akte,
        by=anwalt,
        kontakt=gericht,
        rolle=Beteiligter.Rolle.GERICHT,
        aktenzeichen_extern=gericht_aktenzeichen,
    )
    services.akte_gericht_set(
        akte=akte,
        by=anwalt,
        name=gericht_name,
        ort=gericht.ort,
        bundesland=KANZLEI_SITZ[1],
        aktenzeichen=gericht_aktenzeichen,
    )
    return gericht_name


def _seed_kalender(
    akte: Akte, *, anwalt: User, sekretariat: User, gericht_name: str, index: int, rng: random.Random, today: datetime.date
) -> None:
    """A Frist (some this week, some Notfristen), the hearing of a court case and a Wiedervorlage."""
    ereignis = today - datetime.timedelta(days=rng.randint(3, 20))
    ablauf = today + datetime.timedelta(days=(index % 9) + 1)
    kalender = Feiertagskalender(KANZLEI_SITZ[1], KANZLEI_SITZ[0])
    while not kalender.ist_werktag(ablauf):
        ablauf += datetime.timedelta(days=1)
    services.kalender_eintrag_create(
        akte=akte,
        by=anwalt,
        typ="FRIST",
        titel="Stellungnahme / Erwiderung einreichen",
        datum=ereignis,
        fristablauf=ablauf,
        # three days before, moved earlier off weekends and holidays (as the Fristenrechner does)
        vorfrist=max(ereignis, vorfrist_datum(ablauf, 3, arbeitstage=False, kalender=kalender)),
        notfrist=index % 5 == 0,
        verantwortlich=anwalt,
    )
    if gericht_name:
        services.kalender_eintrag_create(
            akte=akte,
            by=sekretariat,
            typ="TERMIN",
            titel=f"Mündliche Verhandlung, {gericht_name}",
            datum=today + datetime.timedelta(days=20 + index),
            uhrzeit=datetime.time(9, 30),
            verantwortlich=anwalt,
        )
    services.kalender_eintrag_create(
        akte=akte,
        by=sekretariat,
        typ="WIEDERVORLAGE",
        titel="Wiedervorlage: Sachstand prüfen",
        datum=today + datetime.timedelta(days=7 + index % 14),
        verantwortlich=anwalt,
    )


def _seed_drafts(*, today: datetime.date, mueller: User, becker: User) -> None:
    if HelenaDraft.objects.exists():
        return
    year = today.strftime("%y")
    first = Akte.objects.get(aktenzeichen=f"101/{year}")
    arbeit = Akte.objects.get(aktenzeichen=f"104/{year}")
    zugang = today - datetime.timedelta(days=4)
    ort = frist_ort_oder_fehler(akte=arbeit)
    klagefrist = berechne_preset("kuendigungsschutzklage", zugang, ort.bundesland, ort=ort.ort, ortsquelle=ort.quelle)
    draft_create(
        typ="FRIST",
        akte=arbeit,
        requested_by=becker,
        payload={
            "typ": "FRIST",
            "titel": "Klagefrist Kündigungsschutzklage (§ 4 KSchG)",
            "datum": str(zugang),
            "fristablauf": str(klagefrist.fristablauf),
            "vorfrist": str(klagefrist.vorfrist) if klagefrist.vorfrist else None,
            "notfrist": False,
        },
    )
    draft_create(
        typ="DOKUMENT",
        akte=first,
        requested_by=mueller,
        payload={
            "titel": "Widerspruch gegen die Eigenbedarfskündigung",
            "inhalt_markdown": "Sehr geehrte Damen und Herren,\n\nnamens und in Vollmacht unserer Mandantin "
            "widersprechen wir der Kündigung vom ... und verlangen die Fortsetzung des Mietverhältnisses "
            "nach **§ 574 BGB**.\n\nMit freundlichen Grüßen",
        },
    )
    draft_create(
        typ="ZEITERFASSUNG",
        akte=first,
        requested_by=mueller,
        payload={
            "datum": str(today),
            "minuten": 20,
            "beschreibung": "Prüfung der Kündigung auf formelle Wirksamkeit (Entwurf von Helena)",
        },
    )
    draft_create(
        typ="AKTE_UPDATE",
        akte=first,
        requested_by=mueller,
        payload={
            "changes": {
                "zusammenfassung": "Vermieter kündigt wegen Eigenbedarfs; Mandantin widerspricht (Härtefall, § 574 BGB). "
                "Frist zur Stellungnahme läuft."
            },
            "begruendung": "Zusammenfassung aus Kündigungsschreiben und Schriftwechsel",
        },
    )
    draft_create(
        typ="NOTIZ",
        akte=arbeit,
        requested_by=becker,
        payload={
            "titel": "Hinweis Sozialauswahl",
            "text": "Bitte prüfen, ob die Sozialauswahl nach § 1 Abs. 3 KSchG fehlerhaft war.",
        },
    )
