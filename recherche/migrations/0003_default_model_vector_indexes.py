from django.db import migrations

# The HNSW indexes of the default embedding model (local multilingual-e5-small, 384 dimensions).
# Other models get theirs from `manage.py reembed` (recherche.services.vector_indexes_ensure).


def create(apps, schema_editor):
    from recherche.embeddings import LocalE5Backend
    from recherche.services import vector_indexes_ensure

    vector_indexes_ensure(model_name=LocalE5Backend.name, dim=LocalE5Backend.dim)


class Migration(migrations.Migration):
    atomic = False
    dependencies = [("recherche", "0002_gesetz_quelle_hash")]

    operations = [migrations.RunPython(create, migrations.RunPython.noop)]
