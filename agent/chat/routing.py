from django.urls import path

from agent.chat.consumers import ChatConsumer

websocket_urlpatterns = [
    path("ws/helena/", ChatConsumer.as_asgi()),
]
