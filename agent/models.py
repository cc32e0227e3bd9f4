"""Helena's runs, their events, conversations and the admin-editable configuration of the engine.

The engine core (agent/engine/) is plain async Python; these models are what the
Django side persists around it: every run with its honest final status, every event in order
(so a reconnecting browser can replay), every tool call (audit), and the configuration that
admins edit (tiers, caps, rate limits, the role × tool matrix).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.postgres.expressions import ArraySubquery
from django.contrib.postgres.fields import ArrayField
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from akten.models import Akte, Role, access_scope, access_scope_reused

CLOUD_NEEDS_AGREEMENT = _("Ein Cloud-Modell darf nur mit Vereinbarung (§ 43e BRAO / Art. 28 DSGVO) aktiv sein.")


class Conversation(models.Model):
    """A chat thread of one user, optionally about one Akte."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("Benutzer"), on_delete=models.CASCADE, related_name="conversations"
    )
    # PROTECT, not SET_NULL: a null Akte means "general", which its user may see whatever Akten they
    # reach; deleting the Akte would have given back what it hid (an ended Vertretung, a mandate).
    # The runs and conversations that hold its content go first (admin), then the Akte.
    akte = models.ForeignKey(
        Akte, verbose_name=_("Akte"), on_delete=models.PROTECT, null=True, blank=True, related_name="conversations"
    )
    title = models.CharField(_("Titel"), max_length=200, default="Neues Gespräch")
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)
    updated_at = models.DateTimeField(_("zuletzt aktiv"), auto_now=True)

    class Meta:
        verbose_name = _("Gespräch")
        verbose_name_plural = _("Gespräche")
        ordering = ["-updated_at", "-pk"]

    def __str__(self) -> str:
        return f"Gespräch {self.pk}: {self.title}"


class Message(models.Model):
    """One turn of a conversation: the user's question or Helena's final answer."""

    class Role(models.TextChoices):
        USER = "USER", _("Benutzer")
        ASSISTANT = "ASSISTANT", _("Helena")

    conversation = models.ForeignKey(Conversation, verbose_name=_("Gespräch"), on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(_("Rolle"), max_length=10, choices=Role.choices)
    text = models.TextField(_("Text"))
    # CASCADE: the question and answer of a run go with it. SET_NULL left its answer as a turn of no
    # run, which everyone who sees the conversation sees, also whoever the run's reads hide it from.
    run = models.ForeignKey(
        "AgentRun", verbose_name=_("Lauf"), on_delete=models.CASCADE, null=True, blank=True, related_name="messages"
    )
    created_at = models.DateTimeField(_("Zeitpunkt"), auto_now_add=True)

    class Meta:
        verbose_name = _("Nachricht")
        verbose_name_plural = _("Nachrichten")
        ordering = ["conversation", "created_at", "pk"]

    def __str__(self) -> str:
        return f"{self.get_role_display()} in Gespräch {self.conversation_id}"


class AnswerFeedback(models.Model):
    """A user's verdict on one of Helena's answers to them (for evaluation; one per answer and user)."""

    class Rating(models.TextChoices):
        UP = "UP", _("hilfreich")
        DOWN = "DOWN", _("nicht hilfreich")

    message = models.ForeignKey(Message, verbose_name=_("Antwort"), on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("Benutzer"), on_delete=models.CASCADE, related_name="answer_feedback"
    )
    rating = models.CharField(_("Bewertung"), max_length=4, choices=Rating.choices)
    comment = models.TextField(_("Kommentar"), blank=True, max_length=2000)
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)
    updated_at = models.DateTimeField(_("geändert"), auto_now=True)

    class Meta:
        verbose_name = _("Bewertung einer Antwort")
        verbose_name_plural = _("Bewertungen von Antworten")
        ordering = ["-updated_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["message", "user"],
                name="answer_feedback_once_per_user",
                violation_error_message=_("Diese Person hat die Antwort schon bewertet."),
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_rating_display()} zu Antwort {self.message_id}"


