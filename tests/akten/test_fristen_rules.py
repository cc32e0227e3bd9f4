"""The place of a deadline and the one calendar-entry validator (issue 12, defects 1 and 6).

Dates are computed from today (a Frist must not lie in the past): the next Fronleichnam on a
weekday (holiday in NW, not in Berlin), the next Mariä Himmelfahrt on a weekday (holiday in
München), a Sunday at least 30 days ahead.
"""

import datetime

import pytest
from django.db import IntegrityError

from akten.fristen_rules import (
    QUELLE_KANZLEI,
    KalenderRegelFehler,
    frist_ort,
    frist_ort_oder_fehler,
    kalender_eintrag_pruefen,
)
from akten.models import KalenderEintrag, KanzleiProfil
from drafts import services
from drafts.models import HelenaDraft
from rechner.fristen import PRESETS, berechne_preset
from rechner.tabellen import format_datum
from tests.factories import AkteFactory
from tests.support.dates import next_holiday, next_sunday, next_workday

pytestmark = pytest.mark.django_db

HEUTE = datetime.date(2026, 11, 24)
FRONLEICHNAM = next_holiday("Fronleichnam", bundesland="NW")
EINHEIT = datetime.date(2029, 10, 3)  # a Wednesday, a holiday in every Land
MARIAE_HIMMELFAHRT = next_holiday("Mariä Himmelfahrt", bundesland="BY", ort="München")
SONNTAG = next_sunday()
SONNTAG_MELDUNG = f"{format_datum(SONNTAG)} fällt auf ein Wochenende"
GUELTIG = next_workday(30)


def gericht(akte, *, name: str, ort: str, bundesland: str):
    akte.gericht_name, akte.gericht_ort, akte.gericht_bundesland = name, ort, bundesland
    akte.gericht_aktenzeichen = "2 O 123/26"
    akte.full_clean()
    akte.save()
    return akte


def test_gericht_vor_kanzleisitz_und_ohne_beides_nichts():
    KanzleiProfil(name="Kanzlei", sitz_ort="Köln", sitz_bundesland="NW").save()
    akte = AkteFactory()
    sitz = frist_ort(akte=akte)
    assert (sitz.bundesland, sitz.ort, sitz.quelle) == ("NW", "Köln", QUELLE_KANZLEI)
    gericht(akte, name="Landgericht Berlin II", ort="Berlin", bundesland="BE")
    am_gericht = frist_ort(akte=akte)
    assert (am_gericht.bundesland, am_gericht.ort) == ("BE", "Berlin")
    assert am_gericht.text == "Berlin (Berlin) (Gericht der Akte: Landgericht Berlin II)"
    KanzleiProfil.objects.all().delete()
    assert frist_ort(akte=AkteFactory()) is None
    with pytest.raises(KalenderRegelFehler, match="fehlt das Bundesland des Gerichts"):
        frist_ort_oder_fehler(akte=None)


def test_kanzleiprofil_ist_ein_einziger_datensatz():
    KanzleiProfil(name="A", sitz_bundesland="NW").save()
    KanzleiProfil(name="B", sitz_bundesland="BY").save()
    assert KanzleiProfil.objects.count() == 1 and KanzleiProfil.current().name == "B"
    with pytest.raises(IntegrityError):
        KanzleiProfil.objects.bulk_create([KanzleiProfil(pk=2, name="C")])


def test_ort_des_gerichts_braucht_ein_bundesland():
    akte = AkteFactory()
    akte.gericht_ort = "Berlin"
    with pytest.raises(IntegrityError):
        akte.save()


@pytest.mark.parametrize(
    ("fristablauf", "meldung"),
    [
        (SONNTAG, SONNTAG_MELDUNG),
        (datetime.date(2026, 11, 20), "Freitag, 20.11.2026 liegt in der Vergangenheit"),
        (datetime.date(2026, 12, 25), "Erster Weihnachtstag"),
    ],
)
def test_validator_ohne_bekannten_ort(fristablauf, meldung):
    with pytest.raises(KalenderRegelFehler, match=meldung) as fehler:
        kalender_eintrag_pruefen(typ="FRIST", fristablauf=fristablauf, vorfrist=None, heute=HEUTE)
    assert "Sonntag, Sonntag" not in fehler.value.message


def test_validator_nimmt_nur_bundesweite_feiertage():
    """A holiday kept only at the Akte's court is no objection: the deadline may be kept at another
    court (Revisionsbegründung at the BGH on Mariä Himmelfahrt, a Berufung from Augsburg at the OLG
    München on the Friedensfest), and an earlier date is never the dangerous error. A nationwide
    holiday and a weekend are."""
    kalender_eintrag_pruefen(typ="FRIST", fristablauf=FRONLEICHNAM, vorfrist=None, heute=HEUTE)
    kalender_eintrag_pruefen(typ="FRIST", fristablauf=MARIAE_HIMMELFAHRT, vorfrist=None, heute=HEUTE)
    with pytest.raises(KalenderRegelFehler, match=r"Tag der Deutschen Einheit\) in ganz Deutschland"):
        kalender_eintrag_pruefen(typ="FRIST", fristablauf=EINHEIT, vorfrist=None, heute=HEUTE)


