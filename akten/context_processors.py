"""Template context every page needs from the access policy."""

from typing import Any

from django.http import HttpRequest

from .policy import is_mandant


def access(request: HttpRequest) -> dict[str, Any]:
    return {"is_mandant": is_mandant(getattr(request, "user", None))}
