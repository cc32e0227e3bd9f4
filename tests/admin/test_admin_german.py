"""The admin as a Kanzlei admin reads it: every list, add, change, history and delete page as a
superuser, with a row of every model, has no English leftovers (Django's, third-party apps' or
ours); our models label their fields in German; every time is shown in Europe/Berlin; the
pseudonymisation default and the rate limits in force are written out."""

from __future__ import annotations

import datetime
import html
import re
from collections import Counter
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from agent.models import AgentRun, AnswerFeedback, ConfigChange, Conversation, EngineConfig, Message, RateLimit, TierConfig
from akten.models import Role
from tests.agent.factories import ToolCallAuditFactory, ToolPermissionFactory
from tests.factories import (
    AkteFactory,
    AktenActivityFactory,
    BasiszinssatzFactory,
    BeteiligterFactory,
    DezernatFactory,
    DokumentFactory,
    HelenaAlertFactory,
    HelenaDraftFactory,
    KalenderEintragFactory,
    NotizFactory,
    UserFactory,
    VertretungFactory,
    ZeiterfassungFactory,
)

pytestmark = pytest.mark.django_db

# Words of English UI text that German never uses (compared as whole words, any case).
ENGLISH_WORDS = frozenset(
    """the and of with from this that add change delete save another continue editing history view site
    search go select show hide counts today now yes unknown any past days month year home recent actions my
    none available welcome password documentation selected close choose clear currently note you are hours
    ahead behind server task result results run after priority queue enqueued started finished content type
    object created updated user users group groups permissions first last address active true false args
    kwargs value exception traceback can raw stored reset enabled disabled entry not there way is be will
    more options edit""".split()
)
OUR_APPS = ("akten", "drafts", "agent", "recherche", "schriftgut", "rechner", "helena")


def visible_text(page: str) -> str:
    """What a person reads or hears: text outside scripts and styles, titles, labels, alt texts
    (code names such as `search_normen`, shown as code next to their German name, are no prose)."""
    page = re.sub(r"(?s)<(script|style|template|code|pre)\b[^>]*>.*?</\1>", " ", page)
    spoken = re.findall(r'\b(?:title|placeholder|aria-label|alt)="([^"]*)"', page)
    return html.unescape(re.sub(r"(?s)<[^>]+>", " ", page) + " " + " ".join(spoken))


def english_words(text: str) -> Counter[str]:
    """English words of prose; ids such as the UUID 63ae5ce6-6525-49ca-be26-… and the masked salt
    and hash of a password ("IS+x4o**********", random letters) are no words."""
    text = re.sub(r"\b[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}\b", " ", text)
    text = re.sub(r"\S+\*{3,}", " ", text)
    return Counter(word for word in re.findall(r"\b[A-Za-z]+\b", text) if word.lower() in ENGLISH_WORDS)


@pytest.fixture
def superuser(client: Any) -> Any:
    user = UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True, first_name="Anna", last_name="Admin")
    client.force_login(user)
    return user


@pytest.fixture
def a_row_of_every_model(superuser: Any) -> None:
    akte = AkteFactory()
    BeteiligterFactory(akte=akte)
    DokumentFactory(akte=akte)
    KalenderEintragFactory(akte=akte)
    ZeiterfassungFactory(akte=akte)
    NotizFactory(akte=akte)
    AktenActivityFactory(akte=akte)
    HelenaDraftFactory(akte=akte)
    HelenaAlertFactory(akte=akte)
    VertretungFactory()
    DezernatFactory()
    BasiszinssatzFactory(created_by=superuser)
    run = AgentRun.objects.create(user=superuser, akte=akte, task="Frage")
    ToolCallAuditFactory()
    ToolPermissionFactory()
    TierConfig.objects.create(tier=1, name="Klein", model="qwen2.5:7b-instruct")
    EngineConfig.load()
    RateLimit.objects.create(role=Role.ANWALT, runs_per_hour=5)
    ConfigChange.objects.create(
        user=superuser, model="agent.TierConfig", object_repr="Stufe 1", before={"model": "a"}, after={"model": "b"}
    )
    conversation = Conversation.objects.create(user=superuser, title="Frage")
    message = Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, text="Antwort", run=run)
    AnswerFeedback.objects.create(message=message, user=superuser, rating="UP")
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.create(
        args_kwargs={"args": [], "kwargs": {}}, task_path="agent.runs.tasks.run_execute", backend_name="default",
        run_after=timezone.now(), exception_class_path="", traceback="",
    )  # fmt: skip


def admin_pages() -> list[str]:
    pages = ["/admin/"]
    for model in admin.site._registry:
        opts = model._meta
        for view in ("changelist", "add"):
            pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_{view}"))
        row = model._default_manager.order_by("pk").first()
        if row is not None:
            for view in ("change", "history", "delete"):
                try:
                    pages.append(reverse(f"admin:{opts.app_label}_{opts.model_name}_{view}", args=[row.pk]))
                except NoReverseMatch:
                    continue
    return pages


def test_settings_are_german_and_berlin():
    assert settings.LANGUAGE_CODE == "de" and settings.USE_I18N
    assert settings.TIME_ZONE == "Europe/Berlin" and settings.USE_TZ


def test_the_english_check_finds_django_leftovers():
    page = '<p>After you’ve created a user</p><img src="x" alt="True"><script>var the = 1;</script>'
    assert english_words(visible_text(page)) == Counter({"After": 1, "created": 1, "user": 1, "you": 1, "True": 1})


