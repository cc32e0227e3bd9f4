"""A Frist computed by the Fristenrechner keeps its computation after approval: in Django admin,
nobody can move the stored Fristablauf later or drop its Notfrist. Before, only the draft kept it,
and the stored entry could be moved past the legal end in the admin."""

import pytest

from akten.models import KalenderEintrag, Role
from drafts.models import HelenaDraft
from drafts.services import draft_accept
from tests.factories import AkteFactory, UserFactory

pytestmark = pytest.mark.django_db


def _computed_frist(client):
    # Thu 13.05.2027 + 2 weeks (sofortige Beschwerde, Notfrist) → Fri 28.05.2027 in Köln (Fronleichnam)
    akte = AkteFactory(gericht_name="Landgericht Köln", gericht_ort="Köln", gericht_bundesland="NW")
    client.force_login(akte.anwalt)
    response = client.post(
        "/rechner/fristen/entwurf/",
        {"vorlage": "sofortige_beschwerde", "ereignisdatum": "2027-05-13", "vorfrist": "3", "akte": str(akte.pk),
         "titel": "Sofortige Beschwerde", "bundesland": "NW"},
    )  # fmt: skip
    assert response.status_code == 302
    draft = HelenaDraft.objects.get(akte=akte)
    draft_accept(draft_id=draft.pk, by=akte.anwalt)
    return KalenderEintrag.objects.get(akte=akte)


def _change(client, eintrag, **changes):
    data = {
        "akte": eintrag.akte_id,
        "typ": eintrag.typ,
        "titel": eintrag.titel,
        "beschreibung": eintrag.beschreibung,
        "datum": eintrag.datum.isoformat(),
        "uhrzeit": "",
        "fristablauf": eintrag.fristablauf.isoformat(),
        "vorfrist": eintrag.vorfrist.isoformat() if eintrag.vorfrist else "",
        "notfrist": "on" if eintrag.notfrist else "",
        "verantwortlich": eintrag.verantwortlich_id or "",
        **changes,
    }
    return client.post(f"/admin/akten/kalendereintrag/{eintrag.pk}/change/", {k: v for k, v in data.items() if v != ""})


def test_the_stored_frist_keeps_its_computation_and_cannot_be_moved_later_in_the_admin(client):
    eintrag = _computed_frist(client)
    assert eintrag.fristablauf.isoformat() == "2027-05-28" and eintrag.notfrist
    assert eintrag.berechnung["fristablauf"] == "2027-05-28" and eintrag.berechnung["notfrist"] is True

    client.force_login(UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True))
    page = client.get(f"/admin/akten/kalendereintrag/{eintrag.pk}/change/").content.decode()
    assert "28.05.2027, Notfrist" in page and "ein späterer Fristablauf wird abgelehnt" in page

    later = _change(client, eintrag, fristablauf="2027-05-31")
    assert later.status_code == 200
    assert "liegt nach dem berechneten Fristablauf 28.05.2027" in later.content.decode()
    no_notfrist = _change(client, eintrag, notfrist="")
    assert no_notfrist.status_code == 200 and "die Kennzeichnung bleibt" in no_notfrist.content.decode()
    as_termin = _change(client, eintrag, typ="TERMIN", notfrist="")
    assert as_termin.status_code == 200 and "bleibt eine Frist" in as_termin.content.decode()
    eintrag.refresh_from_db()
    assert eintrag.fristablauf.isoformat() == "2027-05-28" and eintrag.notfrist and eintrag.typ == "FRIST"

    earlier = _change(client, eintrag, fristablauf="2027-05-27", vorfrist="2027-05-24", titel="Beschwerde (früher notiert)")
    assert earlier.status_code == 302
    eintrag.refresh_from_db()
    assert eintrag.fristablauf.isoformat() == "2027-05-27" and eintrag.titel == "Beschwerde (früher notiert)"
    assert eintrag.berechnung["fristablauf"] == "2027-05-28"  # not editable, not changed by the form
