"""Deadline calculator (Fristenrechner) for §§ 187–193 BGB and § 222 ZPO.

Legal basis
- § 187 Abs. 1 BGB: for a period triggered by an event (e.g. Zustellung) the day of the event is not
  counted; § 187 Abs. 2 BGB: a period starting at the beginning of a day counts that day.
- § 188 Abs. 1 BGB (days), § 188 Abs. 2 BGB (weeks, months, years end on the day with the same name
  or number as the event day, or the day before it for § 187 Abs. 2 periods), § 188 Abs. 3 BGB
  (missing day in the last month: the period ends on that month's last day).
- § 193 BGB, § 222 Abs. 2 ZPO: an end on a Saturday, Sunday or public holiday moves to the next
  working day. Holidays are those at the court's place (Bundesland and Ort, see ``rechner.feiertage``);
  there is no default Land. A holiday kept only in parts of the Land (Mariä Himmelfahrt in most
  Bavarian municipalities, Augsburger Friedensfest, Fronleichnam in parts of Sachsen and Thüringen)
  counts only where the Ort is known to keep it; otherwise the earlier date is used and the result
  carries a warning with the later date that applies if the day is a holiday at the court.
- § 222 Abs. 1 ZPO applies the BGB rules to procedural deadlines; §§ 224 Abs. 1, 233 ZPO (Notfrist).
- Verjährung (§§ 195, 199 Abs. 1, § 548 BGB): the courts apply § 193 BGB to its end as well, but the
  calendar date is the calculated end or, if that is no working day, the working day before it; the
  result warns with the later end under § 193 BGB (an act that stops the period is in time on the
  earlier day; the debtor's Einrede holds only after the later one).

Versions: the BGB and ZPO counting rules are unchanged since 2002; the presets cite the period norms
as in force in 2025 (ZPO, KSchG, FamFG). Holiday data follows the state laws as mapped by the
``holidays`` package (e.g. Reformationstag in HB, HH, NI, SH since 2018, Frauentag in Berlin since
2019 and in Mecklenburg-Vorpommern since 2023, Weltkindertag in Thüringen since 2019).
"""

from __future__ import annotations

import calendar
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from enum import StrEnum
from typing import Literal, NamedTuple

from helena.text import umlaut_folded
from rechner.feiertage import BundesweiterKalender, Feiertagskalender
from rechner.tabellen import format_datum, wochentag

Fristbeginn = Literal["ereignis", "tagesbeginn"]
# Where a place comes from: given for this deadline ("angabe"), the court of the Akte ("akte"), the
# Kanzlei's seat because the Akte names no court ("kanzlei"), given but not the Akte's court for a
# period of no preset or one kept at the Akte's court ("abweichend": another court's period, or a
# mistake); None: given by the caller.
OrtArt = Literal["angabe", "akte", "kanzlei", "abweichend"]
# The court at which a period is kept, whose holidays count (§ 222 Abs. 2 ZPO, § 193 BGB): the court
# of the Akte (the one whose decision is attacked, or the court of first instance), the court of the
# appeal (Berufungsgericht, OVG: its seat is not in the Akte), the Bundesgerichtshof in Karlsruhe, the
# authority that issued the act (Widerspruch, Bußgeldbescheid), the Mahngericht (a central court,
# often in another Land than the Akte's court), or the court that decides on the missed step
# (Wiedereinsetzung: the appeal court for a missed appeal period).
Gericht = Literal["akte", "rechtsmittelgericht", "bgh", "behoerde", "mahngericht", "nachholung"]

BUNDESLAENDER: dict[str, str] = {
    "BW": "Baden-Württemberg",
    "BY": "Bayern",
    "BE": "Berlin",
    "BB": "Brandenburg",
    "HB": "Bremen",
    "HH": "Hamburg",
    "HE": "Hessen",
    "MV": "Mecklenburg-Vorpommern",
    "NI": "Niedersachsen",
    "NW": "Nordrhein-Westfalen",
    "RP": "Rheinland-Pfalz",
    "SL": "Saarland",
    "SN": "Sachsen",
    "ST": "Sachsen-Anhalt",
    "SH": "Schleswig-Holstein",
    "TH": "Thüringen",
}

FEHLER_DATUM = "Das Ereignisdatum muss ein Datum ohne Uhrzeit sein (angegeben: {wert!r})."
FEHLER_DAUER = "Die Fristdauer muss eine ganze Zahl größer als 0 sein (angegeben: {wert!r})."
FEHLER_EINHEIT = "Unbekannte Einheit „{wert}“. Zulässig sind: tage, wochen, monate, jahre."
FEHLER_BUNDESLAND = "Unbekanntes Bundesland „{wert}“. Zulässig sind die Kürzel: {zulaessig}."
FEHLER_KEIN_BUNDESLAND = (
    "Für die Feiertage fehlt das Bundesland des Gerichts. Gib das Bundesland (und möglichst den Ort) des Gerichts an, "
    "trage das Gericht in der Akte ein oder hinterlege den Kanzleisitz in der Verwaltung."
)
WARNUNG_TEILFEIERTAG = (
    "Achtung: {datum} ist {name} – ein Feiertag nur in Teilen von {land}. {ort_satz} Der Rechner hat den Tag als "
    "Werktag behandelt und nennt das frühere, sichere Fristende {frueh}. Ist am Gerichtsort Feiertag, endet die "
    "Frist erst am {spaet}; bitte am Gerichtsort prüfen und im Zweifel das frühere Datum notieren."
)
FEHLER_FRISTBEGINN = (
    "Unbekannter Fristbeginn „{wert}“. Zulässig sind „ereignis“ (§ 187 Abs. 1 BGB) und „tagesbeginn“ (§ 187 Abs. 2 BGB)."
)
FEHLER_VORFRIST = "Die Vorfrist muss eine ganze Zahl ab 0 Tagen sein oder entfallen (angegeben: {wert!r})."
FEHLER_PRESET = "Unbekannte Fristvorlage „{wert}“. Verfügbar sind: {verfuegbar}."
FEHLER_ZU_LANG = "Die Frist reicht über das Jahr 9999 hinaus und kann nicht berechnet werden."
# The Feiertage and the rules of today's procedural law: nothing a Frist computed today starts earlier.
FRUEHESTES_DATUM = date(1900, 1, 1)
FEHLER_ZU_FRUEH = "Das Datum {wert} liegt vor 1900 und kann nicht berechnet werden; bitte die Eingabe prüfen."
FEHLER_VERKUENDUNG_OHNE_REGEL = (
    "Das Verkündungsdatum gilt nur für Fristen mit einer Höchstgrenze ab Verkündung (etwa Berufung, Revision, "
    "Nichtzulassungsbeschwerde, sofortige Beschwerde), nicht für „{vorlage}“."
)
FEHLER_ZUSTELLUNG_VOR_VERKUENDUNG = (
    "Die Zustellung ({zustellung}) liegt vor der Verkündung ({verkuendung}). Bitte beide Daten prüfen."
)
WARNUNG_GRENZE_OHNE_VERKUENDUNG = (
    "Ohne Verkündungsdatum ist die Höchstgrenze nicht geprüft: {grenze}. Ist das Urteil (der Beschluss) noch nicht "
    "zugestellt oder die Zustellung spät, gib das Verkündungsdatum an."
)
WARNUNG_ORT_UNSICHER = (
    "Achtung: {grund} Ohne diesen Ort nennt der Rechner das früheste Fristende, das in jedem Bundesland gilt: "
    "{frueh}. Nur wenn das maßgebliche Gericht in {ort} liegt, endet die Frist erst am {spaet}."
)
GRUND_KANZLEISITZ = (
    "Die Akte nennt kein Gericht mit Bundesland; die Feiertage am Kanzleisitz ({ort}) gelten nur, wenn das Gericht "
    "dort liegt. Trage Gericht und Bundesland in der Akte ein."
)
WARNUNG_ZUSTELLUNGSTAG = (
    "Das Datum ist der letzte Tag, an dem der Schriftsatz dem Gegner zugestellt sein muss, nicht der Tag der "
    "Einreichung: reiche so früh ein, dass das Gericht bis dahin zustellen kann."
)
GRUND_ORT_LAND = (
    "Der Ort „{ort}“ liegt in {richtig}, angegeben ist aber {land}: Ort und Bundesland passen nicht zusammen. Prüfe beides."
)


# Places whose Land is certain (the capitals, the city-states and the large cities with a name no other
# place of another Land shares): a court's Ort given with another Land is a contradiction, and the
# holidays of neither can be trusted (the Landgericht Hamburg entered with Bayern got Fronleichnam).
def _ortsname(text: str) -> str:
    """A place name in one spelling: "Köln", "Koeln" and "KÖLN" alike."""
    return umlaut_folded(text)


_ORTE = {
    "BW": "Stuttgart Mannheim Karlsruhe Freiburg_im_Breisgau Heidelberg Ulm Heilbronn Pforzheim Reutlingen Tübingen Konstanz",
    "BY": "München Nürnberg Augsburg Regensburg Ingolstadt Würzburg Erlangen Bamberg Bayreuth Passau Landshut",
    "BE": "Berlin",
    "BB": "Potsdam Cottbus Frankfurt_(Oder)",
    "HB": "Bremen Bremerhaven",
    "HH": "Hamburg",
    "HE": "Wiesbaden Kassel Darmstadt Gießen Marburg Fulda Frankfurt_am_Main Offenbach_am_Main",
    "MV": "Schwerin Rostock Greifswald Stralsund Neubrandenburg",
    "NI": "Hannover Braunschweig Osnabrück Wolfsburg Göttingen Salzgitter Hildesheim Lüneburg Celle Verden",
    "NW": "Düsseldorf Köln Dortmund Duisburg Bochum Wuppertal Bielefeld Bonn Gelsenkirchen Aachen "
    "Mönchengladbach Krefeld Leverkusen Solingen Paderborn Neuss Siegen Detmold Arnsberg",
    "RP": "Mainz Koblenz Trier Kaiserslautern Ludwigshafen_am_Rhein Zweibrücken",
    "SL": "Saarbrücken",
    "SN": "Dresden Leipzig Chemnitz Zwickau Görlitz Bautzen",
    "ST": "Magdeburg Dessau-Roßlau Stendal Halle_(Saale)",
    "SH": "Kiel Lübeck Flensburg Schleswig Itzehoe",
    "TH": "Erfurt Jena Gera Gotha Meiningen",
}
# one spelling (``_ortsname``) → (Land, the place's name as written)
ORT_LAND_NAME = {
    _ortsname(ort): (land, ort) for land, orte in _ORTE.items() for ort in (name.replace("_", " ") for name in orte.split())
}
ORT_LAND = {key: land for key, (land, _name) in ORT_LAND_NAME.items()}
# The places of ORT_LAND as words of a court's name ("Landgericht Hamburg", "LG München I",
# "Amtsgericht Frankfurt am Main"), the longest first.
_ORT_IM_NAMEN = re.compile(
    r"(?<![\w-])(?<!bei )("
    + "|".join(re.escape(ort) for ort in sorted(ORT_LAND, key=len, reverse=True))
    # not a court named after its Länder ("Landessozialgericht Berlin-Brandenburg", in Potsdam;
    # "Landesarbeitsgericht Schleswig-Holstein", in Kiel) nor a place near one ("Bernau bei Berlin")
    + r")(?![\w])(?!-(?:brandenburg|bremen|hamburg|berlin|holstein)\b)"
)


def ort_land_widerspruch(land: str, ort: str | None) -> str | None:
    """The reason (German) when the Ort is a place of another Land than `land` (``ORT_LAND``), else None."""
    richtig = ORT_LAND.get(_ortsname(ort or ""))
    if richtig is None or richtig == land:
        return None
    return GRUND_ORT_LAND.format(ort=ort, richtig=BUNDESLAENDER[richtig], land=BUNDESLAENDER[land])


def ort_aus_gerichtsname(gericht_name: str | None) -> str | None:
    """The place of ``ORT_LAND`` a court's name names ("Landgericht Hamburg" → "Hamburg"), or None:
    a court entered with a name but no Ort is still checked against its Land, and its place's own
    holidays count."""
    treffer = _ORT_IM_NAMEN.search(_ortsname(gericht_name or ""))
    return ORT_LAND_NAME[treffer.group(1)][1] if treffer else None


