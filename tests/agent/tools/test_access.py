"""Access at execution time, for every role × own / foreign / Dezernat / deputy / expired deputy /
Mandant Akte and every tool that touches an Akte: by Aktenzeichen, by id, through the run's Akte,
through a Dokument id, and in cross-Akte searches. Missing and forbidden look the same; a refused
write creates nothing."""

import pytest

from agent.models import ToolCallAudit
from agent.tools.base import ToolContext
from agent.tools.discovery import all_tools
from agent.tools.permissions import default_allowed
from akten.models import Akte, Role
from drafts.models import HelenaAlert, HelenaDraft
from recherche.services import dokument_index
from tests.akten.test_access_matrix import KINDS, build_world, expected_kinds

pytestmark = pytest.mark.django_db

NOT_FOUND = "Akte {ref} nicht gefunden oder kein Zugriff. Nutze search_alle_akten, um die richtige Akte zu finden."
FORBIDDEN_TOOL = "steht dir nicht zur Verfügung"


def _future(days: int = 30) -> str:
    import datetime

    from django.utils import timezone

    day = timezone.localdate() + datetime.timedelta(days=days)
    while day.weekday() >= 5:
        day += datetime.timedelta(days=1)
    return day.isoformat()


# Tool → arguments for an Akte reference (everything else fixed and valid).
AKTE_TOOLS = {
    "read_akte": lambda ref: {"akte": ref},
    "read_akte_detail": lambda ref: {"akte": ref},
    "read_dokumente": lambda ref: {"akte": ref},
    "read_fristen": lambda ref: {"akte": ref, "zeitraum": "alle"},
    "read_zeiterfassung": lambda ref: {"akte": ref},
    "read_akte_verlauf": lambda ref: {"akte": ref},
    "get_kosten_rules": lambda ref: {"akte": ref, "gkg_nummern": ["1210"]},
    "search_dokumente": lambda ref: {"akte": ref, "suche": "Klageschrift"},
    "create_draft_dokument": lambda ref: {"akte": ref, "titel": "Schreiben", "inhalt_markdown": "Text"},
    "create_draft_frist": lambda ref: {"akte": ref, "typ": "WIEDERVORLAGE", "titel": "WV", "datum": _future()},
    "create_notiz": lambda ref: {"akte": ref, "text": "Notiz"},
    "create_draft_zeiterfassung": lambda ref: {"akte": ref, "minuten": 15, "beschreibung": "Akte gelesen"},
    "update_akte": lambda ref: {"akte": ref, "changes": {"status": "RUHEND"}},
    "create_alert": lambda ref: {"akte": ref, "typ": "AKTE_INAKTIV", "severity": 3, "titel": "Akte ruht"},
}


def _allowed(role: str, tool: str) -> bool:
    return default_allowed(role, all_tools()[tool]) and not (role == Role.MANDANT and all_tools()[tool].cross_akte)


def _writes() -> tuple[int, int]:
    return HelenaDraft.objects.count(), HelenaAlert.objects.count()


@pytest.mark.parametrize("role", Role.values)
@pytest.mark.parametrize("tool", sorted(AKTE_TOOLS))
def test_akte_named_in_the_arguments(call, role, tool):
    world = build_world(role)
    visible = expected_kinds(role, "akten")
    for kind in KINDS:
        akte = world.akten[kind]
        for ref in (akte.aktenzeichen, str(akte.pk)):
            before = _writes()
            result = call(world.user, tool, AKTE_TOOLS[tool](ref))
            where = f"{role} {tool} {kind} {ref}"
            if not _allowed(role, tool):
                assert FORBIDDEN_TOOL in result.error, where
            elif kind in visible:
                assert result.ok, f"{where}: {result.error}"
            else:
                assert result.error == NOT_FOUND.format(ref=ref), where
                assert result.data is None and result.source == []
            if not result.ok:
                assert _writes() == before, f"{where}: a refused call wrote something"


