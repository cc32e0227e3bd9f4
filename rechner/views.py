"""Fee calculator and Fristenrechner pages (German UI, GET forms, login required).

Each view validates its form, calls one calculator function and renders the result; a calculator
error (RvgError, GkgError, FristError) carries a German message and becomes a form error.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from akten.fristen_rules import QUELLE_ANGABE, FristOrt, frist_ort

from . import fristen, gkg, risiko, rvg, zinsen
from .forms import FristForm, GkgForm, RisikoForm, RvgForm, ZinsForm


@login_required
def rechner_start(request: HttpRequest) -> HttpResponse:
    return render(request, "rechner/start.html")


@login_required
def rvg_rechner(request: HttpRequest) -> HttpResponse:
    form = RvgForm.aus_anfrage(request.GET)
    ergebnis = None
    if form.is_bound and form.is_valid():
        daten = form.cleaned_data
        try:
            ergebnis = rvg.calculate(
                gegenstandswert=daten["gegenstandswert"],
                auftragsdatum=daten["auftragsdatum"],
                positions=form.positionen(),
                auftraggeber=daten["auftraggeber"],
                anrechnung=daten["anrechnung"],
                pkh=daten["pkh"],
                auslagenpauschale=daten["auslagenpauschale"],
                km=daten["km"],
            )
        except rvg.RvgError as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/rvg.html", {"form": form, "ergebnis": ergebnis})


@login_required
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


@login_required
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
            if daten["vorlage"]:
                ergebnis = fristen.berechne_preset(
                    daten["vorlage"],
                    daten["ereignisdatum"],
                    ort.bundesland,
                    ort=ort.ort,
                    ortsquelle=ort.quelle,
                    vorfrist_tage=daten["vorfrist"],
                    vorfrist_arbeitstage=daten["vorfrist_arbeitstage"],
                    verkuendung=daten["verkuendung"],
                )
            else:
                ergebnis = fristen.berechne_frist(
                    ereignis_datum=daten["ereignisdatum"],
                    dauer=daten["dauer"],
                    einheit=daten["einheit"],
                    bundesland=ort.bundesland,
                    ort=ort.ort,
                    ortsquelle=ort.quelle,
                    fristbeginn=daten["fristbeginn"],
                    vorfrist_tage=daten["vorfrist"],
                    vorfrist_arbeitstage=daten["vorfrist_arbeitstage"],
                )
        except fristen.FristError as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/fristen.html", {"form": form, "ergebnis": ergebnis})


@login_required
def zinsrechner(request: HttpRequest) -> HttpResponse:
    form = ZinsForm(request.GET or None)
    ergebnis = None
    if form.is_bound and form.is_valid():
        daten = form.cleaned_data
        try:
            ergebnis = zinsen.verzugszinsen(
                hauptforderung=daten["hauptforderung"], von=daten["von"], bis=daten["bis"], art=daten["art"]
            )
        except zinsen.ZinsError as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/zinsen.html", {"form": form, "ergebnis": ergebnis})


@login_required
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
            )
        except (rvg.RvgError, gkg.GkgError) as fehler:
            form.add_error(None, str(fehler))
    return render(request, "rechner/risiko.html", {"form": form, "ergebnis": ergebnis})
