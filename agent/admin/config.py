"""Admin for the engine's configuration: tiers (with a connection test), caps and timeouts, rate
limits, and the read-only log of every configuration change.

Only the ADMIN role (or a superuser) may change configuration; every add, change and delete is
recorded in ConfigChange with who, when, before and after.
"""

from __future__ import annotations

import asyncio
import datetime
import json
import time
from typing import Any

from asgiref.sync import async_to_sync
from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.forms.models import model_to_dict
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from django.utils import timezone
from django.utils.dateformat import format as date_format
from django.utils.dateparse import parse_datetime
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from agent.models import ConfigChange, EngineConfig, RateLimit, TierConfig

TEST_PROMPT = "Antworte nur mit dem Wort: bereit"
TEST_TIMEOUT_SECONDS = 30
MSG_TEST_OK = "Stufe {tier} ({model}): Antwort nach {ms} ms: „{answer}“"
MSG_TEST_FAILED = "Stufe {tier} ({model}): keine Antwort – {error}"
MSG_DEMO_STANDS_IN = (
    " Solange kein Modell antwortet, antwortet in Helena das eingebaute Demo-Modell: "
    "nur zum Ausprobieren, keine echte KI-Auskunft."
)
TASK_TYPE_LABELS = {
    "FRAGE": "Frage",
    "ENTWURF": "Entwurf",
    "PRUEFUNG": "Prüfung",
    "RECHERCHE": "Recherche",
    "VERGLEICH": "Vergleich",
    "SCHRIFTSATZ": "Schriftsatz",
}


def _snapshot(obj: Any) -> dict[str, Any]:
    data = model_to_dict(obj)
    data["id"] = obj.pk
    result: dict[str, Any] = json.loads(json.dumps(data, cls=DjangoJSONEncoder))
    return result


def config_change_record(*, user: Any, obj: Any, before: dict[str, Any], after: dict[str, Any]) -> ConfigChange:
    change = ConfigChange.of(user=user, obj=obj, before=before, after=after)
    change.full_clean()
    change.save()
    return change


