from django.urls import path

from . import views

page_urlpatterns = [
    path("rechner/", views.rechner_start, name="rechner"),
    path("rechner/rvg/", views.rvg_rechner, name="rechner-rvg"),
    path("rechner/gkg/", views.gkg_rechner, name="rechner-gkg"),
    path("rechner/famgkg/", views.familienrechner, name="rechner-famgkg"),
    path("rechner/rahmengebuehren/", views.rahmenrechner, name="rechner-rahmen"),
    path("rechner/fristen/", views.fristenrechner, name="rechner-fristen"),
    path("rechner/fristen/entwurf/", views.frist_entwurf, name="rechner-frist-entwurf"),
    path("rechner/zinsen/", views.zinsrechner, name="rechner-zinsen"),
    path("rechner/prozesskostenrisiko/", views.risikorechner, name="rechner-risiko"),
]
