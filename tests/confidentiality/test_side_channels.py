"""Side channels found by an independent review (each test failed before its fix): a draft card
naming any user whose id was written into a Frist draft; Helena's document tools giving a Mandant
fields the field rule withholds; a model server's error text (internal hosts, echoed input) in the
escalation frame the browser gets."""

from __future__ import annotations

import io
import json
from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from agent.models import TierConfig
from agent.tools.base import ToolContext
from agent.tools.executor import toolbox_for
from akten.models import Akte, Beteiligter, Dokument, KalenderEintrag, Role
from drafts.models import HelenaDraft
from tests.agent.chat.conftest import is_terminal, receive_until, ws_connect
from tests.confidentiality.world import RELEASED_DOCUMENT, TERMIN_TITLE, build_world
from tests.factories import BeteiligterFactory, HelenaDraftFactory, UserFactory
from tests.support.dates import next_workday


@pytest.mark.django_db
def test_a_frist_draft_cannot_name_someone_who_may_not_see_the_akte():
    world = build_world()
    foreign_client = UserFactory(role=Role.MANDANT, last_name="Fremdmandantin", email="fremd.mandantin@example.org")
    BeteiligterFactory(akte=world.foreign_akte, kontakt=foreign_client.kontakt, rolle=Beteiligter.Rolle.MANDANT)
    client = Client()
    client.force_login(world.lawyer)
    tag = next_workday(30).isoformat()  # a Fristablauf on a holiday is refused before the person is checked
    frist = {"typ": "FRIST", "titel": "Frist", "datum": tag, "fristablauf": tag}
    draft = HelenaDraftFactory(akte=world.akte, typ=HelenaDraft.Typ.FRIST, titel="Frist", payload=frist)
    answer = client.patch(
        reverse("api-draft-detail", args=[draft.pk]),
        data=json.dumps({"payload": {**frist, "verantwortlich_id": foreign_client.pk}}),
        content_type="application/json",
    )
    assert answer.status_code == 400
    assert "verantwortliche Person" in json.dumps(answer.json(), ensure_ascii=False)
    page = client.get(reverse("akte-detail", args=[world.akte.pk])).content.decode()
    assert "Fremdmandantin" not in page and "fremd.mandantin@example.org" not in page


@pytest.mark.django_db
def test_a_mandants_document_tools_follow_the_field_rule(settings):
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    world = build_world()
    dokument = Dokument.objects.get(name=RELEASED_DOCUMENT)
    Dokument.objects.filter(pk=dokument.pk).update(
        status=Dokument.Status.ENTWURF, erstellt_von=world.lawyer, erstellt_von_helena=True
    )

    def call(user, name, arguments):
        box = toolbox_for(ToolContext(user=user, akte=world.akte, run=None))
        return async_to_sync(box.execute)(name, arguments, call_id="c1")

    internal = {"status", "erstellt_von", "von_helena_entworfen", "fuer_mandant_sichtbar", "texterkennung"}
    listing = call(world.mandantin, "read_dokumente", {"akte": world.akte.aktenzeichen})
    detail = call(world.mandantin, "read_dokument_detail", {"dokument_id": dokument.pk})
    row = next(d for d in listing.data["dokumente"] if d["id"] == dokument.pk)
    assert not internal & set(row) and not internal & set(detail.data)
    assert row["titel"] == dokument.name and detail.data["text"]
    # staff still get them
    staff = call(world.lawyer, "read_dokument_detail", {"dokument_id": dokument.pk})
    assert staff.data["status"] == "Entwurf" and staff.data["von_helena_entworfen"] is True


