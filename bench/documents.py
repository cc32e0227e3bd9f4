"""Document rendering benchmark: a two-page Schriftsatz (shipped template „Klageerwiderung“ with
letterhead) rendered to DOCX (docxtpl) and to PDF (fpdf2 from the rendered DOCX), and — for the
choice of the PDF path — the same DOCX converted by a headless LibreOffice when `soffice` exists.

    .venv/bin/python bench/documents.py [--repeat 20]

Prints the figures and saves them to bench/results/documents.json. Target: DOCX and PDF < 2 s each
on 2 cores. No database: the values are the preview's sample data.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "helena.settings.dev")

import django  # noqa: E402

django.setup()

from pypdf import PdfReader  # noqa: E402

from akten.models import KanzleiProfil  # noqa: E402
from schriftgut.briefkopf import briefkopf_anwenden  # noqa: E402
from schriftgut.builtin import mitgeliefert_inhalt  # noqa: E402
from schriftgut.pdf import docx_zu_pdf  # noqa: E402
from schriftgut.platzhalter import beispiel_kontext  # noqa: E402
from schriftgut.vorlagen import vorlage_rendern  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "documents.json"
ABSATZ = (
    "Die Beklagte hat die Miete für die Monate Januar bis März vollständig und fristgerecht gezahlt. "
    "Die behaupteten Mängel bestanden nicht; eine Minderung nach § 536 BGB scheidet aus. "
)
FREITEXT = "## Anträge\n\nDie Klage wird abgewiesen.\n\n## Begründung\n\n" + "\n\n".join(ABSATZ * 3 for _ in range(9))


def _profil() -> KanzleiProfil:
    return KanzleiProfil(
        name="Kanzlei Müller & Becker",
        partner="Dr. Katrin Müller\nJonas Becker",
        strasse="Friedrichstraße 100",
        plz="10117",
        ort="Berlin",
        telefon="030 1234567",
        email="kanzlei@kanzlei.example",
        bank_name="Berliner Volksbank",
        iban="DE89 3704 0044 0532 0130 00",
        bic="BEVODEBBXXX",
        ust_id="DE123456789",
    )


def render_docx() -> tuple[Any, bytes]:
    profil = _profil()
    kontext = beispiel_kontext(profil)
    kontext.werte["freitext"] = FREITEXT
    gerendert = vorlage_rendern(mitgeliefert_inhalt("KLAGEERWIDERUNG"), kontext)
    briefkopf_anwenden(gerendert.docx, profil=profil, aktenzeichen="12/26")
    buffer = io.BytesIO()
    gerendert.docx.save(buffer)
    return gerendert.docx, buffer.getvalue()


def libreoffice(docx: bytes) -> float | None:
    soffice = shutil.which("soffice")
    if soffice is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        quelle = Path(tmp) / "schriftsatz.docx"
        quelle.write_bytes(docx)
        start = time.perf_counter()
        subprocess.run(  # noqa: S603
            [
                soffice,
                f"-env:UserInstallation=file://{tmp}/profil",
                "--headless",
                "--convert-to",
                "pdf",
                "--outdir",
                tmp,
                str(quelle),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--libreoffice-repeat", type=int, default=3)
    args = parser.parse_args()
    docx_zeiten, pdf_zeiten = [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        docx_objekt, docx = render_docx()
        docx_zeiten.append(time.perf_counter() - start)
        start = time.perf_counter()
        pdf = docx_zu_pdf(docx_objekt)
        pdf_zeiten.append(time.perf_counter() - start)
    seiten = len(PdfReader(io.BytesIO(pdf)).pages)
    lo = [z for z in (libreoffice(docx) for _ in range(args.libreoffice_repeat)) if z is not None]

    def figures(values: list[float]) -> dict[str, float]:
        ordered = sorted(values)
        return {
            "median_s": round(statistics.median(ordered), 3),
            "max_s": round(ordered[-1], 3),
        }

    result = {
        "pages": seiten,
        "docx_docxtpl": figures(docx_zeiten),
        "pdf_fpdf2": figures(pdf_zeiten),
        "pdf_libreoffice_headless": figures(lo) if lo else None,
        "repeat": args.repeat,
        "cpus": os.cpu_count(),
        "loadavg": os.getloadavg(),
        "python": platform.python_version(),
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
