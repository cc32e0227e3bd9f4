from django.urls import path

from . import api, views

api_urlpatterns = [
    path("drafts/", api.DraftListApi.as_view(), name="api-draft-list"),
    path("drafts/<int:pk>/", api.DraftDetailApi.as_view(), name="api-draft-detail"),
    path("drafts/<int:pk>/accept/", api.DraftAcceptApi.as_view(), name="api-draft-accept"),
    path("drafts/<int:pk>/reject/", api.DraftRejectApi.as_view(), name="api-draft-reject"),
    path("drafts/<int:pk>/undo/", api.DraftUndoApi.as_view(), name="api-draft-undo"),
    path("alerts/", api.AlertListApi.as_view(), name="api-alert-list"),
    path("alerts/<int:pk>/", api.AlertDetailApi.as_view(), name="api-alert-detail"),
    path("alerts/<int:pk>/read/", api.AlertReadApi.as_view(), name="api-alert-read"),
    path("alerts/<int:pk>/dismiss/", api.AlertDismissApi.as_view(), name="api-alert-dismiss"),
]

page_urlpatterns = [
    path("akten/<int:pk>/nachricht/", views.mandant_message_send, name="mandant-message-send"),
]
