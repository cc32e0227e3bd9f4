"""Which text of a draft the citation check reads (drafts.schemas.draft_prose), and the draft card's
list of citations that are not in the corpus."""

import pytest

from drafts.models import HelenaDraft
from drafts.schemas import draft_prose
from tests.factories import AkteFactory, HelenaDraftFactory


@pytest.mark.parametrize(
    ("typ", "payload", "expected"),
    [
        (
            "DOKUMENT",
            {"titel": "Klage nach § 823 BGB", "inhalt_markdown": "Nach § 1 BGB"},
            "Klage nach § 823 BGB\n\nNach § 1 BGB",
        ),
        ("NOTIZ", {"titel": "Zu § 1", "text": "und § 2 BGB"}, "Zu § 1\n\nund § 2 BGB"),
        (
            "FRIST",
            {
                "titel": "Berufung",
                "beschreibung": "§ 517 ZPO",
                "berechnung": {"fristablauf": "2027-01-04", "rechtsgrundlage": "§ 520 ZPO"},
            },
            "Berufung\n\n§ 517 ZPO\n\n§ 520 ZPO",
        ),
        ("ZEITERFASSUNG", {"beschreibung": "Prüfung § 626 BGB", "minuten": 30}, "Prüfung § 626 BGB"),
        (
            "AKTE_UPDATE",
            {"changes": {"wegen": "§ 535 BGB", "zusammenfassung": "§ 573 BGB"}, "begruendung": "Neu"},
            "Neu\n\n§ 535 BGB\n\n§ 573 BGB",
        ),
        (
            "KOSTENNOTE",
            {
                "titel": "Kostennote",
                "hinweise": ["Anrechnung nach Vorbem. 3 Abs. 4 VV RVG"],
                "positionen": [{"vv": "3100", "bezeichnung": "Verfahrensgebühr"}, {"vv": "x", "bezeichnung": "?"}],
                "auslagen": [{"vv": "7002", "bezeichnung": "Pauschale"}],
            },
            "Kostennote\n\nAnrechnung nach Vorbem. 3 Abs. 4 VV RVG\n\nNr. 3100 VV RVG\n\nNr. 7002 VV RVG",
        ),
        ("FRIST", "kaputt", ""),
        ("KOSTENNOTE", {"positionen": ["kaputt"], "hinweise": [3]}, ""),
    ],
)
def test_the_text_of_each_draft_type_that_the_citation_check_reads(typ, payload, expected):
    assert draft_prose(typ, payload) == expected


@pytest.mark.django_db
def test_a_frist_card_lists_its_citations_that_are_not_in_the_corpus():
    from agent.chat.cards import draft_cards
    from recherche.models import Gesetz, Norm

    # a statute of its own: the shipped ZPO may be in the database (tests/recherche ingest it per session)
    gesetz = Gesetz.objects.create(abkuerzung="FrPrG", titel="Fristenprüfgesetz", slug="frprg", stand="Stand X")
    Norm.objects.create(gesetz=gesetz, art="§", nummer="517", titel="Berufungsfrist", text="(1) Ein Satz.", position=1)
    akte = AkteFactory()
    draft = HelenaDraftFactory(
        akte=akte,
        typ=HelenaDraft.Typ.FRIST,
        titel="Berufungsfrist",
        payload={
            "typ": "FRIST",
            "titel": "Berufungsfrist",
            "datum": "2027-01-04",
            "fristablauf": "2027-02-04",
            "beschreibung": "§ 517 FrPrG; Begründung § 520 Abs. 9 FrPrG, vgl. § 517 S. 2 FrPrG",
        },
    )
    card = draft_cards(user=akte.anwalt, draft_ids=[draft.pk])[0]
    assert card["zitate_offen"] == [
        {"zitiert": "§ 520 Abs. 9 FrPrG", "grund": "§ 520 FrPrG gibt es im Bestand nicht."},
        {"zitiert": "§ 517 S. 2 FrPrG", "grund": "§ 517 FrPrG hat keinen Satz 2."},
    ]
    clean = HelenaDraftFactory(
        akte=akte, typ=HelenaDraft.Typ.NOTIZ, titel="N", payload={"titel": "Nach § 517 FrPrG", "text": "Bitte prüfen."}
    )
    cards = {card["id"]: card for card in draft_cards(user=akte.anwalt, draft_ids=[clean.pk, draft.pk])}
    assert (len(cards[clean.pk]["zitate_offen"]), len(cards[draft.pk]["zitate_offen"])) == (0, 2)