@pytest.mark.django_db(transaction=True)
@pytest.mark.asyncio
async def test_the_escalation_frame_carries_the_category_not_the_servers_error_text(scripted_tier, scripted_llm):
    infra = "upstream gpu-node-7.kanzlei.intern:11434 (cuda OOM)"
    world = await sync_to_async(build_world)()
    await sync_to_async(TierConfig.objects.create)(
        tier=2,
        name="Zweite",
        provider=TierConfig.Provider.OLLAMA,
        model="scripted-model",
        base_url=scripted_llm.url,
        enabled=True,
        context_window=8192,
        timeout_seconds=20,
    )
    scripted_llm.script([{"status": 500, "error": {"error": infra}}, {"text": "Hier ist die Übersicht."}])
    async with ws_connect(world.mandantin) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Wie ist der Stand?", "akte": world.akte.pk})
        frames = await receive_until(socket, is_terminal, within=60)
    (escalation,) = [f for f in frames if f.get("type") == "escalation"]
    assert escalation["reason"] == escalation["cause"]
    assert "gpu-node-7" not in json.dumps(frames, ensure_ascii=False)
    # nor the firm's operating data (review 2026-12-03): models, tiers, tokens, latency, time stamps
    # (run.started's `at` minus her request's time was the wait behind other runs)
    internal = {"at", "usage", "model", "tier", "ms", "from_tier", "to_tier"}
    assert all(not internal & set(frame) for frame in frames), [sorted(internal & set(f)) for f in frames]
    assert frames[-1]["answer"] and {"run.started", "model.response"} <= {f.get("type") for f in frames}

    # staff see them
    scripted_llm.script([{"text": "Hier ist die Übersicht."}])
    async with ws_connect(world.lawyer) as (socket, ok, _code):
        assert ok
        await socket.send_json_to({"type": "chat.send", "text": "Wie ist der Stand?", "akte": world.akte.pk})
        frames = await receive_until(socket, is_terminal, within=60)
    (response,) = [f for f in frames if f.get("type") == "model.response"]
    assert {"at", "usage", "model", "tier", "ms"} <= set(response)


@pytest.mark.django_db
def test_task_results_are_for_admin_only(client):
    from django.contrib.auth.models import Permission
    from django_tasks_db.models import DBTaskResult

    DBTaskResult.objects.create(
        task_path="recherche.tasks.dokument_index_task",
        args_kwargs={"args": [], "kwargs": {"dokument_id": 4711}},
        status="FAILED",
        queue_name="default",
        backend_name="default",
        priority=0,
        traceback="ValueError: Mandantin Erika Mustermann",
    )
    staff = UserFactory(role=Role.SACHBEARBEITER, is_staff=True)
    staff.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    client.force_login(staff)
    page = client.get(reverse("admin:django_tasks_database_dbtaskresult_changelist")).content.decode()
    assert page.count("dokument_index_task") == 0
    client.force_login(UserFactory(role=Role.ADMIN, is_staff=True, is_superuser=True))
    assert "dokument_index_task" in client.get(reverse("admin:django_tasks_database_dbtaskresult_changelist")).content.decode()


@pytest.mark.django_db
def test_a_mandant_gets_of_her_termine_only_date_time_and_title(settings):
    """The API and read_fristen gave her a Termin's internal description and the staff member who
    handles it (name and e-mail); her page shows date, time and title only."""
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    world = build_world()
    handler = UserFactory(role=Role.SACHBEARBEITER, last_name="Bearbeiterin", email="bearbeiterin@kanzlei.example")
    termin = KalenderEintrag.objects.get(akte=world.akte, titel=TERMIN_TITLE)
    KalenderEintrag.objects.filter(pk=termin.pk).update(verantwortlich=handler)
    client = Client()
    client.force_login(world.mandantin)
    listing = client.get(reverse("api-kalender-list"), {"akte": world.akte.pk})
    detail = client.get(reverse("api-kalender-detail", args=[termin.pk]))
    assert listing.status_code == 200 and detail.status_code == 200
    row = next(r for r in listing.json()["results"] if r["id"] == termin.pk)
    for data in (row, detail.json()):
        assert data["titel"] == TERMIN_TITLE and data["datum"]
        assert not {"beschreibung", "verantwortlich", "erledigt_at", "created_at"} & set(data)
    box = toolbox_for(ToolContext(user=world.mandantin, akte=world.akte, run=None))
    tool = async_to_sync(box.execute)("read_fristen", {"akte": world.akte.aktenzeichen, "zeitraum": "alle"}, call_id="c1")
    assert tool.ok, tool.error
    eintrag = next(e for e in tool.data["eintraege"] if e["titel"] == TERMIN_TITLE)
    assert not {"beschreibung", "verantwortlich"} & set(eintrag)
    text = json.dumps([listing.json(), detail.json(), tool.data], ensure_ascii=False)
    assert "Bearbeiterin" not in text and "bearbeiterin@kanzlei.example" not in text
    assert world.leaked(text) == []
    # staff still get every field
    client.force_login(world.lawyer)
    staff = client.get(reverse("api-kalender-detail", args=[termin.pk])).json()
    assert staff["verantwortlich"]["name"] and "beschreibung" in staff


