"""Calculators for a German law firm: RVG fees, GKG court fees, Verzugszinsen and deadlines (Fristen).

The calculator modules (``rvg``, ``gkg``, ``zinsen``, ``fristen``, ``tabellen``) are plain Python without
Django so that services, agent tools and tests can use them directly. The one model, ``Basiszinssatz``
(``models``, ``selectors``, ``services``, ``admin``), holds the half years a Kanzlei adds after the shipped
Basiszinssatz history; callers pass that history into ``zinsen``.
"""
