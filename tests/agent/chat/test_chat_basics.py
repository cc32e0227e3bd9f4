"""Chat basics as a user meets them on the page: feedback on an answer, search across
conversations, dates and full titles in the list, deleting with confirmation, titles cut at words."""

from __future__ import annotations

import pytest
from django.utils import timezone

from agent.models import AgentRun, AnswerFeedback, Conversation, Message
from agent.runs import services
from akten.models import Role
from tests.factories import AkteFactory, UserFactory

pytestmark = pytest.mark.django_db


def answered(user, *, question="Wie lange läuft die Frist?", answer="Zwei Wochen.", title="Frist"):
    conversation = Conversation.objects.create(user=user, title=title)
    run = AgentRun.objects.create(user=user, conversation=conversation, task=question, status="DONE", finished_at=timezone.now())
    Message.objects.create(conversation=conversation, role="USER", text=question, run=run)
    message = Message.objects.create(conversation=conversation, role="ASSISTANT", text=answer, run=run)
    return conversation, run, message


# -- feedback -------------------------------------------------------------------------------------


def test_author_rates_an_answer_with_comment_and_sees_the_choice_after_reload(client):
    user = UserFactory(role=Role.ANWALT)
    conversation, run, message = answered(user)
    client.force_login(user)

    response = client.post(f"/helena/auftraege/{run.pk}/bewertung/", {"rating": "DOWN", "comment": "Frist falsch berechnet."})

    assert response.status_code == 302 and response.url.endswith(f"/helena/gespraeche/{conversation.pk}/#run-{run.pk}")
    feedback = AnswerFeedback.objects.get()
    assert (feedback.message, feedback.user, feedback.rating, feedback.comment) == (
        message, user, "DOWN", "Frist falsch berechnet."
    )  # fmt: skip
    html = client.get(f"/helena/gespraeche/{conversation.pk}/").content.decode()
    assert 'value="DOWN" class="feedback-down" aria-pressed="true"' in html
    assert 'value="UP" class="feedback-up" aria-pressed="false"' in html
    assert "Danke für deine Rückmeldung." in html


def test_rating_again_replaces_the_verdict_and_the_script_gets_json(client):
    user = UserFactory(role=Role.ANWALT)
    _conversation, run, _message = answered(user)
    client.force_login(user)
    json_accept = {"accept": "application/json"}
    client.post(f"/helena/auftraege/{run.pk}/bewertung/", {"rating": "DOWN"}, headers=json_accept)

    response = client.post(f"/helena/auftraege/{run.pk}/bewertung/", {"rating": "UP"}, headers=json_accept)

    assert response.status_code == 200 and response.json() == {"rating": "UP", "message": "Danke für deine Rückmeldung."}
    assert list(AnswerFeedback.objects.values_list("rating", flat=True)) == ["UP"]
    bad = client.post(f"/helena/auftraege/{run.pk}/bewertung/", {"rating": "MEH"}, headers=json_accept)
    assert bad.status_code == 400 and "hilfreich" in bad.json()["error"]


def test_nobody_rates_someone_elses_answer_and_missing_looks_the_same(client):
    owner = UserFactory(role=Role.ANWALT)
    _conversation, run, _message = answered(owner)
    client.force_login(UserFactory(role=Role.ANWALT))

    foreign = client.post(f"/helena/auftraege/{run.pk}/bewertung/", {"rating": "UP"})
    missing = client.post("/helena/auftraege/999999/bewertung/", {"rating": "UP"})

    assert foreign.status_code == missing.status_code == 404
    assert not AnswerFeedback.objects.exists()
    assert client.get(f"/helena/auftraege/{run.pk}/bewertung/").status_code == 405


def test_feedback_is_listed_in_the_admin_for_evaluation(admin_client):
    user = UserFactory(role=Role.ANWALT)
    _conversation, _run, message = answered(user)
    AnswerFeedback.objects.create(message=message, user=user, rating="DOWN", comment="Quelle fehlt.")

    html = admin_client.get("/admin/agent/answerfeedback/").content.decode()

    assert "Quelle fehlt." in html and "nicht hilfreich" in html


# -- conversation list ------------------------------------------------------------------------------


def test_search_finds_conversations_by_title_and_message_text_only_my_own(client):
    user = UserFactory(role=Role.ANWALT)
    answered(user, title="Mietminderung Schimmel", question="Was gilt bei Schimmel?", answer="Minderung nach § 536 BGB.")
    answered(user, title="Kündigung", question="Wann endet der Vertrag?", answer="Mit Ablauf der Frist.")
    answered(user, title="Bauvertrag", question="Abnahme?", answer="Die Abnahme nach § 640 BGB ist …")
    answered(UserFactory(role=Role.ANWALT), title="Fremd § 536 BGB", answer="§ 536 BGB")
    client.force_login(user)

    by_answer = client.get("/helena/", {"q": "§ 536"}).content.decode()
    by_title = client.get("/helena/", {"q": "kündigung"}).content.decode()
    nothing = client.get("/helena/", {"q": "Erbrecht"}).content.decode()

    assert "Mietminderung Schimmel" in by_answer and ">Kündigung<" not in by_answer and "Bauvertrag" not in by_answer
    assert "Fremd" not in by_answer and "1 Treffer für „§ 536“" in by_answer
    assert ">Kündigung<" in by_title and "Mietminderung" not in by_title
    assert "Kein Gespräch passt zur Suche." in nothing


