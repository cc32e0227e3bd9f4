from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import json_script
from django.utils.safestring import SafeString

from agent.chat.cards import draft_card, with_open_citations
from agent.chat.routing import WS_PATH
from agent.engine.events import client_config
from agent.models import AgentRun
from akten.models import User
from helena.icons import ICONS

register = template.Library()


@register.filter(name="draft_cards")
def draft_cards_filter(drafts: Any, viewer: User) -> list[dict[str, Any]]:
    """Draft cards (see agent.chat.cards) for a queryset the view has already scoped to `viewer`."""
    return with_open_citations([draft_card(d, viewer=viewer) for d in drafts.select_related("akte", "result_content_type")])


@register.simple_tag
def helena_client() -> SafeString:
    """The JSON script "helena-client" that static/js/helena-socket.js reads: socket path, terminal
    events, German status labels, the continuation offer and the SVG icon paths, defined once on the server."""
    config = client_config(ws_path=WS_PATH) | {
        "status_labels": {code: str(label) for code, label in AgentRun.Status.choices},
        "icons": ICONS,
        # page of a cited record: the URL with "/0/" standing for the record's id
        "source_pages": {
            "akten_akte": reverse("akte-detail", args=[0]),
            "akten_dokument": reverse("api-dokument-download", args=[0]),
            "recherche_norm": reverse("norm-detail", args=[0]),
            "recherche_urteil": reverse("urteil-detail", args=[0]),
            "recherche_muster": reverse("muster-detail", args=[0]),
        },
    }
    return json_script(config, "helena-client")