@pytest.mark.parametrize("role", Role.values)
@pytest.mark.parametrize("tool", ["read_akte", "read_fristen", "create_notiz", "update_akte", "create_draft_frist"])
def test_the_runs_own_akte_is_rechecked(call, role, tool):
    """A run whose Akte the user may not see (any more) gets no data from it."""
    world = build_world(role)
    visible = expected_kinds(role, "akten")
    args = {k: v for k, v in AKTE_TOOLS[tool]("x").items() if k != "akte"}
    for kind in KINDS:
        akte = world.akten[kind]
        before = _writes()
        result = call(world.user, tool, args, akte=akte)
        if not _allowed(role, tool):
            assert FORBIDDEN_TOOL in result.error
        elif kind in visible:
            assert result.ok, f"{role} {tool} {kind}: {result.error}"
        else:
            assert result.error == NOT_FOUND.format(ref=akte.pk), f"{role} {tool} {kind}"
            assert _writes() == before


@pytest.mark.parametrize("role", Role.values)
def test_dokument_ids_smuggled_in_reach_only_visible_documents(call, role):
    world = build_world(role)
    visible = expected_kinds(role, "dokumente")
    for kind in KINDS:
        dokument = world.akten[kind].dokumente.get()
        result = call(world.user, "read_dokument_detail", {"dokument_id": dokument.pk})
        if kind in visible:
            assert result.ok and result.data["akte"]["akte_id"] == world.akten[kind].pk
        else:
            assert result.error.startswith(f"Dokument {dokument.pk} nicht gefunden oder kein Zugriff.")
            assert result.data is None


def test_mandant_does_not_see_unreleased_documents_of_their_own_akte(call):
    from tests.factories import DokumentFactory

    world = build_world(Role.MANDANT)
    intern = DokumentFactory(akte=world.akten["mandant"], name="Interner Vermerk", mandant_sichtbar=False)
    assert "nicht gefunden oder kein Zugriff" in call(world.user, "read_dokument_detail", {"dokument_id": intern.pk}).error
    listed = call(world.user, "read_dokumente", {"akte": world.akten["mandant"].aktenzeichen})
    assert [d["titel"] for d in listed.data["dokumente"]] == [f"Freigabe {world.akten['mandant'].aktenzeichen}"]


def test_mandant_sees_only_termine_no_time_entries_no_history_no_internal_notes(call):
    world = build_world(Role.MANDANT)
    akte = world.akten["mandant"]
    from tests.factories import KalenderEintragFactory

    KalenderEintragFactory(akte=akte, typ="TERMIN", titel="Mündliche Verhandlung", fristablauf=None)
    akte.notizen = "Intern: Mandant zahlt schleppend"
    akte.save()
    fristen = call(world.user, "read_fristen", {"akte": akte.aktenzeichen, "zeitraum": "alle"})
    assert [e["typ"] for e in fristen.data["eintraege"]] == ["Termin"]
    assert call(world.user, "read_zeiterfassung", {"akte": akte.aktenzeichen}).data["anzahl"] == 0
    assert call(world.user, "read_akte_verlauf", {"akte": akte.aktenzeichen}).data["anzahl"] == 0
    detail = call(world.user, "read_akte_detail", {"akte": akte.aktenzeichen}).data
    assert "interne_notizen" not in detail and "notizen" not in detail
    assert "schleppend" not in str(detail)


@pytest.mark.parametrize("role", Role.values)
def test_cross_akte_searches_return_only_visible_akten_and_documents(call, role):
    world = build_world(role)
    for akte in world.akten.values():
        for dokument in akte.dokumente.all():
            dokument_index(dokument)
    if role == Role.MANDANT:
        assert FORBIDDEN_TOOL in call(world.user, "search_alle_akten", {}).error
        assert FORBIDDEN_TOOL in call(world.user, "search_dokumente", {"suche": "Klageschrift"}).error
        return
    visible = {world.akten[k].pk for k in expected_kinds(role, "akten")}
    found = call(world.user, "search_alle_akten", {"limit": 50})
    # An ADMIN also finds the Akte the world's factories made for the other Mandant.
    assert {a["akte_id"] for a in found.data["akten"]} == (
        set(Akte.objects.values_list("pk", flat=True)) if role == Role.ADMIN else visible
    )
    hits = call(world.user, "search_dokumente", {"suche": "Klageschrift Text", "limit": 20})
    assert hits.ok and {t["akte"]["akte_id"] for t in hits.data["treffer"]} == visible