GRUND_ABWEICHEND = (
    "Angegeben ist {ort}, das Gericht der Akte liegt anderswo. Läuft die Frist bei einem anderen Gericht (etwa dem "
    "Rechtsmittelgericht, dem OVG oder dem BGH), zählen dessen Feiertage (§ 222 Abs. 2 ZPO, § 193 BGB), sonst die "
    "des Gerichts der Akte; prüfe die Angabe oder das Gericht in der Akte."
)
GRUND_RECHTSMITTELGERICHT = (
    "Maßgeblich sind die Feiertage am Sitz des Rechtsmittelgerichts, bei dem die Frist zu wahren ist "
    "(§ 222 Abs. 2 ZPO, § 193 BGB), nicht die des Gerichts der Akte ({ort}); gib Bundesland und Ort des "
    "Rechtsmittelgerichts an."
)
GRUND_MAHNGERICHT = (
    "Maßgeblich sind die Feiertage am Sitz des Mahngerichts, das den Bescheid erlassen hat (§ 222 Abs. 2 ZPO, "
    "§ 193 BGB; zentrale Mahngerichte liegen oft in einem anderen Land), nicht die des Gerichts der Akte oder "
    "des Kanzleisitzes ({ort}); gib Bundesland und Ort des Mahngerichts an."
)
GRUND_NACHHOLUNG = (
    "Maßgeblich sind die Feiertage am Sitz des Gerichts, das über die nachgeholte Prozesshandlung entscheidet "
    "(§ 237 ZPO; bei einer versäumten Rechtsmittel- oder Begründungsfrist das Rechtsmittelgericht), nicht ohne "
    "Weiteres die des Gerichts der Akte oder des Kanzleisitzes ({ort}); gib Bundesland und Ort dieses Gerichts an."
)
BGH_LAND, BGH_ORT, BGH_QUELLE = "BW", "Karlsruhe", "Sitz des Bundesgerichtshofs"
GRUND_BUNDESGERICHT_OFFEN = (
    "Die Vorlage rechnet für den Bundesgerichtshof; ist die Frist bei einem anderen Bundesgericht zu wahren "
    "(Bundesarbeitsgericht, Bundessozialgericht, Bundesverwaltungsgericht, Bundesfinanzhof), zählen dessen Feiertage "
    "(§ 222 Abs. 2 ZPO, § 193 BGB). Gib Bundesland und Ort des Gerichts an, bei dem die Frist zu wahren ist."
)
GRUND_BEHOERDE = (
    "Maßgeblich sind die Feiertage am Sitz der Stelle, bei der der Rechtsbehelf einzulegen ist – für den Widerspruch "
    "die Behörde (§ 193 BGB) –, nicht ohne Weiteres die des Gerichts der Akte oder des Kanzleisitzes ({ort}); gib "
    "Bundesland und Ort dieser Stelle an."
)
WARNUNG_BUNDESGERICHT = (
    "Achtung: Die Vorlage rechnet mit den Feiertagen am Sitz des Bundesgerichtshofs (Karlsruhe); angegeben ist "
    "{ort}. Ist die Frist bei einem Gericht dort zu wahren (etwa beim Bundesarbeitsgericht, Bundessozialgericht, "
    "Bundesverwaltungsgericht oder Bundesfinanzhof), zählen dessen Feiertage. Der Rechner nennt das frühere "
    "Fristende, {frueh} ({frueh_ort}); mit den Feiertagen in {spaet_ort} endet die Frist erst am {spaet}."
)

# Sachgebiete (akten.models.Sachgebiet) whose Akten may be criminal or Bußgeld matters, as the warning names them.
STRAFSACHEN = {"STRAFRECHT": "eine Strafsache", "VERKEHRSRECHT": "eine Verkehrssache (auch ein Bußgeldverfahren?)"}
WARNUNG_STRAFSACHE = (
    "Die Akte ist {art}: Im Straf- und Bußgeldverfahren beträgt diese Frist {dauer} ({norm}) und endet am {frueh}. "
    "Der Rechner nimmt dieses frühere Datum; nach der Vorlage „{vorlage}“ ({norm_zivil}) endete sie am {spaet}. "
    "Prüfe, welche Verfahrensordnung gilt."
)
WARNUNG_KUERZER_FALLS = (
    "Achtung: {fall} beträgt die Frist nur {dauer} ({norm}) und endet schon am {frueh} (Vorlage „{vorlage}“). Prüfe, "
    "welche Entscheidung vorliegt; im Zweifel gilt das frühere Datum."
)
# Sachgebiete whose Akten may be before an Arbeitsgericht (an Akte whose court is one counts too).
ARBEITSSACHEN = {"ARBEITSRECHT": "eine Arbeitssache"}
ARBEITSGERICHT_ART = "vor einem Arbeitsgericht"
WARNUNG_ARBEITSSACHE = (
    "Die Akte ist {art}: Vor dem Arbeitsgericht beträgt diese Frist {dauer} ({norm}) und endet am {frueh}. "
    "Der Rechner nimmt dieses frühere Datum; nach der Vorlage „{vorlage}“ ({norm_zivil}) endete sie am {spaet}. "
    "Prüfe, ob die Sache vor dem Arbeitsgericht geführt wird."
)
WARNUNG_ZUKUNFT = (
    "Das Ereignisdatum {ereignis} liegt in der Zukunft (heute ist der {heute}). Eine Zustellung oder Verkündung kann "
    "noch nicht geschehen sein: Prüfe das Datum, auch das Jahr – ein falsches Jahr verschiebt das Fristende entsprechend."
)
WARNUNG_NUR_LEISTUNGSFRIST = (
    "§ 193 BGB verschiebt das Ende nur, wenn bis dahin eine Willenserklärung abzugeben oder eine Leistung zu bewirken "
    "ist. Für ein Lebensalter oder eine Wartezeit (etwa § 1 Abs. 1 KSchG, § 622 Abs. 3 BGB) endet der Zeitraum ohne "
    "Verschiebung am {ende}."
)
NORM_VERSCHIEBUNG = "§ 193 BGB, § 222 Abs. 2 ZPO"
WARNUNG_VERJAEHRUNG_193 = (
    "Achtung: Das rechnerische Ende der Verjährung, {ende}, ist kein Werktag. Nach § 193 BGB, den die Rechtsprechung "
    "(BGH) auch auf das Ende einer Verjährungsfrist anwendet, verjährt der Anspruch erst mit Ablauf des nächsten "
    "Werktags, {spaet}; welche Feiertage zählen, richtet sich nach dem Erklärungs- oder Leistungsort. Im Kalender steht "
    "deshalb der letzte Werktag davor, {frueh}: Wer bis dahin hemmt (etwa Klage oder Mahnbescheid, § 204 BGB), ist in "
    "jedem Fall rechtzeitig. Für die Einrede der Verjährung gilt dagegen: Verjährt ist der Anspruch erst nach Ablauf "
    "des {spaet}."
)
NOTFRIST_HINWEIS = (
    "Notfrist: nicht verlängerbar (§ 224 Abs. 1 und 2 ZPO); bei Versäumung nur Wiedereinsetzung "
    "in den vorigen Stand (§§ 233 ff. ZPO)."
)


class FristError(ValueError):
    """Invalid input for a deadline calculation; the message is German and shown to the user."""


class Einheit(StrEnum):
    TAGE = "tage"
    WOCHEN = "wochen"
    MONATE = "monate"
    JAHRE = "jahre"


_EINHEIT_TEXT: dict[Einheit, tuple[str, str]] = {
    Einheit.TAGE: ("Tag", "Tage"),
    Einheit.WOCHEN: ("Woche", "Wochen"),
    Einheit.MONATE: ("Monat", "Monate"),
    Einheit.JAHRE: ("Jahr", "Jahre"),
}


@dataclass(frozen=True)
class FristPreset:
    """A common statutory or judicial period and the event that triggers it."""

    key: str
    label: str
    dauer: int
    einheit: Einheit
    notfrist: bool
    rechtsgrundlage: str
    ereignis: str
    hinweis: str = ""
    # "verjaehrung": a limitation period, whose calendar date never moves past its calculated end
    # (see ``_verjaehrung``); ``jahresschluss``: it starts at the end of the year (§ 199 Abs. 1 BGB).
    art: Literal["vorwaerts", "rueckwaerts", "verjaehrung"] = "vorwaerts"
    jahresschluss: bool = False
    # The latest start ("beginn": §§ 517, 520 Abs. 2, 548, 551 Abs. 2, 569 Abs. 1 ZPO, § 66 Abs. 1 ArbGG,
    # § 63 Abs. 3, § 117 Abs. 1 FamFG) or end ("ende": § 544 Abs. 3, 4 ZPO) of the period, in months after the
    # Verkündung (Erlass) of the decision, whatever its Zustellung; 0: no such limit.
    grenze_monate: int = 0
    grenze_art: Literal["beginn", "ende"] = "beginn"
    gericht: Gericht = "akte"
    # What the result cannot know and the user must check before relying on the date (a period the
    # court sets, an outer limit that may end earlier): added to every result's ``warnungen``.
    warnung: str = ""
    # The preset of the same remedy in criminal and Bußgeld proceedings (StPO, OWiG), whose period is
    # shorter: for an Akte that may be such a matter the earlier end applies (``berechne_preset``).
    strafsachen: str = ""
    # Likewise before the Arbeitsgericht (ArbGG: one week instead of two for the Einspruch and the
    # Widerspruch in the Mahnverfahren), for an Akte in Arbeitsrecht or at an Arbeitsgericht.
    arbeitssachen: str = ""
    # A shorter preset for a kind of decision the inputs cannot tell apart (key, the case in German,
    # "Gegen eine Endentscheidung im Verfahren der einstweiligen Anordnung …"): its earlier end is
    # named in a warning (``berechne_preset``).
    kuerzer_falls: tuple[str, str] = ("", "")
    # The triggering event may lie ahead (a Termin, the agreed end of a contract); for the others a
    # date after today is most likely a typing error and is warned about (``mit_zukunftswarnung``).
    ereignis_kann_kuenftig: bool = False

    @property
    def grenze_text(self) -> str:
        """ "die Frist beginnt spätestens fünf Monate nach der Verkündung" (German), "" without a limit."""
        if not self.grenze_monate:
            return ""
        monate = _ZAHLWORT.get(self.grenze_monate, str(self.grenze_monate))
        if self.grenze_art == "ende":
            return f"die Frist endet spätestens {monate} Monate nach der Verkündung"
        return f"die Frist beginnt spätestens {monate} Monate nach der Verkündung"


_ZAHLWORT = {5: "fünf", 6: "sechs", 7: "sieben"}


