/**
 * dev-4: a validation stream for clustering and one-key-per-intent (draft-zhou §6.2), written before the
 * agglomeration and refinement changes it is used to check and never tuned on. Thirty days of `other` fragments over
 * the three seeded scenarios with needs none of dev-1, dev-2, dev-3, parley-dev or bench/data/stream.jsonl has
 * (infants on the booking, the time of day to fly, a cap on total journey hours, red-eye fixes, a new backdrop
 * colour, a tilted horizon, how many customers an outage hits, a site on lost mains power, the equipment vendor).
 * Every phrasing was written by hand, and the phrasings of one need share few words, so an embedder that scatters
 * paraphrases over several clusters shows it here. schedule.ts only decides who sends which one when (seeded).
 * `npx tsx <this file>` rewrites both files.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const INFANTS = [
  'travelling with a baby of 8 months',
  'two infants on our laps',
  'we have a newborn, she flies on my knee',
  'one lap child, eleven months old',
  'my toddler is under two so no seat for him',
  'plus 1 infant',
  'bringing our little one, 6 months',
  'twin babies, both under a year',
  'viajo con un bebé',
  'mit einem Säugling unterwegs',
  '带一个婴儿',
  'avec un nourrisson de 4 mois',
  'a baby travels with me, is there a bassinet',
  'one infent on lap',
];

const MORNING = ['the earliest flight out in the morning', 'I want to leave before 9 am', 'a morning departure please', 'early departure, first thing', 'por la mañana', 'morgens abfliegen', 'mornig flight'];
const AFTERNOON = ['an afternoon flight suits me', 'leave after lunch', 'something mid afternoon', 'am Nachmittag', 'por la tarde'];
const EVENING = ['evening departure please', 'after work, around 7 pm', 'a late flight in the evening', 'abends fliegen', 'evning flight'];
const NIGHT = ['the overnight red-eye is fine', 'a night flight so I sleep', 'overnight please, saves a hotel', 'vuelo nocturno'];

const JOURNEY = [
  'the whole trip must be under 12 hours',
  'no longer than ten hours door to door',
  'total travel time max 9h',
  'I cannot spend more than fifteen hours getting there',
  'keep the journey below 8 hours',
  'it should not take longer than a day of travelling, 20 hours tops',
  'maximal 10 Stunden Reisezeit',
  'menos de 12 horas de viaje',
  '总时长不超过十小时',
  'door-to-door duration 14 hrs at most',
  'max travle time eleven hours',
];

const RED_EYE = [
  'fix the red eyes from the flash',
  'their pupils glow red in every shot',
  'remove red-eye please',
  'the kids look like demons, red eyes everywhere',
  'correct the red eye on grandpa',
  'rote Augen entfernen',
  'quitar ojos rojos',
  '去除红眼',
  'the camera flash made her eyes red',
  'redeye correction on all of them',
  'yeux rouges à corriger',
  'fix the red eys',
];

const BG_WHITE = ['put her on a plain white backdrop', 'white background for the shop listing', 'pure white behind the product', 'fondo blanco por favor', 'weisser Hintergrund', 'whte background'];
const BG_GREY = ['swap the backdrop for light grey', 'a neutral gray background', 'grey behind him like a studio', 'grauer Hintergrund'];
const BG_BLACK = ['black background, dramatic', 'make everything behind her black', 'fondo negro'];
const BG_TRANSPARENT = ['transparent background, png', 'cut him out onto a transparent layer', 'no backdrop at all, transparent', 'fondo transparente'];

const HORIZON = [
  'the horizon is tilted',
  'level the sea line please',
  'the picture leans to the left, straighten it',
  'the skyline is crooked',
  'make the horizon straight',
  'it is all slanted, can you rotate it level',
  'Horizont gerade richten',
  'enderezar el horizonte',
  '地平线歪了',
  'the horizn is not level',
  'horizon a bit off, maybe 2 degrees',
];

const CUSTOMERS = [
  'around 300 subscribers have no service',
  'two thousand homes are offline',
  'about 40 users cut off',
  'roughly 1500 customers impacted',
  'it hits eighty households',
  'fifty business lines dead',
  'ca. 500 Kunden betroffen',
  'unos 200 clientes sin servicio',
  '影响约三百用户',
  '12 subscibers without internet',
  'nearly a thousand people lost connectivity',
];

const POWER = [
  'site lost mains power',
  'no electricity at the cabinet',
  'power cut at the exchange',
  'the grid went down there, running on batteries',
  'utility power failure at the tower',
  'AC supply is off since 3am',
  'Stromausfall am Standort',
  'corte de luz en el sitio',
  '基站停电',
  'blackout in that town, site on generator',
  'mains powr down',
];

const NOKIA = ['it is a Nokia box', 'Nokia radio at that site', 'nokia kit', 'Nokia-Gerät'];
const ERICSSON = ['Ericsson baseband on site', 'the eNodeB is Ericsson', 'ericson equipment'];
const HUAWEI = ['huawei kit', 'a Huawei OLT', 'equipo Huawei', '华为设备'];
const CISCO = ['the router is Cisco', 'cisco switch in the rack', 'Cisco core router'];

const FRECKLES = ['keep my freckles', 'please do not remove the freckles', 'freckles stay, as always', 'leave the freckles alone'];
const WEEKLY_PDF = ['send me the weekly pdf summary', 'weekly summary as pdf please', 'pdf digest at the end of the week', 'the usual weekly pdf'];

const BABY_FOOD = ['is baby food allowed through security', 'can I take baby milk in the hand luggage', 'baby food at security??', 'how much baby formula can I carry'];
const UPLOAD = ['upload stuck at 99%', 'the upload is stuck again', 'upload hangs at 99', 'still stuck uploading'];

const NOISE_FLIGHT = [
  'the baby in row 12 cried the whole way',
  'is there a morning newspaper on board',
  'my flight last evening was delayed',
  'how many hours is the time difference to Tokyo',
  'the night shift at the check-in desk was friendly',
  'I am flying to see my newborn nephew',
  'the journey to the airport takes an hour',
  'what time does the lounge open in the morning',
  'my infant son has a passport now',
  'the afternoon tea was lovely',
  'the red-eye last week was awful',
  'can I change my phone number',
  'where is the baggage claim',
  'is wifi free on this airline',
  'my name is misspelled on the ticket',
];

const NOISE_PHOTO = [
  'the white balance on my camera is off',
  'my eyes are tired from editing',
  'red is my favourite colour',
  'the horizon at sunset was beautiful',
  'background music for the slideshow?',
  'I use a grey card when I shoot',
  'the black frame you sent was nice',
  'my flash broke',
  'what is a transparent pricing plan',
  'can I get an invoice',
  'the sea was calm that day',
  'I will send more next week',
  'thanks, great job',
  'my printer jammed',
  'is the studio open on sunday',
];

const NOISE_FAULT = [
  'the subscribers report is due friday',
  'power bi dashboard is slow',
  'nokia rep visits next week',
  'our customers survey results are in',
  'the generator test is scheduled monthly',
  'cisco licence renewal reminder',
  'the electricity bill for the office arrived',
  'huawei training on tuesday',
  'two thousand tickets closed this quarter',
  'battery of my laptop is dead',
  'the grid view in the tool is confusing',
  'who owns the ericsson contract',
  'password reset please',
  'the homes in the brochure look nice',
  'lunch order for the noc',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

export const spec: StreamSpec = {
  name: 'dev-4',
  seed: 51183,
  start: '2026-10-12',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [
    {
      gold: {
        id: 'infant_count',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['infant_count', 'infants', 'lap_infant_count', 'baby_count', 'number_of_infants', 'infant_passengers'],
        type: 'integer',
        values: [],
        why: 'Eighteen booking clients say how many infants fly with them (baby, infant, newborn, lap child, toddler, little one), mostly in words: an integer.',
      },
      clients: 18,
      start: 0,
      p: 0.3,
      groups: [{ texts: INFANTS }],
    },
    {
      gold: {
        id: 'departure_time_of_day',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['departure_time_of_day', 'departure_time', 'time_of_day', 'preferred_departure_time', 'departure_period', 'flight_time'],
        type: 'string',
        values: ['morning', 'afternoon', 'evening', 'night'],
        value_aliases: { morning: ['early', 'am', 'mañana', 'morgens', 'mornig'], afternoon: ['tarde', 'nachmittag'], evening: ['late', 'abends', 'evning'], night: ['overnight', 'red_eye', 'nocturno'] },
        why: 'Twenty booking clients say when in the day they want to leave (morning, after lunch, evening, overnight); night flights are rare until day 12: a string enum.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [
        { texts: MORNING, value: 'morning', weight: 2 },
        { texts: AFTERNOON, value: 'afternoon', weight: 1 },
        { texts: EVENING, value: 'evening', weight: 1.5 },
        { texts: NIGHT, value: 'night', weight: 0.3 },
        { texts: NIGHT, value: 'night', from: 12, adopt: 0.35 },
      ],
    },
    {
      gold: {
        id: 'max_journey_hours',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['max_journey_hours', 'max_travel_hours', 'max_trip_hours', 'max_duration_hours', 'travel_time_hours', 'journey_hours', 'max_travel_time'],
        type: 'integer',
        values: [],
        why: 'Sixteen clients cap the total journey in hours ("under 12 hours door to door", "fifteen hours tops"): an integer number of hours.',
      },
      clients: 16,
      start: 2,
      p: 0.3,
      groups: [{ texts: JOURNEY }],
    },
    {
      gold: {
        id: 'red_eye_removal',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['red_eye_removal', 'red_eye_correction', 'red_eye_fix', 'remove_red_eye', 'fix_red_eye', 'red_eye'],
        type: 'boolean',
        values: [],
        why: 'Eighteen photo clients want the red eyes a flash makes taken out (red eyes, pupils glow red, redeye): a yes/no removal.',
      },
      clients: 18,
      start: 0,
      p: 0.3,
      groups: [{ texts: RED_EYE }],
    },
    {
      gold: {
        id: 'background_color',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['background_color', 'background_colour', 'backdrop_color', 'backdrop_colour', 'background_replacement', 'new_background'],
        type: 'string',
        values: ['white', 'grey', 'black', 'transparent'],
        value_aliases: { white: ['blanco', 'weiss', 'whte'], grey: ['gray', 'grau', 'grauer'], black: ['negro'], transparent: ['transparente', 'none'] },
        why: 'Twenty photo clients want the background replaced by a plain colour (white, grey, black) or made transparent: a string enum (not the base key background_blur).',
      },
      clients: 20,
      start: 1,
      p: 0.3,
      groups: [
        { texts: BG_WHITE, value: 'white', weight: 2 },
        { texts: BG_GREY, value: 'grey', weight: 1 },
        { texts: BG_BLACK, value: 'black', weight: 1 },
        { texts: BG_TRANSPARENT, value: 'transparent', weight: 0.3 },
        { texts: BG_TRANSPARENT, value: 'transparent', from: 12, adopt: 0.4 },
      ],
    },
    {
      gold: {
        id: 'straighten_horizon',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['straighten_horizon', 'horizon_straightening', 'level_horizon', 'horizon_correction', 'horizon_fix', 'tilt_correction'],
        type: 'boolean',
        values: [],
        why: 'Fifteen photo clients say the horizon or skyline is tilted and want it levelled: a yes/no correction.',
      },
      clients: 15,
      start: 3,
      p: 0.3,
      groups: [{ texts: HORIZON }],
    },
    {
      gold: {
        id: 'affected_customer_count',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['affected_customer_count', 'affected_customers', 'customers_affected', 'impacted_customer_count', 'subscriber_count', 'affected_subscriber_count'],
        type: 'integer',
        values: [],
        why: 'Sixteen NOC clients say how many customers the fault cuts off (subscribers, homes, users, households, lines), counts in digits and words: an integer; not the base key user_complaint_count (complaints are not customers).',
      },
      clients: 16,
      start: 0,
      p: 0.35,
      groups: [{ texts: CUSTOMERS }],
    },
    {
      gold: {
        id: 'mains_power_loss',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['mains_power_loss', 'power_loss', 'power_outage', 'power_failure', 'site_power_down', 'on_backup_power'],
        type: 'boolean',
        values: [],
        why: 'Fourteen NOC clients say the site has lost its power supply (mains, electricity, grid, AC supply, blackout): a yes/no flag.',
      },
      clients: 14,
      start: 1,
      p: 0.4,
      groups: [{ texts: POWER }],
    },
    {
      gold: {
        id: 'equipment_vendor',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['equipment_vendor', 'vendor', 'manufacturer', 'equipment_manufacturer', 'device_vendor', 'hardware_vendor'],
        type: 'string',
        values: ['nokia', 'ericsson', 'huawei', 'cisco'],
        value_aliases: { ericsson: ['ericson'] },
        why: 'Fourteen NOC clients name the maker of the equipment at the faulty site (Nokia, Ericsson, Huawei, Cisco): a string enum of vendors.',
      },
      clients: 14,
      start: 2,
      p: 0.4,
      groups: [
        { texts: NOKIA, value: 'nokia', weight: 1.5 },
        { texts: ERICSSON, value: 'ericsson', weight: 1.5 },
        { texts: HUAWEI, value: 'huawei', weight: 1 },
        { texts: CISCO, value: 'cisco', weight: 1 },
      ],
    },
  ],
  personal: [
    {
      gold: {
        id: 'personal:keep_freckles',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-frk1e5',
        acceptable_names: ['keep_freckles', 'preserve_freckles', 'freckle_retention', 'no_freckle_removal'],
        type: 'boolean',
        values: [],
        why: 'One client asks 4-6 times a day for nine days that the freckles stay: a per-client key; no global key.',
      },
      client: 'agent-frk1e5',
      start: 5,
      end: 13,
      perDay: [4, 6],
      texts: FRECKLES,
    },
    {
      gold: {
        id: 'personal:weekly_pdf_summary',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-pdf9w2',
        acceptable_names: ['weekly_pdf_summary', 'pdf_summary', 'weekly_summary', 'weekly_pdf_report', 'pdf_report'],
        type: 'boolean',
        values: [],
        why: 'One NOC asks 5-7 times a day for eight days for a weekly PDF summary: a per-client boolean key.',
      },
      client: 'agent-pdf9w2',
      start: 16,
      end: 23,
      perDay: [5, 7],
      texts: WEEKLY_PDF,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:baby_food_security',
        scenario: f,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: "One client's assistant relays a question about baby food at security 36 times in 40 minutes on day 9 (shares 'baby' with infant_count): no global key; a per-client trigger is acceptable.",
      },
      client: 'agent-bbf00d',
      day: 9,
      hourUtc: 14.5,
      count: 36,
      minutes: 40,
      texts: BABY_FOOD,
    },
    {
      gold: {
        id: 'burst:upload_stuck',
        scenario: p,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One client relays a stuck upload 30 times in 35 minutes on day 17: no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-upl099',
      day: 17,
      hourUtc: 20.1,
      count: 30,
      minutes: 35,
      texts: UPLOAD,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
