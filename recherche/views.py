"""Search page and readers for norms, decisions and templates (German UI)."""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from akten.policy import firm_tools_page

from . import search
from .citations import text_blocks
from .models import Gesetz, Muster, Norm, Urteil

KINDS = {"normen": "Gesetze", "urteile": "Entscheidungen", "muster": "Muster", "dokumente": "Dokumente der Kanzlei"}


@firm_tools_page
def recherche(request: HttpRequest) -> HttpResponse:
    query = request.GET.get("q", "").strip()[:500]
    kind = request.GET.get("art", "normen")
    kind = kind if kind in KINDS else "normen"
    gesetz = request.GET.get("gesetz", "")
    result = None
    if query:
        if kind == "normen":
            result = search.search_normen(query=query, gesetz=gesetz or None, limit=15)
        elif kind == "urteile":
            result = search.search_urteile(query=query, limit=15)
        elif kind == "muster":
            result = search.search_muster(query=query, limit=15)
        else:
            result = search.search_dokumente(user=request.user, query=query, limit=15)
    context = {
        "q": query,
        "art": kind,
        "kinds": KINDS,
        "gesetz": gesetz,
        "result": result,
        "gesetze": Gesetz.objects.order_by("abkuerzung").values_list("abkuerzung", flat=True),
    }
    return render(request, "recherche/search.html", context)


@login_required
def norm_detail(request: HttpRequest, pk: int) -> HttpResponse:
    norm = get_object_or_404(Norm.objects.select_related("gesetz"), pk=pk)
    neighbours = Norm.objects.filter(gesetz=norm.gesetz, position__in=[norm.position - 1, norm.position + 1])
    previous = next((n for n in neighbours if n.position < norm.position), None)
    following = next((n for n in neighbours if n.position > norm.position), None)
    context = {"norm": norm, "blocks": text_blocks(norm.text), "previous": previous, "following": following}
    return render(request, "recherche/norm.html", context)


@login_required
def norm_panel(request: HttpRequest, pk: int) -> HttpResponse:
    """The norm as a fragment for the side panel of the chat (text with Absatz anchors, Stand)."""
    norm = get_object_or_404(Norm.objects.select_related("gesetz"), pk=pk)
    return render(request, "recherche/norm_panel.html", {"norm": norm, "blocks": text_blocks(norm.text)})


@login_required
def urteil_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "recherche/urteil.html", {"urteil": get_object_or_404(Urteil, pk=pk)})


@firm_tools_page
def muster_detail(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "recherche/muster.html", {"muster": get_object_or_404(Muster, pk=pk)})
