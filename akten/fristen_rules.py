"""Rules for calendar entries: the place whose holidays count and the one validator every path
that stores a KalenderEintrag passes (agent tool, draft edit, draft accept).

The place of a deadline is the court of the Akte (Ort and Bundesland); only when the Akte names no
court does the Kanzlei's seat (KanzleiProfil) count. There is no default Land.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.utils import timezone

from rechner.feiertage import Feiertagskalender, bundesweiter_feiertag
from rechner.fristen import (
    BUNDESLAENDER,
    FEHLER_KEIN_BUNDESLAND,
    PRESETS,
    Einheit,
    Fristbeginn,
    FristErgebnis,
    OrtArt,
    berechne_frist,
    berechne_preset,
    mit_zukunftswarnung,
    ort_aus_gerichtsname,
    ort_unsicher_grund,
    ortstext,
)
from rechner.tabellen import format_datum, wochentag

from .models import Akte, KalenderEintrag, KanzleiProfil

QUELLE_GERICHT = "Gericht der Akte"
QUELLE_KANZLEI = "Kanzleisitz"
QUELLE_ANGABE = "Angabe"
QUELLE_RECHTSMITTELGERICHT = "Angabe zum Rechtsmittelgericht"
QUELLE_ABWEICHEND = "Angabe, nicht das Gericht der Akte in {gericht}"

ERR_VERGANGEN = "Der Fristablauf {datum} liegt in der Vergangenheit. Prüfe das Datum (auch das Jahr)."
HINWEIS_VERJAEHRUNG = (
    "Bei einer Verjährung notiere sicherheitshalber den letzten Werktag davor; der Fristenrechner nennt beide Daten."
)
ERR_WOCHENENDE = (
    "Der Fristablauf {datum} fällt auf ein Wochenende; nach § 193 BGB, § 222 Abs. 2 ZPO endet die Frist erst am "
    "nächsten Werktag. Berechne die Frist mit dem Fristenrechner. " + HINWEIS_VERJAEHRUNG
)
ERR_FEIERTAG = (
    "Der Fristablauf {datum} ist ein Feiertag ({name}) in {ort}; nach § 193 BGB, § 222 Abs. 2 ZPO endet die Frist "
    "erst am nächsten Werktag. Berechne die Frist mit dem Fristenrechner. " + HINWEIS_VERJAEHRUNG
)
ERR_VORFRIST = "Die Vorfrist {vorfrist} liegt nach dem Fristablauf {fristablauf}."
ERR_FRISTABLAUF_FEHLT = "Eine Frist braucht einen Fristablauf."


class KalenderRegelFehler(ValueError):
    """A calendar entry breaks a deadline rule; the message is German and shown to the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


ERR_NACH_BERECHNUNG = (
    "Der Fristablauf {angegeben} liegt nach dem berechneten Fristablauf {berechnet}{grundlage}. Ein späteres Datum "
    "kann die Frist kosten; {rat}"
)
RAT_ENTWURF = "ist das Ausgangsdatum falsch, lehne den Entwurf ab und lass die Frist neu berechnen."
RAT_EINTRAG = "ist das Ausgangsdatum falsch, lege die Frist mit dem Fristenrechner neu an und erledige diese."
ERR_BERECHNETE_FRIST_TYP = "Eine berechnete Frist bleibt eine Frist (kein Termin, keine Wiedervorlage)."
ERR_BERECHNETE_NOTFRIST = "Die berechnete Frist ist eine Notfrist; die Kennzeichnung bleibt."


