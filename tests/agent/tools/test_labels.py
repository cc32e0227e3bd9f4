"""Step labels in the live feed are German, built from the tool's name."""

import pytest

from agent.engine.loop import tool_label
from agent.tools.discovery import all_tools


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
    assert tool_label(tool) == label


def test_no_label_of_a_registered_tool_carries_english_words():
    for name in all_tools():
        label = tool_label(name)
        assert not {"Draft", "Rules", "Detail", "Get", "Create"} & set(label.replace("…", "").split()), label
