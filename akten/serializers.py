"""Output serializers of the Kanzlei API. What a role receives of each object is decided by the
field policy (`akten.policy`), applied in `PolicyFieldsMixin.get_fields`; relations are read-only
(inputs are validated by the input serializers and resolved through `visible_to`)."""

from typing import Any

from rest_framework import serializers

from .fristen_rules import wiedervorlage_hinweis
from .models import Akte, Beteiligter, Dokument, KalenderEintrag, Notiz, Zeiterfassung
from .policy import allowed_fields


class PolicyFieldsMixin:
    """Drops the fields the requesting user may not receive (`policy_kind` names the object kind
    in `akten.policy`). Without a request in the context (schema generation) all fields stay."""

    policy_kind = ""
    context: dict[str, Any]

    def get_fields(self) -> dict[str, Any]:
        fields: dict[str, Any] = super().get_fields()  # type: ignore[misc]
        request = self.context.get("request")
        allowed = allowed_fields(getattr(request, "user", None), self.policy_kind) if request is not None else None
        if allowed is None:
            return fields
        return {name: field for name, field in fields.items() if name in allowed}


class UserRefSerializer(PolicyFieldsMixin, serializers.Serializer):
    policy_kind = "user"

    id = serializers.IntegerField()
    name = serializers.CharField(source="get_full_name")
    email = serializers.EmailField()


class BeteiligterSerializer(PolicyFieldsMixin, serializers.ModelSerializer):
    policy_kind = "beteiligter"
    name = serializers.CharField(source="kontakt.display_name")
    anschrift = serializers.CharField(source="kontakt.anschrift")
    rolle_label = serializers.CharField(source="get_rolle_display")

    class Meta:
        model = Beteiligter
        fields = ["id", "rolle", "rolle_label", "name", "anschrift", "aktenzeichen_extern"]


class AkteSerializer(PolicyFieldsMixin, serializers.ModelSerializer):
    policy_kind = "akte"
    anwalt = UserRefSerializer(allow_null=True)
    sachbearbeiter = UserRefSerializer(allow_null=True)
    sachgebiet_label = serializers.CharField(source="get_sachgebiet_display")
    status_label = serializers.CharField(source="get_status_display")

    class Meta:
        model = Akte
        fields = [
            "id",
            "aktenzeichen",
            "kurzrubrum",
            "wegen",
            "sachgebiet",
            "sachgebiet_label",
            "status",
            "status_label",
            "gegenstandswert",
            "gericht_name",
            "gericht_ort",
            "gericht_bundesland",
            "gericht_aktenzeichen",
            "anwalt",
            "sachbearbeiter",
            "tags",
            "created_at",
            "changed_at",
        ]


class AkteDetailSerializer(AkteSerializer):
    beteiligte = BeteiligterSerializer(many=True)
    dezernate = serializers.StringRelatedField(many=True)  # type: ignore[var-annotated]

    class Meta(AkteSerializer.Meta):
        fields = [*AkteSerializer.Meta.fields, "beteiligte", "dezernate", "notizen", "zusammenfassung"]


class DokumentSerializer(PolicyFieldsMixin, serializers.ModelSerializer):
    policy_kind = "dokument"
    aktenzeichen = serializers.CharField(source="akte.aktenzeichen")
    download_url = serializers.SerializerMethodField()

    class Meta:
        model = Dokument
        fields = [
            "id",
            "akte",
            "aktenzeichen",
            "name",
            "status",
            "mime_type",
            "groesse",
            "text_status",
            "text_fehler",
            "erstellt_von_helena",
            "mandant_sichtbar",
            "created_at",
            "download_url",
        ]
        read_only_fields = fields

    def get_download_url(self, obj: Dokument) -> str:
        return f"/api/dokumente/{obj.pk}/download/"


class DokumentDetailSerializer(DokumentSerializer):
    class Meta(DokumentSerializer.Meta):
        fields = [*DokumentSerializer.Meta.fields, "text"]


class DokumentUploadSerializer(serializers.Serializer):
    akte = serializers.IntegerField()
    datei = serializers.FileField()
    name = serializers.CharField(max_length=255, required=False, allow_blank=True)
    mandant_sichtbar = serializers.BooleanField(default=False)


class KalenderEintragSerializer(PolicyFieldsMixin, serializers.ModelSerializer):
    policy_kind = "termin"
    aktenzeichen = serializers.CharField(source="akte.aktenzeichen")
    typ_label = serializers.CharField(source="get_typ_display")
    verantwortlich = UserRefSerializer(allow_null=True)
    erledigt_von = UserRefSerializer(allow_null=True, help_text="Wer den Eintrag als erledigt vermerkt hat.")
    hinweis = serializers.SerializerMethodField(
        help_text="Hinweis, wenn eine Wiedervorlage auf ein Wochenende oder einen Feiertag fällt; sonst leer."
    )

    class Meta:
        model = KalenderEintrag
        fields = [
            "id",
            "akte",
            "aktenzeichen",
            "typ",
            "typ_label",
            "titel",
            "beschreibung",
            "datum",
            "uhrzeit",
            "fristablauf",
            "vorfrist",
            "notfrist",
            "erledigt",
            "erledigt_at",
            "erledigt_von",
            "verantwortlich",
            "hinweis",
            "created_at",
        ]
        read_only_fields = fields

    def get_hinweis(self, obj: KalenderEintrag) -> str:
        return wiedervorlage_hinweis(akte=obj.akte, typ=obj.typ, datum=obj.datum, fristablauf=obj.fristablauf)


class ZeiterfassungSerializer(serializers.ModelSerializer):
    aktenzeichen = serializers.CharField(source="akte.aktenzeichen")
    user = UserRefSerializer()

    class Meta:
        model = Zeiterfassung
        fields = [
            "id",
            "akte",
            "aktenzeichen",
            "user",
            "datum",
            "minuten",
            "beschreibung",
            "abrechenbar",
            "stundensatz",
            "created_at",
        ]
        read_only_fields = fields


class NotizSerializer(serializers.ModelSerializer):
    aktenzeichen = serializers.CharField(source="akte.aktenzeichen", allow_null=True, default=None)
    autor = UserRefSerializer()

    class Meta:
        model = Notiz
        fields = ["id", "akte", "aktenzeichen", "autor", "titel", "text", "created_at"]
        read_only_fields = fields
