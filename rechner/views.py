"""Fee calculator and Fristenrechner pages (German UI, GET forms, login required).

Each view validates its form, calls one calculator function and renders the result; a calculator
error (RvgError, GkgError, FristError) carries a German message and becomes a form error.
"""

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST

from akten.fristen_rules import QUELLE_ANGABE, FristOrt, KalenderRegelFehler, frist_berechnen, frist_ort, frist_ort_bestimmen
from akten.models import Akte, User
from akten.policy import firm_tools_page
from drafts.models import HelenaDraft
from drafts.services import DraftError, draft_create
from helena.text import as_id

from . import famgkg, fristen, gkg, rahmen, risiko, rvg, zinsen
from .forms import FamilienForm, FristForm, GkgForm, RahmenForm, RisikoForm, RvgForm, ZinsForm
from .selectors import basiszins_historie


@firm_tools_page
def rechner_start(request: HttpRequest) -> HttpResponse:
    return render(request, "rechner/start.html")


@firm_tools_page
def rvg_rechner(request: HttpRequest) -> HttpResponse:
    form = RvgForm.aus_anfrage(request.GET)
    ergebnis = None
    if form.is_bound and form.is_valid():
        try:
            ergebnis = form.berechne()
        except rvg.RvgError as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/rvg.html", {"form": form, "ergebnis": ergebnis})


@firm_tools_page
def gkg_rechner(request: HttpRequest) -> HttpResponse:
    form = GkgForm(request.GET or None, prefix="gkg")
    ergebnis = None
    fassung = None
    if form.is_bound and form.is_valid():
        daten = form.cleaned_data
        try:
            ergebnis = gkg.kv_gebuehr(daten["kv"], daten["streitwert"], on=daten["anhaengig_seit"])
            fassung = gkg.version_for(daten["anhaengig_seit"])
        except gkg.GkgError as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/gkg.html", {"form": form, "ergebnis": ergebnis, "fassung": fassung})


FEHLER_TITEL = "Bitte gib eine Bezeichnung für die Frist an."
ENTWURF_AKTEN_HOECHSTENS = 300


def _frist_berechnen(daten: dict[str, Any], ort: FristOrt, akte: Akte | None = None) -> fristen.FristErgebnis:
    """akten.fristen_rules.frist_berechnen for a valid FristForm at ``ort``. Raises FristError."""
    return frist_berechnen(
        ort=ort,
        akte=akte,
        ereignis_datum=daten["ereignisdatum"],
        vorlage=daten["vorlage"] or None,
        dauer=daten["dauer"],
        einheit=daten["einheit"],
        fristbeginn=daten["fristbeginn"],
        vorfrist_tage=daten["vorfrist"],
        vorfrist_arbeitstage=daten["vorfrist_arbeitstage"],
        verkuendung=daten["verkuendung"],
    )


def _fristen_seite(request: HttpRequest, form: FristForm, ergebnis: fristen.FristErgebnis | None) -> HttpResponse:
    akten = None
    if ergebnis is not None:  # staff only reach this page (firm_tools_page)
        akten = (
            Akte.objects.visible_to(request.user)
            .filter(status=Akte.Status.OFFEN)
            .order_by("aktenzeichen")[:ENTWURF_AKTEN_HOECHSTENS]
        )
    return render(request, "rechner/fristen.html", {"form": form, "ergebnis": ergebnis, "akten": akten})


@firm_tools_page
def fristenrechner(request: HttpRequest) -> HttpResponse:
    form = FristForm(request.GET or None)
    ergebnis = None
    if form.is_bound and form.is_valid():
        daten = form.cleaned_data
        if daten["bundesland"]:
            ort: FristOrt | None = FristOrt(daten["bundesland"], daten["ort"] or None, QUELLE_ANGABE)
        else:
            ort = frist_ort(akte=None)
        try:
            if ort is None:
                raise fristen.FristError(fristen.FEHLER_KEIN_BUNDESLAND)
            ergebnis = _frist_berechnen(daten, ort)
        except fristen.FristError as fehler:
            form.add_error(None, str(fehler))
    return _fristen_seite(request, form, ergebnis)


