// Debugging aid, not a benchmark: `npx tsx bench/ask-debug.ts FILE [id ...]` prints, per utterance, the identification ranking (score,
// selection, explained share, keys filled) and the mapping with the gold scenario's template (payload, values under the threshold).
import { readFileSync } from 'node:fs';
import { createParleyClient, type ScenarioCatalog } from '@parley/client';
import { SCENARIOS } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
const [file, ...ids] = process.argv.slice(2);
const data = JSON.parse(readFileSync(file as string, 'utf8'));
const ref = { today: data.reference_date, timezone: data.timezone };
const client = createParleyClient('http://127.0.0.1:9', {});
const catalog: ScenarioCatalog = { entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'local', template: s.template, description: s.description, tags: s.tags, domain: s.domain })) };

for (const u of data.utterances) {
  if (ids.length && !ids.includes(u.id)) continue;
  const id = await client.identifyScenario(u.text, { catalog, ...ref });
  console.log(`${u.id} gold=${u.scenario} got=${id.scenario} | ${u.text}`);
  for (const r of id.ranking) console.log(`   ${r.scenario.padEnd(18)} score=${r.score} sel=${r.selection} expl=${r.explained} filled=${r.filled}`);
  const t = SCENARIOS.find((s) => s.template.scenario === u.scenario);
  if (t) { const m = await client.mapUtterance(t.template, u.text, ref); console.log('   map', JSON.stringify(m.payload), 'below', JSON.stringify(m.below_threshold.map((b) => [b.key, b.value, b.confidence]))); }
}