def berechnung_einhalten(
    *,
    typ: str,
    fristablauf: datetime.date | None,
    notfrist: bool,
    berechnet: datetime.date,
    berechnet_notfrist: bool,
    rechtsgrundlage: str = "",
    rat: str = RAT_EINTRAG,
) -> None:
    """A Frist the Fristenrechner computed may be moved earlier by a person, never later, stays a
    Frist and keeps its Notfrist: on the draft (edit, approval) and on the stored entry (admin).
    Raises KalenderRegelFehler."""
    if typ != KalenderEintrag.Typ.FRIST:
        raise KalenderRegelFehler(ERR_BERECHNETE_FRIST_TYP)
    if fristablauf is not None and fristablauf > berechnet:
        raise KalenderRegelFehler(
            ERR_NACH_BERECHNUNG.format(
                angegeben=f"{fristablauf:%d.%m.%Y}",
                berechnet=f"{berechnet:%d.%m.%Y}",
                grundlage=f" ({rechtsgrundlage})" if rechtsgrundlage else "",
                rat=rat,
            )
        )
    if berechnet_notfrist and not notfrist:
        raise KalenderRegelFehler(ERR_BERECHNETE_NOTFRIST)


@dataclass(frozen=True)
class FristOrt:
    """The place whose holidays count for a deadline, where that place comes from (``quelle``, German)
    and what it is (``art``: given for the deadline, the Akte's court, or the Kanzlei's seat standing
    in for an unknown court; the calculator then warns and names the date that holds everywhere)."""

    bundesland: str
    ort: str | None
    quelle: str
    art: OrtArt = "angabe"

    @property
    def text(self) -> str:
        return f"{ortstext(self.bundesland, self.ort)} ({self.quelle})"


def frist_ort(*, akte: Akte | None) -> FristOrt | None:
    """The court of ``akte`` if it names one, else the Kanzlei's seat, else None (ask the user)."""
    if akte is not None and akte.gericht_bundesland:
        # without an Ort, the place the court's name names ("Landgericht Hamburg"): checked against the Land
        ort = akte.gericht_ort or ort_aus_gerichtsname(akte.gericht_name)
        return FristOrt(akte.gericht_bundesland, ort or None, _gericht_quelle(akte), "akte")
    profil = KanzleiProfil.current()
    if profil is not None and profil.sitz_bundesland:
        return FristOrt(profil.sitz_bundesland, profil.sitz_ort or None, QUELLE_KANZLEI, "kanzlei")
    return None


def frist_ort_oder_fehler(*, akte: Akte | None) -> FristOrt:
    """Like ``frist_ort``, but raises KalenderRegelFehler with a German request for the place."""
    ort = frist_ort(akte=akte)
    if ort is None:
        raise KalenderRegelFehler(FEHLER_KEIN_BUNDESLAND)
    return ort


def frist_berechnen(
    *,
    ort: FristOrt,
    akte: Akte | None,
    ereignis_datum: datetime.date | None,
    vorlage: str | None,
    dauer: int | None = None,
    einheit: Einheit | str | None = None,
    fristbeginn: Fristbeginn = "ereignis",
    vorfrist_tage: int | None = 7,
    vorfrist_arbeitstage: bool = False,
    verkuendung: datetime.date | None = None,
    notfrist: bool = False,
) -> FristErgebnis:
    """The Fristenrechner at `ort`, as the tools and the Rechner page run it: a `vorlage` (whose
    shorter twin applies when the Akte may be a criminal or Bußgeld matter, or one before the
    Arbeitsgericht: its Sachgebiet or its court) or a period of `dauer` `einheit`; a triggering event after today is warned about.
    Raises rechner.fristen.FristError (German) for invalid input."""
    if vorlage:
        ergebnis = berechne_preset(
            vorlage,
            ereignis_datum,
            ort.bundesland,
            ort=ort.ort,
            ortsquelle=ort.quelle,
            ort_art=ort.art,
            vorfrist_tage=vorfrist_tage,
            vorfrist_arbeitstage=vorfrist_arbeitstage,
            verkuendung=verkuendung,
            sachgebiet=akte.sachgebiet if akte is not None else None,
            gericht_name=akte.gericht_name if akte is not None else None,
        )
    else:
        ergebnis = berechne_frist(
            ereignis_datum=ereignis_datum,  # type: ignore[arg-type]  # checked by berechne_frist
            dauer=dauer,  # type: ignore[arg-type]
            einheit=einheit,  # type: ignore[arg-type]
            bundesland=ort.bundesland,
            ort=ort.ort,
            ortsquelle=ort.quelle,
            fristbeginn=fristbeginn,
            ort_unsicher=ort_unsicher_grund(ort.art, ort.bundesland, ort.ort),
            vorfrist_tage=vorfrist_tage,
            vorfrist_arbeitstage=vorfrist_arbeitstage,
            notfrist=notfrist,
        )
    return mit_zukunftswarnung(ergebnis, vorlage, timezone.localdate())


