from typing import Any

from django import template

from agent.chat.cards import draft_card

register = template.Library()


@register.filter(name="draft_cards")
def draft_cards_filter(drafts: Any, viewer: Any) -> list[dict[str, Any]]:
    """Draft cards (see agent.cards) for a queryset the view has already scoped to `viewer`."""
    return [draft_card(d, viewer=viewer) for d in drafts.select_related("akte", "result_content_type")]