PRESETS: dict[str, FristPreset] = {
    preset.key: preset
    for preset in (
        FristPreset(
            "berufung",
            "Berufungsfrist",
            1,
            Einheit.MONATE,
            True,
            "§ 517 ZPO",
            "Zustellung des vollständigen Urteils",
            "Spätestens fünf Monate nach Verkündung beginnt die Frist auch ohne Zustellung; mit dem Verkündungsdatum "
            "rechnet der Rechner diese Grenze mit. Einzulegen beim Berufungsgericht (§ 519 Abs. 1 ZPO): dessen Feiertage "
            "zählen.",
            grenze_monate=5,
            gericht="rechtsmittelgericht",
            strafsachen="berufung_stpo",
        ),
        FristPreset(
            "berufungsbegruendung",
            "Berufungsbegründungsfrist",
            2,
            Einheit.MONATE,
            False,
            "§ 520 Abs. 2 ZPO",
            "Zustellung des vollständigen Urteils",
            "Keine Notfrist; auf Antrag verlängerbar (§ 520 Abs. 2 Satz 2 und 3 ZPO). Spätestens fünf Monate nach "
            "Verkündung beginnt die Frist auch ohne Zustellung. Einzureichen beim Berufungsgericht (§ 520 Abs. 3 ZPO).",
            grenze_monate=5,
            gericht="rechtsmittelgericht",
        ),
        FristPreset(
            "revision",
            "Revisionsfrist",
            1,
            Einheit.MONATE,
            True,
            "§ 548 ZPO",
            "Zustellung des vollständigen Urteils",
            "Einzulegen beim Revisionsgericht (§ 549 Abs. 1 ZPO); gerechnet mit den Feiertagen am Sitz des "
            "Bundesgerichtshofs. Für eine Revision zum BAG, BSG, BVerwG oder BFH gib dessen Sitz an.",
            grenze_monate=5,
            gericht="bgh",
            strafsachen="revision_stpo",
        ),
        FristPreset(
            "revisionsbegruendung",
            "Revisionsbegründungsfrist",
            2,
            Einheit.MONATE,
            False,
            "§ 551 Abs. 2 ZPO",
            "Zustellung des vollständigen Urteils",
            "Keine Notfrist; auf Antrag verlängerbar (§ 551 Abs. 2 Satz 5 und 6 ZPO). Einzureichen beim "
            "Revisionsgericht (§ 551 Abs. 2 Satz 1 ZPO).",
            grenze_monate=5,
            gericht="bgh",
            strafsachen="revisionsbegruendung_stpo",
        ),
        FristPreset(
            "nichtzulassungsbeschwerde",
            "Nichtzulassungsbeschwerde",
            1,
            Einheit.MONATE,
            True,
            "§ 544 Abs. 3 ZPO",
            "Zustellung des vollständigen Urteils",
            "Einzulegen beim Revisionsgericht; spätestens sechs Monate nach Verkündung.",
            grenze_monate=6,
            grenze_art="ende",
            gericht="bgh",
        ),
        FristPreset(
            "nichtzulassungsbeschwerde_begruendung",
            "Begründung der Nichtzulassungsbeschwerde",
            2,
            Einheit.MONATE,
            False,
            "§ 544 Abs. 4 ZPO",
            "Zustellung des vollständigen Urteils",
            "Spätestens sieben Monate nach Verkündung; verlängerbar (§ 544 Abs. 4 Satz 2 i. V. m. § 551 Abs. 2 Satz 5 "
            "und 6 ZPO).",
            grenze_monate=7,
            grenze_art="ende",
            gericht="bgh",
        ),
        FristPreset(
            "rechtsbeschwerde",
            "Rechtsbeschwerde",
            1,
            Einheit.MONATE,
            True,
            "§ 575 Abs. 1 ZPO",
            "Zustellung des Beschlusses",
            "Einzulegen beim Rechtsbeschwerdegericht (Bundesgerichtshof).",
            gericht="bgh",
            strafsachen="revision_stpo",
        ),
        FristPreset(
            "sofortige_beschwerde",
            "Sofortige Beschwerde",
            2,
            Einheit.WOCHEN,
            True,
            "§ 569 Abs. 1 ZPO",
            "Zustellung der Entscheidung",
            "Spätestens fünf Monate nach Verkündung des Beschlusses beginnt die Frist auch ohne Zustellung "
            "(§ 569 Abs. 1 Satz 2 ZPO).",
            grenze_monate=5,
            strafsachen="sofortige_beschwerde_stpo",
        ),
        FristPreset(
            "einspruch_versaeumnisurteil",
            "Einspruch gegen Versäumnisurteil",
            2,
            Einheit.WOCHEN,
            True,
            "§ 339 Abs. 1 ZPO",
            "Zustellung des Versäumnisurteils",
            "Vor dem Arbeitsgericht beträgt die Einspruchsfrist nur eine Woche (§ 59 Abs. 1 Satz 1 ArbGG): Vorlage "
            "„einspruch_versaeumnisurteil_arbgg“.",
            arbeitssachen="einspruch_versaeumnisurteil_arbgg",
        ),
        FristPreset(
            "einspruch_versaeumnisurteil_arbgg",
            "Einspruch gegen Versäumnisurteil (Arbeitsgericht)",
            1,
            Einheit.WOCHEN,
            True,
            "§ 59 Abs. 1 Satz 1 ArbGG",
            "Zustellung des Versäumnisurteils",
        ),
        FristPreset(
            "einspruch_vollstreckungsbescheid",
            "Einspruch gegen Vollstreckungsbescheid",
            2,
            Einheit.WOCHEN,
            True,
            "§ 700 Abs. 1 i. V. m. § 339 Abs. 1 ZPO",
            "Zustellung des Vollstreckungsbescheids",
            "Der Vollstreckungsbescheid steht einem Versäumnisurteil gleich; die Einspruchsfrist ist daher eine Notfrist. "
            "Im arbeitsgerichtlichen Mahnverfahren beträgt sie nur eine Woche (§ 46a Abs. 1 ArbGG, § 59 Abs. 1 Satz 1 "
            "ArbGG): Vorlage „einspruch_vollstreckungsbescheid_arbgg“.",
            gericht="mahngericht",
            arbeitssachen="einspruch_vollstreckungsbescheid_arbgg",
        ),
        FristPreset(
            "einspruch_vollstreckungsbescheid_arbgg",
            "Einspruch gegen Vollstreckungsbescheid (Arbeitsgericht)",
            1,
            Einheit.WOCHEN,
            True,
            "§ 46a Abs. 1 ArbGG, § 700 Abs. 1 ZPO, § 59 Abs. 1 Satz 1 ArbGG",
            "Zustellung des Vollstreckungsbescheids",
            "Der Vollstreckungsbescheid steht einem Versäumnisurteil gleich; vor dem Arbeitsgericht gilt dessen "
            "Einspruchsfrist von einer Woche (Notfrist).",
            gericht="mahngericht",
        ),
        FristPreset(
            "widerspruch_mahnbescheid",
            "Widerspruch gegen Mahnbescheid",
            2,
            Einheit.WOCHEN,
            False,
            "§ 692 Abs. 1 Nr. 3 ZPO",
            "Zustellung des Mahnbescheids",
            "Keine Notfrist: Widerspruch ist bis zur Verfügung des Vollstreckungsbescheids möglich (§ 694 Abs. 1 ZPO). "
            "Im arbeitsgerichtlichen Mahnverfahren beträgt die Frist eine Woche (§ 46a Abs. 3 ArbGG).",
            gericht="mahngericht",
            arbeitssachen="widerspruch_mahnbescheid_arbgg",
        ),
        FristPreset(
            "widerspruch_mahnbescheid_arbgg",
            "Widerspruch gegen Mahnbescheid (Arbeitsgericht)",
            1,
            Einheit.WOCHEN,
            False,
            "§ 46a Abs. 3 ArbGG, § 692 Abs. 1 Nr. 3 ZPO",
            "Zustellung des Mahnbescheids",
            "Keine Notfrist: Widerspruch ist bis zur Verfügung des Vollstreckungsbescheids möglich (§ 694 Abs. 1 ZPO).",
            # § 46a Abs. 2 ArbGG: the Land may give the Mahnverfahren of several districts to one Arbeitsgericht
            gericht="mahngericht",
        ),
        FristPreset(
            "verteidigungsanzeige",
            "Anzeige der Verteidigungsbereitschaft",
            2,
            Einheit.WOCHEN,
            True,
            "§ 276 Abs. 1 Satz 1 ZPO",
            "Zustellung der Klage im schriftlichen Vorverfahren",
        ),
        FristPreset(
            "klageerwiderung",
            "Klageerwiderungsfrist",
            2,
            Einheit.WOCHEN,
            False,
            "§ 276 Abs. 1 Satz 2 ZPO",
            "Ablauf der Frist zur Verteidigungsanzeige bzw. Zustellung der Verfügung",
            "Richterliche Frist: maßgeblich ist die vom Gericht gesetzte Frist (mindestens zwei weitere Wochen).",
        ),
        FristPreset(
            "stellungnahme",
            "Stellungnahmefrist",
            2,
            Einheit.WOCHEN,
            False,
            "richterliche Frist (§ 224 Abs. 2 ZPO)",
            "Zustellung der gerichtlichen Verfügung",
            "Maßgeblich ist die vom Gericht gesetzte Frist; auf Antrag verlängerbar.",
            warnung="Die Vorlage nimmt zwei Wochen an; die Frist setzt das Gericht. Nennt die Verfügung eine kürzere "
            "Frist oder ein Datum, gilt diese: rechne dann mit Dauer und Einheit aus der Verfügung.",
        ),
        FristPreset(
            "wiedereinsetzung",
            "Antrag auf Wiedereinsetzung in den vorigen Stand",
            2,
            Einheit.WOCHEN,
            False,
            "§ 234 Abs. 1 Satz 1 ZPO",
            "Behebung des Hindernisses",
            "Für die Begründungsfristen (Berufung, Revision u. a.) beträgt die Frist einen Monat (§ 234 Abs. 1 Satz 2 ZPO).",
            gericht="nachholung",
            warnung="Nach einem Jahr seit dem Ende der versäumten Frist kann die Wiedereinsetzung nicht mehr beantragt "
            "werden (§ 234 Abs. 3 ZPO); endet dieses Jahr früher, gilt es.",
            strafsachen="wiedereinsetzung_stpo",
        ),
        FristPreset(
            "kuendigungsschutzklage",
            "Kündigungsschutzklage",
            3,
            Einheit.WOCHEN,
            False,
            "§ 4 Satz 1 KSchG",
            "Zugang der schriftlichen Kündigung",
            "Keine Notfrist der ZPO; bei unverschuldeter Versäumung nachträgliche Zulassung nach § 5 KSchG.",
        ),
        FristPreset(
            "beschwerde_famfg",
            "Beschwerde (FamFG)",
            1,
            Einheit.MONATE,
            False,
            "§ 63 Abs. 1 FamFG",
            "Schriftliche Bekanntgabe des Beschlusses",
            "Zwei Wochen gegen Endentscheidungen im Verfahren der einstweiligen Anordnung und gegen Entscheidungen über "
            "die Genehmigung eines Rechtsgeschäfts (§ 63 Abs. 2 FamFG): Vorlage „beschwerde_famfg_zwei_wochen“. Kann "
            "nicht schriftlich bekannt gegeben werden, beginnt die Frist spätestens fünf Monate nach Erlass (§ 63 Abs. 3 "
            "Satz 2 FamFG; als Verkündungsdatum das Datum des Erlasses angeben).",
            grenze_monate=5,
            kuerzer_falls=(
                "beschwerde_famfg_zwei_wochen",
                "Gegen eine Endentscheidung im Verfahren der einstweiligen Anordnung oder über die Genehmigung eines "
                "Rechtsgeschäfts",
            ),
        ),
        FristPreset(
            "beschwerde_famfg_zwei_wochen",
            "Beschwerde (FamFG) gegen einstweilige Anordnung oder Genehmigung eines Rechtsgeschäfts",
            2,
            Einheit.WOCHEN,
            False,
            "§ 63 Abs. 2 FamFG",
            "Schriftliche Bekanntgabe des Beschlusses",
            "Kann nicht schriftlich bekannt gegeben werden, beginnt die Frist spätestens fünf Monate nach Erlass "
            "(§ 63 Abs. 3 Satz 2 FamFG).",
            grenze_monate=5,
        ),
        FristPreset(
            "beschwerdebegruendung_famfg",
            "Beschwerdebegründung in Ehe- und Familienstreitsachen (FamFG)",
            2,
            Einheit.MONATE,
            False,
            "§ 117 Abs. 1 Satz 3 FamFG",
            "Schriftliche Bekanntgabe des Beschlusses",
            "Einzureichen beim Beschwerdegericht (§ 117 Abs. 1 Satz 2 FamFG): dessen Feiertage zählen. Spätestens fünf "
            "Monate nach Erlass beginnt die Frist auch ohne Bekanntgabe (als Verkündungsdatum das Datum des Erlasses "
            "angeben). Auf Antrag verlängerbar (§ 117 Abs. 1 Satz 4 FamFG, § 520 Abs. 2 Satz 2 und 3 ZPO).",
            grenze_monate=5,
            gericht="rechtsmittelgericht",
        ),
        FristPreset(
            "berufung_arbgg",
            "Berufungsfrist (Arbeitsgericht)",
            1,
            Einheit.MONATE,
            True,
            "§ 66 Abs. 1 Satz 1, 2 ArbGG",
            "Zustellung des vollständigen Urteils",
            "Spätestens fünf Monate nach Verkündung beginnt die Frist auch ohne Zustellung. Einzulegen beim "
            "Landesarbeitsgericht: dessen Feiertage zählen.",
            grenze_monate=5,
            gericht="rechtsmittelgericht",
        ),
        FristPreset(
            "berufungsbegruendung_arbgg",
            "Berufungsbegründungsfrist (Arbeitsgericht)",
            2,
            Einheit.MONATE,
            False,
            "§ 66 Abs. 1 Satz 1, 2 ArbGG",
            "Zustellung des vollständigen Urteils",
            "Einmal verlängerbar (§ 66 Abs. 1 Satz 5 ArbGG). Spätestens fünf Monate nach Verkündung beginnt die Frist. "
            "Einzureichen beim Landesarbeitsgericht.",
            grenze_monate=5,
            gericht="rechtsmittelgericht",
        ),
        FristPreset(
            "befristungskontrollklage",
            "Befristungskontrollklage",
            3,
            Einheit.WOCHEN,
            False,
            "§ 17 Satz 1 TzBfG",
            "Vereinbartes Ende des befristeten Arbeitsvertrags",
            "Die Klage kann schon vor dem Ende erhoben werden; §§ 5 bis 7 KSchG gelten entsprechend.",
            ereignis_kann_kuenftig=True,
        ),
        FristPreset(
            "widerspruch_vwgo",
            "Widerspruch gegen einen Verwaltungsakt (VwGO)",
            1,
            Einheit.MONATE,
            False,
            "§ 70 Abs. 1 VwGO",
            "Bekanntgabe des Verwaltungsakts",
            "Einzulegen bei der Behörde, die den Verwaltungsakt erlassen hat, oder bei der Widerspruchsbehörde "
            "(§ 70 Abs. 1 VwGO); maßgeblich sind die Feiertage an ihrem Sitz. Per Post gilt der Bescheid einer "
            "Bundesbehörde am vierten Tag nach der Aufgabe zur Post als bekannt gegeben, wenn er nicht später "
            "zugegangen ist (§ 41 Abs. 2 VwVfG); für Landesbehörden gilt das Verwaltungsverfahrensgesetz des Landes, "
            "ältere Fassungen nennen den dritten Tag. Im Zweifel rechne ab dem früheren Tag, auch wenn er auf ein "
            "Wochenende oder einen Feiertag fällt. Ohne oder mit unrichtiger Rechtsbehelfsbelehrung gilt ein Jahr "
            "(§ 70 Abs. 2, § 58 Abs. 2 VwGO): Vorlage „jahresfrist_vwgo“. Ob ein Vorverfahren stattfindet, bestimmt "
            "§ 68 VwGO mit dem Landesrecht.",
            gericht="behoerde",
        ),
        FristPreset(
            "einspruch_ao",
            "Einspruch gegen einen Steuerbescheid (AO)",
            1,
            Einheit.MONATE,
            False,
            "§ 355 Abs. 1 Satz 1 AO",
            "Bekanntgabe des Verwaltungsakts",
            "Einzulegen bei der Finanzbehörde, deren Verwaltungsakt angefochten wird (§ 357 Abs. 2 AO); maßgeblich sind "
            "die Feiertage an ihrem Sitz. Per Post im Inland gilt der Bescheid am vierten Tag nach der Aufgabe zur Post "
            "als bekannt gegeben, elektronisch am vierten Tag nach der Absendung, ins Ausland einen Monat nach der "
            "Aufgabe zur Post, wenn er nicht später zugegangen ist (§ 122 Abs. 2, 2a AO; bis Ende 2024 der dritte Tag). "
            "Rechne sicherheitshalber ab diesem Tag, auch wenn er auf ein Wochenende oder einen Feiertag fällt. Ohne "
            "oder mit unrichtiger Rechtsbehelfsbelehrung gilt ein Jahr (§ 356 Abs. 2 AO). Gegen eine Steueranmeldung "
            "beginnt die Frist mit ihrem Eingang beim Finanzamt (§ 355 Abs. 1 Satz 2 AO).",
            gericht="behoerde",
        ),
        FristPreset(
            "klage_fgo",
            "Klage zum Finanzgericht",
            1,
            Einheit.MONATE,
            False,
            "§ 47 Abs. 1 FGO",
            "Bekanntgabe der Einspruchsentscheidung",
            "Einzureichen beim Finanzgericht. Für die Bekanntgabe gilt § 122 Abs. 2, 2a AO (vierter Tag nach Aufgabe "
            "zur Post oder Absendung; bis Ende 2024 der dritte Tag); die Einspruchsentscheidung wird oft zugestellt, "
            "dann zählt der Tag der Zustellung. Rechne im Zweifel ab dem früheren Tag.",
        ),
        FristPreset(
            "anfechtungsklage_vwgo",
            "Anfechtungs-/Verpflichtungsklage (VwGO)",
            1,
            Einheit.MONATE,
            False,
            "§ 74 Abs. 1 VwGO",
            "Zustellung des Widerspruchsbescheids (ohne Vorverfahren: Bekanntgabe des Verwaltungsakts)",
            "Ohne ordnungsgemäße Rechtsbehelfsbelehrung gilt die Jahresfrist des § 58 Abs. 2 VwGO.",
        ),
        FristPreset(
            "jahresfrist_vwgo",
            "Widerspruch oder Klage ohne (richtige) Rechtsbehelfsbelehrung (VwGO)",
            1,
            Einheit.JAHRE,
            False,
            "§ 58 Abs. 2 VwGO",
            "Zustellung, Eröffnung oder Verkündung (Bekanntgabe) der Entscheidung",
            "Nur wenn die Belehrung unterblieben oder unrichtig ist (für den Widerspruch i. V. m. § 70 Abs. 2 VwGO); "
            "ist das zweifelhaft, notiere die Monatsfrist (früheres Ende). Länger nur bei höherer Gewalt oder der "
            "Belehrung, ein Rechtsbehelf sei nicht gegeben.",
            gericht="behoerde",
        ),
        FristPreset(
            "zulassung_berufung_vwgo",
            "Antrag auf Zulassung der Berufung (VwGO)",
            1,
            Einheit.MONATE,
            False,
            "§ 124a Abs. 4 Satz 1 VwGO",
            "Zustellung des vollständigen Urteils",
            "Begründung binnen zwei Monaten nach Zustellung (§ 124a Abs. 4 Satz 4 VwGO).",
        ),
        FristPreset(
            "zulassung_berufung_begruendung_vwgo",
            "Begründung des Antrags auf Zulassung der Berufung (VwGO)",
            2,
            Einheit.MONATE,
            False,
            "§ 124a Abs. 4 Satz 4 VwGO",
            "Zustellung des vollständigen Urteils",
            "Einzureichen beim Oberverwaltungsgericht (§ 124a Abs. 4 Satz 5 VwGO).",
            gericht="rechtsmittelgericht",
        ),
        FristPreset(
            "widerspruch_sgg",
            "Widerspruch gegen einen Verwaltungsakt (SGG)",
            1,
            Einheit.MONATE,
            False,
            "§ 84 Abs. 1 SGG",
            "Bekanntgabe des Verwaltungsakts",
            "Bei Bekanntgabe im Ausland drei Monate (§ 84 Abs. 1 Satz 2 SGG). Per Post gilt der Bescheid am vierten Tag "
            "nach der Aufgabe zur Post als bekannt gegeben, wenn er nicht später zugegangen ist (§ 37 Abs. 2 SGB X; für "
            "ältere Bescheide galt der dritte Tag). Im Zweifel rechne ab dem früheren Tag, auch wenn er auf ein "
            "Wochenende oder einen Feiertag fällt. Ohne oder mit unrichtiger Rechtsbehelfsbelehrung gilt ein Jahr (§ 84 "
            "Abs. 2 Satz 3, § 66 Abs. 2 SGG): Vorlage „jahresfrist_sgg“.",
            gericht="behoerde",
        ),
        FristPreset(
            "klage_sgg",
            "Klagefrist (Sozialgericht)",
            1,
            Einheit.MONATE,
            False,
            "§ 87 Abs. 1 Satz 1, Abs. 2 SGG",
            "Bekanntgabe des Widerspruchsbescheids",
            "Ohne ordnungsgemäße Rechtsbehelfsbelehrung gilt die Jahresfrist des § 66 Abs. 2 SGG.",
        ),
        FristPreset(
            "jahresfrist_sgg",
            "Widerspruch oder Klage ohne (richtige) Rechtsbehelfsbelehrung (SGG)",
            1,
            Einheit.JAHRE,
            False,
            "§ 66 Abs. 2 SGG",
            "Zustellung, Eröffnung oder Verkündung (Bekanntgabe) der Entscheidung",
            "Nur wenn die Belehrung unterblieben oder unrichtig ist (für den Widerspruch i. V. m. § 84 Abs. 2 Satz 3 SGG); "
            "ist das zweifelhaft, notiere die Monatsfrist (früheres Ende). Länger nur bei höherer Gewalt oder der "
            "Belehrung, ein Rechtsbehelf sei nicht gegeben.",
            gericht="behoerde",
        ),
        FristPreset(
            "berufung_sgg",
            "Berufungsfrist (Sozialgericht)",
            1,
            Einheit.MONATE,
            False,
            "§ 151 Abs. 1 SGG",
            "Zustellung des Urteils",
            "Einzulegen beim Landessozialgericht (§ 151 Abs. 1 SGG): dessen Feiertage zählen (§ 64 Abs. 3 SGG). Die "
            "Frist ist auch gewahrt, wenn die Berufung beim Sozialgericht eingelegt wird (§ 151 Abs. 2 SGG); ein "
            "Feiertag nur am Sitz des Sozialgerichts (etwa in Berlin, das LSG Berlin-Brandenburg sitzt in Potsdam) "
            "verlängert die Frist nicht sicher.",
            # § 151 Abs. 1 SGG: the LSG, which may sit in another Land than the SG (LSG Berlin-Brandenburg
            # in Potsdam, LSG Niedersachsen-Bremen in Celle)
            gericht="rechtsmittelgericht",
        ),
        FristPreset(
            "berufung_stpo",
            "Berufung (Strafsachen)",
            1,
            Einheit.WOCHEN,
            False,
            "§ 314 Abs. 1 StPO",
            "Verkündung des Urteils (in Abwesenheit des Angeklagten: Zustellung, § 314 Abs. 2 StPO)",
            "Fristberechnung nach § 43 StPO; Wiedereinsetzung nach §§ 44 ff. StPO.",
        ),
        FristPreset(
            "revision_stpo",
            "Revisionseinlegung (Strafsachen)",
            1,
            Einheit.WOCHEN,
            False,
            "§ 341 Abs. 1 StPO",
            "Verkündung des Urteils (in Abwesenheit des Angeklagten: Zustellung, § 341 Abs. 2 StPO)",
            "Fristberechnung nach § 43 StPO.",
        ),
        FristPreset(
            "revisionsbegruendung_stpo",
            "Revisionsbegründung (Strafsachen)",
            1,
            Einheit.MONATE,
            False,
            "§ 345 Abs. 1 StPO",
            "Ablauf der Einlegungsfrist, bei späterer Zustellung des Urteils diese Zustellung",
            "Die Frist verlängert sich um einen Monat, wenn das Urteil später als 21 Wochen nach der Verkündung zu den "
            "Akten gebracht worden ist, und um einen weiteren Monat bei mehr als 35 Wochen (§ 345 Abs. 1 Satz 2 StPO); "
            "dann beginnt sie mit der Mitteilung, wann es zu den Akten gebracht worden ist (Satz 3).",
        ),
        FristPreset(
            "sofortige_beschwerde_stpo",
            "Sofortige Beschwerde (Straf- und Bußgeldsachen)",
            1,
            Einheit.WOCHEN,
            False,
            "§ 311 Abs. 2 StPO",
            "Bekanntmachung der Entscheidung (§ 35 StPO)",
            "Einzulegen bei dem Gericht, dessen Entscheidung angefochten wird (§ 306 Abs. 1 StPO); im Bußgeldverfahren "
            "über § 46 Abs. 1 OWiG. Nicht verlängerbar. Fristberechnung nach § 43 StPO.",
        ),
        FristPreset(
            "wiedereinsetzung_stpo",
            "Wiedereinsetzung in den vorigen Stand (Straf- und Bußgeldsachen)",
            1,
            Einheit.WOCHEN,
            False,
            "§ 45 Abs. 1 Satz 1 StPO",
            "Wegfall des Hindernisses",
            "Gilt auch im Bußgeldverfahren (§ 52 Abs. 1 OWiG). Innerhalb der Antragsfrist ist die versäumte Handlung "
            "nachzuholen (§ 45 Abs. 2 Satz 2 StPO). Fristberechnung nach § 43 StPO.",
            gericht="nachholung",
        ),
        FristPreset(
            "einspruch_strafbefehl",
            "Einspruch gegen Strafbefehl",
            2,
            Einheit.WOCHEN,
            False,
            "§ 410 Abs. 1 StPO",
            "Zustellung des Strafbefehls",
            "Fristberechnung nach § 43 StPO.",
        ),
        FristPreset(
            "einspruch_bussgeldbescheid",
            "Einspruch gegen Bußgeldbescheid",
            2,
            Einheit.WOCHEN,
            False,
            "§ 67 Abs. 1 OWiG",
            "Zustellung des Bußgeldbescheids",
            "Fristberechnung nach § 46 OWiG i. V. m. § 43 StPO. Einzulegen bei der Verwaltungsbehörde, die den "
            "Bescheid erlassen hat (§ 67 Abs. 1 Satz 1 OWiG).",
            gericht="behoerde",
        ),
        FristPreset(
            "verjaehrung_regel",
            "Regelmäßige Verjährung",
            3,
            Einheit.JAHRE,
            False,
            "§§ 195, 199 Abs. 1 BGB",
            "Entstehung des Anspruchs und Kenntnis des Gläubigers (in diesem Jahr)",
            "Die Frist beginnt mit dem Schluss des Jahres (§ 199 Abs. 1 BGB); Höchstfristen des § 199 Abs. 2 bis 4 BGB "
            "und Hemmungen (§§ 203 ff. BGB) sind gesondert zu prüfen.",
            art="verjaehrung",
            jahresschluss=True,
        ),
        FristPreset(
            "verjaehrung_mietsache",
            "Verjährung der Ersatzansprüche des Vermieters",
            6,
            Einheit.MONATE,
            False,
            "§ 548 Abs. 1 BGB",
            "Rückerhalt der Mietsache",
            "Die Verjährung beginnt mit dem Rückerhalt der Mietsache (§ 548 Abs. 1 Satz 2 BGB), auch vor dem Ende des "
            "Mietverhältnisses. Hemmungen (§§ 203 ff. BGB) sind gesondert zu prüfen. Ansprüche des Mieters auf "
            "Aufwendungsersatz oder Wegnahme verjähren sechs Monate nach Beendigung des Mietverhältnisses (§ 548 Abs. 2 "
            "BGB): mit der Beendigung als Ereignis rechnen.",
            art="verjaehrung",
        ),
        FristPreset(
            "schriftsatz_vor_termin",
            "Vorbereitender Schriftsatz vor der mündlichen Verhandlung",
            1,
            Einheit.WOCHEN,
            False,
            "§ 132 Abs. 1 ZPO",
            "Termin zur mündlichen Verhandlung (rückwärts gerechnet)",
            "Rückwärtsfrist: Schriftsätze mit neuem Vorbringen sind so rechtzeitig einzureichen, dass sie mindestens eine "
            "Woche vor dem Termin zugestellt werden können; zwischen Zustellung und Termin muss eine volle Woche liegen. "
            "Fällt der letzte Tag auf ein Wochenende oder einen Feiertag, gilt der Werktag davor.",
            art="rueckwaerts",
            warnung=WARNUNG_ZUSTELLUNGSTAG,
        ),
        FristPreset(
            "gegenerklaerung_vor_termin",
            "Schriftsatz mit Gegenerklärung vor der mündlichen Verhandlung",
            3,
            Einheit.TAGE,
            False,
            "§ 132 Abs. 2 ZPO",
            "Termin zur mündlichen Verhandlung (rückwärts gerechnet)",
            "Rückwärtsfrist: zwischen Zustellung und Termin müssen drei volle Tage liegen; fällt der letzte Tag auf ein "
            "Wochenende oder einen Feiertag, gilt der Werktag davor.",
            art="rueckwaerts",
            warnung=WARNUNG_ZUSTELLUNGSTAG,
        ),
    )
}


