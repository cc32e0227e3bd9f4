"""Draft payloads, validated per typ. The payload is exactly what approval turns into a record."""

from __future__ import annotations

import datetime
import re
from decimal import Decimal
from typing import Annotated, Any, Literal

from django.utils import timezone
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from helena.validation import german_errors

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class _Payload(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class VorlageRef(_Payload):
    """The template a document draft is filled into: its stored copy (VorlagenStand) by SHA-256."""

    sha256: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
    name: Annotated[str, StringConstraints(min_length=1, max_length=100)]
    mandant_partei: Literal["", "KLAEGER", "BEKLAGTER"] = ""
    art: str = ""
    # whom a letter goes to (schriftgut.services.EMPFAENGER); "" = the other side
    empfaenger: Literal["", "GEGENSEITE", "MANDANT"] = ""


class DokumentPayload(_Payload):
    titel: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    inhalt_markdown: Text
    mandant_sichtbar: bool = False
    vorlage: VorlageRef | None = None
    fehlende_felder: list[str] = Field(default_factory=list)


Cent = Annotated[Decimal, Field(max_digits=14, decimal_places=2)]


class KostenPosition(_Payload):
    vv: Annotated[str, StringConstraints(min_length=1, max_length=40)]
    bezeichnung: Annotated[str, StringConstraints(min_length=1, max_length=300)]
    satz: Annotated[Decimal, Field(ge=0, max_digits=6, decimal_places=2)] | None = None
    wert: Cent | None = None
    betrag: Cent


class KostennotePayload(_Payload):
    """A fee note (§ 10 RVG) or an advance invoice (§ 9 RVG) from the RVG calculator. The
    Rechnungsnummer is issued on approval; amounts must add up to the cent."""

    art: Literal["KOSTENNOTE", "VORSCHUSS"]
    titel: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    gegenstandswert: Cent
    auftragsdatum: datetime.date
    tabelle: str = ""
    positionen: Annotated[list[KostenPosition], Field(min_length=1)]
    anrechnungen: list[KostenPosition] = Field(default_factory=list)
    auslagen: list[KostenPosition] = Field(default_factory=list)
    netto: Cent
    ust_satz: Annotated[Decimal, Field(ge=0, lt=1, max_digits=5, decimal_places=4)]
    ust: Cent
    brutto: Cent
    vorschuesse: Annotated[Decimal, Field(ge=0, max_digits=14, decimal_places=2)] = Decimal("0.00")
    leistungszeitraum_von: datetime.date
    leistungszeitraum_bis: datetime.date
    hinweise: list[str] = Field(default_factory=list)
    text: str = ""

    @model_validator(mode="after")
    def _check_sums(self) -> KostennotePayload:
        from decimal import ROUND_HALF_UP

        summe = sum((p.betrag for p in [*self.positionen, *self.anrechnungen, *self.auslagen]), Decimal("0.00"))
        if summe != self.netto:
            raise ValueError(f"Die Positionen ergeben {summe} EUR netto, nicht {self.netto} EUR.")
        if (self.netto * self.ust_satz).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP) != self.ust:
            raise ValueError("Die Umsatzsteuer passt nicht zum Nettobetrag und Steuersatz.")
        if self.netto + self.ust != self.brutto:
            raise ValueError("Der Bruttobetrag ist nicht netto plus Umsatzsteuer.")
        if self.leistungszeitraum_bis < self.leistungszeitraum_von:
            raise ValueError("Der Leistungszeitraum endet vor seinem Beginn.")
        if self.art == "KOSTENNOTE" and self.leistungszeitraum_bis > timezone.localdate():
            # a Kostennote bills work done (§ 10 RVG); what is still to come is a Vorschuss (§ 9 RVG)
            raise ValueError(
                "Der Leistungszeitraum einer Kostennote kann nicht nach heute enden; für Künftiges gibt es die "
                "Vorschussrechnung (§ 9 RVG)."
            )
        if self.vorschuesse > self.brutto:
            raise ValueError("Die gezahlten Vorschüsse übersteigen den Rechnungsbetrag.")
        return self


