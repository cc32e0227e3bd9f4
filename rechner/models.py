"""The Basiszinssätze a Kanzlei adds after the history shipped in ``data/basiszinssatz.json``.

The shipped values (Deutsche Bundesbank) are authoritative and cannot be overridden here; an entry
only continues them half year by half year, without gaps.
"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from rechner.zinsen import (
    Basiszins,
    Zinshistorie,
    basiszins_am,
    basiszinssaetze,
    halbjahr_ende,
    historie_ergaenzt,
    ist_halbjahresbeginn,
)

ERSTES_HALBJAHR = date(2002, 1, 1)

FEHLER_STICHTAG = (
    "Der Basiszinssatz ändert sich nur zum 1. Januar und zum 1. Juli (§ 247 Abs. 1 Satz 2 BGB); "
    "der {datum} ist kein solcher Stichtag."
)
FEHLER_VOR_2002 = "Den Basiszinssatz nach § 247 BGB gibt es erst ab dem 01.01.2002; der {datum} liegt davor."
FEHLER_AUSGELIEFERT = (
    "Für das Halbjahr ab dem {datum} ist der Basiszinssatz schon mit Helena ausgeliefert ({satz} %, Deutsche "
    "Bundesbank) und lässt sich hier nicht ändern. Ergänzen kannst du Halbjahre ab dem {naechstes}."
)
FEHLER_SCHON_ERFASST = "Für das Halbjahr ab dem {datum} ist bereits ein Basiszinssatz erfasst."
FEHLER_LUECKE = (
    "Die Halbjahre müssen lückenlos aufeinander folgen: als Nächstes fehlt der Basiszinssatz ab dem {naechstes}. "
    "Bitte erfasse zuerst diesen."
)


def satz_text(satz: Decimal) -> str:
    """Two decimals as the Bundesbank publishes them: ``Decimal("2.7")`` → ``"2,70"``."""
    return f"{satz:.2f}".replace(".", ",")


class BasiszinssatzQuerySet(models.QuerySet["Basiszinssatz"]):
    def historie(self) -> Zinshistorie:
        """The shipped history continued by these entries (as far as they follow on without a gap)."""
        eintraege = self.order_by("gueltig_ab").values_list("gueltig_ab", "satz")
        return historie_ergaenzt(basiszinssaetze(), (Basiszins(ab, satz) for ab, satz in eintraege))


class Basiszinssatz(models.Model):
    """The Basiszinssatz (§ 247 BGB) of one half year after the shipped history, entered by a Kanzlei admin."""

    gueltig_ab = models.DateField(
        _("gültig ab"), unique=True, help_text=_("Der 1. Januar oder der 1. Juli, ab dem der Satz gilt.")
    )
    satz = models.DecimalField(
        _("Basiszinssatz in Prozent"),
        max_digits=4,
        decimal_places=2,
        help_text=_("Wie von der Deutschen Bundesbank bekanntgemacht, z. B. 1,27; ein negativer Satz mit Minus, z. B. -0,88."),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, verbose_name=_("erfasst von"), on_delete=models.PROTECT, related_name="+"
    )
    created_at = models.DateTimeField(_("erfasst am"), auto_now_add=True)

    objects = BasiszinssatzQuerySet.as_manager()

    class Meta:
        verbose_name = _("Basiszinssatz")
        verbose_name_plural = _("Basiszinssätze")
        ordering = ["-gueltig_ab"]
        constraints = [
            models.CheckConstraint(
                condition=Q(gueltig_ab__day=1, gueltig_ab__month__in=[1, 7], gueltig_ab__gte=ERSTES_HALBJAHR),
                name="basiszinssatz_ab_halbjahresbeginn",
                violation_error_message=_("Der Basiszinssatz gilt jeweils ab dem 1. Januar oder dem 1. Juli, frühestens 2002."),
            ),
        ]

    def __str__(self) -> str:
        return f"Basiszinssatz ab {self.gueltig_ab:%d.%m.%Y}: {satz_text(self.satz)} %"

    @property
    def gueltig_bis(self) -> date:
        """The last day of its half year."""
        return halbjahr_ende(self.gueltig_ab)

    def clean(self) -> None:
        """Only the half year right after the known history (shipped, then the other entries) may be added."""
        ab = self.gueltig_ab
        if ab is None:
            return
        if not ist_halbjahresbeginn(ab):
            raise ValidationError({"gueltig_ab": FEHLER_STICHTAG.format(datum=f"{ab:%d.%m.%Y}")})
        if ab < ERSTES_HALBJAHR:
            raise ValidationError({"gueltig_ab": FEHLER_VOR_2002.format(datum=f"{ab:%d.%m.%Y}")})
        ausgeliefert = basiszinssaetze()
        bekannt = Basiszinssatz.objects.exclude(pk=self.pk).historie()
        naechstes = bekannt.gueltig_bis + timedelta(days=1)
        if ab <= ausgeliefert.gueltig_bis:
            satz = satz_text(basiszins_am(ab, ausgeliefert))
            raise ValidationError(
                {"gueltig_ab": FEHLER_AUSGELIEFERT.format(datum=f"{ab:%d.%m.%Y}", satz=satz, naechstes=f"{naechstes:%d.%m.%Y}")}
            )
        if ab < naechstes:
            raise ValidationError({"gueltig_ab": FEHLER_SCHON_ERFASST.format(datum=f"{ab:%d.%m.%Y}")})
        if ab > naechstes:
            raise ValidationError({"gueltig_ab": FEHLER_LUECKE.format(naechstes=f"{naechstes:%d.%m.%Y}")})
