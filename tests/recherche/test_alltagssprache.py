"""The everyday-wording vocabulary (recherche/data/alltagssprache.txt): well-formed, written in the
statutes' own words, and matching the way people describe a matter."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from recherche.search import LAY_VOCABULARY_PATH, THESAURUS_PATH, embedding_query, expand_query, vocabulary_entries

GESETZE = Path(__file__).resolve().parents[2] / "recherche" / "data" / "gesetze"


@pytest.fixture(scope="module")
def corpus_text() -> str:
    return "\n".join(path.read_text(encoding="utf-8") for path in sorted(GESETZE.glob("*.md"))).lower()


def test_every_expansion_word_is_a_word_of_the_shipped_statutes(corpus_text):
    """A typo or a word the law does not use would widen the query with nothing."""
    missing = {
        word
        for _keys, expansion in vocabulary_entries(LAY_VOCABULARY_PATH)
        for word in re.findall(r"[\wäöüß-]+", expansion)
        if word.lower() not in corpus_text
    }
    assert not missing


def test_every_line_has_expressions_and_an_expansion():
    lines = [
        line for line in LAY_VOCABULARY_PATH.read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#")
    ]
    entries = vocabulary_entries(LAY_VOCABULARY_PATH)
    assert len(entries) == len(lines) > 150
    assert all(keys and expansion for keys, expansion in entries)


@pytest.mark.parametrize(
    ("schilderung", "begriff"),
    [
        ("Mein Chef zahlt seit Wochen kein Gehalt.", "Arbeitgeber"),
        ("Mein Chef zahlt seit Wochen kein Gehalt.", "Arbeitsentgelt"),
        ("Ich wurde in der Stadt mit 20 zu viel geblitzt.", "Höchstgeschwindigkeit"),
        ("Die Bank hat mein Konto gepfändet.", "Pfändungsschutzkonto"),
        ("Soll ich das Erbe ausschlagen? Es sind nur Schulden.", "Ausschlagung"),
        ("Der Nachbar feiert jede Nacht, der Lärm ist unerträglich.", "Einwirkung"),
        ("Die Behörde reagiert seit Monaten nicht auf meinen Antrag.", "zureichenden"),
        ("Ich habe im Onlineshop Schuhe gekauft und will sie zurückschicken.", "Widerrufsrecht"),
        ("Ich bin schwarzgefahren und soll jetzt zahlen.", "Erschleichen"),
        ("Kann ich meine Schulden durch eine Privatinsolvenz loswerden?", "Restschuldbefreiung"),
        ("Mein Vermieter will selbst einziehen und hat mir gekündigt.", "Familienangehörige"),
        ("Ich habe einen gelben Brief vom Mahngericht bekommen.", "Mahnbescheid"),
        ("Wer erbt, wenn es kein Testament gibt?", "gesetzliche Erben"),
        ("Bei der Hausdurchsuchung haben sie mein Handy mitgenommen.", "Beschlagnahme"),
        ("Ich bin nur geduldet und soll ausreisen.", "Aussetzung der Abschiebung"),
        ("Die Schufa speichert falsche Daten über mich.", "Auskunfteien"),
        ("Kann ich die Putzfrau von der Steuer absetzen?", "haushaltsnahe Dienstleistungen"),
        ("Mein Chef hat mich in eine andere Filiale versetzt.", "Weisungsrecht"),
        # an expression of several words with other words in between ("aus Versehen … überwiesen")
        ("Ich habe aus Versehen Geld überwiesen.", "ungerechtfertigte Bereicherung"),
    ],
)
def test_everyday_wording_finds_the_legal_concept(schilderung, begriff):
    assert begriff in expand_query(schilderung)


def test_short_expressions_match_whole_words_only():
    """ "Amt" is the authority, not the start of "Amtsgericht"; "Abo" not the start of "Abort"."""
    assert "Behörde" in expand_query("Das Amt hat nicht geantwortet.")
    assert "Behörde" not in expand_query("Das Amtsgericht hat terminiert.")


def test_a_longer_expression_wins_over_a_shorter_one_inside_it():
    assert "Verbraucherinsolvenzverfahren" in expand_query("Wie funktioniert die Privatinsolvenz?")


def test_the_embedding_model_sees_the_question_with_its_statute_wording():
    question = "Mein Chef hat mir per WhatsApp gekündigt."
    assert embedding_query(question).startswith(question)
    assert "Arbeitgeber" in embedding_query(question) and "Schriftform" in embedding_query(question)
    assert (
        embedding_query("Kündigungsfrist § 622 BGB")
        == "Kündigungsfrist § 622 BGB (Kündigungsfrist Frist Kündigung spätestens Werktag Kalendermonats)"
    )
    assert embedding_query("Wie backe ich einen Marmorkuchen?") == "Wie backe ich einen Marmorkuchen?"


@pytest.mark.parametrize("path", [LAY_VOCABULARY_PATH, THESAURUS_PATH])
def test_every_expression_of_the_vocabularies_is_found_in_a_question(path):
    """The expressions are looked up by the letters they begin with; none may be missed (keys that
    begin with a digit, a hyphenated short word or an umlaut included)."""
    missed = [
        key
        for keys, expansion in vocabulary_entries(path)
        for key in keys
        if expansion not in expand_query(f"Frage: {key}, was nun?")
    ]
    assert not missed


def test_words_in_between_stay_within_a_sentence_and_few():
    assert expand_query("Ich habe aus Versehen Geld. Überwiesen habe ich nichts.") == ""
    assert expand_query("Ich habe aus Versehen mit meinem Freund und seinem Bruder das Geld überwiesen.") == ""


def test_no_expression_appears_twice_in_the_vocabularies():
    """One expression, one statute wording: a second line would widen the query twice, with two
    wordings of which the reader of the file sees only one."""
    keys = [key for path in (LAY_VOCABULARY_PATH, THESAURUS_PATH) for keys, _ in vocabulary_entries(path) for key in keys]
    assert sorted({key for key in keys if keys.count(key) > 1}) == []


def test_an_expression_displaced_by_a_longer_one_does_not_come_back_through_a_gap():
    """ "kann nicht mehr arbeiten" is the Erwerbsminderung; its part "nicht mehr arbeiten" (the
    Zurückbehaltungsrecht of an unpaid employee) must not be added by the gapped pass."""
    wording = expand_query("Ich kann nicht mehr arbeiten, bekomme ich eine Rente?")
    assert "Erwerbsminderung" in wording
    assert "Zurückbehaltungsrecht" not in wording


@pytest.mark.parametrize(
    ("frage", "fremd"),
    [
        ("Die Bank hat meinen Kredit gekündigt.", "Arbeitsverhältnis"),
        ("Wann werde ich aus der U-Haft entlassen?", "Kündigungsschutz"),
        ("Ist davon auszugehen, dass der Zugewinn auszugleichen ist?", "Räumung"),
        ("Habe ich als Ehefrau ein Zeugnisverweigerungsrecht?", "Arbeitsverhältnis"),
        ("Dementsprechend ist die Klage abzuweisen.", "Geschäftsunfähigkeit"),
        ("Darf ich die Wohnung temporär untervermieten?", "Höchstgeschwindigkeit"),
        ("Ich habe einen neuen Job gefunden.", "Finderlohn"),
        ("Der Arbeitgeber hat seine Fürsorgepflicht verletzt.", "Verkehrssicherung"),
        ("Ist die Klausel eine unangemessene Benachteiligung?", "ethnischen Herkunft"),
        ("Der Unfall wurde vom anderen Fahrer verschuldet.", "Insolvenzverfahren"),
    ],
)
def test_an_expression_does_not_fire_where_it_means_something_else(frage, fremd):
    """Everyday keys that are also common words, prefixes of other words or other legal terms
    (found by a review of the vocabulary) must not pull a question to another field."""
    assert fremd not in expand_query(frage)


def test_a_deadline_ending_on_a_sunday_finds_the_next_working_day_rule():
    assert "Werktages" in expand_query("Meine Frist endet an einem Sonntag, was gilt?")