@firm_tools_page
@require_POST
def frist_entwurf(request: HttpRequest) -> HttpResponse:
    """ "Als Frist-Entwurf in die Akte übernehmen": recompute the deadline at the Akte's court and
    propose it through drafts.services.draft_create (the same path and validator as Helena's)."""
    user = request.user
    if not isinstance(user, User):  # firm_tools_page: signed in, active, never a MANDANT
        raise Http404
    akte_id = as_id(request.POST.get("akte", ""))
    akte = Akte.objects.visible_to(request.user).filter(pk=akte_id).first() if akte_id is not None else None
    if akte is None:
        raise Http404
    form = FristForm(request.POST)
    titel = request.POST.get("titel", "").strip()[:200]
    if form.is_valid():
        daten = form.cleaned_data
        try:
            if not titel:
                raise fristen.FristError(FEHLER_TITEL)
            ort = frist_ort_bestimmen(akte=akte, bundesland=daten["bundesland"], ort=daten["ort"], vorlage=daten["vorlage"])
            ergebnis = _frist_berechnen(daten, ort, akte)
            draft_create(
                typ=HelenaDraft.Typ.FRIST,
                akte=akte,
                requested_by=user,
                payload={
                    "typ": "FRIST",
                    "titel": titel,
                    "datum": fristen.kalenderdatum(ergebnis, timezone.localdate()).isoformat(),
                    "fristablauf": ergebnis.fristablauf.isoformat(),
                    "vorfrist": ergebnis.vorfrist.isoformat() if ergebnis.vorfrist else None,
                    "notfrist": ergebnis.notfrist,
                    "beschreibung": fristen.kalender_beschreibung(ergebnis),
                    # kept with the draft: an edit may move the Fristablauf earlier, never later
                    "berechnung": {
                        "fristablauf": ergebnis.fristablauf.isoformat(),
                        "notfrist": ergebnis.notfrist,
                        "rechtsgrundlage": ergebnis.rechtsgrundlage[:300],
                    },
                },
            )
        except (fristen.FristError, KalenderRegelFehler, DraftError) as fehler:
            form.add_error(None, getattr(fehler, "message", None) or str(fehler))
        else:
            return redirect(reverse("akte-detail", args=[akte.pk]) + "#entwuerfe")
    return _fristen_seite(request, form, None)


@firm_tools_page
def zinsrechner(request: HttpRequest) -> HttpResponse:
    form = ZinsForm(request.GET or None)
    ergebnis = None
    if form.is_bound and form.is_valid():
        daten = form.cleaned_data
        try:
            ergebnis = zinsen.verzugszinsen(
                hauptforderung=daten["hauptforderung"],
                von=daten["von"],
                bis=daten["bis"],
                art=daten["art"],
                entstanden=daten["entstanden"],
                dauerschuldverhaeltnis=daten["dauerschuldverhaeltnis"],
                heute=timezone.localdate(),
                historie=basiszins_historie(),
            )
        except zinsen.ZinsError as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/zinsen.html", {"form": form, "ergebnis": ergebnis})


@firm_tools_page
def risikorechner(request: HttpRequest) -> HttpResponse:
    form = RisikoForm(request.GET or None)
    ergebnis = None
    if form.is_bound and form.is_valid():
        daten = form.cleaned_data
        try:
            ergebnis = risiko.prozesskostenrisiko(
                streitwert=daten["streitwert"],
                datum=daten["datum"],
                instanzen=int(daten["instanzen"]),
                gericht=daten["gericht"],
                vorsteuerabzug=daten["vorsteuerabzug"],
                heute=timezone.localdate(),
            )
        except (rvg.RvgError, gkg.GkgError) as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/risiko.html", {"form": form, "ergebnis": ergebnis})


@firm_tools_page
def rahmenrechner(request: HttpRequest) -> HttpResponse:
    form = RahmenForm.aus_anfrage(request.GET)
    ergebnis = None
    if form.is_bound and form.is_valid():
        daten = form.cleaned_data
        try:
            ergebnis, _ = rahmen.berechne(
                auftragsdatum=daten["auftragsdatum"],
                positions=[
                    rahmen.RahmenRequest(
                        vv,
                        pflichtverteidiger=daten["pflichtverteidiger"] and rahmen.RAHMEN[vv].pflicht is not None,
                        umfangreich_oder_schwierig=daten["umfangreich_oder_schwierig"],
                    )
                    for vv in daten["nummern"]
                ],
                auslagenpauschale=daten["auslagenpauschale"],
                auftraggeber=daten["auftraggeber"],
            )
        except rvg.RvgError as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/rahmen.html", {"form": form, "ergebnis": ergebnis})


@firm_tools_page
def familienrechner(request: HttpRequest) -> HttpResponse:
    form = FamilienForm(request.GET or None)
    ergebnis = None
    if form.is_bound and form.is_valid():
        daten = form.cleaned_data
        try:
            ergebnis = famgkg.familienkosten(
                daten["art"],
                on=daten["datum"],
                netto_monat=daten["netto_monat"],
                anrechte=daten["anrechte"] or 0,
                kindschaftsfolgesachen=daten["kindschaftsfolgesachen"] or 0,
                unterhalt_monat=daten["unterhalt_monat"],
                rueckstand=daten["rueckstand"],
            )
        except gkg.GkgError as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/famgkg.html", {"form": form, "ergebnis": ergebnis})
