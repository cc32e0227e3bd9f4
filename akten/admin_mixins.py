"""Admin access follows the same rule as every other channel: client data only through
`Akte.objects.visible_to(request.user)`. A view permission opens the admin page, never more rows."""

import copy
import functools
from collections.abc import Callable, Iterable
from typing import Any

from django.apps import apps
from django.contrib import admin
from django.contrib.admin.utils import get_fields_from_path
from django.contrib.admin.widgets import AutocompleteSelect, AutocompleteSelectMultiple
from django.contrib.auth.models import Permission
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.forms import ModelChoiceField, ModelMultipleChoiceField
from django.forms.models import model_to_dict
from django.http import HttpRequest


def sees_all(request: HttpRequest) -> bool:
    """Superusers and the ADMIN role see every row (ADMIN sees every Akte anyway)."""
    user = request.user
    return bool(user.is_superuser or getattr(user, "is_admin_role", False))


ERR_VERKNUEPFT = "Verknüpfte Einträge, die du nicht alle sehen kannst, verhindern das Löschen."


class DeleteNamesVisibleOnlyMixin:
    """Django's delete confirmation (page and action) names every row the delete would take along or
    is blocked by, whatever the user may see: a Kontakt's parties in hidden Akten, a colleague's
    Akten. For a user who does not see everything it names only the rows chosen for deletion."""

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        to_delete, model_count, perms_needed, protected = super().get_deleted_objects(objs, request)  # type: ignore[misc]
        if sees_all(request):
            return to_delete, model_count, perms_needed, protected
        chosen = [str(obj) for obj in objs]
        return chosen, {}, perms_needed, [ERR_VERKNUEPFT] if protected else []


ERR_AUSWAHL = "Bitte wähle einen der angebotenen Einträge aus."
# One message for a value that is no id, an id that does not exist and one the user may not see:
# the answer never tells whether a hidden row exists.
RELATION_ERRORS = {"invalid_choice": ERR_AUSWAHL, "invalid_pk_value": ERR_AUSWAHL}


def readable_keys(db_field: Any, values: Iterable[Any]) -> list[Any]:
    """The `values` that the key of the relation's target can read ("12", not "abc" or "1x")."""
    target = db_field.remote_field.model._meta
    key = target.get_field(getattr(db_field.remote_field, "field_name", None) or target.pk.name)
    readable = []
    for value in values:
        try:
            key.to_python(value)
        except ValidationError:
            continue
        readable.append(value)
    return readable


class CheckedKeysAutocompleteMixin:
    """Django's autocomplete widget looks the submitted value up to show it again, unchecked: a
    tampered "abc" raised a ValueError (HTTP 500) instead of the form's field error. It shows only
    values that can be an id; the field itself refuses the rest with ERR_AUSWAHL."""

    field: Any

    def optgroups(self, name: str, value: Any, attr: Any = None) -> Any:
        return super().optgroups(name, readable_keys(self.field, value), attr)  # type: ignore[misc]


class CheckedAutocompleteSelect(CheckedKeysAutocompleteMixin, AutocompleteSelect):
    pass


class CheckedAutocompleteSelectMultiple(CheckedKeysAutocompleteMixin, AutocompleteSelectMultiple):
    pass


