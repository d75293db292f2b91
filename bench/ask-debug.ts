// Debug: identification ranking and the gold-template mapping for chosen ids (not a benchmark).
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
  if (t) { const m = await client.mapUtterance(t.template, u.text, ref); console.log('   map', JSON.stringify(m.payload), 'below', JSON.stringify(m.below_threshold?.map((b: any) => [b.key, b.value, b.confidence]))); }
}
