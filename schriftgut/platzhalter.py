"""The fixed, documented set of placeholders a template may use, and their values for an Akte.

A value that the Akte or the Kanzleiprofil does not provide is *missing*: it is listed (German
label) and printed as a visible marker „[fehlt: …]“, never left empty or as `{{ }}`.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from typing import Any

from babel import Locale
from django.utils import timezone

from akten.models import Akte, Beteiligter, KanzleiProfil, Kontakt, User
from rechner.tabellen import format_euro

MONATE = (
    "Januar",
    "Februar",
    "März",
    "April",
    "Mai",
    "Juni",
    "Juli",
    "August",
    "September",
    "Oktober",
    "November",
    "Dezember",
)

# name -> German description (shown in admin, README and errors). Order is the documentation order.
PLATZHALTER: dict[str, str] = {
    "briefkopf": "Briefkopf als Textblock: Kanzlei, Partner, Anschrift, Telefon, E-Mail",
    "kanzlei": "Name der Kanzlei",
    "kanzlei_anschrift": "Anschrift der Kanzlei (eine Zeile)",
    "kanzlei_absender": "Absenderzeile über dem Adressfeld",
    "kanzlei_telefon": "Telefon der Kanzlei",
    "kanzlei_email": "E-Mail der Kanzlei",
    "kanzlei_web": "Website der Kanzlei",
    "kanzlei_bank": "Bank",
    "kanzlei_iban": "IBAN",
    "kanzlei_bic": "BIC",
    "kanzlei_ust_id": "USt-IdNr.",
    "kanzlei_steuernummer": "Steuernummer",
    "kanzlei_steuer": "USt-IdNr. oder Steuernummer (§ 14 Abs. 4 Nr. 2 UStG), z. B. „USt-IdNr.: DE123456789“",
    "kanzlei_kammer": "Rechtsanwaltskammer",
    "partner": "Partner und Anwälte (eine Zeile je Person)",
    "datum": "heutiges Datum, z. B. 24. November 2026",
    "ort_datum": "Ort und Datum, z. B. Berlin, 24. November 2026",
    "betreff": "Titel des Dokuments",
    "aktenzeichen": "Aktenzeichen der Kanzlei",
    "kurzrubrum": "Kurzrubrum der Akte",
    "wegen": "Gegenstand („wegen …“)",
    "gericht": "Gericht",
    "gericht_ort": "Ort des Gerichts",
    "gericht_anschrift": "Anschrift des Gerichts (vom Beteiligten „Gericht“ der Akte, sonst sein Ort)",
    "gericht_aktenzeichen": "Aktenzeichen des Gerichts",
    "rubrum": "Rubrum: Parteien mit Anschrift und Rolle, Prozessbevollmächtigte",
    "parteien": "Liste der Beteiligten (je name, anschrift, rolle) für eigene Schleifen",
    "mandant": "Mandant/in",
    "mandant_anschrift": "Anschrift des Mandanten",
    "gegner": "Gegner/in",
    "gegner_anschrift": "Anschrift des Gegners",
    "gegnervertreter": "Vertreter/in des Gegners",
    "empfaenger": "an wen der Brief geht: die Mandantschaft oder die Gegenseite, dann ihre Vertretung, wenn sie eine hat "
    "(§ 12 BORA), sonst der Gegner; wer den Brief entwirft, sagt, an wen (eine Kostennote geht an die Mandantschaft)",
    "empfaenger_anschrift": "Anschrift dieses Empfängers (Zeilen, im Ausland mit Land)",
    "anrede": "Anrede dieses Empfängers, z. B. „Sehr geehrte Frau Schmidt,“ oder „Sehr geehrte Damen und Herren,“",
    "prozessbevollmaechtigte": "Prozessbevollmächtigte des Mandanten (die Kanzlei)",
    "streitwert": "Streitwert / Gegenstandswert in Euro",
    "anwalt": "verantwortliche Anwältin / verantwortlicher Anwalt",
    "unterschrift": "Unterschriftenblock",
    "freitext": "Text von Helena bzw. aus dem Entwurf; als eigener Absatz: {{p freitext }}",
    "rechnung": "nur Kostennoten: Rechnungsnummer, Positionen, Summen (siehe README)",
}

# Placeholders that hold lines (rendered with line breaks).
MEHRZEILIG = frozenset(
    {
        "briefkopf",
        "partner",
        "rubrum",
        "unterschrift",
        "mandant_anschrift",
        "gegner_anschrift",
        "empfaenger",
        "empfaenger_anschrift",
    }
)
ANREDE_ALLGEMEIN = "Sehr geehrte Damen und Herren,"
# Country names in German (CLDR, through Babel) for a foreign address's last line.
_LAENDER = Locale("de")

# May stay empty: a Kostennote needs no free text, a list of parties may be empty.
OPTIONAL = frozenset({"freitext", "parteien"})

PARTEI_KLAEGER = "KLAEGER"
PARTEI_BEKLAGTER = "BEKLAGTER"


def datum_lang(day: datetime.date) -> str:
    return f"{day.day}. {MONATE[day.month - 1]} {day.year}"


def _anschrift_zeilen(kontakt: Kontakt) -> list[str]:
    """Street and town; abroad the country in capitals as the last line (DIN 5008)."""
    zeilen = [kontakt.strasse, f"{kontakt.plz} {kontakt.ort}".strip()]
    land = (kontakt.land or "DE").upper()
    if land != "DE":
        zeilen.append(_LAENDER.territories.get(land, land).upper())
    return [z for z in zeilen if z]


def _anrede(kontakt: Kontakt | None) -> str:
    """ "Sehr geehrte Frau Dr. Schmidt," for a person whose Anrede is known, else the general one."""
    if kontakt is None or kontakt.typ == Kontakt.Typ.JURISTISCH or not kontakt.nachname:
        return ANREDE_ALLGEMEIN
    anrede = " ".join(kontakt.anrede.split())
    # "Herrn" is the address field's form ("Herrn Max Beispiel"), the salutation says "Herr"
    anrede = re.sub(r"^Herrn\b", "Herr", anrede, flags=re.IGNORECASE)
    if anrede.lower().startswith("frau"):
        return f"Sehr geehrte {anrede} {kontakt.nachname},"
    if anrede.lower().startswith("herr"):
        return f"Sehr geehrter {anrede} {kontakt.nachname},"
    return ANREDE_ALLGEMEIN


def _feminin(kontakt: Kontakt) -> bool | None:
    if kontakt.typ == Kontakt.Typ.JURISTISCH:
        return True  # die Gesellschaft, die Behörde
    anrede = kontakt.anrede.strip().lower()
    if anrede.startswith("frau"):
        return True
    if anrede.startswith("herr"):
        return False
    return None


def _anwalt_zeilen(kontakt: Kontakt) -> list[str]:
    """A lawyer of the other side as a letter addresses them: the firm (if any) and the person with
    the professional title where the Anrede tells it (DIN 5008: the firm first)."""
    feminin = _feminin(kontakt) if kontakt.typ == Kontakt.Typ.NATUERLICH else None
    titel = {True: "Rechtsanwältin ", False: "Rechtsanwalt ", None: ""}[feminin]
    name = kontakt.display_name if kontakt.typ == Kontakt.Typ.JURISTISCH else f"{titel}{kontakt.display_name}"
    firma = kontakt.firma.strip() if kontakt.typ == Kontakt.Typ.NATUERLICH else ""
    return [firma, name] if firma else [name]


def aufzaehlung(namen: list[str]) -> str:
    """„A“, „A und B“, „A, B und C“."""
    return namen[0] if len(namen) == 1 else f"{', '.join(namen[:-1])} und {namen[-1]}" if namen else ""


def parteibezeichnung(partei: str, kontakt: Kontakt) -> str:
    """„Klägerin“, „Beklagter“ …; without a known gender the neutral „Klagepartei“."""
    feminin = _feminin(kontakt)
    if partei == PARTEI_KLAEGER:
        return {True: "Klägerin", False: "Kläger", None: "Klagepartei"}[feminin]
    return {True: "Beklagte", False: "Beklagter", None: "beklagte Partei"}[feminin]


@dataclass
class Kontext:
    """Template values (None = missing) and what they are called for people."""

    werte: dict[str, Any] = field(default_factory=dict)

    def fehlend(self, benutzt: set[str]) -> list[str]:
        """German descriptions of the used placeholders that have no value, in documentation order."""
        return [
            PLATZHALTER[name]
            for name in PLATZHALTER
            if name in benutzt and name not in OPTIONAL and self.werte.get(name) in (None, "", [])
        ]


def _profil_werte(profil: KanzleiProfil | None) -> dict[str, Any]:
    if profil is None:
        return {}
    briefkopf = [profil.name, *profil.partner.splitlines(), profil.anschrift]
    kontakt = " · ".join(p for p in (profil.telefon and f"Tel. {profil.telefon}", profil.email, profil.web) if p)
    briefkopf.append(kontakt)
    return {
        "briefkopf": "\n".join(z.strip() for z in briefkopf if z and z.strip()),
        "kanzlei": profil.name,
        "kanzlei_anschrift": profil.anschrift,
        "kanzlei_absender": " · ".join(p for p in (profil.name, profil.strasse, f"{profil.plz} {profil.ort}".strip()) if p),
        "kanzlei_telefon": profil.telefon,
        "kanzlei_email": profil.email,
        "kanzlei_web": profil.web,
        "kanzlei_bank": profil.bank_name,
        "kanzlei_iban": profil.iban,
        "kanzlei_bic": profil.bic,
        "kanzlei_ust_id": profil.ust_id,
        "kanzlei_steuernummer": profil.steuernummer,
        # an invoice names the one or the other (§ 14 Abs. 4 Nr. 2 UStG)
        "kanzlei_steuer": (profil.ust_id and f"USt-IdNr.: {profil.ust_id}")
        or (profil.steuernummer and f"Steuernummer: {profil.steuernummer}")
        or None,
        "kanzlei_kammer": profil.kammer,
        "partner": "\n".join(z.strip() for z in profil.partner.splitlines() if z.strip()),
    }


def _rubrum(
    *,
    akte: Akte,
    mandanten: list[Kontakt],
    gegner: list[Kontakt],
    mandant_partei: str,
    bevollmaechtigte: str | None,
    gegnervertreter: str | None = None,
) -> str | None:
    """The Rubrum of a pleading. Needs the Mandant's side (Kläger/Beklagter) and both parties; each
    side with its Prozessbevollmächtigte where the Akte names them."""
    if mandant_partei not in (PARTEI_KLAEGER, PARTEI_BEKLAGTER) or not mandanten or not gegner:
        return None
    gegner_partei = PARTEI_BEKLAGTER if mandant_partei == PARTEI_KLAEGER else PARTEI_KLAEGER
    seiten = {mandant_partei: mandanten, gegner_partei: gegner}
    zeilen = ["In dem Rechtsstreit", ""]
    for index, partei in enumerate((PARTEI_KLAEGER, PARTEI_BEKLAGTER)):
        if index:
            zeilen += ["", "gegen", ""]
        for nummer, kontakt in enumerate(seiten[partei], start=1):
            zeilen.append(", ".join([kontakt.display_name, *_anschrift_zeilen(kontakt)]))
            # Streitgenossen are told apart by number: „Klägerin zu 1“, „Kläger zu 2“
            zu = f" zu {nummer}" if len(seiten[partei]) > 1 else ""
            zeilen.append(f"– {parteibezeichnung(partei, kontakt)}{zu} –")
        if partei == mandant_partei and bevollmaechtigte:
            zeilen.append(f"Prozessbevollmächtigte: {bevollmaechtigte}")
        elif partei != mandant_partei and gegnervertreter:
            zeilen.append(f"Prozessbevollmächtigte: {gegnervertreter}")
    if akte.wegen:
        zeilen += ["", f"wegen {akte.wegen}"]
    return "\n".join(zeilen)


def kontext_fuer_akte(
    *,
    akte: Akte,
    profil: KanzleiProfil | None,
    betreff: str,
    freitext: str = "",
    mandant_partei: str = "",
    empfaenger: str = "",
    heute: datetime.date | None = None,
) -> Kontext:
    """All placeholder values for `akte`. Reads Beteiligte with their Kontakte (one query). A letter
    goes to `empfaenger`: "MANDANT" the firm's client, otherwise the other side."""
    heute = heute or timezone.localdate()
    beteiligte = list(akte.beteiligte.select_related("kontakt").order_by("rolle", "pk"))
    mandanten = [b.kontakt for b in beteiligte if b.rolle == Beteiligter.Rolle.MANDANT]
    gegner = [b.kontakt for b in beteiligte if b.rolle == Beteiligter.Rolle.GEGNER]
    vertreter = [b.kontakt for b in beteiligte if b.rolle == Beteiligter.Rolle.GEGNERVERTRETER]
    # the court's postal address, where the Akte has the court as a Beteiligter with one
    gericht = next((b.kontakt for b in beteiligte if b.rolle == Beteiligter.Rolle.GERICHT and b.kontakt.strasse), None)
    # A letter to the other side goes to its lawyer where it has one (§ 12 BORA: no direct contact)
    an = (mandanten if empfaenger == "MANDANT" else vertreter or gegner) or [None]
    kontakt_an = an[0]
    an_anwalt = kontakt_an is not None and kontakt_an in vertreter
    werte: dict[str, Any] = dict.fromkeys(PLATZHALTER)
    werte.update(_profil_werte(profil))
    anwalt: User | None = akte.anwalt
    anwalt_name = anwalt.get_full_name() if anwalt else ""
    bevollmaechtigte = None
    if profil and profil.name:
        # "Rechtsanwälte Müller & Becker", not "Rechtsanwälte Kanzlei Müller" or "Rechtsanwälte Müller Rechtsanwälte"
        name = (
            profil.name
            if re.search(r"kanzlei|rechtsanw|anwälte|anwaltskanzlei|partg", profil.name, re.IGNORECASE)
            else f"Rechtsanwälte {profil.name}"
        )
        bevollmaechtigte = ", ".join(p for p in (name, profil.anschrift) if p)
    ort = (profil.ort or profil.sitz_ort) if profil else ""
    werte.update(
        {
            "datum": datum_lang(heute),
            "ort_datum": f"{ort}, {datum_lang(heute)}" if ort else None,
            "betreff": betreff,
            "aktenzeichen": akte.aktenzeichen,
            "kurzrubrum": akte.kurzrubrum,
            "wegen": akte.wegen,
            "gericht": akte.gericht_name,
            "gericht_ort": akte.gericht_ort,
            "gericht_anschrift": "\n".join(_anschrift_zeilen(gericht)) if gericht else akte.gericht_ort or None,
            "gericht_aktenzeichen": akte.gericht_aktenzeichen,
            "rubrum": _rubrum(
                akte=akte,
                mandanten=mandanten,
                gegner=gegner,
                mandant_partei=mandant_partei,
                bevollmaechtigte=bevollmaechtigte,
                gegnervertreter=", ".join(", ".join([*_anwalt_zeilen(k), *_anschrift_zeilen(k)]) for k in vertreter) or None,
            ),
            "parteien": [
                {"name": b.kontakt.display_name, "anschrift": b.kontakt.anschrift, "rolle": b.get_rolle_display()}
                for b in beteiligte
                if b.rolle != Beteiligter.Rolle.GERICHT
            ],
            "mandant": aufzaehlung([k.display_name for k in mandanten]),
            "mandant_anschrift": "\n".join(_anschrift_zeilen(mandanten[0])) if mandanten else None,
            "gegner": aufzaehlung([k.display_name for k in gegner]),
            "gegner_anschrift": "\n".join(_anschrift_zeilen(gegner[0])) if gegner else None,
            "gegnervertreter": ", ".join(", ".join([*_anwalt_zeilen(k), k.anschrift]) for k in vertreter),
            "empfaenger": (
                "\n".join(_anwalt_zeilen(kontakt_an)) if an_anwalt else kontakt_an.display_name if kontakt_an else None
            ),
            "empfaenger_anschrift": "\n".join(_anschrift_zeilen(kontakt_an)) if kontakt_an else None,
            "anrede": _anrede(kontakt_an),
            "prozessbevollmaechtigte": bevollmaechtigte,
            "streitwert": format_euro(akte.gegenstandswert) if akte.gegenstandswert is not None else None,
            "anwalt": anwalt_name,
            # the professional title as the lawyer gave it (User.berufsbezeichnung), never guessed
            "unterschrift": "\n".join(filter(None, [anwalt_name, anwalt.berufsbezeichnung if anwalt else ""])) or None,
            "freitext": freitext,
        }
    )
    return Kontext(werte=werte)


