"""Inline SVG icons (paths after Feather Icons, MIT) instead of emoji, which render as boxes on
machines without an emoji font. Decorative: the text next to an icon says what it means."""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString

ICONS: dict[str, str] = {
    "thumb-up": (
        "M14 9V5a3 3 0 0 0-3-3l-4 9v11h11.28a2 2 0 0 0 2-1.7l1.38-9a2 2 0 0 0-2-2.3zM7 22H4a2 2 0 0 1-2-2v-7a2 2 0 0 1 2-2h3"
    ),
    "thumb-down": (
        "M10 15v4a3 3 0 0 0 3 3l4-9V2H5.72a2 2 0 0 0-2 1.7l-1.38 9a2 2 0 0 0 2 2.3z"
        "m7-13h2.67A2.31 2.31 0 0 1 22 4v7a2.31 2.31 0 0 1-2.33 2H17"
    ),
    "background": "M23 4v6h-6M1 20v-6h6M3.51 9a9 9 0 0 1 14.85-3.36L23 10M1 14l4.64 4.36A9 9 0 0 0 20.49 15",
    "inline": "M13 2 3 14h9l-1 8 10-12h-9l1-8z",
    "copy": "M9 9h11v11H9zM5 15H4a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h9a2 2 0 0 1 2 2v1",
    "warning": "M10.29 3.86 1.82 18a2 2 0 0 0 1.71 3h16.94a2 2 0 0 0 1.71-3L13.71 3.86a2 2 0 0 0-3.42 0zM12 9v4M12 17h.01",
    "bell": "M18 8A6 6 0 0 0 6 8c0 7-3 9-3 9h18s-3-2-3-9M13.73 21a2 2 0 0 1-3.46 0",
    "check": "M20 6 9 17l-5-5",
    "cross": "M18 6 6 18M6 6l12 12",
    "trash": "M3 6h18M19 6l-1 14a2 2 0 0 1-2 2H8a2 2 0 0 1-2-2L5 6M10 11v6M14 11v6M9 6V4a1 1 0 0 1 1-1h4a1 1 0 0 1 1 1v2",
}


def icon_svg(name: str) -> SafeString:
    """An inline, decorative SVG (aria-hidden) drawn in the current text colour."""
    return format_html(
        '<svg class="icon" aria-hidden="true" focusable="false" viewBox="0 0 24 24" width="16" height="16" fill="none" '
        'stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="{}"/></svg>',
        ICONS[name],
    )
