"""A Wiedervorlage on a Saturday, Sunday or holiday is kept (it may be meant so) but never silently:
the draft Helena proposes, its approval, the Kalender API and the Fristenkontrolle say so in German.
Holidays are those of the place of the Akte's deadlines (its court, else the Kanzlei's seat); with
no place known only weekends and holidays kept in every Land count (no Land is assumed)."""

from __future__ import annotations

import datetime

import pytest
from asgiref.sync import async_to_sync
from django.urls import reverse

from agent.chat.cards import draft_card
from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from akten.models import AktenActivity, KalenderEintrag, KanzleiProfil
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, KalenderEintragFactory

pytestmark = pytest.mark.django_db

SAMSTAG, SONNTAG, DIENSTAG = datetime.date(2030, 6, 1), datetime.date(2030, 6, 2), datetime.date(2030, 6, 4)
EINHEIT = datetime.date(2030, 10, 3)  # Tag der Deutschen Einheit, a Thursday
REFORMATIONSTAG = datetime.date(2030, 10, 31)  # a holiday in Sachsen, not in Nordrhein-Westfalen
DREI_KOENIGE = datetime.date(2031, 1, 6)  # a holiday in Bayern, a Monday
MARIAE_HIMMELFAHRT = datetime.date(2030, 8, 15)  # kept in parts of Bayern only
RAT = "; bitte prüfe, ob ein Werktag gemeint ist."


def _akte(*, land: str = "", ort: str = "", gericht: str = ""):
    akte = AkteFactory()
    akte.gericht_name, akte.gericht_ort, akte.gericht_bundesland = gericht, ort, land
    akte.save()
    return akte


def _wiedervorlage(akte, datum: datetime.date, **extra) -> KalenderEintrag:
    extra = {"titel": "Sachstand prüfen", **extra}
    return KalenderEintragFactory(akte=akte, typ=KalenderEintrag.Typ.WIEDERVORLAGE, datum=datum, fristablauf=None, **extra)


def _hinweise(client, akte) -> dict[str, str]:
    client.force_login(akte.anwalt)
    antwort = client.get(reverse("api-kalender-list"), {"akte": akte.pk})
    assert antwort.status_code == 200
    return {eintrag["datum"]: eintrag["hinweis"] for eintrag in antwort.json()["results"]}


def test_the_api_warns_of_a_wiedervorlage_on_a_weekend_or_a_holiday_kept_everywhere(client):
    KanzleiProfil.objects.all().delete()
    akte = _akte()
    for datum in (SAMSTAG, SONNTAG, DIENSTAG, EINHEIT, REFORMATIONSTAG):
        _wiedervorlage(akte, datum)

    hinweise = _hinweise(client, akte)

    assert hinweise == {
        "2030-06-01": "Die Wiedervorlage fällt auf einen Samstag (01.06.2030)" + RAT,
        "2030-06-02": "Die Wiedervorlage fällt auf einen Sonntag (02.06.2030)" + RAT,
        "2030-06-04": "",
        "2030-10-03": "Die Wiedervorlage fällt auf einen bundesweiten Feiertag: Tag der Deutschen Einheit am 03.10.2030" + RAT,
        "2030-10-31": "",  # no court, no Kanzlei seat: no Land is assumed
    }


