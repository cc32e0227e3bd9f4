"""The websocket route (helena/asgi.py mounts it; the browser gets the path from `helena_client`)."""

from django.urls import path

from agent.chat.consumers import ChatConsumer

WS_PATH = "/ws/helena/"

websocket_urlpatterns = [
    path(WS_PATH.lstrip("/"), ChatConsumer.as_asgi()),
]
