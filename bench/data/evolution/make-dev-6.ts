/**
 * dev-6: a validation stream for choices said in different words (draft-zhou §6.2), written before the change it
 * checks (one enum key for a choice whose values the clustering splits into one cluster per value) and scored once
 * before any code change. Thirty days of `other` fragments over the three seeded scenarios with needs none of dev-1 to
 * dev-5, parley-dev or bench/data/stream.jsonl has: the car that takes the traveller from the airport, travel
 * insurance, the colour a subject's eyes should be, how many rounds of revisions, a tattoo to hide, the kind of
 * device that failed, the circuits a fault touches, an escalation to the next support tier. Each need's phrasings
 * were written by hand and share few words; values sit inside sentences, some misspelled, some in other languages.
 * schedule.ts only decides who sends which one when (seeded). `npx tsx <this file>` rewrites both files.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const RIDE_TAXI = ['a taxi from the airport to the hotel', 'book me a cab on arrival', 'I need a taxi waiting when I land', 'un taxi al llegar por favor', 'Taxi vom Flughafen bitte', 'get me a taxxi at arrivals'];
const RIDE_LIMO = ['a limousine pick-up at the terminal', 'send a limo for the CEO', 'chauffeur-driven car from the airport please', 'une limousine à l’arrivée', 'limosine for two guests'];
const RIDE_SHUTTLE = ['is there a shuttle bus to the city centre', 'put us on the hotel shuttle', 'shared shuttle from arrivals is fine', 'un autobús lanzadera al hotel', 'shutle to downtown'];
const RIDE_VAN = ['we need a minivan, six of us with luggage', 'a people carrier from the airport for the family', 'book a van big enough for the team', 'Kleinbus für acht Personen', 'mini van with child seats'];

const INSURANCE = [
  'add travel insurance to the booking',
  'I want cover in case I fall ill abroad',
  'protect the trip against cancellation',
  'include an insurance policy please',
  'can we get trip protection',
  'seguro de viaje, por favor',
  'mit Reiseversicherung',
  '请加上旅行保险',
  'insure the tickets in case we cannot go',
  'travel insurace needed',
];

const EYES_GREEN = ['make her eyes green', 'emerald eyes would look great', 'turn the irises a jade colour', 'ojos verdes por favor', 'gren eyes please'];
const EYES_BLUE = ['change his eyes to blue', 'icy blue eyes for the poster', 'give her an azure gaze', 'Augen blau färben', 'bleu eyes like the reference'];
const EYES_HAZEL = ['hazel eyes instead of the dark ones', 'warm amber-brown irises', 'a soft hazel colour in the eyes', 'des yeux noisette', 'hazle eyes'];
const EYES_GREY = ['make the eyes grey', 'silver-grey irises, wolf style', 'a stormy gray gaze', 'ojos grises', 'gray eys please'];

const REVISIONS = [
  'I would like two rounds of revisions',
  'allow 3 correction passes please',
  'up to four rounds of changes',
  'we may need one more revision round, so two in total',
  'include five revisions in the price',
  'zwei Korrekturschleifen bitte',
  'tres rondas de cambios',
  'three revison rounds',
  'expect 2 iterations of feedback from us',
];

const TATTOO = [
  'hide the tattoo on his forearm',
  'cover up the ink on her shoulder',
  'remove the tattoo for the wedding shots',
  'can you erase the body art on the neck',
  'the dragon tattoo should not be visible',
  'quitar el tatuaje del brazo',
  'Tattoo entfernen bitte',
  '去掉纹身',
  'retouch away the inked sleeve',
  'remove the tatoo please',
];

const DEV_ROUTER = ['the core router rebooted', 'edge router is dead', 'router in the POP lost power', 'el router se colgó', 'routr not responding'];
const DEV_SWITCH = ['an access switch failed', 'the aggregation switch is down', 'switch ports flapping in rack 4', 'der Switch ist ausgefallen', 'swich stack broken'];
const DEV_MODEM = ['customer modem keeps resetting', 'the CPE modem lost sync', 'modems on the street drop out', 'le modem ne répond plus', 'modm offline'];
const DEV_FIREWALL = ['the firewall is blocking everything', 'firewall cluster crashed', 'perimeter firewall went down', 'el cortafuegos falló', 'firewal dropped the sessions'];

const CIRCUITS = [
  'circuits CKT-44812 and CKT-44815 are hit',
  'affects CKT-50231, CKT-50240, CKT-50244',
  'lines CKT-61007 CKT-61009 down',
  'betroffene Leitungen CKT-70412, CKT-70419',
  'circuitos CKT-80125 y CKT-80131',
  'check CKT-90540 and CKT-90547 too',
  'the leased lines CKT-12066, CKT-12070',
  'circiuts CKT-23301, CKT-23309 affected',
];

const ESCALATE = [
  'escalate this to tier 3',
  'please pass it to second line support',
  'bring in the senior engineers',
  'this needs the expert team, level 2',
  'raise it to the next support level',
  'an das Backoffice eskalieren',
  'escalar al nivel 3',
  '请升级到二线',
  'hand over to L3 now',
  'escalte to the specialists',
];

const UPGRADE_VOUCHER = ['use my upgrade voucher on this one', 'apply my upgrade voucher UPG-7731', 'redeem the upgrade voucher again', 'upgrade voucher please, as always'];
const LINK_EXPIRED = ['the download link expired', 'download link expired again', 'link expired, cannot download', 'the link to my photos has expired'];

const NOISE_FLIGHT = [
  'the taxi driver at the last trip was rude',
  'my insurance card is lost, does it matter',
  'is there a bus from terminal 1 to 2',
  'the van outside the hotel blocked the road',
  'do you cover the lounge fee',
  'what is the cancellation policy for hotels',
  'the limo scene in that film was great',
  'thanks, all good',
  'my shuttle flight was delayed last time',
  'the airport was crowded',
  'do you sell gift cards',
  'the cab of the truck was green',
];

const NOISE_PHOTO = [
  'my eyes are tired after editing all night',
  'the green dress is perfect, keep it',
  'the blue sky looks nice already',
  'I got a new tattoo yesterday, not in these photos',
  'two rounds of golf after the shoot',
  'the grey cat belongs to the neighbour',
  'revision of my invoice please',
  'hazelnut cake in the background is fine',
  'thanks for the fast delivery',
  'ink cartridges for the printer?',
  'which camera did you use',
  'the colours are lovely',
];

const NOISE_FAULT = [
  'the router at my home office is slow, unrelated',
  'switch off the lights in the NOC please',
  'firewall training on thursday',
  'my modem at home is fine',
  'CKT-00001 is the test circuit, ignore',
  'escalators in the building are broken',
  'tier 3 meeting moved to noon',
  'who ordered the pizza',
  'circuit breaker tripped in the kitchen',
  'second line of the report is wrong',
  'the senior engineer is on holiday',
  'new badges on monday',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

export const spec: StreamSpec = {
  name: 'dev-6',
  seed: 86041,
  start: '2026-07-06',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [
    {
      gold: {
        id: 'transfer_vehicle',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['transfer_vehicle', 'vehicle_type', 'ground_transport', 'airport_transfer', 'transfer_type', 'car_type'],
        type: 'string',
        values: ['taxi', 'limousine', 'shuttle', 'minivan'],
        value_aliases: { taxi: ['cab', 'taxxi'], limousine: ['limo', 'chauffeur', 'limosine'], shuttle: ['shuttle_bus', 'bus', 'lanzadera', 'shutle'], minivan: ['van', 'people_carrier', 'mini_van', 'kleinbus'] },
        why: 'Twenty booking clients ask for a car from the airport (taxi, limousine, shuttle, minivan; minivans common from day 12), each value said in several words: a string enum.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [
        { texts: RIDE_TAXI, value: 'taxi', weight: 2 },
        { texts: RIDE_LIMO, value: 'limousine', weight: 1 },
        { texts: RIDE_SHUTTLE, value: 'shuttle', weight: 1.5 },
        { texts: RIDE_VAN, value: 'minivan', weight: 0.3 },
        { texts: RIDE_VAN, value: 'minivan', from: 12, adopt: 0.35 },
      ],
    },
    {
      gold: {
        id: 'travel_insurance',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['travel_insurance', 'needs_insurance', 'insurance', 'wants_insurance', 'trip_insurance', 'add_insurance'],
        type: 'boolean',
        values: [],
        why: 'Sixteen booking clients want the trip insured (insurance, cover, protection): a yes/no flag.',
      },
      clients: 16,
      start: 1,
      p: 0.3,
      groups: [{ texts: INSURANCE }],
    },
    {
      gold: {
        id: 'eye_color',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['eye_color', 'eye_colour', 'iris_color', 'iris_colour', 'eye_colour_change', 'eye_color_change'],
        type: 'string',
        values: ['green', 'blue', 'hazel', 'grey'],
        value_aliases: { green: ['emerald', 'jade', 'verdes', 'gren'], blue: ['icy', 'azure', 'blau', 'bleu', 'icy_blue'], hazel: ['amber', 'noisette', 'hazle', 'amber_brown'], grey: ['gray', 'silver', 'grises', 'stormy', 'silver_grey'] },
        why: 'Twenty photo clients want the eyes recoloured (green, blue, hazel, grey; grey common from day 13), in different words for each colour: a string enum.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [
        { texts: EYES_GREEN, value: 'green', weight: 2 },
        { texts: EYES_BLUE, value: 'blue', weight: 2 },
        { texts: EYES_HAZEL, value: 'hazel', weight: 1 },
        { texts: EYES_GREY, value: 'grey', weight: 0.3 },
        { texts: EYES_GREY, value: 'grey', from: 13, adopt: 0.35 },
      ],
    },
    {
      gold: {
        id: 'revision_rounds',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['revision_rounds', 'revision_count', 'revisions', 'max_revisions', 'round_count', 'correction_rounds'],
        type: 'integer',
        values: [],
        why: 'Sixteen photo clients say how many rounds of revisions they expect (two rounds, 3 passes, four): an integer.',
      },
      clients: 16,
      start: 0,
      p: 0.3,
      groups: [{ texts: REVISIONS }],
    },
    {
      gold: {
        id: 'tattoo_removal',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['tattoo_removal', 'remove_tattoo', 'hide_tattoo', 'tattoo_cover', 'tattoo_retouch'],
        type: 'boolean',
        values: [],
        why: 'Fifteen photo clients want a tattoo hidden (tattoo, ink, body art): a yes/no retouch.',
      },
      clients: 15,
      start: 2,
      p: 0.3,
      groups: [{ texts: TATTOO }],
    },
    {
      gold: {
        id: 'failed_device_type',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['failed_device_type', 'device_type', 'equipment_type', 'failed_device', 'device', 'affected_device'],
        type: 'string',
        values: ['router', 'switch', 'modem', 'firewall'],
        value_aliases: { router: ['routr'], switch: ['swich'], modem: ['cpe', 'modems', 'modm'], firewall: ['cortafuegos', 'firewal'] },
        why: 'Sixteen NOC clients say which kind of device failed (router, switch, modem, firewall): a string enum.',
      },
      clients: 16,
      start: 0,
      p: 0.35,
      groups: [
        { texts: DEV_ROUTER, value: 'router', weight: 1.5 },
        { texts: DEV_SWITCH, value: 'switch', weight: 1.5 },
        { texts: DEV_MODEM, value: 'modem', weight: 1 },
        { texts: DEV_FIREWALL, value: 'firewall', weight: 1 },
      ],
    },
    {
      gold: {
        id: 'circuit_ids',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['circuit_ids', 'affected_circuit_ids', 'affected_circuits', 'circuit_list', 'line_ids'],
        type: 'array',
        items_type: 'string',
        values: [],
        why: 'Fourteen NOC clients list the circuits a fault touches (CKT-44812, CKT-44815), two or three a fragment: an array of strings.',
      },
      clients: 14,
      start: 0,
      p: 0.35,
      groups: [{ texts: CIRCUITS }],
    },
    {
      gold: {
        id: 'escalation',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['escalation', 'needs_escalation', 'escalate', 'escalation_needed', 'escalation_level', 'support_tier'],
        type: 'boolean',
        values: [],
        why: 'Fourteen NOC clients want the fault escalated to the next support tier (escalate, second line, senior engineers, L3): a yes/no flag.',
      },
      clients: 14,
      start: 1,
      p: 0.35,
      groups: [{ texts: ESCALATE }],
    },
  ],
  personal: [
    {
      gold: {
        id: 'personal:upgrade_voucher',
        scenario: f,
        kind: 'personal',
        expect: 'client:agent-upg773',
        acceptable_names: ['upgrade_voucher', 'use_upgrade_voucher', 'voucher', 'apply_voucher'],
        type: 'boolean',
        values: [],
        why: 'One client asks 4-6 times a day for nine days that its upgrade voucher be used: a per-client key; no global key.',
      },
      client: 'agent-upg773',
      start: 9,
      end: 17,
      perDay: [4, 6],
      texts: UPGRADE_VOUCHER,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:download_link_expired',
        scenario: p,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One photo client relays that its download link expired 36 times in 40 minutes on day 15: no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-dlx404',
      day: 15,
      hourUtc: 14.5,
      count: 36,
      minutes: 40,
      texts: LINK_EXPIRED,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
