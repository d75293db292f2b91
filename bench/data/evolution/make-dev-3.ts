/**
 * dev-3: a validation stream for the rule inducer, written before the naming changes it is used to check and never
 * tuned on. Thirty days of `other` fragments over the three seeded scenarios with needs none of dev-1, dev-2,
 * parley-dev or bench/data/stream.jsonl has (seats together, stop limits, trip purpose, photo batch sizes,
 * turnaround days, glare on glasses, affected regions, technician dispatch, weather as the cause). Every phrasing was
 * written by hand; schedule.ts only decides who sends which one when (seeded). Several intents are said with
 * different nouns for one concept (storm / rain / lightning; photos / pictures / shots / images), so a name must come
 * from what the fragments share, not from the most frequent word. `npx tsx <this file>` rewrites both files.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const TOGETHER = [
  'please seat us together, we are a family',
  'we want to sit next to each other',
  'keep our party in adjacent seats',
  'my son is six, he must be beside me on the plane',
  'seats side by side for the two of us',
  'nebeneinander sitzen bitte',
  'asientos juntos por favor',
  '我们要坐在一起',
  'dont split us up, same row please',
  'sit togther with my wife',
  'places côte à côte svp',
];

const STOPS = [
  'at most one stop on the way',
  'no more than 1 stopover please',
  'two stops max, I do not mind',
  'one layover is fine but not more',
  'max 2 connections',
  'höchstens ein Zwischenstopp',
  'máximo una escala',
  'I can live with a single stop',
  'only one stoppover, I hate airports',
  '最多转机一次',
];

const BUSINESS = ['this is a business trip', 'travelling for work, a client meeting', 'work trip, company pays', 'viaje de negocios', 'Geschäftsreise', 'buisness travel for a conference'];
const HOLIDAY = ['we are going on holiday', 'vacation with the kids', 'a leisure trip, nothing urgent', 'vacaciones en la playa', 'Urlaub mit der Familie', 'holliday in the sun'];
const FAMILY = ['visiting family for the wedding', 'going home to see my parents', 'family visit, grandma turns ninety', 'visita familiar'];

const PHOTO_COUNT = [
  'I am sending 40 photos from the wedding',
  'a batch of twelve pictures this time',
  'there are 25 images in the folder',
  'about thirty shots to edit',
  'only three photographs today',
  'ich schicke 15 Bilder',
  'son 18 fotos en total',
  '一共二十张照片',
  'sixty pics from the trip',
  'I uploaded 8 foto files',
  '写真は10枚です',
];

const TURNAROUND = [
  'I need them back within 3 days',
  'deliver in five days please',
  'can you finish in two days',
  'ready in 7 days at the latest',
  'no rush, ten days is fine',
  'in 4 Tagen fertig',
  'entrega en dos días',
  '三天内交付',
  'turn around in 1 day, urgent',
  'done withn six days',
];

const GLARE = [
  'my glasses reflect the flash, please fix it',
  'remove the glare on his spectacles',
  'there is a reflection in her eyeglasses',
  'the lenses of my specs shine white',
  'get rid of the light bouncing off the glasses',
  'Spiegelung in der Brille entfernen',
  'quitar el reflejo de las gafas',
  '眼镜反光去掉',
  'glasess have a big glare spot',
  'reflections on the spectacle lenses ruin it',
];

const NORTH = ['the outage is in the north region', 'northern area affected', 'north cluster sites are down', 'Region Nord'];
const SOUTH = ['south region only', 'problems in the southern zone', 'all southern sites', 'zona sur'];
const EAST = ['east region, near the river', 'eastern sites are flapping', 'it is the east cluster again'];
const WEST = ['west region is hit', 'western area customers', 'the west zone'];

const DISPATCH = [
  'send a technician to the site',
  'we need an engineer on site today',
  'truck roll required',
  'dispatch a field tech please',
  'someone has to go out there and check the cabinet',
  'Techniker vor Ort schicken',
  'enviar un técnico al sitio',
  '派工程师去现场',
  'get a technican out to the tower',
  'field visit needed, remote fix failed',
];

const WEATHER = [
  'probably caused by the storm last night',
  'heavy rain flooded the cabinet',
  'lightning hit the mast',
  'strong winds took the antenna down',
  'snow on the dish, weather related',
  'Sturmschaden am Mast',
  'daños por tormenta',
  '暴雨导致',
  'the thunderstrom knocked it out',
  'ice on the lines after the freezing rain',
];

const CMYK = ['export in CMYK for my printer', 'CMYK please, it goes to print', 'convert to CMYK again', 'CMYK colour profile like always'];
const CC_LEAD = ['cc the shift lead on every update', 'copy the shift lead please', 'shift lead in copy, as always', 'add the shift lead to the mail'];

const SEATMAP = ['seat map not loading', 'the seat map is still blank', 'seat map broken??', 'cannot see the seat map', 'seat map empty again'];

const NOISE_FLIGHT = [
  'the stop at the duty free was nice',
  'my business card is in the envelope',
  'is there a bus stop near the terminal',
  'we sat together last time and it was great',
  'holiday pictures from last year are on my phone',
  'what is the family name field for',
  'how many stops does the airport train make',
  'the seat was broken on my last flight',
  'next to the gate there is a cafe',
  'my work laptop is heavy',
  'is the lounge open on sundays',
  'I lost my boarding pass',
  'can I change the email address',
  'the row numbers confuse me',
  'the weather in Rome is lovely',
];

const NOISE_PHOTO = [
  'my glasses broke yesterday',
  'the photos from the wedding look amazing',
  'how many days does shipping take',
  'what is the best lens for portraits',
  'the folder is called summer',
  'my friend wants a discount too',
  'I shot these on film',
  'the flash on my phone is weak',
  'can I pay by invoice',
  'the reflection of the lake is beautiful, keep it',
  'I will send more pictures next week maybe',
  'my printer is offline',
  'are you open on holidays',
  'thanks for the quick work',
  'the last batch was perfect',
];

const NOISE_FAULT = [
  'the north office coffee machine is broken',
  'weather forecast says sun tomorrow',
  'technician training is on friday',
  'the storm drain outside the office is blocked',
  'east wing door code changed',
  'send the report to the regional manager',
  'the truck needs new tyres',
  'south team lunch at noon',
  'is the site survey done',
  'engineers meeting moved to 3pm',
  'the rain gauge dashboard is for the farm customer',
  'our west coast vendor called',
  'password expired again',
  'who approved the change',
  'ticket closed by mistake',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

export const spec: StreamSpec = {
  name: 'dev-3',
  seed: 40917,
  start: '2026-08-03',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [
    {
      gold: {
        id: 'seats_together',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['seats_together', 'sit_together', 'seat_together', 'adjacent_seats', 'seat_party_together', 'keep_party_together'],
        type: 'boolean',
        values: [],
        why: 'Twenty booking clients want their party seated next to each other, with "together", "next to", "adjacent", "beside", "side by side": one yes/no need.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [{ texts: TOGETHER }],
    },
    {
      gold: {
        id: 'max_stops',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['max_stops', 'max_stop_count', 'stop_count', 'max_stopovers', 'stopover_count', 'max_connections', 'stops'],
        type: 'integer',
        values: [],
        why: 'Eighteen clients cap the number of stops ("at most one stop", "two stops max", "a single stop"), with stop, stopover, layover, connection: an integer.',
      },
      clients: 18,
      start: 1,
      p: 0.3,
      groups: [{ texts: STOPS }],
    },
    {
      gold: {
        id: 'trip_purpose',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['trip_purpose', 'travel_purpose', 'trip_type', 'travel_type', 'trip_reason', 'purpose'],
        type: 'string',
        values: ['business', 'holiday', 'family'],
        value_aliases: { business: ['work', 'negocios', 'buisness'], holiday: ['vacation', 'leisure', 'holliday', 'vacaciones'], family: ['family_visit', 'visit', 'visiting'] },
        why: 'Twenty clients say why they travel (business, holiday, visiting family); family visits are rare until day 12: a string enum.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [
        { texts: BUSINESS, value: 'business', weight: 2 },
        { texts: HOLIDAY, value: 'holiday', weight: 2 },
        { texts: FAMILY, value: 'family', weight: 0.3 },
        { texts: FAMILY, value: 'family', from: 12, adopt: 0.4 },
      ],
    },
    {
      gold: {
        id: 'photo_count',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['photo_count', 'image_count', 'picture_count', 'number_of_photos', 'batch_size', 'photo_batch_size'],
        type: 'integer',
        values: [],
        why: 'Twenty photo clients say how many pictures they send, calling them photos, pictures, images, shots, pics: an integer count.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [{ texts: PHOTO_COUNT }],
    },
    {
      gold: {
        id: 'turnaround_days',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['turnaround_days', 'delivery_days', 'deadline_days', 'max_delivery_days', 'turnaround_time_days', 'due_in_days'],
        type: 'integer',
        values: [],
        why: 'Sixteen clients say within how many days they need the work back ("within 3 days", "in five days"): an integer number of days.',
      },
      clients: 16,
      start: 2,
      p: 0.3,
      groups: [{ texts: TURNAROUND }],
    },
    {
      gold: {
        id: 'glasses_glare_removal',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['glasses_glare_removal', 'glare_removal', 'reflection_removal', 'remove_glare', 'glasses_reflection_removal', 'remove_reflections'],
        type: 'boolean',
        values: [],
        why: 'Fifteen clients want the reflection on eyeglasses taken out (glasses / spectacles / specs; glare / reflection / shine): a yes/no removal.',
      },
      clients: 15,
      start: 3,
      p: 0.3,
      groups: [{ texts: GLARE }],
    },
    {
      gold: {
        id: 'affected_region',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['affected_region', 'region', 'network_region', 'outage_region', 'service_region', 'area'],
        type: 'string',
        values: ['north', 'south', 'east', 'west'],
        value_aliases: { north: ['northern', 'nord'], south: ['southern', 'sur'], east: ['eastern'], west: ['western'] },
        why: 'Sixteen NOC clients say which region of the network is hit (north, southern zone, east cluster): a string enum over four regions.',
      },
      clients: 16,
      start: 0,
      p: 0.35,
      groups: [
        { texts: NORTH, value: 'north', weight: 1.5 },
        { texts: SOUTH, value: 'south', weight: 1.5 },
        { texts: EAST, value: 'east', weight: 1 },
        { texts: WEST, value: 'west', weight: 1 },
      ],
    },
    {
      gold: {
        id: 'technician_dispatch',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['technician_dispatch', 'dispatch_technician', 'needs_technician', 'send_technician', 'onsite_visit', 'field_dispatch', 'truck_roll'],
        type: 'boolean',
        values: [],
        why: 'Fourteen NOC clients ask for someone to go to the site (technician, engineer, field tech, truck roll): a yes/no need.',
      },
      clients: 14,
      start: 1,
      p: 0.4,
      groups: [{ texts: DISPATCH }],
    },
    {
      gold: {
        id: 'weather_related',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['weather_related', 'weather_cause', 'weather_damage', 'caused_by_weather', 'weather_impact'],
        type: 'boolean',
        values: [],
        why: 'Thirteen NOC clients say the fault is the weather, naming storms, rain, lightning, wind, snow or ice: the shared concept is weather, a yes/no flag.',
      },
      clients: 13,
      start: 2,
      p: 0.4,
      groups: [{ texts: WEATHER }],
    },
  ],
  personal: [
    {
      gold: {
        id: 'personal:cmyk_export',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-cmyk07',
        acceptable_names: ['cmyk_export', 'cmyk', 'cmyk_output', 'color_profile', 'export_cmyk'],
        type: 'boolean',
        values: [],
        why: 'One print shop asks 4-6 times a day for nine days that files come back in CMYK: a per-client key; no global key.',
      },
      client: 'agent-cmyk07',
      start: 6,
      end: 14,
      perDay: [4, 6],
      texts: CMYK,
    },
    {
      gold: {
        id: 'personal:copy_shift_lead',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-sl9cc2',
        acceptable_names: ['copy_shift_lead', 'cc_shift_lead', 'notify_shift_lead', 'shift_lead_in_copy'],
        type: 'boolean',
        values: [],
        why: 'One NOC asks 5-7 times a day for eight days that its shift lead is copied on updates: a per-client boolean key.',
      },
      client: 'agent-sl9cc2',
      start: 15,
      end: 22,
      perDay: [5, 7],
      texts: CC_LEAD,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:seat_map_broken',
        scenario: f,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: "One client's assistant relays a broken seat map 38 times in 45 minutes on day 11 (shares 'seat' with seats_together): no global key; a per-client trigger is acceptable.",
      },
      client: 'agent-s3atmp',
      day: 11,
      hourUtc: 9.2,
      count: 38,
      minutes: 45,
      texts: SEATMAP,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
