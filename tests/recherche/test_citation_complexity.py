"""Citation review of stop 34: text that made the citation check quadratic. The check runs on every
chat page load and at the end of each run, and an answer may repeat text from an untrusted
document: "§ 1" before 20,000 spaces took about a minute, a 100 KB paragraph with an emphasised
citation at its end 73 s. Now both take well under a second. These inputs are three times larger
(about ten times the work of a quadratic scan); a bound of a minute leaves a margin of more than a
hundred times for a loaded machine, while the quadratic scans would need many minutes."""

import threading

import pytest

from recherche.citations import extract, link_citations
from tests.recherche.test_citations import NAMES

BOUND_SECONDS = 60


def _finishes(work) -> bool:
    done = threading.Event()

    def run() -> None:
        work()
        done.set()

    threading.Thread(target=run, daemon=True).start()
    return done.wait(BOUND_SECONDS)


def test_a_section_sign_before_a_long_run_of_spaces():
    found: list = []
    assert _finishes(lambda: found.extend(extract("§ 1" + " " * 60_000 + "BGB § 433 BGB", NAMES)))
    assert [(z.nummer, z.gesetz) for z in found][-1] == ("433", "BGB")


@pytest.mark.django_db
def test_a_long_paragraph_with_an_emphasised_citation_at_its_end(shipped_gesetze):
    html = "<p>" + "Text ohne Zitat und so weiter. " * 10_000 + "<strong>§ 535</strong> BGB</p>"
    linked: list[str] = []
    assert _finishes(lambda: linked.append(link_citations(html)))
    assert "§ 535 BGB</strong>" in linked[0] or "§ 535 BGB" in linked[0]
