"""The place of a deadline and the one calendar-entry validator (issue 12, defects 1 and 6).

Dates: 27.05.2027 Fronleichnam (Thursday; holiday in NW, not in Berlin), 15.08.2028 Mariä
Himmelfahrt (Tuesday; holiday in München), 28.11.2027 Sunday.
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
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db

HEUTE = datetime.date(2026, 11, 24)
FRONLEICHNAM_2027 = datetime.date(2027, 5, 27)
MARIAE_HIMMELFAHRT_2028 = datetime.date(2028, 8, 15)
SONNTAG = datetime.date(2027, 11, 28)


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
        (SONNTAG, "Sonntag, 28.11.2027 fällt auf ein Wochenende"),
        (datetime.date(2026, 11, 20), "Freitag, 20.11.2026 liegt in der Vergangenheit"),
        (datetime.date(2026, 12, 25), "Erster Weihnachtstag"),
    ],
)
def test_validator_ohne_bekannten_ort(fristablauf, meldung):
    with pytest.raises(KalenderRegelFehler, match=meldung) as fehler:
        kalender_eintrag_pruefen(akte=None, typ="FRIST", fristablauf=fristablauf, vorfrist=None, heute=HEUTE)
    assert "Sonntag, Sonntag" not in fehler.value.message


def test_validator_nimmt_feiertage_am_gerichtsort():
    akte = gericht(AkteFactory(), name="Landgericht Köln", ort="Köln", bundesland="NW")
    with pytest.raises(KalenderRegelFehler, match=r"Fronleichnam\) in Köln \(Nordrhein-Westfalen\)"):
        kalender_eintrag_pruefen(akte=akte, typ="FRIST", fristablauf=FRONLEICHNAM_2027, vorfrist=None, heute=HEUTE)
    berlin = gericht(AkteFactory(), name="Landgericht Berlin II", ort="Berlin", bundesland="BE")
    kalender_eintrag_pruefen(akte=berlin, typ="FRIST", fristablauf=FRONLEICHNAM_2027, vorfrist=None, heute=HEUTE)
    muenchen = gericht(AkteFactory(), name="Landgericht München I", ort="München", bundesland="BY")
    with pytest.raises(KalenderRegelFehler, match="Mariä Himmelfahrt"):
        kalender_eintrag_pruefen(akte=muenchen, typ="FRIST", fristablauf=MARIAE_HIMMELFAHRT_2028, vorfrist=None, heute=HEUTE)
    # Ort unknown in Bayern: the earlier day (a working day unless the holiday applies) is allowed.
    bayern = gericht(AkteFactory(), name="Amtsgericht", ort="", bundesland="BY")
    kalender_eintrag_pruefen(akte=bayern, typ="FRIST", fristablauf=MARIAE_HIMMELFAHRT_2028, vorfrist=None, heute=HEUTE)


def test_termine_und_vorfrist():
    kalender_eintrag_pruefen(akte=None, typ="TERMIN", fristablauf=None, vorfrist=None, heute=HEUTE)
    with pytest.raises(KalenderRegelFehler, match="Vorfrist"):
        kalender_eintrag_pruefen(
            akte=None,
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
    draft = _frist_draft(akte, "2027-11-29")
    api_client.force_login(akte.anwalt)
    payload = {"typ": "FRIST", "titel": "Berufungsfrist", "datum": "2026-11-20", "fristablauf": SONNTAG.isoformat()}
    antwort = api_client.patch(f"/api/drafts/{draft.pk}/", {"payload": payload}, format="json")
    assert antwort.status_code == 400
    assert "Sonntag, 28.11.2027 fällt auf ein Wochenende" in antwort.json()["detail"]
    draft.refresh_from_db()
    assert draft.payload["fristablauf"] == "2027-11-29"


def test_draft_edit_lehnt_feiertag_am_gerichtsort_ab():
    akte = gericht(AkteFactory(), name="Landgericht Köln", ort="Köln", bundesland="NW")
    draft = _frist_draft(akte, "2027-05-26")
    payload = {"typ": "FRIST", "titel": "Berufungsfrist", "datum": "2026-11-20", "fristablauf": "2027-05-27"}
    with pytest.raises(services.DraftInvalid, match="Fronleichnam"):
        services.draft_edit(draft_id=draft.pk, by=akte.anwalt, payload=payload)


def test_draft_accept_lehnt_vergangene_frist_ab(api_client):
    akte = AkteFactory()
    draft = _frist_draft(akte, "2027-11-29")
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
    draft = _frist_draft(akte, FRONLEICHNAM_2027.isoformat())
    accepted = services.draft_accept(draft_id=draft.pk, by=akte.anwalt)
    assert KalenderEintrag.objects.get(pk=accepted.result_object_id).fristablauf == FRONLEICHNAM_2027


def test_draft_create_prueft_ebenso():
    akte = gericht(AkteFactory(), name="Landgericht Köln", ort="Köln", bundesland="NW")
    with pytest.raises(services.DraftInvalid, match="Fronleichnam"):
        _frist_draft(akte, FRONLEICHNAM_2027.isoformat())
    assert not HelenaDraft.objects.exists()
