"""An accepted Kostennote stays the invoice that was issued (review 2026-12-03): a new version from
text is refused instead of replacing the invoice with a letter, and the draft is no longer rendered
again (with today's date and the current bank details under the same number)."""

import pytest
from django.urls import reverse

from akten.models import Dokument
from drafts.models import HelenaDraft
from drafts.services import draft_accept, draft_edit
from tests.schriftgut.helpers import akte_mit_parteien, docx_text, kanzlei
from tests.schriftgut.test_kostennote import _entwurf

pytestmark = pytest.mark.django_db


@pytest.fixture
def angenommen(client):
    kanzlei()
    akte = akte_mit_parteien()
    client.force_login(akte.anwalt)
    antwort = _entwurf(client, akte)
    assert antwort.status_code in (200, 302)
    draft = HelenaDraft.objects.get(typ="KOSTENNOTE")
    assert client.get(reverse("api-draft-datei", kwargs={"pk": draft.pk, "ausgabe": "docx"})).status_code == 200
    # with an accompanying text (the source a new version from text was built on)
    draft_edit(draft_id=draft.pk, by=akte.anwalt, payload={**draft.payload, "text": "Für unsere Tätigkeit berechnen wir:"})
    return draft, draft_accept(draft_id=draft.pk, by=akte.anwalt, version=1)


def test_a_new_version_from_text_does_not_replace_the_invoice(client, angenommen):
    _, draft = angenommen
    dokument = Dokument.objects.get(pk=draft.result_object_id)
    with dokument.datei.open("rb") as handle:
        vorher = handle.read()
    assert "Gesamtbetrag" in docx_text(vorher)
    antwort = client.post(
        f"/api/dokumente/{dokument.pk}/versionen/",
        {"inhalt_markdown": "Für unsere Tätigkeit berechnen wir:"},
        content_type="application/json",
    )
    assert antwort.status_code == 400 and "lade stattdessen die geänderte Datei hoch" in antwort.content.decode()
    dokument.refresh_from_db()
    with dokument.datei.open("rb") as handle:
        assert handle.read() == vorher


def test_the_accepted_draft_is_not_rendered_again(client, angenommen):
    entwurf, draft = angenommen
    for ausgabe in ("docx", "pdf"):
        assert client.get(reverse("api-draft-datei", kwargs={"pk": entwurf.pk, "ausgabe": ausgabe})).status_code == 404
    assert client.get(f"/api/drafts/{entwurf.pk}/").json()["downloads"] is None
