"""The chat page shows a Mandantin what the websocket replay shows her, no more."""

import pytest
from django.urls import reverse

from akten.models import Role
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_chat_page_names_the_model_to_staff_not_to_a_mandantin(client):
    """The websocket replay withholds model and tier from a Mandantin; the page showed "Modell: …"."""
    from django.utils import timezone

    from agent.models import AgentRun, Conversation, Message
    from tests.factories import AgentRunFactory

    for role, shown in ((Role.MANDANT, False), (Role.ANWALT, True)):
        user = UserFactory(role=role)
        conversation = Conversation.objects.create(user=user)
        run = AgentRunFactory(
            user=user,
            conversation=conversation,
            status=AgentRun.Status.DONE,
            finished_at=timezone.now(),
            model_name="gpt-4.1-kanzlei",
            tier=3,
        )
        Message.objects.create(conversation=conversation, role=Message.Role.USER, text="Wie steht es?", run=run)
        Message.objects.create(conversation=conversation, role=Message.Role.ASSISTANT, text="Gut.", run=run)
        client.force_login(user)
        html = client.get(reverse("helena-conversation", args=[conversation.pk])).content.decode()
        assert "Gut." in html
        assert ("gpt-4.1-kanzlei" in html) is shown
