"""Template checks on upload and filling (pure parts, plus the model's clean())."""

from __future__ import annotations

import io

import docx
import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from akten.models import DokumentVorlage, validate_iban
from schriftgut.builtin import MITGELIEFERT, mitgeliefert_inhalt
from schriftgut.platzhalter import PLATZHALTER, Kontext
from schriftgut.vorlagen import VorlagenFehler, vorlage_pruefen, vorlage_rendern


def _docx(*absaetze: str) -> bytes:
    document = docx.Document()
    for text in absaetze:
        document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


@pytest.mark.parametrize("schluessel", [m.schluessel for m in MITGELIEFERT])
def test_shipped_templates_pass_the_upload_check(schluessel: str) -> None:
    assert vorlage_pruefen(mitgeliefert_inhalt(schluessel)) <= set(PLATZHALTER)


def test_not_a_docx_is_refused_in_german() -> None:
    with pytest.raises(VorlagenFehler, match="keine Word-Datei im DOCX-Format"):
        vorlage_pruefen(b"%PDF-1.4 kein Word")


def test_broken_syntax_is_refused_naming_the_problem() -> None:
    with pytest.raises(VorlagenFehler, match="Fehler in der Platzhalter-Syntax"):
        vorlage_pruefen(_docx("{% for p in parteien %}{{ p.name }}"))


def test_unknown_placeholder_is_refused_by_name() -> None:
    with pytest.raises(VorlagenFehler, match="unbekannte Platzhalter: klaeger_name"):
        vorlage_pruefen(_docx("{{ gericht }}", "{{ klaeger_name }}"))


def test_freitext_must_be_its_own_paragraph() -> None:
    with pytest.raises(VorlagenFehler, match="eigener Absatz"):
        vorlage_pruefen(_docx("Text: {{ freitext }}"))


def test_missing_values_are_listed_and_marked_never_empty() -> None:
    werte = dict.fromkeys(PLATZHALTER)
    werte.update(gericht="Landgericht Berlin II", freitext="Absatz eins.\n\nAbsatz **zwei**.")
    gerendert = vorlage_rendern(_docx("{{ gericht }}", "Az. {{ gericht_aktenzeichen }}", "{{p freitext }}"), Kontext(werte))
    text = "\n".join(p.text for p in gerendert.docx.paragraphs)
    assert gerendert.fehlend == ["Aktenzeichen des Gerichts"]
    assert "Az. [fehlt: Aktenzeichen des Gerichts]" in text
    assert "Landgericht Berlin II" in text
    assert "Absatz zwei." in text
    assert "{{" not in text and "}}" not in text


@pytest.mark.django_db
def test_model_clean_refuses_a_bad_upload_with_the_reason() -> None:
    vorlage = DokumentVorlage(name="Kaputt", datei=SimpleUploadedFile("kaputt.docx", _docx("{{ unbekannt }}")))
    with pytest.raises(ValidationError) as info:
        vorlage.full_clean()
    assert "unbekannte Platzhalter: unbekannt" in str(info.value.message_dict["datei"])


def test_iban_check_digits() -> None:
    validate_iban("DE89 3704 0044 0532 0130 00")
    with pytest.raises(ValidationError, match="Prüfziffer"):
        validate_iban("DE88 3704 0044 0532 0130 00")
