from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from agent.chat.urls import api_urlpatterns as runs_api
from akten.urls import api_urlpatterns as akten_api
from akten.urls import page_urlpatterns as akten_pages
from drafts.urls import api_urlpatterns as drafts_api
from drafts.urls import page_urlpatterns as drafts_pages
from recherche.urls import api_urlpatterns as recherche_api
from recherche.urls import page_urlpatterns as recherche_pages
from rechner.urls import page_urlpatterns as rechner_pages
from schriftgut.urls import api_urlpatterns as schriftgut_api
from schriftgut.urls import page_urlpatterns as schriftgut_pages

from .health import healthz, readyz
from .metrics import metrics
from .views import admin_login, akte_detail, login_view, start

admin.site.site_header = "Helena – Verwaltung"
admin.site.site_title = "Helena"
admin.site.index_title = "Kanzleiverwaltung"

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics, name="metrics"),
    path("anmelden/", login_view, name="login"),
    path("abmelden/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/login/", admin_login),
    path("admin/", admin.site.urls),
    path("api/", include([*akten_api, *drafts_api, *recherche_api, *schriftgut_api, *runs_api])),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # people: an anonymous visitor is sent to the login (and back), not shown a bare 403
    path(
        "api/docs/",
        # a page, not an API: OPTIONS would render DRF's metadata through a template it does not have (500)
        login_required(SpectacularSwaggerSplitView.as_view(url_name="api-schema", http_method_names=["get", "head"])),
        name="api-docs",
    ),
    path("", start, name="start"),
    path("akten/<int:pk>/", akte_detail, name="akte-detail"),
    *akten_pages,
    *drafts_pages,
    *recherche_pages,
    *rechner_pages,
    *schriftgut_pages,
    path("", include("agent.chat.urls")),
]

handler400 = "helena.views.error_400"
handler403 = "helena.views.error_403"
handler404 = "helena.views.error_404"
handler500 = "helena.views.error_500"
