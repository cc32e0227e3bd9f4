"""Postings of every chunk's lexemes (term frequency, heading flag, chunk length), kept in step with
recherche_chunk by triggers, so full-text scoring reads the query's posting lists from one index
instead of cutting each candidate's tsvector down to the query's lexemes. The key leads with the
lexeme (byte-wise collation: lexemes are matched, never sorted for people); a deleted chunk's
postings are found through its own lexemes, so no second index is needed. Triggers rather than
code in the services: every path that writes chunks (bulk ingestion, uploads, deletes, a test's
TRUNCATE) keeps them right. Not a Django model: the ORM's cascade would load every posting of a
deleted chunk into Python."""

from django.db import migrations

POSTINGS_OF = """
    SELECT n.id, u.lexeme, COALESCE(cardinality(u.positions), 1), 'A' = ANY(u.weights), length(n.search_vector)
    FROM {rows} n CROSS JOIN LATERAL unnest(n.search_vector) AS u(lexeme, positions, weights)
"""

FORWARD = f"""
CREATE TABLE recherche_chunk_posting (
    chunk_id bigint NOT NULL,
    lexem text COLLATE "C" NOT NULL,
    tf integer NOT NULL,
    titel boolean NOT NULL,
    len integer NOT NULL,
    PRIMARY KEY (lexem, chunk_id) INCLUDE (tf, titel, len)
);

CREATE FUNCTION recherche_chunk_posting_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO recherche_chunk_posting (chunk_id, lexem, tf, titel, len) {POSTINGS_OF.format(rows="new_rows")};
    RETURN NULL;
END $$;

CREATE FUNCTION recherche_chunk_posting_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM recherche_chunk_posting p USING unnest(tsvector_to_array(OLD.search_vector)) AS u(lexem)
    WHERE p.lexem = u.lexem AND p.chunk_id = OLD.id;
    INSERT INTO recherche_chunk_posting (chunk_id, lexem, tf, titel, len)
    SELECT NEW.id, u.lexeme, COALESCE(cardinality(u.positions), 1), 'A' = ANY(u.weights), length(NEW.search_vector)
    FROM unnest(NEW.search_vector) AS u(lexeme, positions, weights);
    RETURN NULL;
END $$;

CREATE FUNCTION recherche_chunk_posting_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM recherche_chunk_posting p
    USING old_rows o CROSS JOIN LATERAL unnest(tsvector_to_array(o.search_vector)) AS u(lexem)
    WHERE p.lexem = u.lexem AND p.chunk_id = o.id;
    RETURN NULL;
END $$;

CREATE FUNCTION recherche_chunk_posting_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    TRUNCATE recherche_chunk_posting;
    RETURN NULL;
END $$;

CREATE TRIGGER chunk_posting_insert AFTER INSERT ON recherche_chunk
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recherche_chunk_posting_insert();
CREATE TRIGGER chunk_posting_update AFTER UPDATE OF titel, text ON recherche_chunk
    FOR EACH ROW WHEN (OLD.search_vector IS DISTINCT FROM NEW.search_vector)
    EXECUTE FUNCTION recherche_chunk_posting_update();
CREATE TRIGGER chunk_posting_delete AFTER DELETE ON recherche_chunk
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recherche_chunk_posting_delete();
CREATE TRIGGER chunk_posting_truncate AFTER TRUNCATE ON recherche_chunk
    FOR EACH STATEMENT EXECUTE FUNCTION recherche_chunk_posting_truncate();

INSERT INTO recherche_chunk_posting (chunk_id, lexem, tf, titel, len) {POSTINGS_OF.format(rows="recherche_chunk")};
"""

BACKWARD = """
DROP TRIGGER chunk_posting_truncate ON recherche_chunk;
DROP TRIGGER chunk_posting_delete ON recherche_chunk;
DROP TRIGGER chunk_posting_update ON recherche_chunk;
DROP TRIGGER chunk_posting_insert ON recherche_chunk;
DROP FUNCTION recherche_chunk_posting_truncate();
DROP FUNCTION recherche_chunk_posting_delete();
DROP FUNCTION recherche_chunk_posting_update();
DROP FUNCTION recherche_chunk_posting_insert();
DROP TABLE recherche_chunk_posting;
"""


class Migration(migrations.Migration):
    dependencies = [("recherche", "0005_gesetz_aliase_bjnr")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
