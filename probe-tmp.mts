import { SCENARIOS } from '@parley/examples';
import { scenarioId } from '@parley/protocol';
import { createParleyClient } from './libs/client/src/index';
import { createOfflineMapper } from './libs/client/src/offline/index';
const client = createParleyClient('http://127.0.0.1:9', { mapper: createOfflineMapper() });
const catalog = { entries: SCENARIOS.map((s) => ({ scenario: scenarioId(s.template.scenario), agent: 'a', template: s.template, description: s.description, tags: s.tags, domain: s.domain })) };
const REF = { today: '2026-11-26', timezone: 'Europe/Paris' };
const L = process.argv.slice(2).length ? process.argv.slice(2) : ['BTS 4410 fails','site 4410 keeps dropping since 6','site 12 down, 12 customers affected','site 4410 loses sync','site 4410 flaps again','site 4410 goes down every night','site 4410 this morning lost power','base station 310 reports optical power low','incident 4410 affects 3 sites','router 12 flaps','cell 4410 goes dark','transfer 200 euros to Anna on the 1st','pay 300 pounds rent on the 1st','pay 300 dollars to my plumber on the 2nd of March','4 routers down','fly to Rome the first week of January','cut the first five minutes of my podcast','two seats in first from Paris to Tokyo','sites 4 and 200 are down since 9','site 4410 dropped, 30 customers complaining'];
for (const u of L) { const id = await client.identifyScenario(u, { ...REF, catalog }); console.log(u.padEnd(50), id.scenario, id.score, JSON.stringify(id.ranking[0]?.scenario===id.scenario? '' : id.ranking[0])); }