ERR_ORT_OHNE_LAND = (
    "Zum Ort des Gerichts fehlt das Bundesland. Gib beides an oder lass beides weg, damit das Gericht der Akte gilt."
)


def frist_ort_bestimmen(*, akte: Akte | None, bundesland: str | None, ort: str | None, vorlage: str | None = None) -> FristOrt:
    """The place for a calculation: an explicit ``bundesland``/``ort``, else the Akte's court, else the
    Kanzlei's seat. An explicit place other than the Akte's court is taken as uncertain ("abweichend":
    the calculator warns and takes the date that holds everywhere); an Ort without Land and no known
    place at all raise KalenderRegelFehler (German). For a ``vorlage`` kept at another court
    than the Akte's (an appeal court, the Mahngericht, an authority: rechner.fristen.FristPreset.gericht)
    an explicit place is taken as that court's, unless it is the Akte's own court: then it counts as
    the Akte's court, for which the calculator warns and takes the date that holds everywhere."""
    ort = (ort or "").strip() or None
    if ort and not bundesland:
        raise KalenderRegelFehler(ERR_ORT_OHNE_LAND)
    if not bundesland:
        return frist_ort_oder_fehler(akte=akte)
    preset = PRESETS.get(vorlage or "")
    akte_land = akte.gericht_bundesland if akte is not None else ""
    akte_ort = (akte.gericht_ort if akte is not None else "") or ""
    ort_passt = not ort or not akte_ort or ort.casefold() == akte_ort.casefold()
    if preset is not None and preset.gericht != "akte":
        if akte_land and bundesland == akte_land and ort_passt:
            # The Akte's own court given for a period kept at another court or authority: most likely
            # copied from the Akte, not that other court's seat; the calculator warns and takes the
            # date that holds in every Land.
            return frist_ort_oder_fehler(akte=akte)
        return FristOrt(bundesland, ort, QUELLE_RECHTSMITTELGERICHT)
    if akte is not None and akte.gericht_bundesland:
        if bundesland != akte.gericht_bundesland or not ort_passt:
            # Another court's period (Rechtsbeschwerde at the BGH, Beschwerdebegründung at the OVG, a
            # period the appeal court set) or a mistake: either place may be the right one, so the
            # calculator takes the end that holds in every Land and names both.
            gericht = ortstext(akte.gericht_bundesland, akte.gericht_ort or None)
            return FristOrt(bundesland, ort, QUELLE_ABWEICHEND.format(gericht=gericht), "abweichend")
        return FristOrt(akte.gericht_bundesland, ort or akte.gericht_ort or None, QUELLE_ANGABE)
    return FristOrt(bundesland, ort, QUELLE_ANGABE)


def _gericht_quelle(akte: Akte) -> str:
    return f"{QUELLE_GERICHT}: {akte.gericht_name}" if akte.gericht_name else QUELLE_GERICHT


def kalender_eintrag_pruefen(
    *,
    typ: str,
    fristablauf: datetime.date | None,
    vorfrist: datetime.date | None,
    heute: datetime.date | None = None,
) -> None:
    """Check a calendar entry before it is proposed, edited or stored.

    A FRIST needs a Fristablauf that is not in the past and not on a weekend or a holiday kept in
    every Land (§ 193 BGB, § 222 Abs. 2 ZPO would move it to the next working day; a Verjährung is
    noted on the working day before, as the Fristenrechner does). A holiday kept
    only at the Akte's court is no objection: a deadline kept at another court (an appeal court, the
    Bundesgerichtshof) ends there, and an earlier date is never the dangerous error. A Vorfrist must
    not lie after the Fristablauf. Raises KalenderRegelFehler.
    """
    if vorfrist is not None and fristablauf is not None and vorfrist > fristablauf:
        raise KalenderRegelFehler(ERR_VORFRIST.format(vorfrist=format_datum(vorfrist), fristablauf=format_datum(fristablauf)))
    if typ != KalenderEintrag.Typ.FRIST:
        return
    if fristablauf is None:
        raise KalenderRegelFehler(ERR_FRISTABLAUF_FEHLT)
    if fristablauf < (heute or timezone.localdate()):
        raise KalenderRegelFehler(ERR_VERGANGEN.format(datum=format_datum(fristablauf)))
    if fristablauf.weekday() >= 5:
        raise KalenderRegelFehler(ERR_WOCHENENDE.format(datum=format_datum(fristablauf)))
    name = bundesweiter_feiertag(fristablauf)
    if name is not None:
        raise KalenderRegelFehler(ERR_FEIERTAG.format(datum=format_datum(fristablauf), name=name, ort="ganz Deutschland"))


