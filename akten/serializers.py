from rest_framework import serializers

from .models import Akte, Beteiligter, Dokument, KalenderEintrag, Notiz, Zeiterfassung


class UserRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(source="get_full_name")
    email = serializers.EmailField()


class BeteiligterSerializer(serializers.ModelSerializer):
    name = serializers.CharField(source="kontakt.display_name")
    anschrift = serializers.CharField(source="kontakt.anschrift")
    rolle_label = serializers.CharField(source="get_rolle_display")

    class Meta:
        model = Beteiligter
        fields = ["id", "rolle", "rolle_label", "name", "anschrift", "aktenzeichen_extern"]


class AkteSerializer(serializers.ModelSerializer):
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


class DokumentSerializer(serializers.ModelSerializer):
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


class KalenderEintragSerializer(serializers.ModelSerializer):
    aktenzeichen = serializers.CharField(source="akte.aktenzeichen")
    typ_label = serializers.CharField(source="get_typ_display")
    verantwortlich = UserRefSerializer(allow_null=True)

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
            "verantwortlich",
            "created_at",
        ]


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


class NotizSerializer(serializers.ModelSerializer):
    aktenzeichen = serializers.CharField(source="akte.aktenzeichen", allow_null=True, default=None)
    autor = UserRefSerializer()

    class Meta:
        model = Notiz
        fields = ["id", "akte", "aktenzeichen", "autor", "titel", "text", "created_at"]