def test_a_masked_password_hash_is_no_english_word():
    """The user's change page shows the first letters of the salt and hash; by chance they read
    "IS" or "be" (the check failed once on "hash: IS…")."""
    assert english_words("Algorithmus: pbkdf2_sha256 Salt: be3xQ1********** Hash: IS+x4o**********") == Counter()
    assert english_words("the user") == Counter({"the": 1, "user": 1})


def test_no_admin_page_has_english_leftovers(client, a_row_of_every_model):
    pages = admin_pages()
    assert len(pages) > 60
    found: dict[str, Counter[str]] = {}
    seen = 0
    for url in pages:
        response = client.get(url)
        if response.status_code != 200:  # pages the admin withholds (no add, no delete) are 403
            assert response.status_code in (302, 403), url
            continue
        seen += 1
        words = english_words(visible_text(response.content.decode()))
        if words:
            found[url] = words
    assert seen > 50
    assert found == {}


def test_our_models_label_fields_and_models_in_german():
    english = []
    for model in apps.get_models():
        if model._meta.app_label not in OUR_APPS:
            continue
        for text in (model._meta.verbose_name, model._meta.verbose_name_plural):
            if english_words(str(text)):
                english.append(f"{model._meta.label}: {text}")
        for field in model._meta.get_fields():
            for text in (getattr(field, "verbose_name", ""), getattr(field, "help_text", "")):
                if english_words(str(text)):
                    english.append(f"{model._meta.label}.{field.name}: {text}")
    # the draft's generic relation (the admin shows it as „Angelegter Datensatz“) and the search
    # index (not in the admin) keep their code names
    allowed = {
        "drafts.HelenaDraft.result_content_type",
        "drafts.HelenaDraft.result_object_id",
        "drafts.HelenaDraft.result",
        "recherche.Chunk.search_vector",
    }
    assert [entry for entry in english if entry.split(":")[0] not in allowed] == []


def test_times_are_shown_in_berlin_time_in_lists_and_details(client, superuser):
    moment = datetime.datetime(2026, 7, 1, 10, 5, tzinfo=datetime.UTC)  # 12:05 in Berlin (summer time)
    change = ConfigChange.objects.create(
        user=superuser, model="agent.TierConfig", object_repr="Stufe 1",
        before={"updated_at": "2026-01-15T08:30:00Z"}, after={"updated_at": "2026-07-01T10:05:00Z"},
    )  # fmt: skip
    ConfigChange.objects.filter(pk=change.pk).update(created_at=moment)

    listing = visible_text(client.get("/admin/agent/configchange/").content.decode())
    detail = visible_text(client.get(f"/admin/agent/configchange/{change.pk}/change/").content.decode())

    assert "12:05" in listing and "10:05" not in listing
    assert "12:05" in detail
    # the stored UTC text of the before/after values, too: 08:30 UTC in January is 09:30 in Berlin
    assert "15.01.2026, 09:30:00" in detail and "01.07.2026, 12:05:00" in detail
    assert "Alle Zeiten in deutscher Zeit (Europe/Berlin)" in detail


def test_tier_form_writes_out_the_pseudonymisation_default(client, superuser):
    cloud = TierConfig.objects.create(tier=3, name="Cloud", model="gpt", is_cloud=True, base_url="https://example.invalid/v1")
    local = TierConfig.objects.create(tier=1, name="Lokal", model="qwen", pseudonymize=True)

    form = visible_text(client.get(f"/admin/agent/tierconfig/{cloud.pk}/change/").content.decode())
    listing = visible_text(client.get("/admin/agent/tierconfig/").content.decode())

    assert "Standard: an bei Cloud-Modellen, aus bei lokalen Modellen" in form
    assert "Für diese Stufe gilt jetzt: an (Standard für Cloud-Modelle)." in form
    assert "an (Standard für Cloud-Modelle)" in listing and "an (eigene Einstellung)" in listing
    assert local.pseudonymize is True


def test_tier_form_saves_the_pseudonymisation_choice():
    from agent.admin.config import TierConfigForm

    tier = TierConfig.objects.create(tier=2, name="Groß", model="big")
    data = {"tier": 2, "name": "Groß", "provider": "OLLAMA", "model": "big", "context_window": 8192, "timeout_seconds": 60}
    for choice, stored in (("false", False), ("true", True), ("", None)):
        form = TierConfigForm(data={**data, "pseudonymize": choice}, instance=tier)
        assert form.is_valid(), form.errors
        assert form.save().pseudonymize is stored


def test_rate_limit_pages_show_the_defaults_in_force(client, superuser, settings):
    settings.HELENA_RATELIMIT_WRITE = "77/m"
    listing = visible_text(client.get("/admin/agent/ratelimit/").content.decode())
    form = visible_text(client.get("/admin/agent/ratelimit/add/").content.decode())
    assert "Schreibende API-Aufrufe je Benutzer 77/m Umgebungsvariable HELENA_RATELIMIT_WRITE" in " ".join(listing.split())
    assert "Ohne eigene Einstellung gilt der Standard je Rolle: Administrator 120" in form


def test_permissions_have_german_names(client, superuser):
    page = visible_text(client.get("/admin/auth/group/add/").content.decode())
    assert "Akten | Akte | darf ändern" in page and "Can change" not in page
