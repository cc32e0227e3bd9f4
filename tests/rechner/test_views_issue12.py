"""Calculator pages for issue 12: the court's place, partial holidays, German numbers, value cap, bookmarks."""

from html import unescape

import pytest

from akten.models import KanzleiProfil
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def angemeldet(client):
    client.force_login(UserFactory())
    return client


def seite(client, params: dict[str, str]) -> str:
    antwort = client.get("/rechner/fristen/", params)
    assert antwort.status_code == 200
    return unescape(antwort.content.decode())


ZWEI_WOCHEN = {"dauer": "2", "einheit": "wochen", "ereignisdatum": "2025-06-05"}


def test_ohne_bundesland_und_ohne_kanzleisitz_fragt_die_seite_nach(angemeldet) -> None:
    html = seite(angemeldet, ZWEI_WOCHEN)
    assert "fehlt das Bundesland des Gerichts" in html
    assert 'id="ergebnis-h"' not in html


def test_berlin_endet_einen_tag_frueher_als_nrw(angemeldet) -> None:
    html = seite(angemeldet, {**ZWEI_WOCHEN, "bundesland": "BE", "ort": "Berlin"})
    assert "Fristablauf Donnerstag, 19.06.2025" in html
    assert "Berlin (Berlin); Quelle: Angabe" in html


def test_ohne_angabe_gilt_der_frueheste_tag_und_der_kanzleisitz_wird_genannt(angemeldet) -> None:
    """The Kanzlei's seat is no court: a court elsewhere may keep Fronleichnam as a working day, so
    the earliest end that holds everywhere applies, with a warning naming the later one at the seat."""
    KanzleiProfil(name="Kanzlei", sitz_ort="Köln", sitz_bundesland="NW").save()
    html = seite(angemeldet, ZWEI_WOCHEN)
    assert "Fristablauf Donnerstag, 19.06.2025" in html
    assert "Köln (Nordrhein-Westfalen); Quelle: Kanzleisitz" in html
    assert "Die Akte nennt kein Gericht" in html
    assert "endet die Frist erst am Freitag, 20.06.2025" in html


def test_muenchen_mariae_himmelfahrt(angemeldet) -> None:
    params = {"dauer": "2", "einheit": "wochen", "ereignisdatum": "2025-08-01", "bundesland": "BY"}
    muenchen = seite(angemeldet, {**params, "ort": "München"})
    assert "Fristablauf Montag, 18.08.2025" in muenchen
    ohne_ort = seite(angemeldet, params)
    assert "Fristablauf Freitag, 15.08.2025" in ohne_ort
    assert "Mariä Himmelfahrt – ein Feiertag nur in Teilen von Bayern" in ohne_ort
    assert "keine Verschiebung" not in ohne_ort and "keine – das rechnerische Fristende" not in ohne_ort


def test_ort_ohne_bundesland(angemeldet) -> None:
    html = seite(angemeldet, {**ZWEI_WOCHEN, "ort": "München"})
    assert "Bitte wähle zum Ort auch das Bundesland des Gerichts." in html


def test_ungueltige_einheit_nur_mit_passender_meldung(angemeldet) -> None:
    html = seite(angemeldet, {**ZWEI_WOCHEN, "einheit": "quartale", "bundesland": "NW"})
    assert "Bitte wähle einen der angebotenen Einträge aus." in html
    assert "Bitte wähle eine Fristvorlage oder gib Dauer und Einheit der Frist an." not in html


def test_gkg_seite_hoechstwert(angemeldet) -> None:
    antwort = angemeldet.get(
        "/rechner/gkg/", {"gkg-streitwert": "50.000.000", "gkg-kv": "1210", "gkg-anhaengig_seit": "2025-07-01"}
    )
    html = unescape(antwort.content.decode())
    assert "384.114,00 €" in html and "§ 39 Abs. 2 GKG" in html


def test_rvg_lesezeichen_behaelt_auslagenpauschale_und_anrechnung(angemeldet) -> None:
    # A bookmarked URL without the form's marker: Nr. 7002 (ticked by default) stays in.
    params = {"gegenstandswert": "5.000", "auftragsdatum": "2025-07-01", "vv_3100": "on"}
    html = unescape(angemeldet.get("/rechner/rvg/", params).content.decode())
    assert "Pauschale für Post- und Telekommunikationsentgelte" in html
    # Submitted through the form (marker present) an unticked box stays unticked.
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "gesendet": "1"}).content.decode())
    assert "Pauschale für Post- und Telekommunikationsentgelte" not in html


