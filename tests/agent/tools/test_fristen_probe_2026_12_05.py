"""Fristen probe of 2026-12-05: the calculator's warnings (an earlier end under § 63 Abs. 2 FamFG, an
unchecked limit) reach the draft and the calendar entry, never cut off; a Fristablauf Helena typed
without the calculator says so in the entry; and in a criminal or Bußgeld Akte the appeal presets
take the StPO's one week (§§ 314, 341, 345 StPO, § 79 Abs. 3 OWiG) with a warning."""

import datetime

import pytest
from django.utils import timezone

from akten.models import KalenderEintrag
from drafts.models import HelenaDraft
from drafts.services import draft_accept
from rechner import fristen
from tests.factories import AkteFactory

from .test_fristen_review_2026_12_03 import _akte

pytestmark = pytest.mark.django_db


def test_the_calculators_warning_reaches_the_draft_and_the_calendar_entry(call, anwalt):
    akte = _akte(anwalt, "FAMILIENRECHT")
    zustellung = timezone.localdate() - datetime.timedelta(days=3)
    result = call(
        anwalt,
        "create_draft_frist",
        {
            "typ": "FRIST",
            "titel": "Beschwerdefrist",
            "datum": zustellung.isoformat(),
            "beschreibung": "Beschluss vom AG Köln",
            "berechnung": {"vorlage": "beschwerde_famfg"},
        },
        akte=akte,
    )
    assert result.ok, result.error
    warnung = next(w for w in result.data["vorschau"]["berechnung"]["warnungen"] if "§ 63 Abs. 2 FamFG" in w)
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    beschreibung = draft.payload["beschreibung"]
    # the author's words first, then the warning, then the explanation
    assert beschreibung.startswith("Beschluss vom AG Köln\n\n")
    assert warnung in beschreibung and beschreibung.index(warnung) < beschreibung.index("§ 63 Abs. 1 FamFG")
    assert beschreibung.count(warnung) == 1

    draft_accept(draft_id=draft.pk, by=anwalt)
    assert warnung in KalenderEintrag.objects.get(akte=akte).beschreibung


def test_a_fristablauf_typed_without_the_calculator_is_marked_in_the_entry(call, anwalt):
    akte = _akte(anwalt, "MIETRECHT")
    ablauf = timezone.localdate() + datetime.timedelta(days=30)
    while ablauf.weekday() >= 5 or ablauf.month == 12 and ablauf.day in (24, 25, 26, 31) or (ablauf.month, ablauf.day) == (1, 1):
        ablauf += datetime.timedelta(days=1)
    result = call(
        anwalt,
        "create_draft_frist",
        {
            "typ": "FRIST",
            "titel": "Frist laut Schreiben",
            "datum": timezone.localdate().isoformat(),
            "fristablauf": ablauf.isoformat(),
        },
        akte=akte,
    )
    assert result.ok, result.error
    beschreibung = HelenaDraft.objects.get(pk=result.data["draft_id"]).payload["beschreibung"]
    assert "ohne Fristenrechner angegeben" in beschreibung and "nachrechnen" in beschreibung


def test_a_long_explanation_keeps_its_warnings():
    ergebnis = fristen.berechne_preset("beschwerde_famfg", datetime.date(2027, 9, 30), "BY", ort="Nürnberg", ort_art="angabe")
    lang = fristen.mit_warnung(
        fristen.replace(ergebnis, erlaeuterung=ergebnis.erlaeuterung + "\n" + "Schritt. " * 400), "Achtung: zuletzt"
    )
    beschreibung = fristen.kalender_beschreibung(lang)
    assert len(beschreibung) > 2000
    assert beschreibung.startswith("\n".join(lang.warnungen))
    assert all(beschreibung.count(w) == 1 for w in lang.warnungen)