def _released_markdown(world, text: str, filename: str = "schreiben.md") -> Dokument:
    from akten import services as akten_services

    return akten_services.dokument_create(
        akte=world.akte, by=world.lawyer, name="Schreiben an Sie", filename=filename, content=text.encode(), mandant_sichtbar=True
    )


@pytest.mark.django_db
def test_a_new_version_replaces_the_old_text_in_search_and_on_failure(django_capture_on_commit_callbacks):
    """A new version left the search index on version 1 (its text found by the Mandantin's document
    search), and a new version whose text could not be read kept version 1's text on the Dokument."""
    from django.core.files.uploadedfile import SimpleUploadedFile
    from PIL import Image

    world = build_world()
    client = Client()
    with django_capture_on_commit_callbacks(execute=True):
        alt = _released_markdown(world, "Entwurf: Vergleich bis ALTFASSUNGMARK 7000 Euro akzeptabel")
        kaputt = _released_markdown(world, "Interner Vermerk VORFASSUNGMARK: nicht kreditwuerdig")
    # the index through her access (the search API itself is the firm's: 404 for her, akten/policy.py)
    from recherche.search import search_dokumente

    def treffer(query: str, mode: str = "hybrid") -> str:
        found = [
            {"id": r["id"], "snippet": r["snippet"]}
            for r in search_dokumente(user=world.mandantin, query=query, mode=mode).results
        ]
        return json.dumps(found, ensure_ascii=False)

    assert f'"id": {alt.pk},' in treffer("ALTFASSUNGMARK")  # the test sees what it looks for
    client.force_login(world.lawyer)
    with django_capture_on_commit_callbacks(execute=True):
        neu = SimpleUploadedFile("neu.md", b"Sehr geehrte Frau, anbei der Vergleich.", content_type="text/markdown")
        assert client.post(f"/api/dokumente/{alt.pk}/versionen/", {"datei": neu}).status_code == 201
        # A scan: it may be released (cleaned like every image), but no text is read from it.
        puffer = io.BytesIO()
        Image.new("L", (8, 8)).save(puffer, format="PNG")
        defekt = SimpleUploadedFile("scan.png", puffer.getvalue(), content_type="image/png")
        assert client.post(f"/api/dokumente/{kaputt.pk}/versionen/", {"datei": defekt}).status_code == 201
    client.force_login(world.mandantin)
    # The vector search may still offer the document for the bare marker by its new text (cosine
    # 0.8167 against the floor of 0.815 here, borderline): what matters is that the old words no
    # longer find it and that nothing of the old text comes back.
    assert "ALTFASSUNGMARK" not in treffer("ALTFASSUNGMARK")
    assert f'"id": {alt.pk},' not in treffer("ALTFASSUNGMARK", mode="fulltext")
    assert "anbei der Vergleich" in client.get(reverse("api-dokument-detail", args=[alt.pk])).json()["text"]
    assert "VORFASSUNGMARK" not in client.get(reverse("api-dokument-detail", args=[kaputt.pk])).content.decode()
    assert "VORFASSUNGMARK" not in treffer("VORFASSUNGMARK")