@dataclass(frozen=True)
class FristErgebnis:
    """Result of a deadline calculation; ``erlaeuterung`` explains each step in German."""

    ereignis_datum: date
    fristbeginn: date  # first day counted
    dauer: int
    einheit: Einheit
    rechnerisches_ende: date
    fristablauf: date
    verschoben: bool
    verschiebungsgrund: str | None
    vorfrist: date | None
    notfrist: bool
    rechtsgrundlage: str
    bundesland: str
    erlaeuterung: str
    bezeichnung: str | None = None
    ort: str | None = None
    ortsquelle: str | None = None  # where the place comes from, e.g. "Gericht der Akte" or "Kanzleisitz"
    warnungen: tuple[str, ...] = ()
    # the later end if an uncertain holiday applies: a partial holiday at the place, or the place's own
    # holidays where it may not be the court's (``berechne_frist``'s ``ort_unsicher``)
    fristablauf_bei_teilfeiertag: date | None = None

    @property
    def ortsangabe(self) -> str:
        """ "München (Bayern), Gericht der Akte" – the place whose holidays were used."""
        land = BUNDESLAENDER[self.bundesland]
        text = f"{self.ort} ({land})" if self.ort else f"{land}, Ort nicht angegeben"
        return f"{text}; Quelle: {self.ortsquelle}" if self.ortsquelle else text


