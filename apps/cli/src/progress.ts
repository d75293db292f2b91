/**
 * Progress of long work, on stderr so that stdout stays the result: shown when stderr is a terminal,
 * or always with PARLEY_PROGRESS=1 (never with PARLEY_PROGRESS=0).
 */
export function progress(command: string, message: string, env: NodeJS.ProcessEnv = process.env): void {
  const forced = env.PARLEY_PROGRESS;
  if (forced === '0' || (forced !== '1' && !process.stderr.isTTY)) return;
  process.stderr.write(`parley ${command}: ${message}\n`);
}
