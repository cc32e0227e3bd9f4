"""Chat page, conversations, Meine Aufträge, the Akte page's cards and `@Helena` notes."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from agent.models import AgentRun, AgentStep, Conversation, Message
from akten.models import Notiz, Role
from drafts.models import HelenaDraft
from tests.factories import AkteFactory, DokumentFactory, HelenaDraftFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_chat_page_needs_login(client):
    response = client.get("/helena/")
    assert response.status_code == 302 and response.url.startswith("/anmelden/")


def test_chat_page_offers_only_visible_akten_and_loads_scripts_without_inline_code(client):
    mine = AkteFactory(kurzrubrum="Meine Akte")
    AkteFactory(kurzrubrum="Fremde Akte")
    client.force_login(mine.anwalt)
    response = client.get("/helena/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Meine Akte" in html and "Fremde Akte" not in html
    assert "Keine Akte (allgemeine Frage)" in html
    assert "js/helena-chat.js" in html and "js/helena-cards.js" in html
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    # the only <script> elements without src are JSON data blocks
    for chunk in html.split("<script")[1:]:
        head = chunk.split(">", 1)[0]
        assert "src=" in head or 'type="application/json"' in head


def test_conversation_shows_answers_as_sanitised_markdown_with_cards(client):
    akte = AkteFactory()
    user = akte.anwalt
    conversation = Conversation.objects.create(user=user, akte=akte, title="Berufung")
    run = AgentRun.objects.create(user=user, akte=akte, conversation=conversation, status="DONE", finished_at=timezone.now())
    Message.objects.create(conversation=conversation, role="USER", text="Frage <b>fett</b>", run=run)
    Message.objects.create(
        conversation=conversation,
        role="ASSISTANT",
        text="**Antwort** <script>alert(1)</script> [x](javascript:alert(1))",
        run=run,
    )
    HelenaDraftFactory(akte=akte, origin_run=run, titel="Entwurf Notiz")
    client.force_login(user)
    html = client.get(f"/helena/gespraeche/{conversation.pk}/").content.decode()
    assert "<strong>Antwort</strong>" in html
    assert "<script>alert(1)</script>" not in html and "javascript:alert" not in html
    assert "Frage &lt;b&gt;fett&lt;/b&gt;" in html
    assert 'class="badge mode-badge"><svg class="icon"' in html and "Inline</span>" in html and "⚡" not in html
    cards = json.loads(html.split('id="chat-cards" type="application/json">')[1].split("</script>")[0])
    assert cards[str(run.pk)][0]["titel"] == "Entwurf Notiz"


def test_another_users_conversation_is_not_found(client):
    conversation = Conversation.objects.create(user=UserFactory(), title="Privat")
    client.force_login(UserFactory())
    assert client.get(f"/helena/gespraeche/{conversation.pk}/").status_code == 404
    assert client.post(f"/helena/gespraeche/{conversation.pk}/umbenennen/", {"title": "x"}).status_code == 404
    assert client.post(f"/helena/gespraeche/{conversation.pk}/loeschen/").status_code == 404
    assert Conversation.objects.filter(pk=conversation.pk, title="Privat").exists()


def test_new_rename_delete_conversation(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    response = client.post("/helena/gespraeche/neu/", {"akte": akte.pk})
    conversation = Conversation.objects.get(user=akte.anwalt)
    assert response.url == f"/helena/gespraeche/{conversation.pk}/"
    assert conversation.akte == akte and conversation.title == f"Akte {akte.aktenzeichen}"
    client.post(f"/helena/gespraeche/{conversation.pk}/umbenennen/", {"title": "Berufung Müller"})
    conversation.refresh_from_db()
    assert conversation.title == "Berufung Müller"
    response = client.post(f"/helena/gespraeche/{conversation.pk}/umbenennen/", {"title": "  "}, follow=True)
    assert "Bitte gib einen Titel ein." in response.content.decode()
    client.post(f"/helena/gespraeche/{conversation.pk}/loeschen/")
    assert not Conversation.objects.filter(pk=conversation.pk).exists()


def test_new_conversation_for_a_foreign_akte_is_refused(client):
    foreign = AkteFactory()
    client.force_login(UserFactory())
    assert client.post("/helena/gespraeche/neu/", {"akte": foreign.pk}).status_code == 404
    assert not Conversation.objects.exists()


def test_meine_auftraege_lists_only_my_runs_with_progress_tokens_and_cancel(client, django_assert_max_num_queries):
    user = UserFactory(role=Role.ADMIN)
    akte = AkteFactory(anwalt=user)
    running = AgentRun.objects.create(
        user=user, akte=akte, task="Prüfe die Verjährung", mode="BACKGROUND", status="RUNNING", steps_used=3, max_steps=20,
        tokens_in=1200, tokens_out=300, started_at=timezone.now(),
    )  # fmt: skip
    AgentRun.objects.create(user=UserFactory(), task="Fremder Auftrag", status="DONE", finished_at=timezone.now())
    HelenaDraftFactory(akte=akte, origin_run=running)
    client.force_login(user)
    with django_assert_max_num_queries(12):
        html = client.get("/helena/auftraege/").content.decode()
    assert "Prüfe die Verjährung" in html and "Fremder Auftrag" not in html
    assert "🔄 Hintergrund" in html and "3/20 Schritte" in html and "1500" in html
    assert "1 Entwurf" in html and f"/helena/auftraege/{running.pk}/abbrechen/" in html


def test_meine_auftraege_shows_finished_runs_as_finished_with_durations_and_origins(client):
    user = UserFactory(role=Role.ANWALT)
    now = timezone.now()
    done = AgentRun.objects.create(
        user=user, task="Welche Fristen laufen?", status="CAP_REACHED", steps_used=1, max_steps=20, tokens_in=900,
        tokens_out=100, started_at=now - timezone.timedelta(seconds=12), finished_at=now,
    )  # fmt: skip
    AgentRun.objects.create(
        user=user, task="Abgebrochen vor dem Start", status="CANCELLED", cancel_requested=True,
        finished_at=timezone.now() + timezone.timedelta(seconds=5),
    )  # fmt: skip
    continuation = AgentRun.objects.create(
        user=user, task="Welche Fristen laufen?", mode="BACKGROUND", status="DONE", steps_used=4, continued_from=done,
        started_at=now, finished_at=now + timezone.timedelta(seconds=75),
    )  # fmt: skip
    client.force_login(user)
    html = client.get("/helena/auftraege/").content.decode()
    assert "1/20 Schritte" not in html and "beendet nach 1 Schritt" in html and "beendet nach 4 Schritten" in html
    assert "12 s" in html and "1 min 15 s" in html
    assert "abgebrochen vor dem Start" in html and "5 s" in html
    assert f'href="#run-{done.pk}"' in html and f'id="run-{continuation.pk}"' in html
    assert "Tokens" not in html and "1000" not in html


def test_cancel_from_meine_auftraege_and_foreign_run_is_not_found(client):
    user = UserFactory()
    run = AgentRun.objects.create(user=user, task="x", status="RUNNING", started_at=timezone.now())
    foreign = AgentRun.objects.create(user=UserFactory(), task="y", status="RUNNING", started_at=timezone.now())
    client.force_login(user)
    assert client.post(f"/helena/auftraege/{foreign.pk}/abbrechen/").status_code == 404
    client.post(f"/helena/auftraege/{run.pk}/abbrechen/")
    run.refresh_from_db()
    foreign.refresh_from_db()
    assert run.cancel_requested and not foreign.cancel_requested


def test_akte_page_renders_draft_cards_data_and_note_form(client):
    akte = AkteFactory()
    HelenaDraftFactory(akte=akte, titel="Rückruf notieren", untrusted_input=True)
    client.force_login(akte.anwalt)
    html = client.get(f"/akten/{akte.pk}/").content.decode()
    cards = json.loads(html.split('id="akte-cards-data" type="application/json">')[1].split("</script>")[0])
    assert cards[0]["titel"] == "Rückruf notieren" and cards[0]["untrusted"] is True
    assert "@Helena" in html and f"/akten/{akte.pk}/notizen/neu/" in html


def test_plain_note_is_saved_without_a_run(client):
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    response = client.post(f"/akten/{akte.pk}/notizen/neu/", {"text": "Mandant ruft zurück."}, follow=True)
    assert "Die Notiz ist gespeichert." in response.content.decode()
    assert Notiz.objects.filter(akte=akte, text="Mandant ruft zurück.").exists()
    assert not AgentRun.objects.exists()


def test_note_on_a_foreign_akte_is_not_found(client):
    akte = AkteFactory()
    client.force_login(UserFactory(role=Role.ANWALT))
    assert client.post(f"/akten/{akte.pk}/notizen/neu/", {"text": "@Helena prüfe"}).status_code == 404
    assert not Notiz.objects.exists() and not AgentRun.objects.exists()


def test_draft_card_of_an_accepted_akte_update_shows_the_diff_from_before():
    from agent.chat.cards import draft_card

    akte = AkteFactory(wegen="Kaufvertrag")
    draft = HelenaDraftFactory(
        akte=akte, typ=HelenaDraft.Typ.AKTE_UPDATE, titel="wegen ändern", payload={"changes": {"wegen": "Werkvertrag"}}
    )
    card = draft_card(draft, viewer=akte.anwalt)
    assert card["diff"] == [{"field": "wegen", "before": "Kaufvertrag", "after": "Werkvertrag"}]


def test_answer_html_links_norms_and_visible_akten_only():
    from agent.chat.cards import answer_html
    from recherche.models import Gesetz, Norm

    gesetz, _ = Gesetz.objects.get_or_create(abkuerzung="BGB", defaults={"titel": "Bürgerliches Gesetzbuch", "slug": "bgb"})
    norm = Norm.objects.filter(gesetz=gesetz, art="§", nummer="823").first() or Norm.objects.create(
        gesetz=gesetz, art="§", nummer="823", titel="Schadensersatzpflicht", position=100_000
    )
    mine = AkteFactory()
    foreign = AkteFactory()
    html = answer_html(
        f"Nach § 823 Abs. 1 BGB haftet er. Vgl. Akte {mine.aktenzeichen} und Akte {foreign.aktenzeichen}.", user=mine.anwalt
    )
    assert f'<a href="/recherche/normen/{norm.pk}/' in html and 'class="zitat"' in html
    assert f'data-norm-panel="/recherche/normen/{norm.pk}/panel/' in html
    assert ">§ 823 Abs. 1 BGB</a>" in html
    assert "nicht im Bestand" not in html
    assert f'<a href="/akten/{mine.pk}/">Akte {mine.aktenzeichen}</a>' in html
    assert f"/akten/{foreign.pk}/" not in html


def test_answer_html_links_quoted_documents_only_where_the_user_may_see_them():
    from agent.chat.cards import answer_html

    mine = DokumentFactory(name="Klageschrift Müller")
    foreign = DokumentFactory(name="Vertrauliche Notiz")
    html = answer_html("Siehe „Klageschrift Müller“ und „Vertrauliche Notiz“.", user=mine.akte.anwalt)
    assert f'<a href="/api/dokumente/{mine.pk}/download/">„Klageschrift Müller“</a>' in html
    assert f"/api/dokumente/{foreign.pk}/" not in html


def test_run_steps_are_replayable_in_order_for_the_steps_view():
    from agent.runs.selectors import run_steps_after

    run = AgentRun.objects.create(user=UserFactory(), task="x")
    for seq in (3, 1, 2):
        AgentStep.objects.create(run=run, seq=seq, type="thought", payload={"text": str(seq)})
    assert [e["seq"] for e in run_steps_after(run_id=run.pk, after_seq=0)] == [1, 2, 3]
    assert [e["text"] for e in run_steps_after(run_id=run.pk, after_seq=1)] == ["2", "3"]


@pytest.mark.django_db(transaction=True)
def test_helena_mention_in_a_note_starts_a_background_run_for_the_akte(client, settings, scripted_tier, scripted_llm):
    """`@Helena <Auftrag>` in a note: the note is saved and a BACKGROUND run for the Akte is queued
    once the note is committed (here executed at once by the immediate task backend, with the real
    engine, whose event writer and tools read committed rows on their own connections)."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}
    akte = AkteFactory()
    scripted_llm.script([{"tool_calls": [{"name": "read_akte", "arguments": {}}]}, {"text": "Geprüft: keine offenen Fristen."}])
    client.force_login(akte.anwalt)
    response = client.post(f"/akten/{akte.pk}/notizen/neu/", {"text": "@Helena: Prüfe die offenen Fristen"}, follow=True)
    assert "Helena arbeitet im Hintergrund an: „Prüfe die offenen Fristen“" in response.content.decode()
    assert Notiz.objects.filter(akte=akte, text="@Helena: Prüfe die offenen Fristen").exists()
    run = AgentRun.objects.get(akte=akte)
    assert run.mode == "BACKGROUND" and run.task == "Prüfe die offenen Fristen" and run.user == akte.anwalt
    assert run.status == "DONE" and "keine offenen Fristen" in run.answer
    assert AgentStep.objects.filter(run=run, type="tool.result", payload__ok=True).exists()


