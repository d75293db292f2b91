import { readFileSync } from 'node:fs';
import { loadWordNetLexicon } from '@parley/embeddings';
import { induceKey } from '@parley/evolution';
const lex = await loadWordNetLexicon();
for (const f of process.argv.slice(2)) {
  const gold = JSON.parse(readFileSync(f.replace('.jsonl', '.gold.json'), 'utf8'));
  const lines = readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  for (const g of gold.intents) {
    const by = new Map<string, Set<string>>();
    for (const l of lines.filter((l) => l.intent === g.id)) { const s = by.get(l.text) ?? new Set(); s.add(l.client_id); by.set(l.text, s); }
    const r = induceKey([...by].map(([text, cs]) => ({ text, count: cs.size, clients: [...cs] })), undefined, { lexicon: lex });
    console.log(f.split('/').pop(), g.id, g.type, r.ok ? `${r.candidate.key.key_name} ${r.candidate.key.key_type} ${JSON.stringify(r.candidate.key.enum ?? '')}` : 'fail');
  }
}