def test_rvg_seite_einigung_berufung(angemeldet) -> None:
    params = {"gegenstandswert": "10.000", "auftragsdatum": "2025-07-01", "vv_3200": "on", "vv_3202": "on"}
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "einigung": "1004"}).content.decode())
    assert "3.204,91 €" in html


def test_rvg_seite_liest_tausenderpunkt_und_lehnt_mehrdeutiges_ab(angemeldet) -> None:
    params = {"auftragsdatum": "2025-07-01", "vv_3100": "on", "auslagenpauschale": "", "gesendet": "1"}
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "gegenstandswert": "5.000"}).content.decode())
    assert "460,85 €" in html
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "gegenstandswert": "1,234"}).content.decode())
    assert "„1,234“ ist mehrdeutig" in html and 'id="ergebnis-h"' not in html


def test_fristenseite_fuenf_monats_grenze_und_rueckwaerts(angemeldet) -> None:
    params = {"vorlage": "berufung", "ereignisdatum": "2025-06-20", "verkuendung": "2025-01-15", "bundesland": "NW"}
    assert "Berufungsfrist: Fristablauf Dienstag, 15.07.2025" in seite(angemeldet, params)
    rueck = {"vorlage": "schriftsatz_vor_termin", "ereignisdatum": "2025-06-26", "bundesland": "NW"}
    assert "Fristablauf Mittwoch, 18.06.2025" in seite(angemeldet, rueck)
    manuell = seite(angemeldet, {**ZWEI_WOCHEN, "bundesland": "NW", "verkuendung": "2025-01-15"})
    assert "Das Verkündungsdatum gilt nur für Vorlagen mit einer Höchstgrenze" in manuell


def test_zinsseite(angemeldet) -> None:
    params = {"hauptforderung": "10.000", "von": "2024-01-01", "bis": "2024-12-31", "art": "verbraucher"}
    html = unescape(angemeldet.get("/rechner/zinsen/", params).content.decode())
    assert "Verzugszinsen: 849,43 €" in html and "3,62 %" in html
    html = unescape(angemeldet.get("/rechner/zinsen/", {**params, "bis": "2026-08-01"}).content.decode())
    assert "ist im Rechner noch nicht hinterlegt" in html and 'id="ergebnis-h"' not in html


def test_risikoseite(angemeldet) -> None:
    params = {"streitwert": "10.000", "instanzen": "2", "gericht": "zivil", "datum": "2025-07-01"}
    html = unescape(angemeldet.get("/rechner/prozesskostenrisiko/", params).content.decode())
    assert "Kosten bei vollständigem Unterliegen: 10.300,52 €" in html
    assert "Berufung" in html and "1.132,00 €" in html


def _entwurf_daten(akte, **extra: str) -> dict[str, str]:
    return {
        "vorlage": "sofortige_beschwerde",
        "ereignisdatum": "2027-05-13",
        "vorfrist": "3",
        "akte": str(akte.pk),
        "titel": "Sofortige Beschwerde",
        **extra,
    }


