"""ASGI entry point for daphne: HTTP through Django, the chat websocket through Channels."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from agent.chat.routing import websocket_urlpatterns  # noqa: E402
from agent.runs.orphans import orphan_sweeper_start  # noqa: E402
from helena.access_log import AccessLogMiddleware  # noqa: E402

# A web process sweeps orphaned runs too: a run of a dead worker ends even with no worker left.
orphan_sweeper_start()

# The one access log (path without query string, status, duration, user id): helena/access_log.py.
application = AccessLogMiddleware(
    ProtocolTypeRouter(
        {
            "http": django_asgi_app,
            "websocket": AllowedHostsOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
        }
    ),
    websocket_patterns=websocket_urlpatterns,
)
