"""The citation check of answers as the chat shows it (links with Absatz anchors, marks)."""

import pytest

from recherche.citations import answer_citation_trace, link_citations
from recherche.models import Gesetz, Norm, Urteil

pytestmark = pytest.mark.django_db


def test_resolved_citations_link_to_section_absatz_and_side_panel(mini_gesetze):
    norm = Norm.objects.get(gesetz__abkuerzung="TestG", art="§", nummer="1")
    html = link_citations("<p>Die Frist beginnt nach § 1 Abs. 2 TestG mit dem Zugang.</p>")
    assert html == (
        f'<p>Die Frist beginnt nach <a href="/recherche/normen/{norm.pk}/#abs-2" class="zitat" '
        f'data-norm-panel="/recherche/normen/{norm.pk}/panel/#abs-2" '
        'title="§ 1 TestG · Stand: Zuletzt geändert durch Art. 1 G v. 1.2.2021 I 99">§ 1 Abs. 2 TestG</a> mit dem Zugang.</p>'
    )


@pytest.mark.parametrize(
    ("cited", "reason"),
    [
        ("§ 99 TestG", "§ 99 TestG gibt es im Bestand nicht."),
        ("§ 5 TestG", "§ 5 TestG ist weggefallen (aufgehoben)."),
        ("Art. 6 DSGVO", "Gesetz „DSGVO“ ist nicht im Bestand."),
        ("§ 1 Abs. 3 TestG", "§ 1 TestG hat keinen Absatz 3."),
    ],
)
def test_citations_not_in_the_corpus_are_marked(mini_gesetze, cited, reason):
    html = link_citations(f"<p>Siehe {cited}.</p>")
    assert html == (
        f'<p>Siehe <span class="zitat-fehlt" title="{reason}">{cited}</span> '
        '<small class="zitat-hinweis">(nicht im Bestand – bitte prüfen)</small>.</p>'
    )


def test_citations_in_links_and_code_are_left_alone_and_text_is_escaped(mini_gesetze):
    html = '<p><a href="https://x.example">§ 99 TestG</a> <code>§ 99 TestG</code> a &lt;b&gt; § 99 TestG</p>'
    out = link_citations(html)
    mark = '<small class="zitat-hinweis" title="§ 99 TestG gibt es im Bestand nicht.">(nicht im Bestand – bitte prüfen)</small>'
    assert out.startswith(
        f'<p><a href="https://x.example">§ 99 TestG</a> {mark} <code>§ 99 TestG</code> {mark} a &lt;b&gt; <span'
    )


def test_decisions_are_checked_against_the_decisions_table(mini_gesetze):
    urteil = Urteil.objects.create(external_id="x", gericht="BGH", datum="2024-01-10", aktenzeichen="VIII ZR 123/22", text="t")
    html = link_citations("<p>BGH, Urteil vom 10.1.2024 – VIII ZR 123/22; anders BGH VIII ZR 9/99.</p>")
    assert f'<a href="/recherche/urteile/{urteil.pk}/" class="zitat">VIII ZR 123/22</a>' in html
    assert '<span class="zitat-fehlt" title="Entscheidung VIII ZR 9/99 ist nicht in der Entscheidungssammlung.">' in html


def test_the_trace_counts_the_citations_not_in_the_corpus(mini_gesetze):
    trace = answer_citation_trace("Nach § 1 Abs. 1 TestG und § 1a TestG, nicht aber nach § 99 TestG oder Art. 6 DSGVO.")
    assert (trace["geprueft"], trace["nicht_im_bestand"]) == (4, 2)
    assert [n["zitiert"] for n in trace["normen"] if not n["ok"]] == ["§ 99 TestG", "Art. 6 DSGVO"]


def test_a_statute_cited_by_its_title_is_linked_over_the_title(mini_gesetze):
    norm = Norm.objects.get(gesetz__abkuerzung="TestG", art="§", nummer="1")
    html = link_citations("<p>Nach § 1 Abs. 2 des Gesetzes zur Erprobung der Suche gilt das.</p>")
    assert f'<a href="/recherche/normen/{norm.pk}/#abs-2" class="zitat"' in html
    assert ">§ 1 Abs. 2 des Gesetzes zur Erprobung der Suche</a> gilt das." in html
    # The names are cached by the database's statutes: a changed title is recognised at once.
    Gesetz.objects.filter(abkuerzung="TestG").update(titel="Suchgesetz")
    assert ">§ 1 des Suchgesetzes</a>" in link_citations("<p>Nach § 1 des Suchgesetzes.</p>")


def test_a_citation_in_a_link_or_code_that_does_not_resolve_is_marked_after_it(mini_gesetze):
    """Before, "[§ 99 TestG](…)" in an answer looked like a checked citation: links and code were
    left alone without a word, while the trace counted the citation as not in the corpus."""
    out = link_citations('<p><a href="https://x.example">§ 99 TestG</a> und <code>§ 1 TestG</code></p>')
    assert out.startswith('<p><a href="https://x.example">§ 99 TestG</a> <small class="zitat-hinweis" title="')
    assert "(nicht im Bestand – bitte prüfen)</small> und <code>§ 1 TestG</code></p>" in out  # § 1 exists: no mark
