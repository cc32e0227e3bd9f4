"""Factories of the agent app's tool layer (the Kanzlei factories live in tests/factories.py)."""

import factory

from agent.models import ToolCallAudit, ToolPermission
from akten.models import Role
from tests.factories import UserFactory


class ToolPermissionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ToolPermission
        django_get_or_create = ("role", "tool")

    role = Role.ANWALT
    tool = "read_akte"
    allowed = True


class ToolCallAuditFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ToolCallAudit

    user = factory.SubFactory(UserFactory)
    tool = "read_akte"
    arguments = factory.LazyFunction(lambda: {"akte": "1/26"})
    summary = "1 Ergebnis: Akte 1/26 Mustermann ./. Schmidt"
