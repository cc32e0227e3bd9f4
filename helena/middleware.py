"""Request-wide checks that every page and API view relies on (see helena/request_input.py)."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.cache import patch_cache_control

from .request_input import InputError, check_api_params, check_body, check_query
from .views import bad_request, is_api


class RequestInputMiddleware:
    """Refuses, with a German 400 naming the field, any input that must never reach a view: control
    characters in query parameters, NUL in bodies, API parameter values outside the schema."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            check_query(request.GET)
            if is_api(request):
                check_api_params(request.path_info, request.method or "GET", request.GET)
            check_body(request)
        except InputError as exc:
            return bad_request(request, exc.message, field=exc.field)
        return self.get_response(request)


class PrivateCacheMiddleware:
    """What a signed-in user receives (pages, API, downloads) is for them at this moment: no browser
    or proxy may keep it (`Cache-Control: private, no-store`), so that nothing of an Akte outlives
    the access to it in a cache. A view that sets its own Cache-Control keeps it; static files are
    served before this middleware (WhiteNoise)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not response.has_header("Cache-Control"):
            patch_cache_control(response, private=True, no_store=True)
        return response


class MethodNotAllowedPageMiddleware:
    """A page reached with a method it does not take (typing the address of a form's target,
    `/abmelden/` in the address bar) answered 405 with an empty body: a blank page. Such an answer to
    a page (not the API, which says it in JSON) gets the German 405 page; its Allow header stays."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or response.content or is_api(request):
            return response
        page = render(request, "405.html", status=405)
        if response.has_header("Allow"):
            page["Allow"] = response["Allow"]
        return page
