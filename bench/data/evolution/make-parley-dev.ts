/**
 * Generates bench/data/evolution/parley-dev.jsonl and parley-dev.gold.json: a
 * labelled month of `other` fragments over the three seeded scenarios for
 * `npm run bench:evolution` (draft-zhou §6.2), with needs the first inducer
 * was never tuned on. Deterministic (mulberry32, seed 20260401):
 * `npx tsx bench/data/evolution/make-parley-dev.ts` rewrites both files byte for byte.
 *
 * This is the engineers' own development stream, written before the
 * independent dev and held-out streams arrived; it is scored beside them, never
 * instead of them. Phrasings share few words, values sit inside sentences,
 * some are misspelt; personal needs come from one client each; noise shares
 * vocabulary with real intents; one client bursts.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { seededRandom } from '@parley/testkit';

const T0 = Date.UTC(2026, 3, 1);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const DAYS = 30;
const r = seededRandom(20260401);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const pad = (n: number): string => String(n).padStart(3, '0');
const at = (d: number, from = 6, to = 23): number => T0 + d * DAY + Math.floor((from + r() * (to - from)) * HOUR) + Math.floor(r() * 60) * 1000;

interface Line {
  at: number;
  scenario: string;
  client_id: string;
  text: string;
  intent: string;
}
const out: Line[] = [];

interface Intent {
  id: string;
  scenario: string;
  kind: 'recurring' | 'personal' | 'burst';
  expect: string;
  acceptable_names: string[];
  type: 'string' | 'integer' | 'number' | 'boolean' | 'array';
  items_type?: string;
  values: string[];
  value_aliases?: Record<string, string[]>;
  refines_base_key?: string;
  why: string;
}
const gold: Intent[] = [];

/** A recurring need: `clients` clients from day `from`, each on a share of the days, each time one phrasing. */
function recurring(i: Intent, prefix: string, clients: number, from: number, share: number, phrase: (client: number) => string): void {
  gold.push(i);
  for (let c = 1; c <= clients; c++) {
    const client = `${prefix}-${pad(c)}`;
    for (let d = from + Math.floor(r() * 4); d < DAYS; d++) {
      if (r() > share) continue;
      out.push({ at: at(d), scenario: i.scenario, client_id: client, text: phrase(c), intent: i.id });
    }
  }
}

// flight_booking: meals, a choice among alternatives; later values arrive late.
const MEALS: [string, string[]][] = [
  ['vegetarian', ['vegetarian', 'vegeterian', 'veggie']],
  ['vegan', ['vegan']],
  ['halal', ['halal']],
  ['kosher', ['kosher']],
];
recurring(
  { id: 'special_meal', scenario: 'flight_booking', kind: 'recurring', expect: 'global', acceptable_names: ['meal_preference', 'special_meal', 'meal_type', 'dietary_preference', 'meal_request'], type: 'string', values: MEALS.map(([v]) => v), value_aliases: Object.fromEntries(MEALS.map(([v, a]) => [v, a])), why: 'a choice among diets' },
  'meal-agent',
  36,
  1,
  0.22,
  (c) => {
    // Vegan, halal and kosher clients are the later half: their values arrive after the key is out.
    const [, forms] = MEALS[c <= 14 ? 0 : 1 + (c % 3)] as [string, string[]];
    const w = pick(forms);
    return pick([`${w} meal please`, `please book a ${w} meal`, `my client eats ${w} food only`, `${w} dinner on board`, `order the ${w} option for lunch`]);
  },
);

// flight_booking: checked bags, a count said in digits and words.
const NUM = ['one', 'two', 'three', '1', '2', '3', '4'];
recurring(
  { id: 'extra_bags', scenario: 'flight_booking', kind: 'recurring', expect: 'global', acceptable_names: ['extra_bag_count', 'bag_count', 'baggage_count', 'checked_bag_count', 'extra_baggage_count', 'luggage_count'], type: 'integer', values: [], why: 'how many extra bags: a number' },
  'bags-bot',
  28,
  3,
  0.2,
  () => {
    const n = pick(NUM);
    return pick([`add ${n} extra bags`, `${n} checked bags please`, `we travel with ${n} suitcases in the hold`, `need ${n} additional pieces of luggage`, `${n} extra bag allowance`]);
  },
);