@pytest.mark.django_db
def test_a_download_carries_the_documents_name_not_the_uploaded_file_name():
    world = build_world()
    dokument = _released_markdown(world, "Sehr geehrte Frau", filename="Vergleich_max5000_nicht_an_Mandantin.md")
    client = Client()
    client.force_login(world.mandantin)
    answer = client.get(reverse("api-dokument-download", args=[dokument.pk]))
    assert answer.status_code == 200
    assert "nicht_an_Mandantin" not in answer["Content-Disposition"]
    assert "Schreiben an Sie.md" in answer["Content-Disposition"]


@pytest.mark.django_db
def test_nothing_a_signed_in_user_receives_may_be_cached():
    """No browser or proxy keeps a page, an API answer or a file after access to the Akte ended."""
    world = build_world()
    dokument = Dokument.objects.get(name=RELEASED_DOCUMENT)
    client = Client()
    client.force_login(world.mandantin)
    for url in ("/", reverse("api-akte-detail", args=[world.akte.pk]), reverse("api-dokument-download", args=[dokument.pk])):
        answer = client.get(url)
        assert answer.status_code == 200, url
        assert {"private", "no-store"} <= {part.strip() for part in answer["Cache-Control"].split(",")}, url
    assert client.get(reverse("api-akte-detail", args=[world.foreign_akte.pk]))["Cache-Control"]


@pytest.mark.django_db
def test_the_akten_search_matches_only_the_party_names_she_is_shown():
    """A company's contact person and a person's employer are not shown to her; the search found
    her Akte by them, so she could read them letter by letter."""
    from tests.factories import KontaktFactory

    world = build_world()
    firma = KontaktFactory(typ="JURISTISCH", firma="Baufirma Nord GmbH", nachname="Verdecktmann")
    person = KontaktFactory(nachname="Sichtbarfrau", firma="Geheimarbeitgeber AG")
    for kontakt in (firma, person):
        BeteiligterFactory(akte=world.akte, kontakt=kontakt, rolle=Beteiligter.Rolle.GEGNER)
    client = Client()

    def gefunden(user, q: str) -> bool:
        client.force_login(user)
        ids = [a["id"] for a in client.get(reverse("api-akte-list"), {"q": q}).json()["results"]]
        return world.akte.pk in ids

    assert gefunden(world.mandantin, "Baufirma Nord") and gefunden(world.mandantin, "Sichtbarfrau")
    assert not gefunden(world.mandantin, "Verdeckt") and not gefunden(world.mandantin, "Geheimarbeit")
    assert gefunden(world.lawyer, "Verdeckt") and gefunden(world.lawyer, "Geheimarbeit")  # staff see both


@pytest.mark.django_db
def test_whether_the_firm_marked_her_termin_erledigt_does_not_reach_her(settings):
    """The erledigt field was withheld, but the open/past filters, read_fristen's time frames and
    read_akte's count of open entries told it."""
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True  # the tools see this test's transaction
    world = build_world()
    termin = KalenderEintrag.objects.get(akte=world.akte, titel=TERMIN_TITLE)  # in ten days
    client = Client()
    client.force_login(world.mandantin)
    aufrufe = iter(range(100))

    def werkzeug(name: str, arguments: dict):
        box = toolbox_for(ToolContext(user=world.mandantin, akte=world.akte, run=None))
        result = async_to_sync(box.execute)(name, arguments, call_id=f"c{next(aufrufe)}")
        assert result.ok, result.error
        return result.data

    def sicht() -> list:
        offen = client.get(reverse("api-kalender-list"), {"akte": world.akte.pk, "offen": "true"}).json()["results"]
        erledigt = client.get(reverse("api-kalender-list"), {"akte": world.akte.pk, "offen": "false"}).json()["results"]
        tool = {z: werkzeug("read_fristen", {"akte": world.akte.aktenzeichen, "zeitraum": z}) for z in ("aktiv", "vergangen")}
        akte = werkzeug("read_akte", {"akte": world.akte.aktenzeichen})
        return [
            [r["id"] for r in offen],
            [r["id"] for r in erledigt],
            {z: [e["titel"] for e in t["eintraege"]] for z, t in tool.items()},
            akte["offene_kalendereintraege"],
            akte["naechster_eintrag"],
        ]

    vorher = sicht()
    assert vorher[0] == [termin.pk] and vorher[3] == 1  # the test sees what it compares
    termin.erledigt, termin.erledigt_at = True, timezone.now()
    termin.save()

    assert sicht() == vorher