def beispiel_kontext(profil: KanzleiProfil | None) -> Kontext:
    """Made-up values for the template preview in admin (never client data)."""
    werte: dict[str, Any] = dict.fromkeys(PLATZHALTER)
    werte.update(_profil_werte(profil))
    heute = timezone.localdate()
    werte.update(
        {
            "datum": datum_lang(heute),
            "ort_datum": f"{(profil.ort or profil.sitz_ort) if profil else 'Musterstadt'}, {datum_lang(heute)}",
            "betreff": "Beispiel-Schriftsatz",
            "aktenzeichen": "1/26",
            "kurzrubrum": "Mustermann ./. Beispiel GmbH",
            "wegen": "Forderung",
            "gericht": "Amtsgericht Musterstadt",
            "gericht_ort": "Musterstadt",
            "gericht_anschrift": "Gerichtsstraße 1\n12345 Musterstadt",
            "gericht_aktenzeichen": "12 C 345/26",
            "rubrum": "In dem Rechtsstreit\n\nErika Mustermann, Musterweg 1, 12345 Musterstadt\n– Klägerin –\n"
            "Prozessbevollmächtigte: Rechtsanwälte Muster\n\ngegen\n\nBeispiel GmbH, Hauptstraße 2, 12345 Musterstadt\n"
            "– Beklagte –\n\nwegen Forderung",
            "parteien": [
                {"name": "Erika Mustermann", "anschrift": "Musterweg 1, 12345 Musterstadt", "rolle": "Mandant/in"},
                {"name": "Beispiel GmbH", "anschrift": "Hauptstraße 2, 12345 Musterstadt", "rolle": "Gegner/in"},
            ],
            "mandant": "Erika Mustermann",
            "mandant_anschrift": "Musterweg 1\n12345 Musterstadt",
            "gegner": "Beispiel GmbH",
            "gegner_anschrift": "Hauptstraße 2\n12345 Musterstadt",
            "gegnervertreter": "Rechtsanwalt Max Beispiel, Nebenstraße 3, 12345 Musterstadt",
            "empfaenger": "Rechtsanwalt Max Beispiel",
            "empfaenger_anschrift": "Nebenstraße 3\n12345 Musterstadt",
            "anrede": "Sehr geehrter Herr Beispiel,",
            "prozessbevollmaechtigte": "Rechtsanwälte Muster",
            "streitwert": "5.000,00 €",
            "anwalt": "Dr. Maria Muster",
            "unterschrift": "Dr. Maria Muster\nRechtsanwältin",
            "freitext": "Hier steht der Text des Schriftsatzes.\n\nEr kann **fett** und *kursiv* sein.",
            "rechnung": {
                "titel": "Kostennote",
                "nummer": "2026-0000",
                "leistungszeitraum": "01.01.2026 bis 31.01.2026",
                "gegenstandswert": "5.000,00 €",
                "tabelle": "Gebührentabelle § 13 RVG",
                # the figures of the RVG as of 1 June 2025 (Anlage 2: 354,50 € up to 5.000 €), as the
                # calculator gives them (tests/schriftgut/test_werkprobe_2026_12_05.py)
                "positionen": [
                    {"vv": "3100", "bezeichnung": "Verfahrensgebühr", "satz": "1,3", "wert": "5.000,00 €", "betrag": "460,85 €"},
                    {
                        "vv": "7002",
                        "bezeichnung": "Pauschale für Post und Telekommunikation",
                        "satz": "",
                        "wert": "",
                        "betrag": "20,00 €",
                    },
                ],
                "summen": [
                    {"bezeichnung": "Summe netto", "betrag": "480,85 €"},
                    {"bezeichnung": "19 % Umsatzsteuer (Nr. 7008 VV RVG)", "betrag": "91,36 €"},
                ],
                "zahlbetrag": "572,21 €",
            },
        }
    )
    return Kontext(werte=werte)
