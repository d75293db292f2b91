/**
 * dev-11: the validation stream of round 14 for schema evolution (draft-zhou §6.2), written before tuning by an
 * author who did not read the pool, evolution, embeddings, ADOL or client code (only the templates, this folder's
 * README, schedule.ts, make-dev-10.ts and dev-10.gold.json for the format, and draft-zhou §6.2). Thirty days
 * (2026-12-07 to 2027-01-05, the holiday season) of `other` fragments over the three seeded scenarios with nine needs
 * none of dev-1 to dev-10 or parley-dev has: a ticket that can be refunded, the traveller's passport number, the
 * currency the fare is charged in, opening eyes that blinked, how strong the background blur should be (a
 * refinement of the photo template's `background_blur`), the print resolution in dpi, the kind of site the faulty
 * equipment stands on, the ports or interfaces that are down, and the clock time service must be restored by.
 * Two yes/no needs said with varied verbs and nouns; three choices said in different words and languages (the yen
 * and the street cabinet common only from day 12; the blur strength refines a base key); an identifier, a list of
 * interface names, an integer with units said in digits and words, a clock time. Two personal needs, one
 * one-client burst sharing "blur" with the refinement, and one-off noise sharing the needs' words. Every phrasing
 * was written by hand; schedule.ts only decides who sends which one when (seeded). `npx tsx <this file>` rewrites
 * both files byte for byte.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const REFUNDABLE = [
  'the ticket has to be refundable, my meeting might get cancelled',
  'only fares I can cancel and get the money back',
  'no non-refundable tickets please',
  'make sure it is a flexible fare with a full refund',
  'if the trip falls through I need my money back',
  'refundible fare pls',
  'Erstattbarer Tarif, bitte',
  'tarifa reembolsable, por favor',
  '払い戻し可能な運賃でお願いします',
  '要可以全额退款的机票',
  'billet remboursable uniquement',
  'pick the fare with free cancellation, not the cheapest saver one',
  'I want to be able to cancel up to the day before without losing it all',
  'refund option is a must this time, last trip I lost 400 quid',
  'cancelation with refnd must be possible',
];

const PASSPORT = [
  'passport number is X4481207, add it to the booking',
  'my passport no. 533918204 for the API data',
  'here is the passport: C01X00T47',
  'pasport nr K7720931, expires 2031',
  'travel document number P2291840 please',
  'Reisepassnummer CF7Y2R190 eintragen',
  'número de pasaporte XDC482915',
  '护照号码 E81234567',
  'パスポート番号はTZ1048823です',
  'numéro de passeport 19AV41273',
  'use passport GB 512 884 037 for the advance passenger info',
  'the number on my new passprot is 761209954, the old one expired',
  'doc number for APIS: LR0932117',
];

const CUR_EUR = [
  'charge me in euros please',
  'price it in EUR, my company card is in euros',
  'bill in € not dollars',
  'en euros, por favor',
  'bitte in Euro abrechnen',
  'payer en euros svp',
  'in euros pls, my acount is in EUR',
];
const CUR_USD = [
  'bill me in US dollars',
  'USD please, my card is American',
  'show and charge the fare in dollars',
  'en dólares estadounidenses',
  'in USD abbuchen',
  'dollers please, I want to avoid the conversion fee',
];
const CUR_GBP = [
  'pay in pounds sterling',
  'GBP, I get hit with fees otherwise',
  'charge it in pounds please, UK card',
  'en libras esterlinas',
  'in britischen Pfund bitte',
  'sterling if you can',
];
const CUR_JPY = [
  'charge it in yen please',
  'JPY billing, we have a Tokyo office card now',
  '日本円で決済してください',
  '円建てでお願いします',
  'en yenes japoneses',
  'yen pls, the new corporate card is Japanese',
];

const CLOSED_EYES = [
  'she blinked in the best shot, can you open her eyes',
  'my son has his eyes shut in the family photo, fix that',
  'swap in open eyes from the other frame',
  'grandpa closed his eyes right when the flash went, please repair',
  'eyes half closed on the bride, make them open',
  'someone blinked again, please fix the closed eyes',
  'blinky eyes on two guests, fix pls',
  'clsoed eyes on the man at the left, can you open them',
  'abre los ojos de mi hija, salió parpadeando',
  'Augen sind zu, bitte öffnen',
  'elle a cligné des yeux, corrigez ça svp',
  '目をつぶってしまったので開けてください',
  '他闭眼了，帮忙改成睁眼',
  'the groom looks asleep in this one, wake him up :)',
];

const BLUR_LIGHT = [
  'just a touch of blur behind me, keep the street recognisable',
  'soft background blur, nothing dramatic',
  'blur the background slightly',
  'desenfoque suave del fondo',
  'Hintergrund nur leicht unscharf',
  'a little bokeh only, subtle',
  'lite blur on the backdrop pls',
];
const BLUR_MEDIUM = [
  'medium blur on the background',
  'moderate bokeh, halfway',
  'blur the back about fifty percent',
  'flou d’arrière-plan moyen',
  '背景を中くらいにぼかして',
  'not too strong, not too weak, a normal amount of blur',
];
const BLUR_STRONG = [
  'heavy bokeh, I want the background totally melted',
  'blur the background as much as you can',
  'strong blur behind us, the car park is ugly',
  'make the backdrop really blurry, like f/1.2',
  '背景虚化要很强',
  'maximum backround blur',
  'desenfoque fuerte del fondo',
];

const DPI = [
  'export at 300 dpi for the printer',
  'I need three hundred dots per inch',
  'resolution 600 ppi please, it is a fine art print',
  'the lab asked for at least 240 dpi',
  'set it to 150dpi, it is only for a flyer',
  'min. 350 dpi for the magazine cover',
  'seventy two dpi is enough, web only',
  'dpi: 400',
  'Auflösung 300 dpi bitte',
  'resolución de 600 ppp para impresión',
  '印刷用に350dpiで',
  '分辨率要300dpi',
  'résolution 300 dpi svp',
  'print shop says twelve hundred dpi for the scan, weird but ok',
  'pls make it 300 dip',
];

const SITE_ROOFTOP = [
  'the site is on a rooftop, landlord has the key',
  'roof-top site, needs a ladder',
  'equipment sits on the roof of the hotel',
  'sitio en azotea',
  'Dachstandort, Zugang über den Hausmeister',
  'rooftp installation on the mall',
];
const SITE_TOWER = [
  'it is a greenfield tower, 40 m mast',
  'lattice tower out in the fields',
  'monopole site, climbers needed',
  'torre en el campo, acceso por camino de tierra',
  '铁塔站点',
  'pylon site next to the motorway',
];
const SITE_INDOOR = [
  'indoor site in the basement of the office block',
  'the kit is in an equipment room inside the building',
  'in-building DAS, inside the shopping centre',
  'salle technique à l’intérieur du bâtiment',
  '屋内局です、地下の機械室',
  'indor site, badge needed at reception',
];
const SITE_CABINET = [
  'it is a street cabinet on the pavement',
  'roadside cabinet, green box by the bus stop',
  'the outdoor cabinet at the corner',
  'armario de calle en la acera',
  'Outdoor-Schrank am Gehweg',
  'street cabnet near the school',
];

const PORTS = [
  'ports xe-0/0/1 and xe-0/0/3 are flapping',
  'errors on Gi1/0/24, Gi1/0/25',
  'interfaces ge-2/1/0, ge-2/1/4 and ge-2/1/7 down',
  'check port 1/1/3 and 1/1/4 on the OLT',
  'TenGig0/2/0/5 plus TenGig0/2/0/6 have CRC errors',
  'puertos xe-1/0/2 y xe-1/0/9 caídos',
  'Ports et-0/0/0 und et-0/0/1 sind down',
  '端口 GE0/0/12 和 GE0/0/13 不通',
  'ポート 10GE1/0/3 と 10GE1/0/4 がリンクダウン',
  'the uplinks Eth1/49, Eth1/50 lost light',
  'prots xe-3/0/0 and xe-3/0/1 down',
  'only port xe-5/2/8 this time',
];

const DEADLINE = [
  'must be back up by 06:00, the shops open then',
  'SLA runs out at 14:30 today',
  'customer needs service restored before 9am',
  'fix it by noon or we pay penalties',
  'deadline for restoration is 23:00',
  'has to work again by half past seven tomorrow morning',
  'restore before 18h, there is a match on tv',
  'plazo de reparación hasta las 16:00',
  'Entstörung bis spätestens 10 Uhr',
  '必须在晚上8点前恢复',
  '17時までに復旧させてください',
  'rétablissement avant 12h30 exigé',
  'back online by 5 pm latest, hospital contract',
  'restor by 0400, before the trains start',
];

const NO_CODESHARE = [
  'no codeshare flights, I want the airline that actually flies it',
  'operated-by must be the same carrier as on the ticket',
  'avoid code shares please',
  'only flights operated by the airline I book with',
  'skip anything that is a codeshare',
];
const TIMES_IN_UTC = [
  'put every time in the ticket in UTC',
  'timestamps in UTC please, not local',
  'use Zulu time in the notes',
  'all times UTC, our team is spread over three zones',
];
const BLURRY_BURST = [
  'the edited photo came back all blurry',
  'why is the whole picture blurry now??',
  'everything is out of focus after your edit, not just the background',
  'result is blurred, even my face',
  'still blurry, please check',
];

const NOISE_FLIGHT = [
  'is the refund for my last trip processed yet?',
  'my passport photo is hideous lol',
  'the euro is so weak this year',
  'how much cash in yen should I take',
  'passport control queue was two hours',
  'can I cancel the newsletter',
  'the pound shop at the airport was closed',
  'travel documents are in my bag',
  'number of the hotel shuttle?',
  'Danke für die schnelle Antwort',
  'money back guarantee on the suitcase I bought',
  'my kid collects coins from every country',
  'the airline app crashed again',
  'code share or not, the food was bad',
  'merci pour le vol',
  'visa on arrival for Japanese citizens?',
  'the exchange office charges crazy commission',
  'fare alert emails are too many',
  'ticket printed, all good',
  'Christmas market in Vienna, worth it?',
  'gracias, muy amable',
  'my card was charged twice last month, sorted now',
];
const NOISE_PHOTO = [
  'my eyes hurt from the screen',
  'she always blinks in photos, it is a family joke',
  'the background music in your ad is nice',
  'printer ran out of ink',
  'dpi vs ppi, what is the difference anyway',
  'my camera has a strong zoom',
  'the roof in the picture is my grandma’s house',
  'blurry memories of that trip haha',
  'open on Sundays?',
  'a soft toy in the shot, keep it',
  'the tower in the background is the Eiffel tower',
  'gracias, quedó precioso',
  'ありがとうございます',
  'how many pixels does my phone have',
  'closed for the holidays next week?',
  'heavy file, sorry for the wait',
  'resolution for new year: better selfies',
  'the bokeh of my new lens is great',
  'merci, c’est parfait',
  'christmas card photos coming tomorrow',
];
const NOISE_FAULT = [
  'port wine at the christmas party',
  'the roof of the NOC is leaking',
  'tower crane on the next street, noisy',
  'deadline for timesheets is friday',
  'street party on saturday',
  'the cabinet in the kitchen is broken',
  'our UTC clock on the wall is wrong',
  'indoor football after shift?',
  'back up your laptops before the upgrade',
  'SLA training slides are on the wiki',
  'Feierabend, bis morgen',
  'the interface of the new ticket tool is confusing',
  'port list for the audit is on the share',
  'ok, closing this one',
  'la cena de empresa es el jueves',
  'restored my phone from backup, all good',
  'is the basement gym open',
  '今天食堂有饺子',
  'the mast of the office flag broke in the wind',
  'new year on-call rota is out',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

const recurringFlight: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'refundable_fare',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['refundable_fare', 'refundable', 'refundable_ticket', 'fare_refundable', 'free_cancellation', 'requires_refundable_fare'],
      type: 'boolean',
      values: [],
      why: 'Seventeen booking clients want a ticket they can cancel and get their money back for (refundable, money back, free cancellation, no saver fare, reembolsable, 払い戻し): a yes/no need said with varied words.',
    },
    clients: 17,
    start: 0,
    p: 0.3,
    groups: [{ texts: REFUNDABLE }],
  },
  {
    gold: {
      id: 'passport_number',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['passport_number', 'passport_no', 'passport_id', 'travel_document_number', 'document_number', 'passport'],
      type: 'string',
      values: [],
      why: 'Sixteen booking clients give the traveller\'s passport number (X4481207, C01X00T47, "GB 512 884 037"): one identifier a fragment, a string.',
    },
    clients: 16,
    start: 1,
    p: 0.3,
    groups: [{ texts: PASSPORT }],
  },
  {
    gold: {
      id: 'billing_currency',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['billing_currency', 'payment_currency', 'currency', 'charge_currency', 'preferred_currency', 'fare_currency'],
      type: 'string',
      values: ['eur', 'usd', 'gbp', 'jpy'],
      value_aliases: {
        eur: ['euro', 'euros'],
        usd: ['dollar', 'dollars', 'us_dollars', 'dollers', 'dolares'],
        gbp: ['pound', 'pounds', 'sterling', 'pounds_sterling', 'libras', 'pfund'],
        jpy: ['yen', 'japanese_yen', 'yenes'],
      },
      why: 'Twenty booking clients say which currency the fare is charged in (euros, US dollars, pounds sterling, yen; yen common only from day 12): a string enum of currency codes said as words, codes and signs.',
    },
    clients: 20,
    start: 0,
    p: 0.28,
    groups: [
      { texts: CUR_EUR, value: 'eur', weight: 1.8 },
      { texts: CUR_USD, value: 'usd', weight: 1.4 },
      { texts: CUR_GBP, value: 'gbp', weight: 1.2 },
      { texts: CUR_JPY, value: 'jpy', weight: 0.25 },
      { texts: CUR_JPY, value: 'jpy', from: 12, adopt: 0.4 },
    ],
  },
];

const recurringPhoto: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'fix_closed_eyes',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['fix_closed_eyes', 'open_closed_eyes', 'closed_eye_fix', 'closed_eyes_correction', 'blink_correction', 'open_eyes'],
      type: 'boolean',
      values: [],
      why: 'Fifteen photo clients ask to open eyes that blinked or were shut (blinked, eyes shut, half closed, looks asleep, parpadeando, 闭眼): a yes/no need; shares "eyes" with the base key eye_enlargement but is not it.',
    },
    clients: 15,
    start: 0,
    p: 0.3,
    groups: [{ texts: CLOSED_EYES }],
  },
  {
    gold: {
      id: 'background_blur_strength',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['background_blur_strength', 'blur_strength', 'blur_intensity', 'background_blur_level', 'background_blur_intensity', 'bokeh_strength'],
      type: 'string',
      values: ['light', 'medium', 'strong'],
      value_aliases: {
        light: ['slight', 'subtle', 'soft', 'lite', 'leicht', 'suave', 'little'],
        medium: ['moderate', 'normal', 'halfway', 'moyen', 'fifty_percent'],
        strong: ['heavy', 'maximum', 'max', 'fuerte', 'really_blurry'],
      },
      refines_base_key: 'background_blur',
      why: 'Eighteen photo clients say how strongly the background should be blurred (a touch, soft, medium, halfway, heavy bokeh, as much as you can): refines the base boolean background_blur (a strength, not a second on/off switch).',
    },
    clients: 18,
    start: 0,
    p: 0.3,
    groups: [
      { texts: BLUR_LIGHT, value: 'light', weight: 1.3 },
      { texts: BLUR_MEDIUM, value: 'medium', weight: 1 },
      { texts: BLUR_STRONG, value: 'strong', weight: 1.4 },
    ],
  },
  {
    gold: {
      id: 'print_dpi',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['print_dpi', 'dpi', 'resolution_dpi', 'output_dpi', 'print_resolution', 'print_resolution_dpi'],
      type: 'integer',
      values: [],
      why: 'Sixteen photo clients give the resolution of the exported file in dots per inch (300 dpi, "three hundred dots per inch", 600 ppi, "seventy two dpi"): an integer with units, in digits and words.',
    },
    clients: 16,
    start: 1,
    p: 0.3,
    groups: [{ texts: DPI }],
  },
];

const recurringFault: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'site_type',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['site_type', 'site_kind', 'site_category', 'installation_type', 'site_location_type', 'cell_site_type'],
      type: 'string',
      values: ['rooftop', 'tower', 'indoor', 'street_cabinet'],
      value_aliases: {
        rooftop: ['roof', 'roof_top', 'rooftp', 'azotea', 'dachstandort'],
        tower: ['mast', 'monopole', 'lattice_tower', 'pylon', 'greenfield', 'torre'],
        indoor: ['basement', 'equipment_room', 'in_building', 'indor', 'das'],
        street_cabinet: ['cabinet', 'roadside_cabinet', 'outdoor_cabinet', 'street_cabnet', 'armario'],
      },
      why: 'Sixteen NOC clients say what kind of site the faulty equipment stands on (rooftop, tower or mast, indoor room, street cabinet; street cabinets common only from day 12): a string enum said with varied nouns.',
    },
    clients: 16,
    start: 0,
    p: 0.33,
    groups: [
      { texts: SITE_ROOFTOP, value: 'rooftop', weight: 1.5 },
      { texts: SITE_TOWER, value: 'tower', weight: 1.5 },
      { texts: SITE_INDOOR, value: 'indoor', weight: 1.3 },
      { texts: SITE_CABINET, value: 'street_cabinet', weight: 0.25 },
      { texts: SITE_CABINET, value: 'street_cabinet', from: 12, adopt: 0.4 },
    ],
  },
  {
    gold: {
      id: 'affected_ports',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['affected_ports', 'affected_interfaces', 'port_ids', 'interface_names', 'ports', 'interfaces'],
      type: 'array',
      items_type: 'string',
      values: [],
      why: 'Fourteen NOC clients name the ports or interfaces that are down or erroring (xe-0/0/1, Gi1/0/24, TenGig0/2/0/5), mostly two or three a fragment: an array of strings.',
    },
    clients: 14,
    start: 0,
    p: 0.35,
    groups: [{ texts: PORTS }],
  },
  {
    gold: {
      id: 'restore_deadline',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['restore_deadline', 'restoration_deadline', 'restore_by_time', 'repair_deadline', 'sla_deadline', 'fix_by_time'],
      type: 'string',
      values: [],
      why: 'Fourteen NOC clients give the clock time by which service must be back (06:00, 14:30, 9am, noon, "half past seven", 18h, 0400): one time a fragment, a string.',
    },
    clients: 14,
    start: 0,
    p: 0.33,
    groups: [{ texts: DEADLINE }],
  },
];

export const spec: StreamSpec = {
  name: 'dev-11',
  seed: 52919,
  start: '2026-12-07',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [...recurringFlight, ...recurringPhoto, ...recurringFault],
  personal: [
    {
      gold: {
        id: 'personal:no_codeshare',
        scenario: f,
        kind: 'personal',
        expect: 'client:agent-cds517',
        acceptable_names: ['no_codeshare', 'avoid_codeshare', 'exclude_codeshares', 'operated_by_marketing_carrier', 'no_codeshare_flights'],
        type: 'boolean',
        values: [],
        why: 'One booking client asks 4-6 times a day for eight days to avoid codeshare flights: a per-client key; no global key.',
      },
      client: 'agent-cds517',
      start: 4,
      end: 11,
      perDay: [4, 6],
      texts: NO_CODESHARE,
    },
    {
      gold: {
        id: 'personal:ticket_times_in_utc',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-utc733',
        acceptable_names: ['ticket_times_in_utc', 'times_in_utc', 'use_utc', 'utc_timestamps', 'timestamp_timezone'],
        type: 'boolean',
        values: [],
        why: 'One NOC client asks 5-7 times a day for eight days that times in the ticket be written in UTC: a per-client key; no global key (shares "time" with restore_deadline).',
      },
      client: 'agent-utc733',
      start: 18,
      end: 25,
      perDay: [5, 7],
      texts: TIMES_IN_UTC,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:edited_photo_blurry',
        scenario: p,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One photo client complains that its edited photo came back blurry 36 times in 40 minutes on day 15 (shares "blur" and "background" with the blur-strength need): no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-blr482',
      day: 15,
      hourUtc: 20.25,
      count: 36,
      minutes: 40,
      texts: BLURRY_BURST,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