def test_frist_als_entwurf_in_die_akte(client) -> None:
    from akten.models import KalenderEintrag
    from drafts.models import HelenaDraft
    from tests.factories import AkteFactory

    # Do 13.05.2027 + 2 Wochen → Do 27.05.2027 Fronleichnam: in Köln → Fr 28.05.2027, in Berlin bleibt der 27.05.
    akte = AkteFactory(gericht_name="Landgericht Köln", gericht_ort="Köln", gericht_bundesland="NW")
    client.force_login(akte.anwalt)
    seite_html = unescape(client.get("/rechner/fristen/", {**ZWEI_WOCHEN, "bundesland": "NW"}).content.decode())
    assert "Als Frist-Entwurf in die Akte übernehmen" in seite_html and akte.aktenzeichen in seite_html
    for verborgen in ('name="ereignisdatum" value="2025-06-05"', 'name="dauer" value="2"', 'name="bundesland" value="NW"'):
        assert f'<input type="hidden" {verborgen}>' in seite_html
    antwort = client.post("/rechner/fristen/entwurf/", _entwurf_daten(akte))
    assert antwort.status_code == 302 and antwort["Location"] == f"/akten/{akte.pk}/#entwuerfe"
    draft = HelenaDraft.objects.get(akte=akte)
    assert draft.status == HelenaDraft.Status.PENDING and draft.requested_by == akte.anwalt
    assert (draft.payload["fristablauf"], draft.payload["notfrist"]) == ("2027-05-28", True)
    assert "Köln (Nordrhein-Westfalen)" in draft.payload["beschreibung"]
    assert not KalenderEintrag.objects.exists()  # only a draft, the calendar needs the Endkontrolle
    # the computation stays with the draft: an edit may not move the Fristablauf later (drafts.schemas)
    assert draft.payload["berechnung"]["fristablauf"] == "2027-05-28" and draft.payload["berechnung"]["notfrist"] is True
    from drafts.services import DraftInvalid, draft_edit

    with pytest.raises(DraftInvalid, match="nach dem berechneten Fristablauf"):
        draft_edit(draft_id=draft.pk, by=akte.anwalt, payload={**draft.payload, "fristablauf": "2027-05-31"})

    berlin = AkteFactory(anwalt=akte.anwalt, gericht_ort="Berlin", gericht_bundesland="BE")
    client.post("/rechner/fristen/entwurf/", _entwurf_daten(berlin))
    assert HelenaDraft.objects.get(akte=berlin).payload["fristablauf"] == "2027-05-27"


def test_frist_entwurf_widerspruch_zum_gericht_und_fremde_akte(client) -> None:
    from drafts.models import HelenaDraft
    from tests.factories import AkteFactory

    akte = AkteFactory(gericht_ort="Berlin", gericht_bundesland="BE")
    client.force_login(akte.anwalt)
    # A place other than the Akte's court: the earlier end (27.05., Fronleichnam only in NW) and a warning
    assert client.post("/rechner/fristen/entwurf/", _entwurf_daten(akte, bundesland="NW")).status_code == 302
    payload = HelenaDraft.objects.get(akte=akte).payload
    assert payload["fristablauf"] == "2027-05-27"
    assert "Angegeben ist Nordrhein-Westfalen, das Gericht der Akte liegt anderswo" in payload["beschreibung"]
    fremd = AkteFactory(gericht_ort="Berlin", gericht_bundesland="BE")
    assert client.post("/rechner/fristen/entwurf/", _entwurf_daten(fremd)).status_code == 404
    ohne_ort = AkteFactory(anwalt=akte.anwalt)
    html = unescape(client.post("/rechner/fristen/entwurf/", _entwurf_daten(ohne_ort)).content.decode())
    assert "fehlt das Bundesland des Gerichts" in html
    assert not HelenaDraft.objects.filter(akte__in=[fremd, ohne_ort]).exists()


def test_mandant_kann_keine_frist_entwuerfe_anlegen(client) -> None:
    from akten.models import Role
    from tests.factories import AkteFactory, KontaktFactory

    akte = AkteFactory(gericht_ort="Berlin", gericht_bundesland="BE")
    mandant = UserFactory(role=Role.MANDANT, kontakt=KontaktFactory())
    client.force_login(mandant)
    assert client.post("/rechner/fristen/entwurf/", _entwurf_daten(akte)).status_code == 404
    # the Rechner is a tool of the firm: not hers at all (akten.policy.firm_tools_page)
    assert client.get("/rechner/fristen/", {**ZWEI_WOCHEN, "bundesland": "NW"}).status_code == 404


def test_rvg_seite_auslagen(angemeldet) -> None:
    params = {
        "gegenstandswert": "5.000",
        "auftragsdatum": "2025-07-01",
        "vv_3100": "on",
        "seiten_sw": "60",
        "abwesenheit_stunden": "5",
        "fahrtkosten": "45,80",
        "reiseauslagen": "12",
    }
    html = unescape(angemeldet.get("/rechner/rvg/", params).content.decode())
    for betrag in ("26,50 €", "50,00 €", "45,80 €", "12,00 €"):
        assert betrag in html


