/**
 * Checks the mapper utterances (draft-zhou §6.1, Figure 1 step 4) against the
 * seeded templates with the project's own payload validator: every gold value,
 * and every alternative value, must be valid for its key. A gold payload holds
 * only what the utterance states, so a missing REQUIRED key is not an error
 * here (the mapper would have to ask); every other violation is.
 *
 *   npx tsx bench/data/ask/check.ts [file.json ...]
 *
 * Without arguments: bench/data/ask/utterances.dev.json and, when present,
 * bench/heldout/ask/utterances.heldout.json to utterances.heldout4.json, those present. Exits 1 on any failure.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compilePayloadValidator, type JsonObject, type JsonValue, type PayloadValidator } from '@parley/protocol';
import { SCENARIOS } from '@parley/examples';

interface Utterance {
  id: string;
  text: string;
  scenario: string | null;
  payload: JsonObject;
  other_contains: string[];
  alternatives?: Record<string, JsonValue[]>;
  notes?: string;
}
interface AskFile {
  reference_date: string;
  timezone: string;
  utterances: Utterance[];
}

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const files = args.length > 0 ? args : [join(here, 'utterances.dev.json'), ...['utterances.heldout.json', 'utterances.heldout2.json', 'utterances.heldout3.json', 'utterances.heldout4.json'].map((f) => join(here, '..', '..', 'heldout', 'ask', f))].filter((f) => existsSync(f));

const validators = new Map<string, PayloadValidator>();
for (const s of SCENARIOS) validators.set(s.template.scenario, compilePayloadValidator(s.template));

const failures: string[] = [];
const ids = new Set<string>();
let total = 0;
const perScenario: Record<string, number> = {};

for (const f of files) {
  const file = JSON.parse(readFileSync(f, 'utf8')) as AskFile;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(file.reference_date)) failures.push(`${f}: reference_date ${file.reference_date}`);
  if (!file.timezone) failures.push(`${f}: no timezone`);
  for (const u of file.utterances) {
    total++;
    const where = `${f.split('/').pop()} ${u.id}`;
    if (ids.has(u.id)) failures.push(`${where}: duplicate id`);
    ids.add(u.id);
    perScenario[u.scenario ?? 'null'] = (perScenario[u.scenario ?? 'null'] ?? 0) + 1;
    if (typeof u.text !== 'string' || u.text.trim() === '') failures.push(`${where}: empty text`);
    if (!Array.isArray(u.other_contains)) failures.push(`${where}: other_contains is not an array`);
    if (u.scenario === null) {
      if (Object.keys(u.payload).length > 0 || u.other_contains.length > 0) failures.push(`${where}: a no-scenario utterance has a payload or other phrases`);
      continue;
    }
    const v = validators.get(u.scenario);
    if (!v) {
      failures.push(`${where}: unknown scenario ${u.scenario}`);
      continue;
    }
    if ('other' in u.payload) failures.push(`${where}: put what belongs in other in other_contains, not in payload`);
    const keys = new Set(v.template.keys.map((k) => k.key_name));
    const explain = (payload: JsonObject, what: string): void => {
      for (const x of v.explain(payload)) if (x.rule !== 'required') failures.push(`${where} ${what}: ${x.path} ${x.rule}: ${x.message}`);
    };
    for (const k of Object.keys(u.payload)) if (!keys.has(k)) failures.push(`${where}: ${k} is not a key of ${u.scenario}`);
    explain(u.payload, 'payload');
    for (const [k, alts] of Object.entries(u.alternatives ?? {})) {
      if (!keys.has(k)) failures.push(`${where}: alternative for unknown key ${k}`);
      for (const a of alts) explain({ ...u.payload, [k]: a }, `alternative ${k}=${JSON.stringify(a)}`);
    }
  }
}

if (failures.length > 0) {
  for (const x of failures) process.stderr.write(`FAIL: ${x}\n`);
  process.stderr.write(`${failures.length} failure(s) in ${total} utterances\n`);
  process.exit(1);
}
process.stdout.write(`ok: ${files.length} file(s), ${total} utterances (${Object.entries(perScenario).map(([k, n]) => `${k} ${n}`).join(', ')}), every gold and alternative value valid for its key\n`);
