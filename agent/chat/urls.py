from django.urls import path

from agent.chat import api, views

api_urlpatterns = [
    path("auftraege/", api.RunListApi.as_view(), name="api-run-list"),
    path("auftraege/<int:pk>/", api.RunDetailApi.as_view(), name="api-run-detail"),
]

urlpatterns = [
    path("helena/", views.chat, name="helena-chat"),
    path("helena/gespraeche/neu/", views.conversation_new, name="helena-conversation-new"),
    path("helena/gespraeche/<int:pk>/", views.chat, name="helena-conversation"),
    path("helena/gespraeche/<int:pk>/umbenennen/", views.conversation_rename, name="helena-conversation-rename"),
    path("helena/gespraeche/<int:pk>/loeschen/", views.conversation_delete, name="helena-conversation-delete"),
    path("helena/auftraege/<int:pk>/bewertung/", views.answer_feedback, name="helena-answer-feedback"),
    path("helena/benachrichtigungen/", views.notification_list, name="helena-notifications"),
    path("helena/benachrichtigungen/anzahl/", views.notification_count, name="helena-notification-count"),
    path("helena/auftraege/", views.run_list, name="helena-runs"),
    path("helena/auftraege/<int:pk>/abbrechen/", views.run_cancel, name="helena-run-cancel"),
    path("akten/<int:pk>/notizen/neu/", views.akte_note_create, name="akte-note-create"),
]
