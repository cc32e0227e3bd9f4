from django.urls import path

from . import api, views

api_urlpatterns = [
    path("recherche/normen/", api.NormSearchApi.as_view(), name="api-search-normen"),
    path("recherche/urteile/", api.UrteilSearchApi.as_view(), name="api-search-urteile"),
    path("recherche/muster/", api.MusterSearchApi.as_view(), name="api-search-muster"),
    path("recherche/dokumente/", api.DokumentSearchApi.as_view(), name="api-search-dokumente"),
]

page_urlpatterns = [
    path("recherche/", views.recherche, name="recherche"),
    path("recherche/normen/<int:pk>/", views.norm_detail, name="norm-detail"),
    path("recherche/normen/<int:pk>/panel/", views.norm_panel, name="norm-panel"),
    path("recherche/urteile/<int:pk>/", views.urteil_detail, name="urteil-detail"),
    path("recherche/muster/<int:pk>/", views.muster_detail, name="muster-detail"),
]
