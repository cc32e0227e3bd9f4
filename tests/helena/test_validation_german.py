"""pydantic's English never reaches a person: every kind of error of a draft's payload or a tool's
arguments reads German (helena/validation.py)."""

from __future__ import annotations

import math
import re
from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, Field, ValidationError

from helena.validation import german_errors


class Payload(BaseModel):
    stundensatz: float = Field(allow_inf_nan=False)
    sha256: Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")] = "0" * 64
    positionen: Annotated[list[int], Field(min_length=1)] = [1]
    status: Literal["OFFEN", "RUHEND", "GESCHLOSSEN"] = "OFFEN"


ENGLISH = re.compile(r"\b(should|Input|String|List|must|valid|match|pattern|item|after|or)\b")


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({"stundensatz": math.nan}, "stundensatz: muss eine endliche Zahl sein"),
        ({"stundensatz": 1, "sha256": "zz"}, "sha256: hat nicht das erwartete Format"),
        ({"stundensatz": 1, "positionen": []}, "positionen: darf nicht leer sein"),
        ({"stundensatz": 1, "status": "X"}, "status: muss einer dieser Werte sein: 'OFFEN', 'RUHEND' oder 'GESCHLOSSEN'"),
    ],
)
def test_errors_that_fell_through_to_pydantics_english_read_german(data, expected):
    """Seen in a probe: "Input should be a finite number", "String should match pattern …", "List
    should have at least 1 item after validation, not 0", "… or 'GESCHLOSSEN'"."""
    with pytest.raises(ValidationError) as error:
        Payload.model_validate(data)
    text = german_errors(error.value)
    assert text == expected
    assert not ENGLISH.search(text), text
