from typing import Any

from django.http import HttpRequest


class VisibleToAdminMixin:
    """Admin lists and detail pages reach data only through the model's `visible_to(user)`,
    except for superusers; Akte choices in forms are limited to the visible Akten."""

    def get_queryset(self, request: HttpRequest) -> Any:
        qs = super().get_queryset(request)  # type: ignore[misc]
        if request.user.is_superuser:
            return qs
        return qs.visible_to(request.user)

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        from akten.models import Akte

        if db_field.related_model is Akte and not request.user.is_superuser:
            kwargs["queryset"] = Akte.objects.visible_to(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]
