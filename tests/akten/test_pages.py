"""Amounts on the Akte page are written the German way."""

from decimal import Decimal

import pytest
from django.test import Client

from tests.factories import AkteFactory


@pytest.mark.django_db
def test_amount_is_german():
    akte = AkteFactory(gegenstandswert=Decimal("23500.00"))
    c = Client()
    c.force_login(akte.anwalt)
    assert "23.500,00 €" in c.get(f"/akten/{akte.pk}/").content.decode()
