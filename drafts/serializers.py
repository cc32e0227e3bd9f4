from typing import Any

from django.urls import reverse
from rest_framework import serializers

from .models import HIDDEN_NOTE, DraftRevision, HelenaAlert, HelenaDraft
from .services import draft_version


class DraftRevisionSerializer(serializers.ModelSerializer):
    edited_by: serializers.StringRelatedField = serializers.StringRelatedField()

    class Meta:
        model = DraftRevision
        fields = ["number", "titel", "payload", "edited_by", "edited_at"]


class DraftSerializer(serializers.ModelSerializer):
    aktenzeichen = serializers.CharField(source="akte.aktenzeichen", allow_null=True, default=None)
    typ_label = serializers.CharField(source="get_typ_display")
    status_label = serializers.CharField(source="get_status_display")
    reviewer: serializers.StringRelatedField = serializers.StringRelatedField()
    result = serializers.SerializerMethodField()
    downloads = serializers.SerializerMethodField()
    version = serializers.SerializerMethodField()
    inhalt_verborgen = serializers.SerializerMethodField()
    hinweis_verborgen = serializers.SerializerMethodField()

    class Meta:
        model = HelenaDraft
        fields = [
            "id",
            "typ",
            "typ_label",
            "status",
            "status_label",
            "akte",
            "aktenzeichen",
            "titel",
            "payload",
            "untrusted_input",
            "origin_run",
            "origin_tool_call_id",
            "reviewer",
            "reviewed_at",
            "rejection_reason",
            "rejection_categories",
            "result",
            "downloads",
            "version",
            "inhalt_verborgen",
            "hinweis_verborgen",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_version(self, obj: HelenaDraft) -> int:
        return draft_version(obj)

    def get_inhalt_verborgen(self, obj: HelenaDraft) -> bool:
        """Helena read an Akte for it that the viewer may not see: title and content are withheld."""
        return obj.hides_content

    def get_hinweis_verborgen(self, obj: HelenaDraft) -> str:
        return HIDDEN_NOTE if obj.hides_content else ""

    def to_representation(self, instance: HelenaDraft) -> dict[str, Any]:
        """A draft whose run read an Akte the viewer may not see (`HelenaDraft.hides_content`):
        its type, Akte and status, without title, content, earlier versions and files."""
        data = super().to_representation(instance)
        if instance.hides_content:
            data.update(titel=instance.shown_titel, payload={}, downloads=None, rejection_reason="")
            if "revisions" in data:
                data["revisions"] = []
        return data

    def get_downloads(self, obj: HelenaDraft) -> dict[str, str] | None:
        """Word and PDF of an open document or Kostennote draft (rendered on request, with letterhead);
        once accepted, the stored record is the document (`result`)."""
        if obj.typ not in (HelenaDraft.Typ.DOKUMENT, HelenaDraft.Typ.KOSTENNOTE) or obj.akte_id is None:
            return None
        if obj.status != HelenaDraft.Status.PENDING:
            return None
        return {fmt: reverse("api-draft-datei", kwargs={"pk": obj.pk, "ausgabe": fmt}) for fmt in ("docx", "pdf")}

    def get_result(self, obj: HelenaDraft) -> dict[str, Any] | None:
        if obj.result_content_type is None:
            return None
        return {"type": obj.result_content_type.model, "id": obj.result_object_id}


class DraftDetailSerializer(DraftSerializer):
    revisions = DraftRevisionSerializer(many=True)

    class Meta(DraftSerializer.Meta):
        fields = [*DraftSerializer.Meta.fields, "revisions"]


class DraftEditSerializer(serializers.Serializer):
    payload = serializers.JSONField()


class DraftAcceptSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        required=False,
        min_value=0,
        help_text="Die geprüfte Fassung (Feld `version` des Entwurfs); wurde er seitdem geändert, antwortet die API mit "
        "409. Ohne sie lässt sich nur ein nie bearbeiteter Entwurf übernehmen.",
    )


class DraftRejectSerializer(serializers.Serializer):
    reason = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")
    categories = serializers.ListField(
        child=serializers.ChoiceField(choices=HelenaDraft.RejectionCategory.choices),
        required=False,
        default=list,
    )


class AlertSerializer(serializers.ModelSerializer):
    aktenzeichen = serializers.CharField(source="akte.aktenzeichen", allow_null=True, default=None)
    typ_label = serializers.CharField(source="get_typ_display")

    class Meta:
        model = HelenaAlert
        fields = [
            "id",
            "typ",
            "typ_label",
            "severity",
            "titel",
            "text",
            "akte",
            "aktenzeichen",
            "read_at",
            "dismissed_at",
            "created_at",
        ]
        read_only_fields = fields
