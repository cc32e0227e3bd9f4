from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("agent", "0005_answer_feedback_notifications"),
    ]

    operations = [
        migrations.CreateModel(
            name="WorkerHeartbeat",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("worker_id", models.CharField(max_length=100, unique=True, verbose_name="Prozess")),
                ("name", models.CharField(blank=True, max_length=100, verbose_name="Worker-Name")),
                ("concurrency", models.PositiveSmallIntegerField(verbose_name="gleichzeitige Aufgaben")),
                ("busy", models.PositiveSmallIntegerField(default=0, verbose_name="laufende Aufgaben")),
                ("started_at", models.DateTimeField(verbose_name="gestartet")),
                ("seen_at", models.DateTimeField(verbose_name="letztes Lebenszeichen")),
            ],
            options={
                "verbose_name": "Worker-Lebenszeichen",
                "verbose_name_plural": "Worker-Lebenszeichen",
                "ordering": ["worker_id"],
            },
        ),
        migrations.AddIndex(
            model_name="agentrun",
            index=models.Index(
                condition=models.Q(("mode", "BACKGROUND"), ("status", "PENDING")), fields=["created_at", "id"], name="agentrun_queued"
            ),
        ),
    ]
