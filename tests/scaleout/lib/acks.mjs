// The ack-log check of the crash and multi-process tests (issue 7, 15),
// for SDK clients: every state change a client saw acknowledged is written
// as one line of bench/load/ack_log.hpp's format (TOOL, SESSION_ID,
// TASK_ID|-, STATUS|-), and bench/tools/journal_check reads the journal
// after the nodes stopped: each acknowledged change present, none applied
// twice. The tests also make sure the checker can fail on this journal.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { serverBinary } from '../../integration/lib/env.mjs';

const CHANGES = new Set(['time_session_start', 'time_task_start', 'time_task_end', 'time_session_end']);

/** journal_check: TTM_JOURNAL_CHECK, else beside the server binary (the build tree's root). */
export function journalCheckBinary() {
  return process.env.TTM_JOURNAL_CHECK ?? path.join(path.dirname(serverBinary()), 'journal_check');
}

export class AckLog {
  constructor() {
    this.dir = mkdtempSync(path.join(tmpdir(), 'ttm-acks-'));
    this.file = path.join(this.dir, 'acks.tsv');
    writeFileSync(this.file, '');
    this.lines = 0;
  }

  /**
   * Records `name`'s change if `result` acknowledged one (not an error, not
   * already_running / already_ended: those changed nothing).
   */
  record(name, args, result) {
    if (!CHANGES.has(name) || result.isError) return;
    const sc = result.structuredContent ?? {};
    if (sc.already_running === true || sc.already_ended === true) return;
    const session = name === 'time_session_start' ? sc.session_id : args.session_id;
    const task = name.startsWith('time_task_') ? args.task_id : '-';
    const status = name === 'time_task_end' ? sc.status : '-';
    assert.ok(session && task && status, `an acknowledged ${name} names its session: ${JSON.stringify(sc)}`);
    appendFileSync(this.file, `${name}\t${session}\t${task}\t${status}\n`);
    this.lines += 1;
  }

  /** An SDK connection whose client's callTool records every acknowledged change here. */
  wrap(conn) {
    const log = this;
    const real = conn.client;
    // What the tests call (driverFor, Route, SessionDriver), bound to the real client.
    const client = {
      listTools: (...a) => real.listTools(...a),
      close: () => real.close(),
      async callTool(params, ...rest) {
        const result = await real.callTool(params, ...rest);
        log.record(params.name, params.arguments ?? {}, result);
        return result;
      },
    };
    return { ...conn, client };
  }

  /**
   * Runs journal_check on the journal (`storage`: the checker's options,
   * e.g. ['--data-dir', DIR]) of stopped nodes: every line present exactly
   * once. Then it must fail on the log plus an invented acknowledgement.
   * Returns the checker's report.
   */
  check(storage) {
    // Lines recorded here or written by time-tracker-bench --ack-log.
    assert.ok(readFileSync(this.file, 'utf8').length > 0, 'the ack log is empty: nothing would be proved');
    const bin = journalCheckBinary();
    const run = (file) => spawnSync(bin, [...storage, '--ack-log', file], { encoding: 'utf8' });
    const ok = run(this.file);
    assert.equal(ok.status, 0, `journal_check: acknowledged changes missing or doubled\n${ok.stdout}${ok.stderr}`);
    const sid = readFileSync(this.file, 'utf8').split('\n')[0].split('\t')[1];
    const invented = path.join(this.dir, 'invented.tsv');
    writeFileSync(invented, `${readFileSync(this.file, 'utf8')}time_task_start\t${sid}\tNOT-A-TASK\t-\n`);
    const bad = run(invented);
    assert.equal(bad.status, 1, `journal_check must fail on an invented acknowledgement\n${bad.stdout}${bad.stderr}`);
    return ok.stdout;
  }

  remove() {
    if (process.env.KEEP_WORK !== '1') rmSync(this.dir, { recursive: true, force: true });
  }
}
