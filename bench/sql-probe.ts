// Loaded into each service process by `bench/sql-per-execute.ts` (SQL_SEPARATE=1) with `--import`: on SIGUSR2 the
// process writes its SQL counts (libs/storage's counting wrapper, PARLEY_COUNT_SQL=1) as JSON to SQL_PROBE_FILE.
import { renameSync, writeFileSync } from 'node:fs';
import { sqlCounts } from '@parley/storage';

const file = process.env['SQL_PROBE_FILE'];
if (file) {
  process.on('SIGUSR2', () => {
    const c = sqlCounts();
    const cpu = process.cpuUsage();
    // Written aside and renamed: the reader watches the file and must never see it half written.
    writeFileSync(`${file}.tmp`, JSON.stringify({ statements: c.statements, transactions: c.transactions, byShape: [...c.byShape], cpu_ms: (cpu.user + cpu.system) / 1000 }));
    renameSync(`${file}.tmp`, file);
  });
}
