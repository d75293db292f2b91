/**
 * dev-7: a validation stream for key names, types and enum values (draft-zhou §6.2), written before the changes it
 * checks and scored once before any code change. Thirty days of `other` fragments over the three seeded scenarios
 * with needs none of dev-1 to dev-6, parley-dev or bench/data/stream.jsonl has: the hotel room to book with the flight,
 * how many hotel nights, lounge access, the season a photo should look like, how many alternative versions to send,
 * a brand logo to hide, what caused an outage, the radio cells a fault touches, the hours a site may be entered. Three
 * choices are said in several words and languages (room, season, cause). Each need's phrasings were written by hand
 * and share few words; values sit inside sentences, some misspelled. schedule.ts only decides who sends which one when
 * (seeded). `npx tsx <this file>` rewrites both files.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const ROOM_SINGLE = ['a single room at the hotel please', 'one single bedroom for me', 'habitación individual, por favor', 'Einzelzimmer bitte', 'just a singel room, I travel alone'];
const ROOM_DOUBLE = ['a double room with one big bed', 'we want a double bedroom', 'chambre double pour nous deux', 'Doppelzimmer mit Ehebett', 'dubble room for the couple'];
const ROOM_TWIN = ['a twin room, two separate beds', 'two single beds in one room for my colleague and me', 'habitación con dos camas', 'Zweibettzimmer bitte', 'twinn room for the kids'];
const ROOM_SUITE = ['book a suite for the director', 'a junior suite if available', 'une suite avec salon', 'Suite mit Meerblick', 'sweet suite for the honeymoon, the suit upgrade'];

const NIGHTS = [
  'hotel for three nights near the venue',
  'I need to stay 2 nights in Lisbon',
  'accommodation for five nights please',
  'we stay four nites after the conference',
  'add a hotel, one night only',
  'dos noches de hotel',
  'Hotel für 3 Nächte',
  'book 6 nights at the airport hotel',
  'a stay of seven nights, the whole week',
];

const LOUNGE = [
  'add lounge access to my ticket',
  'I want to wait in the business lounge',
  'can I get into the VIP lounge before boarding',
  'include a lounge pass please',
  'acceso a la sala VIP',
  'mit Lounge-Zugang bitte',
  'lounge entry for both of us',
  'a quiet place to wait at the gate, the lounge, is a must',
  'loungue access needed',
];

const SEASON_AUTUMN = ['make it look like autumn', 'give the park fall colours, orange leaves', 'una versión otoñal', 'herbstliche Stimmung bitte', 'autum tones on the trees'];
const SEASON_WINTER = ['turn the scene into winter with snow', 'a snowy wintry version', 'paisaje de invierno', 'winterlich mit Schnee', 'wintr look, frost on the grass'];
const SEASON_SPRING = ['a spring look with blossoms', 'add cherry blossom, springtime feel', 'ambiance printanière', 'primavera, flores en los árboles', 'sprng greenery please'];
const SEASON_SUMMER = ['make it feel like summer, bright sun', 'a summery version, lush and green', 'verano, mucho sol', 'sommerlich bitte', 'sumer vibe for the brochure'];

const VARIANTS = [
  'send me three versions to choose from',
  'I would like 2 alternative edits',
  'give us four variants of the retouch',
  'a couple of options, so two drafts',
  'prepare 5 different takes please',
  'drei Varianten bitte',
  'dos versiones distintas',
  'three varaints of the cover shot',
  'show me 3 alternatives before the final one',
];

const LOGO = [
  'remove the brand logo from his t-shirt',
  'blur the Nike swoosh on the shoes',
  'hide the brand name on the cup',
  'the logo on the bag must go',
  'retouch away any trademarks visible',
  'quitar el logotipo de la camiseta',
  'Markenlogo entfernen bitte',
  '去掉衣服上的商标',
  'no visible brands in the final image',
  'erase the logoo on the cap',
];

const CAUSE_FLOOD = ['the cabinet is under water after the flood', 'water ingress in the basement room', 'inundación en la central', 'Hochwasser im Technikraum', 'floded manhole, cables wet'];
const CAUSE_FIRE = ['fire in the equipment shelter', 'the cables burnt, smoke in the hut', 'incendio en el armario', 'Brand im Schaltschrank', 'fir damage at the site'];
const CAUSE_THEFT = ['copper cables were stolen overnight', 'theft of the batteries at the mast', 'robo de cable en la zona', 'Kabeldiebstahl an der Strecke', 'theif took the rectifiers'];
const CAUSE_VANDAL = ['vandals smashed the street cabinet', 'vandalism at the tower, door forced', 'vandalismo en el armario', 'mutwillig beschädigt, Vandalismus', 'vandalisim again, locks broken'];

const CELLS = [
  'cells LTE-40211 and LTE-40219 are off air',
  'affected cells: LTE-51030, LTE-51034, LTE-51037',
  'sectors LTE-62001 LTE-62002 down',
  'betroffene Zellen LTE-70315, LTE-70318',
  'celdas LTE-81240 y LTE-81244 caídas',
  'also check LTE-90127 and LTE-90131',
  'radio cells LTE-13302, LTE-13309 silent',
  'cels LTE-24410, LTE-24415 no traffic',
];

const ACCESS = [
  'site access only between 08:00 and 17:00',
  'the landlord lets us in from 9 to 12',
  'entry allowed 22:00-06:00, night work only',
  'technicians may visit the roof between 10:00 and 15:00',
  'Zugang nur von 7 bis 16 Uhr',
  'acceso de 08:30 a 13:30',
  'keys available from 6pm until 11pm',
  'acess window 09:00 to 18:00 on weekdays',
];

const QUIET_ROOM = ['room far from the lift, as usual', 'my usual quiet room away from the elevator', 'again a room not next to the lift'];
const CC_MANAGER = ['cc the regional manager on this', 'copy regional manager Ines please', 'keep the regional manager in copy'];
const PORTAL_LOGIN = ['cannot log into the portal', 'portal login fails again', 'login to the portal not working', 'still locked out of the portal'];

const NOISE_FLIGHT = [
  'my room at home is being painted',
  'two nights ago my flight was delayed',
  'the lounge music was too loud last time',
  'is the suite case allowance the same',
  'the hotel breakfast was great',
  'do you have a double points offer',
  'single ticket or return, what is cheaper',
  'thanks for the quick answer',
  'the airport was full of people',
  'twin engines or four on that plane',
];

const NOISE_PHOTO = [
  'the autumn catalogue looks good',
  'we shoot in winter next year',
  'version 2 of your app crashes',
  'your logo on the invoice is blurry',
  'three photographers in our team',
  'spring cleaning of my hard drive',
  'lovely colours, thank you',
  'what is your summer opening time',
  'the brand new camera arrived',
  'options for payment?',
];

const NOISE_FAULT = [
  'fire drill in the office at 3pm',
  'my cell phone battery is dead',
  'the flood of emails today is crazy',
  'theft of my bike outside the NOC',
  'LTE-00000 is the lab cell, ignore',
  'access badge renewal on friday',
  'window cleaning between 8 and 10',
  'coffee machine is broken again',
  'the vandal movie was boring',
  'who has the car keys',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

const recurringFlight: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'room_type',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['room_type', 'hotel_room_type', 'room_preference', 'room', 'bed_type', 'hotel_room'],
      type: 'string',
      values: ['single', 'double', 'twin', 'suite'],
      value_aliases: { single: ['individual', 'einzelzimmer', 'singel'], double: ['doppelzimmer', 'dubble', 'double_room'], twin: ['twinn', 'zweibettzimmer', 'dos_camas', 'twin_room'], suite: ['junior_suite', 'sweet', 'suit'] },
      why: 'Twenty booking clients say which hotel room they want (single, double, twin, suite; suites common from day 12), each in several words and languages: a string enum.',
    },
    clients: 20,
    start: 0,
    p: 0.3,
    groups: [
      { texts: ROOM_SINGLE, value: 'single', weight: 2 },
      { texts: ROOM_DOUBLE, value: 'double', weight: 2 },
      { texts: ROOM_TWIN, value: 'twin', weight: 1 },
      { texts: ROOM_SUITE, value: 'suite', weight: 0.3 },
      { texts: ROOM_SUITE, value: 'suite', from: 12, adopt: 0.35 },
    ],
  },
  {
    gold: {
      id: 'hotel_nights',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['hotel_nights', 'night_count', 'nights', 'stay_nights', 'nights_count', 'hotel_night_count'],
      type: 'integer',
      values: [],
      why: 'Eighteen booking clients say how many hotel nights they need (three nights, 2 nights, dos noches): an integer.',
    },
    clients: 18,
    start: 1,
    p: 0.3,
    groups: [{ texts: NIGHTS }],
  },
  {
    gold: {
      id: 'lounge_access',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['lounge_access', 'needs_lounge', 'wants_lounge', 'lounge', 'lounge_pass', 'needs_lounge_access'],
      type: 'boolean',
      values: [],
      why: 'Sixteen booking clients want lounge access (lounge pass, VIP lounge, sala VIP): a yes/no flag.',
    },
    clients: 16,
    start: 0,
    p: 0.3,
    groups: [{ texts: LOUNGE }],
  },
];

const recurringPhoto: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'season_look',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['season_look', 'season', 'season_type', 'target_season', 'season_style', 'seasonal_look'],
      type: 'string',
      values: ['autumn', 'winter', 'spring', 'summer'],
      value_aliases: { autumn: ['fall', 'otonal', 'herbstliche', 'autum'], winter: ['wintry', 'snowy', 'invierno', 'winterlich', 'wintr'], spring: ['springtime', 'printaniere', 'primavera', 'sprng', 'blossom'], summer: ['summery', 'verano', 'sommerlich', 'sumer'] },
      why: 'Twenty photo clients want a scene to look like a season (autumn, winter, spring, summer; summer common from day 13), in several words and languages: a string enum.',
    },
    clients: 20,
    start: 0,
    p: 0.3,
    groups: [
      { texts: SEASON_AUTUMN, value: 'autumn', weight: 2 },
      { texts: SEASON_WINTER, value: 'winter', weight: 2 },
      { texts: SEASON_SPRING, value: 'spring', weight: 1 },
      { texts: SEASON_SUMMER, value: 'summer', weight: 0.3 },
      { texts: SEASON_SUMMER, value: 'summer', from: 13, adopt: 0.35 },
    ],
  },
  {
    gold: {
      id: 'variant_count',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['variant_count', 'version_count', 'variants', 'alternative_count', 'option_count', 'draft_count'],
      type: 'integer',
      values: [],
      why: 'Sixteen photo clients say how many alternative versions they want (three versions, 2 edits, four variants): an integer.',
    },
    clients: 16,
    start: 0,
    p: 0.3,
    groups: [{ texts: VARIANTS }],
  },
  {
    gold: {
      id: 'logo_removal',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['logo_removal', 'remove_logo', 'hide_logo', 'brand_removal', 'remove_brand', 'hide_brand'],
      type: 'boolean',
      values: [],
      why: 'Fifteen photo clients want brand logos hidden (logo, brand name, trademark, swoosh): a yes/no retouch.',
    },
    clients: 15,
    start: 2,
    p: 0.3,
    groups: [{ texts: LOGO }],
  },
];

const recurringFault: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'outage_cause',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['outage_cause', 'fault_cause', 'cause', 'root_cause', 'damage_cause', 'cause_type'],
      type: 'string',
      values: ['flood', 'fire', 'theft', 'vandalism'],
      value_aliases: { flood: ['water', 'water_ingress', 'inundacion', 'hochwasser', 'floded'], fire: ['burnt', 'smoke', 'incendio', 'brand', 'fir'], theft: ['stolen', 'robo', 'diebstahl', 'kabeldiebstahl', 'theif'], vandalism: ['vandals', 'vandalismo', 'vandalisim', 'smashed'] },
      why: 'Sixteen NOC clients say what caused the outage (flood, fire, theft, vandalism), in several words and languages: a string enum.',
    },
    clients: 16,
    start: 0,
    p: 0.35,
    groups: [
      { texts: CAUSE_FLOOD, value: 'flood', weight: 1.5 },
      { texts: CAUSE_FIRE, value: 'fire', weight: 1 },
      { texts: CAUSE_THEFT, value: 'theft', weight: 1.5 },
      { texts: CAUSE_VANDAL, value: 'vandalism', weight: 1 },
    ],
  },
  {
    gold: {
      id: 'cell_ids',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['cell_ids', 'affected_cell_ids', 'affected_cells', 'cell_list', 'sector_ids'],
      type: 'array',
      items_type: 'string',
      values: [],
      why: 'Fourteen NOC clients list the radio cells a fault touches (LTE-40211, LTE-40219), two or three a fragment: an array of strings.',
    },
    clients: 14,
    start: 0,
    p: 0.35,
    groups: [{ texts: CELLS }],
  },
  {
    gold: {
      id: 'site_access_window',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['site_access_window', 'access_window', 'access_hours', 'site_access_hours', 'visit_window'],
      type: 'string',
      values: [],
      why: 'Fourteen NOC clients say between which hours a site may be entered (08:00 to 17:00, from 9 to 12): a string time window.',
    },
    clients: 14,
    start: 1,
    p: 0.35,
    groups: [{ texts: ACCESS }],
  },
];

export const spec: StreamSpec = {
  name: 'dev-7',
  seed: 97213,
  start: '2026-03-02',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [...recurringFlight, ...recurringPhoto, ...recurringFault],
  personal: [
    {
      gold: {
        id: 'personal:quiet_room',
        scenario: f,
        kind: 'personal',
        expect: 'client:agent-qrm221',
        acceptable_names: ['quiet_room', 'room_away_from_lift', 'away_from_elevator', 'far_from_lift'],
        type: 'boolean',
        values: [],
        why: 'One client asks 4-6 times a day for nine days for a room far from the lift: a per-client key; no global key.',
      },
      client: 'agent-qrm221',
      start: 5,
      end: 13,
      perDay: [4, 6],
      texts: QUIET_ROOM,
    },
    {
      gold: {
        id: 'personal:cc_regional_manager',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-ccm590',
        acceptable_names: ['cc_regional_manager', 'copy_regional_manager', 'notify_regional_manager', 'regional_manager_cc'],
        type: 'boolean',
        values: [],
        why: 'One NOC client asks 5-7 times a day for eight days that the regional manager be copied: a per-client key; no global key.',
      },
      client: 'agent-ccm590',
      start: 16,
      end: 23,
      perDay: [5, 7],
      texts: CC_MANAGER,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:portal_login_failed',
        scenario: m,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One NOC client relays that it cannot log into the portal 38 times in 45 minutes on day 11: no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-lgn503',
      day: 11,
      hourUtc: 9.5,
      count: 38,
      minutes: 45,
      texts: PORTAL_LOGIN,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
