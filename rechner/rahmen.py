"""RVG fees that do not follow the value: Betragsrahmengebühren and Festgebühren.

Legal basis (RVG i. d. F. des KostBRÄG 2025, mandates from 2025-06-01, § 60 Abs. 1 RVG)
- Teil 4 VV RVG (Strafsachen), Teil 5 VV RVG (Bußgeldsachen): a frame (Wahlanwalt) and a fixed fee
  for the court-appointed lawyer (gerichtlich bestellter oder beigeordneter Rechtsanwalt).
- § 3 RVG with Nrn. 2302, 3102, 3106 VV RVG: Sozialgerichtsverfahren with Betragsrahmengebühren.
- § 14 Abs. 1 RVG: within the frame the lawyer fixes the fee by Umfang, Schwierigkeit, Bedeutung,
  Einkommens- und Vermögensverhältnisse and Haftungsrisiko; the Mittelgebühr ((von + bis) / 2) is the
  fee of the average case. Anm. zu Nr. 2302: more than 391 EUR only if umfangreich oder schwierig.
- Teil 2 Abschnitt 5 VV RVG (Beratungshilfe, Nrn. 2500 to 2508): Festgebühren.
- Nr. 1008 VV RVG: with several clients in the same Gegenstand the minimum and maximum of a
  Verfahrens- or Geschäftsgebühr (and a Festgebühr) rise by 30 % per further client, the increases
  at most twice the amounts (Anm. Abs. 3); the threshold of Nr. 2302 rises with them (Anm. Abs. 4).
- Nr. 7002 VV RVG: 20 % of the fees, at most 20 EUR, per Angelegenheit (here: one Angelegenheit).
Amounts of the versions before 2025-06-01 are not stored: such mandates get a German error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal

from rechner import rvg
from rechner.rvg import AuslagenRequest, Calculation, Position, RvgError
from rechner.tabellen import als_decimal, format_euro, format_zahl, runde_cent

GUELTIG_AB = date(2025, 6, 1)

FEHLER_DATUM = (
    "Betragsrahmen- und Festgebühren sind für Aufträge ab dem 01.06.2025 (KostBRÄG 2025) hinterlegt; Auftragsdatum: {datum}."
)
FEHLER_UNBEKANNT = "Nr. {vv} VV RVG ist als Rahmen- oder Festgebühr nicht hinterlegt. Verfügbar sind die Nrn. {verfuegbar}."
FEHLER_RAHMEN = "Der Betrag {betrag} liegt außerhalb des Rahmens von Nr. {vv} VV RVG: zulässig sind {von} bis {bis}."
FEHLER_FEST = "Nr. {vv} VV RVG ist eine Festgebühr von {betrag}; ein eigener Betrag ist nicht möglich."
FEHLER_PFLICHT = "Nr. {vv} VV RVG hat keinen Festbetrag für den gerichtlich bestellten oder beigeordneten Anwalt."
FEHLER_SCHWELLE = (
    "Eine Geschäftsgebühr nach Nr. 2302 VV RVG von mehr als {schwelle} kann nur gefordert werden, wenn die Tätigkeit "
    "umfangreich oder schwierig war. Bitte bestätige das oder wähle höchstens {schwelle}."
)
FEHLER_KEINE = "Bitte mindestens eine Gebührenposition angeben."
BEGRUENDUNG_MITTEL = (
    "Mittelgebühr nach § 14 Abs. 1 RVG ({betrag}): Umfang und Schwierigkeit der Tätigkeit, Bedeutung der Angelegenheit, "
    "Einkommens- und Vermögensverhältnisse und Haftungsrisiko entsprechen einem Durchschnittsfall."
)
BEGRUENDUNG_BESTIMMT = (
    "Vom Anwalt nach § 14 Abs. 1 RVG bestimmt ({betrag}, Mittelgebühr {mittel}): maßgeblich sind Umfang, "
    "Schwierigkeit, Bedeutung, Einkommens- und Vermögensverhältnisse und Haftungsrisiko; gegenüber Dritten ist die "
    "Bestimmung nicht verbindlich, wenn sie unbillig ist (in der Praxis bis etwa 20 % Abweichung geduldet)."
)
BEGRUENDUNG_PFLICHT = "Festbetrag des gerichtlich bestellten oder beigeordneten Rechtsanwalts ({betrag})."
BEGRUENDUNG_FEST = "Festgebühr ({betrag})."
BEGRUENDUNG_1008 = (
    "Erhöht nach Nr. 1008 VV RVG um {prozent} % für {weitere} weitere{n} Auftraggeber (derselbe Gegenstand): {von} bis {bis}."
)


@dataclass(frozen=True)
class Rahmengebuehr:
    """A fee of Teil 2 Abschnitt 5, 3 (Sozialrecht), 4 or 5 VV RVG; von == bis for a Festgebühr."""

    vv: str
    label: str
    von: Decimal
    bis: Decimal
    pflicht: Decimal | None = None  # fixed fee of the court-appointed lawyer (Teile 4 and 5)
    schwelle: Decimal | None = None  # Nr. 2302: more than this only if umfangreich oder schwierig

    @property
    def mittelgebuehr(self) -> Decimal:
        return runde_cent((self.von + self.bis) / 2)

    @property
    def festgebuehr(self) -> bool:
        return self.von == self.bis

    @property
    def erhoehungsfaehig(self) -> bool:
        """Nr. 1008 VV RVG raises "die Verfahrens- oder Geschäftsgebühr" (`rvg.erhoehungsfaehig`)."""
        return rvg.erhoehungsfaehig(self.label)

    def erhoeht(self, auftraggeber: int) -> Rahmengebuehr:
        """The fee for ``auftraggeber`` clients in the same Gegenstand (Nr. 1008 VV RVG): frame, fixed
        fee of the court-appointed lawyer and threshold times 1 + 0.3 per further client, at most 3."""
        faktor = 1 + rvg.erhoehung(auftraggeber)
        if faktor == 1 or not self.erhoehungsfaehig:
            return self

        def mal(betrag: Decimal | None) -> Decimal | None:
            return None if betrag is None else runde_cent(betrag * faktor)

        return replace(
            self,
            von=runde_cent(self.von * faktor),
            bis=runde_cent(self.bis * faktor),
            pflicht=mal(self.pflicht),
            schwelle=mal(self.schwelle),
        )


def _r(vv: str, label: str, von: str, bis: str, pflicht: str | None = None, schwelle: str | None = None) -> Rahmengebuehr:
    return Rahmengebuehr(
        vv,
        label,
        Decimal(von),
        Decimal(bis),
        None if pflicht is None else Decimal(pflicht),
        None if schwelle is None else Decimal(schwelle),
    )


def _fest(vv: str, label: str, betrag: str) -> Rahmengebuehr:
    return Rahmengebuehr(vv, label, Decimal(betrag), Decimal(betrag))


RAHMEN: dict[str, Rahmengebuehr] = {
    gebuehr.vv: gebuehr
    for gebuehr in (
        # Beratungshilfe (Teil 2 Abschnitt 5)
        _fest("2500", "Beratungshilfegebühr (vom Rechtsuchenden)", "15.00"),
        _fest("2501", "Beratungsgebühr (Beratungshilfe)", "42.00"),
        _fest("2502", "Beratungsgebühr Schuldenbereinigung (Beratungshilfe)", "84.00"),
        _fest("2503", "Geschäftsgebühr (Beratungshilfe)", "102.00"),
        _fest("2504", "Geschäftsgebühr Schuldenbereinigung, bis 5 Gläubiger (Beratungshilfe)", "324.00"),
        _fest("2505", "Geschäftsgebühr Schuldenbereinigung, 6 bis 10 Gläubiger (Beratungshilfe)", "486.00"),
        _fest("2506", "Geschäftsgebühr Schuldenbereinigung, 11 bis 15 Gläubiger (Beratungshilfe)", "647.00"),
        _fest("2507", "Geschäftsgebühr Schuldenbereinigung, mehr als 15 Gläubiger (Beratungshilfe)", "810.00"),
        _fest("2508", "Einigungs- und Erledigungsgebühr (Beratungshilfe)", "180.00"),
        # Sozialrecht (§ 3 RVG)
        _r("2302", "Geschäftsgebühr in sozialrechtlichen Angelegenheiten", "65.00", "837.00", schwelle="391.00"),
        _r("3102", "Verfahrensgebühr vor den Sozialgerichten", "65.00", "719.00"),
        _r("3106", "Terminsgebühr vor den Sozialgerichten", "65.00", "665.00"),
        # Strafsachen (Teil 4)
        _r("4100", "Grundgebühr (Strafsachen)", "48.00", "432.00", "192.00"),
        _r("4101", "Grundgebühr mit Zuschlag (Mandant nicht auf freiem Fuß)", "48.00", "540.00", "235.00"),
        _r("4102", "Terminsgebühr außerhalb der Hauptverhandlung", "48.00", "360.00", "163.00"),
        _r("4104", "Verfahrensgebühr vorbereitendes Verfahren", "48.00", "348.00", "158.00"),
        _r("4105", "Verfahrensgebühr vorbereitendes Verfahren mit Zuschlag", "48.00", "435.00", "193.00"),
        _r("4106", "Verfahrensgebühr erster Rechtszug Amtsgericht", "48.00", "348.00", "158.00"),
        _r("4107", "Verfahrensgebühr erster Rechtszug Amtsgericht mit Zuschlag", "48.00", "435.00", "193.00"),
        _r("4108", "Terminsgebühr je Hauptverhandlungstag Amtsgericht", "84.00", "576.00", "264.00"),
        _r("4109", "Terminsgebühr je Hauptverhandlungstag Amtsgericht mit Zuschlag", "84.00", "719.00", "321.00"),
        _r("4112", "Verfahrensgebühr erster Rechtszug Strafkammer", "60.00", "384.00", "178.00"),
        _r("4114", "Terminsgebühr je Hauptverhandlungstag Strafkammer", "96.00", "671.00", "307.00"),
        _r("4124", "Verfahrensgebühr Berufungsverfahren", "96.00", "671.00", "307.00"),
        _r("4126", "Terminsgebühr je Hauptverhandlungstag Berufung", "96.00", "671.00", "307.00"),
        _r("4130", "Verfahrensgebühr Revisionsverfahren", "144.00", "1331.00", "590.00"),
        _r("4132", "Terminsgebühr je Hauptverhandlungstag Revision", "144.00", "671.00", "326.00"),
        # Bußgeldsachen (Teil 5)
        _r("5100", "Grundgebühr (Bußgeldsachen)", "36.00", "204.00", "96.00"),
        _r("5101", "Verfahrensgebühr Verwaltungsbehörde, Geldbuße unter 80 €", "24.00", "132.00", "62.00"),
        _r("5102", "Terminsgebühr Verwaltungsbehörde, Geldbuße unter 80 €", "24.00", "132.00", "62.00"),
        _r("5103", "Verfahrensgebühr Verwaltungsbehörde, Geldbuße 80 bis 5.000 €", "36.00", "348.00", "154.00"),
        _r("5104", "Terminsgebühr Verwaltungsbehörde, Geldbuße 80 bis 5.000 €", "36.00", "348.00", "154.00"),
        _r("5105", "Verfahrensgebühr Verwaltungsbehörde, Geldbuße über 5.000 €", "48.00", "360.00", "163.00"),
        _r("5106", "Terminsgebühr Verwaltungsbehörde, Geldbuße über 5.000 €", "48.00", "360.00", "163.00"),
        _r("5107", "Verfahrensgebühr Amtsgericht, Geldbuße unter 80 €", "24.00", "132.00", "62.00"),
        _r("5108", "Terminsgebühr je Hauptverhandlungstag, Geldbuße unter 80 €", "24.00", "288.00", "125.00"),
        _r("5109", "Verfahrensgebühr Amtsgericht, Geldbuße 80 bis 5.000 €", "36.00", "348.00", "154.00"),
        _r("5110", "Terminsgebühr je Hauptverhandlungstag, Geldbuße 80 bis 5.000 €", "48.00", "564.00", "245.00"),
        _r("5111", "Verfahrensgebühr Amtsgericht, Geldbuße über 5.000 €", "60.00", "420.00", "192.00"),
        _r("5112", "Terminsgebühr je Hauptverhandlungstag, Geldbuße über 5.000 €", "96.00", "671.00", "307.00"),
        _r("5113", "Verfahrensgebühr Rechtsbeschwerde", "96.00", "671.00", "307.00"),
        _r("5114", "Terminsgebühr je Hauptverhandlungstag Rechtsbeschwerde", "96.00", "671.00", "307.00"),
    )
}


@dataclass(frozen=True)
class RahmenRequest:
    """A fee of ``RAHMEN``: ``betrag`` within the frame (default: Mittelgebühr); ``pflichtverteidiger``
    takes the fixed fee of the court-appointed lawyer instead."""

    vv: str
    betrag: Decimal | None = None
    pflichtverteidiger: bool = False
    umfangreich_oder_schwierig: bool = False


def _betrag(request: RahmenRequest, auftraggeber: int) -> tuple[Rahmengebuehr, Decimal, str]:
    grund = RAHMEN.get(request.vv)
    if grund is None:
        raise RvgError(FEHLER_UNBEKANNT.format(vv=request.vv, verfuegbar=", ".join(RAHMEN)))
    gebuehr = grund.erhoeht(auftraggeber)
    gebuehr_, betrag, begruendung = _im_rahmen(request, gebuehr)
    if gebuehr is not grund:
        weitere = auftraggeber - 1
        begruendung += " " + BEGRUENDUNG_1008.format(
            prozent=format_zahl(rvg.erhoehung(auftraggeber) * 100),
            weitere=weitere,
            n="n" if weitere == 1 else "",
            von=format_euro(gebuehr.von),
            bis=format_euro(gebuehr.bis),
        )
    return gebuehr_, betrag, begruendung


def _im_rahmen(request: RahmenRequest, gebuehr: Rahmengebuehr) -> tuple[Rahmengebuehr, Decimal, str]:
    if gebuehr.festgebuehr:
        if request.betrag is not None and _zahl(request.betrag) != gebuehr.von:
            raise RvgError(FEHLER_FEST.format(vv=gebuehr.vv, betrag=format_euro(gebuehr.von)))
        return gebuehr, gebuehr.von, BEGRUENDUNG_FEST.format(betrag=format_euro(gebuehr.von))
    if request.pflichtverteidiger:
        if gebuehr.pflicht is None:
            raise RvgError(FEHLER_PFLICHT.format(vv=gebuehr.vv))
        return gebuehr, gebuehr.pflicht, BEGRUENDUNG_PFLICHT.format(betrag=format_euro(gebuehr.pflicht))
    mittel = gebuehr.mittelgebuehr
    if gebuehr.schwelle is not None and not request.umfangreich_oder_schwierig:
        mittel = min(mittel, gebuehr.schwelle)
    if request.betrag is None:
        return gebuehr, mittel, BEGRUENDUNG_MITTEL.format(betrag=format_euro(mittel))
    betrag = _zahl(request.betrag)
    if not gebuehr.von <= betrag <= gebuehr.bis:
        raise RvgError(
            FEHLER_RAHMEN.format(
                betrag=format_euro(betrag), vv=gebuehr.vv, von=format_euro(gebuehr.von), bis=format_euro(gebuehr.bis)
            )
        )
    if gebuehr.schwelle is not None and betrag > gebuehr.schwelle and not request.umfangreich_oder_schwierig:
        raise RvgError(FEHLER_SCHWELLE.format(schwelle=format_euro(gebuehr.schwelle)))
    return gebuehr, runde_cent(betrag), BEGRUENDUNG_BESTIMMT.format(betrag=format_euro(betrag), mittel=format_euro(mittel))


def _zahl(wert: object) -> Decimal:
    try:
        return als_decimal(wert, feld="Betrag")
    except ValueError as fehler:
        raise RvgError(str(fehler)) from None


# The Angelegenheiten of § 17 RVG the numbers belong to (Nr. 1a: Verwaltungs- and gerichtliches
# Verfahren; Nr. 10a: vorbereitendes and gerichtliches Verfahren in Straf- and Bußgeldsachen; every
# Rechtszug its own, § 15 Abs. 2). Numbers not listed (Grundgebühr 4100/5100, Beratungshilfe) belong
# to the first Angelegenheit of the note.
_ANGELEGENHEITEN: tuple[tuple[str, str, str], ...] = (
    ("2302", "2302", "Verwaltungs- bzw. Widerspruchsverfahren"),
    ("3102", "3106", "Sozialgericht"),
    ("4104", "4105", "vorbereitendes Verfahren"),
    ("4106", "4111", "Amtsgericht"),
    ("4112", "4117", "Strafkammer"),
    ("4118", "4123", "Oberlandesgericht, Schwurgericht"),
    ("4124", "4129", "Berufung"),
    ("4130", "4135", "Revision"),
    ("5101", "5106", "Verfahren vor der Verwaltungsbehörde"),
    ("5107", "5112", "Amtsgericht"),
    ("5113", "5114", "Rechtsbeschwerde"),
)
HINWEIS_ANGELEGENHEITEN = (
    "Die Gebühren gehören zu verschiedenen Angelegenheiten (§ 17 Nr. 1a bzw. Nr. 10a, § 15 Abs. 2 RVG): {namen}; "
    "jede hat ihre eigene Auslagenpauschale (Nr. 7002 VV RVG). Die Grundgebühr entsteht nur einmal."
)
# Vorbem. 3 Abs. 4 Satz 1 und 2 VV RVG: the Geschäftsgebühr is credited by half, a Betragsrahmengebühr
# by at most this amount, against the Verfahrensgebühr of the court proceedings that follow.
ANRECHNUNG_HOECHSTENS = Decimal("225.00")
HINWEIS_ANRECHNUNG_SOZIAL = (
    "Die Geschäftsgebühr Nr. 2302 wird zur Hälfte, höchstens mit 225,00 €, auf die Verfahrensgebühr Nr. 3102 "
    "angerechnet (Vorbem. 3 Abs. 4 VV RVG), wenn beide denselben Gegenstand betreffen."
)


def _angelegenheit(vv: str) -> str | None:
    return next((name for von, bis, name in _ANGELEGENHEITEN if von <= vv <= bis), None)


def _angelegenheiten(zeilen: list[Position]) -> list[tuple[str, list[Position]]]:
    """The positions grouped by Angelegenheit, in the order of the note."""
    gruppen: dict[str, list[Position]] = {}
    ohne: list[Position] = []
    for zeile in zeilen:
        name = _angelegenheit(zeile.vv)
        (gruppen.setdefault(name, []) if name else ohne).append(zeile)
    if not gruppen:
        return [("", ohne)]
    erste = next(iter(gruppen))
    gruppen[erste] = ohne + gruppen[erste]
    return list(gruppen.items())


def _anrechnung_sozial(zeilen: list[Position]) -> list[Position]:
    geschaeft = [z for z in zeilen if z.vv == "2302"]
    if not geschaeft or not any(z.vv == "3102" for z in zeilen):
        return []
    betrag = min(runde_cent(geschaeft[-1].amount / 2), ANRECHNUNG_HOECHSTENS)  # the last one (Satz 3)
    return [Position("2302", "Anrechnung der Geschäftsgebühr (Vorbem. 3 Abs. 4 VV RVG)", -betrag)]


def berechne(
    *,
    auftragsdatum: date,
    positions: Sequence[RahmenRequest],
    auslagenpauschale: bool = True,
    ust_rate: Decimal = rvg.UST_REGELSATZ,
    auslagen: AuslagenRequest | None = None,
    auftraggeber: int = 1,
) -> tuple[Calculation, tuple[str, ...]]:
    """A fee note of Betragsrahmen- and Festgebühren, with the § 14 reasoning per fee. Numbers of
    different Angelegenheiten (§ 17 RVG: Widerspruchs- and Klageverfahren, Ermittlungs- and
    gerichtliches Verfahren) get a Pauschale each, and a Nr. 2302 is credited on a Nr. 3102.

    ``auftraggeber`` > 1 (clients in the same Gegenstand) raises the Verfahrens- and Geschäftsgebühren
    (Nr. 1008 VV RVG). Nr. 2500 (paid by the client) gets no Nr. 7002 and no USt share of its own (Anm. zu Nr. 2500).
    Raises RvgError with a German message.
    """
    if auftragsdatum < GUELTIG_AB:
        raise RvgError(FEHLER_DATUM.format(datum=f"{auftragsdatum:%d.%m.%Y}"))
    if not positions:
        raise RvgError(FEHLER_KEINE)
    ust_satz = _zahl(ust_rate)
    if not 0 <= ust_satz < 1:
        raise RvgError(rvg.FEHLER_UST.format(satz=ust_satz))
    zeilen: list[Position] = []
    begruendungen: list[str] = []
    for request in positions:
        gebuehr, betrag, begruendung = _betrag(request, auftraggeber)
        erhoeht = " (erhöht nach Nr. 1008 VV RVG)" if gebuehr is not RAHMEN[gebuehr.vv] else ""
        zeilen.append(Position(gebuehr.vv, gebuehr.label + erhoeht, betrag))
        begruendungen.append(f"Nr. {gebuehr.vv}: {begruendung}")
    summe = sum((z.amount for z in zeilen), Decimal("0.00"))
    gruppen = _angelegenheiten(zeilen)
    auslagen_zeilen: list[Position] = []
    for name, gruppe in gruppen:
        pauschalfaehig = sum((z.amount for z in gruppe if z.vv != "2500"), Decimal("0.00"))
        if auslagenpauschale and pauschalfaehig > 0:
            # one Pauschale in every Angelegenheit (Anm. Abs. 1 zu Nr. 7002 VV RVG)
            label = "Pauschale für Post- und Telekommunikationsentgelte" + (f" ({name})" if len(gruppen) > 1 else "")
            auslagen_zeilen.append(
                Position(
                    "7002",
                    label,
                    min(runde_cent(pauschalfaehig * rvg.RVG_2025.pauschale_anteil), rvg.RVG_2025.pauschale_hoechstbetrag),
                )
            )
    if len(gruppen) > 1:
        begruendungen.insert(0, HINWEIS_ANGELEGENHEITEN.format(namen=", ".join(name for name, _ in gruppen)))
    anrechnungen = _anrechnung_sozial(zeilen)
    if anrechnungen:
        begruendungen.append(HINWEIS_ANRECHNUNG_SOZIAL)
    auslagen_zeilen.extend(rvg.weitere_auslagen_positionen(auslagen or AuslagenRequest()))
    summe_auslagen = sum((z.amount for z in auslagen_zeilen), Decimal("0.00"))
    anrechnung = sum((z.amount for z in anrechnungen), Decimal("0.00"))
    netto = summe + anrechnung + summe_auslagen
    ust = runde_cent(netto * ust_satz)
    calculation = Calculation(
        version=rvg.RVG_2025.key,
        version_label=rvg.RVG_2025.label,
        table="Betragsrahmen- und Festgebühren (Teile 2.5, 3, 4 und 5 VV RVG)",
        auftragsdatum=auftragsdatum,
        positions=tuple(zeilen),
        anrechnungen=tuple(anrechnungen),
        auslagen=tuple(auslagen_zeilen),
        fees=summe,
        anrechnung=anrechnung,
        auslagenpauschale=sum((z.amount for z in auslagen_zeilen if z.vv == "7002"), Decimal("0.00")),
        auslagen_total=summe_auslagen,
        net=netto,
        ust_rate=ust_satz,
        ust=ust,
        gross=netto + ust,
        hinweise=tuple(begruendungen),
    )
    return calculation, tuple(begruendungen)