class NotificationCursor(models.Model):
    """Until when a user has seen their notifications (finished background runs, new drafts)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, verbose_name=_("Benutzer"), on_delete=models.CASCADE, related_name="notification_cursor"
    )
    seen_at = models.DateTimeField(_("gelesen bis"))

    class Meta:
        verbose_name = _("Lesestand der Benachrichtigungen")
        verbose_name_plural = _("Lesestände der Benachrichtigungen")

    def __str__(self) -> str:
        return f"gelesen bis {self.seen_at:%d.%m.%Y %H:%M}"


class AgentRun(models.Model):
    class Mode(models.TextChoices):
        INLINE = "INLINE", _("Inline")
        BACKGROUND = "BACKGROUND", _("Hintergrund")

    class Status(models.TextChoices):
        PENDING = "PENDING", _("wartet")
        RUNNING = "RUNNING", _("läuft")
        DONE = "DONE", _("fertig")
        CAP_REACHED = "CAP_REACHED", _("Schrittlimit erreicht")
        TIMEOUT = "TIMEOUT", _("Zeitlimit erreicht")
        STALLED = "STALLED", _("festgefahren")
        CANCELLED = "CANCELLED", _("abgebrochen")
        FAILED = "FAILED", _("fehlgeschlagen")
        RATE_LIMITED = "RATE_LIMITED", _("Anfragelimit erreicht")

    ACTIVE_STATUSES = ("PENDING", "RUNNING")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("Benutzer"), on_delete=models.PROTECT, related_name="agent_runs"
    )
    akte = models.ForeignKey(  # PROTECT: see Conversation.akte
        "akten.Akte", verbose_name=_("Akte"), on_delete=models.PROTECT, null=True, blank=True, related_name="agent_runs"
    )
    conversation = models.ForeignKey(
        Conversation, verbose_name=_("Gespräch"), on_delete=models.SET_NULL, null=True, blank=True, related_name="runs"
    )
    task = models.TextField(_("Auftrag"), blank=True)
    task_type = models.CharField(_("Aufgabentyp"), max_length=20, blank=True)
    mode = models.CharField(_("Modus"), max_length=10, choices=Mode.choices, default=Mode.INLINE)
    status = models.CharField(_("Status"), max_length=12, choices=Status.choices, default=Status.PENDING)
    finish_reason = models.CharField(_("Grund des Endes"), max_length=200, blank=True)
    error = models.TextField(_("Fehlermeldung"), blank=True)
    answer = models.TextField(_("Antwort"), blank=True)
    tier = models.PositiveSmallIntegerField(_("Stufe"), null=True, blank=True)
    model_name = models.CharField(_("Modell"), max_length=200, blank=True)
    max_steps = models.PositiveSmallIntegerField(_("Schrittlimit"), default=5)
    timeout_seconds = models.PositiveIntegerField(_("Zeitlimit (s)"), default=30)
    steps_used = models.PositiveSmallIntegerField(_("Schritte"), default=0)
    model_calls = models.PositiveIntegerField(_("Modellaufrufe"), default=0)
    tool_calls = models.PositiveIntegerField(_("Werkzeugaufrufe"), default=0)
    tokens_in = models.PositiveIntegerField(_("Tokens (Eingabe)"), default=0)
    tokens_out = models.PositiveIntegerField(_("Tokens (Ausgabe)"), default=0)
    # The engine's transcript (messages as sent to the model), kept so that a run at the inline
    # cap can continue in the background from exactly where it stopped.
    transcript = models.JSONField(_("Verlauf für das Modell"), default=list, blank=True)
    # Whether the run read text of others (a fenced tool result), kept when its trace is pruned
    # (prune_run_traces): a later run of the conversation starts flagged (agent/runs/execution.py).
    read_untrusted = models.BooleanField(_("las ungeprüfte Texte"), default=False)
    cancel_requested = models.BooleanField(_("Abbruch angefordert"), default=False)
    continued_from = models.ForeignKey(
        "self",
        verbose_name=_("fortgesetzt aus"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="continuations",
    )
    worker_id = models.CharField(_("Worker"), max_length=100, blank=True)
    heartbeat_at = models.DateTimeField(_("letztes Lebenszeichen"), null=True, blank=True)
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)
    started_at = models.DateTimeField(_("gestartet"), null=True, blank=True)
    finished_at = models.DateTimeField(_("beendet"), null=True, blank=True)

    class Meta:
        verbose_name = _("Helena-Lauf")
        verbose_name_plural = _("Helena-Läufe")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["PENDING", "RUNNING"]) | Q(finished_at__isnull=False),
                name="agentrun_finished_has_timestamp",
                violation_error_message=_("Ein beendeter Lauf braucht den Zeitpunkt seines Endes."),
            ),
            models.CheckConstraint(
                condition=Q(tier__isnull=True) | Q(tier__in=[1, 2, 3]),
                name="agentrun_tier_valid",
                violation_error_message=_("Die Modellstufe muss 1, 2 oder 3 sein."),
            ),
        ]
        indexes = [
            # the queue of background runs waiting for a worker (their positions, agent/runs/selectors.py)
            models.Index(fields=["created_at", "id"], name="agentrun_queued", condition=Q(status="PENDING", mode="BACKGROUND")),
            # the runs created since the last look of a web process's announcer (agent/chat/announcements.py)
            models.Index(fields=["created_at"], name="agentrun_created"),
        ]

    def __str__(self) -> str:
        return f"Lauf {self.pk} ({self.get_status_display()})"

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE_STATUSES


class AgentStep(models.Model):
    """One event of a run, in order (`seq` increases per run). Persisted before it is sent."""

    run = models.ForeignKey(AgentRun, verbose_name=_("Lauf"), on_delete=models.CASCADE, related_name="steps")
    seq = models.PositiveIntegerField(_("Reihenfolge"))
    type = models.CharField(_("Ereignis"), max_length=40)
    payload = models.JSONField(_("Inhalt"), default=dict)
    created_at = models.DateTimeField(_("Zeitpunkt"), auto_now_add=True)

    class Meta:
        verbose_name = _("Schritt")
        verbose_name_plural = _("Schritte")
        ordering = ["run", "seq"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "seq"],
                name="agentstep_seq_unique",
                violation_error_message=_("Diese Schrittnummer gibt es in dem Lauf schon."),
            )
        ]

    def __str__(self) -> str:
        return f"Lauf {self.run_id} #{self.seq} {self.type}"


class ToolCallAuditQuerySet(models.QuerySet["ToolCallAudit"]):
    def showing_hidden_akten(self, user: Any) -> ToolCallAuditQuerySet:
        """Calls whose result showed an Akte `user` may not see now: on one Akte (`akte`), or a
        search across Akten (`akten`) that listed one. What such a call read can be repeated by its
        run's answer, drafts and alerts (agent/runs/selectors.py, drafts.models). Resolves the
        user's access once (with the caller's `access_scope_reused`, not at all)."""
        with access_scope_reused():
            scope = access_scope(user)
            if scope.everything:
                return self.none()
            if scope.nothing:  # every Akte is hidden (an empty `visible` would match nothing)
                return self.filter(Q(akte__isnull=False) | ~Q(akten=[]))
            visible = Akte.objects.visible_to(user).order_by().values("pk")
        on_visible = Q(akte__isnull=True) | Q(akte__in=visible)
        return self.filter(~on_visible | ~Q(akten__contained_by=ArraySubquery(visible)))


class ToolCallAudit(models.Model):
    """One row per executed tool call (cache hits included). Never holds document text."""

    run = models.ForeignKey(
        AgentRun, verbose_name=_("Lauf"), on_delete=models.CASCADE, null=True, blank=True, related_name="audits"
    )
    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("Benutzer"), on_delete=models.PROTECT, related_name="+")
    # PROTECT: see Conversation.akte (a run that read the Akte would be shown again to whoever ran it)
    akte = models.ForeignKey(Akte, verbose_name=_("Akte"), on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    # A search across Akten (no one `akte`): the ids of the Akten its result showed. Who may no
    # longer see one of them no longer sees the call, nor the run that made it (agent/runs/selectors.py).
    akten = ArrayField(models.BigIntegerField(), verbose_name=_("Akten im Ergebnis"), default=list, blank=True, editable=False)
    tool = models.CharField(_("Werkzeug"), max_length=60)
    call_id = models.CharField(_("Aufruf-ID"), max_length=100, blank=True)
    arguments = models.JSONField(_("Argumente (kanonisch)"), default=dict)
    summary = models.CharField(_("Ergebnis (kurz)"), max_length=200, blank=True)
    ok = models.BooleanField(_("erfolgreich"), default=True)
    cached = models.BooleanField(_("aus Zwischenspeicher"), default=False)
    duration_ms = models.PositiveIntegerField(_("Dauer (ms)"), default=0)
    created_at = models.DateTimeField(_("Zeitpunkt"), auto_now_add=True)

    objects = ToolCallAuditQuerySet.as_manager()

    class Meta:
        verbose_name = _("Werkzeugaufruf")
        verbose_name_plural = _("Werkzeugaufrufe (Audit)")
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["tool", "created_at"]), models.Index(fields=["user", "created_at"])]

    def __str__(self) -> str:
        run = f"Lauf {self.run_id}" if self.run_id else "ohne Lauf"
        return f"{self.tool} ({'erfolgreich' if self.ok else 'Fehler'}), {run}"


class ToolPermission(models.Model):
    """The role × tool matrix: a row per (role, tool); a missing row means not allowed."""

    role = models.CharField(_("Rolle"), max_length=20, choices=Role.choices)
    tool = models.CharField(_("Werkzeug"), max_length=60)
    allowed = models.BooleanField(_("erlaubt"), default=False)

    class Meta:
        verbose_name = _("Werkzeugrecht")
        verbose_name_plural = _("Rollen × Werkzeuge")
        ordering = ["tool", "role"]
        constraints = [
            models.UniqueConstraint(
                fields=["role", "tool"],
                name="toolpermission_unique",
                violation_error_message=_("Für diese Rolle und dieses Werkzeug gibt es schon einen Eintrag."),
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_role_display()} · {self.tool}: {'ja' if self.allowed else 'nein'}"


class TierConfig(models.Model):
    """A model tier: 1 small local, 2 big local, 3 cloud (opt-in, needs a signed agreement)."""

    class Provider(models.TextChoices):
        OLLAMA = "OLLAMA", _("Ollama")
        OPENAI = "OPENAI", _("OpenAI-kompatibel")

    tier = models.PositiveSmallIntegerField(_("Stufe"), unique=True, validators=[MinValueValidator(1), MaxValueValidator(3)])
    name = models.CharField(_("Bezeichnung"), max_length=100)
    provider = models.CharField(_("Anbieter"), max_length=10, choices=Provider.choices, default=Provider.OLLAMA)
    model = models.CharField(_("Modell"), max_length=200)
    base_url = models.CharField(
        _("Basis-URL"), max_length=300, blank=True, help_text=_("Leer bei Ollama: die Adresse aus OLLAMA_HOST.")
    )
    api_key_env = models.CharField(
        _("Umgebungsvariable des API-Schlüssels"),
        max_length=100,
        blank=True,
        help_text=_("Der Schlüssel selbst steht nie in der Datenbank."),
    )
    context_window = models.PositiveIntegerField(_("Kontextfenster (Tokens)"), default=8192)
    timeout_seconds = models.PositiveIntegerField(_("Zeitlimit je Anfrage (s)"), default=60)
    enabled = models.BooleanField(_("aktiv"), default=False)
    is_cloud = models.BooleanField(_("Cloud-Modell"), default=False)
    cloud_agreement_on_file = models.BooleanField(_("Vereinbarung nach § 43e BRAO / Art. 28 DSGVO liegt vor"), default=False)
    cloud_task_types = models.JSONField(
        _("erlaubte Aufgabentypen (Cloud)"),
        default=list,
        blank=True,
        help_text=_('Leer: alle Aufgaben. Sonst z. B. ["SCHRIFTSATZ"].'),
    )
    pseudonymize = models.BooleanField(
        _("Mandantendaten pseudonymisieren"),
        null=True,
        blank=True,
        default=None,
        help_text=_("Leer: an für Cloud-Modelle, aus für lokale."),
    )
    updated_at = models.DateTimeField(_("geändert"), auto_now=True)

    class Meta:
        verbose_name = _("Modellstufe")
        verbose_name_plural = _("Modellstufen")
        ordering = ["tier"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(enabled=True, is_cloud=True, cloud_agreement_on_file=False),
                name="tier_cloud_needs_agreement",
                violation_error_message=_("Ein Cloud-Modell darf nur mit Vereinbarung (§ 43e BRAO / Art. 28 DSGVO) aktiv sein."),
            ),
            models.CheckConstraint(
                condition=Q(tier__gte=1, tier__lte=3),
                name="tier_range",
                violation_error_message=_("Die Stufe muss 1, 2 oder 3 sein."),
            ),
        ]

    def __str__(self) -> str:
        return f"Stufe {self.tier}: {self.name} ({self.model})"

    def clean(self) -> None:
        if self.enabled and self.is_cloud and not self.cloud_agreement_on_file:
            raise ValidationError(
                {
                    "cloud_agreement_on_file": _(
                        "Ein Cloud-Modell darf nur mit Vereinbarung (§ 43e BRAO / Art. 28 DSGVO) aktiv sein."
                    )
                }
            )


class EngineConfig(models.Model):
    """Caps and switches of the engine; one row (pk=1), created with the defaults on first use."""

    inline_max_steps = models.PositiveSmallIntegerField(_("Schrittlimit inline"), default=5, validators=[MinValueValidator(1)])
    inline_timeout_seconds = models.PositiveIntegerField(_("Zeitlimit inline (s)"), default=30, validators=[MinValueValidator(1)])
    background_max_steps = models.PositiveSmallIntegerField(
        _("Schrittlimit Hintergrund"), default=20, validators=[MinValueValidator(1)]
    )
    background_timeout_seconds = models.PositiveIntegerField(
        _("Zeitlimit Hintergrund (s)"), default=180, validators=[MinValueValidator(1)]
    )
    max_tokens_per_run = models.PositiveIntegerField(_("Tokenlimit je Lauf"), default=200_000)
    llm_classifier = models.BooleanField(_("LLM-Klassifikator (Stufe 1) statt Regeln"), default=False)
    updated_at = models.DateTimeField(_("geändert"), auto_now=True)

    class Meta:
        verbose_name = _("Engine-Einstellungen")
        verbose_name_plural = _("Engine-Einstellungen")

    def __str__(self) -> str:
        return "Engine-Einstellungen"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.pk = 1
        super().save(*args, **kwargs)

    @classmethod
    def load(cls) -> EngineConfig:
        obj, _created = cls.objects.get_or_create(pk=1)
        return obj


class RateLimit(models.Model):
    """Runs per user per hour, per role."""

    role = models.CharField(_("Rolle"), max_length=20, choices=Role.choices, unique=True)
    runs_per_hour = models.PositiveIntegerField(_("Läufe je Stunde"))

    class Meta:
        verbose_name = _("Anfragelimit")
        verbose_name_plural = _("Anfragelimits")
        ordering = ["role"]

    def __str__(self) -> str:
        return f"{self.get_role_display()}: {self.runs_per_hour}/h"


class ConfigChange(models.Model):
    """Who changed which configuration row, when, from what to what."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, verbose_name=_("Benutzer"), on_delete=models.PROTECT, related_name="+")
    model = models.CharField(_("Bereich"), max_length=60)
    object_repr = models.CharField(_("Objekt"), max_length=200)
    before = models.JSONField(_("vorher"), default=dict, blank=True)
    after = models.JSONField(_("nachher"), default=dict, blank=True)
    created_at = models.DateTimeField(_("Zeitpunkt"), auto_now_add=True)

    class Meta:
        verbose_name = _("Konfigurationsänderung")
        verbose_name_plural = _("Konfigurationsänderungen")
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.model} {self.object_repr} ({self.created_at:%d.%m.%Y %H:%M})"

    @classmethod
    def of(
        cls, *, user: Any, obj: models.Model, before: dict[str, Any], after: dict[str, Any], object_repr: str = ""
    ) -> ConfigChange:
        """The (unsaved) record of one change of the configuration row `obj` by `user`: the admin
        saves it with the change, the tool matrix writes its changes in one bulk insert."""
        return cls(user=user, model=obj._meta.label, object_repr=(object_repr or str(obj))[:200], before=before, after=after)