// flight_booking: wheelchair help, a yes/no need.
recurring(
  { id: 'wheelchair', scenario: 'flight_booking', kind: 'recurring', expect: 'global', acceptable_names: ['needs_wheelchair', 'wheelchair_assistance', 'wheelchair', 'needs_wheelchair_assistance', 'wheelchair_required', 'wants_wheelchair'], type: 'boolean', values: [], why: 'assistance wanted or not, no alternatives' },
  'care-assist',
  24,
  6,
  0.2,
  () => pick(['wheelchair assistance at the airport', 'my father needs a wheelchair to board', 'wheelchiar at the gate please', 'book wheelchair help for boarding', 'passenger uses a wheelchair']),
);

// photo_retouch: output file format, with jpg/jpeg aliases.
const FORMATS: [string, string[]][] = [
  ['jpeg', ['jpeg', 'jpg', 'JPG']],
  ['png', ['png', 'PNG']],
  ['tiff', ['tiff', 'tif']],
  ['webp', ['webp']],
];
recurring(
  { id: 'file_format', scenario: 'photo_retouch', kind: 'recurring', expect: 'global', acceptable_names: ['output_format', 'file_format', 'format_preference', 'image_format', 'export_format', 'file_type', 'format_type', 'output_file_format'], type: 'string', values: FORMATS.map(([v]) => v), value_aliases: Object.fromEntries(FORMATS.map(([v, a]) => [v, a])), why: 'a choice among formats' },
  'studio-app',
  30,
  2,
  0.22,
  (c) => {
    const [, forms] = FORMATS[c % 4] as [string, string[]];
    const f = pick(forms);
    return pick([`export as ${f}`, `send the result as a ${f} file`, `I need it in ${f} format`, `save the output to ${f}`, `deliver ${f} please`]);
  },
);

// photo_retouch: hair colour, alternatives.
const HAIR = ['blonde', 'red', 'brown', 'black'];
recurring(
  { id: 'hair_colour', scenario: 'photo_retouch', kind: 'recurring', expect: 'global', acceptable_names: ['hair_color', 'hair_colour', 'hair_color_preference', 'hair_colour_preference', 'hair_dye', 'hair_color_type'], type: 'string', values: HAIR, value_aliases: { blonde: ['blond'] }, why: 'a choice among colours' },
  'selfie-pro',
  26,
  4,
  0.2,
  (c) => {
    const h = HAIR[c % 4] as string;
    return pick([`change the hair colour to ${h}`, `dye her hair ${h}`, `make the hair ${h}`, `${h} hair instead`, `recolor my hair ${h}`]);
  },
);

// photo_retouch: blemish removal, a yes/no need, beside noise that shares the verb "remove".
recurring(
  { id: 'blemishes', scenario: 'photo_retouch', kind: 'recurring', expect: 'global', acceptable_names: ['blemish_removal', 'remove_blemishes', 'acne_removal', 'needs_blemish_removal', 'wants_blemish_removal', 'blemish_remover', 'remove_acne'], type: 'boolean', values: [], why: 'wanted or not' },
  'glow-cam',
  24,
  3,
  0.2,
  () => pick(['remove the acne', 'clear up the pimples on my face', 'hide blemishes please', 'get rid of the spots on the skin', 'retouch the acne scars', 'remove blemishes']),
);

// fault_management: a maintenance window (a time range).
recurring(
  { id: 'maintenance_window', scenario: 'fault_management', kind: 'recurring', expect: 'global', acceptable_names: ['maintenance_window', 'planned_maintenance_window', 'maintenance_time_window', 'change_window'], type: 'string', values: [], why: 'a time range' },
  'noc-agent',
  20,
  2,
  0.25,
  () => {
    const h = 1 + Math.floor(r() * 4);
    const f = `0${h}:00`;
    const t = `0${h + 2}:00`;
    return pick([`maintenance window ${f}-${t}`, `planned works between ${f} and ${t}`, `only touch it in the maintenance window ${f} to ${t}`, `scheduled maintenance from ${f} to ${t}`]);
  },
);

