"""The flat `visible_to` (AccessScope resolved to ids) against the rule it implements, on random
Kanzleien; and when a resolved scope may be reused."""

import datetime
import random

import pytest
from django.db import connection
from django.db.models import Q
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from akten.models import (
    Akte,
    Beteiligter,
    Dokument,
    KalenderEintrag,
    Role,
    User,
    Vertretung,
    access_scope,
    access_scope_reused,
)
from tests.factories import (
    AkteFactory,
    BeteiligterFactory,
    DezernatFactory,
    DokumentFactory,
    KalenderEintragFactory,
    UserFactory,
    VertretungFactory,
)

pytestmark = pytest.mark.django_db

ROLES = [Role.ADMIN, Role.ANWALT, Role.SACHBEARBEITER, Role.SEKRETARIAT, Role.PRAKTIKANT, Role.MANDANT]


def reference_visible(user: User) -> set[int]:
    """The access rule written out the long way, with nested subqueries (the former implementation)."""
    if not user.is_active:
        return set()
    if user.is_admin_role:
        return set(Akte.objects.values_list("pk", flat=True))
    if user.role == Role.MANDANT:
        mandate = Beteiligter.objects.filter(kontakt_id=user.kontakt_id, rolle=Beteiligter.Rolle.MANDANT)
        return set(Akte.objects.filter(pk__in=mandate.values("akte_id")).values_list("pk", flat=True))
    principals = Q(pk=user.pk) | Q(pk__in=Vertretung.objects.active().filter(vertreter=user).values("vertretener_id"))
    principal_ids = User.objects.filter(principals).values("pk")
    in_dezernat = Akte.dezernate.through.objects.filter(dezernat__members__in=principal_ids).values("akte_id")
    akten = Akte.objects.filter(Q(anwalt__in=principal_ids) | Q(sachbearbeiter__in=principal_ids) | Q(pk__in=in_dezernat))
    return set(akten.values_list("pk", flat=True))


def random_kanzlei(seed: int) -> list[User]:
    rng = random.Random(seed)
    today = timezone.localdate()
    users = [UserFactory(role=rng.choice(ROLES), is_active=rng.random() > 0.1) for _ in range(8)]
    staff = [u for u in users if u.role not in (Role.MANDANT, Role.ADMIN)] or [UserFactory(role=Role.ANWALT)]
    dezernate = [DezernatFactory() for _ in range(3)]
    for dezernat in dezernate:
        dezernat.members.add(*rng.sample(staff, k=rng.randint(0, len(staff))))
    for _ in range(4):
        vertreter, vertretener = rng.sample([*staff, UserFactory(role=Role.ANWALT)], k=2)
        start = today + datetime.timedelta(days=rng.randint(-20, 3))
        ende = start + datetime.timedelta(days=rng.randint(0, 10))
        VertretungFactory(vertreter=vertreter, vertretener=vertretener, beginn=start, ende=ende)
    for _ in range(12):
        akte = AkteFactory(anwalt=rng.choice([None, *staff]), sachbearbeiter=rng.choice([None, *staff]))
        akte.dezernate.add(*rng.sample(dezernate, k=rng.randint(0, 2)))
        for mandant in users:
            if mandant.role == Role.MANDANT and rng.random() < 0.3:
                BeteiligterFactory(akte=akte, kontakt=mandant.kontakt, rolle=rng.choice(list(Beteiligter.Rolle)))
        DokumentFactory(akte=akte, mandant_sichtbar=rng.random() < 0.5)
        KalenderEintragFactory(akte=akte)
    return users


@pytest.mark.parametrize("seed", range(6))
def test_flat_visible_to_equals_the_rule_on_random_kanzleien(seed):
    users = random_kanzlei(seed)
    for user in users:
        expected = reference_visible(user)
        assert set(Akte.objects.visible_to(user).values_list("pk", flat=True)) == expected, user.role
        documents = set(Dokument.objects.visible_to(user).values_list("akte_id", flat=True))
        eintraege = set(KalenderEintrag.objects.visible_to(user).values_list("akte_id", flat=True))
        assert documents <= expected and eintraege <= expected
        if user.role != Role.MANDANT and user.is_active:
            assert documents == expected and eintraege == expected


def test_scope_is_resolved_afresh_outside_a_reuse_block():
    user = UserFactory(role=Role.SACHBEARBEITER)
    colleague = UserFactory(role=Role.ANWALT)
    akte = AkteFactory(anwalt=colleague)
    assert not Akte.objects.visible_to(user).filter(pk=akte.pk).exists()
    vertretung = VertretungFactory(vertreter=user, vertretener=colleague)
    assert Akte.objects.visible_to(user).filter(pk=akte.pk).exists()
    vertretung.delete()
    assert not Akte.objects.visible_to(user).filter(pk=akte.pk).exists()


def test_scope_is_resolved_once_inside_a_reuse_block():
    user = UserFactory(role=Role.ANWALT)
    AkteFactory(anwalt=user)
    with access_scope_reused():
        first = access_scope(user)
        with CaptureQueriesContext(connection) as queries:
            assert access_scope(user) is first
            Akte.objects.visible_to(user).count()
            Dokument.objects.visible_to(user).count()
        assert len(queries) == 2  # the two counts, no further scope resolution
    with CaptureQueriesContext(connection) as queries:
        access_scope(user)
    assert len(queries) == 1  # principals and Dezernate in one query, resolved again outside the block


def test_inactive_and_anonymous_users_see_nothing():
    from django.contrib.auth.models import AnonymousUser

    inactive = UserFactory(role=Role.ANWALT, is_active=False)
    AkteFactory(anwalt=inactive)
    assert not Akte.objects.visible_to(inactive).exists()
    assert not Akte.objects.visible_to(AnonymousUser()).exists()
    assert not Dokument.objects.visible_to(None).exists()


def test_a_user_deactivated_meanwhile_sees_nothing_even_with_a_stale_user_object():
    """A run keeps its user object for minutes: each resolution reads the user's row as it is now."""
    user = UserFactory(role=Role.ANWALT)
    akte = AkteFactory(anwalt=user)
    assert Akte.objects.visible_to(user).filter(pk=akte.pk).exists()
    type(user).objects.filter(pk=user.pk).update(is_active=False)
    assert user.is_active  # the object in memory still says active
    assert not Akte.objects.visible_to(user).exists()