def test_list_shows_full_titles_with_the_last_activity_date(client):
    user = UserFactory(role=Role.ANWALT)
    title = "Bitte prüfe die Kündigungsfrist im Mietvertrag und die Zustellung der Kündigung durch Boten"
    conversation, _run, _message = answered(user, title=title)
    when = timezone.localtime(Conversation.objects.get(pk=conversation.pk).updated_at)
    client.force_login(user)

    html = client.get("/helena/").content.decode()

    assert f">{title}</a>" in html
    assert f">{when:%d.%m.%Y, %H:%M}</time>" in html


def test_heading_and_page_title_name_the_conversation(client):
    user = UserFactory(role=Role.ANWALT)
    conversation, _run, _message = answered(user, title="Räumungsklage Meier")
    client.force_login(user)

    html = client.get(f"/helena/gespraeche/{conversation.pk}/").content.decode()

    assert '<h1 id="chat-h">Räumungsklage Meier</h1>' in html
    assert "<title>Räumungsklage Meier – Helena</title>" in html


def test_delete_asks_for_confirmation_first_and_only_for_my_own(client):
    user = UserFactory(role=Role.ANWALT)
    conversation, _run, _message = answered(user, title="Altes Gespräch")
    client.force_login(user)

    page = client.get(f"/helena/gespraeche/{conversation.pk}/")
    confirm = client.get(f"/helena/gespraeche/{conversation.pk}/loeschen/")

    assert f'href="/helena/gespraeche/{conversation.pk}/loeschen/"' in page.content.decode()
    assert confirm.status_code == 200 and "Gespräch „Altes Gespräch“ löschen?" in confirm.content.decode()
    assert Conversation.objects.filter(pk=conversation.pk).exists()

    client.force_login(UserFactory(role=Role.ANWALT))
    assert client.get(f"/helena/gespraeche/{conversation.pk}/loeschen/").status_code == 404
    assert client.post(f"/helena/gespraeche/{conversation.pk}/loeschen/").status_code == 404
    assert Conversation.objects.filter(pk=conversation.pk).exists()

    client.force_login(user)
    deleted = client.post(f"/helena/gespraeche/{conversation.pk}/loeschen/", follow=True)
    assert "Das Gespräch wurde gelöscht." in deleted.content.decode()
    assert not Conversation.objects.filter(pk=conversation.pk).exists()


def test_delete_answers_json_to_the_undo_script_and_every_list_entry_has_its_delete_link(client):
    user = UserFactory(role=Role.ANWALT)
    conversation, _run, _message = answered(user, title="Altes Gespräch")
    client.force_login(user)

    page = client.get("/helena/").content.decode()
    deleted = client.post(f"/helena/gespraeche/{conversation.pk}/loeschen/", HTTP_ACCEPT="application/json")

    assert f'data-delete-url="/helena/gespraeche/{conversation.pk}/loeschen/"' in page
    assert "Gespräch „Altes Gespräch“ löschen" in page and 'id="undo-toast"' in page
    assert deleted.status_code == 200 and deleted.json() == {"deleted": conversation.pk}
    assert not Conversation.objects.filter(pk=conversation.pk).exists()


def test_a_new_conversation_is_titled_by_the_question_cut_after_a_whole_word():
    akte = AkteFactory()
    text = "Bitte prüfe die Kündigungsfrist im Mietvertrag von Herrn Müller und die Zustellung durch einen Boten"

    run = services.run_create(user=akte.anwalt, text=text, akte=akte)

    assert run.conversation.title == "Bitte prüfe die Kündigungsfrist im Mietvertrag von Herrn…"


def test_frist_card_offers_the_responsible_person_by_name(client):
    import json

    from drafts import services as draft_services

    lawyer = UserFactory(role=Role.ANWALT, first_name="Anna", last_name="Berger")
    clerk = UserFactory(role=Role.SACHBEARBEITER, first_name="Sven", last_name="Kraus")
    akte = AkteFactory(anwalt=lawyer, sachbearbeiter=clerk)
    draft_services.draft_create(
        typ="FRIST", akte=akte, requested_by=lawyer,
        payload={"typ": "WIEDERVORLAGE", "titel": "Akte vorlegen", "datum": "2030-01-07", "verantwortlich_id": clerk.pk},
    )  # fmt: skip
    client.force_login(lawyer)

    html = client.get(f"/akten/{akte.pk}/").content.decode()
    cards = json.loads(html.split('id="akte-cards-data" type="application/json">')[1].split("</script>")[0])

    assert cards[0]["people"] == [{"id": lawyer.pk, "name": "Anna Berger"}, {"id": clerk.pk, "name": "Sven Kraus"}]
    assert cards[0]["payload"]["verantwortlich_id"] == clerk.pk