def test_rahmenseite_strafsache(angemeldet) -> None:
    params = [("nummern", vv) for vv in ("4100", "4104", "4106", "4108")] + [("auftragsdatum", "2025-07-01")]
    antwort = angemeldet.get("/rechner/rahmengebuehren/?" + "&".join(f"{k}={v}" for k, v in params))
    html = unescape(antwort.content.decode())
    # two Angelegenheiten (§ 17 Nr. 10a RVG): (966,00 + 2 × 20,00 €) × 1,19
    assert "1.197,14 €" in html and "Mittelgebühr nach § 14 Abs. 1 RVG" in html
    pflicht = angemeldet.get("/rechner/rahmengebuehren/?" + "&".join(f"{k}={v}" for k, v in params) + "&pflichtverteidiger=on")
    assert "966,28 €" in unescape(pflicht.content.decode())


def test_rueckwaertsfrist_als_entwurf(client) -> None:
    import datetime

    from django.utils import timezone

    from drafts.models import HelenaDraft
    from tests.factories import AkteFactory

    akte = AkteFactory(gericht_ort="Berlin", gericht_bundesland="BE")
    client.force_login(akte.anwalt)
    termin = timezone.localdate() + datetime.timedelta(days=60)
    daten = {"vorlage": "schriftsatz_vor_termin", "ereignisdatum": termin.isoformat(), "akte": str(akte.pk), "titel": "S"}
    assert client.post("/rechner/fristen/entwurf/", daten).status_code == 302
    payload = HelenaDraft.objects.get(akte=akte).payload
    fristablauf = datetime.date.fromisoformat(payload["fristablauf"])
    assert fristablauf <= termin - datetime.timedelta(weeks=1)
    assert payload["datum"] == timezone.localdate().isoformat()  # the day it was entered, not the Termin


def test_famgkg_seite(angemeldet) -> None:
    params = {"art": "scheidung", "netto_monat": "4.000", "anrechte": "2", "kindschaftsfolgesachen": "1", "datum": "2025-07-01"}
    html = unescape(angemeldet.get("/rechner/famgkg/", params).content.decode())
    assert "Verfahrenswert 16.800,00 €, Gerichtsgebühr 749,00 €" in html and "§ 50 Abs. 1 FamGKG" in html
    html = unescape(angemeldet.get("/rechner/famgkg/", {"art": "unterhalt", "unterhalt_monat": "1,234"}).content.decode())
    assert "mehrdeutig" in html and 'id="ergebnis-h"' not in html


def test_rahmenseite_mehrere_auftraggeber(angemeldet) -> None:
    # Nr. 1008 VV RVG: 3102 for two clients of a Bedarfsgemeinschaft, 84,50–934,70 € → Mittelgebühr 509,60 €
    params = [("nummern", "3102"), ("auftraggeber", "2"), ("auftragsdatum", "2025-07-01")]
    html = unescape(angemeldet.get("/rechner/rahmengebuehren/?" + "&".join(f"{k}={v}" for k, v in params)).content.decode())
    assert "509,60 €" in html and "erhöht nach Nr. 1008 VV RVG" in html


def test_verjaehrung_am_wochenende_als_entwurf(client) -> None:
    """The calendar check refused the calculator's own Verjährung on Saturday 31.12.2033; the draft now
    holds the working day before and the warning on § 193 BGB."""
    import datetime

    from drafts.models import HelenaDraft
    from tests.factories import AkteFactory

    akte = AkteFactory(gericht_ort="Berlin", gericht_bundesland="BE")
    client.force_login(akte.anwalt)
    daten = {"vorlage": "verjaehrung_regel", "ereignisdatum": "2030-05-10", "akte": str(akte.pk), "titel": "Verjährung"}
    assert client.post("/rechner/fristen/entwurf/", daten).status_code == 302
    payload = HelenaDraft.objects.get(akte=akte).payload
    assert datetime.date.fromisoformat(payload["fristablauf"]) == datetime.date(2033, 12, 30)
    assert "§ 193 BGB" in payload["beschreibung"] and "02.01.2034" in payload["beschreibung"]


def test_rvg_seite_zahlungsvereinbarung(angemeldet) -> None:
    params = {"gegenstandswert": "10.000", "auftragsdatum": "2025-07-01", "vv_2300": "on", "gesendet": "1"}
    html = unescape(angemeldet.get("/rechner/rvg/", {**params, "einigung": "1000-zahlungsvereinbarung"}).content.decode())
    assert "Einigungsgebühr (Zahlungsvereinbarung)" in html and "248,15 €" in html and "§ 31b RVG" in html
