"""The Kanzlei domain. Akte-bound data is reached only through `visible_to(user)`."""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from pathlib import PurePosixPath
from typing import Any

from django.apps import apps
from django.contrib.auth.models import AbstractUser, BaseUserManager
from django.contrib.postgres.fields import ArrayField
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connection, models
from django.db.models import Exists, OuterRef, Q
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from rechner.fristen import BUNDESLAENDER

BUNDESLAND_CHOICES = list(BUNDESLAENDER.items())


class Role(models.TextChoices):
    ADMIN = "ADMIN", _("Administrator")
    ANWALT = "ANWALT", _("Rechtsanwalt/Rechtsanwältin")
    SACHBEARBEITER = "SACHBEARBEITER", _("Sachbearbeitung")
    SEKRETARIAT = "SEKRETARIAT", _("Sekretariat")
    PRAKTIKANT = "PRAKTIKANT", _("Praktikant/Praktikantin")
    MANDANT = "MANDANT", _("Mandant/Mandantin")


STAFF_ROLES = frozenset({Role.ANWALT, Role.SACHBEARBEITER, Role.SEKRETARIAT, Role.PRAKTIKANT})


class UserManager(BaseUserManager["User"]):
    use_in_migrations = True

    def create_user(self, email: str, password: str | None = None, **extra: Any) -> User:
        if not email:
            raise ValueError("E-Mail-Adresse fehlt.")
        user = self.model(email=self.normalize_email(email).lower(), **extra)
        user.set_password(password)
        user.full_clean(exclude=["password"])
        user.save(using=self._db)
        return user

    def create_superuser(self, email: str, password: str | None = None, **extra: Any) -> User:
        extra.update(is_staff=True, is_superuser=True, role=Role.ADMIN)
        return self.create_user(email, password, **extra)