def test_the_rechner_page_keeps_the_warnings_in_the_draft(client, anwalt):
    akte = _akte(anwalt, "FAMILIENRECHT")
    client.force_login(anwalt)
    response = client.post(
        "/rechner/fristen/entwurf/",
        {
            "akte": akte.pk,
            "titel": "Beschwerde",
            "vorlage": "beschwerde_famfg",
            "ereignisdatum": (timezone.localdate() - datetime.timedelta(days=2)).isoformat(),
            "vorfrist": 0,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    beschreibung = HelenaDraft.objects.get(akte=akte).payload["beschreibung"]
    # the warnings come first (the explanation used to come first and was cut at 2,000 characters)
    assert beschreibung.startswith("Ohne Verkündungsdatum ist die Höchstgrenze nicht geprüft")
    assert "§ 63 Abs. 2 FamFG" in beschreibung.split("\n\n")[0]


@pytest.mark.parametrize(
    ("sachgebiet", "vorlage", "norm", "ende"),
    [
        ("STRAFRECHT", "berufung", "§ 314 Abs. 1 StPO", "2026-12-08"),
        ("STRAFRECHT", "revision", "§ 341 Abs. 1 StPO", "2026-12-08"),
        # one month from the Zustellung (01.01.2027 is a holiday, then a weekend)
        ("STRAFRECHT", "revisionsbegruendung", "§ 345 Abs. 1 StPO", "2027-01-04"),
        ("VERKEHRSRECHT", "rechtsbeschwerde", "§ 341 Abs. 1 StPO", "2026-12-08"),
    ],
)
def test_in_a_criminal_or_traffic_akte_the_appeal_presets_take_the_stpo_period(call, anwalt, sachgebiet, vorlage, norm, ende):
    akte = _akte(anwalt, sachgebiet)
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2026-12-01", "vorlage": vorlage}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == ende and norm in result.data["rechtsgrundlage"]
    assert any("Verfahrensordnung" in w and norm in w for w in result.data["warnungen"])


def test_the_earlier_of_verkuendung_and_zustellung_starts_the_stpo_twin(anwalt):
    ergebnis = fristen.berechne_preset(
        "berufung",
        datetime.date(2026, 12, 10),
        "NW",
        ort="Köln",
        ort_art="akte",
        verkuendung=datetime.date(2026, 12, 1),
        sachgebiet="STRAFRECHT",
    )
    assert ergebnis.fristablauf == datetime.date(2026, 12, 8)  # one week from the Verkündung (§ 314 Abs. 1 StPO)


def test_a_civil_akte_keeps_the_zpo_month(call, anwalt):
    akte = _akte(anwalt, "MIETRECHT")
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2026-12-01", "vorlage": "berufung"}, akte=akte)
    assert result.ok and result.data["fristablauf"] == "2027-01-04"  # 01.01.2027 a holiday, then a weekend


def test_a_court_whose_name_contradicts_its_land_gets_the_earlier_end(call, anwalt):
    """Fronleichnam (27.05.2027) is a holiday in Bayern, not at the Landgericht Hamburg."""
    akte = AkteFactory(anwalt=anwalt, gericht_name="Landgericht Hamburg", gericht_ort="", gericht_bundesland="BY")
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2027-05-13", "vorlage": "einspruch_versaeumnisurteil"}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2027-05-27"
    assert any("passen nicht zusammen" in w for w in result.data["warnungen"])


def test_a_court_named_after_its_place_counts_that_places_holidays():
    assert fristen.ort_aus_gerichtsname("LG München I") == "München"
    assert fristen.ort_aus_gerichtsname("Amtsgericht Frankfurt am Main") == "Frankfurt am Main"
    assert fristen.ort_aus_gerichtsname("Amtsgericht Hamburg-Altona") == "Hamburg"
    assert fristen.ort_aus_gerichtsname("Amtsgericht Hamm") is None  # not a place of ORT_LAND (a name shared)


@pytest.mark.parametrize(
    ("ort", "ereignis", "ende"),
    [
        ("Frankfurt am Main", datetime.date(2027, 10, 18), datetime.date(2027, 11, 1)),  # Allerheiligen not in Hessen
        ("Koeln", datetime.date(2026, 12, 23), datetime.date(2027, 1, 6)),  # Heilige Drei Könige not in NRW
        ("DUESSELDORF", datetime.date(2026, 12, 23), datetime.date(2027, 1, 6)),
    ],
)
def test_a_place_of_another_land_is_caught_in_every_spelling(ort, ereignis, ende):
    ergebnis = fristen.berechne_preset("einspruch_versaeumnisurteil", ereignis, "BY", ort=ort, ort_art="angabe")
    assert ergebnis.fristablauf == ende
    assert any("passen nicht zusammen" in w for w in ergebnis.warnungen)


def test_a_backward_period_checks_place_and_land_too():
    """§ 132 ZPO back from a Termin on 04.06.2027: Fronleichnam (27.05.) counts at a court in München."""
    ergebnis = fristen.berechne_preset("schriftsatz_vor_termin", datetime.date(2027, 6, 4), "HH", ort="München", ort_art="angabe")
    assert ergebnis.fristablauf == datetime.date(2027, 5, 26)
    assert any("passen nicht zusammen" in w for w in ergebnis.warnungen)


def test_the_tool_tells_the_model_the_fourth_day_for_a_bescheid():
    from agent.tools.read.berechne_frist import BerechneFristParams

    description = BerechneFristParams.model_json_schema()["properties"]["ereignis_datum"]["description"]
    assert "§ 184 Abs. 1 ZPO" in description and "fourth day" in description and "§ 41 Abs. 2 VwVfG" in description


def test_the_revisionsbegruendung_runs_from_the_later_of_the_week_and_the_zustellung():
    """Review 2026-12-05: § 345 Abs. 1 StPO - one month after the end of the week for the Revision,
    or after a later Zustellung; the first twin counted from the Verkündung (ended before service)."""
    spaet_zugestellt = fristen.berechne_preset(
        "revisionsbegruendung", datetime.date(2027, 2, 15), "NW", verkuendung=datetime.date(2027, 1, 4), sachgebiet="STRAFRECHT"
    )
    assert spaet_zugestellt.fristablauf == datetime.date(2027, 3, 15)
    frueh_zugestellt = fristen.berechne_preset(
        "revisionsbegruendung", datetime.date(2027, 1, 6), "NW", verkuendung=datetime.date(2027, 1, 4), sachgebiet="STRAFRECHT"
    )
    assert frueh_zugestellt.fristablauf == datetime.date(2027, 2, 11)  # week ends Mon 11.01.2027


@pytest.mark.parametrize(
    ("name", "ort"),
    [
        ("Landessozialgericht Berlin-Brandenburg", None),
        ("Finanzgericht Berlin-Brandenburg", None),
        ("Amtsgericht Bernau bei Berlin", None),
        ("Landessozialgericht Niedersachsen-Bremen", None),
        ("Landgericht Berlin II", "Berlin"),
    ],
)
def test_a_court_named_after_its_laender_names_no_place(name, ort):
    assert fristen.ort_aus_gerichtsname(name) == ort
