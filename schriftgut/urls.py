from django.urls import path

from . import api, views

api_urlpatterns = [
    path("antworten/<int:run_id>/als-dokument/", api.AntwortAlsDokumentApi.as_view(), name="api-antwort-als-dokument"),
    path("drafts/<int:pk>/datei/<str:ausgabe>/", api.EntwurfDateiApi.as_view(), name="api-draft-datei"),
    path("dokumente/<int:pk>/datei/<str:ausgabe>/", api.DokumentDateiApi.as_view(), name="api-dokument-datei"),
    path("dokumente/<int:pk>/versionen/", api.VersionenApi.as_view(), name="api-dokument-versionen"),
    path("dokumente/<int:pk>/versionen/<int:nummer>/download/", api.VersionDownloadApi.as_view(), name="api-dokument-version"),
]

page_urlpatterns = [
    path("rechner/rvg/kostennote/", views.kostennote_entwurf, name="rechner-rvg-kostennote"),
]
