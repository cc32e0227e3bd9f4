"""Lines of one paragraph separated by a line break (w:br) – the Rubrum's „Hans Schmidt, Hauptstraße 5,
10827 Berlin“ / „– Kläger –“ – stand one full line apart in the PDF, as in Word: they were set with
the font size as line height and the second line touched the first."""

from __future__ import annotations

import io

import docx
import pytest
from docx.shared import Pt
from pypdf import PdfReader

from schriftgut.pdf import docx_zu_pdf
from tests.schriftgut.helpers import akte_mit_parteien, kanzlei, zeilen_positionen

# Liberation Sans: ascent 0.905 + descent 0.212 of the size (in mm per pt of size); a line closer than
# that to the one above lets their glyphs overlap
GLYPHENHOEHE = 1.117 * 25.4 / 72


def _grundlinien(pdf: bytes, *texte: str) -> dict[str, float]:
    """The baseline (mm from the top of page 1) of the first line starting with each of `texte`."""
    zeilen = zeilen_positionen(pdf)
    return {text: next(z.y for z in zeilen if z.text.startswith(text)) for text in texte}


def test_a_line_break_inside_a_paragraph_moves_one_full_line_down():
    document = docx.Document()
    absatz = document.add_paragraph()
    absatz.add_run("Hans Schmidt, Hauptstraße 5, 10827 Berlin").add_break()
    absatz.add_run("– Kläger –")
    absatz.runs[0].font.size = absatz.runs[1].font.size = Pt(11)
    lang = document.add_paragraph("Die Beklagte schuldet die Miete für drei Monate. " * 6)
    lang.runs[0].font.size = Pt(11)
    pdf = docx_zu_pdf(document)

    y = _grundlinien(pdf, "Hans Schmidt", "– Kläger –")
    abstand = y["– Kläger –"] - y["Hans Schmidt"]
    assert abstand >= 11 * GLYPHENHOEHE, abstand
    # the same distance as between the lines of a paragraph that wraps: Word's line height
    umbrochen = [z.y for z in zeilen_positionen(pdf) if z.text.startswith(("Die Beklagte", "für drei", "Monate", "schuldet"))]
    assert len(umbrochen) >= 2
    assert abs((umbrochen[1] - umbrochen[0]) - abstand) < 0.5


@pytest.mark.django_db
def test_the_rubrum_of_a_klageerwiderung_has_no_overlapping_lines(client, settings):
    """Through the user's way: the draft's PDF download."""
    from agent.tools.base import ToolContext
    from agent.tools.executor import toolbox_for
    from tests.agent.tools.conftest import run_call
    from tests.factories import AgentRunFactory

    settings.HELENA_TOOLS_THREAD_SENSITIVE = True
    kanzlei()
    akte = akte_mit_parteien()
    run = AgentRunFactory(user=akte.anwalt, akte=akte)
    ergebnis = run_call(
        toolbox_for(ToolContext(user=akte.anwalt, akte=akte, run=run)),
        "create_draft_dokument",
        {"titel": "Klageerwiderung", "vorlage": "Klageerwiderung", "inhalt_markdown": "Die Klage ist unbegründet."},
        "c1",
    )
    assert ergebnis.ok, ergebnis.error
    client.force_login(akte.anwalt)
    pdf = client.get(f"/api/drafts/{ergebnis.data['draft_id']}/datei/pdf/").content

    y = _grundlinien(pdf, "Hans Schmidt, Hauptstraße 5", "– Kläger –", "Erika Mustermann, Musterweg 1", "– Beklagte –")
    y["Prozessbevollmächtigte"] = next(
        z.y for z in zeilen_positionen(pdf) if z.text.startswith("Prozessbevollmächtigte") and z.y > y["– Beklagte –"]
    )
    groesse = 11
    assert y["– Kläger –"] - y["Hans Schmidt, Hauptstraße 5"] >= groesse * GLYPHENHOEHE
    assert y["– Beklagte –"] - y["Erika Mustermann, Musterweg 1"] >= groesse * GLYPHENHOEHE
    assert y["Prozessbevollmächtigte"] - y["– Beklagte –"] >= groesse * GLYPHENHOEHE
    assert len(PdfReader(io.BytesIO(pdf)).pages) >= 1
