"""Search API: the same functions the agent tools call; staff only (a MANDANT gets 404, akten/policy.py)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from akten.policy import is_mandant

from . import search


class SearchParams(serializers.Serializer):
    q = serializers.CharField(max_length=500)
    limit = serializers.IntegerField(min_value=1, max_value=50, default=10)
    gesetz = serializers.CharField(required=False, allow_blank=True, default="")
    gericht = serializers.CharField(required=False, allow_blank=True, default="")
    rechtsgebiet = serializers.CharField(required=False, allow_blank=True, default="")
    von = serializers.DateField(required=False, allow_null=True, default=None)
    bis = serializers.DateField(required=False, allow_null=True, default=None)
    kategorie = serializers.CharField(required=False, allow_blank=True, default="")
    akte = serializers.IntegerField(required=False, allow_null=True, default=None)


PARAMS = [OpenApiParameter(str(name), str) for name in SearchParams().fields]


class _SearchApi(APIView):
    def run(self, request: Request, params: dict[str, Any]) -> search.SearchResult:
        raise NotImplementedError

    @extend_schema(parameters=PARAMS, responses=dict)
    def get(self, request: Request) -> Response:
        if is_mandant(request.user):  # the firm's research tools are not hers (akten/policy.py): 404
            raise NotFound
        serializer = SearchParams(data=request.query_params)
        serializer.is_valid(raise_exception=True)
        return Response(asdict(self.run(request, serializer.validated_data)))


class NormSearchApi(_SearchApi):
    def run(self, request: Request, p: dict[str, Any]) -> search.SearchResult:
        return search.search_normen(query=p["q"], gesetz=p["gesetz"] or None, limit=p["limit"])


class UrteilSearchApi(_SearchApi):
    def run(self, request: Request, p: dict[str, Any]) -> search.SearchResult:
        return search.search_urteile(
            query=p["q"], gericht=p["gericht"], rechtsgebiet=p["rechtsgebiet"], von=p["von"], bis=p["bis"], limit=p["limit"]
        )


class MusterSearchApi(_SearchApi):
    def run(self, request: Request, p: dict[str, Any]) -> search.SearchResult:
        return search.search_muster(query=p["q"], kategorie=p["kategorie"], limit=p["limit"])


class DokumentSearchApi(_SearchApi):
    def run(self, request: Request, p: dict[str, Any]) -> search.SearchResult:
        return search.search_dokumente(user=request.user, query=p["q"], akte_id=p["akte"], limit=p["limit"])