HINWEIS_WIEDERVORLAGE = "Die Wiedervorlage fällt auf {was}; bitte prüfe, ob ein Werktag gemeint ist."
WAS_WOCHENENDE = "einen {wochentag} ({datum})"
WAS_FEIERTAG_BUNDESWEIT = "einen bundesweiten Feiertag: {name} am {datum}"
WAS_FEIERTAG_ORT = "einen Feiertag in {ort} ({quelle}): {name} am {datum}"
WAS_TEILFEIERTAG = "den {datum}, in Teilen von {land} ein Feiertag ({name}; {quelle})"


def wiedervorlage_hinweis(
    *, akte: Akte | None, typ: str, datum: datetime.date | None, fristablauf: datetime.date | None = None
) -> str:
    """A German hint when a Wiedervorlage is due (`fristablauf`, else `datum`, as the
    Fristenkontrolle lists it) on a Saturday, a Sunday or a holiday; "" otherwise and for other
    entries. Not an error: a Wiedervorlage may be meant for that day, but usually a working day is.

    Holidays are those of the place of the Akte's deadlines (`frist_ort`: its court, else the
    Kanzlei's seat), also one kept only in parts of its Land; with no place known only those kept in
    every Land (no Land is assumed). The one hint of every path that creates or shows a Wiedervorlage
    (draft, record, API, Fristenkontrolle)."""
    tag = fristablauf or datum
    if typ != KalenderEintrag.Typ.WIEDERVORLAGE or tag is None:
        return ""
    text = f"{tag:%d.%m.%Y}"
    if tag.weekday() >= 5:
        return HINWEIS_WIEDERVORLAGE.format(was=WAS_WOCHENENDE.format(wochentag=wochentag(tag), datum=text))
    name = bundesweiter_feiertag(tag)
    if name is not None:
        return HINWEIS_WIEDERVORLAGE.format(was=WAS_FEIERTAG_BUNDESWEIT.format(name=name, datum=text))
    if not _feiertag_in_einem_land(tag):
        return ""  # the common case, without reading the place
    ort = frist_ort(akte=akte)
    if ort is None:
        return ""
    kalender, land = Feiertagskalender(ort.bundesland, ort.ort), BUNDESLAENDER[ort.bundesland]
    name = kalender.feiertag(tag)
    if name is not None:
        wo = f"{ort.ort}, {land}" if ort.ort and ort.ort != land else land  # "Berlin", not "Berlin, Berlin"
        return HINWEIS_WIEDERVORLAGE.format(was=WAS_FEIERTAG_ORT.format(ort=wo, quelle=ort.quelle, name=name, datum=text))
    name = kalender.teilfeiertag(tag)
    if name is not None:
        return HINWEIS_WIEDERVORLAGE.format(was=WAS_TEILFEIERTAG.format(name=name, datum=text, land=land, quelle=ort.quelle))
    return ""


def _feiertag_in_einem_land(tag: datetime.date) -> bool:
    """Whether `tag` is a holiday somewhere in Germany, in all or part of a Land."""
    return any(
        kalender.feiertag(tag) is not None or kalender.teilfeiertag(tag) is not None
        for kalender in (Feiertagskalender(land) for land in BUNDESLAENDER)
    )
