"""Legal knowledge: statutes, decisions, templates and the searchable chunks of all of them,
including the firm's own documents (chunks of a Dokument carry its Akte for access filtering)."""

from __future__ import annotations

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _
from pgvector.django import VectorField

from akten.models import Akte, AkteBoundQuerySet, Dokument


class Gesetz(models.Model):
    abkuerzung = models.CharField(_("Abkürzung"), max_length=30, unique=True)
    titel = models.CharField(_("Titel"), max_length=300)
    slug = models.SlugField(_("Kennung bei gesetze-im-internet.de"), max_length=60)
    stand = models.CharField(_("Stand"), max_length=300, blank=True)
    aliase = models.JSONField(_("weitere Abkürzungen"), default=list, blank=True)
    bjnr = models.CharField(_("juris-Dokumentnummer"), max_length=30, blank=True)
    quelle_hash = models.CharField(_("Hash der Quelldatei"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("Gesetz")
        verbose_name_plural = _("Gesetze")
        ordering = ["abkuerzung"]

    def __str__(self) -> str:
        return f"{self.abkuerzung} – {self.titel}"

    @property
    def stand_kurz(self) -> str:
        """The version line as lawyers quote it: "zuletzt geändert durch Art. 14 G v. 8.12.2025"."""
        return self.stand[:1].lower() + self.stand[1:] if self.stand else ""


class Norm(models.Model):
    class Art(models.TextChoices):
        PARAGRAPH = "§", "§"
        ARTIKEL = "Art.", "Art."
        ANLAGE = "Anlage", "Anlage"

    gesetz = models.ForeignKey(Gesetz, verbose_name=_("Gesetz"), on_delete=models.CASCADE, related_name="normen")
    art = models.CharField(_("Art"), max_length=6, choices=Art.choices)
    nummer = models.CharField(_("Nummer"), max_length=40)
    titel = models.CharField(_("Überschrift"), max_length=500, blank=True)
    gliederung = models.CharField(_("Gliederung"), max_length=800, blank=True)
    text = models.TextField(_("Text"), blank=True)
    aufgehoben = models.BooleanField(_("weggefallen"), default=False)
    position = models.PositiveIntegerField(_("Position"))

    class Meta:
        verbose_name = _("Norm")
        verbose_name_plural = _("Normen")
        ordering = ["gesetz", "position"]
        constraints = [
            models.UniqueConstraint(fields=["gesetz", "position"], name="norm_position_unique"),
            models.CheckConstraint(condition=~Q(nummer=""), name="norm_nummer_not_empty"),
        ]
        indexes = [models.Index(fields=["gesetz", "nummer"])]

    def __str__(self) -> str:
        return self.zitat

    @property
    def zitat(self) -> str:
        """Citation as lawyers write it: "§ 573c BGB", "Art. 1 GG", "Anlage 2 RVG"."""
        return f"{self.art} {self.nummer} {self.gesetz.abkuerzung}"

    @property
    def official_url(self) -> str:
        """Link to the official text at gesetze-im-internet.de."""
        slug = self.gesetz.slug
        # "246a § 1" (a section inside an EGBGB article) is "art_246a__1" there
        number = self.nummer.lower().replace(" § ", "__").replace(" ", "_")
        if self.art == self.Art.ARTIKEL:
            return f"https://www.gesetze-im-internet.de/{slug}/art_{number}.html"
        if self.art == self.Art.ANLAGE:
            return f"https://www.gesetze-im-internet.de/{slug}/anlage_{number}.html"
        return f"https://www.gesetze-im-internet.de/{slug}/__{number}.html"


class Urteil(models.Model):
    external_id = models.CharField(_("Quell-ID"), max_length=100, unique=True)
    gericht = models.CharField(_("Gericht"), max_length=300)
    datum = models.DateField(_("Datum"))
    aktenzeichen = models.CharField(_("Aktenzeichen"), max_length=100)
    typ = models.CharField(_("Entscheidungsart"), max_length=60, blank=True)
    rechtsgebiet = models.CharField(_("Rechtsgebiet"), max_length=100, blank=True)
    leitsatz = models.TextField(_("Leitsatz"), blank=True)
    text = models.TextField(_("Text"))
    source_url = models.URLField(_("Quelle"), blank=True, max_length=500)
    pii_gefiltert = models.BooleanField(_("personenbezogene Daten gefiltert"), default=False)

    class Meta:
        verbose_name = _("Urteil")
        verbose_name_plural = _("Urteile")
        ordering = ["-datum"]
        indexes = [models.Index(fields=["gericht", "datum"]), models.Index(fields=["rechtsgebiet"])]

    def __str__(self) -> str:
        return f"{self.gericht}, {self.typ or 'Entscheidung'} vom {self.datum:%d.%m.%Y} – {self.aktenzeichen}"


class Muster(models.Model):
    slug = models.SlugField(_("Kennung"), max_length=100, unique=True)
    name = models.CharField(_("Name"), max_length=200)
    kategorie = models.CharField(_("Kategorie"), max_length=100)
    beschreibung = models.CharField(_("Beschreibung"), max_length=500, blank=True)
    kanzlei_eigen = models.BooleanField(_("kanzleieigenes Muster"), default=False)
    text = models.TextField(_("Text mit Platzhaltern"))

    class Meta:
        verbose_name = _("Muster")
        verbose_name_plural = _("Muster")
        ordering = ["kategorie", "name"]

    def __str__(self) -> str:
        return f"Muster: {self.name}"

    @property
    def platzhalter(self) -> list[str]:
        import re

        return sorted(set(re.findall(r"\{\{\s*([a-z0-9_]+)\s*\}\}", self.text)))


class ChunkQuerySet(AkteBoundQuerySet):
    def visible_to(self, user: object) -> ChunkQuerySet:
        """Corpus chunks for everyone signed in; document chunks only through the Akte chokepoint
        (and, for a MANDANT, only of documents released to them)."""
        if user is None or not getattr(user, "is_authenticated", False):
            return self.none()
        documents = Dokument.objects.visible_to(user).values("pk")
        return self.filter(Q(dokument__isnull=True) | Q(dokument__in=documents))


class Chunk(models.Model):
    class Kind(models.TextChoices):
        NORM = "NORM", _("Norm")
        URTEIL = "URTEIL", _("Urteil")
        MUSTER = "MUSTER", _("Muster")
        DOKUMENT = "DOKUMENT", _("Dokument")

    kind = models.CharField(_("Art"), max_length=10, choices=Kind.choices)
    norm = models.ForeignKey(Norm, on_delete=models.CASCADE, null=True, blank=True, related_name="chunks")
    urteil = models.ForeignKey(Urteil, on_delete=models.CASCADE, null=True, blank=True, related_name="chunks")
    muster = models.ForeignKey(Muster, on_delete=models.CASCADE, null=True, blank=True, related_name="chunks")
    dokument = models.ForeignKey(Dokument, on_delete=models.CASCADE, null=True, blank=True, related_name="chunks")
    akte = models.ForeignKey(Akte, on_delete=models.CASCADE, null=True, blank=True, related_name="+")
    position = models.PositiveIntegerField(_("Position"), default=0)
    titel = models.CharField(_("Titel"), max_length=800, blank=True)
    text = models.TextField(_("Text"))
    content_hash = models.CharField(_("Inhalts-Hash"), max_length=64)
    # The full-text postings' triggers depend on this column (migration 0006): a migration that
    # changes its expression must drop and recreate them, then run chunk_postings_rebuild().
    search_vector = models.GeneratedField(
        expression=SearchVector("titel", weight="A", config="german") + SearchVector("text", weight="B", config="german"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    embedding = VectorField(null=True, blank=True)
    embedding_model = models.CharField(_("Embedding-Modell"), max_length=200, blank=True)
    embedding_dim = models.PositiveIntegerField(_("Embedding-Dimension"), null=True, blank=True)

    objects = ChunkQuerySet.as_manager()

    class Meta:
        verbose_name = _("Textabschnitt")
        verbose_name_plural = _("Textabschnitte")
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(kind="NORM")
                    & Q(norm__isnull=False)
                    & Q(urteil__isnull=True)
                    & Q(muster__isnull=True)
                    & Q(dokument__isnull=True)
                )
                | (
                    Q(kind="URTEIL")
                    & Q(urteil__isnull=False)
                    & Q(norm__isnull=True)
                    & Q(muster__isnull=True)
                    & Q(dokument__isnull=True)
                )
                | (
                    Q(kind="MUSTER")
                    & Q(muster__isnull=False)
                    & Q(norm__isnull=True)
                    & Q(urteil__isnull=True)
                    & Q(dokument__isnull=True)
                )
                | (
                    Q(kind="DOKUMENT")
                    & Q(dokument__isnull=False)
                    & Q(akte__isnull=False)
                    & Q(norm__isnull=True)
                    & Q(urteil__isnull=True)
                    & Q(muster__isnull=True)
                ),
                name="chunk_exactly_one_source",
            ),
            models.CheckConstraint(
                condition=(Q(embedding__isnull=True) & Q(embedding_model="") & Q(embedding_dim__isnull=True))
                | (Q(embedding__isnull=False) & ~Q(embedding_model="") & Q(embedding_dim__gt=0)),
                name="chunk_embedding_has_model",
            ),
        ]
        indexes = [
            GinIndex(fields=["search_vector"], name="chunk_search_vector_gin"),
            models.Index(fields=["kind", "embedding_model"], name="chunk_kind_model"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()}-Abschnitt {self.position}: {self.titel[:60]}"


class LexemStatistik(models.Model):
    """Document frequency of each lexeme per chunk kind (from PostgreSQL's ts_stat), for IDF
    weighting in full-text search. The row with lexem "" holds the number of chunks of the kind."""

    kind = models.CharField(_("Art"), max_length=10, choices=Chunk.Kind.choices)
    lexem = models.CharField(_("Lexem"), max_length=200)
    ndoc = models.PositiveIntegerField(_("Anzahl Abschnitte"))

    class Meta:
        verbose_name = _("Lexem-Statistik")
        verbose_name_plural = _("Lexem-Statistiken")
        constraints = [models.UniqueConstraint(fields=["kind", "lexem"], name="lexemstatistik_unique")]

    def __str__(self) -> str:
        return f"{self.kind} {self.lexem}: {self.ndoc}"