def kalenderdatum(ergebnis: FristErgebnis, heute: date) -> date:
    """The ``datum`` of a calendar entry for ``ergebnis``: the triggering event, or for a backward
    deadline (which ends before its Termin) the day it is entered, at the latest the deadline itself."""
    if ergebnis.fristablauf >= ergebnis.ereignis_datum:
        return ergebnis.ereignis_datum
    return min(heute, ergebnis.fristablauf)


def ortstext(bundesland: str, ort: str | None) -> str:
    land = BUNDESLAENDER[bundesland]
    return f"{ort} ({land})" if ort else land


def feiertag(tag: date, bundesland: str, ort: str | None = None) -> str | None:
    """The German name of a holiday that certainly applies on ``tag`` at the place, or None."""
    return Feiertagskalender(_bundesland(bundesland), ort or None).feiertag(tag)


def ist_werktag(tag: date, bundesland: str, ort: str | None = None) -> bool:
    """True unless ``tag`` is a Saturday, Sunday or a holiday that certainly applies at the place (§ 193 BGB)."""
    return Feiertagskalender(_bundesland(bundesland), ort or None).ist_werktag(tag)


def _hinderungsgrund(tag: date, kalender: Feiertagskalender) -> str:
    name = kalender.feiertag(tag) or kalender.teilfeiertag(tag)
    if tag.weekday() >= 5:
        return f"{wochentag(tag)} ({name})" if name and name != wochentag(tag) else wochentag(tag)
    if not kalender.bundesland:  # BundesweiterKalender: a holiday in every Land
        return f"{name} (Feiertag in ganz Deutschland)"
    return f"{name} (Feiertag in {ortstext(kalender.bundesland, kalender.ort)})"


def _bundesland(wert: str | None) -> str:
    if wert is None or (isinstance(wert, str) and not wert.strip()):
        raise FristError(FEHLER_KEIN_BUNDESLAND)
    code = wert.strip().upper() if isinstance(wert, str) else ""
    if code not in BUNDESLAENDER:
        raise FristError(FEHLER_BUNDESLAND.format(wert=wert, zulaessig=", ".join(sorted(BUNDESLAENDER))))
    return code


def _einheit(wert: Einheit | str) -> Einheit:
    try:
        return Einheit(wert.strip().lower() if isinstance(wert, str) else wert)
    except ValueError:
        raise FristError(FEHLER_EINHEIT.format(wert=wert)) from None


def _plus_monate(tag: date, monate: int) -> tuple[date, bool]:
    """The date ``monate`` months later with the same day number; the flag says the day was missing
    in the target month and the month's last day was used instead (§ 188 Abs. 3 BGB)."""
    jahre, monat_index = divmod(tag.month - 1 + monate, 12)
    jahr, monat = tag.year + jahre, monat_index + 1
    letzter = calendar.monthrange(jahr, monat)[1]
    if tag.day > letzter:
        return date(jahr, monat, letzter), True
    return date(jahr, monat, tag.day), False


def _dauer_text(dauer: int, einheit: Einheit) -> str:
    einzahl, mehrzahl = _EINHEIT_TEXT[einheit]
    return f"{dauer} {einzahl if dauer == 1 else mehrzahl}"


class _Ende(NamedTuple):
    tag: date
    norm: str
    erklaerung: str


def _rechnerisches_ende(ereignis: date, dauer: int, einheit: Einheit, fristbeginn: Fristbeginn) -> _Ende:
    """The end before § 193 BGB, with the norm and a German explanation of the rule applied."""
    mitgezaehlt = fristbeginn == "tagesbeginn"
    if einheit is Einheit.TAGE:
        ende = ereignis + timedelta(days=dauer - 1 if mitgezaehlt else dauer)
        return _Ende(
            ende,
            "§ 188 Abs. 1",
            f"Eine nach Tagen bestimmte Frist endet mit Ablauf ihres letzten Tages (§ 188 Abs. 1 BGB): {format_datum(ende)}.",
        )
    if einheit is Einheit.WOCHEN:
        entsprechend = ereignis + timedelta(weeks=dauer)
        if mitgezaehlt:
            ende = entsprechend - timedelta(days=1)
            return _Ende(
                ende,
                "§ 188 Abs. 2 Alt. 2",
                "Die Frist endet mit Ablauf des Tages vor dem Wochentag, der dem Anfangstag entspricht "
                f"(§ 188 Abs. 2 Alt. 2 BGB): {format_datum(ende)}.",
            )
        return _Ende(
            entsprechend,
            "§ 188 Abs. 2 Alt. 1",
            f"Die Frist endet mit Ablauf des Tages der letzten Woche, der durch seine Benennung ({wochentag(ereignis)}) "
            f"dem Ereignistag entspricht (§ 188 Abs. 2 Alt. 1 BGB): {format_datum(entsprechend)}.",
        )
    monate = dauer * 12 if einheit is Einheit.JAHRE else dauer
    entsprechend, fehlt = _plus_monate(ereignis, monate)
    if fehlt:
        return _Ende(
            entsprechend,
            "§ 188 Abs. 2, 3",
            f"Den {ereignis.day}. gibt es im letzten Monat der Frist nicht; die Frist endet daher mit Ablauf des "
            f"letzten Tages dieses Monats (§ 188 Abs. 3 BGB): {format_datum(entsprechend)}.",
        )
    if mitgezaehlt:
        ende = entsprechend - timedelta(days=1)
        return _Ende(
            ende,
            "§ 188 Abs. 2 Alt. 2",
            "Die Frist endet mit Ablauf des Tages vor dem Tag, der durch seine Zahl dem Anfangstag entspricht "
            f"(§ 188 Abs. 2 Alt. 2 BGB): {format_datum(ende)}.",
        )
    return _Ende(
        entsprechend,
        "§ 188 Abs. 2 Alt. 1",
        f"Die Frist endet mit Ablauf des Tages, der durch seine Zahl ({ereignis.day}.) dem Ereignistag entspricht "
        f"(§ 188 Abs. 2 Alt. 1 BGB): {format_datum(entsprechend)}.",
    )


def vorfrist_datum(fristablauf: date, tage: int, *, arbeitstage: bool, kalender: Feiertagskalender) -> date:
    """The reminder ``tage`` calendar days (or working days) before ``fristablauf``, moved earlier off
    weekends and holidays."""
    # Uncertain partial holidays count as free here: that only moves the reminder earlier.
    if arbeitstage:
        tag, gezaehlt = fristablauf, 0
        while gezaehlt < tage:
            tag -= timedelta(days=1)
            if kalender.ist_werktag(tag, teilfeiertage_frei=True):
                gezaehlt += 1
        return tag
    tag = fristablauf - timedelta(days=tage)
    while not kalender.ist_werktag(tag, teilfeiertage_frei=True):
        tag -= timedelta(days=1)
    return tag


def _naechster_werktag(tag: date, kalender: Feiertagskalender, *, teilfeiertage_frei: bool) -> date:
    """``tag`` or the next working day after it at the court's place (§ 193 BGB, § 222 Abs. 2 ZPO)."""
    while not kalender.ist_werktag(tag, teilfeiertage_frei=teilfeiertage_frei):
        tag += timedelta(days=1)
    return tag


def _teilfeiertag_warnung(kalender: Feiertagskalender, frueh: date, spaet: date) -> str:
    tag = next(t for t in _tage(frueh, spaet) if kalender.teilfeiertag(t))
    if kalender.ort:
        ort_satz = f"Ob er in {kalender.ort} gilt, ist im Rechner nicht hinterlegt."
    else:
        ort_satz = "Der Ort des Gerichts ist nicht angegeben."
    return WARNUNG_TEILFEIERTAG.format(
        datum=format_datum(tag),
        name=kalender.teilfeiertag(tag),
        land=BUNDESLAENDER[kalender.bundesland],
        ort_satz=ort_satz,
        frueh=format_datum(frueh),
        spaet=format_datum(spaet),
    )


def _tage(von: date, bis: date) -> list[date]:
    return [von + timedelta(days=n) for n in range((bis - von).days + 1)]


class _Ablauf(NamedTuple):
    """The end of the period before and after § 193 BGB at the court's place."""

    rechnerisches_ende: date
    norm_ende: str  # the § 188 BGB rule applied
    regel: str  # German explanation of that rule
    fristablauf: date  # next working day; an uncertain partial holiday counts as a working day
    bei_teilfeiertag: date  # next working day if that partial holiday is kept at the court
    hindernisse: list[str]  # "dd.mm.yyyy reason" for each day the end moved over


def _geprueftes_datum(wert: object) -> date:
    """``wert`` if it is a date without a time from FRUEHESTES_DATUM on; raises FristError otherwise
    (a typo such as 0001-01-01 reached the Vorfrist's date arithmetic below the year 1)."""
    if isinstance(wert, datetime) or not isinstance(wert, date):
        raise FristError(FEHLER_DATUM.format(wert=wert))
    if wert < FRUEHESTES_DATUM:
        raise FristError(FEHLER_ZU_FRUEH.format(wert=wert.isoformat()))
    return wert


def _gepruefte_dauer(wert: object) -> int:
    """``wert`` if it is a whole number above 0 (not a bool); raises FristError otherwise."""
    if isinstance(wert, bool) or not isinstance(wert, int) or wert <= 0:
        raise FristError(FEHLER_DAUER.format(wert=wert))
    return wert


def _ort(wert: str | None) -> str | None:
    """The place without surrounding blanks, or None when it is missing or blank."""
    return wert.strip() if isinstance(wert, str) and wert.strip() else None


def _fristbeginn_pruefen(fristbeginn: object) -> None:
    if fristbeginn not in ("ereignis", "tagesbeginn"):
        raise FristError(FEHLER_FRISTBEGINN.format(wert=fristbeginn))


def _vorfrist_tage_pruefen(vorfrist_tage: object) -> None:
    if vorfrist_tage is not None and (isinstance(vorfrist_tage, bool) or not isinstance(vorfrist_tage, int) or vorfrist_tage < 0):
        raise FristError(FEHLER_VORFRIST.format(wert=vorfrist_tage))


