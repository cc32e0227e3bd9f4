"""berechne_frist and create_draft_frist use the court's place (issue 12, defects 1, 2 and 6)."""

import datetime

import pytest
from django.utils import timezone

from akten.models import KanzleiProfil
from drafts.models import HelenaDraft
from tests.factories import AkteFactory

pytestmark = pytest.mark.django_db


def _akte(anwalt, **gericht):
    akte = AkteFactory(anwalt=anwalt)
    for feld, wert in gericht.items():
        setattr(akte, feld, wert)
    akte.save()
    return akte


ZWEI_WOCHEN_AB_5_6_2025 = {"ereignis_datum": "2025-06-05", "dauer": 2, "einheit": "wochen"}


def test_ohne_ort_kein_stilles_nrw(call, anwalt):
    result = call(anwalt, "berechne_frist", ZWEI_WOCHEN_AB_5_6_2025)
    assert not result.ok and "fehlt das Bundesland des Gerichts" in result.error


def test_gericht_der_akte_in_berlin(call, anwalt):
    akte = _akte(anwalt, gericht_name="Landgericht Berlin II", gericht_ort="Berlin", gericht_bundesland="BE")
    result = call(anwalt, "berechne_frist", ZWEI_WOCHEN_AB_5_6_2025, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2025-06-19"  # not 20.06. (Fronleichnam only in NW)
    assert result.data["feiertage_nach"] == "Berlin (Berlin); Quelle: Gericht der Akte: Landgericht Berlin II"
    explicit = call(anwalt, "berechne_frist", {**ZWEI_WOCHEN_AB_5_6_2025, "akte": akte.aktenzeichen})
    assert explicit.data["fristablauf"] == "2025-06-19"


def test_kanzleisitz_nur_wenn_kein_gericht(call, anwalt):
    KanzleiProfil(name="Kanzlei", sitz_ort="Köln", sitz_bundesland="NW").save()
    ohne_gericht = _akte(anwalt)
    result = call(anwalt, "berechne_frist", ZWEI_WOCHEN_AB_5_6_2025, akte=ohne_gericht)
    # the seat is no court: the earliest end that holds everywhere, with the seat's later end in a warning
    assert result.data["fristablauf"] == "2025-06-19"
    assert result.data["fristablauf_bei_teilfeiertag"] == "2025-06-20"
    assert "Die Akte nennt kein Gericht" in result.data["warnungen"][0]
    assert result.data["feiertage_nach"] == "Köln (Nordrhein-Westfalen); Quelle: Kanzleisitz"
    berlin = _akte(anwalt, gericht_ort="Berlin", gericht_bundesland="BE")
    assert call(anwalt, "berechne_frist", ZWEI_WOCHEN_AB_5_6_2025, akte=berlin).data["fristablauf"] == "2025-06-19"


def test_angabe_gegen_das_gericht_der_akte_nimmt_das_fruehere_ende_und_warnt(call, anwalt):
    akte = _akte(anwalt, gericht_ort="Berlin", gericht_bundesland="BE")
    result = call(anwalt, "berechne_frist", {**ZWEI_WOCHEN_AB_5_6_2025, "bundesland": "NW"}, akte=akte)
    # 19.06.2025 is Fronleichnam in NW, not in Berlin: either place may be right, the earlier end holds
    assert result.ok and result.data["fristablauf"] == "2025-06-19"
    assert result.data["fristablauf_bei_teilfeiertag"] == "2025-06-20"
    assert "Angegeben ist Nordrhein-Westfalen, das Gericht der Akte liegt anderswo" in result.data["warnungen"][0]
    assert "nicht das Gericht der Akte in Berlin (Berlin)" in result.data["feiertage_nach"]


def test_eine_frist_beim_bgh_ist_nicht_an_die_feiertage_der_akte_gebunden(call, anwalt):
    """A Rechtsbeschwerdebegründung (§ 575 Abs. 2 ZPO) is kept at the BGH in Karlsruhe: one month from
    15.07.2025 ends on Friday 15.08.2025 there. The Akte's court in München keeps Mariä Himmelfahrt;
    the period was computed with its holidays (18.08.2025) and Karlsruhe could not be given."""
    akte = _akte(anwalt, gericht_name="Landgericht München I", gericht_ort="München", gericht_bundesland="BY")
    monat = {"ereignis_datum": "2025-07-15", "dauer": 1, "einheit": "monate"}

    beim_bgh = call(anwalt, "berechne_frist", {**monat, "bundesland": "BW", "ort": "Karlsruhe"}, akte=akte)

    assert beim_bgh.ok and beim_bgh.data["fristablauf"] == "2025-08-15"
    assert "nicht das Gericht der Akte in München (Bayern)" in beim_bgh.data["feiertage_nach"]
    am_gericht_der_akte = call(anwalt, "berechne_frist", monat, akte=akte)
    assert am_gericht_der_akte.data["fristablauf"] == "2025-08-18"  # München: 15.08. is a holiday there


def test_teilfeiertag_ohne_ort_warnt_und_nimmt_das_fruehere_datum(call, anwalt):
    args = {"ereignis_datum": "2025-08-01", "dauer": 2, "einheit": "wochen", "bundesland": "BY"}
    unsicher = call(anwalt, "berechne_frist", args).data
    assert unsicher["fristablauf"] == "2025-08-15" and unsicher["fristablauf_bei_teilfeiertag"] == "2025-08-18"
    assert "Mariä Himmelfahrt" in unsicher["warnungen"][0]
    assert "keine Verschiebung" not in unsicher["erlaeuterung"]
    muenchen = call(anwalt, "berechne_frist", {**args, "ort": "München"}).data
    assert muenchen["fristablauf"] == "2025-08-18" and muenchen["warnungen"] == []


def test_ort_ohne_bundesland_wird_abgelehnt(call, anwalt):
    result = call(anwalt, "berechne_frist", {**ZWEI_WOCHEN_AB_5_6_2025, "ort": "München"})
    assert not result.ok and "Zum Ort des Gerichts fehlt das Bundesland" in result.error


def test_fremde_akte_wird_nicht_verraten(call, anwalt):
    fremd = AkteFactory(gericht_ort="Berlin", gericht_bundesland="BE")
    result = call(anwalt, "berechne_frist", {**ZWEI_WOCHEN_AB_5_6_2025, "akte": fremd.aktenzeichen})
    assert not result.ok and "nicht gefunden oder kein Zugriff" in result.error


def test_create_draft_frist_rechnet_am_gerichtsort(call, anwalt):
    akte = _akte(anwalt, gericht_name="Landgericht München I", gericht_ort="München", gericht_bundesland="BY")
    # Zustellung Mo 02.08.2027 + 2 Wochen → Mo 16.08.2027; 15.08.2027 is a Sunday: no shift needed.
    heute = timezone.localdate()
    zustellung = heute + datetime.timedelta(days=(0 - heute.weekday()) % 7 or 7)
    result = call(
        anwalt,
        "create_draft_frist",
        {
            "akte": akte.aktenzeichen,
            "typ": "FRIST",
            "titel": "Sofortige Beschwerde",
            "datum": zustellung.isoformat(),
            "berechnung": {"vorlage": "sofortige_beschwerde"},
        },
    )
    assert result.ok, result.error
    berechnung = result.data["vorschau"]["berechnung"]
    assert berechnung["feiertage_nach"].startswith("München (Bayern); Quelle: Gericht der Akte")
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    assert datetime.date.fromisoformat(draft.payload["fristablauf"]) >= zustellung + datetime.timedelta(weeks=2)


def test_create_draft_frist_ohne_ort_fragt_nach(call, anwalt):
    akte = _akte(anwalt)
    result = call(
        anwalt,
        "create_draft_frist",
        {
            "akte": akte.aktenzeichen,
            "typ": "FRIST",
            "titel": "Berufungsfrist",
            "datum": timezone.localdate().isoformat(),
            "berechnung": {"vorlage": "berufung"},
        },
    )
    assert not result.ok and "fehlt das Bundesland des Gerichts" in result.error
    assert not HelenaDraft.objects.exists()


def test_wochentag_steht_nur_einmal_in_der_meldung(call, anwalt):
    akte = _akte(anwalt)
    heute = timezone.localdate()
    sonntag = heute + datetime.timedelta(days=(6 - heute.weekday()) % 7 or 7)
    result = call(
        anwalt,
        "create_draft_frist",
        {"akte": akte.aktenzeichen, "typ": "FRIST", "titel": "F", "datum": heute.isoformat(), "fristablauf": sonntag.isoformat()},
    )
    assert f"Sonntag, {sonntag:%d.%m.%Y}" in result.error
    assert "Sonntag, Sonntag" not in result.error


def test_berechne_frist_mit_verkuendung_und_neuen_vorlagen(call, anwalt):
    args = {"ereignis_datum": "2025-06-20", "vorlage": "berufung_arbgg", "verkuendung": "2025-01-15", "bundesland": "NW"}
    assert call(anwalt, "berechne_frist", args).data["fristablauf"] == "2025-07-15"
    owi = {"ereignis_datum": "2025-04-04", "vorlage": "einspruch_bussgeldbescheid", "bundesland": "BY", "ort": "München"}
    assert call(anwalt, "berechne_frist", owi).data["fristablauf"] == "2025-04-22"


def test_create_draft_frist_rueckwaerts(call, anwalt):
    akte = _akte(anwalt, gericht_ort="Berlin", gericht_bundesland="BE")
    termin = timezone.localdate() + datetime.timedelta(days=60)
    result = call(
        anwalt,
        "create_draft_frist",
        {
            "akte": akte.aktenzeichen,
            "typ": "FRIST",
            "titel": "Schriftsatz vor Termin",
            "datum": termin.isoformat(),
            "berechnung": {"vorlage": "schriftsatz_vor_termin"},
        },
    )
    assert result.ok, result.error
    payload = HelenaDraft.objects.get(pk=result.data["draft_id"]).payload
    assert datetime.date.fromisoformat(payload["fristablauf"]) <= termin - datetime.timedelta(weeks=1)
    assert payload["datum"] == timezone.localdate().isoformat()


def test_berufungsbegruendung_warnt_ohne_berufungsgericht_und_nimmt_seine_angabe(call, anwalt):
    """The Begründung is kept at the Berufungsgericht (§ 520 Abs. 3 ZPO), not at the LG Augsburg of
    the Akte: without its seat the earliest end holds, and its seat may be given."""
    augsburg = _akte(anwalt, gericht_name="Landgericht Augsburg", gericht_ort="Augsburg", gericht_bundesland="BY")
    args = {"ereignis_datum": "2029-06-08", "vorlage": "berufungsbegruendung"}
    ohne = call(anwalt, "berechne_frist", args, akte=augsburg)
    assert ohne.data["fristablauf"] == "2029-08-08"
    assert "Sitz des Rechtsmittelgerichts" in ohne.data["warnungen"][0]
    olg = call(anwalt, "berechne_frist", {**args, "bundesland": "BY", "ort": "München"}, akte=augsburg)
    assert olg.ok and olg.data["fristablauf"] == "2029-08-08"
    assert olg.data["feiertage_nach"] == "München (Bayern); Quelle: Angabe zum Rechtsmittelgericht"


def test_the_model_learns_every_preset_that_takes_a_verkuendung():
    """The parameter's description is drawn from the presets: a new preset with a limit after the
    Verkündung (§ 117 FamFG's Beschwerdebegründung was missing from a hand-written list) is named."""
    from agent.tools.fristen import FristBerechnung
    from rechner.fristen import PRESETS

    description = FristBerechnung.model_json_schema()["properties"]["verkuendung"]["description"]
    with_limit = [key for key, preset in PRESETS.items() if preset.grenze_monate]
    assert {"berufung", "revision", "beschwerde_famfg", "beschwerdebegruendung_famfg"} <= set(with_limit)
    assert all(key in description for key in with_limit) and "beschwerdebegruendung_famfg" in description


# -- Periods kept at another court or authority than the Akte's (review of 2026-12-03) --------------


def test_einspruch_vollstreckungsbescheid_nicht_mit_den_feiertagen_des_aktengerichts(call, anwalt):
    """The Einspruch goes to the Mahngericht (§ 700 Abs. 1, 3 ZPO), often in another Land: AG Potsdam
    in the Akte, Zustellung Fr 17.10.2025, two weeks → Fr 31.10.2025 (Reformationstag in Brandenburg,
    a working day at AG Wedding, Berlin). Before, the tool said Mo 03.11.2025 without a warning."""
    akte = _akte(anwalt, gericht_name="Amtsgericht Potsdam", gericht_ort="Potsdam", gericht_bundesland="BB")
    args = {"ereignis_datum": "2025-10-17", "vorlage": "einspruch_vollstreckungsbescheid"}
    result = call(anwalt, "berechne_frist", args, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2025-10-31"
    assert any("Mahngericht" in w for w in result.data["warnungen"])
    # the Akte's own court given again counts as the Akte's court, not as the Mahngericht's seat
    wieder = call(anwalt, "berechne_frist", {**args, "bundesland": "BB", "ort": "Potsdam"}, akte=akte)
    assert wieder.data["fristablauf"] == "2025-10-31" and wieder.data["warnungen"]
    # the Mahngericht's seat given: its holidays count
    wedding = call(anwalt, "berechne_frist", {**args, "bundesland": "BE", "ort": "Berlin"}, akte=akte)
    assert wedding.ok, wedding.error
    assert wedding.data["fristablauf"] == "2025-10-31" and not wedding.data["warnungen"]


def test_einspruch_bussgeldbescheid_bei_der_behoerde(call, anwalt):
    """§ 67 Abs. 1 OWiG: filed with the authority. Akte court Augsburg, Zustellung Fr 25.07.2025 →
    Fr 08.08.2025 is the Augsburger Friedensfest, a holiday of the city only; the authority's seat is
    not known, so the earliest end (08.08.) with a warning, not Mo 11.08.2025."""
    akte = _akte(anwalt, gericht_name="Amtsgericht Augsburg", gericht_ort="Augsburg", gericht_bundesland="BY")
    result = call(anwalt, "berechne_frist", {"ereignis_datum": "2025-07-25", "vorlage": "einspruch_bussgeldbescheid"}, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2025-08-08"
    assert result.data["warnungen"]


def test_wiedereinsetzung_beim_rechtsmittelgericht(call, anwalt):
    """§§ 236, 237 ZPO: filed with the court that decides on the missed step. Akte court LG Augsburg,
    Hindernis behoben Fr 25.07.2025: without a place 08.08.2025 with a warning (was 11.08. silently);
    the OLG München given is taken (was refused as contradicting the Akte's court)."""
    akte = _akte(anwalt, gericht_name="Landgericht Augsburg", gericht_ort="Augsburg", gericht_bundesland="BY")
    args = {"ereignis_datum": "2025-07-25", "vorlage": "wiedereinsetzung"}
    ohne = call(anwalt, "berechne_frist", args, akte=akte)
    assert ohne.ok, ohne.error
    assert ohne.data["fristablauf"] == "2025-08-08" and ohne.data["warnungen"]
    olg = call(anwalt, "berechne_frist", {**args, "bundesland": "BY", "ort": "München"}, akte=akte)
    assert olg.ok, olg.error
    assert olg.data["fristablauf"] == "2025-08-08"


def test_berufung_mit_dem_gericht_der_akte_als_ort_bleibt_unsicher(call, anwalt):
    """The Berufung goes to the OLG: the LG Augsburg given as the place (copied from the Akte) must
    not give the Friedensfest's Monday 11.08.2025 without a word."""
    akte = _akte(anwalt, gericht_name="Landgericht Augsburg", gericht_ort="Augsburg", gericht_bundesland="BY")
    args = {"ereignis_datum": "2025-07-08", "vorlage": "berufung", "bundesland": "BY", "ort": "Augsburg"}
    result = call(anwalt, "berechne_frist", args, akte=akte)
    assert result.ok, result.error
    assert result.data["fristablauf"] == "2025-08-08"
    assert any("Rechtsmittelgericht" in w for w in result.data["warnungen"])


def test_frei_angegebener_fristablauf_traegt_einen_hinweis(call, anwalt):
    akte = _akte(anwalt, gericht_ort="Berlin", gericht_bundesland="BE")
    from tests.support.dates import next_workday

    tag = next_workday(40)
    result = call(
        anwalt,
        "create_draft_frist",
        {"akte": akte.aktenzeichen, "typ": "FRIST", "titel": "Frist", "datum": tag.isoformat(), "fristablauf": tag.isoformat()},
    )
    assert result.ok, result.error
    assert "ohne Fristenrechner" in result.data["vorschau"]["hinweis"]