def test_a_cancelled_run_is_a_turn_of_the_conversation_in_order_and_not_replayed(client):
    """Q1 is cancelled (its reply written only after Q2 was sent), Q2 answered: after a reload
    the order is Q1, A1 (abgebrochen), Q2, A2, and no finished run is replayed (no status line)."""
    from agent.runs.services import run_request_cancel

    user = UserFactory()
    conversation = Conversation.objects.create(user=user, title="Fristen")
    first = AgentRun.objects.create(user=user, conversation=conversation, task="Erste Frage")
    Message.objects.create(conversation=conversation, role="USER", text="Erste Frage", run=first)
    second = AgentRun.objects.create(
        user=user, conversation=conversation, task="Zweite Frage", status="DONE", started_at=timezone.now(),
        finished_at=timezone.now(), answer="Zweite Antwort",
    )  # fmt: skip
    Message.objects.create(conversation=conversation, role="USER", text="Zweite Frage", run=second)
    run_request_cancel(run_id=first.pk, by=user)
    Message.objects.create(conversation=conversation, role="ASSISTANT", text="Zweite Antwort", run=second)

    client.force_login(user)
    response = client.get(f"/helena/gespraeche/{conversation.pk}/")
    html = response.content.decode()
    positions = [
        html.index(text)
        for text in ("Erste Frage", "Abgebrochen, bevor Helena geantwortet hat", "Zweite Frage", "Zweite Antwort")
    ]
    assert positions == sorted(positions)
    state = json.loads(html.split('id="chat-state" type="application/json">')[1].split("</script>")[0])
    assert state["open_runs"] == []