def _ablauf(ereignis: date, dauer: int, einheit: Einheit, fristbeginn: Fristbeginn, kalender: Feiertagskalender) -> _Ablauf:
    """The end under § 188 BGB and its move to the next working day (§ 193 BGB, § 222 Abs. 2 ZPO).

    Raises FristError when the period reaches beyond the year 9999.
    """
    try:
        ende, norm_ende, regel = _rechnerisches_ende(ereignis, dauer, einheit, fristbeginn)
        fristablauf = _naechster_werktag(ende, kalender, teilfeiertage_frei=False)
        bei_teilfeiertag = _naechster_werktag(ende, kalender, teilfeiertage_frei=True)
        hindernisse = [f"{tag:%d.%m.%Y} {_hinderungsgrund(tag, kalender)}" for tag in _tage(ende, fristablauf)[:-1]]
    except (OverflowError, ValueError):
        raise FristError(FEHLER_ZU_LANG) from None
    return _Ablauf(ende, norm_ende, regel, fristablauf, bei_teilfeiertag, hindernisse)


def _beginn(ereignis: date, fristbeginn: Fristbeginn) -> tuple[date, str]:
    """The first day counted and the explanation: after the event day, e.g. a Zustellung (§ 187 Abs. 1
    BGB), or the event day itself for a period starting at the beginning of a day (§ 187 Abs. 2 BGB)."""
    if fristbeginn == "ereignis":
        beginn = ereignis + timedelta(days=1)
        return beginn, (
            f"Ereignis am {format_datum(ereignis)}. Der Ereignistag wird nicht mitgerechnet (§ 187 Abs. 1 BGB); "
            f"die Frist beginnt am {format_datum(beginn)}."
        )
    return ereignis, f"Die Frist beginnt mit dem {format_datum(ereignis)}; dieser Tag wird mitgerechnet (§ 187 Abs. 2 BGB)."


def _verschiebungsgrund(ablauf: _Ablauf, ort: str) -> str | None:
    """Why the end moved to the next working day (§ 193 BGB), or None when it did not move."""
    if not ablauf.hindernisse:
        return None
    return (
        f"Das rechnerische Fristende ({format_datum(ablauf.rechnerisches_ende)}) ist kein Werktag in {ort}: "
        f"{'; '.join(ablauf.hindernisse)}. Die Frist endet daher mit Ablauf des nächsten Werktags, "
        f"{format_datum(ablauf.fristablauf)} ({NORM_VERSCHIEBUNG})."
    )


def _vorfrist_mit_schritt(
    ereignis: date, fristablauf: date, vorfrist_tage: int | None, *, arbeitstage: bool, kalender: Feiertagskalender
) -> tuple[date | None, str | None]:
    """The Vorfrist and its explanation; (None, None) when disabled, (None, reason) when it would fall
    before the event day."""
    if not vorfrist_tage:
        return None, None
    kandidat = vorfrist_datum(fristablauf, vorfrist_tage, arbeitstage=arbeitstage, kalender=kalender)
    art = "Arbeitstage" if arbeitstage else "Tage"
    if kandidat < ereignis:
        return None, f"Vorfrist ({vorfrist_tage} {art}) entfällt, da sie vor dem Ereignistag läge."
    return (
        kandidat,
        f"Vorfrist ({vorfrist_tage} {art} vor Fristablauf, nicht auf Wochenende oder Feiertag): {format_datum(kandidat)}.",
    )


def _rechtsgrundlagen(rechtsgrundlage: str | None, fristbeginn: Fristbeginn, ablauf: _Ablauf) -> str:
    """The period's own norm, the BGB counting rules applied and, if the end moved, § 193 BGB."""
    norm_beginn = "§ 187 Abs. 1" if fristbeginn == "ereignis" else "§ 187 Abs. 2"
    grundlagen = [rechtsgrundlage] if rechtsgrundlage else []
    grundlagen.append(f"{norm_beginn}, {ablauf.norm_ende} BGB i. V. m. § 222 Abs. 1 ZPO")
    if ablauf.hindernisse:
        grundlagen.append(NORM_VERSCHIEBUNG)
    return "; ".join(grundlagen)


def berechne_frist(
    *,
    ereignis_datum: date,
    dauer: int,
    einheit: Einheit | str,
    bundesland: str | None,
    ort: str | None = None,
    ortsquelle: str | None = None,
    fristbeginn: Fristbeginn = "ereignis",
    vorfrist_tage: int | None = 7,
    vorfrist_arbeitstage: bool = False,
    notfrist: bool = False,
    rechtsgrundlage: str | None = None,
    bezeichnung: str | None = None,
    ort_unsicher: str | None = None,
) -> FristErgebnis:
    """Calculate the end of a period (Fristablauf) under §§ 187–193 BGB / § 222 ZPO.

    ``fristbeginn="ereignis"`` does not count the event day (§ 187 Abs. 1 BGB, e.g. Zustellung);
    ``"tagesbeginn"`` counts it (§ 187 Abs. 2 BGB). An end on a Saturday, Sunday or holiday at the
    court's place (``bundesland``, ``ort``; ``ortsquelle`` says where they come from) moves to the next
    working day; a holiday kept only in parts of the Land whose application at ``ort`` is not known is
    treated as a working day and reported in ``warnungen``. The Vorfrist lies ``vorfrist_tage`` calendar days
    (or working days with ``vorfrist_arbeitstage``) before the Fristablauf and is moved earlier off
    weekends and holidays; it is None when disabled or when it would fall before the event.
    ``rechtsgrundlage`` and ``bezeichnung`` name the period (the presets fill them).

    ``ort_unsicher`` (a German reason) says that ``bundesland``/``ort`` may not be the place of the
    court at which the period is kept (the Kanzlei's seat standing in for an unknown court, the court
    of the Akte for an appeal): then the end is the earliest that holds in every Land (weekends and
    nationwide holidays only), and a warning names the later end at the given place if it differs.

    Raises FristError with a German message for invalid input.
    """
    ereignis_datum = _geprueftes_datum(ereignis_datum)
    dauer = _gepruefte_dauer(dauer)
    einheit = _einheit(einheit)
    land = _bundesland(bundesland)
    ort = _ort(ort)
    _fristbeginn_pruefen(fristbeginn)
    _vorfrist_tage_pruefen(vorfrist_tage)
    kalender = Feiertagskalender(land, ort)
    ort_unsicher = ort_unsicher or ort_land_widerspruch(land, ort)

    ablauf = _ablauf(ereignis_datum, dauer, einheit, fristbeginn, kalender)
    warnungen: list[str] = []
    spaeter_am_ort: date | None = None
    if ort_unsicher:
        bundesweit = _ablauf(ereignis_datum, dauer, einheit, fristbeginn, BundesweiterKalender())
        if bundesweit.fristablauf < ablauf.fristablauf:
            warnungen.append(
                WARNUNG_ORT_UNSICHER.format(
                    grund=ort_unsicher,
                    frueh=format_datum(bundesweit.fristablauf),
                    ort=ortstext(land, ort),
                    spaet=format_datum(ablauf.fristablauf),
                )
            )
            ablauf, spaeter_am_ort = bundesweit, ablauf.fristablauf
    if ablauf.bei_teilfeiertag != ablauf.fristablauf:
        warnungen.append(_teilfeiertag_warnung(kalender, ablauf.fristablauf, ablauf.bei_teilfeiertag))
    if fristbeginn == "tagesbeginn" and ablauf.fristablauf != ablauf.rechnerisches_ende:
        # § 187 Abs. 2 counts the first day: ages and waiting periods, to which § 193 does not apply
        warnungen.append(WARNUNG_NUR_LEISTUNGSFRIST.format(ende=format_datum(ablauf.rechnerisches_ende)))
    beginn, beginn_schritt = _beginn(ereignis_datum, fristbeginn)
    verschiebungsgrund = _verschiebungsgrund(ablauf, "allen Bundesländern" if spaeter_am_ort else ortstext(land, ort))
    vorfrist, vorfrist_schritt = _vorfrist_mit_schritt(
        ereignis_datum, ablauf.fristablauf, vorfrist_tage, arbeitstage=vorfrist_arbeitstage, kalender=kalender
    )

    ortsquelle_text = f" ({ortsquelle})" if ortsquelle else ""
    feiertage_nach = (
        f"Feiertage nach dem Gerichtsort: {ortstext(land, ort)}{ortsquelle_text}."
        if spaeter_am_ort is None
        else f"Feiertage: nur die bundesweiten, da der Ort des maßgeblichen Gerichts nicht feststeht "
        f"(angegeben: {ortstext(land, ort)}{ortsquelle_text})."
    )
    schritte = [
        beginn_schritt,
        f"Dauer: {_dauer_text(dauer, einheit)}. {ablauf.regel}",
        feiertage_nach,
    ]
    if verschiebungsgrund:
        schritte.append(verschiebungsgrund)
    elif not warnungen:
        schritte.append(f"Das Fristende ist ein Werktag in {ortstext(land, ort)}; keine Verschiebung nach {NORM_VERSCHIEBUNG}.")
    schritte.extend(warnungen)
    schritte.append(f"Fristablauf: {format_datum(ablauf.fristablauf)}, 24:00 Uhr.")
    if notfrist:
        schritte.append(NOTFRIST_HINWEIS)
    if vorfrist_schritt:
        schritte.append(vorfrist_schritt)

    return FristErgebnis(
        ereignis_datum=ereignis_datum,
        fristbeginn=beginn,
        dauer=dauer,
        einheit=einheit,
        rechnerisches_ende=ablauf.rechnerisches_ende,
        fristablauf=ablauf.fristablauf,
        verschoben=bool(ablauf.hindernisse),
        verschiebungsgrund=verschiebungsgrund,
        vorfrist=vorfrist,
        notfrist=notfrist,
        rechtsgrundlage=_rechtsgrundlagen(rechtsgrundlage, fristbeginn, ablauf),
        bundesland=land,
        erlaeuterung="\n".join(schritte),
        bezeichnung=bezeichnung,
        ort=ort,
        ortsquelle=ortsquelle,
        warnungen=tuple(warnungen),
        fristablauf_bei_teilfeiertag=spaeter_am_ort
        or (ablauf.bei_teilfeiertag if ablauf.bei_teilfeiertag != ablauf.fristablauf else None),
    )


def ort_unsicher_grund(ort_art: OrtArt | None, bundesland: str | None, ort: str | None) -> str | None:
    """The reason to warn (``berechne_frist``'s ``ort_unsicher``) when the Kanzlei's seat stands in for
    the unknown court of a period, or a place given is not the Akte's court; None for a place given
    or taken from the Akte's court."""
    grund = {"kanzlei": GRUND_KANZLEISITZ, "abweichend": GRUND_ABWEICHEND}.get(ort_art or "")
    return grund.format(ort=ortstext(_bundesland(bundesland), _ort(ort))) if grund else None


# Why the Akte's court or the Kanzlei's seat is not the place of a period kept elsewhere.
_GRUND_ANDERE_STELLE = {
    "rechtsmittelgericht": GRUND_RECHTSMITTELGERICHT,
    "behoerde": GRUND_BEHOERDE,
    "mahngericht": GRUND_MAHNGERICHT,
    "nachholung": GRUND_NACHHOLUNG,
}


def berechne_preset(
    preset_key: str,
    ereignis_datum: date | None,
    bundesland: str | None,
    *,
    ort: str | None = None,
    ortsquelle: str | None = None,
    ort_art: OrtArt | None = None,
    vorfrist_tage: int | None = 7,
    vorfrist_arbeitstage: bool = False,
    verkuendung: date | None = None,
    sachgebiet: str | None = None,
    gericht_name: str | None = None,
) -> FristErgebnis:
    """Calculate a preset period (see ``PRESETS``) triggered by the event on ``ereignis_datum``;
    ``_berechne_preset`` says how. ``sachgebiet`` is the Akte's (akten.models.Sachgebiet) and
    ``gericht_name`` its court: where the Akte may be a matter of a procedural order with a shorter
    period for the same remedy and the preset has that twin, the earlier end applies, with a warning
    naming the later one and the rule it follows: a criminal or Bußgeld matter (``STRAFSACHEN``,
    ``FristPreset.strafsachen``: § 45 Abs. 1, § 311 Abs. 2 StPO, one week instead of two), or one
    before the Arbeitsgericht (``ARBEITSSACHEN`` or a court named Arbeitsgericht,
    ``FristPreset.arbeitssachen``: § 59 Abs. 1, § 46a Abs. 1, 3 ArbGG, one week instead of two)."""
    rechnung = functools.partial(
        _berechne_preset,
        bundesland=bundesland,
        ort=ort,
        ortsquelle=ortsquelle,
        ort_art=ort_art,
        vorfrist_tage=vorfrist_tage,
        vorfrist_arbeitstage=vorfrist_arbeitstage,
    )
    ergebnis = rechnung(preset_key, ereignis_datum, verkuendung=verkuendung)
    preset = PRESETS[preset_key]
    kuerzer: list[tuple[FristErgebnis, str, str, str]] = []  # (result, twin, Akte's kind, warning)
    art = STRAFSACHEN.get(sachgebiet or "")
    ausloeser = _strafsachen_ausloeser(preset.strafsachen, ereignis_datum, verkuendung, rechnung)
    if preset.strafsachen and art is not None and ausloeser is not None:
        kuerzer.append((rechnung(preset.strafsachen, ausloeser, verkuendung=None), preset.strafsachen, art, WARNUNG_STRAFSACHE))
    art = ARBEITSSACHEN.get(sachgebiet or "") or (ARBEITSGERICHT_ART if _ist_arbeitsgericht(gericht_name) else None)
    if preset.arbeitssachen and art is not None and ereignis_datum is not None:
        arbeit = rechnung(preset.arbeitssachen, ereignis_datum, verkuendung=verkuendung)
        kuerzer.append((arbeit, preset.arbeitssachen, art, WARNUNG_ARBEITSSACHE))
    if preset.kuerzer_falls[0] and ereignis_datum is not None:
        kurz = rechnung(preset.kuerzer_falls[0], ereignis_datum, verkuendung=verkuendung)
        ergebnis = _kuerzer_falls(preset, kurz, ergebnis)
    frueher = [k for k in kuerzer if k[0].fristablauf < ergebnis.fristablauf]
    if not frueher:
        return ergebnis
    kurz, zwilling_key, art, vorlage_warnung = min(frueher, key=lambda k: k[0].fristablauf)
    zwilling = PRESETS[zwilling_key]
    warnung = vorlage_warnung.format(
        art=art,
        dauer=_dauer_text(zwilling.dauer, zwilling.einheit),
        norm=zwilling.rechtsgrundlage,
        frueh=format_datum(kurz.fristablauf),
        vorlage=preset.label,
        norm_zivil=preset.rechtsgrundlage,
        spaet=format_datum(ergebnis.fristablauf),
    )
    return mit_warnung(kurz, warnung)