class WorkerHeartbeatQuerySet(models.QuerySet["WorkerHeartbeat"]):
    def alive(self, *, within_seconds: float) -> WorkerHeartbeatQuerySet:
        """Workers whose last heartbeat is at most `within_seconds` old."""
        return self.filter(seen_at__gte=timezone.now() - timedelta(seconds=within_seconds))


class WorkerHeartbeat(models.Model):
    """A running `db_worker` process: written every few seconds while it lives, deleted when it
    stops cleanly. A row that is no longer refreshed belongs to a process that died."""

    # host:pid, the same form as AgentRun.worker_id
    worker_id = models.CharField(_("Prozess"), max_length=100, unique=True)
    name = models.CharField(_("Worker-Name"), max_length=100, blank=True)
    concurrency = models.PositiveSmallIntegerField(_("gleichzeitige Aufgaben"))
    busy = models.PositiveSmallIntegerField(_("laufende Aufgaben"), default=0)
    started_at = models.DateTimeField(_("gestartet"))
    seen_at = models.DateTimeField(_("letztes Lebenszeichen"))

    objects = WorkerHeartbeatQuerySet.as_manager()

    class Meta:
        verbose_name = _("Worker-Lebenszeichen")
        verbose_name_plural = _("Worker-Lebenszeichen")
        ordering = ["worker_id"]

    def __str__(self) -> str:
        return f"Worker {self.worker_id} ({self.busy}/{self.concurrency})"
