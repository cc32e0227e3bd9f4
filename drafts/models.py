"""Helena's proposals (drafts) and notices (alerts). Drafts become records only through
`drafts.services.draft_accept`."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib.contenttypes.fields import GenericForeignKey
from django.contrib.contenttypes.models import ContentType
from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q
from django.utils.translation import gettext_lazy as _

from akten.models import Akte, AkteBoundQuerySet, access_scope, access_scope_reused
from akten.policy import is_mandant


def from_run_reading_hidden_akten(user: Any) -> Q:
    """Drafts and alerts proposed by a run that read an Akte `user` may not see now (a run in the
    general chat, a search across Akten, a run on another Akte): what it proposes can repeat what
    it read, so for its own user it is gone as that run is (agent/runs/selectors.py, `runs_of`).
    What a run read: the Akten of its audit rows and its own Akte, whose Sachstand and Beteiligte
    its prompt carries (agent/runs/reads.py, `akten_read`). Through the agent app's models, by name
    like the `origin_run` relation."""
    with access_scope_reused():
        audits = apps.get_model("agent", "ToolCallAudit").objects.showing_hidden_akten(user)
        visible = Akte.objects.visible_to(user).order_by().values("pk")
    on_hidden_akte = apps.get_model("agent", "AgentRun").objects.filter(pk=OuterRef("origin_run"), akte__isnull=False)
    return Q(Exists(audits.filter(run=OuterRef("origin_run")))) | Q(Exists(on_hidden_akte.exclude(akte__in=visible)))


class DraftQuerySet(AkteBoundQuerySet):
    def visible_to(self, user: Any) -> Any:
        """Akte-bound drafts through the chokepoint; a general NOTIZ draft only for its requester.
        The requester no longer sees a draft whose run read an Akte they may not see now
        (`from_run_reading_hidden_akten`): a deputy after the Vertretung, also on an Akte they still
        see. The team of that Akte keeps it: the Akte is theirs to run, and a Frist draft hidden
        from them could cost a deadline. But not its content: what the run read elsewhere can stand
        in it (a note on Akte B with what Helena read in Akte A). Each draft carries
        `content_hidden`, true where `user` may not see every Akte its run read; such a draft shows
        its type and Akte, not its title and content, and only someone who sees them all reviews
        it (`HelenaDraft.shown_titel`, drafts.services)."""
        if user is None or not user.is_authenticated:
            return self.none()
        with access_scope_reused():
            # The account as it is now (a deactivated one on an open socket sees nothing, also
            # not its general notes); a MANDANT sees no draft, also none of her own.
            if access_scope(user).nothing or is_mandant(user):
                return self.none()
            on_akten = super().visible_to(user)
            shown = self.filter(Q(pk__in=on_akten.values("pk")) | Q(akte__isnull=True, requested_by=user))
            reads_hidden = from_run_reading_hidden_akten(user)
            return shown.exclude(reads_hidden, requested_by=user).annotate(
                content_hidden=ExpressionWrapper(reads_hidden, output_field=BooleanField())
            )

    def content_hidden_from(self, user: Any) -> Any:
        """The drafts whose content `user` may not see (`visible_to`'s `content_hidden`), for the
        Akte's timeline."""
        return self.filter(from_run_reading_hidden_akten(user))

    def hidden_from_requester(self, user: Any) -> Any:
        """The drafts `user` requested that `visible_to` no longer shows them for what their run read
        (the same condition as its exclude, for the Akte's timeline and general notes)."""
        return self.content_hidden_from(user).filter(requested_by=user)

    def pending(self) -> Any:
        return self.filter(status=HelenaDraft.Status.PENDING)


# What a draft shows in place of its title to someone who may not see all its run read.
HIDDEN_TITLE = "{typ} – Inhalt verborgen"
HIDDEN_NOTE = (
    "Helena hat für diesen Entwurf eine Akte gelesen, die du nicht siehst; sein Inhalt kann aus ihr stammen. "
    "Prüfen kann ihn nur, wer alle Akten sehen darf, die Helena dafür gelesen hat – etwa wer den Auftrag gegeben hat."
)


class HelenaDraft(models.Model):
    class Typ(models.TextChoices):
        DOKUMENT = "DOKUMENT", _("Dokument")
        FRIST = "FRIST", _("Frist / Termin / Wiedervorlage")
        NOTIZ = "NOTIZ", _("Notiz")
        ZEITERFASSUNG = "ZEITERFASSUNG", _("Zeiterfassung")
        AKTE_UPDATE = "AKTE_UPDATE", _("Änderung der Akte")
        KOSTENNOTE = "KOSTENNOTE", _("Kostennote / Vorschussrechnung")

    class Status(models.TextChoices):
        PENDING = "PENDING", _("offen")
        ACCEPTED = "ACCEPTED", _("übernommen")
        REJECTED = "REJECTED", _("abgelehnt")

    class RejectionCategory(models.TextChoices):
        INHALTLICH_FALSCH = "INHALTLICH_FALSCH", _("inhaltlich falsch")
        UNVOLLSTAENDIG = "UNVOLLSTAENDIG", _("unvollständig")
        TON_STIL = "TON_STIL", _("Ton/Stil")
        FORMATIERUNG = "FORMATIERUNG", _("Formatierung")
        SONSTIGES = "SONSTIGES", _("sonstiges")

    typ = models.CharField(_("Typ"), max_length=14, choices=Typ.choices)
    status = models.CharField(_("Status"), max_length=10, choices=Status.choices, default=Status.PENDING)
    akte = models.ForeignKey(Akte, verbose_name=_("Akte"), on_delete=models.CASCADE, null=True, blank=True, related_name="drafts")
    titel = models.CharField(_("Titel"), max_length=200)
    payload = models.JSONField(_("Inhalt"))
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("für Benutzer"),
        on_delete=models.PROTECT,
        related_name="helena_drafts",
    )
    origin_run = models.ForeignKey(
        "agent.AgentRun",
        verbose_name=_("aus Lauf"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="drafts",
    )
    origin_step = models.ForeignKey(
        "agent.AgentStep",
        verbose_name=_("aus Schritt"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="drafts",
    )
    origin_tool_call_id = models.CharField(_("Tool-Aufruf"), max_length=100, blank=True)
    untrusted_input = models.BooleanField(
        _("nach Lesen ungeprüfter Texte erstellt"),
        default=False,
        help_text=_(
            "Helena hat vor diesem Entwurf Dokument-, Urteils- oder Suchtexte gelesen, die Anweisungen enthalten könnten."
        ),
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("geprüft von"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    reviewed_at = models.DateTimeField(_("geprüft am"), null=True, blank=True)
    rejection_reason = models.TextField(_("Ablehnungsgrund"), blank=True)
    rejection_categories = ArrayField(
        models.CharField(max_length=20, choices=RejectionCategory.choices),
        verbose_name=_("Ablehnungskategorien"),
        default=list,
        blank=True,
    )
    result_content_type = models.ForeignKey(ContentType, on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    result_object_id = models.PositiveBigIntegerField(null=True, blank=True)
    result = GenericForeignKey("result_content_type", "result_object_id")
    undo_data = models.JSONField(_("Daten für Rückgängig"), default=dict, blank=True)
    created_at = models.DateTimeField(_("erstellt"), auto_now_add=True)
    updated_at = models.DateTimeField(_("geändert"), auto_now=True)

    objects = DraftQuerySet.as_manager()

    class Meta:
        verbose_name = _("Helena-Entwurf")
        verbose_name_plural = _("Helena-Entwürfe")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(akte__isnull=False) | Q(typ="NOTIZ"),
                name="draft_akte_required",
                violation_error_message=_("Nur eine Notiz kann ohne Akte entworfen werden."),
            ),
            models.CheckConstraint(
                condition=~Q(status="ACCEPTED")
                | (Q(reviewer__isnull=False) & Q(reviewed_at__isnull=False) & Q(result_object_id__isnull=False)),
                name="draft_accepted_has_review_and_result",
                violation_error_message=_(
                    "Ein übernommener Entwurf braucht Prüfer/in, Prüfzeitpunkt und den angelegten Datensatz."
                ),
            ),
            models.CheckConstraint(
                condition=~Q(status="REJECTED") | (Q(reviewer__isnull=False) & Q(reviewed_at__isnull=False)),
                name="draft_rejected_has_review",
                violation_error_message=_("Ein abgelehnter Entwurf braucht Prüfer/in und Prüfzeitpunkt."),
            ),
            models.CheckConstraint(
                condition=Q(status="ACCEPTED") | Q(result_object_id__isnull=True),
                name="draft_result_only_when_accepted",
                violation_error_message=_("Nur ein übernommener Entwurf hat einen angelegten Datensatz."),
            ),
            models.UniqueConstraint(
                fields=["result_content_type", "result_object_id"],
                name="draft_result_unique",
                violation_error_message=_("Dieser Datensatz ist schon aus einem anderen Entwurf entstanden."),
                # An AKTE_UPDATE's result is the Akte itself, which many drafts may change.
                condition=Q(result_object_id__isnull=False) & ~Q(typ="AKTE_UPDATE"),
            ),
        ]
        indexes = [models.Index(fields=["status", "akte"])]

    def __str__(self) -> str:
        where = f"Akte {self.akte.aktenzeichen}" if self.akte else "allgemein"
        return f"Entwurf {self.get_typ_display()}: {self.titel} ({where}, {self.get_status_display()})"

    @property
    def hides_content(self) -> bool:
        """Loaded through `visible_to` for someone who may not see every Akte its run read."""
        return bool(getattr(self, "content_hidden", False))

    @property
    def shown_titel(self) -> str:
        """The title as the viewer it was loaded for (`visible_to`) may see it."""
        return HIDDEN_TITLE.format(typ=self.get_typ_display()) if self.hides_content else self.titel


class DraftRevision(models.Model):
    draft = models.ForeignKey(HelenaDraft, verbose_name=_("Entwurf"), on_delete=models.CASCADE, related_name="revisions")
    number = models.PositiveIntegerField(_("Version"))
    titel = models.CharField(_("Titel vorher"), max_length=200)
    payload = models.JSONField(_("Inhalt vorher"))
    edited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("bearbeitet von"), on_delete=models.PROTECT, related_name="+"
    )
    edited_at = models.DateTimeField(_("bearbeitet am"), auto_now_add=True)

    class Meta:
        verbose_name = _("Entwurfsversion")
        verbose_name_plural = _("Entwurfsversionen")
        ordering = ["draft", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["draft", "number"],
                name="draftrevision_number_unique",
                violation_error_message=_("Diese Versionsnummer gibt es für den Entwurf schon."),
            )
        ]

    def __str__(self) -> str:
        return f"Entwurf {self.draft_id} Version {self.number}"


class AlertQuerySet(models.QuerySet["HelenaAlert"]):
    def visible_to(self, user: Any) -> AlertQuerySet:
        """A user's own alerts; Akte-bound ones only while the Akte is still visible to them; none
        whose run read an Akte they may not see now (`from_run_reading_hidden_akten`)."""
        if user is None or not user.is_authenticated:
            return self.none()
        with access_scope_reused():
            if access_scope(user).nothing:  # deactivated now, also for its general alerts
                return self.none()
            on_akten = Q(akte__in=Akte.objects.visible_to(user).values("pk"))
            mine = self.filter(recipient=user).filter(Q(akte__isnull=True) | on_akten)
            return mine.exclude(from_run_reading_hidden_akten(user))

    def active(self) -> AlertQuerySet:
        return self.filter(dismissed_at__isnull=True)


class HelenaAlert(models.Model):
    class Typ(models.TextChoices):
        FRIST_KRITISCH = "FRIST_KRITISCH", _("Frist kritisch")
        AKTE_INAKTIV = "AKTE_INAKTIV", _("Akte inaktiv")
        BETEILIGTE_FEHLEN = "BETEILIGTE_FEHLEN", _("Beteiligte fehlen")
        DOKUMENT_FEHLT = "DOKUMENT_FEHLT", _("Dokument fehlt")
        WIDERSPRUCH = "WIDERSPRUCH", _("Widerspruch")
        NEUES_URTEIL = "NEUES_URTEIL", _("Neues Urteil")
        MANDANT_NACHRICHT = "MANDANT_NACHRICHT", _("Nachricht der Mandantschaft")

    typ = models.CharField(_("Typ"), max_length=20, choices=Typ.choices)
    severity = models.PositiveSmallIntegerField(
        _("Dringlichkeit (1–10)"), validators=[MinValueValidator(1), MaxValueValidator(10)]
    )
    titel = models.CharField(_("Titel"), max_length=200)
    text = models.TextField(_("Text"), blank=True)
    akte = models.ForeignKey(Akte, verbose_name=_("Akte"), on_delete=models.CASCADE, null=True, blank=True, related_name="alerts")
    recipient = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("Empfänger/in"), on_delete=models.CASCADE, related_name="helena_alerts"
    )
    origin_run = models.ForeignKey(
        "agent.AgentRun", verbose_name=_("aus Lauf"), on_delete=models.SET_NULL, null=True, blank=True, related_name="alerts"
    )
    read_at = models.DateTimeField(_("gelesen am"), null=True, blank=True)
    read_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("gelesen von"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    dismissed_at = models.DateTimeField(_("verworfen am"), null=True, blank=True)
    dismissed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("verworfen von"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(_("erstellt"), auto_now_add=True)

    objects = AlertQuerySet.as_manager()

    class Meta:
        verbose_name = _("Helena-Hinweis")
        verbose_name_plural = _("Helena-Hinweise")
        ordering = ["-severity", "-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(severity__gte=1) & Q(severity__lte=10),
                name="alert_severity_range",
                violation_error_message=_("Die Dringlichkeit muss zwischen 1 und 10 liegen."),
            ),
            models.CheckConstraint(
                condition=Q(read_at__isnull=True) | Q(read_by__isnull=False),
                name="alert_read_has_reader",
                violation_error_message=_("Ein gelesener Hinweis braucht die Person, die ihn gelesen hat."),
            ),
            models.CheckConstraint(
                condition=Q(dismissed_at__isnull=True) | Q(dismissed_by__isnull=False),
                name="alert_dismissed_has_actor",
                violation_error_message=_("Ein verworfener Hinweis braucht die Person, die ihn verworfen hat."),
            ),
        ]

    def __str__(self) -> str:
        return f"Hinweis {self.get_typ_display()} ({self.severity}): {self.titel}"