class User(AbstractUser):
    username = None  # type: ignore[assignment]
    email = models.EmailField(_("E-Mail-Adresse"), unique=True)
    role = models.CharField(_("Rolle"), max_length=20, choices=Role.choices, default=Role.PRAKTIKANT)
    berufsbezeichnung = models.CharField(
        _("Berufsbezeichnung"),
        max_length=120,
        blank=True,
        help_text=_("Steht in Schriftsätzen unter dem Namen, z. B. „Rechtsanwältin und Fachanwältin für Mietrecht“."),
    )
    kontakt = models.ForeignKey(
        "Kontakt",
        verbose_name=_("Kontakt (für Mandanten)"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="benutzer",
    )

    objects = UserManager()  # type: ignore[misc,assignment]

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []  # type: ignore[misc]

    class Meta:
        verbose_name = _("Benutzer")
        verbose_name_plural = _("Benutzer")
        ordering = ["last_name", "first_name", "email"]
        constraints = [
            models.CheckConstraint(
                condition=Q(role__in=Role.values),
                name="user_role_valid",
                violation_error_message=_("Bitte wähle eine der angebotenen Rollen."),
            ),
            models.CheckConstraint(
                condition=~Q(role=Role.MANDANT) | Q(kontakt__isnull=False),
                name="user_mandant_has_kontakt",
                violation_error_message=_("Ein Zugang mit der Rolle Mandant braucht einen Kontakt."),
            ),
        ]

    def __str__(self) -> str:
        name = self.get_full_name()
        return f"{name} <{self.email}>" if name else self.email

    @property
    def is_admin_role(self) -> bool:
        return self.is_superuser or self.role == Role.ADMIN


class VertretungQuerySet(models.QuerySet["Vertretung"]):
    def active(self, on: datetime.date | None = None) -> VertretungQuerySet:
        day = on or timezone.localdate()
        return self.filter(beginn__lte=day, ende__gte=day)


class Vertretung(models.Model):
    """A deputy (Vertreter) stands in for a colleague (Vertretener) during a period."""

    vertretener = models.ForeignKey(
        User,
        verbose_name=_("Vertretene Person"),
        on_delete=models.CASCADE,
        related_name="vertretungen_als_vertretener",
    )
    vertreter = models.ForeignKey(
        User,
        verbose_name=_("Vertreter/in"),
        on_delete=models.CASCADE,
        related_name="vertretungen_als_vertreter",
    )
    beginn = models.DateField(_("Beginn"))
    ende = models.DateField(_("Ende"))
    grund = models.CharField(_("Grund"), max_length=200, blank=True)

    objects = VertretungQuerySet.as_manager()

    class Meta:
        verbose_name = _("Vertretung")
        verbose_name_plural = _("Vertretungen")
        ordering = ["-beginn"]
        constraints = [
            models.CheckConstraint(
                condition=Q(ende__gte=models.F("beginn")),
                name="vertretung_period",
                violation_error_message=_("Das Ende der Vertretung darf nicht vor ihrem Beginn liegen."),
            ),
            models.CheckConstraint(
                condition=~Q(vertreter=models.F("vertretener")),
                name="vertretung_not_self",
                violation_error_message=_("Vertreter/in und vertretene Person müssen verschiedene Personen sein."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.vertreter} vertritt {self.vertretener} ({self.beginn:%d.%m.%Y}–{self.ende:%d.%m.%Y})"


class Dezernat(models.Model):
    name = models.CharField(_("Name"), max_length=100, unique=True)
    members = models.ManyToManyField(User, verbose_name=_("Mitglieder"), related_name="dezernate", blank=True)

    class Meta:
        verbose_name = _("Dezernat")
        verbose_name_plural = _("Dezernate")
        ordering = ["name"]

    def __str__(self) -> str:
        return f"Dezernat {self.name}"


class Kontakt(models.Model):
    class Typ(models.TextChoices):
        NATUERLICH = "NATUERLICH", _("Natürliche Person")
        JURISTISCH = "JURISTISCH", _("Juristische Person / Behörde")

    typ = models.CharField(_("Typ"), max_length=12, choices=Typ.choices, default=Typ.NATUERLICH)
    anrede = models.CharField(_("Anrede"), max_length=30, blank=True)
    vorname = models.CharField(_("Vorname"), max_length=100, blank=True)
    nachname = models.CharField(_("Nachname"), max_length=100, blank=True)
    firma = models.CharField(_("Firma / Bezeichnung"), max_length=200, blank=True)
    strasse = models.CharField(_("Straße und Hausnummer"), max_length=200, blank=True)
    plz = models.CharField(_("PLZ"), max_length=10, blank=True)
    ort = models.CharField(_("Ort"), max_length=100, blank=True)
    land = models.CharField(_("Land"), max_length=2, default="DE")
    email = models.EmailField(_("E-Mail"), blank=True)
    telefon = models.CharField(_("Telefon"), max_length=50, blank=True)
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)

    class Meta:
        verbose_name = _("Kontakt")
        verbose_name_plural = _("Kontakte")
        ordering = ["nachname", "firma", "vorname"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(typ="NATUERLICH") & ~Q(nachname="")) | (Q(typ="JURISTISCH") & ~Q(firma="")),
                name="kontakt_has_name",
                violation_error_message=_(
                    "Eine natürliche Person braucht einen Nachnamen, eine juristische Person einen Firmennamen."
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def display_name(self) -> str:
        if self.typ == self.Typ.JURISTISCH:
            return self.firma
        return " ".join(part for part in (self.vorname, self.nachname) if part)

    @property
    def anschrift(self) -> str:
        return ", ".join(p for p in (self.strasse, f"{self.plz} {self.ort}".strip()) if p)


class Sachgebiet(models.TextChoices):
    MIETRECHT = "MIETRECHT", _("Mietrecht")
    ARBEITSRECHT = "ARBEITSRECHT", _("Arbeitsrecht")
    VERKEHRSRECHT = "VERKEHRSRECHT", _("Verkehrsrecht")
    FAMILIENRECHT = "FAMILIENRECHT", _("Familienrecht")
    INKASSO = "INKASSO", _("Inkasso / Forderungsmanagement")
    ERBRECHT = "ERBRECHT", _("Erbrecht")
    VERTRAGSRECHT = "VERTRAGSRECHT", _("Vertragsrecht")
    STRAFRECHT = "STRAFRECHT", _("Strafrecht")
    SONSTIGES = "SONSTIGES", _("Sonstiges")


@dataclass(frozen=True)
class AccessScope:
    """Whose Akten a user may see, resolved to ids: the input of every `visible_to` filter.

    `everything` for ADMIN; else `akte_ids` (a MANDANT's Akten) or, for staff, `principal_ids` (the
    user and, during an active Vertretung, the colleagues they stand in for) and `dezernat_ids`
    (the Dezernate of those principals). An empty scope sees nothing.
    """

    everything: bool = False
    akte_ids: tuple[int, ...] | None = None
    principal_ids: tuple[int, ...] = ()
    dezernat_ids: tuple[int, ...] = ()

    @property
    def nothing(self) -> bool:
        return not self.everything and not self.akte_ids and not self.principal_ids

    def akte_q(self, path: str = "") -> Q:
        """The condition on the Akte reached by `path` ("" for Akte itself, "akte" for Akte-bound
        rows). Call only when not `nothing`."""
        pk = path or "pk"
        if self.everything:
            return Q(**{f"{path}__isnull": False}) if path else Q()
        if self.akte_ids is not None:
            return Q(**{f"{pk}__in": self.akte_ids})
        prefix = f"{path}__" if path else ""
        condition = Q(**{f"{prefix}anwalt_id__in": self.principal_ids}) | Q(
            **{f"{prefix}sachbearbeiter_id__in": self.principal_ids}
        )
        if self.dezernat_ids:
            in_dezernat = Akte.dezernate.through.objects.filter(dezernat_id__in=self.dezernat_ids).values("akte_id")
            condition |= Q(**{f"{pk}__in": in_dezernat})
        return condition


NO_ACCESS = AccessScope()
_scope_memo: ContextVar[dict[int, AccessScope] | None] = ContextVar("helena_access_scope_memo", default=None)


@contextmanager
def access_scope_reused(*, fresh: bool = False) -> Iterator[None]:
    """Within the block, a user's AccessScope is resolved once and reused (one tool call, one
    request); outside, every `visible_to` resolves it afresh. Inside another such block, the outer
    block's resolution holds, unless `fresh` (a tool call asks anew, whatever encloses it)."""
    if _scope_memo.get() is not None and not fresh:
        yield
        return
    token = _scope_memo.set({})
    try:
        yield
    finally:
        _scope_memo.reset(token)


def user_access_refresh(user: Any) -> None:
    """Re-read what access depends on - role, active, superuser, Kontakt - into a user object that
    lives longer than a request (a websocket keeps its user from the handshake): a role changed or an
    account deactivated since then counts at once. A deleted account becomes inactive."""
    row = User.objects.filter(pk=user.pk).values("role", "is_active", "is_superuser", "kontakt_id").first()
    if row is None:
        user.is_active = False
        return
    for name, value in row.items():
        setattr(user, name, value)


def access_scope(user: Any) -> AccessScope:
    """Resolve what `user` may see (one query for staff and MANDANT, none for ADMIN)."""
    if user is None or not user.is_authenticated or not user.is_active:
        return NO_ACCESS
    if user.is_admin_role:
        return AccessScope(everything=True)
    memo = _scope_memo.get()
    if memo is not None and user.pk in memo:
        return memo[user.pk]
    scope, _ = access_scope_query(user)
    return scope


def access_scope_query(user: Any, **extra: tuple[str, Sequence[Any]]) -> tuple[AccessScope, dict[str, Any]]:
    """Resolve `user`'s scope in one round trip, with `extra` SQL expressions (name → (sql,
    params), evaluated next to it) in the same statement: a tool call learns its access and its
    permission at once.

    Returns the scope and the values of `extra`. The user's row is read as it is now: a user
    deactivated meanwhile (or deleted) gets NO_ACCESS and None for every `extra`; so does a user
    whose role changed meanwhile, whose object then carries the new role (ask again). Within
    `access_scope_reused` the scope is kept for the rest of the block. Without `extra`, ADMIN and
    anonymous users need no query.
    One hand-written statement: the ORM would take longer to compile its subqueries than the
    database takes to answer them (this runs on every tool call).
    """
    if user is None or not user.is_authenticated or not user.is_active:
        return NO_ACCESS, dict.fromkeys(extra)
    admin = user.is_admin_role
    if admin and not extra:
        return AccessScope(everything=True), {}
    columns, params = ([], []) if admin else _scope_columns(user)
    for sql, sql_params in extra.values():
        columns.append(f"({sql})")
        params.extend(sql_params)
    table = User._meta.db_table
    statement = (
        f"SELECT {table}.is_active, {table}.role, {table}.is_superuser, {', '.join(columns) or 'NULL'} "  # noqa: S608 - constants
        f"FROM {table} WHERE {table}.id = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(statement, [*params, user.pk])
        row = cursor.fetchone()
    if row is not None and (row[1], row[2]) != (user.role, user.is_superuser):
        # Role or superuser flag changed since this user object was loaded (a run or a socket keeps
        # it): what was asked was built for the old ones. This answer refuses; the object now carries
        # them as they are, so the next question is asked for them (agent.tools.executor asks again).
        user.role, user.is_superuser = row[1], row[2]
        row = None
    if row is None or not row[0]:
        scope, values = NO_ACCESS, dict.fromkeys(extra)
    else:
        scope = AccessScope(everything=True) if admin else _scope_from(user, row[3:])
        values = dict(zip(extra, row[len(row) - len(extra) :], strict=True))
    memo = _scope_memo.get()
    if memo is not None:
        memo[user.pk] = scope
    return scope, values


def _scope_columns(user: User) -> tuple[list[str], list[Any]]:
    """The select-list expressions, on the user's own row, that resolve their scope (read back by
    `_scope_from`): a MANDANT's mandates; a staff member's active Vertretungen and the Dezernate
    of everyone they act for. "Active" is `VertretungQuerySet.active`: beginn ≤ today ≤ ende."""
    # Only table names from the models' _meta go into the text; every value is a parameter.
    user_table = User._meta.db_table
    if user.role == Role.MANDANT:
        beteiligter = Beteiligter._meta.db_table
        mandates = f"SELECT b.akte_id FROM {beteiligter} b WHERE b.kontakt_id = {user_table}.kontakt_id AND b.rolle = %s"  # noqa: S608
        return [f"ARRAY({mandates})"], [Beteiligter.Rolle.MANDANT.value]
    if user.role not in STAFF_ROLES:
        return [], []
    vertretung, members = Vertretung._meta.db_table, Dezernat.members.through._meta.db_table
    acting_for = (
        f"SELECT v.vertretener_id FROM {vertretung} v "  # noqa: S608
        f"WHERE v.vertreter_id = {user_table}.id AND v.beginn <= %s AND v.ende >= %s"
    )
    dezernate = f"SELECT m.dezernat_id FROM {members} m WHERE m.user_id = {user_table}.id OR m.user_id IN ({acting_for})"  # noqa: S608
    today = timezone.localdate()
    return [f"ARRAY({acting_for})", f"ARRAY({dezernate})"], [today, today, today, today]


def _scope_from(user: User, values: Sequence[Any]) -> AccessScope:
    if user.role == Role.MANDANT:
        if user.kontakt_id is None:
            return NO_ACCESS
        return AccessScope(akte_ids=tuple(sorted(set(values[0]))))
    if user.role not in STAFF_ROLES:
        return NO_ACCESS
    deputised, dezernate = values[0], values[1]
    return AccessScope(principal_ids=tuple(sorted({user.pk, *deputised})), dezernat_ids=tuple(sorted(set(dezernate))))


class AkteQuerySet(models.QuerySet["Akte"]):
    def visible_to(self, user: Any) -> AkteQuerySet:
        """The one access chokepoint: the Akten `user` may see.

        ADMIN sees all. Staff roles see Akten where they (or, during an active Vertretung, the
        colleague they stand in for) are Anwalt or Sachbearbeiter or belong to one of the Akte's
        Dezernate. A MANDANT sees the Akten where their Kontakt is Beteiligter with role MANDANT.
        Everyone else (anonymous, inactive) sees nothing. The scope is resolved to ids when called
        (see AccessScope), so the SQL stays flat.
        """
        scope = access_scope(user)
        if scope.nothing:
            return self.none()
        return self.filter(scope.akte_q())


class Akte(models.Model):
    class Status(models.TextChoices):
        OFFEN = "OFFEN", _("offen")
        RUHEND = "RUHEND", _("ruhend")
        ARCHIVIERT = "ARCHIVIERT", _("archiviert")
        GESCHLOSSEN = "GESCHLOSSEN", _("geschlossen")

    aktenzeichen = models.CharField(_("Aktenzeichen"), max_length=30, unique=True)
    kurzrubrum = models.CharField(_("Kurzrubrum"), max_length=200)
    wegen = models.CharField(_("wegen"), max_length=300, blank=True)
    sachgebiet = models.CharField(_("Sachgebiet"), max_length=20, choices=Sachgebiet.choices)
    status = models.CharField(_("Status"), max_length=12, choices=Status.choices, default=Status.OFFEN)
    gegenstandswert = models.DecimalField(
        _("Gegenstandswert (EUR)"),
        max_digits=14,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
    )
    anwalt = models.ForeignKey(
        User,
        verbose_name=_("Anwalt/Anwältin"),
        on_delete=models.PROTECT,
        related_name="akten_als_anwalt",
        null=True,
        blank=True,
    )
    sachbearbeiter = models.ForeignKey(
        User,
        verbose_name=_("Sachbearbeitung"),
        on_delete=models.PROTECT,
        related_name="akten_als_sachbearbeiter",
        null=True,
        blank=True,
    )
    dezernate = models.ManyToManyField(Dezernat, verbose_name=_("Dezernate"), related_name="akten", blank=True)
    gericht_name = models.CharField(_("Gericht"), max_length=200, blank=True, help_text=_("z. B. Landgericht Berlin II"))
    gericht_ort = models.CharField(
        _("Ort des Gerichts"), max_length=100, blank=True, help_text=_("Gemeinde des Gerichtssitzes; bestimmt die Feiertage.")
    )
    gericht_bundesland = models.CharField(_("Bundesland des Gerichts"), max_length=2, choices=BUNDESLAND_CHOICES, blank=True)
    gericht_aktenzeichen = models.CharField(_("Aktenzeichen des Gerichts"), max_length=60, blank=True)
    notizen = models.TextField(_("Notizen"), blank=True)
    zusammenfassung = models.TextField(_("Sachstand / Zusammenfassung"), blank=True)
    tags = ArrayField(models.CharField(max_length=50), verbose_name=_("Schlagworte"), default=list, blank=True)
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)
    changed_at = models.DateTimeField(_("geändert"), auto_now=True)

    objects = AkteQuerySet.as_manager()

    class Meta:
        verbose_name = _("Akte")
        verbose_name_plural = _("Akten")
        ordering = ["-created_at", "aktenzeichen"]
        constraints = [
            models.CheckConstraint(
                condition=Q(gegenstandswert__gte=0),
                name="akte_gegenstandswert_nonnegative",
                violation_error_message=_("Der Gegenstandswert darf nicht negativ sein."),
            ),
            models.CheckConstraint(
                condition=~Q(aktenzeichen=""),
                name="akte_aktenzeichen_not_empty",
                violation_error_message=_("Bitte gib ein Aktenzeichen an."),
            ),
            models.CheckConstraint(
                condition=Q(status__in=["OFFEN", "RUHEND", "ARCHIVIERT", "GESCHLOSSEN"]),
                name="akte_status_valid",
                violation_error_message=_("Bitte wähle einen der angebotenen Status."),
            ),
            models.CheckConstraint(
                condition=Q(gericht_bundesland="") | Q(gericht_bundesland__in=list(BUNDESLAENDER)),
                name="akte_gericht_bundesland_valid",
                violation_error_message=_("Bitte wähle als Bundesland des Gerichts eines der angebotenen."),
            ),
            models.CheckConstraint(
                condition=Q(gericht_ort="") | ~Q(gericht_bundesland=""),
                name="akte_gericht_ort_has_bundesland",
                violation_error_message=_("Bitte wähle zum Ort des Gerichts auch sein Bundesland."),
            ),
        ]
        indexes = [models.Index(fields=["status", "sachgebiet"])]

    def __str__(self) -> str:
        return f"Akte {self.aktenzeichen} {self.kurzrubrum}"


PLAUSIBLE_FROM, PLAUSIBLE_TO = datetime.date(1900, 1, 1), datetime.date(2199, 12, 31)


def validate_plausible_date(value: datetime.date) -> None:
    """A calendar entry's or a time record's date between 1900 and 2199: 0001-01-01 and 9999-12-31
    are typos (and the admin's date drill-down fails on the year 9999)."""
    from django.core.exceptions import ValidationError

    if not PLAUSIBLE_FROM <= value <= PLAUSIBLE_TO:
        raise ValidationError(
            _("Das Datum %(datum)s ist nicht plausibel (erlaubt: 1900 bis 2199)."), params={"datum": value.isoformat()}
        )


def validate_iban(value: str) -> None:
    """ISO 13616 check digits (mod 97); spaces are allowed."""
    from django.core.exceptions import ValidationError

    iban = value.replace(" ", "").upper()
    if not (15 <= len(iban) <= 34 and iban[:2].isalpha() and iban[2:4].isdigit() and iban.isalnum()):
        raise ValidationError(_("Das ist keine gültige IBAN."))
    digits = "".join(str(int(ch, 36)) for ch in iban[4:] + iban[:4])
    if int(digits) % 97 != 1:
        raise ValidationError(_("Die Prüfziffer der IBAN stimmt nicht. Bitte prüfe die IBAN."))


class KanzleiProfil(models.Model):
    """The firm's own data (one row): seat (holidays of deadlines when an Akte names no court),
    address, bank details and the letterhead every document Helena renders is printed on."""

    class Ausrichtung(models.TextChoices):
        LINKS = "LINKS", _("links")
        ZENTRIERT = "ZENTRIERT", _("zentriert")
        RECHTS = "RECHTS", _("rechts")

    class Schrift(models.TextChoices):
        SANS = "SANS", _("serifenlos (Liberation Sans, wie Arial)")
        SERIF = "SERIF", _("mit Serifen (Liberation Serif, wie Times New Roman)")

    SINGLETON_PK = 1

    name = models.CharField(_("Name der Kanzlei"), max_length=200, blank=True)
    sitz_ort = models.CharField(_("Ort des Kanzleisitzes"), max_length=100, blank=True)
    sitz_bundesland = models.CharField(
        _("Bundesland des Kanzleisitzes"),
        max_length=2,
        choices=BUNDESLAND_CHOICES,
        blank=True,
        help_text=_("Gilt für Fristen nur, wenn in der Akte kein Gericht eingetragen ist."),
    )
    partner = models.TextField(
        _("Partner und Anwälte"),
        blank=True,
        help_text=_("Eine Person je Zeile, z. B. „Dr. Katrin Müller, Fachanwältin für Mietrecht“."),
    )
    strasse = models.CharField(_("Straße und Hausnummer"), max_length=200, blank=True)
    plz = models.CharField(_("PLZ"), max_length=10, blank=True)
    ort = models.CharField(_("Ort"), max_length=100, blank=True)
    telefon = models.CharField(_("Telefon"), max_length=50, blank=True)
    telefax = models.CharField(_("Telefax"), max_length=50, blank=True)
    email = models.EmailField(_("E-Mail"), blank=True)
    web = models.CharField(_("Website"), max_length=200, blank=True)
    bank_name = models.CharField(_("Bank"), max_length=100, blank=True)
    iban = models.CharField(_("IBAN"), max_length=42, blank=True, validators=[validate_iban])
    bic = models.CharField(_("BIC"), max_length=11, blank=True)
    ust_id = models.CharField(_("USt-IdNr."), max_length=20, blank=True)
    steuernummer = models.CharField(
        _("Steuernummer"),
        max_length=30,
        blank=True,
        help_text=_("Steht auf der Kostennote, wenn die Kanzlei keine USt-IdNr. hat (§ 14 Abs. 4 Nr. 2 UStG)."),
    )
    kammer = models.CharField(
        _("Rechtsanwaltskammer"), max_length=200, blank=True, help_text=_("z. B. Rechtsanwaltskammer Berlin")
    )
    logo = models.ImageField(_("Logo"), upload_to="kanzlei/", blank=True, help_text=_("PNG oder JPEG, erscheint im Briefkopf."))
    briefkopf_ausrichtung = models.CharField(
        _("Briefkopf: Ausrichtung"), max_length=10, choices=Ausrichtung.choices, default=Ausrichtung.RECHTS, blank=True
    )
    briefkopf_schrift = models.CharField(_("Schrift"), max_length=5, choices=Schrift.choices, default=Schrift.SANS, blank=True)
    briefkopf_fusszeile = models.BooleanField(
        _("Fußzeile mit Bankverbindung und USt-IdNr."), default=True, help_text=_("Üblich auf Briefbogen und Rechnungen.")
    )

    class Meta:
        verbose_name = _("Kanzleiprofil")
        verbose_name_plural = _("Kanzleiprofil")
        constraints = [
            models.CheckConstraint(
                condition=Q(pk=1), name="kanzleiprofil_singleton", violation_error_message=_("Es gibt nur ein Kanzleiprofil.")
            ),
            models.CheckConstraint(
                condition=Q(sitz_bundesland="") | Q(sitz_bundesland__in=list(BUNDESLAENDER)),
                name="kanzleiprofil_bundesland_valid",
                violation_error_message=_("Bitte wähle als Bundesland des Kanzleisitzes eines der angebotenen."),
            ),
        ]

    def __str__(self) -> str:
        return self.name or str(_("Kanzleiprofil"))

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.pk = self.SINGLETON_PK
        super().save(*args, **kwargs)

    @classmethod
    def current(cls) -> KanzleiProfil | None:
        return cls.objects.filter(pk=cls.SINGLETON_PK).first()

    @property
    def anschrift(self) -> str:
        return ", ".join(p for p in (self.strasse, f"{self.plz} {self.ort}".strip()) if p)


class RechnungsnummerZaehler(models.Model):
    """The last Rechnungsnummer issued in a year (§ 14 Abs. 4 Nr. 4 UStG: unique, sequential).
    Only `schriftgut.services.rechnungsnummer_vergeben` writes it, under a row lock; it never
    counts down, so a number is never issued twice (an undone Kostennote leaves a gap)."""

    jahr = models.PositiveIntegerField(_("Jahr"))
    letzte_nummer = models.PositiveIntegerField(_("zuletzt vergebene Nummer"), default=0)

    class Meta:
        verbose_name = _("Rechnungsnummernkreis")
        verbose_name_plural = _("Rechnungsnummernkreise")
        ordering = ["-jahr"]
        constraints = [
            models.UniqueConstraint(
                fields=["jahr"],
                name="rechnungsnummer_jahr_unique",
                violation_error_message=_("Für dieses Jahr gibt es schon einen Rechnungsnummernzähler."),
            )
        ]

    def __str__(self) -> str:
        return f"Rechnungsnummern {self.jahr}: zuletzt {self.letzte_nummer}"


class AkteBoundQuerySet(models.QuerySet[Any]):
    """Querysets of Akte-bound data reach it only through `Akte.objects.visible_to`.

    `akte_path` names the lookup from the model to its Akte; `mandant_filter` adds what a MANDANT
    may see of this kind of data (None: nothing).
    """

    akte_path = "akte"
    mandant_filter: Q | None = None

    def visible_to(self, user: Any) -> Any:
        scope = access_scope(user)
        if scope.nothing:
            return self.none()
        qs = self.filter(scope.akte_q(self.akte_path))
        if getattr(user, "role", None) == Role.MANDANT and not user.is_admin_role:
            return qs.filter(self.mandant_filter) if self.mandant_filter is not None else qs.none()
        return qs


class BeteiligterQuerySet(AkteBoundQuerySet):
    mandant_filter = Q()


class Beteiligter(models.Model):
    class Rolle(models.TextChoices):
        MANDANT = "MANDANT", _("Mandant/in")
        GEGNER = "GEGNER", _("Gegner/in")
        GEGNERVERTRETER = "GEGNERVERTRETER", _("Gegnervertreter/in")
        GERICHT = "GERICHT", _("Gericht")
        ZEUGE = "ZEUGE", _("Zeuge/Zeugin")
        SACHVERSTAENDIGER = "SACHVERSTAENDIGER", _("Sachverständige/r")
        SONSTIGER = "SONSTIGER", _("Sonstige/r")

    akte = models.ForeignKey(Akte, verbose_name=_("Akte"), on_delete=models.CASCADE, related_name="beteiligte")
    kontakt = models.ForeignKey(Kontakt, verbose_name=_("Kontakt"), on_delete=models.PROTECT, related_name="beteiligungen")
    rolle = models.CharField(_("Rolle"), max_length=20, choices=Rolle.choices)
    aktenzeichen_extern = models.CharField(_("Aktenzeichen des Beteiligten"), max_length=60, blank=True)

    objects = BeteiligterQuerySet.as_manager()

    class Meta:
        verbose_name = _("Beteiligter")
        verbose_name_plural = _("Beteiligte")
        ordering = ["akte", "rolle"]
        constraints = [
            models.UniqueConstraint(
                fields=["akte", "kontakt", "rolle"],
                name="beteiligter_unique",
                violation_error_message=_("Dieser Kontakt ist an der Akte schon in dieser Rolle beteiligt."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_rolle_display()}: {self.kontakt} (Akte {self.akte.aktenzeichen})"


def dokument_upload_to(instance: Dokument, filename: str) -> str:
    return f"akten/{instance.akte_id}/{timezone.now():%Y/%m}/{filename}"


class DokumentQuerySet(AkteBoundQuerySet):
    mandant_filter = Q(mandant_sichtbar=True)


class Dokument(models.Model):
    class Status(models.TextChoices):
        ENTWURF = "ENTWURF", _("Entwurf")
        ZUR_PRUEFUNG = "ZUR_PRUEFUNG", _("zur Prüfung")
        FREIGEGEBEN = "FREIGEGEBEN", _("freigegeben")
        VERSENDET = "VERSENDET", _("versendet")

    class TextStatus(models.TextChoices):
        AUSSTEHEND = "AUSSTEHEND", _("Texterkennung ausstehend")
        OK = "OK", _("Text erkannt")
        FEHLER = "FEHLER", _("Texterkennung fehlgeschlagen")
        BILD = "BILD", _("Bild, ohne Texterkennung")

    akte = models.ForeignKey(Akte, verbose_name=_("Akte"), on_delete=models.CASCADE, related_name="dokumente")
    name = models.CharField(_("Titel"), max_length=255)
    status = models.CharField(_("Status"), max_length=12, choices=Status.choices, default=Status.ENTWURF)
    datei = models.FileField(_("Datei"), upload_to=dokument_upload_to, max_length=500)
    text = models.TextField(_("Extrahierter Text"), blank=True)
    text_status = models.CharField(_("Texterkennung"), max_length=10, choices=TextStatus.choices, default=TextStatus.AUSSTEHEND)
    text_fehler = models.CharField(_("Fehler der Texterkennung"), max_length=300, blank=True)
    mime_type = models.CharField(_("MIME-Typ"), max_length=100)
    groesse = models.PositiveBigIntegerField(_("Größe (Bytes)"))
    erstellt_von = models.ForeignKey(
        User,
        verbose_name=_("erstellt von"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="dokumente",
    )
    erstellt_von_helena = models.BooleanField(_("von Helena entworfen"), default=False)
    mandant_sichtbar = models.BooleanField(_("für Mandant sichtbar"), default=False)
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)

    objects = DokumentQuerySet.as_manager()

    class Meta:
        verbose_name = _("Dokument")
        verbose_name_plural = _("Dokumente")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(name=""),
                name="dokument_name_not_empty",
                violation_error_message=_("Bitte gib dem Dokument einen Namen."),
            ),
            models.CheckConstraint(
                condition=~Q(text_status="FEHLER") | ~Q(text_fehler=""),
                name="dokument_fehler_has_reason",
                violation_error_message=_("Ist die Texterkennung fehlgeschlagen, gib bitte den Grund an."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} (Akte {self.akte.aktenzeichen})"

    @property
    def download_name(self) -> str:
        """The file name a download carries: the document's name with the stored file's extension,
        never the name the file was uploaded under (it may say what the name does not)."""
        stored = (self.datei.name or "").rsplit("/", 1)[-1]
        return download_filename(self.name, PurePosixPath(stored).suffix.lower())


def download_filename(name: str, suffix: str) -> str:
    """The name a download carries: a document's title as written („Kündigung Müller – Groß.pdf“,
    not „kundigung-muller.pdf“), without path separators, control characters or quotes, with
    `suffix` (".pdf", or "" for none) instead of a file extension the title ends in. Nor the
    characters Windows refuses in a file name (< > : | ? *): the lawyer saves it on a Kanzlei PC."""
    readable = re.sub(r"\s*\./\.\s*", " – ", name)  # „Müller ./. Groß“: the slash cannot stay
    readable = " ".join(re.sub(r'[\\/\x00-\x1f\x7f"<>:|?*]+', " ", readable).split())
    # every kind of file an Akte holds (akten.extraction.DATEIARTEN): not „Unfallfoto.jpg.jpg“
    readable = re.sub(r"\.(docx|pdf|txt|md|markdown|jpe?g|png|tiff?|webp|eml)$", "", readable, flags=re.IGNORECASE)[:120].strip(
        " ."
    )
    return f"{readable or 'Dokument'}{suffix}"


class KalenderEintragQuerySet(AkteBoundQuerySet):
    mandant_filter = Q(typ="TERMIN")

    def open(self) -> Any:
        return self.filter(erledigt=False)


class KalenderEintrag(models.Model):
    class Typ(models.TextChoices):
        FRIST = "FRIST", _("Frist")
        TERMIN = "TERMIN", _("Termin")
        WIEDERVORLAGE = "WIEDERVORLAGE", _("Wiedervorlage")

    akte = models.ForeignKey(Akte, verbose_name=_("Akte"), on_delete=models.CASCADE, related_name="kalender")
    typ = models.CharField(_("Typ"), max_length=14, choices=Typ.choices)
    titel = models.CharField(_("Bezeichnung"), max_length=200)
    beschreibung = models.TextField(_("Beschreibung"), blank=True)
    datum = models.DateField(
        _("Datum"),
        help_text=_("Termin- bzw. Wiedervorlagedatum; bei Fristen der Tag des auslösenden Ereignisses."),
        validators=[validate_plausible_date],
    )
    uhrzeit = models.TimeField(_("Uhrzeit"), null=True, blank=True)
    fristablauf = models.DateField(_("Fristablauf"), null=True, blank=True, validators=[validate_plausible_date])
    vorfrist = models.DateField(_("Vorfrist"), null=True, blank=True, validators=[validate_plausible_date])
    notfrist = models.BooleanField(_("Notfrist"), default=False)
    # What the Fristenrechner computed when the entry came from a computed draft ({"fristablauf":
    # ISO date, "notfrist", "rechtsgrundlage"}): no later path may move the Fristablauf past it
    # (akten.fristen_rules.berechnung_einhalten).
    berechnung = models.JSONField(_("Berechnung des Fristenrechners"), null=True, blank=True, editable=False)
    erledigt = models.BooleanField(_("erledigt"), default=False)
    erledigt_at = models.DateTimeField(_("erledigt am"), null=True, blank=True)
    erledigt_von = models.ForeignKey(
        User,
        verbose_name=_("erledigt von"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    verantwortlich = models.ForeignKey(
        User,
        verbose_name=_("verantwortlich"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="kalender_eintraege",
    )
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)

    objects = KalenderEintragQuerySet.as_manager()

    class Meta:
        verbose_name = _("Kalendereintrag")
        verbose_name_plural = _("Kalendereinträge (Fristen, Termine, Wiedervorlagen)")
        ordering = ["fristablauf", "datum"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(typ="FRIST") | Q(fristablauf__isnull=False),
                name="frist_has_fristablauf",
                violation_error_message=_("Eine Frist braucht einen Fristablauf."),
            ),
            models.CheckConstraint(
                condition=Q(typ="FRIST") | Q(notfrist=False),
                name="notfrist_only_for_frist",
                violation_error_message=_("Nur eine Frist kann eine Notfrist sein."),
            ),
            models.CheckConstraint(
                condition=Q(vorfrist__isnull=True) | Q(fristablauf__isnull=True) | Q(vorfrist__lte=models.F("fristablauf")),
                name="vorfrist_before_fristablauf",
                violation_error_message=_("Die Vorfrist darf nicht nach dem Fristablauf liegen."),
            ),
            models.CheckConstraint(
                condition=Q(fristablauf__isnull=True) | Q(fristablauf__gte=models.F("datum")),
                name="fristablauf_not_before_datum",
                violation_error_message=_("Der Fristablauf darf nicht vor dem Datum liegen."),
            ),
            models.CheckConstraint(
                condition=Q(erledigt=False) | Q(erledigt_at__isnull=False),
                name="erledigt_has_timestamp",
                violation_error_message=_("Ein erledigter Eintrag braucht den Zeitpunkt der Erledigung."),
            ),
            models.CheckConstraint(
                condition=~Q(titel=""), name="kalender_titel_not_empty", violation_error_message=_("Bitte gib einen Titel an.")
            ),
        ]
        indexes = [models.Index(fields=["erledigt", "fristablauf"])]

    def __str__(self) -> str:
        day = self.fristablauf or self.datum
        return f"{self.get_typ_display()} {day:%d.%m.%Y}: {self.titel} (Akte {self.akte.aktenzeichen})"


class Zeiterfassung(models.Model):
    akte = models.ForeignKey(Akte, verbose_name=_("Akte"), on_delete=models.CASCADE, related_name="zeiterfassungen")
    user = models.ForeignKey(User, verbose_name=_("Bearbeiter/in"), on_delete=models.PROTECT, related_name="zeiterfassungen")
    datum = models.DateField(_("Datum"), validators=[validate_plausible_date])
    # a day has 1,440 minutes (and no day more than 24 hours of one person's records: services)
    minuten = models.PositiveIntegerField(_("Minuten"), validators=[MinValueValidator(1), MaxValueValidator(1440)])
    beschreibung = models.CharField(_("Tätigkeit"), max_length=500)
    abrechenbar = models.BooleanField(_("abrechenbar"), default=True)
    stundensatz = models.DecimalField(
        _("Stundensatz (EUR)"),
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0"))],
    )
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)

    objects = AkteBoundQuerySet.as_manager()

    class Meta:
        verbose_name = _("Zeiterfassung")
        verbose_name_plural = _("Zeiterfassungen")
        ordering = ["-datum", "-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(minuten__gt=0),
                name="zeiterfassung_minuten_positive",
                violation_error_message=_("Bitte gib mindestens eine Minute an."),
            ),
            models.CheckConstraint(
                condition=Q(stundensatz__isnull=True) | Q(stundensatz__gte=0),
                name="zeiterfassung_stundensatz_nonnegative",
                violation_error_message=_("Der Stundensatz darf nicht negativ sein."),
            ),
            models.CheckConstraint(
                condition=~Q(beschreibung=""),
                name="zeiterfassung_beschreibung_not_empty",
                violation_error_message=_("Bitte beschreibe die Tätigkeit."),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.datum:%d.%m.%Y} {self.minuten} min {self.beschreibung[:40]} (Akte {self.akte.aktenzeichen})"


class NotizQuerySet(AkteBoundQuerySet):
    def visible_to(self, user: Any) -> Any:
        """Akte-bound notes through the chokepoint; general notes only for their author, and not one
        accepted from a Helena draft its author no longer sees (drafts.models.DraftQuerySet: its run
        read an Akte gone for them, a deputy after the Vertretung): it repeats what that run read,
        as its hidden answer and draft do. Through the drafts app's model by name (it lies above
        this app)."""
        on_akten = super().visible_to(user)
        if user is None or not user.is_authenticated:
            return self.none()
        shown = self.filter(Q(pk__in=on_akten.values("pk")) | Q(akte__isnull=True, autor=user))
        hidden = apps.get_model("drafts", "HelenaDraft").objects.hidden_from_requester(user)
        from_hidden_draft = hidden.filter(
            typ="NOTIZ",
            akte__isnull=True,
            result_object_id=OuterRef("pk"),
            result_content_type__app_label="akten",
            result_content_type__model="notiz",
        )
        return shown.exclude(Q(akte__isnull=True) & Exists(from_hidden_draft))


class Notiz(models.Model):
    akte = models.ForeignKey(
        Akte,
        verbose_name=_("Akte"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="notiz_set",
    )
    autor = models.ForeignKey(User, verbose_name=_("Autor/in"), on_delete=models.PROTECT, related_name="notizen")
    titel = models.CharField(_("Titel"), max_length=200, blank=True)
    text = models.TextField(_("Text"))
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)

    objects = NotizQuerySet.as_manager()

    class Meta:
        verbose_name = _("Notiz")
        verbose_name_plural = _("Notizen")
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(text=""),
                name="notiz_text_not_empty",
                violation_error_message=_("Bitte gib einen Text für die Notiz ein."),
            )
        ]

    def __str__(self) -> str:
        where = f"Akte {self.akte.aktenzeichen}" if self.akte else "allgemein"
        return f"Notiz {self.titel or self.text[:30]} ({where})"


class AktenActivityQuerySet(AkteBoundQuerySet):
    def visible_to(self, user: Any) -> Any:
        """The timeline through the chokepoint, without the entries of a draft whose run read an
        Akte `user` may not see now (drafts.models.DraftQuerySet, `content_hidden`): their title can
        repeat what that run read. Its requester loses them all, as the draft; the Akte's team,
        which keeps the draft, loses those before a human approved it (the card shows no more
        either). Through the drafts app's model by name (it lies above this app)."""
        shown = super().visible_to(user)
        if not shown.query.is_empty():
            drafts = apps.get_model("drafts", "HelenaDraft").objects
            draft_id = Cast(KeyTextTransform("draft", "data"), models.BigIntegerField())
            hidden = drafts.content_hidden_from(user).filter(pk=OuterRef("draft_id"))
            hidden_entry = Exists(hidden.filter(requested_by=user)) | (
                Q(typ__in=self.model.ENTWURF_VOR_PRUEFUNG) & Exists(hidden)
            )
            shown = shown.alias(draft_id=draft_id).exclude(hidden_entry)
        return shown


class AktenActivity(models.Model):
    """The Akte's timeline. Written by services only, always with the actor."""

    class Typ(models.TextChoices):
        AKTE_ANGELEGT = "AKTE_ANGELEGT", _("Akte angelegt")
        AKTE_GEAENDERT = "AKTE_GEAENDERT", _("Akte geändert")
        DOKUMENT_HOCHGELADEN = "DOKUMENT_HOCHGELADEN", _("Dokument hochgeladen")
        DOKUMENT_ANGELEGT = "DOKUMENT_ANGELEGT", _("Dokument angelegt")
        DOKUMENT_NEUE_VERSION = "DOKUMENT_NEUE_VERSION", _("neue Version eines Dokuments")
        KALENDER_ANGELEGT = "KALENDER_ANGELEGT", _("Frist/Termin angelegt")
        ZEIT_ERFASST = "ZEIT_ERFASST", _("Zeit erfasst")
        NOTIZ_ANGELEGT = "NOTIZ_ANGELEGT", _("Notiz angelegt")
        ENTWURF_ERSTELLT = "ENTWURF_ERSTELLT", _("Entwurf von Helena erstellt")
        ENTWURF_UEBERNOMMEN = "ENTWURF_UEBERNOMMEN", _("Entwurf übernommen (Endkontrolle)")
        ENTWURF_BEARBEITET = "ENTWURF_BEARBEITET", _("Entwurf bearbeitet")
        ENTWURF_ABGELEHNT = "ENTWURF_ABGELEHNT", _("Entwurf abgelehnt")
        ENTWURF_RUECKGAENGIG = "ENTWURF_RUECKGAENGIG", _("Übernahme rückgängig gemacht")
        NACHRICHT_EINGEGANGEN = "NACHRICHT_EINGEGANGEN", _("Nachricht der Mandantschaft eingegangen")
        KALENDER_ERLEDIGT = "KALENDER_ERLEDIGT", _("Frist/Wiedervorlage erledigt")
        KALENDER_WIEDER_OFFEN = "KALENDER_WIEDER_OFFEN", _("Frist/Wiedervorlage wieder offen")

    # entries of a draft before a human approved it (AktenActivityQuerySet.visible_to)
    ENTWURF_VOR_PRUEFUNG = (Typ.ENTWURF_ERSTELLT, Typ.ENTWURF_BEARBEITET, Typ.ENTWURF_ABGELEHNT)

    akte = models.ForeignKey(Akte, verbose_name=_("Akte"), on_delete=models.CASCADE, related_name="activities")
    typ = models.CharField(_("Typ"), max_length=30, choices=Typ.choices)
    beschreibung = models.CharField(_("Beschreibung"), max_length=500)
    actor_user = models.ForeignKey(
        User,
        verbose_name=_("durch Benutzer"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    actor_run = models.ForeignKey(
        "agent.AgentRun",
        verbose_name=_("durch Helena-Lauf"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    data = models.JSONField(_("Daten"), default=dict, blank=True)
    created_at = models.DateTimeField(_("Zeitpunkt"), default=timezone.now)

    objects = AktenActivityQuerySet.as_manager()

    class Meta:
        verbose_name = _("Aktenverlauf")
        verbose_name_plural = _("Aktenverlauf")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(actor_user__isnull=False) | Q(actor_run__isnull=False),
                name="activity_has_actor",
                violation_error_message=_(
                    "Ein Eintrag im Aktenverlauf braucht eine handelnde Person oder einen Lauf von Helena."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%d.%m.%Y %H:%M} {self.get_typ_display()} (Akte {self.akte.aktenzeichen})"

    @property
    def actor_label(self) -> str:
        if self.actor_run_id:
            return f"Helena (Lauf {self.actor_run_id})"
        if self.actor_user is None:
            return "–"
        return self.actor_user.get_full_name() or self.actor_user.email


class DokumentVorlage(models.Model):
    """A firm template (Muster) as DOCX with placeholders (docxtpl/Jinja, see schriftgut.platzhalter).
    `clean()` refuses files that are no DOCX, break the template syntax or use unknown placeholders."""

    class Art(models.TextChoices):
        SCHRIFTSATZ = "SCHRIFTSATZ", _("Schriftsatz an das Gericht")
        BRIEF = "BRIEF", _("Brief")
        KOSTENNOTE = "KOSTENNOTE", _("Kostennote / Rechnung")

    name = models.CharField(_("Name"), max_length=100, unique=True, help_text=_("z. B. „Klageerwiderung“"))
    art = models.CharField(_("Art"), max_length=12, choices=Art.choices, default=Art.SCHRIFTSATZ)
    beschreibung = models.CharField(_("Beschreibung"), max_length=300, blank=True)
    mandant_partei = models.CharField(
        _("Mandant ist"),
        max_length=10,
        choices=[("KLAEGER", _("Klagepartei")), ("BEKLAGTER", _("beklagte Partei"))],
        blank=True,
        help_text=_("Für das Rubrum eines Schriftsatzes; leer bei Briefen."),
    )
    datei = models.FileField(_("Word-Datei (DOCX)"), upload_to="vorlagen/", max_length=300)
    aktiv = models.BooleanField(_("aktiv"), default=True)
    hochgeladen_von = models.ForeignKey(
        User, verbose_name=_("hochgeladen von"), on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)

    class Meta:
        verbose_name = _("Dokumentvorlage")
        verbose_name_plural = _("Dokumentvorlagen")
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(name=""),
                name="vorlage_name_not_empty",
                violation_error_message=_("Bitte gib der Vorlage einen Namen."),
            )
        ]

    def __str__(self) -> str:
        return f"Vorlage {self.name}"

    def clean(self) -> None:
        from django.core.exceptions import ValidationError

        from schriftgut.vorlagen import VorlagenFehler, vorlage_pruefen

        if not self.datei:
            return
        self.datei.open("rb")
        try:
            self.datei.seek(0)
            inhalt = self.datei.read()
        finally:
            self.datei.seek(0)
        try:
            vorlage_pruefen(inhalt)
        except VorlagenFehler as fehler:
            raise ValidationError({"datei": fehler.message}) from fehler


class VorlagenStand(models.Model):
    """An immutable copy of the template a draft was made from, keyed by its SHA-256: the draft
    still renders when the template is later changed or deleted."""

    sha256 = models.CharField(_("SHA-256"), max_length=64, unique=True)
    name = models.CharField(_("Name der Vorlage"), max_length=100)
    inhalt = models.BinaryField(_("DOCX"))
    created_at = models.DateTimeField(_("angelegt"), auto_now_add=True)

    class Meta:
        verbose_name = _("Vorlagenstand")
        verbose_name_plural = _("Vorlagenstände")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Vorlage {self.name} ({self.sha256[:10]})"


def dokument_version_upload_to(instance: DokumentVersion, filename: str) -> str:
    return f"akten/{instance.dokument.akte_id}/versionen/{instance.dokument_id}/{instance.nummer}-{filename}"


class DokumentVersionQuerySet(AkteBoundQuerySet):
    """A MANDANT gets no versions (akten/policy.py): earlier versions may hold text the Kanzlei
    revised before it released the document; she downloads the released document itself."""

    akte_path = "dokument__akte"


class DokumentVersion(models.Model):
    """One version of a Dokument with who/when. The newest is also the Dokument's own file;
    earlier versions stay downloadable."""

    dokument = models.ForeignKey(Dokument, verbose_name=_("Dokument"), on_delete=models.CASCADE, related_name="versionen")
    nummer = models.PositiveIntegerField(_("Version"))
    datei = models.FileField(_("Datei"), upload_to=dokument_version_upload_to, max_length=500)
    mime_type = models.CharField(_("MIME-Typ"), max_length=100)
    quelle_markdown = models.TextField(_("Quelltext (Markdown)"), blank=True)
    vorlage = models.JSONField(_("Vorlage (Stand)"), default=dict, blank=True)
    erstellt_von = models.ForeignKey(
        User, verbose_name=_("erstellt von"), on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(_("angelegt"), default=timezone.now)

    objects = DokumentVersionQuerySet.as_manager()

    class Meta:
        verbose_name = _("Dokumentversion")
        verbose_name_plural = _("Dokumentversionen")
        ordering = ["dokument", "-nummer"]
        constraints = [
            models.UniqueConstraint(
                fields=["dokument", "nummer"],
                name="dokumentversion_nummer_unique",
                violation_error_message=_("Diese Versionsnummer gibt es für das Dokument schon."),
            )
        ]

    def __str__(self) -> str:
        return f"{self.dokument.name} Version {self.nummer}"