// fault_management: several sites named by id (the base key affected_site_ids covers it).
recurring(
  { id: 'site_list', scenario: 'fault_management', kind: 'recurring', expect: 'global', acceptable_names: ['affected_site_ids'], type: 'array', items_type: 'string', values: [], refines_base_key: 'affected_site_ids', why: 'the base key already takes site ids' },
  'oss-bridge',
  18,
  3,
  0.25,
  () => {
    const a = `NB-${String(100 + Math.floor(r() * 900)).padStart(4, '0')}`;
    const b = `NB-${String(100 + Math.floor(r() * 900)).padStart(4, '0')}`;
    return pick([`sites affected: ${a}, ${b}`, `also down: ${a} and ${b}`, `impacted sites ${a} ${b}`, `outage spans ${a}, ${b}`]);
  },
);

// Personal needs: one client each, several times a day.
function personal(id: string, scenario: string, client: string, texts: string[], from: number): void {
  gold.push({ id, scenario, kind: 'personal', expect: `client:${client}`, acceptable_names: [], type: 'boolean', values: [], why: 'one client only' });
  for (let d = from; d < DAYS; d++) {
    const n = 3 + Math.floor(r() * 3);
    for (let k = 0; k < n; k++) out.push({ at: at(d, 7, 22), scenario, client_id: client, text: pick(texts), intent: `personal:${id}` });
  }
}
personal('front_row', 'flight_booking', 'exec-travel-007', ['always the front row for me', 'front row seat', 'row 1 if you can'], 4);
personal('watermark', 'photo_retouch', 'brand-shop-042', ['add our logo watermark', 'watermark with the shop logo'], 6);

// A one-client burst: forty copies in one hour.
gold.push({ id: 'dog_barking', scenario: 'flight_booking', kind: 'burst', expect: 'none', acceptable_names: [], type: 'string', values: [], why: 'one client, one hour' });
for (let k = 0; k < 40; k++) out.push({ at: T0 + 9 * DAY + 14 * HOUR + k * 80_000, scenario: 'flight_booking', client_id: 'night-owl-001', text: 'my dog keeps barking at night', intent: 'burst:dog_barking' });

// Noise: one-off clients, vocabulary shared with the real needs.
const NOISE: [string, string[]][] = [
  ['flight_booking', ['window cleaning at home', 'my meal at the lounge was cold', 'the bag strap broke', 'is the gate far from security', 'two hours layover is fine', 'kosher shop near the hotel?', 'send the invoice to my boss', 'dinner reservation in Lisbon']],
  ['photo_retouch', ['remove the background', 'remove the red eye', 'crop it square', 'format the caption in bold', 'make the sky bluer', 'hair looks messy in the wind', 'export the album later']],
  ['fault_management', ['window of the cabinet is broken', 'site visit next week', 'alarm cleared itself', 'maintenance crew arrived late', 'ticket duplicated by mistake']],
];
NOISE.forEach(([scenario, texts]) => {
  for (let k = 0; k < 60; k++) {
    const text = pick(texts);
    out.push({ at: at(Math.floor(r() * DAYS)), scenario, client_id: `walk-in-${pad(Math.floor(r() * 400))}`, text, intent: `noise:${text.toLowerCase().replace(/[^a-z0-9]+/g, '_')}` });
  }
});

out.sort((a, b) => a.at - b.at || (a.client_id < b.client_id ? -1 : 1));
const dir = fileURLToPath(new URL('.', import.meta.url));
writeFileSync(`${dir}parley-dev.jsonl`, out.map((l) => JSON.stringify({ ts: new Date(l.at).toISOString(), scenario: l.scenario, client_id: l.client_id, text: l.text, intent: l.intent })).join('\n') + '\n');
writeFileSync(`${dir}parley-dev.gold.json`, `${JSON.stringify({ stream: 'parley-dev', seed: 20260401, intents: gold }, null, 2)}\n`);
process.stdout.write(`${out.length} lines, ${gold.length} intents\n`);
