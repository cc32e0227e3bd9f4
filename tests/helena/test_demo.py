"""The demo Kanzlei of `make run`: complete and created only once."""

from __future__ import annotations

import datetime

import pytest

from akten.models import Akte, AktenActivity, Dokument, KalenderEintrag, Notiz, User, Zeiterfassung
from drafts.models import HelenaDraft
from helena.demo import AKTEN_COUNT, DEMO_USERS, seed_demo

pytestmark = pytest.mark.django_db

TODAY = datetime.date(2026, 11, 23)


def test_the_demo_kanzlei_is_complete_and_a_second_run_creates_nothing(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    first = seed_demo(today=TODAY)

    assert first["akten"] == AKTEN_COUNT == Akte.objects.count()
    assert User.objects.filter(email__in=[spec.email for spec in DEMO_USERS]).count() == len(DEMO_USERS)
    assert Dokument.objects.count() and Notiz.objects.count() == AKTEN_COUNT
    assert Zeiterfassung.objects.count() == 2 * AKTEN_COUNT
    assert HelenaDraft.objects.filter(status=HelenaDraft.Status.PENDING).count() == 5
    assert KalenderEintrag.objects.filter(typ="FRIST", fristablauf__lte=TODAY + datetime.timedelta(days=7)).exists()
    erika = User.objects.get(email="erika.mustermann@example.org")
    assert Akte.objects.visible_to(erika).count() == 2
    counts = (Akte.objects.count(), AktenActivity.objects.count(), HelenaDraft.objects.count())

    assert seed_demo(today=TODAY)["akten"] == 0
    assert (Akte.objects.count(), AktenActivity.objects.count(), HelenaDraft.objects.count()) == counts