def _strafsachen_ausloeser(
    zwilling: str, ereignis_datum: date | None, verkuendung: date | None, rechnung: Callable[..., FristErgebnis]
) -> date | None:
    """The day the StPO twin of a preset runs from. A decision pronounced in presence is made known
    by its Verkündung (§ 35 StPO; §§ 314, 341 StPO), so of Zustellung and Verkündung the earlier. The
    Revisionsbegründung runs from the end of the week for the Revision, or from a later Zustellung of
    the judgment (§ 345 Abs. 1 StPO): with a Verkündung the later of the two, without one the
    Zustellung (never later than the law's start)."""
    if zwilling == "revisionsbegruendung_stpo":
        if verkuendung is None:
            return ereignis_datum
        einlegung_endet = rechnung("revision_stpo", verkuendung, verkuendung=None).fristablauf
        return max(einlegung_endet, ereignis_datum) if ereignis_datum is not None else einlegung_endet
    return min((tag for tag in (ereignis_datum, verkuendung) if tag is not None), default=None)


def _kuerzer_falls(preset: FristPreset, kurz: FristErgebnis, ergebnis: FristErgebnis) -> FristErgebnis:
    """``ergebnis`` with a warning naming the earlier end of the shorter preset for a kind of decision
    the inputs cannot tell apart (``FristPreset.kuerzer_falls``)."""
    if kurz.fristablauf >= ergebnis.fristablauf:
        return ergebnis
    zwilling = PRESETS[preset.kuerzer_falls[0]]
    return mit_warnung(
        ergebnis,
        WARNUNG_KUERZER_FALLS.format(
            fall=preset.kuerzer_falls[1],
            dauer=_dauer_text(zwilling.dauer, zwilling.einheit),
            norm=zwilling.rechtsgrundlage,
            frueh=format_datum(kurz.fristablauf),
            vorlage=zwilling.key,
        ),
    )


def _ist_arbeitsgericht(gericht_name: str | None) -> bool:
    """Arbeitsgericht, Landesarbeitsgericht, Bundesarbeitsgericht (also "ArbG Köln", "LAG Hamm")."""
    name = gericht_name or ""
    return re.search("arbeitsgericht", name, re.IGNORECASE) is not None or re.search(r"\b(?:ArbG|LAG|BAG)\b", name) is not None


def mit_zukunftswarnung(ergebnis: FristErgebnis, preset_key: str | None, heute: date) -> FristErgebnis:
    """``ergebnis`` with a warning when its triggering event lies after ``heute``: a Zustellung or
    Verkündung cannot lie ahead, so such a date is most likely mistyped (the year) and the end
    computed from it too late. Not for presets whose event may lie ahead (a Termin, § 132 ZPO; the
    agreed end of a contract, § 17 TzBfG). The calculators themselves know no "today"; their
    callers (tools, pages) add this."""
    preset = PRESETS.get(preset_key or "")
    kann_kuenftig = preset is not None and (preset.ereignis_kann_kuenftig or preset.art == "rueckwaerts")
    if ergebnis.ereignis_datum <= heute or kann_kuenftig:
        return ergebnis
    return mit_warnung(
        ergebnis, WARNUNG_ZUKUNFT.format(ereignis=format_datum(ergebnis.ereignis_datum), heute=format_datum(heute))
    )


def _berechne_preset(
    preset_key: str,
    ereignis_datum: date | None,
    bundesland: str | None,
    *,
    ort: str | None = None,
    ortsquelle: str | None = None,
    ort_art: OrtArt | None = None,
    vorfrist_tage: int | None = 7,
    vorfrist_arbeitstage: bool = False,
    verkuendung: date | None = None,
) -> FristErgebnis:
    """Calculate a preset period (see ``PRESETS``) triggered by the event on ``ereignis_datum``.

    For presets with a limit after the Verkündung (``grenze_monate``: §§ 517, 520 Abs. 2, 544 Abs. 3
    and 4, 548, 551 Abs. 2, 569 Abs. 1 ZPO, § 66 Abs. 1 ArbGG, § 63 Abs. 3 FamFG) ``verkuendung``
    adds that limit; the earlier end applies, and without a Zustellung (``ereignis_datum`` None) the
    limit alone is computed; without ``verkuendung`` the result warns that the limit is unchecked.

    The holidays are those of the court at which the period is kept (``preset.gericht``): for the
    Bundesgerichtshof its seat; a place given for the period (``ort_art`` "angabe") may be another
    federal court's (BAG, BSG, BVerwG, BFH), so the earlier end at either place applies, with a
    warning naming the later one; for an appeal court, a place that is the
    court of the Akte or the Kanzlei's seat (``ort_art`` "akte" or "kanzlei") is not its seat, and
    neither is the Kanzlei's seat the court of the Akte: then the end is the earliest that holds in
    every Land, with a warning (see ``berechne_frist``'s ``ort_unsicher``). A backward preset (§ 132
    ZPO) counts back from the Termin in ``ereignis_datum`` and moves off non-working days to the day
    before. A Verjährung preset is noted on its calculated end or the last working day before it,
    with a warning naming the later end under § 193 BGB (see ``_verjaehrung``). Raises FristError
    for unknown presets and invalid input.
    """
    preset = PRESETS.get(preset_key)
    if preset is None:
        raise FristError(FEHLER_PRESET.format(wert=preset_key, verfuegbar=", ".join(PRESETS)))
    if verkuendung is not None and not preset.grenze_monate:
        raise FristError(FEHLER_VERKUENDUNG_OHNE_REGEL.format(vorlage=preset.label))
    if verkuendung is not None and isinstance(ereignis_datum, date) and ereignis_datum < verkuendung:
        raise FristError(
            FEHLER_ZUSTELLUNG_VOR_VERKUENDUNG.format(
                zustellung=format_datum(ereignis_datum), verkuendung=format_datum(verkuendung)
            )
        )
    ort_unsicher = None
    if preset.gericht == "bgh":
        if ort_art == "angabe" and (_bundesland(bundesland), (_ort(ort) or "").casefold()) != (BGH_LAND, BGH_ORT.casefold()):
            rechne = _preset_rechner(preset, ereignis_datum, verkuendung, vorfrist_tage, vorfrist_arbeitstage)
            return _mit_warnung(
                preset,
                _bgh_oder_angegebenes_gericht(
                    rechne(BGH_LAND, BGH_ORT, BGH_QUELLE, None), rechne(bundesland, ort, ortsquelle, None)
                ),
            )
        if ort_art != "angabe":
            # the same periods run at the other federal courts (§ 74 ArbGG, § 164 SGG, § 139 VwGO,
            # § 120 FGO): without the court's place, the earliest end that holds at any of them
            ort_unsicher = GRUND_BUNDESGERICHT_OFFEN
        bundesland, ort, ortsquelle = BGH_LAND, BGH_ORT, BGH_QUELLE
    elif preset.gericht in _GRUND_ANDERE_STELLE and ort_art in ("akte", "kanzlei"):
        ort_unsicher = _GRUND_ANDERE_STELLE[preset.gericht].format(ort=ortstext(_bundesland(bundesland), _ort(ort)))
    else:
        ort_unsicher = ort_unsicher_grund(ort_art, bundesland, ort)
    return _mit_warnung(
        preset,
        _preset_rechner(preset, ereignis_datum, verkuendung, vorfrist_tage, vorfrist_arbeitstage)(
            bundesland, ort, ortsquelle, ort_unsicher
        ),
    )


def kalender_beschreibung(ergebnis: FristErgebnis, eigene: str = "") -> str:
    """What a calendar entry keeps of a computation (its `beschreibung`): the author's own words,
    then the warnings - they can name an earlier end (§ 63 Abs. 2 FamFG, an unchecked limit) and must
    be read before anything else -, then the explanation without them. Never cut."""
    erlaeuterung = ergebnis.erlaeuterung
    for warnung in ergebnis.warnungen:
        erlaeuterung = erlaeuterung.replace(f"\n{warnung}", "")
    return "\n\n".join(part for part in (eigene.strip(), "\n".join(ergebnis.warnungen), erlaeuterung.strip()) if part)


def mit_warnung(ergebnis: FristErgebnis, warnung: str) -> FristErgebnis:
    """`ergebnis` with one more warning, in `warnungen` and as the last line of the explanation."""
    return replace(ergebnis, warnungen=(*ergebnis.warnungen, warnung), erlaeuterung=f"{ergebnis.erlaeuterung}\n{warnung}")


def _mit_warnung(preset: FristPreset, ergebnis: FristErgebnis) -> FristErgebnis:
    return mit_warnung(ergebnis, f"Achtung: {preset.warnung}") if preset.warnung else ergebnis


def _preset_rechner(
    preset: FristPreset,
    ereignis_datum: date | None,
    verkuendung: date | None,
    vorfrist_tage: int | None,
    vorfrist_arbeitstage: bool,
) -> Callable[[str | None, str | None, str | None, str | None], FristErgebnis]:
    """``berechne_preset`` for checked input, as a function of the place (``bundesland``, ``ort``,
    ``ortsquelle``) and the reason it may not be the court's (``ort_unsicher``)."""

    def rechne(bundesland: str | None, ort: str | None, ortsquelle: str | None, ort_unsicher: str | None) -> FristErgebnis:
        if preset.art == "rueckwaerts":
            return _rueckwaerts(preset, ereignis_datum, bundesland, ort, ortsquelle, ort_unsicher=ort_unsicher)
        if preset.art == "verjaehrung":
            return _verjaehrung(
                preset,
                ereignis_datum,
                bundesland,
                ort,
                ortsquelle,
                vorfrist_tage=vorfrist_tage,
                vorfrist_arbeitstage=vorfrist_arbeitstage,
            )
        if ereignis_datum is None and verkuendung is None:
            raise FristError(FEHLER_DATUM.format(wert=ereignis_datum))

        def frist_ab(ereignis: date, dauer: int = preset.dauer, einheit: Einheit = preset.einheit) -> FristErgebnis:
            return berechne_frist(
                ereignis_datum=ereignis,
                dauer=dauer,
                einheit=einheit,
                bundesland=bundesland,
                ort=ort,
                ortsquelle=ortsquelle,
                vorfrist_tage=vorfrist_tage,
                vorfrist_arbeitstage=vorfrist_arbeitstage,
                notfrist=preset.notfrist,
                rechtsgrundlage=preset.rechtsgrundlage,
                bezeichnung=preset.label,
                ort_unsicher=ort_unsicher,
            )

        zeilen = [f"{preset.label} ({preset.rechtsgrundlage}), ausgelöst durch: {preset.ereignis}."]
        if verkuendung is None:
            ergebnis = frist_ab(_geprueftes_datum(ereignis_datum))
            if preset.grenze_monate:
                warnung = WARNUNG_GRENZE_OHNE_VERKUENDUNG.format(grenze=preset.grenze_text)
                ergebnis = replace(ergebnis, warnungen=(*ergebnis.warnungen, warnung))
                zeilen.append(warnung)
        else:
            ab_zustellung = frist_ab(ereignis_datum) if ereignis_datum is not None else None
            ergebnis, grenzsatz = _grenze(preset, _geprueftes_datum(verkuendung), ab_zustellung, frist_ab)
            zeilen.append(grenzsatz)
        zeilen.insert(1, ergebnis.erlaeuterung)
        if preset.hinweis:
            zeilen.append(f"Hinweis: {preset.hinweis}")
        return replace(ergebnis, erlaeuterung="\n".join(zeilen))

    return rechne