def relation_choices_checked(formfield_for: Callable[..., Any]) -> Callable[..., Any]:
    """Wraps `BaseModelAdmin.formfield_for_foreignkey` / `formfield_for_manytomany` (installed in
    helena/admin.py, so every admin form and inline, also one added later, gets it): the
    autocomplete widget that copes with a tampered value, and ERR_AUSWAHL for every wrong choice."""

    @functools.wraps(formfield_for)
    def checked(self: Any, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if "widget" not in kwargs and db_field.name in self.get_autocomplete_fields(request):
            widget = CheckedAutocompleteSelectMultiple if db_field.many_to_many else CheckedAutocompleteSelect
            kwargs["widget"] = widget(db_field, self.admin_site, using=kwargs.get("using"))
        kwargs["error_messages"] = {**RELATION_ERRORS, **kwargs.get("error_messages", {})}
        return formfield_for(self, db_field, request, **kwargs)

    return checked


def kontakt_choices(user: Any) -> Any:
    """The Kontakte a form may link to an Akte: those of visible Akten and those of no Akte yet (a
    Kontakt just created); never the parties of Akten the user cannot see."""
    from akten.models import Beteiligter, Kontakt

    return Kontakt.objects.filter(Q(pk__in=visible_kontakt_ids(user)) | ~Q(pk__in=Beteiligter.objects.values("kontakt_id")))


class VisibleKontaktChoicesMixin:
    """Kontakt choices in forms and inlines (a Beteiligter's Kontakt) are `kontakt_choices`; a hidden
    Kontakt's id sent anyway is refused by the form."""

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        from akten.models import Kontakt

        if db_field.related_model is Kontakt and not sees_all(request):
            kwargs["queryset"] = kontakt_choices(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]


class AdminOnlyChangesMixin:
    """Who may act for whom and with which rights (accounts, roles, Vertretungen, Dezernate, groups)
    is changed only by ADMIN and superusers; a view permission still shows it. Otherwise a holder of
    the change permission could make herself ADMIN or deputy of anyone."""

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return sees_all(request) and super().has_add_permission(request, *args)  # type: ignore[misc]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return sees_all(request) and super().has_change_permission(request, obj)  # type: ignore[misc]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return sees_all(request) and super().has_delete_permission(request, obj)  # type: ignore[misc]


class StaffUserChoicesAdminMixin:
    """User choices in admin forms (verantwortlich, Autor/in, Mitglieder, Vertreter/in …) offer no
    MANDANT accounts: her name and e-mail are client data, shown only as a party of a visible Akte,
    and no such field is hers to fill. The value already stored in the edited row stays selectable,
    so the form still saves."""

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        from akten.models import Role, User

        form = super().get_form(request, obj, change=change, **kwargs)  # type: ignore[misc]
        user_fields = [
            name
            for name, field in form.base_fields.items()
            if isinstance(field, ModelChoiceField) and field.queryset is not None and field.queryset.model is User
        ]
        stored = model_to_dict(obj, fields=user_fields) if obj is not None else {}
        for name in user_fields:
            kept = stored.get(name)  # a user id, or the users of a many-to-many field
            kept_ids = [user.pk for user in kept] if isinstance(kept, list) else [kept]
            # a copy: fields declared on a form class are shared by every form built from it
            field = form.base_fields[name] = copy.deepcopy(form.base_fields[name])
            field.queryset = field.queryset.filter(~Q(role=Role.MANDANT) | Q(pk__in=kept_ids))
        return form


class VisibleToAdminMixin(DeleteNamesVisibleOnlyMixin, VisibleKontaktChoicesMixin, StaffUserChoicesAdminMixin):
    """Admin lists and detail pages reach data only through the model's `visible_to(user)`,
    except for superusers; Akte choices in forms are limited to the visible Akten, user choices to
    staff accounts."""

    def get_queryset(self, request: HttpRequest) -> Any:
        qs = super().get_queryset(request)  # type: ignore[misc]
        if request.user.is_superuser:
            return qs
        return qs.visible_to(request.user)

    def get_list_filter(self, request: HttpRequest) -> Any:
        """Filters on relations offer only the values of visible rows (a plain relation filter lists
        every row of the related table: every user, every Kontakt)."""
        return [
            (name, admin.RelatedOnlyFieldListFilter)
            if isinstance(name, str) and get_fields_from_path(self.model, name)[-1].is_relation  # type: ignore[attr-defined]
            else name
            for name in super().get_list_filter(request)  # type: ignore[misc]
        ]

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        from akten.models import Akte

        if db_field.related_model is Akte and not request.user.is_superuser:
            kwargs["queryset"] = Akte.objects.visible_to(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)  # type: ignore[misc]


def visible_kontakt_ids(user: Any) -> Any:
    """Ids of the Kontakte that are parties of an Akte `user` may see (a subquery)."""
    from akten.models import Beteiligter

    return Beteiligter.objects.visible_to(user).values("kontakt_id")


class VisibleKontaktAdminMixin(DeleteNamesVisibleOnlyMixin):
    """A Kontakt is client data: shown only if it is a party of a visible Akte (ADMIN: all)."""

    def get_queryset(self, request: HttpRequest) -> Any:
        qs = super().get_queryset(request)  # type: ignore[misc]
        return qs if sees_all(request) else qs.filter(pk__in=visible_kontakt_ids(request.user))


class VisibleUserAdminMixin(DeleteNamesVisibleOnlyMixin):
    """Staff accounts are no client data; a MANDANT's account (name, e-mail, Kontakt) is, and is
    shown only if her Kontakt is a party of a visible Akte (ADMIN: all)."""

    def get_queryset(self, request: HttpRequest) -> Any:
        from akten.models import Role

        qs = super().get_queryset(request)  # type: ignore[misc]
        if sees_all(request):
            return qs
        return qs.filter(~Q(role=Role.MANDANT) | Q(kontakt_id__in=visible_kontakt_ids(request.user)))

    def get_search_results(self, request: HttpRequest, queryset: Any, search_term: str) -> Any:
        """The user autocomplete fills staff fields (Anwalt, Sachbearbeitung, Vertretung): no MANDANT
        accounts, also not those of visible Akten (see StaffUserChoicesAdminMixin)."""
        from akten.models import Role

        qs, may_have_duplicates = super().get_search_results(request, queryset, search_term)  # type: ignore[misc]
        match = request.resolver_match
        if match is not None and match.view_name == f"{self.admin_site.name}:autocomplete":  # type: ignore[attr-defined]
            qs = qs.exclude(role=Role.MANDANT)
        return qs, may_have_duplicates


PERMISSION_ACTIONS = {"add": "anlegen", "change": "ändern", "delete": "löschen", "view": "ansehen"}


def permission_label(permission: Permission) -> str:
    """„Akten | Akte | darf ändern“ instead of Django's stored English „Can change Akte“."""
    model = permission.content_type.model_class()
    if model is None:
        return str(permission)
    action = permission.codename.split("_", 1)[0]
    what = PERMISSION_ACTIONS.get(action)
    name = f"darf {what}" if what else permission.name
    return f"{apps.get_app_config(model._meta.app_label).verbose_name} | {model._meta.verbose_name} | {name}"


class GermanPermissionField(ModelMultipleChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        return permission_label(obj)


class GermanPermissionsMixin:
    """Permission lists (groups, users) with German names."""

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest | None = None, **kwargs: Any) -> Any:
        if db_field.related_model is Permission:
            kwargs.setdefault("form_class", GermanPermissionField)
        return super().formfield_for_manytomany(db_field, request, **kwargs)  # type: ignore[misc]