def test_the_holidays_of_the_akte_court_count_then_those_of_the_kanzlei_seat(client):
    KanzleiProfil(name="Kanzlei", sitz_ort="Nürnberg", sitz_bundesland="BY").save()
    leipzig = _akte(land="SN", ort="Leipzig", gericht="Landgericht Leipzig")
    koeln = _akte(land="NW", ort="Köln", gericht="Landgericht Köln")
    ohne_gericht = _akte()
    for akte in (leipzig, koeln, ohne_gericht):
        _wiedervorlage(akte, REFORMATIONSTAG)
        _wiedervorlage(akte, DREI_KOENIGE)

    assert _hinweise(client, leipzig) == {
        "2030-10-31": "Die Wiedervorlage fällt auf einen Feiertag in Leipzig, Sachsen (Gericht der Akte: Landgericht "
        "Leipzig): Reformationstag am 31.10.2030" + RAT,
        "2031-01-06": "",
    }
    assert _hinweise(client, koeln) == {"2030-10-31": "", "2031-01-06": ""}
    assert _hinweise(client, ohne_gericht) == {
        "2030-10-31": "",
        "2031-01-06": "Die Wiedervorlage fällt auf einen Feiertag in Nürnberg, Bayern (Kanzleisitz): Heilige Drei Könige "
        "am 06.01.2031" + RAT,
    }


def test_a_holiday_kept_only_in_parts_of_the_land_is_named_as_such():
    from akten.fristen_rules import wiedervorlage_hinweis

    KanzleiProfil.objects.all().delete()
    bayern = _akte(land="BY", gericht="Landgericht")
    muenchen = _akte(land="BY", ort="München", gericht="Landgericht München I")

    assert wiedervorlage_hinweis(akte=bayern, typ="WIEDERVORLAGE", datum=MARIAE_HIMMELFAHRT) == (
        "Die Wiedervorlage fällt auf den 15.08.2030, in Teilen von Bayern ein Feiertag (Mariä Himmelfahrt; "
        "Gericht der Akte: Landgericht)" + RAT
    )
    assert "einen Feiertag in München, Bayern" in wiedervorlage_hinweis(
        akte=muenchen, typ="WIEDERVORLAGE", datum=MARIAE_HIMMELFAHRT
    )


def test_only_a_wiedervorlage_gets_the_hint_and_by_its_due_date():
    from akten.fristen_rules import wiedervorlage_hinweis

    akte = _akte()
    assert wiedervorlage_hinweis(akte=akte, typ="TERMIN", datum=SONNTAG) == ""
    assert wiedervorlage_hinweis(akte=akte, typ="FRIST", datum=DIENSTAG, fristablauf=SONNTAG) == ""
    # due on its fristablauf when it has one (as the Fristenkontrolle lists it)
    assert "Sonntag (02.06.2030)" in wiedervorlage_hinweis(akte=akte, typ="WIEDERVORLAGE", datum=DIENSTAG, fristablauf=SONNTAG)


def test_the_fristenkontrolle_shows_the_hint(client):
    akte = _akte()
    _wiedervorlage(akte, SONNTAG, verantwortlich=akte.anwalt)
    _wiedervorlage(akte, DIENSTAG, verantwortlich=akte.anwalt, titel="Zahlungseingang prüfen")
    client.force_login(akte.anwalt)

    html = client.get(reverse("start")).content.decode()

    assert html.count("bitte prüfe, ob ein Werktag gemeint ist") == 1
    assert "Die Wiedervorlage fällt auf einen Sonntag (02.06.2030)" in html


