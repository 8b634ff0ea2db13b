#!/usr/bin/env python3
"""Copies a filled history store (bench/history.sh: history_fill's SQLite
journal) into a PostgreSQL journal with COPY: its sessions (with their packed
runs) and events, replacing what the PostgreSQL journal holds. The journal
must exist (schema made by a server or history_fill --journal). Writing the
same sessions through history_fill --journal takes a round trip per event
batch (about 20 minutes for 10,000 sessions); this takes seconds.

Usage: history_copy_pg.py SQLITE_JOURNAL POSTGRESQL_URI
"""
import csv
import sqlite3
import subprocess
import sys

SESSIONS = ['sid', 'session_id', 'principal', 'milestone_id', 'state', 'epoch',
            'started_wall_ns', 'closed_wall_ns', 'holder', 'scope',
            'idempotency_key', 'last_wall_ns', 'milestone_name', 'tags',
            'tasks_total', 'search', 'runs']
EVENTS = ['seq', 'sid', 'kind', 'task_id', 'wall_ns', 'mono_ns', 'boot_id',
          'epoch', 'payload', 'undone_by']


def psql(uri, *commands):
    args = ['psql', uri, '-v', 'ON_ERROR_STOP=1', '-q', '-o', '/dev/null']
    for c in commands:
        args += ['-c', c]
    subprocess.run(args, check=True)


def copy(db, uri, table, cols):
    p = subprocess.Popen(['psql', uri, '-v', 'ON_ERROR_STOP=1', '-qc',
                          f"COPY {table} ({','.join(cols)}) FROM STDIN"
                          " WITH (FORMAT csv)"],
                         stdin=subprocess.PIPE, text=True)
    # NULL is an unquoted empty field; no text column of these is empty.
    w = csv.writer(p.stdin, quoting=csv.QUOTE_MINIMAL, lineterminator='\n')
    for row in db.execute(f"SELECT {','.join(cols)} FROM {table} ORDER BY 1"):
        w.writerow(['\\x' + v.hex() if isinstance(v, bytes) else v
                    for v in row])
    p.stdin.close()
    if p.wait() != 0:
        sys.exit(f'history_copy_pg: COPY {table} failed')


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    db = sqlite3.connect(f'file:{sys.argv[1]}?mode=ro', uri=True)
    uri = sys.argv[2]
    psql(uri, 'TRUNCATE sessions, events CASCADE')
    # Schema 11's digests, when the fill wrote them (the PostgreSQL journal
    # must be at that schema too).
    have = {r[1] for r in db.execute('PRAGMA table_info(sessions)')}
    copy(db, uri, 'sessions',
         SESSIONS + (['digest'] if 'digest' in have else []))
    copy(db, uri, 'events', EVENTS)
    psql(uri,
         "SELECT setval('sessions_sid_seq', (SELECT max(sid) FROM sessions))",
         "SELECT setval('events_seq_seq', (SELECT max(seq) FROM events))",
         'VACUUM ANALYZE sessions', 'VACUUM ANALYZE events')


if __name__ == '__main__':
    main()
