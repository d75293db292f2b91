/**
 * dev-8: a validation stream for key names, types and enum values (draft-zhou §6.2), written before the naming changes
 * it checks and scored once before any code change. Thirty days of `other` fragments over the three seeded scenarios
 * with needs none of dev-1 to dev-7, parley-dev or bench/data/stream.jsonl has: the musical instrument a passenger
 * brings, a child's age, the city of a stopover, the material of a print's frame, the shape of a crop, a watermark,
 * the weekday a technician may come, a site running on its generator, the floor of a fault. Four choices are said
 * in several words and languages (instrument, frame, crop shape, weekday); the stopover city is said by proper nouns
 * and is free text, not a flag per city. Each need's phrasings were written by hand and share few words; values sit
 * inside sentences, some misspelled. schedule.ts only decides who sends which one when (seeded). `npx tsx <this file>`
 * rewrites both files.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const INSTR_GUITAR = ['I am travelling with my guitar, can it come in the cabin', 'bringing an acoustic guitar as hand luggage', 'llevo mi guitarra, ¿puede ir conmigo?', 'meine Gitarre muss mit an Bord', 'my gitar case is 105 cm long'];
const INSTR_CELLO = ['the cello needs its own seat next to me', 'I play in an orchestra and carry a cello', 'un violoncelle voyage avec moi', 'Cello im Kabinensitz bitte', 'booking an extra place for my chello'];
const INSTR_VIOLIN = ['a violin in a small case, overhead bin ok?', 'I carry my fiddle with me, it is fragile', 'viaje con mi violín', 'Geige als Handgepäck', 'my vilin must not go in the hold'];
const INSTR_DRUM = ['I have a snare drum to bring along', 'carrying a set of bongos on the trip', 'je transporte un tambour', 'Trommel im Gepäck, geht das', 'a small djembe drum, is that allowed', 'two drumms for the band'];

const CHILD_AGE = [
  'my son is 7 years old',
  'the kid is four, does she pay full fare',
  'our daughter turns nine next month, she is 8 now',
  'child aged 3 travelling with us',
  'mi hija tiene 6 años',
  'der Junge ist zehn Jahre alt',
  'the little one is two and a half',
  'my boy, age 11, flies with me',
  'she is 5 yrs, needs a kids meal',
];

const STOPOVER = [
  'I would like a stopover in Dubai for two days',
  'can we break the journey in Singapore',
  'a layover in Istanbul long enough to see the city',
  'stop in Doha on the way, one night',
  'quiero hacer escala en Lisboa',
  'Zwischenstopp in Reykjavik bitte',
  'spend a night in Hong Kong between the flights',
  'stoppover at Helsinki if possible',
  'route me through Abu Dhabi and let me stay a day',
];

const FRAME_WOOD = ['put the print in a wooden frame', 'oak frame please, natural finish', 'marco de madera', 'Holzrahmen bitte', 'a walnut woden frame for the portrait'];
const FRAME_METAL = ['a thin metal frame, black', 'brushed aluminium frame for the print', 'cadre en métal', 'Metallrahmen in Silber', 'alumnium frame like last time'];
const FRAME_ACRYLIC = ['mount it behind acrylic glass', 'perspex face mount, frameless', 'acrílico, sin marco', 'hinter Acrylglas bitte', 'acrylick block print'];

const CROP_SQUARE = ['crop it square for the profile', 'make the picture 1 by 1, a square', 'recorte cuadrado', 'quadratisch zuschneiden', 'sqaure crop please'];
const CROP_CIRCLE = ['cut the portrait into a circle', 'a round crop for the avatar', 'recorte circular', 'rund ausschneiden bitte', 'circel shape for the badge'];
const CROP_OVAL = ['an oval crop like an old cameo', 'crop to an ellipse around her face', 'recadrage ovale', 'ovaler Ausschnitt', 'ovall vignette shape'];

const WATERMARK = [
  'add our studio watermark in the corner',
  'stamp the copyright mark on every image',
  'put a faint logo overlay so nobody steals them',
  'marca de agua en todas las fotos',
  'Wasserzeichen unten rechts bitte',
  'protect the previews with a semi transparent text',
  'watermakr with our name please',
  '给每张照片加水印',
];

const DAY_MONDAY = ['the engineer can only come on Monday', 'send someone monday morning', 'el lunes es mejor', 'am Montag bitte', 'mondey visit works for the landlord'];
const DAY_WEDNESDAY = ['wednesday is the only day the gate is open', 'midweek visit, so Wednesday', 'el miércoles', 'Mittwoch passt', 'wensday only'];
const DAY_FRIDAY = ['come on friday please', 'the building manager is there fridays', 'le vendredi uniquement', 'am Freitag', 'fryday before noon'];
const DAY_SATURDAY = ['weekend work, saturday', 'the shop is closed so saturday is best', 'el sábado', 'Samstag geht', 'saterday visit ok'];

const GENERATOR = [
  'the site is on the diesel generator now',
  'backup genset is running, fuel for 6 hours',
  'running on generator power since the blackout',
  'el grupo electrógeno está funcionando',
  'Notstromaggregat läuft',
  'the emergency generator kicked in',
  'generater on, please send fuel',
  'powered by the standby engine at the moment',
];

const FLOOR = [
  'the switch room is on the 3rd floor',
  'fault on floor 12 of the tower',
  'second floor comms cupboard',
  'the rack sits in the basement, level -1',
  'planta 4, sala de equipos',
  'im fünften Stock',
  'ground floor cabinet, floor 0',
  'flor 7, near the lifts',
  'equipment on level six',
];

const ETICKET_ASSISTANT = ['also send the e-ticket to my assistant', 'cc my PA on the ticket email', 'forward the booking to my assistant as always'];
const CALL_MOBILE = ['call my mobile, not the desk phone', 'reach me on my cell for this one', 'phone me on the mobile number again'];
const PREVIEW_BROKEN = ['the previews will not load', 'preview images broken again', 'cannot see any preview', 'thumbnails still blank'];

const NOISE_FLIGHT = [
  'my guitar teacher flies with another airline',
  'the child seat at the rental was dirty',
  'we visited Dubai last year',
  'is the stopover lounge open at night',
  'how old is this plane',
  'the drum of the washing machine broke at home',
  'I am 7 minutes late, sorry',
  'a violin concert on board would be nice',
  'thanks, all good',
  'Singapore airport has a nice garden',
];

const NOISE_PHOTO = [
  'the wooden table in the shot is fine',
  'square dance photos from the party',
  'your watermark on the invoice is odd',
  'a round of applause for the team',
  'the metal band photos are due tomorrow',
  'oval office style portrait background',
  'love the colours',
  'frame rate of the video is low',
  'what time do you close',
  'acrylic paint on the wall behind her',
];

const NOISE_FAULT = [
  'monday meeting moved to 10',
  'the report generator crashed',
  'friday drinks in the NOC',
  'floor cleaning in the corridor',
  'saturday shift swap with Ana',
  'the diesel price went up again',
  'second coffee of the day',
  'level 3 support called',
  'who has the van keys',
  'wednesday training is cancelled',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

const recurringFlight: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'instrument_type',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['instrument_type', 'musical_instrument', 'instrument', 'instrument_kind', 'carried_instrument', 'musical_instrument_type'],
      type: 'string',
      values: ['guitar', 'cello', 'violin', 'drum'],
      value_aliases: { guitar: ['gitarre', 'guitarra', 'gitar', 'acoustic_guitar'], cello: ['violoncelle', 'chello'], violin: ['fiddle', 'violin', 'geige', 'vilin'], drum: ['snare_drum', 'bongo', 'bongos', 'tambour', 'trommel', 'djembe', 'drumm', 'drumms'] },
      why: 'Twenty booking clients bring a musical instrument (guitar, cello, violin, drum; drums common from day 12), in several words and languages: a string enum, not one flag per instrument.',
    },
    clients: 20,
    start: 0,
    p: 0.3,
    groups: [
      { texts: INSTR_GUITAR, value: 'guitar', weight: 2 },
      { texts: INSTR_CELLO, value: 'cello', weight: 1.5 },
      { texts: INSTR_VIOLIN, value: 'violin', weight: 1.5 },
      { texts: INSTR_DRUM, value: 'drum', weight: 0.3 },
      { texts: INSTR_DRUM, value: 'drum', from: 12, adopt: 0.35 },
    ],
  },
  {
    gold: {
      id: 'child_age',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['child_age', 'child_age_years', 'age', 'kid_age', 'age_years', 'passenger_age'],
      type: 'integer',
      values: [],
      why: 'Eighteen booking clients say how old the child travelling with them is (7 years old, four, seis años): an integer.',
    },
    clients: 18,
    start: 1,
    p: 0.3,
    groups: [{ texts: CHILD_AGE }],
  },
  {
    gold: {
      id: 'stopover_city',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['stopover_city', 'layover_city', 'stopover', 'stopover_location', 'transit_city', 'stopover_destination'],
      type: 'string',
      values: [],
      why: 'Sixteen booking clients want to break the journey in a city (Dubai, Singapore, Istanbul, Doha, ...): free text naming a place, never one flag per city.',
    },
    clients: 16,
    start: 0,
    p: 0.3,
    groups: [{ texts: STOPOVER }],
  },
];

const recurringPhoto: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'frame_material',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['frame_material', 'frame_type', 'frame', 'material', 'frame_style', 'mount_type'],
      type: 'string',
      values: ['wood', 'metal', 'acrylic'],
      value_aliases: { wood: ['wooden', 'oak', 'walnut', 'madera', 'holzrahmen', 'woden'], metal: ['aluminium', 'aluminum', 'metallrahmen', 'alumnium'], acrylic: ['perspex', 'acrylglas', 'acrilico', 'acrylick', 'acrylic_glass'] },
      why: 'Twenty photo clients say what frame the print gets (wood, metal, acrylic; acrylic common from day 13), in several words and languages: a string enum.',
    },
    clients: 20,
    start: 0,
    p: 0.3,
    groups: [
      { texts: FRAME_WOOD, value: 'wood', weight: 2 },
      { texts: FRAME_METAL, value: 'metal', weight: 2 },
      { texts: FRAME_ACRYLIC, value: 'acrylic', weight: 0.3 },
      { texts: FRAME_ACRYLIC, value: 'acrylic', from: 13, adopt: 0.4 },
    ],
  },
  {
    gold: {
      id: 'crop_shape',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['crop_shape', 'shape', 'crop_type', 'crop_style', 'shape_type', 'crop'],
      type: 'string',
      values: ['square', 'circle', 'oval'],
      value_aliases: { square: ['sqaure', 'quadratisch', 'cuadrado'], circle: ['round', 'circular', 'rund', 'circel'], oval: ['ellipse', 'ovale', 'ovaler', 'ovall'] },
      why: 'Sixteen photo clients say what shape to crop to (square, circle, oval): a string enum.',
    },
    clients: 16,
    start: 0,
    p: 0.3,
    groups: [
      { texts: CROP_SQUARE, value: 'square', weight: 2 },
      { texts: CROP_CIRCLE, value: 'circle', weight: 1.5 },
      { texts: CROP_OVAL, value: 'oval', weight: 1 },
    ],
  },
  {
    gold: {
      id: 'add_watermark',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['add_watermark', 'watermark', 'needs_watermark', 'wants_watermark', 'apply_watermark', 'copyright_watermark'],
      type: 'boolean',
      values: [],
      why: 'Fifteen photo clients want a watermark on their images (watermark, copyright mark, logo overlay, marca de agua): a yes/no flag.',
    },
    clients: 15,
    start: 2,
    p: 0.3,
    groups: [{ texts: WATERMARK }],
  },
];

const recurringFault: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'visit_day',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['visit_day', 'preferred_visit_day', 'weekday', 'visit_weekday', 'preferred_day', 'access_day'],
      type: 'string',
      values: ['monday', 'wednesday', 'friday', 'saturday'],
      value_aliases: { monday: ['lunes', 'montag', 'mondey'], wednesday: ['miercoles', 'mittwoch', 'wensday', 'midweek'], friday: ['fridays', 'vendredi', 'freitag', 'fryday'], saturday: ['sabado', 'samstag', 'saterday', 'weekend'] },
      why: 'Sixteen NOC clients say on which weekday a technician may visit (Monday, Wednesday, Friday, Saturday), in several languages: a string enum.',
    },
    clients: 16,
    start: 0,
    p: 0.35,
    groups: [
      { texts: DAY_MONDAY, value: 'monday', weight: 1.5 },
      { texts: DAY_WEDNESDAY, value: 'wednesday', weight: 1 },
      { texts: DAY_FRIDAY, value: 'friday', weight: 1.5 },
      { texts: DAY_SATURDAY, value: 'saturday', weight: 1 },
    ],
  },
  {
    gold: {
      id: 'on_generator',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['on_generator', 'generator_running', 'generator_power', 'on_backup_power', 'backup_generator', 'running_on_generator'],
      type: 'boolean',
      values: [],
      why: 'Fourteen NOC clients report the site running on its generator (diesel generator, genset, standby engine): a yes/no flag.',
    },
    clients: 14,
    start: 0,
    p: 0.35,
    groups: [{ texts: GENERATOR }],
  },
  {
    gold: {
      id: 'floor_number',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['floor_number', 'floor', 'affected_floor', 'floor_level', 'level', 'building_floor'],
      type: 'integer',
      values: [],
      why: 'Fourteen NOC clients say on which floor the faulty equipment is (3rd floor, floor 12, level -1, ground floor): an integer.',
    },
    clients: 14,
    start: 1,
    p: 0.35,
    groups: [{ texts: FLOOR }],
  },
];

export const spec: StreamSpec = {
  name: 'dev-8',
  seed: 28117,
  start: '2026-04-06',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [...recurringFlight, ...recurringPhoto, ...recurringFault],
  personal: [
    {
      gold: {
        id: 'personal:eticket_to_assistant',
        scenario: f,
        kind: 'personal',
        expect: 'client:agent-pa7e21',
        acceptable_names: ['eticket_to_assistant', 'cc_assistant', 'send_to_assistant', 'copy_assistant'],
        type: 'boolean',
        values: [],
        why: 'One client asks 4-6 times a day for nine days that the e-ticket also go to an assistant: a per-client key; no global key.',
      },
      client: 'agent-pa7e21',
      start: 6,
      end: 14,
      perDay: [4, 6],
      texts: ETICKET_ASSISTANT,
    },
    {
      gold: {
        id: 'personal:call_mobile',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-mob442',
        acceptable_names: ['call_mobile', 'contact_by_mobile', 'prefer_mobile', 'mobile_contact'],
        type: 'boolean',
        values: [],
        why: 'One NOC client asks 5-7 times a day for eight days to be called on a mobile: a per-client key; no global key.',
      },
      client: 'agent-mob442',
      start: 17,
      end: 24,
      perDay: [5, 7],
      texts: CALL_MOBILE,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:preview_broken',
        scenario: p,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One photo client relays that previews do not load 36 times in 40 minutes on day 10: no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-prv310',
      day: 10,
      hourUtc: 19.5,
      count: 36,
      minutes: 40,
      texts: PREVIEW_BROKEN,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
