"""Draft payloads, validated per typ. The payload is exactly what approval turns into a record."""

from __future__ import annotations

import datetime
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class _Payload(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class DokumentPayload(_Payload):
    titel: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    inhalt_markdown: Text
    mandant_sichtbar: bool = False


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
        return self


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
}


def validate_payload(typ: str, payload: dict[str, Any]) -> _Payload:
    """Validate `payload` for `typ`; raises pydantic.ValidationError or KeyError for unknown typ."""
    return PAYLOAD_MODELS[typ].model_validate(payload)


def payload_to_json(model: _Payload) -> dict[str, Any]:
    return model.model_dump(mode="json", exclude_unset=isinstance(model, AkteUpdatePayload))


def format_validation_error(error: ValidationError) -> str:
    parts = []
    for item in error.errors():
        where = ".".join(str(p) for p in item["loc"])
        message = item["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)
