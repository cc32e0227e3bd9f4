from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from akten.urls import api_urlpatterns as akten_api
from akten.urls import page_urlpatterns as akten_pages
from drafts.urls import api_urlpatterns as drafts_api
from recherche.urls import api_urlpatterns as recherche_api
from recherche.urls import page_urlpatterns as recherche_pages
from rechner.urls import page_urlpatterns as rechner_pages
from schriftgut.urls import api_urlpatterns as schriftgut_api
from schriftgut.urls import page_urlpatterns as schriftgut_pages

from .views import login_view

admin.site.site_header = "Helena – Verwaltung"
admin.site.site_title = "Helena"
admin.site.index_title = "Kanzleiverwaltung"

urlpatterns = [
    path("anmelden/", login_view, name="login"),
    path("abmelden/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/login/", login_view),
    path("admin/", admin.site.urls),
    path("api/", include([*akten_api, *drafts_api, *recherche_api, *schriftgut_api])),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    *akten_pages,
    *recherche_pages,
    *rechner_pages,
    *schriftgut_pages,
    path("", include("agent.urls")),
]
