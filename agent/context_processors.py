"""Template context of the navigation: the number of unread notifications (staff only)."""

from typing import Any

from django.http import HttpRequest

from akten.policy import is_mandant


def notifications(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or is_mandant(user):
        return {}
    from agent.chat.notifications import unread_count

    return {"unread_notifications": unread_count(user=user)}