class FristBerechnet(_Payload):
    """What the Fristenrechner computed for a FRIST draft. The proposing tool stores it; an edit
    keeps the stored one (drafts.services.draft_edit), so the person who approves may move the
    Fristablauf earlier, never later, and may not drop the Notfrist."""

    fristablauf: datetime.date
    notfrist: bool = False
    rechtsgrundlage: Annotated[str, StringConstraints(max_length=300)] = ""


class KalenderPayload(_Payload):
    typ: Literal["FRIST", "TERMIN", "WIEDERVORLAGE"]
    titel: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    datum: datetime.date
    uhrzeit: datetime.time | None = None
    fristablauf: datetime.date | None = None
    vorfrist: datetime.date | None = None
    notfrist: bool = False
    beschreibung: str = ""
    verantwortlich_id: int | None = None
    berechnung: FristBerechnet | None = None

    @model_validator(mode="after")
    def _check_dates(self) -> KalenderPayload:
        if self.typ == "FRIST" and self.fristablauf is None:
            raise ValueError("Eine Frist braucht einen Fristablauf.")
        if self.notfrist and self.typ != "FRIST":
            raise ValueError("Nur eine Frist kann eine Notfrist sein.")
        if self.fristablauf and self.fristablauf < self.datum:
            raise ValueError("Der Fristablauf liegt vor dem Datum des Ereignisses.")
        if self.vorfrist and self.fristablauf and self.vorfrist > self.fristablauf:
            raise ValueError("Die Vorfrist liegt nach dem Fristablauf.")
        if self.berechnung is not None:
            self._check_berechnung(self.berechnung)
        return self

    def _check_berechnung(self, berechnung: FristBerechnet) -> None:
        from akten.fristen_rules import RAT_ENTWURF, KalenderRegelFehler, berechnung_einhalten

        try:
            berechnung_einhalten(
                typ=self.typ,
                fristablauf=self.fristablauf,
                notfrist=self.notfrist,
                berechnet=berechnung.fristablauf,
                berechnet_notfrist=berechnung.notfrist,
                rechtsgrundlage=berechnung.rechtsgrundlage,
                rat=RAT_ENTWURF,
            )
        except KalenderRegelFehler as fehler:
            raise ValueError(fehler.message) from None


class NotizPayload(_Payload):
    titel: Annotated[str, StringConstraints(strip_whitespace=True, max_length=200)] = ""
    text: Text


class ZeiterfassungPayload(_Payload):
    datum: datetime.date
    minuten: Annotated[int, Field(gt=0, le=24 * 60)]
    beschreibung: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
    abrechenbar: bool = True
    stundensatz: Annotated[Decimal, Field(ge=0, max_digits=8, decimal_places=2)] | None = None


AKTE_STATUS = Literal["OFFEN", "RUHEND", "ARCHIVIERT", "GESCHLOSSEN"]
# The one Akte field a change may empty (null); the others are required or empty as "" / [].
AKTE_NULLABLE = frozenset({"gegenstandswert"})
ERR_AKTE_NULL = "Diese Felder dürfen nicht null sein: {fields}. Lass ein Feld weg, wenn es sich nicht ändert."


class AkteChanges(_Payload):
    kurzrubrum: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)] | None = None
    wegen: Annotated[str, StringConstraints(max_length=300)] | None = None
    sachgebiet: str | None = None
    status: AKTE_STATUS | None = None
    gegenstandswert: Annotated[Decimal, Field(ge=0, max_digits=14, decimal_places=2)] | None = None
    notizen: str | None = None
    zusammenfassung: str | None = None
    tags: list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=50)]] | None = None

    @model_validator(mode="after")
    def _check(self) -> AkteChanges:
        from akten.models import Sachgebiet

        if self.sachgebiet is not None and self.sachgebiet not in Sachgebiet.values:
            raise ValueError(f"Unbekanntes Sachgebiet {self.sachgebiet!r}.")
        if not self.model_fields_set:
            raise ValueError("Der Entwurf ändert kein Feld der Akte.")
        # On every path (tool, edit, accept): a null here would fail only in the Akte's own
        # validation at approval time.
        nulls = sorted(f for f in self.model_fields_set if getattr(self, f) is None and f not in AKTE_NULLABLE)
        if nulls:
            raise ValueError(ERR_AKTE_NULL.format(fields=", ".join(nulls)))
        return self