@pytest.mark.parametrize("role", Role.values)
def test_read_fristen_without_akte_lists_only_visible_akten(call, role):
    world = build_world(role)
    result = call(world.user, "read_fristen", {"zeitraum": "alle", "limit": 50})
    kinds = expected_kinds(role, "fristen")  # a Mandant sees Termine only; the world has Fristen
    assert {e["akte"]["akte_id"] for e in result.data["eintraege"]} == {world.akten[k].pk for k in kinds}


def test_missing_and_forbidden_look_the_same(call):
    world = build_world(Role.ANWALT)
    foreign = world.akten["foreign"]
    for tool in ("read_akte", "create_notiz", "read_zeiterfassung"):
        forbidden = call(world.user, tool, AKTE_TOOLS[tool](str(foreign.pk)))
        missing = call(world.user, tool, AKTE_TOOLS[tool]("999999"))
        assert forbidden.error.replace(str(foreign.pk), "<ref>") == missing.error.replace("999999", "<ref>")
        assert forbidden.data is missing.data is None


def test_verantwortlich_must_see_the_akte(call):
    world = build_world(Role.ANWALT)
    from tests.factories import UserFactory

    outsider = UserFactory(role=Role.ANWALT)
    akte = world.akten["own"]
    args = {"akte": akte.aktenzeichen, "typ": "TERMIN", "titel": "Besprechung", "datum": _future()}
    refused = call(world.user, "create_draft_frist", {**args, "verantwortlich_id": outsider.pk})
    assert refused.error == f"Die verantwortliche Person {outsider.pk} ist unbekannt oder hat keinen Zugriff auf die Akte."
    accepted = call(world.user, "create_draft_frist", {**args, "verantwortlich_id": akte.anwalt.pk})
    assert accepted.ok and HelenaDraft.objects.get(pk=accepted.data["draft_id"]).payload["verantwortlich_id"] == akte.anwalt.pk


def test_audit_of_a_refused_call_does_not_point_at_the_foreign_akte(call):
    world = build_world(Role.ANWALT)
    call(world.user, "read_akte", {"akte": world.akten["foreign"].aktenzeichen})
    audit = ToolCallAudit.objects.get()
    assert not audit.ok and audit.akte is None


def test_general_notes_need_no_akte_and_are_the_users_own(call):
    world = build_world(Role.SEKRETARIAT)
    result = call(world.user, "create_notiz", {"text": "Toner bestellen", "allgemein": True}, ctx=ToolContext(user=world.user))
    draft = HelenaDraft.objects.get(pk=result.data["draft_id"])
    assert draft.akte is None and draft.requested_by == world.user


@pytest.mark.django_db
def test_the_audit_records_every_akte_a_call_showed_also_when_it_failed(call):
    """A search across Akten records the Akten of its result; a call that failed after resolving an
    Akte (its error names the Aktenzeichen) records that Akte, also without a run's Akte."""
    from tests.factories import AgentRunFactory, AkteFactory, KalenderEintragFactory, UserFactory

    lawyer = UserFactory(role=Role.ANWALT)
    ohne_wert, mit_frist = AkteFactory(anwalt=lawyer, gegenstandswert=None), AkteFactory(anwalt=lawyer)
    KalenderEintragFactory(akte=mit_frist)
    run = AgentRunFactory(user=lawyer)
    failed = call(lawyer, "get_kosten_rules", {"akte": ohne_wert.aktenzeichen, "gkg_nummern": ["1210"]}, run=run)
    assert not failed.ok and ohne_wert.aktenzeichen in failed.error
    listed = call(lawyer, "read_fristen", {}, run=run)
    assert listed.ok
    audits = {a.tool: (a.akte_id, a.akten) for a in ToolCallAudit.objects.filter(run=run)}
    assert audits == {"get_kosten_rules": (None, [ohne_wert.pk]), "read_fristen": (None, [mit_frist.pk])}
