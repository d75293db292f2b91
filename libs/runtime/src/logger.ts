/** A small structured logger: one JSON object per line on stderr, filtered by level. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export function createLogger(opts: { level?: string; base?: Record<string, unknown>; write?: (line: string) => void } = {}): Logger {
  const level: LogLevel = (opts.level && opts.level in ORDER ? opts.level : 'info') as LogLevel;
  const write = opts.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const base = opts.base ?? {};
  const emit = (l: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (ORDER[l] < ORDER[level]) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: l, msg, ...base, ...fields }, errorReplacer));
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (fields) => createLogger({ level, base: { ...base, ...fields }, write }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}