class ConfigAuditAdmin(admin.ModelAdmin):
    """Changes only by ADMIN, each one recorded (in the same transaction as the change)."""

    def _is_admin(self, request: HttpRequest) -> bool:
        return bool(getattr(request.user, "is_admin_role", False) or request.user.is_superuser)

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._is_admin(request) or super().has_view_permission(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return self._is_admin(request) or super().has_module_permission(request)

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return self._is_admin(request)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._is_admin(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self._is_admin(request)

    @transaction.atomic
    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        before = {}
        if change and obj.pk is not None:
            previous = type(obj).objects.filter(pk=obj.pk).first()
            before = _snapshot(previous) if previous is not None else {}
        super().save_model(request, obj, form, change)
        after = _snapshot(obj)
        if before != after:
            config_change_record(user=request.user, obj=obj, before=before, after=after)

    @transaction.atomic
    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        config_change_record(user=request.user, obj=obj, before=_snapshot(obj), after={})
        super().delete_model(request, obj)

    @transaction.atomic
    def delete_queryset(self, request: HttpRequest, queryset: Any) -> None:
        for obj in queryset:
            config_change_record(user=request.user, obj=obj, before=_snapshot(obj), after={})
        super().delete_queryset(request, queryset)


async def _ask(client: Any) -> tuple[str, int]:
    started = time.monotonic()
    response = await asyncio.wait_for(
        client.chat([{"role": "user", "content": TEST_PROMPT}], tools=None), timeout=TEST_TIMEOUT_SECONDS
    )
    return (response.text or "").strip()[:80], round((time.monotonic() - started) * 1000)


def tier_connection_test(tier: TierConfig) -> tuple[bool, str]:
    """Call the tier's model once; (ok, German message with the answer time)."""
    from agent.runs.routes import client_for_tier

    try:
        answer, ms = async_to_sync(_ask)(client_for_tier(tier))
    except Exception as exc:
        failed = MSG_TEST_FAILED.format(tier=tier.tier, model=tier.model, error=str(exc)[:200] or type(exc).__name__)
        return False, failed + MSG_DEMO_STANDS_IN
    return True, MSG_TEST_OK.format(tier=tier.tier, model=tier.model, ms=ms, answer=answer)


PSEUDONYMIZE_CHOICES = [
    ("", "Standard: an bei Cloud-Modellen, aus bei lokalen Modellen"),
    ("true", "immer an"),
    ("false", "aus"),
]


def pseudonymize_in_force(tier: TierConfig) -> str:
    """What applies to `tier`, said explicitly (the stored value may be empty: the default)."""
    from agent.runs.routes import pseudonymize_tier

    state = "an" if pseudonymize_tier(tier) else "aus"
    if tier.pseudonymize is not None:
        return f"{state} (eigene Einstellung)"
    return f"{state} (Standard für {'Cloud-Modelle' if tier.is_cloud else 'lokale Modelle'})"


class TierConfigForm(forms.ModelForm):
    """The cloud task types as checkboxes with German names, not as JSON; the pseudonymisation with
    its default written out."""

    cloud_task_types = forms.MultipleChoiceField(
        label="Erlaubte Aufgabentypen (Cloud)",
        choices=list(TASK_TYPE_LABELS.items()),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        help_text="Keiner angehakt: alle Aufgabentypen dürfen diese Stufe nutzen.",
    )
    pseudonymize = forms.TypedChoiceField(
        label="Mandantendaten pseudonymisieren",
        choices=PSEUDONYMIZE_CHOICES,
        coerce=lambda value: value == "true",
        empty_value=None,
        required=False,
        help_text="Pseudonymisiert ersetzt Helena Namen, Anschriften, Kontaktdaten und fremde Aktenzeichen durch "
        "Platzhalter, bevor etwas an das Modell geht; die Antwort erhält die echten Werte zurück.",
    )

    class Meta:
        model = TierConfig
        fields = [f.name for f in TierConfig._meta.fields if f.editable and not f.primary_key]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        stored = self.instance.pseudonymize
        self.initial["pseudonymize"] = "" if stored is None else ("true" if stored else "false")
        if self.instance.pk is not None:
            field = self.fields["pseudonymize"]
            field.help_text = f"{field.help_text} Für diese Stufe gilt jetzt: {pseudonymize_in_force(self.instance)}."


@admin.register(TierConfig)
class TierConfigAdmin(ConfigAuditAdmin):
    form = TierConfigForm
    change_form_template = "admin/agent/tierconfig/change_form.html"
    list_display = [
        "tier",
        "name",
        "provider",
        "model",
        "base_url",
        "enabled",
        "is_cloud",
        "cloud_agreement_on_file",
        "pseudonymisierung",
    ]
    list_filter = ["enabled", "provider", "is_cloud"]
    actions = ["test_connection"]

    @admin.display(description="Pseudonymisierung")
    def pseudonymisierung(self, obj: TierConfig) -> str:
        return pseudonymize_in_force(obj)

    def get_urls(self) -> list[Any]:
        own = [
            path(
                "<path:object_id>/verbindung-testen/",
                self.admin_site.admin_view(self.test_connection_view),
                name="agent_tierconfig_test",
            )
        ]
        return own + super().get_urls()

    def test_connection_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The button on the tier's own form (POST): test, show the German result, back to the form."""
        if request.method != "POST" or not self._is_admin(request):
            raise PermissionDenied
        tier = get_object_or_404(TierConfig, pk=object_id)
        ok, text = tier_connection_test(tier)
        self.message_user(request, text, messages.SUCCESS if ok else messages.ERROR)
        return HttpResponseRedirect(reverse("admin:agent_tierconfig_change", args=[tier.pk]))

    @admin.action(description="Verbindung testen")
    def test_connection(self, request: HttpRequest, queryset: Any) -> None:
        for tier in queryset.order_by("tier"):
            ok, text = tier_connection_test(tier)
            self.message_user(request, text, messages.SUCCESS if ok else messages.ERROR)

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        if not self._is_admin(request):
            actions.pop("test_connection", None)
        return actions


@admin.register(EngineConfig)
class EngineConfigAdmin(ConfigAuditAdmin):
    list_display = [
        "__str__",
        "inline_max_steps",
        "inline_timeout_seconds",
        "background_max_steps",
        "background_timeout_seconds",
        "max_tokens_per_run",
        "llm_classifier",
    ]

    def has_add_permission(self, request: HttpRequest, *args: Any) -> bool:
        return self._is_admin(request) and not EngineConfig.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class RateLimitForm(forms.ModelForm):
    class Meta:
        model = RateLimit
        fields = ["role", "runs_per_hour"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        from agent.runs.ratelimit import DEFAULT_RUNS_PER_HOUR
        from akten.models import Role

        super().__init__(*args, **kwargs)
        defaults = ", ".join(f"{label} {DEFAULT_RUNS_PER_HOUR.get(code, '–')}" for code, label in Role.choices)
        self.fields["runs_per_hour"].help_text = f"Ohne eigene Einstellung gilt der Standard je Rolle: {defaults}."


@admin.register(RateLimit)
class RateLimitAdmin(ConfigAuditAdmin):
    form = RateLimitForm
    list_display = ["role", "runs_per_hour"]

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        """Above the list: the limit in force for every role, also where no row overrides the default."""
        from agent.runs.ratelimit import DEFAULT_RUNS_PER_HOUR, runs_per_hour
        from akten.models import Role

        overridden = set(RateLimit.objects.values_list("role", flat=True))
        in_force = [
            {
                "role": label,
                "limit": runs_per_hour(code),
                "source": "eigene Einstellung" if code in overridden else f"Standard ({DEFAULT_RUNS_PER_HOUR.get(code, '–')})",
            }
            for code, label in Role.choices
        ]
        from django.conf import settings

        other_limits = [
            {"what": what, "limit": getattr(settings, env), "env": env}
            for what, env in (
                ("Anmeldeversuche je IP-Adresse", "HELENA_RATELIMIT_LOGIN"),
                ("Schreibende API-Aufrufe je Benutzer", "HELENA_RATELIMIT_WRITE"),
            )
        ]
        context = {**(extra_context or {}), "limits_in_force": in_force, "other_limits": other_limits}
        return super().changelist_view(request, context)


def _readable(value: Any) -> str:
    if value is None or value == "":
        return "–"
    if isinstance(value, bool):
        return "ja" if value else "nein"
    if isinstance(value, str) and (moment := _iso_datetime(value)) is not None:
        # stored as UTC ISO text; shown like every other time of the admin (Europe/Berlin)
        return date_format(timezone.localtime(moment), "d.m.Y, H:i:s")
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "–"
    return str(value)


def _iso_datetime(text: str) -> datetime.datetime | None:
    try:
        moment = parse_datetime(text) if "T" in text else None
    except ValueError:
        return None
    return moment if moment is not None and timezone.is_aware(moment) else None


@admin.register(ConfigChange)
class ConfigChangeAdmin(admin.ModelAdmin):
    list_display = ["created_at", "user", "model", "object_repr"]
    list_filter = ["model", "created_at"]
    fields = ("user", "model", "object_repr", "created_at", "changes")
    readonly_fields = fields

    @admin.display(description="Änderungen (vorher → nachher)")
    def changes(self, obj: ConfigChange) -> SafeString:
        """One row per field that changed, with the field's German name; not two JSON blobs."""
        before, after = obj.before or {}, obj.after or {}
        names = [n for n in dict.fromkeys([*before, *after]) if before.get(n) != after.get(n)]
        labels = _field_labels(obj.model)
        rows = format_html_join(
            "",
            "<tr><th scope='row'>{}</th><td>{}</td><td>{}</td></tr>",
            ((labels.get(n, n), _readable(before.get(n)), _readable(after.get(n))) for n in names),
        )
        if not names:
            return format_html("<p>{}</p>", "Keine Feldänderung.")
        return format_html(
            "<table><thead><tr><th scope='col'>Feld</th><th scope='col'>vorher</th><th scope='col'>nachher</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            rows,
        )

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(getattr(request.user, "is_admin_role", False)) or super().has_view_permission(request, obj)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return bool(getattr(request.user, "is_admin_role", False)) or super().has_module_permission(request)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _field_labels(model_label: str) -> dict[str, str]:
    """German field names of the configuration model a change was made to ("agent.tierconfig")."""
    from django.apps import apps

    try:
        model = apps.get_model(model_label)
    except (LookupError, ValueError):
        return {}
    return {f.name: str(getattr(f, "verbose_name", f.name)) for f in model._meta.get_fields()}
