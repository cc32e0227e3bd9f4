"""Input forms of the fee and deadline calculator pages (GET forms, German labels and errors)."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Any

from django import forms
from django.utils import timezone

from rechner import gkg, zinsen
from rechner.fristen import BUNDESLAENDER, PRESETS, Einheit, FristPreset
from rechner.rahmen import RAHMEN
from rechner.rvg import VV, Angelegenheit, AuslagenRequest, Calculation, PositionRequest, calculate
from rechner.zahlen import ZahlFehler, parse_zahl

FEHLER_PFLICHT = "Bitte fülle dieses Feld aus."
# the choice of the Einigung field for Nr. 1000 Nr. 2 VV RVG
ZAHLUNGSVEREINBARUNG = "1000-zahlungsvereinbarung"
FEHLER_ZAHL = "Bitte gib eine Zahl ein, z. B. 5.000,00 oder 5000."
FEHLER_NACHKOMMA = "Bitte gib höchstens {stellen} Nachkommastellen an."
FEHLER_MINDESTENS = "Der Wert muss mindestens {grenze} betragen."
FEHLER_HOECHSTENS = "Der Wert darf höchstens {grenze} betragen."
FEHLER_GANZZAHL = "Bitte gib eine ganze Zahl ein."
FEHLER_DATUM = "Bitte gib ein gültiges Datum ein, z. B. 01.07.2025."
FEHLER_AUSWAHL = "Bitte wähle einen der angebotenen Einträge aus."
FEHLER_LAENGE = "Bitte gib höchstens %(limit_value)d Zeichen ein (es sind %(show_value)d)."
FEHLER_MANUELL = "Bitte wähle eine Fristvorlage oder gib Dauer und Einheit der Frist an."
FEHLER_VERKUENDUNG_MANUELL = (
    "Das Verkündungsdatum gilt nur für Vorlagen mit einer Höchstgrenze ab Verkündung (Berufung, Revision u. a.)."
)
FEHLER_ORT_OHNE_LAND = "Bitte wähle zum Ort auch das Bundesland des Gerichts."


def fehler_texte(form: forms.BaseForm) -> list[str]:
    """The errors of a bound form as a person reads them outside the form (a message after a
    redirect): „Gegenstandswert in Euro: Bitte fülle dieses Feld aus.“ – the field named by its German
    label, never by its code name; errors of the whole form as they are."""
    texte = []
    for name, fehler in form.errors.items():
        feld = form.fields.get(name)
        label = str(feld.label) if feld is not None and feld.label else ""
        for meldung in map(str, fehler):
            # parse_zahl's messages name the field already („Vorschüsse: „1,234“ ist mehrdeutig …“)
            texte.append(f"{label}: {meldung}" if label and not meldung.startswith(f"{label}:") else meldung)
    return texte


def _deutsch(zahl: Decimal) -> str:
    ganz, _, rest = f"{zahl:,f}".partition(".")
    rest = rest.rstrip("0")
    return ganz.replace(",", ".") + (f",{rest}" if rest else "")


class GermanDecimalField(forms.Field):
    """A decimal in German or plain notation, bounded so that results stay printable."""

    widget = forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"})
    default_error_messages = {"required": FEHLER_PFLICHT, "invalid": FEHLER_ZAHL}

    def __init__(self, *, min_value: Decimal, max_value: Decimal, decimal_places: int = 2, **kwargs: Any) -> None:
        self.min_value = min_value
        self.max_value = max_value
        self.decimal_places = decimal_places
        super().__init__(**kwargs)

    def to_python(self, value: Any) -> Decimal | None:
        if value in self.empty_values:
            return None
        try:
            return parse_zahl(str(value), feld=str(self.label))
        except ZahlFehler as fehler:
            meldung = self.error_messages["invalid"] if fehler.code == "keine_zahl" else str(fehler)
            raise forms.ValidationError(meldung, code="invalid") from None

    def validate(self, value: Any) -> None:
        super().validate(value)
        if value is None:
            return
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and -exponent > self.decimal_places:
            raise forms.ValidationError(FEHLER_NACHKOMMA.format(stellen=self.decimal_places), code="max_decimal_places")
        if value < self.min_value:
            raise forms.ValidationError(FEHLER_MINDESTENS.format(grenze=_deutsch(self.min_value)), code="min_value")
        if value > self.max_value:
            raise forms.ValidationError(FEHLER_HOECHSTENS.format(grenze=_deutsch(self.max_value)), code="max_value")


def _ganzzahl(
    *, label: str, min_value: int, max_value: int, feld: type[forms.IntegerField] = forms.IntegerField, **kwargs: Any
) -> forms.IntegerField:
    return feld(
        label=label,
        min_value=min_value,
        max_value=max_value,
        error_messages={
            "required": FEHLER_PFLICHT,
            "invalid": FEHLER_GANZZAHL,
            "min_value": FEHLER_MINDESTENS.format(grenze=min_value),
            "max_value": FEHLER_HOECHSTENS.format(grenze=max_value),
        },
        **kwargs,
    )


def _datum(*, label: str, **kwargs: Any) -> forms.DateField:
    return forms.DateField(
        label=label,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"required": FEHLER_PFLICHT, "invalid": FEHLER_DATUM},
        **kwargs,
    )


def _auswahl(*, label: str, choices: list[tuple[str, str]], **kwargs: Any) -> forms.ChoiceField:
    return forms.ChoiceField(
        label=label, choices=choices, error_messages={"required": FEHLER_PFLICHT, "invalid_choice": FEHLER_AUSWAHL}, **kwargs
    )


def _vv_label(vv: str) -> str:
    return f"Nr. {vv} VV RVG – {VV[vv].label}"


def _heute_wenn_leer(wert: Any) -> Any:
    return timezone.localdate() if wert is None else wert


class _FormMitStandardHaken(forms.Form):
    """A GET form whose checkboxes ticked by default stay ticked for a bookmarked or hand-written URL.

    The hidden ``gesendet`` marks a submission of the page's own form; only then does a missing
    checkbox mean "unticked"."""

    gesendet = forms.CharField(widget=forms.HiddenInput, required=False, initial="1")

    @classmethod
    def aus_anfrage(cls, daten: Any) -> Any:
        if not daten:
            return cls(None)
        daten = daten.copy()
        if not daten.get("gesendet"):
            for name, feld in cls.base_fields.items():
                if isinstance(feld, forms.BooleanField) and feld.initial and name not in daten:
                    daten[name] = "on"
        return cls(daten)


class _AnzahlFeld(forms.IntegerField):
    """A number of persons that counts as one when left empty."""

    def to_python(self, value: Any) -> int:
        anzahl = super().to_python(value)
        return 1 if anzahl is None else anzahl


def _anzahl_auftraggeber(*, label: str, help_text: str) -> forms.IntegerField:
    return _ganzzahl(label=label, min_value=1, max_value=30, initial=1, required=False, help_text=help_text, feld=_AnzahlFeld)


class RvgForm(_FormMitStandardHaken):
    """Fee note under the RVG: Gegenstandswert, Auftragsdatum and the typical VV positions."""

    gegenstandswert = GermanDecimalField(
        label="Gegenstandswert in Euro", min_value=Decimal("0.01"), max_value=Decimal(1_000_000_000), help_text="z. B. 5.000,00"
    )
    auftragsdatum = _datum(
        label="Auftragsdatum",
        required=False,
        help_text="Bestimmt die Gebührentabelle (§ 60 Abs. 1 RVG); ohne Angabe gilt das heutige Datum.",
    )
    auftraggeber = _anzahl_auftraggeber(
        label="Anzahl Auftraggeber",
        help_text="Mehrere Auftraggeber wegen desselben Gegenstands: Erhöhung um 0,3 je weitere Person, höchstens 2,0 "
        "(Nr. 1008 VV RVG).",
    )
    auftraggeber_verschiedene_gegenstaende = _anzahl_auftraggeber(
        label="Auftraggeber wegen verschiedener Gegenstände",
        help_text="Nur bei Werten über 30 Mio. € von Bedeutung: Höchstwert 30 Mio. € je Person, insgesamt 100 Mio. € "
        "(§ 22 Abs. 2 Satz 2 RVG).",
    )
    vv_2300 = forms.BooleanField(label=_vv_label("2300"), required=False)
    satz_2300 = GermanDecimalField(
        label="Satz der Geschäftsgebühr",
        min_value=Decimal("0.01"),
        max_value=Decimal(10),
        initial="1,3",
        required=False,
        help_text="Rahmen 0,5 bis 2,5; ohne Angabe 1,3 (Inkasso unbestritten: 0,9).",
    )
    umfangreich_oder_schwierig = forms.BooleanField(
        label="Tätigkeit umfangreich oder schwierig (Satz über 1,3, Anm. zu Nr. 2300 VV RVG)", required=False
    )
    inkasso_unbestritten = forms.BooleanField(
        label="Inkasso einer unbestrittenen Forderung (höchstens 0,9; bis 50 € Wert 1,0-Gebühr nach § 13 Abs. 2 RVG)",
        required=False,
        help_text="Über 0,9 nur, wenn besonders umfangreich oder schwierig (Anm. Abs. 2 zu Nr. 2300 VV RVG).",
    )
    auftragsdatum_2300 = _datum(
        label="Auftrag für die außergerichtliche Vertretung erteilt am",
        required=False,
        help_text="Nur wenn an einem anderen Tag als das Auftragsdatum oben: Nr. 2300, ihre Pauschale und ihre "
        "Anrechnung folgen dem Recht dieses Tages (§ 60 Abs. 1 RVG).",
    )
    mahnverfahren = _auswahl(
        label="Mahnverfahren",
        choices=[("", "kein Mahnverfahren"), ("3305", _vv_label("3305")), ("3307", _vv_label("3307"))],
        required=False,
    )
    vv_3100 = forms.BooleanField(label=_vv_label("3100"), required=False)
    vv_3104 = forms.BooleanField(label=_vv_label("3104"), required=False)
    vv_3200 = forms.BooleanField(label=_vv_label("3200"), required=False)
    vv_3202 = forms.BooleanField(label=_vv_label("3202"), required=False)
    datum_berufung = _datum(
        label="Berufung eingelegt am",
        required=False,
        help_text="Für die Berufung gilt das Recht am Tag ihrer Einlegung bzw. des Berufungsauftrags (§ 60 Abs. 1 "
        "Satz 2 RVG); ohne Angabe das Auftragsdatum oben.",
    )
    einigung = _auswahl(
        label="Einigungsgebühr",
        choices=[
            ("", "keine Einigung"),
            ("1000", f"{_vv_label('1000')} (1,5)"),
            (ZAHLUNGSVEREINBARUNG, "Nr. 1000 Nr. 2 – Einigungsgebühr für eine Zahlungsvereinbarung (0,7 aus 50 % des Anspruchs)"),
            ("1003", f"{_vv_label('1003')} (1,0)"),
            ("1004", f"{_vv_label('1004')} (1,3)"),
        ],
        required=False,
    )
    anrechnung = forms.BooleanField(
        label="Geschäftsgebühr und Mahnverfahrensgebühr anrechnen (Vorbem. 3 Abs. 4 VV RVG)", required=False, initial=True
    )
    auslagenpauschale = forms.BooleanField(label="Auslagenpauschale Nr. 7002 VV RVG", required=False, initial=True)
    km = GermanDecimalField(
        label="Gefahrene Kilometer (Nr. 7003 VV RVG)",
        min_value=Decimal(0),
        max_value=Decimal(100_000),
        decimal_places=1,
        required=False,
    )
    pkh = forms.BooleanField(label="Prozess- oder Verfahrenskostenhilfe (§ 49 RVG)", required=False)
    abwesenheit_stunden = GermanDecimalField(
        label="Abwesenheit in Stunden (Nr. 7005 VV RVG, ein Reisetag)",
        min_value=Decimal("0.1"),
        max_value=Decimal(24),
        decimal_places=1,
        required=False,
    )
    fahrtkosten = GermanDecimalField(
        label="Fahrtkosten mit Bahn, Flug, Taxi in Euro (Nr. 7004 VV RVG)",
        min_value=Decimal(0),
        max_value=Decimal(100_000),
        required=False,
    )
    reiseauslagen = GermanDecimalField(
        label="Sonstige Reiseauslagen in Euro (Nr. 7006 VV RVG)", min_value=Decimal(0), max_value=Decimal(100_000), required=False
    )
    seiten_sw = _ganzzahl(label="Kopien/Ausdrucke s/w (Nr. 7000 VV RVG)", min_value=0, max_value=100_000, required=False)
    seiten_farbe = _ganzzahl(label="Kopien/Ausdrucke Farbe (Nr. 7000 VV RVG)", min_value=0, max_value=100_000, required=False)
    dateien = _ganzzahl(label="Überlassene Dateien (Nr. 7000 Nr. 2 VV RVG)", min_value=0, max_value=1000, required=False)

    def clean_auftragsdatum(self) -> Any:
        return _heute_wenn_leer(self.cleaned_data.get("auftragsdatum"))

    def berechne(self) -> Calculation:
        """The fee note of a valid form with every input of the page (raises RvgError): the page and
        the Kostennote drawn from it compute the same."""
        daten = self.cleaned_data
        return calculate(
            gegenstandswert=daten["gegenstandswert"],
            auftragsdatum=daten["auftragsdatum"],
            positions=self.positionen(),
            auftraggeber=daten["auftraggeber"],
            auftraggeber_verschiedene_gegenstaende=daten["auftraggeber_verschiedene_gegenstaende"],
            anrechnung=daten["anrechnung"],
            pkh=daten["pkh"],
            auslagenpauschale=daten["auslagenpauschale"],
            km=daten["km"],
            abwesenheit_stunden=[daten["abwesenheit_stunden"]] if daten["abwesenheit_stunden"] else [],
            weitere_auslagen=self.auslagen(),
            auftragsdaten=self.auftragsdaten(),
        )

    def auftragsdaten(self) -> dict[Angelegenheit, datetime.date]:
        """The Angelegenheiten with a date of their own (§ 60 Abs. 1 RVG) of a valid form."""
        daten = self.cleaned_data
        eigene = {
            Angelegenheit.AUSSERGERICHTLICH: daten.get("auftragsdatum_2300"),
            Angelegenheit.BERUFUNG: daten.get("datum_berufung"),
        }
        return {angelegenheit: datum for angelegenheit, datum in eigene.items() if datum is not None}

    def auslagen(self) -> AuslagenRequest:
        """Nrn. 7000, 7004, 7006 of a valid form."""
        daten = self.cleaned_data
        return AuslagenRequest(
            seiten_sw=daten["seiten_sw"] or 0,
            seiten_farbe=daten["seiten_farbe"] or 0,
            dateien=daten["dateien"] or 0,
            fahrtkosten=daten["fahrtkosten"],
            reiseauslagen=daten["reiseauslagen"],
        )

    def positionen(self) -> list[PositionRequest]:
        """The chosen positions in procedural order; call only on a valid form."""
        daten = self.cleaned_data
        positionen: list[PositionRequest] = []
        if daten["vv_2300"]:
            positionen.append(
                PositionRequest(
                    "2300",
                    rate=daten["satz_2300"],
                    umfangreich_oder_schwierig=daten["umfangreich_oder_schwierig"],
                    inkasso_unbestritten=daten["inkasso_unbestritten"],
                )
            )
        if daten["mahnverfahren"]:
            positionen.append(PositionRequest(daten["mahnverfahren"]))
        positionen.extend(PositionRequest(vv) for vv in ("3100", "3104", "3200", "3202") if daten[f"vv_{vv}"])
        if daten["einigung"] == ZAHLUNGSVEREINBARUNG:
            positionen.append(PositionRequest("1000", zahlungsvereinbarung=True))
        elif daten["einigung"]:
            positionen.append(PositionRequest(daten["einigung"]))
        return positionen


class GkgForm(forms.Form):
    """Court fee of one number of the Kostenverzeichnis (GKG); used with the prefix ``gkg``."""

    streitwert = GermanDecimalField(
        label="Streitwert in Euro", min_value=Decimal("0.01"), max_value=Decimal(1_000_000_000), help_text="z. B. 5.000,00"
    )
    kv = _auswahl(
        label="Gebühr nach KV GKG",
        choices=[(nummer.kv, f"Nr. {nummer.kv} KV GKG – {nummer.label} ({_deutsch(nummer.rate)})") for nummer in gkg.KV.values()],
        initial="1210",
    )
    anhaengig_seit = _datum(
        label="Anhängig seit",
        required=False,
        help_text="Bestimmt die Gebührentabelle (§ 71 Abs. 1 GKG); ohne Angabe gilt das heutige Datum.",
    )

    def clean_anhaengig_seit(self) -> Any:
        return _heute_wenn_leer(self.cleaned_data.get("anhaengig_seit"))


EINHEIT_LABELS: dict[Einheit, tuple[str, str]] = {
    Einheit.TAGE: ("Tag", "Tage"),
    Einheit.WOCHEN: ("Woche", "Wochen"),
    Einheit.MONATE: ("Monat", "Monate"),
    Einheit.JAHRE: ("Jahr", "Jahre"),
}


def _preset_label(preset: FristPreset) -> str:
    einzahl, mehrzahl = EINHEIT_LABELS[preset.einheit]
    dauer = f"{preset.dauer} {einzahl if preset.dauer == 1 else mehrzahl}"
    return f"{preset.label} – {dauer} ({preset.rechtsgrundlage})"


class FristForm(forms.Form):
    """A deadline from a preset or from a manual period, triggered by an event."""

    vorlage = _auswahl(
        label="Fristvorlage",
        choices=[("", "keine Vorlage – Frist manuell angeben"), *((key, _preset_label(p)) for key, p in PRESETS.items())],
        required=False,
    )
    dauer = _ganzzahl(label="Dauer", min_value=1, max_value=1000, required=False, help_text="Nur ohne Fristvorlage.")
    einheit = _auswahl(
        label="Einheit", choices=[(einheit.value, mehrzahl) for einheit, (_, mehrzahl) in EINHEIT_LABELS.items()], required=False
    )
    fristbeginn = _auswahl(
        label="Fristbeginn",
        choices=[
            ("ereignis", "Ereignis – der Ereignistag zählt nicht mit (§ 187 Abs. 1 BGB)"),
            ("tagesbeginn", "Tagesbeginn – der erste Tag zählt mit (§ 187 Abs. 2 BGB)"),
        ],
        initial="ereignis",
        required=False,
        help_text="Fristvorlagen beginnen stets mit dem Ereignis.",
    )
    ereignisdatum = _datum(
        label="Ereignisdatum (z. B. Zustellung)",
        help_text="Der Tag, an dem zugestellt ist: an eine Anwältin das Datum des eEB/EB (§ 173 ZPO); bei "
        "Ersatzzustellung der Tag des Einlegens oder der Mitteilung (§ 180 Satz 2, § 181 Abs. 1 Satz 4 ZPO), nicht der "
        "Tag, an dem das Schreiben gefunden wurde; bei vom Gericht angeordneter Aufgabe zur Post (§ 184 Abs. 1 ZPO) zwei "
        "Wochen nach Aufgabe (§ 184 Abs. 2 ZPO); bei einem Bescheid mit einfacher Post (nicht förmlich zugestellt) der "
        "vierte Tag nach Aufgabe (§ 41 Abs. 2 VwVfG, § 37 Abs. 2 SGB X, § 122 Abs. 2 Nr. 1 AO), ebenso bei einem "
        "formlos mit der Post bekannt gegebenen Beschluss im FamFG-Verfahren (§ 15 Abs. 2 FamFG; wem ein anfechtbarer "
        "Beschluss nicht nach seinem erklärten Willen entspricht, dem wird er zugestellt, § 41 Abs. 1 Satz 2 FamFG: dann "
        "der Tag der Zustellung). "
        "Bei Rückwärtsfristen (§ 132 ZPO) der Termin; bei der Verjährung ein Tag im Jahr der Entstehung.",
    )
    verkuendung = _datum(
        label="Verkündung des Urteils",
        required=False,
        help_text="Für Vorlagen mit Höchstgrenze ab Verkündung (Berufung, Revision, Nichtzulassungsbeschwerde, sofortige "
        "Beschwerde, FamFG-Beschwerde: Erlass): rechnet die Grenze mit.",
    )
    bundesland = _auswahl(
        label="Bundesland der Stelle, bei der die Frist zu wahren ist (Feiertage dort)",
        choices=[("", "– Kanzleisitz verwenden –"), *BUNDESLAENDER.items()],
        required=False,
        help_text="Bei Rechtsmitteln das Rechtsmittelgericht, beim Mahnbescheid das Mahngericht, beim Widerspruch "
        "und Bußgeldbescheid die Behörde. Ohne Angabe gilt der in der Verwaltung hinterlegte Kanzleisitz.",
    )
    ort = forms.CharField(
        label="Ort dieser Stelle",
        max_length=100,
        required=False,
        help_text="z. B. München; entscheidet über Feiertage, die nur in Teilen eines Landes gelten.",
    )
    vorfrist = _ganzzahl(
        label="Vorfrist in Tagen", min_value=0, max_value=365, initial=7, required=False, help_text="0 oder leer: keine Vorfrist."
    )
    vorfrist_arbeitstage = forms.BooleanField(label="Vorfrist in Arbeitstagen zählen", required=False)

    def clean(self) -> dict[str, Any]:
        daten = super().clean() or {}
        daten["fristbeginn"] = daten.get("fristbeginn") or "ereignis"
        if daten.get("verkuendung") and not daten.get("vorlage"):
            self.add_error("verkuendung", FEHLER_VERKUENDUNG_MANUELL)
        if daten.get("ort") and not daten.get("bundesland") and not self.has_error("bundesland"):
            self.add_error("bundesland", FEHLER_ORT_OHNE_LAND)
        if not daten.get("vorlage") and not (daten.get("dauer") and daten.get("einheit")):
            # A wrong Dauer or Einheit already carries its own message; do not add a misleading second one.
            if not self.has_error("dauer") and not self.has_error("einheit") and not self.has_error("vorlage"):
                raise forms.ValidationError(FEHLER_MANUELL, code="manuell")
        return daten


class ZinsForm(forms.Form):
    """Verzugszinsen (§ 288 BGB) on a claim from date to date."""

    hauptforderung = GermanDecimalField(
        label="Hauptforderung in Euro", min_value=Decimal("0.01"), max_value=Decimal(1_000_000_000), help_text="z. B. 5.000,00"
    )
    von = _datum(label="Zinsbeginn (erster Zinstag)", help_text="Der Tag nach Eintritt des Verzugs.")
    bis = _datum(label="Zinsende (letzter Zinstag)", help_text="z. B. der Tag der Zahlung.")
    art = _auswahl(
        label="Beteiligte",
        choices=[
            ("verbraucher", "Verbraucher beteiligt – 5 Prozentpunkte (§ 288 Abs. 1 BGB)"),
            (
                "verbraucher_glaeubiger",
                "Nur der Gläubiger ist Verbraucher, Entgeltforderung – 5 Prozentpunkte und 40 € (§ 288 Abs. 1, 5 BGB)",
            ),
            ("unternehmer", "Kein Verbraucher, Entgeltforderung – 9 Prozentpunkte und 40 € (§ 288 Abs. 2, 5 BGB)"),
        ],
        initial="verbraucher",
    )
    entstanden = _datum(
        label="Schuldverhältnis entstanden am",
        required=False,
        help_text="Bei einem Vertrag der Tag des Vertragsschlusses – nicht das Datum der Rechnung, Lieferung oder "
        "Fälligkeit; ist er unbekannt, bitte leer lassen. Vor dem 29.07.2014 entstanden: § 288 BGB a. F. (Art. 229 "
        "§ 34 Satz 1 EGBGB) – ohne Verbraucher 8 statt 9 Prozentpunkte, keine Pauschale. Bei einem "
        "Dauerschuldverhältnis (z. B. Miete, Leasing, Dienstvertrag) gilt für Gegenleistungen, die nach dem "
        "30.06.2016 erbracht wurden, das neue Recht (Satz 2). Ohne Angabe gilt das alte Recht nur bei einem "
        "Zinsbeginn bis zum 29.07.2014. Vor dem 01.01.2002 entstanden: rechnet Helena nicht (Art. 229 § 5 EGBGB).",
    )
    dauerschuldverhaeltnis = forms.BooleanField(
        label="Dauerschuldverhältnis (z. B. Miete, Leasing, Dienstvertrag): Forderung für eine Gegenleistung nach dem 30.06.2016",
        required=False,
        help_text="Nur ankreuzen, wenn die Forderung das Entgelt für eine Leistung ist, die nach dem 30.06.2016 erbracht "
        "wurde (z. B. die Miete für Juli 2016 oder später; nicht der Tag der Zahlung): Dann gilt das neue Recht, auch "
        "wenn das Schuldverhältnis vor dem 29.07.2014 entstanden ist (Art. 229 § 34 Satz 2 EGBGB). Betrifft die "
        "Forderung Leistungen vor und nach diesem Tag, bitte getrennt rechnen.",
    )

    def clean(self) -> dict[str, Any]:
        daten = super().clean() or {}
        entstanden = daten.get("entstanden")
        if entstanden is not None:
            # a day in the future is refused even when the Zinsbeginn itself is missing or invalid
            try:
                zinsen.pruefe_entstanden(entstanden, von=daten.get("von"), heute=timezone.localdate())
            except zinsen.ZinsError as fehler:
                self.add_error("entstanden", str(fehler))
        return daten


class RisikoForm(forms.Form):
    """Prozesskostenrisiko of one or two instances."""

    streitwert = GermanDecimalField(
        label="Streitwert in Euro", min_value=Decimal("0.01"), max_value=Decimal(1_000_000_000), help_text="z. B. 10.000,00"
    )
    instanzen = _auswahl(label="Instanzen", choices=[("1", "erste Instanz"), ("2", "erste Instanz und Berufung")], initial="1")
    gericht = _auswahl(
        label="Gerichtsbarkeit",
        choices=[("zivil", "Zivilgericht (§ 91 ZPO)"), ("arbeit", "Arbeitsgericht (§ 12a ArbGG)")],
        initial="zivil",
    )
    vorsteuerabzug = forms.BooleanField(
        label="Mandant ist zum Vorsteuerabzug berechtigt (eigener Anwalt ohne Umsatzsteuer)", required=False
    )
    datum = _datum(
        label="Auftrags- bzw. Einreichungsdatum",
        required=False,
        help_text="Bestimmt die Gebührentabellen; ohne Angabe gilt das heutige Datum.",
    )

    def clean_datum(self) -> Any:
        return _heute_wenn_leer(self.cleaned_data.get("datum"))


class RahmenForm(_FormMitStandardHaken):
    """Betragsrahmen- and Festgebühren (Straf-, Bußgeld-, Sozialrecht, Beratungshilfe) in one Angelegenheit."""

    nummern = forms.MultipleChoiceField(
        label="Gebühren",
        choices=[(g.vv, f"Nr. {g.vv} VV RVG – {g.label}") for g in RAHMEN.values()],
        widget=forms.SelectMultiple(attrs={"size": 12}),
        error_messages={"required": FEHLER_PFLICHT, "invalid_choice": FEHLER_AUSWAHL},
        help_text="Ohne eigenen Betrag gilt die Mittelgebühr (§ 14 Abs. 1 RVG).",
    )
    pflichtverteidiger = forms.BooleanField(label="Gerichtlich bestellt oder beigeordnet (Festbeträge)", required=False)
    umfangreich_oder_schwierig = forms.BooleanField(
        label="Tätigkeit umfangreich oder schwierig (Nr. 2302 über 391 €)", required=False
    )
    auftraggeber = _anzahl_auftraggeber(
        label="Anzahl Auftraggeber",
        help_text="Mehrere Auftraggeber wegen desselben Gegenstands (etwa eine Bedarfsgemeinschaft): Verfahrens- und "
        "Geschäftsgebühren steigen um 30 % je weitere Person, höchstens auf das Dreifache (Nr. 1008 VV RVG).",
    )
    auftragsdatum = _datum(label="Auftragsdatum", required=False, help_text="Ohne Angabe gilt das heutige Datum.")
    auslagenpauschale = forms.BooleanField(label="Auslagenpauschale Nr. 7002 VV RVG", required=False, initial=True)

    def clean_auftragsdatum(self) -> Any:
        return _heute_wenn_leer(self.cleaned_data.get("auftragsdatum"))


class FamilienForm(forms.Form):
    """Verfahrenswert and court fee of a family matter (FamGKG)."""

    art = _auswahl(
        label="Familiensache",
        choices=[
            ("scheidung", "Scheidung (Ehesache im Verbund)"),
            ("kindschaft", "Kindschaftssache (Sorge, Umgang, Herausgabe)"),
            ("unterhalt", "Unterhalt (Familienstreitsache)"),
        ],
        initial="scheidung",
    )
    netto_monat = GermanDecimalField(
        label="Monatliches Nettoeinkommen beider Ehegatten in Euro",
        min_value=Decimal(0),
        max_value=Decimal(10_000_000),
        required=False,
    )
    anrechte = _ganzzahl(label="Anrechte im Versorgungsausgleich", min_value=0, max_value=50, required=False)
    kindschaftsfolgesachen = _ganzzahl(label="Kindschaftsfolgesachen im Verbund", min_value=0, max_value=10, required=False)
    unterhalt_monat = GermanDecimalField(
        label="Monatlicher Unterhalt in Euro", min_value=Decimal(0), max_value=Decimal(1_000_000), required=False
    )
    rueckstand = GermanDecimalField(
        label="Rückstand bei Einreichung in Euro", min_value=Decimal(0), max_value=Decimal(10_000_000), required=False
    )
    datum = _datum(label="Eingereicht am", required=False, help_text="Ohne Angabe gilt das heutige Datum.")

    def clean_datum(self) -> Any:
        return _heute_wenn_leer(self.cleaned_data.get("datum"))