def test_a_reopened_conversation_names_the_demo_model_that_answered_with_its_badge(client):
    user = UserFactory()
    conversation = Conversation.objects.create(user=user, title="Demo")
    run = AgentRun.objects.create(
        user=user, conversation=conversation, task="Frage", status="DONE", model_name="SmolLM2-135M-Instruct",
        started_at=timezone.now(), finished_at=timezone.now(), answer="Antwort",
    )  # fmt: skip
    Message.objects.create(conversation=conversation, role="USER", text="Frage", run=run)
    Message.objects.create(conversation=conversation, role="ASSISTANT", text="Antwort", run=run)
    client.force_login(user)
    html = client.get(f"/helena/gespraeche/{conversation.pk}/").content.decode()
    assert "Modell: SmolLM2-135M-Instruct (Demo)" in html and "demo-badge" in html


@pytest.mark.parametrize(
    ("fehler", "meldung"),
    [
        (RuntimeError("Modellserver weg"), "Helena konnte den Auftrag nicht annehmen. Die Notiz wurde gespeichert."),
        (
            ValidationError("Zu viele Aufträge."),
            "Zu viele Aufträge. Helena konnte den Auftrag nicht annehmen. Die Notiz wurde gespeichert.",
        ),
    ],
)
def test_a_refused_helena_request_keeps_the_note_it_says_it_kept(client, monkeypatch, fehler, meldung):
    """Daily-use probe 2026-12-05: the message said the note was saved, but the refused run rolled it
    back with it. The run service's failure is injected (no real path reaches it in a test)."""
    from agent.runs import services as run_services

    def refuse(**kwargs):
        raise fehler

    monkeypatch.setattr(run_services, "run_create", refuse)
    akte = AkteFactory()
    client.force_login(akte.anwalt)
    response = client.post(
        f"/akten/{akte.pk}/notizen/neu/", {"text": "@Helena Bitte Verjährung prüfen. Mandant rief an."}, follow=True
    )
    assert meldung in response.content.decode()
    assert Notiz.objects.filter(akte=akte, text__startswith="@Helena Bitte Verjährung").exists()
    assert not AgentRun.objects.exists()