def test_a_wiedervorlage_helena_proposes_for_a_sunday_is_kept_with_the_hint_on_proposal_and_approval(client, settings):
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True  # the tool reads this test's transaction
    akte = _akte()
    box = toolbox_for(ToolContext(user=akte.anwalt, akte=akte, run=None))
    vorschlag = async_to_sync(box.execute)(
        "create_draft_frist",
        {"akte": akte.aktenzeichen, "typ": "WIEDERVORLAGE", "titel": "Sachstand prüfen", "datum": SONNTAG.isoformat()},
        call_id="c1",
    )
    assert vorschlag.ok, vorschlag.error  # a hint, not a refusal
    draft = HelenaDraft.objects.get(pk=vorschlag.data["draft_id"])
    hinweis = "Die Wiedervorlage fällt auf einen Sonntag (02.06.2030)" + RAT
    # Helena reads it in the tool result (to tell the user), the reviewer on the draft card
    assert vorschlag.data["vorschau"]["hinweis"].startswith(hinweis)
    assert draft_card(draft, viewer=akte.anwalt)["hinweis"] == hinweis
    client.force_login(akte.anwalt)
    # in the Aktenverlauf of the page that shows the card
    assert (
        f"Entwurf erstellt: Frist / Termin / Wiedervorlage „Sachstand prüfen“. {hinweis}"
        in client.get(reverse("akte-detail", args=[akte.pk])).content.decode()
    )

    angenommen = client.post(reverse("api-draft-accept", args=[draft.pk]), {"version": 0}, content_type="application/json")

    assert angenommen.status_code == 200, angenommen.content
    assert _hinweise(client, akte) == {"2030-06-02": hinweis}
    angelegt = AktenActivity.objects.get(akte=akte, typ=AktenActivity.Typ.KALENDER_ANGELEGT)
    assert angelegt.beschreibung == f"Wiedervorlage „Sachstand prüfen“ angelegt. {hinweis}"
    assert angelegt.data["hinweis"] == hinweis


def test_a_draft_edited_to_a_holiday_gets_the_hint_and_a_weekday_none(client):
    from drafts import services as draft_services

    akte = _akte()
    payload = {"typ": "WIEDERVORLAGE", "titel": "Akte vorlegen", "datum": DIENSTAG.isoformat()}
    draft = draft_services.draft_create(typ=HelenaDraft.Typ.FRIST, akte=akte, requested_by=akte.anwalt, payload=payload)
    assert draft_services.draft_hinweis(draft) == ""

    draft_services.draft_edit(draft_id=draft.pk, by=akte.anwalt, payload={**payload, "datum": EINHEIT.isoformat()})

    draft.refresh_from_db()
    assert "bundesweiten Feiertag: Tag der Deutschen Einheit" in draft_services.draft_hinweis(draft)
    bearbeitet = AktenActivity.objects.get(akte=akte, typ=AktenActivity.Typ.ENTWURF_BEARBEITET)
    assert bearbeitet.beschreibung.endswith(draft_services.draft_hinweis(draft))


def test_a_city_state_is_named_once():
    from akten.fristen_rules import wiedervorlage_hinweis

    berlin = _akte(land="BE", ort="Berlin", gericht="Landgericht Berlin II")
    frauentag = datetime.date(2030, 3, 8)  # a holiday in Berlin, a Friday

    hinweis = wiedervorlage_hinweis(akte=berlin, typ="WIEDERVORLAGE", datum=frauentag)

    assert "einen Feiertag in Berlin (Gericht der Akte" in hinweis and "Berlin, Berlin" not in hinweis


def test_a_wiedervorlage_saved_in_the_admin_gets_the_hint_on_the_page_and_in_the_verlauf(client):
    from akten.models import Role
    from tests.factories import UserFactory

    KanzleiProfil.objects.all().delete()
    akte = _akte()
    admin_user = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True)
    client.force_login(admin_user)
    formular = {
        "akte": akte.pk,
        "typ": "WIEDERVORLAGE",
        "titel": "Sachstand",
        "datum": SONNTAG.strftime("%d.%m.%Y"),
        "verantwortlich": akte.anwalt.pk,
    }

    antwort = client.post(reverse("admin:akten_kalendereintrag_add"), formular, follow=True)

    assert antwort.status_code == 200
    hinweis = "Die Wiedervorlage fällt auf einen Sonntag (02.06.2030)" + RAT
    assert KalenderEintrag.objects.filter(akte=akte, titel="Sachstand").exists(), antwort.content.decode()[:3000]
    assert hinweis in antwort.content.decode()
    verlauf = AktenActivity.objects.get(akte=akte, typ=AktenActivity.Typ.KALENDER_ANGELEGT)
    assert verlauf.beschreibung == f"Wiedervorlage „Sachstand“ in der Verwaltung angelegt. {hinweis}"
