"""A user's mistake on the command line gets a German message and exit code, never a traceback
(found by a probe: missing paths, files that are no UTF-8 text, a broken backup manifest, a
retention of a billion days)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("command", ["ingest_gesetze", "ingest_muster", "ingest_urteile"])
def test_ingest_of_a_missing_path_or_a_binary_file_is_a_german_error(command, tmp_path):
    with pytest.raises(CommandError, match="gibt es nicht"):
        call_command(command, str(tmp_path / "fehlt"), "--no-embed", stdout=io.StringIO())
    binary = tmp_path / ("daten.jsonl" if command == "ingest_urteile" else "daten.md")
    binary.write_bytes(b"\xff\xfe\x00Z")
    with pytest.raises(CommandError, match="Nicht als UTF-8-Text lesbar: daten"):
        call_command(command, str(binary), "--no-embed", stdout=io.StringIO())


@pytest.mark.parametrize("days", ["800000", "1000000000"])
def test_prune_with_a_retention_beyond_the_calendar_is_a_german_error(days):
    with pytest.raises(CommandError, match="höchstens 36500 Tage") as refused:
        call_command("prune_run_traces", "--days", days, stdout=io.StringIO())
    assert refused.value.returncode == 2


@pytest.mark.parametrize(
    ("manifest", "message"),
    [("{kaputt", "ist nicht lesbar"), (json.dumps({"format": 1}), "ist unvollständig")],
)
def test_restore_of_a_broken_manifest_is_a_german_error(tmp_path, manifest, message):
    from helena.backup import FORMAT_VERSION, MANIFEST_NAME

    (tmp_path / MANIFEST_NAME).write_text(manifest.replace('"format": 1', f'"format": {json.dumps(FORMAT_VERSION)}'))
    with pytest.raises(CommandError, match=message):
        call_command("restore", str(tmp_path), database="helena_nie_angelegt", stdout=io.StringIO())
