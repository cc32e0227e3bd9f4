"""Fristen review of 2026-12-03: the shorter periods of criminal and Bußgeld proceedings, a
triggering event after today, and § 193 BGB for ages and waiting periods (§ 187 Abs. 2 BGB)."""

import datetime

import pytest
from django.utils import timezone

from drafts.models import HelenaDraft
from rechner import fristen
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db


def _akte(anwalt, sachgebiet):
    return AkteFactory(
        anwalt=anwalt, sachgebiet=sachgebiet, gericht_name="Amtsgericht Köln", gericht_ort="Köln", gericht_bundesland="NW"
    )


@pytest.mark.parametrize(
    ("vorlage", "norm"), [("wiedereinsetzung", "§ 45 Abs. 1 Satz 1 StPO"), ("sofortige_beschwerde", "§ 311 Abs. 2 StPO")]
)
@pytest.mark.parametrize("sachgebiet", ["STRAFRECHT", "VERKEHRSRECHT"])
def test_in_a_criminal_or_traffic_akte_the_one_week_period_applies_with_a_warning(call, anwalt, vorlage, norm, sachgebiet):
    """§ 45 Abs. 1, § 311 Abs. 2 StPO (§ 52 Abs. 1, § 46 Abs. 1 OWiG): one week, not the ZPO's two."""
    akte = _akte(anwalt, sachgebiet)
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2026-12-01", "vorlage": vorlage}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2026-12-08"  # Tuesday, one week after 01.12.2026
    assert norm in result.data["rechtsgrundlage"]
    warnung = next(w for w in result.data["warnungen"] if "Verfahrensordnung" in w)
    assert "15.12.2026" in warnung and norm in warnung


def test_a_civil_akte_keeps_the_zpo_period(call, anwalt):
    akte = _akte(anwalt, "MIETRECHT")
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2026-12-01", "vorlage": "sofortige_beschwerde"}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2026-12-15"
    assert not any("Verfahrensordnung" in w for w in result.data["warnungen"])


def test_the_draft_from_the_rechner_page_takes_the_earlier_end_for_a_criminal_akte(client, anwalt):
    akte = _akte(anwalt, "STRAFRECHT")
    client.force_login(anwalt)
    response = client.post(
        "/rechner/fristen/entwurf/",
        {
            "akte": akte.pk,
            "titel": "Wiedereinsetzung",
            "vorlage": "wiedereinsetzung",
            "ereignisdatum": "2026-12-01",
            "vorfrist": 0,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    draft = HelenaDraft.objects.get(akte=akte)
    assert draft.payload["fristablauf"] == "2026-12-08"


def test_a_trigger_after_today_is_warned_about_but_not_a_termin(call, anwalt):
    akte = _akte(anwalt, "MIETRECHT")
    spaeter = timezone.localdate() + datetime.timedelta(days=360)
    result = call(
        anwalt, "berechne_frist", {"ereignis_datum": spaeter.isoformat(), "vorlage": "einspruch_versaeumnisurteil"}, akte=akte
    )
    assert result.ok, result.error
    assert any("liegt in der Zukunft" in w for w in result.data["warnungen"])
    heute = call(
        anwalt,
        "berechne_frist",
        {"ereignis_datum": timezone.localdate().isoformat(), "vorlage": "einspruch_versaeumnisurteil"},
        akte=akte,
    )
    assert not any("liegt in der Zukunft" in w for w in heute.data["warnungen"])
    termin = call(
        anwalt, "berechne_frist", {"ereignis_datum": spaeter.isoformat(), "vorlage": "schriftsatz_vor_termin"}, akte=akte
    )
    assert termin.ok, termin.error
    assert not any("liegt in der Zukunft" in w for w in termin.data["warnungen"])


def test_a_future_trigger_on_the_rechner_page_is_warned_about(client, anwalt):
    client.force_login(anwalt)
    spaeter = timezone.localdate() + datetime.timedelta(days=360)
    html = client.get(
        "/rechner/fristen/", {"vorlage": "einspruch_versaeumnisurteil", "ereignisdatum": spaeter.isoformat(), "bundesland": "NW"}
    ).content.decode()
    assert "liegt in der Zukunft" in html


def test_an_age_or_waiting_period_names_its_end_without_section_193():
    """18th birthday: born 29.11.2008 → of age at the end of Saturday 28.11.2026 (§ 187 Abs. 2 Satz 2,
    § 188 Abs. 2 Alt. 2 BGB); § 193 BGB does not apply to an age."""
    ergebnis = fristen.berechne_frist(
        ereignis_datum=datetime.date(2008, 11, 29), dauer=18, einheit="jahre", bundesland="NW", fristbeginn="tagesbeginn"
    )
    assert ergebnis.rechnerisches_ende == datetime.date(2026, 11, 28)
    assert any("ohne Verschiebung am Samstag, 28.11.2026" in w for w in ergebnis.warnungen)
    # a period counted from the event (§ 187 Abs. 1) is a Leistungsfrist as before: no such warning
    zustellung = fristen.berechne_frist(
        ereignis_datum=datetime.date(2026, 11, 14), dauer=2, einheit="wochen", bundesland="NW", fristbeginn="ereignis"
    )
    assert zustellung.fristablauf == datetime.date(2026, 11, 30)
    assert not any("ohne Verschiebung" in w for w in zustellung.warnungen)


def test_the_tax_objection_and_the_finance_court_claim_run_one_month_at_the_tax_office():
    """§ 355 Abs. 1 Satz 1 AO, § 47 Abs. 1 FGO: one month; the Einspruch is kept at the Finanzamt
    (§ 357 Abs. 2 AO), whose place must be given, else the earliest end in every Land."""
    einspruch = fristen.berechne_preset("einspruch_ao", datetime.date(2026, 11, 6), "NW", ort="Köln", ort_art="angabe")
    assert einspruch.fristablauf == datetime.date(2026, 12, 7)  # 06.12.2026 is a Sunday
    assert "§ 355 Abs. 1 Satz 1 AO" in einspruch.rechtsgrundlage and "vierten Tag" in einspruch.erlaeuterung
    klage = fristen.berechne_preset("klage_fgo", datetime.date(2026, 11, 6), "NW", ort="Köln")
    assert klage.fristablauf == datetime.date(2026, 12, 7) and "§ 47 Abs. 1 FGO" in klage.rechtsgrundlage


def test_a_court_place_that_lies_in_another_land_gives_the_earliest_end_and_says_why(call, anwalt):
    """Landgericht Hamburg entered with Bayern: Fronleichnam (27.05.2027) was counted as a holiday,
    though not one in Hamburg - a day too late (review of stop 34)."""
    akte = AkteFactory(anwalt=anwalt, gericht_name="Landgericht Hamburg", gericht_ort="Hamburg", gericht_bundesland="BY")
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2027-05-13", "vorlage": "einspruch_versaeumnisurteil"}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2027-05-27"
    assert any("„Hamburg“ liegt in Hamburg, angegeben ist aber Bayern" in w for w in result.data["warnungen"])
    # a place the table does not know, or one that fits, changes nothing
    assert fristen.ort_land_widerspruch("BY", "Hamburg") and not fristen.ort_land_widerspruch("HH", "Hamburg")
    assert fristen.ort_land_widerspruch("BY", "Kleinkleckersdorf") is None