@pytest.mark.parametrize("vorlage", sorted(PRESETS))
def test_validator_nimmt_jedes_ergebnis_des_rechners(vorlage):
    """Whatever a preset computes can be entered: the calendar check never refuses the calculator's
    own result (a Verjährung ending on Saturday 31.12.2033 was refused). Every eleventh day of eight
    years, in a Land with few holidays and in one with many, Vorfrist included."""
    for tag in range(0, 8 * 365, 11):
        ereignis = datetime.date(2026, 12, 1) + datetime.timedelta(days=tag)
        for land in ("BE", "BY"):
            ergebnis = berechne_preset(vorlage, ereignis, land)
            kalender_eintrag_pruefen(
                typ="FRIST", fristablauf=ergebnis.fristablauf, vorfrist=ergebnis.vorfrist, heute=datetime.date(2026, 1, 1)
            )


def test_termine_und_vorfrist():
    kalender_eintrag_pruefen(typ="TERMIN", fristablauf=None, vorfrist=None, heute=HEUTE)
    with pytest.raises(KalenderRegelFehler, match="Vorfrist"):
        kalender_eintrag_pruefen(
            typ="FRIST",
            fristablauf=datetime.date(2027, 3, 1),
            vorfrist=datetime.date(2027, 3, 2),
            heute=HEUTE,
        )


def _frist_draft(akte, fristablauf: str) -> HelenaDraft:
    payload = {"typ": "FRIST", "titel": "Berufungsfrist", "datum": "2026-11-20", "fristablauf": fristablauf}
    return services.draft_create(typ="FRIST", akte=akte, requested_by=akte.anwalt, payload=payload)


def test_draft_edit_lehnt_sonntag_ab(api_client):
    akte = AkteFactory()
    draft = _frist_draft(akte, GUELTIG.isoformat())
    api_client.force_login(akte.anwalt)
    payload = {"typ": "FRIST", "titel": "Berufungsfrist", "datum": "2026-11-20", "fristablauf": SONNTAG.isoformat()}
    antwort = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": payload}, format="json")
    assert antwort.status_code == 400
    assert SONNTAG_MELDUNG in antwort.json()["detail"]
    draft.refresh_from_db()
    assert draft.payload["fristablauf"] == GUELTIG.isoformat()


def test_draft_edit_lehnt_bundesweiten_feiertag_ab():
    akte = gericht(AkteFactory(), name="Landgericht Köln", ort="Köln", bundesland="NW")
    draft = _frist_draft(akte, GUELTIG.isoformat())
    payload = {"typ": "FRIST", "titel": "Berufungsfrist", "datum": "2026-11-20", "fristablauf": EINHEIT.isoformat()}
    with pytest.raises(services.DraftInvalid, match="Tag der Deutschen Einheit"):
        services.draft_edit(draft_id=draft.pk, by=akte.anwalt, payload=payload)
    # Fronleichnam in Köln may be the correct, earlier end of a deadline kept at another court
    payload["fristablauf"] = FRONLEICHNAM.isoformat()
    services.draft_edit(draft_id=draft.pk, by=akte.anwalt, payload=payload)


def test_draft_accept_lehnt_vergangene_frist_ab(api_client):
    akte = AkteFactory()
    draft = _frist_draft(akte, GUELTIG.isoformat())
    # The draft was proposed long ago; meanwhile its Fristablauf lies in the past.
    payload = {**draft.payload, "fristablauf": "2026-11-20"}
    HelenaDraft.objects.filter(pk=draft.pk).update(payload=payload)
    api_client.force_login(akte.anwalt)
    antwort = api_client.post(f"/api/drafts/{draft.pk}/accept/")
    assert antwort.status_code == 400
    assert "liegt in der Vergangenheit" in antwort.json()["detail"]
    assert not KalenderEintrag.objects.exists()


def test_draft_accept_speichert_gueltige_frist():
    akte = gericht(AkteFactory(), name="Landgericht Berlin II", ort="Berlin", bundesland="BE")
    draft = _frist_draft(akte, FRONLEICHNAM.isoformat())
    accepted = services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    assert KalenderEintrag.objects.get(pk=accepted.result_object_id).fristablauf == FRONLEICHNAM


def test_draft_create_prueft_ebenso():
    akte = gericht(AkteFactory(), name="Landgericht Köln", ort="Köln", bundesland="NW")
    with pytest.raises(services.DraftInvalid, match="Tag der Deutschen Einheit"):
        _frist_draft(akte, EINHEIT.isoformat())
    assert not HelenaDraft.objects.exists()
