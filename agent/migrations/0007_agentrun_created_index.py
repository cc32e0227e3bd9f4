from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("agent", "0006_workerheartbeat"),
    ]

    operations = [
        migrations.AddIndex(
            model_name="agentrun",
            index=models.Index(fields=["created_at"], name="agentrun_created"),
        ),
    ]