@pytest.mark.django_db
def test_when_the_firm_edits_what_she_does_not_see_does_not_reach_her(settings):
    """Her Akte's changed_at moved when the Sachstand was edited, and her list was ordered by it: she
    could tell when her lawyer worked on the matter internally."""
    from akten import services as akten_services

    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    world = build_world()
    client = Client()
    client.force_login(world.mandantin)
    box = toolbox_for(ToolContext(user=world.mandantin, akte=world.akte, run=None))

    def sicht() -> list:
        detail = client.get(reverse("api-akte-detail", args=[world.akte.pk])).json()
        liste = client.get(reverse("api-akte-list")).json()["results"]
        tool = async_to_sync(box.execute)("read_akte", {"akte": world.akte.aktenzeichen}, call_id="c1")
        assert tool.ok, tool.error
        return [detail, [r["id"] for r in liste], {k: v for k, v in tool.data.items() if k != "dokumente_liste"}]

    vorher = sicht()
    assert vorher[0]["aktenzeichen"] == world.akte.aktenzeichen  # the test sees what it compares
    akten_services.akte_update(akte=world.akte, by=world.akte.anwalt, changes={"zusammenfassung": "Intern: Vergleich anstreben."})
    box.ctx.cache.clear()
    assert sicht() == vorher


@pytest.mark.django_db
def test_the_full_record_tool_does_not_tell_her_when_the_firm_last_changed_her_akte(settings):
    """read_akte_detail added the Akte's `geaendert` after the policy had filtered the overview: the
    date moved whenever the firm edited the Sachstand, notes or tags, and told her so."""
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    world = build_world()
    Akte.objects.filter(pk=world.akte.pk).update(changed_at=timezone.now() - timedelta(days=30))

    def detail(user: Any) -> dict:
        box = toolbox_for(ToolContext(user=user, akte=world.akte, run=None))
        result = async_to_sync(box.execute)("read_akte_detail", {"akte": world.akte.aktenzeichen}, call_id="c1")
        assert result.ok, result.error
        return result.data

    mandantin = detail(world.mandantin)
    assert mandantin["aktenzeichen"] == world.akte.aktenzeichen and "angelegt" in mandantin
    assert "geaendert" not in mandantin
    assert "geaendert" in detail(world.akte.anwalt)  # the firm still sees it


@pytest.mark.django_db
def test_a_superuser_flag_taken_away_during_a_run_ends_her_reach_at_the_next_tool_call(settings):
    """access_scope_query noticed a changed role or deactivation, not a superuser flag taken away:
    the run's user object kept it, and every later tool call still read every Akte of the firm."""
    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    world = build_world()
    staff = UserFactory(role=Role.SACHBEARBEITER, is_superuser=True)
    box = toolbox_for(ToolContext(user=staff, akte=None, run=None))

    def read(akte: Akte, call_id: str) -> Any:
        return async_to_sync(box.execute)("read_akte", {"akte": akte.aktenzeichen}, call_id=call_id)

    assert read(world.akte, "c1").ok  # control: as superuser she reads an Akte not her own
    type(staff).objects.filter(pk=staff.pk).update(is_superuser=False)

    refused = read(world.foreign_akte, "c2")
    assert not refused.ok and world.foreign_akte.aktenzeichen not in json.dumps(refused.data or {})
