from django.urls import path

from . import api, views

api_urlpatterns = [
    path("akten/", api.AkteListApi.as_view(), name="api-akte-list"),
    path("akten/<int:pk>/", api.AkteDetailApi.as_view(), name="api-akte-detail"),
    path("dokumente/", api.DokumentListApi.as_view(), name="api-dokument-list"),
    path("dokumente/<int:pk>/", api.DokumentDetailApi.as_view(), name="api-dokument-detail"),
    path("dokumente/<int:pk>/download/", api.DokumentDownloadApi.as_view(), name="api-dokument-download"),
    path("fristen/", api.KalenderListApi.as_view(), name="api-kalender-list"),
    path("fristen/<int:pk>/", api.KalenderDetailApi.as_view(), name="api-kalender-detail"),
    path("zeiterfassung/", api.ZeiterfassungListApi.as_view(), name="api-zeiterfassung-list"),
    path("zeiterfassung/<int:pk>/", api.ZeiterfassungDetailApi.as_view(), name="api-zeiterfassung-detail"),
    path("notizen/", api.NotizListApi.as_view(), name="api-notiz-list"),
    path("notizen/<int:pk>/", api.NotizDetailApi.as_view(), name="api-notiz-detail"),
]

page_urlpatterns = [
    path("kalender/<int:pk>/erledigt/", views.kalender_erledigen, name="kalender-erledigen"),
    path("kalender/<int:pk>/wieder-offen/", views.kalender_wieder_oeffnen, name="kalender-wieder-oeffnen"),
]