def _bgh_oder_angegebenes_gericht(bgh: FristErgebnis, angabe: FristErgebnis) -> FristErgebnis:
    """A period kept at the Bundesgerichtshof or, as the place given says, at another federal court
    (BAG, BSG, BVerwG, BFH): the earlier of both ends, with a warning naming the later one."""
    angegeben = ortstext(angabe.bundesland, angabe.ort)
    if angabe.fristablauf == bgh.fristablauf:
        zeile = f"Das Fristende gilt ebenso mit den Feiertagen am angegebenen Ort, {angegeben}."
        return replace(bgh, erlaeuterung=f"{bgh.erlaeuterung}\n{zeile}")
    frueh, spaet = (angabe, bgh) if angabe.fristablauf < bgh.fristablauf else (bgh, angabe)
    warnung = WARNUNG_BUNDESGERICHT.format(
        ort=angegeben,
        frueh=format_datum(frueh.fristablauf),
        frueh_ort=ortstext(frueh.bundesland, frueh.ort),
        spaet=format_datum(spaet.fristablauf),
        spaet_ort=ortstext(spaet.bundesland, spaet.ort),
    )
    spaetestens = max(d for d in (spaet.fristablauf, frueh.fristablauf_bei_teilfeiertag) if d is not None)
    return replace(
        frueh,
        warnungen=(*frueh.warnungen, warnung),
        erlaeuterung=f"{frueh.erlaeuterung}\n{warnung}",
        fristablauf_bei_teilfeiertag=spaetestens,
    )


def _grenze(
    preset: FristPreset,
    verkuendung: date,
    ab_zustellung: FristErgebnis | None,
    frist_ab: Callable[[date, int, Einheit], FristErgebnis],
) -> tuple[FristErgebnis, str]:
    """The period that applies under the preset's limit after ``verkuendung`` and the sentence
    explaining it.

    "beginn": the period starts at the latest ``grenze_monate`` months after the Verkündung (§ 517
    ZPO and the like); "ende": it ends at the latest then (§ 544 Abs. 3, 4 ZPO), counted as a period
    of that many months from the Verkündung. The earlier of that end and the end ``ab_zustellung``
    (None: no Zustellung yet) applies. ``frist_ab(event, dauer, einheit)`` computes a period from an event.
    """
    monate = _ZAHLWORT.get(preset.grenze_monate, str(preset.grenze_monate))
    if preset.grenze_art == "ende":
        grenze = frist_ab(verkuendung, preset.grenze_monate, Einheit.MONATE)
        grenzsatz = (
            f"Höchstgrenze: Verkündung am {format_datum(verkuendung)}; die Frist endet spätestens {monate} Monate "
            f"danach, am {format_datum(grenze.fristablauf)}."
        )
    else:
        spaetester_beginn, _ = _plus_monate(verkuendung, preset.grenze_monate)
        grenze = frist_ab(spaetester_beginn, preset.dauer, preset.einheit)
        grenzsatz = (
            f"{monate.capitalize()}-Monats-Grenze: Verkündung am {format_datum(verkuendung)}; die Frist beginnt spätestens "
            f"mit Ablauf des {format_datum(spaetester_beginn)} und endet dann am {format_datum(grenze.fristablauf)}."
        )
    if ab_zustellung is not None and ab_zustellung.fristablauf <= grenze.fristablauf:
        return ab_zustellung, grenzsatz + " Die Frist ab Zustellung endet früher und ist maßgeblich."
    massgeblich = grenze if ab_zustellung is None else replace(grenze, ereignis_datum=ab_zustellung.ereignis_datum)
    return massgeblich, grenzsatz + " Diese Grenze ist maßgeblich (früheres Fristende)."


def _rueckwaerts(
    preset: FristPreset,
    termin: date | None,
    bundesland: str | None,
    ort: str | None,
    ortsquelle: str | None,
    *,
    ort_unsicher: str | None = None,
) -> FristErgebnis:
    """§ 132 ZPO: the document must be served so that the full period lies between the day of
    service and the day of the Termin, neither of them counted (§ 222 Abs. 1 ZPO, § 187 Abs. 1 BGB
    counted backwards): for a week before a Wednesday, service on Tuesday of the week before at the
    latest. A last day that is no working day moves to the working day before it; with
    ``ort_unsicher`` a holiday of any Land counts (the earliest day that holds wherever the court is)."""
    termin = _geprueftes_datum(termin)
    land = _bundesland(bundesland)
    kalender = Feiertagskalender(land, _ort(ort))
    ort_unsicher = ort_unsicher or ort_land_widerspruch(land, _ort(ort))
    tage = preset.dauer * 7 if preset.einheit is Einheit.WOCHEN else preset.dauer
    if preset.einheit not in (Einheit.TAGE, Einheit.WOCHEN):
        raise FristError(FEHLER_EINHEIT.format(wert=preset.einheit))
    ende = termin - timedelta(days=tage + 1)
    letzter = ende
    # Backwards the safe direction is earlier: uncertain partial holidays count as free.
    while not kalender.ist_werktag(letzter, teilfeiertage_frei=True) or (ort_unsicher and _feiertag_irgendwo(letzter)):
        letzter -= timedelta(days=1)
    orte = "jedes Bundesland" if ort_unsicher else ortstext(land, kalender.ort)
    schritte = [
        f"{preset.label} ({preset.rechtsgrundlage}), rückwärts gerechnet vom Termin am {format_datum(termin)}.",
        f"Zwischen Zustellung und Termin müssen volle {_dauer_text(preset.dauer, preset.einheit)} liegen; weder der Tag "
        f"der Zustellung noch der Termintag zählen mit (§ 222 Abs. 1 ZPO, § 187 Abs. 1 BGB): zuzustellen spätestens am "
        f"{format_datum(ende)}.",
        f"Feiertage nach dem Gerichtsort: {ortstext(land, kalender.ort)}" + (f" ({ortsquelle})." if ortsquelle else "."),
    ]
    warnungen: list[str] = []
    if ort_unsicher:
        warnungen.append(f"Achtung: {ort_unsicher} Der Rechner zählt deshalb die Feiertage jedes Bundeslandes mit.")
        schritte.extend(warnungen)
    grund = None
    if letzter != ende:
        grund = (
            f"{format_datum(ende)} ist kein Werktag in {orte}; bei einer Rückwärtsfrist gilt der "
            f"Werktag davor: {format_datum(letzter)}."
        )
        schritte.append(grund)
    schritte.append(
        f"Spätester Tag der Zustellung: {format_datum(letzter)}. Einzureichen so rechtzeitig, dass das Gericht bis "
        "dahin zustellen kann."
    )
    if preset.hinweis:
        schritte.append(f"Hinweis: {preset.hinweis}")
    return FristErgebnis(
        ereignis_datum=termin,
        fristbeginn=ende,
        dauer=preset.dauer,
        einheit=preset.einheit,
        rechnerisches_ende=ende,
        fristablauf=letzter,
        verschoben=letzter != ende,
        verschiebungsgrund=grund,
        vorfrist=None,
        notfrist=False,
        rechtsgrundlage=preset.rechtsgrundlage,
        bundesland=land,
        erlaeuterung="\n".join(schritte),
        bezeichnung=preset.label,
        ort=kalender.ort,
        ortsquelle=ortsquelle,
        warnungen=tuple(warnungen),
    )


def _feiertag_irgendwo(tag: date) -> bool:
    """Whether ``tag`` is a holiday, certain or partial, in any Land."""
    return any(Feiertagskalender(land).feiertag(tag) or Feiertagskalender(land).teilfeiertag(tag) for land in BUNDESLAENDER)


def _verjaehrung(
    preset: FristPreset,
    ereignis: date | None,
    bundesland: str | None,
    ort: str | None,
    ortsquelle: str | None,
    *,
    vorfrist_tage: int | None,
    vorfrist_arbeitstage: bool,
) -> FristErgebnis:
    """A limitation period (Verjährung): from the end of the year (§ 199 Abs. 1 BGB, ``jahresschluss``)
    or from the event, the event day not counted (§ 548 BGB with §§ 187 Abs. 1, 188 BGB).

    The calendar date (``fristablauf``) is the calculated end when it is a working day at the place,
    else the last working day before it. § 193 BGB, which the courts (BGH) apply to the end of a
    limitation period, moves the end to the next working day; that later end is only named in the
    warning: which holidays count depends on the Erklärungs- or Leistungsort, and a Hemmung (§ 204
    BGB) on the earlier day is always in time. An uncertain partial holiday keeps the calculated end,
    which is then the earliest possible one. Raises FristError for invalid input.
    """
    ereignis = _geprueftes_datum(ereignis)
    _vorfrist_tage_pruefen(vorfrist_tage)
    land = _bundesland(bundesland)
    kalender = Feiertagskalender(land, _ort(ort))
    schritte = [f"{preset.label} ({preset.rechtsgrundlage}), ausgelöst durch: {preset.ereignis}."]
    norm_ende: str | None = None  # the § 188 BGB rule, for a period not ending with the year
    try:
        if preset.jahresschluss:
            beginn = date(ereignis.year + 1, 1, 1)
            ende = date(ereignis.year + preset.dauer, 12, 31)
            schritte += [
                f"Anspruch entstanden und Kenntnis im Jahr {ereignis.year} ({format_datum(ereignis)}); die Verjährung "
                f"beginnt mit dem Schluss des Jahres, {format_datum(date(ereignis.year, 12, 31))} (§ 199 Abs. 1 BGB).",
                f"Dauer: {_dauer_text(preset.dauer, preset.einheit)} ({preset.rechtsgrundlage}). Die Verjährung endet "
                f"rechnerisch mit Ablauf des {format_datum(ende)}.",
            ]
        else:
            beginn, beginn_schritt = _beginn(ereignis, "ereignis")
            ende, norm, regel = _rechnerisches_ende(ereignis, preset.dauer, preset.einheit, "ereignis")
            norm_ende = f"§ 187 Abs. 1, {norm} BGB"
            schritte += [beginn_schritt, f"Dauer: {_dauer_text(preset.dauer, preset.einheit)}. {regel}"]
        eintrag = ende
        while not kalender.ist_werktag(eintrag):
            eintrag -= timedelta(days=1)
        nach_193 = _naechster_werktag(ende, kalender, teilfeiertage_frei=False)
    except (OverflowError, ValueError):
        raise FristError(FEHLER_ZU_LANG) from None

    ort_text = ortstext(land, kalender.ort)
    schritte.append(f"Feiertage nach dem Ort: {ort_text}" + (f" ({ortsquelle})." if ortsquelle else "."))
    warnungen: list[str] = []
    grund = None
    if eintrag != ende:
        hindernisse = "; ".join(f"{tag:%d.%m.%Y} {_hinderungsgrund(tag, kalender)}" for tag in _tage(ende, nach_193)[:-1])
        grund = (
            f"Das rechnerische Ende ({format_datum(ende)}) ist kein Werktag in {ort_text}: {hindernisse}. Notiert ist "
            f"der letzte Werktag davor, {format_datum(eintrag)} (sicheres Datum)."
        )
        warnungen.append(
            WARNUNG_VERJAEHRUNG_193.format(ende=format_datum(ende), frueh=format_datum(eintrag), spaet=format_datum(nach_193))
        )
        schritte.append(grund)
        schritte.extend(warnungen)
    else:
        schritte.append(f"Das rechnerische Ende ist ein Werktag in {ort_text}.")
    schritte.append(f"Im Kalender zu notieren: {format_datum(eintrag)}, 24:00 Uhr.")
    vorfrist, vorfrist_schritt = _vorfrist_mit_schritt(
        ereignis, eintrag, vorfrist_tage, arbeitstage=vorfrist_arbeitstage, kalender=kalender
    )
    if vorfrist_schritt:
        schritte.append(vorfrist_schritt)
    if preset.hinweis:
        schritte.append(f"Hinweis: {preset.hinweis}")
    rechtsgrundlage = "; ".join(norm for norm in (preset.rechtsgrundlage, norm_ende, grund and "§ 193 BGB") if norm)
    return FristErgebnis(
        ereignis_datum=ereignis,
        fristbeginn=beginn,
        dauer=preset.dauer,
        einheit=preset.einheit,
        rechnerisches_ende=ende,
        fristablauf=eintrag,
        verschoben=eintrag != ende,
        verschiebungsgrund=grund,
        vorfrist=vorfrist,
        notfrist=False,
        rechtsgrundlage=rechtsgrundlage,
        bundesland=land,
        erlaeuterung="\n".join(schritte),
        bezeichnung=preset.label,
        ort=kalender.ort,
        ortsquelle=ortsquelle,
        warnungen=tuple(warnungen),
    )
