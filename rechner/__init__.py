"""Calculators for a German law firm: RVG fees, GKG court fees and deadlines (Fristen).

The calculator modules (``rvg``, ``gkg``, ``fristen``, ``tabellen``) are plain Python without Django
so that services, agent tools and tests can use them directly.
"""
