/**
 * dev-2: a second thirty-day dev stream of `other` fragments over the three seeded scenarios, with needs none of
 * dev-1, parley-dev, bench/data/stream.jsonl or the held-out tables has (connection times, booking references,
 * pick-up times, print finishes, power-line removal, people counts, outage durations, customer segments, no
 * customer contact). Every phrasing was written by hand; schedule.ts only decides who sends which one when (seeded).
 * `npx tsx <this file>` rewrites the stream and its gold file.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const LAYOVER = [
  'at least 90 minutes between the two flights please',
  'I need a long connection, minimum two hours',
  'no tight transfers, give me 120 min to change planes',
  'connection of at least an hour and a half, my knee is bad',
  'leave seventy five minutes for the change in Frankfurt',
  'Umsteigezeit mindestens 90 Minuten',
  'escala de al menos 100 minutos',
  '转机时间至少两个小时',
  'conection time 60 minutes minimum',
  'we walk slowly, 150 minutes for the layover would be good',
  'lay-over no shorter than forty minutes',
  'correspondance d’au moins 80 minutes',
];

const BOOKING_REF = [
  'this is about booking ref PNR-7QK2L',
  'change the existing reservation PNR-4XM9D',
  'my booking reference is PNR-2BV8T, just add the return',
  'reservation code PNR-9HF3W from last week',
  'it concerns the booking PNR-5LN7C',
  'Buchungsnummer PNR-8RT4K',
  'la reserva PNR-3WD6Y, por favor',
  'refernce PNR-6JP1Q for the whole family',
  '预订编号 PNR-1ZC5M',
];

const PICKUP = [
  'airport transfer pick-up at 05:30 from the hotel',
  'have the driver collect us at 6:45',
  'car pickup 04:15 please, early flight',
  'taxi to the airport at 07:00',
  'pick me up from the office at 16:30',
  'Abholung um 05:45',
  'recogida a las 06:00 en el hotel',
  'pickp at 5:15 sharp',
  '早上6:20来接',
];

const MATTE = ['matte finish on the prints', 'print it on matte paper please', 'no shine, matt prints', 'acabado mate', 'papier matt bitte'];
const GLOSSY = ['glossy paper for these', 'glossy prints, they are for the fridge', 'a shiny glossy finish', 'glosy print please', 'papel brillante'];
const SATIN = ['satin finish, not too shiny', 'the satin paper like last time', 'semi-gloss satin prints'];
const LUSTRE = ['lustre paper for the portfolio', 'print on luster paper', 'pearl lustre finish for the wedding set'];

const POWER_LINES = [
  'remove the power lines across the sky',
  'get rid of the electricity cables in the view',
  'erase those overhead wires',
  'the telephone wires ruin the shot, take them out',
  'delete the power lines above the church',
  'Stromleitungen entfernen bitte',
  'quitar los cables de la luz',
  'please clean up the cables crossing the sunset',
  'remove the powerlines from the beach photo',
  '把电线去掉',
  'wires in the background, can they go',
];

const PEOPLE = [
  'there are five people in the group shot',
  'retouch all faces, 12 people in total',
  'group photo of eight persons',
  'three of us in the picture, do everyone',
  'family portrait, 6 people',
  'foto de grupo con siete personas',
  'Gruppenfoto mit 9 Personen',
  'a team photo of twenty people',
  'four peple in the frame',
  '合影一共十个人',
];

const OUTAGE = [
  'down for 40 minutes already',
  'the outage has lasted ninety minutes',
  'customers offline for about 25 minutes',
  'service has been out for 120 min',
  'it has been down fifteen minutes',
  'seit 30 Minuten kein Dienst',
  'caído desde hace 45 minutos',
  'outage duration 70 minutes so far',
  'dwon for sixty minutes now',
  '已经中断50分钟',
];

const ENTERPRISE = ['this is an enterprise customer', 'enterprise account, SLA applies', 'big enterprise client affected', 'cliente empresarial'];
const RESIDENTIAL = ['residential customers only', 'a residential line', 'home users, residential', 'Privatkunden, residential'];
const GOVERNMENT = ['government customer, handle carefully', 'a government agency line', 'ministry site, goverment account'];
const WHOLESALE = ['wholesale partner circuit', 'wholesale customer, another carrier', 'it is a wholesale line'];

const NO_CONTACT = [
  "don't call the customer, we handle communication",
  'do not contact the end user directly',
  'no customer contact please, account manager will do it',
  'keep the customer out of it, internal only',
  'never phone the client about this one',
  'kein Kundenkontakt',
  'no contactar al cliente',
  'dont reach out to the custmer',
  '不要联系客户',
];

const COST_CENTRE = ['bill it to cost centre CC-4471', 'cost center CC-4471 as usual', 'charge CC-4471 please', 'put it on CC-4471'];
const KEEP_EXIF = ['keep the EXIF data', 'do not strip the metadata', 'leave the camera metadata in', 'EXIF must stay'];

const DECLINED = ['card declined again??', 'payment declined, what now', 'my card got declined', 'declined AGAIN', 'why is the payment declined'];

const NOISE_FLIGHT = [
  'the transfer desk at the airport was closed',
  'how many minutes does boarding take',
  'my reference letter for the visa is attached',
  'is there a pickup truck rental at the destination',
  'connection to the lounge wifi is bad',
  'we booked a glossy magazine subscription by mistake',
  'can I get my booking confirmation again',
  'the driver last time was rude',
  'what time does the check-in counter open',
  'my kids love airplanes',
  'the seat cushions are too hard',
  'do you sell gift cards',
  'how long is the flight to Lisbon',
  'is Lisbon warm in March',
  'reservations for the restaurant are separate',
  'cancel my newsletter',
  'I had a layover in Doha once, loved it',
  'my card is from a foreign bank',
  'passport expires next year, is that ok',
  'the app logged me out',
];

const NOISE_PHOTO = [
  'my printer ran out of ink',
  'the wires of my tripod broke',
  'is matte black the new trend',
  'three people asked who edited my photos',
  'I took this picture in Norway',
  'how long does a retouch take',
  'the power went out while I was uploading',
  'my cat sat on the keyboard',
  'can you retouch videos too',
  'the glossy magazine used my photo',
  'do you work on weekends',
  'I paid twice last time',
  'the satin dress looked blue on screen',
  'people say I look tired in photos',
  'what camera do you recommend',
  'love the last edit, thanks',
  'the frame shop is closed',
  'lines on my forehead are normal, leave them',
  'is there a student discount',
  'which file should I upload',
];

const NOISE_FAULT = [
  'our enterprise dashboard is slow',
  'the customer portal login is broken',
  'who is on call tonight',
  'minutes of the last postmortem are missing',
  'the outage report template changed',
  'government holiday tomorrow, reduced staff',
  'a wholesale price list was requested by sales',
  'the NOC coffee machine is down',
  'contact list for the vendors please',
  'is the maintenance calendar updated',
  'we lost the spare router key',
  'residential building next to the site is noisy',
  'the ticket tool timed out',
  'thanks, that fixed it',
  'how do I export the alarms',
  'the shift handover notes are empty',
  'the antenna crew is on site',
  'new hire starts monday',
  'password reset for the NMS',
  'a customer called to say thanks',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

export const spec: StreamSpec = {
  name: 'dev-2',
  seed: 70113,
  start: '2026-06-01',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [
    {
      gold: {
        id: 'min_connection_minutes',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['min_connection_minutes', 'connection_minutes', 'layover_minutes', 'min_layover_minutes', 'connection_time_minutes', 'transfer_minutes'],
        type: 'integer',
        values: [],
        why: 'Twenty booking clients give a minimum time to change planes, in digits and words ("at least 90 minutes", "an hour and a half", "two hours"): an integer count of minutes.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [{ texts: LAYOVER }],
    },
    {
      gold: {
        id: 'booking_reference',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['booking_reference', 'booking_ref', 'booking_id', 'reservation_id', 'pnr', 'booking_code', 'reservation_code', 'booking_number'],
        type: 'string',
        values: [],
        why: 'Eighteen clients name an existing reservation by its code (PNR-7QK2L): an identifier → string (a pattern is a bonus), never a boolean.',
      },
      clients: 18,
      start: 2,
      p: 0.3,
      groups: [{ texts: BOOKING_REF }],
    },
    {
      gold: {
        id: 'pickup_time',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['pickup_time', 'transfer_time', 'airport_pickup_time', 'pickup_at', 'collection_time'],
        type: 'string',
        values: [],
        why: 'Sixteen clients want a car to the airport at a clock time ("pick-up at 05:30"): one time → string with a HH:MM pattern.',
      },
      clients: 16,
      start: 4,
      p: 0.3,
      groups: [{ texts: PICKUP }],
    },
    {
      gold: {
        id: 'print_finish',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['print_finish', 'paper_finish', 'finish', 'finish_type', 'paper_type', 'print_paper'],
        type: 'string',
        values: ['matte', 'glossy', 'satin', 'lustre'],
        value_aliases: { matte: ['matt', 'mate'], glossy: ['gloss', 'shiny', 'brillante'], satin: ['semi-gloss'], lustre: ['luster', 'pearl'] },
        why: 'Twenty-four photo clients choose the paper finish of their prints; lustre is rare until day 12, then about half the clients move to it: string enum.',
      },
      clients: 24,
      start: 0,
      p: 0.3,
      groups: [
        { texts: MATTE, value: 'matte', weight: 3 },
        { texts: GLOSSY, value: 'glossy', weight: 2.5 },
        { texts: SATIN, value: 'satin', weight: 1.2 },
        { texts: LUSTRE, value: 'lustre', weight: 0.3 },
        { texts: LUSTRE, value: 'lustre', from: 12, adopt: 0.5 },
      ],
    },
    {
      gold: {
        id: 'power_line_removal',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['power_line_removal', 'remove_power_lines', 'wire_removal', 'remove_wires', 'cable_removal', 'remove_cables', 'powerline_removal'],
        type: 'boolean',
        values: [],
        why: 'Eighteen clients want overhead wires and cables taken out of the picture: a verb-object yes/no need (remove X / x_removal).',
      },
      clients: 18,
      start: 3,
      p: 0.3,
      groups: [{ texts: POWER_LINES }],
    },
    {
      gold: {
        id: 'people_count',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['people_count', 'person_count', 'subject_count', 'face_count', 'group_size', 'number_of_people'],
        type: 'integer',
        values: [],
        why: 'Sixteen clients say how many people are in a group photo, mostly in words ("five people", "twenty people"): integer.',
      },
      clients: 16,
      start: 1,
      p: 0.3,
      groups: [{ texts: PEOPLE }],
    },
    {
      gold: {
        id: 'outage_minutes',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['outage_minutes', 'outage_duration_minutes', 'downtime_minutes', 'outage_duration', 'duration_minutes'],
        type: 'integer',
        values: [],
        why: 'Fifteen NOC clients say for how long the service has been down ("40 minutes", "ninety minutes"): integer minutes.',
      },
      clients: 15,
      start: 0,
      p: 0.4,
      groups: [{ texts: OUTAGE }],
    },
    {
      gold: {
        id: 'customer_segment',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['customer_segment', 'customer_type', 'customer_category', 'client_segment', 'account_type'],
        type: 'string',
        values: ['enterprise', 'residential', 'government', 'wholesale'],
        value_aliases: { enterprise: ['empresarial', 'business'], residential: ['home', 'privatkunden'], government: ['goverment', 'ministry', 'agency'], wholesale: ['carrier'] },
        why: 'Sixteen NOC clients say which kind of customer is hit: string enum over four segments.',
      },
      clients: 16,
      start: 2,
      p: 0.35,
      groups: [
        { texts: ENTERPRISE, value: 'enterprise', weight: 2 },
        { texts: RESIDENTIAL, value: 'residential', weight: 2 },
        { texts: GOVERNMENT, value: 'government', weight: 1 },
        { texts: WHOLESALE, value: 'wholesale', weight: 1 },
      ],
    },
    {
      gold: {
        id: 'no_customer_contact',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['no_customer_contact', 'contact_customer', 'customer_contact', 'allow_customer_contact', 'suppress_customer_contact'],
        type: 'boolean',
        values: [],
        why: 'Twelve NOC clients forbid contacting the end customer: yes/no (either polarity, said in the description).',
      },
      clients: 12,
      start: 5,
      p: 0.4,
      groups: [{ texts: NO_CONTACT }],
    },
  ],
  personal: [
    {
      gold: {
        id: 'personal:cost_centre',
        scenario: f,
        kind: 'personal',
        expect: 'client:agent-cc4471',
        acceptable_names: ['cost_centre', 'cost_center', 'cost_center_code', 'cost_centre_id'],
        type: 'string',
        values: [],
        why: 'One company travel desk asks 4-6 times a day for nine days that bookings go to its cost centre: a per-client string key; no global key.',
      },
      client: 'agent-cc4471',
      start: 8,
      end: 16,
      perDay: [4, 6],
      texts: COST_CENTRE,
    },
    {
      gold: {
        id: 'personal:keep_exif',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-ex1fkp',
        acceptable_names: ['keep_exif', 'keep_metadata', 'preserve_exif', 'preserve_metadata', 'strip_metadata'],
        type: 'boolean',
        values: [],
        why: 'One photographer asks 5-7 times a day for eight days that the camera metadata stays in: a per-client boolean key.',
      },
      client: 'agent-ex1fkp',
      start: 18,
      end: 25,
      perDay: [5, 7],
      texts: KEEP_EXIF,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:payment_declined',
        scenario: f,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: "One client's assistant relays a declined card 40 times in 50 minutes on day 9: one client, no global key (a per-client trigger is acceptable).",
      },
      client: 'agent-d3cl1n',
      day: 9,
      hourUtc: 13.4,
      count: 40,
      minutes: 50,
      texts: DECLINED,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