class AkteUpdatePayload(_Payload):
    changes: AkteChanges
    begruendung: str = ""


PAYLOAD_MODELS: dict[str, type[_Payload]] = {
    "DOKUMENT": DokumentPayload,
    "FRIST": KalenderPayload,
    "NOTIZ": NotizPayload,
    "ZEITERFASSUNG": ZeiterfassungPayload,
    "AKTE_UPDATE": AkteUpdatePayload,
    "KOSTENNOTE": KostennotePayload,
}


def validate_payload(typ: str, payload: dict[str, Any]) -> _Payload:
    """Validate `payload` for `typ`; raises pydantic.ValidationError or KeyError for unknown typ."""
    return PAYLOAD_MODELS[typ].model_validate(payload)


def payload_to_json(model: _Payload) -> dict[str, Any]:
    data = model.model_dump(mode="json", exclude_unset=isinstance(model, AkteUpdatePayload))
    if isinstance(model, DokumentPayload):
        # A plain document draft keeps its three fields; template data only when there is some.
        for key in ("vorlage", "fehlende_felder"):
            if not data.get(key):
                data.pop(key, None)
    if isinstance(model, KalenderPayload) and model.berechnung is None:
        data.pop("berechnung")  # only a computed Frist carries it (never an empty field to edit)
    return data


def format_validation_error(error: ValidationError) -> str:
    return german_errors(error)


def draft_prose(typ: str, payload: Any) -> str:
    """The text of a draft whose norm citations are checked against the corpus (one line per
    field): a document's title and text, a note's, a Frist's title, description and legal basis,
    an Akte change's reasons and new texts, a time record's activity, and a fee note's text, notes
    and fee numbers ("Nr. 3100 VV RVG"). Read from the stored payload as it is, valid or not."""
    if not isinstance(payload, dict):
        return ""

    def text(value: Any) -> str:
        return value if isinstance(value, str) else ""

    def mapping(value: Any) -> dict[str, Any]:
        return value if isinstance(value, dict) else {}

    lines: list[str] = []
    if typ == "DOKUMENT":
        lines += [text(payload.get("titel")), text(payload.get("inhalt_markdown"))]
    elif typ in ("NOTIZ", "ZEITERFASSUNG"):
        lines += [text(payload.get("titel")), text(payload.get("text")), text(payload.get("beschreibung"))]
    elif typ == "FRIST":
        berechnung = mapping(payload.get("berechnung"))
        lines += [text(payload.get("titel")), text(payload.get("beschreibung")), text(berechnung.get("rechtsgrundlage"))]
    elif typ == "AKTE_UPDATE":
        changes = mapping(payload.get("changes"))
        lines += [text(payload.get("begruendung"))]
        lines += [text(changes.get(field)) for field in ("wegen", "notizen", "zusammenfassung")]
    elif typ == "KOSTENNOTE":
        lines += [text(payload.get("titel")), text(payload.get("text"))]
        lines += [text(hinweis) for hinweis in payload.get("hinweise") or []]
        for key in ("positionen", "anrechnungen", "auslagen"):
            for position in payload.get(key) or []:
                vv = text(position.get("vv")) if isinstance(position, dict) else ""
                if re.fullmatch(r"\d{4}", vv.strip()):
                    lines.append(f"Nr. {vv.strip()} VV RVG")
    return "\n\n".join(line for line in lines if line.strip())
