"""Step labels in the live feed are German: each tool's label, or one built from its name."""

import pytest

from agent.tools.base import ToolContext
from agent.tools.discovery import all_tools
from agent.tools.executor import toolbox_for
from tests.factories import UserFactory


@pytest.mark.parametrize(
    ("tool", "label"),
    [
        ("search_gesetze", "Durchsuche Gesetze …"),
        ("read_akte_detail", "Lese Akte …"),
        ("create_draft_frist", "Entwerfe Frist …"),
        ("get_kosten_rules", "Berechne Kosten …"),
        ("berechne_frist", "Berechne Frist …"),
    ],
)
def test_tool_labels_read_as_german(tool, label):
    assert all_tools()[tool].progress_label == label


def test_no_label_of_a_registered_tool_carries_english_words():
    for name in all_tools():
        label = all_tools()[name].progress_label
        assert not {"Draft", "Rules", "Detail", "Get", "Create"} & set(label.replace("…", "").split()), label


@pytest.mark.django_db
def test_the_run_toolbox_labels_offered_withheld_and_unknown_tools():
    box = toolbox_for(ToolContext(user=UserFactory(role="PRAKTIKANT")))
    assert box.label("read_fristen") == "Lese Fristen …"
    assert "update_akte" not in box.names() and box.label("update_akte") == "Entwerfe Änderung der Akte …"
    assert box.label("frag_das_orakel") == "Nutze Frag Das Orakel …"
