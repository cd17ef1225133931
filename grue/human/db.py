"""The answers database: SQLite through SQLAlchemy Core, one file per study.

Durability: WAL journal with `synchronous=FULL`, so an answer whose transaction committed survives
a killed server. Concurrency: every transaction starts with `BEGIN IMMEDIATE`, taking SQLite's
write lock up front; concurrent submissions then queue on the busy timeout instead of failing
with a lock upgrade error half way through.
"""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import (Column, Engine, Float, ForeignKey, Integer, MetaData, String, Table, Text,
                        UniqueConstraint, create_engine, event)
from sqlalchemy.exc import DatabaseError, OperationalError

from grue.human.study import StudyError, check_database

BUSY_TIMEOUT_S = 30

metadata = MetaData()

raters = Table(
    "raters", metadata,
    Column("id", String, primary_key=True),
    Column("token_hash", String, unique=True, nullable=True),  # NULL for raters imported from a platform
    Column("source", String, nullable=False),  # "local" or "import:<batch file>"
)

assignments = Table(
    "assignments", metadata,
    Column("rater_id", String, ForeignKey("raters.id"), primary_key=True),
    Column("item_id", String, primary_key=True),
    Column("position", Integer, nullable=False),  # the rater's seeded order
    UniqueConstraint("rater_id", "position"),
)

views = Table(
    "views", metadata,
    Column("rater_id", String, ForeignKey("raters.id"), primary_key=True),
    Column("item_id", String, primary_key=True),
    Column("first_shown_at", Float, nullable=False),  # seconds since the epoch, server clock
)

answers = Table(
    "answers", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("rater_id", String, ForeignKey("raters.id"), nullable=False),
    Column("item_id", String, nullable=False),
    Column("answer", Text, nullable=False),  # JSON: {axis: value} or {"choice": candidate index}
    Column("seconds", Float, nullable=True),  # time on the item; None when a platform did not say
    Column("submitted_at", Float, nullable=False),
    Column("source", String, nullable=False),
    UniqueConstraint("rater_id", "item_id"),  # one answer per rater and item: a replay is refused
)


def open_database(path: Path) -> Engine:
    """The study's database engine, creating the tables on first use. A file that is not a usable
    SQLite database (corrupt, a folder, unreadable) is a StudyError naming it, not a driver traceback."""
    check_database(Path(path))
    engine = create_engine(f"sqlite:///{path}", connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False})

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record) -> None:
        dbapi_connection.isolation_level = None  # let the "begin" hook below issue BEGIN itself
        for pragma in ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON",
                       f"busy_timeout={BUSY_TIMEOUT_S * 1000}"):
            dbapi_connection.execute(f"PRAGMA {pragma}")

    @event.listens_for(engine, "begin")
    def _begin_immediate(connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    try:
        metadata.create_all(engine)
    except (DatabaseError, OperationalError) as err:
        engine.dispose()
        raise StudyError(f"{path}: cannot open the answers database ({err.orig or err}); restore it from a "
                         "backup or check its permissions") from None
    return engine
