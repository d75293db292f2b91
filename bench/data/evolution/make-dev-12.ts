/**
 * dev-12: the validation stream of round 15 for schema evolution (draft-zhou §6.2), written before tuning by an
 * author who did not read the pool, evolution, embeddings, inducer or scorer code (only the templates, this folder's
 * README, schedule.ts, make-dev-11.ts and dev-11.gold.json for the format, the intent ids of the earlier gold tables
 * to avoid their needs, and draft-zhou §6.2). Thirty days (2027-02-01 to 2027-03-02, the ski season) of `other`
 * fragments over the three seeded scenarios with nine needs none of dev-1 to dev-11 or parley-dev has: the sports
 * gear a traveller brings (a choice; surfboards common only from day 12), a child flying alone, how many days the
 * car stays at the airport car park, removing strangers who walked into the shot, the paper size of the print, the
 * width of the exported image in pixels, how many hours a site can run on its batteries, whether the batteries must
 * be replaced (two DIFFERENT needs sharing the noun "battery"), and the part number of the spare to bring.
 * Three yes/no needs said with varied verbs and nouns; two choices said in different words and languages; two
 * integers with units (in digits and words), one identifier. Two personal needs, one one-client burst sharing
 * "bike" with the sports-gear need, and one-off noise sharing the needs' words. Every phrasing was written by hand;
 * schedule.ts only decides who sends which one when (seeded). `npx tsx <this file>` rewrites both files byte for
 * byte.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const GEAR_SKI = [
  'I am bringing my skis and boots, please add them',
  'ski bag on both legs of the trip',
  'we travel with two snowboards, need them checked in',
  'Skiausrüstung muss mit, ein Skisack',
  'llevo los esquís, añade el equipaje de esquí',
  'スキー板を預けたいです',
  'skiis + poles in one bag',
  'équipement de ski à enregistrer svp',
];
const GEAR_GOLF = [
  'my golf clubs are coming with me',
  'one golf bag as sports luggage',
  'travelling with a set of clubs, the long bag',
  'Golfbag muss mit',
  'llevo la bolsa de golf',
  '高尔夫球包要托运',
  'golf clbs, 1 bag',
];
const GEAR_BIKE = [
  'bringing my bicycle in a bike box',
  'the road bike comes too, it is packed in a case',
  'I have a mountain bike to check in',
  'Fahrrad im Radkoffer, bitte anmelden',
  'viajo con mi bicicleta desmontada',
  '自転車を輪行袋で持っていきます',
  'bycicle in a soft bag, pedals off',
];
const GEAR_SURF = [
  'I have a surfboard with me, 7 foot',
  'board bag with two surf boards',
  'kitesurf board and the kite, as sports equipment',
  'tabla de surf, la llevo en funda',
  'Surfbrett im Boardbag',
  'サーフボードを預けます',
  'surfbord bag, about 2 m long',
];

const UNACCOMPANIED = [
  'my daughter is 9 and will fly alone, she needs someone from the airline with her',
  'the boy travels on his own, please book the escort service',
  'unaccompanied minor, aged eleven',
  'our son goes to his grandma by himself, can crew look after him',
  'kid flying solo, we drop her at the gate and grandpa picks her up',
  'UM service required for a child of 7',
  'unacompanied minor form, who fills it',
  'mein Sohn fliegt allein, bitte Kinderbetreuung buchen',
  'menor no acompañado, tiene diez años',
  '孩子一个人坐飞机，需要陪护服务',
  '子どもが一人で乗ります、付き添いサービスをお願いします',
  'enfant non accompagné, 8 ans',
  'no parent on board, the child is alone, please arrange a chaperone',
];

const PARKING = [
  'I will leave the car at the airport for 10 days',
  'need a parking spot while we are away, 2 weeks',
  'car park at the terminal for seven days please',
  'park my car there from the 3rd, back after five days',
  'parking for 4 nights',
  'book airport parking, three days only',
  'we drive to the airport, the car stays twelve days',
  'pakring for 6 days pls',
  'Parkplatz am Flughafen für 8 Tage',
  'aparcamiento en el aeropuerto, 9 días',
  '空港の駐車場を5日間',
  '机场停车14天',
  'stationnement à l’aéroport pendant une semaine',
  'long stay car park, 21 days, the Asia trip',
];

const PHOTOBOMB = [
  'please remove the strangers walking behind us',
  'a guy photobombed our wedding picture, take him out',
  'get rid of the tourists in the back',
  'erase the people in the background, just us on the beach',
  'someone walked into the shot on the left, delete him',
  'clean out the crowd behind the couple',
  'remve the random ppl behind me',
  'quita a la gente que pasa por detrás',
  'bitte die fremden Leute im Hintergrund wegretuschieren',
  'enlevez les passants derrière nous',
  '把后面的路人P掉',
  '後ろの通行人を消してください',
  'that lady in the red coat ruins it, can she disappear',
  'the kids running around behind the bride, wipe them',
];

const PAPER_A4 = [
  'print it on A4',
  'standard letter-ish size, A4 please',
  'DIN A4 Ausdruck',
  'tamaño A4',
  'A4サイズで印刷',
  'a-4 paper is fine',
];
const PAPER_A3 = [
  'A3 for the wall',
  'make the print A3, it goes in the hallway',
  'large: A3',
  'format A3 svp',
  '打印A3尺寸',
  'a3 sheet pls, double the a4',
];
const PAPER_10X15 = [
  'small prints, 10x15',
  'postcard size, 4x6 inch',
  '10 x 15 cm like the old albums',
  'Fotoformat 10x15',
  'tamaño postal 10x15',
  '4x6 prints for the frame on my desk',
];
const PAPER_20X30 = [
  '20x30 cm please',
  'an 8x12 inch print',
  'Abzug in 20 x 30',
  '20×30のプリントで',
  'mid size, 20 by 30',
  'tirage 20x30',
];

const WIDTH = [
  'export it 1080 pixels wide for instagram',
  'width 2048 px please',
  'make it two thousand pixels across',
  'the website needs images 1200px wide',
  'resize to 800 pixels in width, height can follow',
  'max width: 3840',
  'our CMS wants 1600 px width',
  'please scale to 640 pixel wide for the newsletter',
  'Breite 1920 Pixel',
  'ancho de 1500 píxeles',
  '横幅1280ピクセルにしてください',
  '宽度1024像素',
  'largeur 2400 px svp',
  'widht 1000px',
];

const BACKUP_HOURS = [
  'site is on batteries now, about 4 hours of autonomy left',
  'the battery bank will hold for roughly six hours',
  'backup runs out in 2 hours, hurry',
  'UPS says three hours remaining',
  'the cells give us maybe 8 hours before it goes dark',
  'autonomy on DC is ten hours according to the rectifier',
  'baterry backup lasts 5 hours max',
  'noch etwa 3 Stunden Batteriebetrieb',
  'las baterías aguantan unas 6 horas',
  '电池还能撑4个小时',
  'バッテリーはあと2時間もちます',
  'autonomie batterie de 12 heures',
  'we are running on batteries, 1 hour left at most',
];

const BATTERY_SWAP = [
  'the batteries are swollen, they need replacing',
  'bring new batteries, the old string is dead',
  'battery bank failed the load test, swap it',
  'replace the backup cells, they are eight years old',
  'the accus are leaking acid, change them',
  'new batery set needed at the cabinet',
  'Batterien sind kaputt, bitte tauschen',
  'hay que cambiar las baterías, están hinchadas',
  '电池鼓包了，需要更换',
  'バッテリー交換が必要です',
  'remplacer les batteries, elles ne tiennent plus la charge',
  'the 48V string won’t hold charge anymore, new one please',
];

const PART_NO = [
  'bring spare part 3HE04824AA, the card is dead',
  'we need an SFP-10G-LR to swap the optic',
  'replacement PSU, part no. PWR-C1-715WAC',
  'order the fan tray FAN-T1-R',
  'the faulty board is a 02310JFB, get one from the depot',
  'spare: 1AB378770013',
  'Ersatzteil 3JR20051AB mitbringen',
  'repuesto número 02312ABC',
  '备件编码 03030QXN',
  '部品番号 NE-40E-LPU-51 を持ってきて',
  'pièce de rechange 3FE49383AA',
  'prat number is SFP-25G-SR, two of them',
  'take the module X2-10GB-LR from stock',
];

const NO_OVERNIGHT = [
  'no overnight flights for me, I cannot sleep on planes',
  'avoid red-eyes please',
  'nothing that departs after 10 pm and lands in the morning',
  'daytime flights only, no night flying',
  'skip the late night departures',
];
const SEPIA_COPY = [
  'also send me a sepia version of each photo',
  'one extra copy in sepia please',
  'add a brownish old-style copy too',
  'plus a sepia duplicate as usual',
];
const BIKE_BURST = [
  'my bike box did not arrive at baggage claim',
  'still no bike box, where is it??',
  'the bicycle case is missing, nobody at the desk knows',
  'bike box lost, please call me',
  'any news about the bike box',
];

const NOISE_FLIGHT = [
  'the ski resort was amazing, thanks',
  'is there a golf course near the hotel',
  'my kid loved the window seat',
  'parking ticket machine at the airport ate my card',
  'do you sell surf lessons too',
  'rented a bike in Amsterdam, lovely city',
  'the children’s menu on board was great',
  'how long is the drive to the airport from the centre',
  'Danke, alles angekommen',
  'the car rental desk was closed',
  'gracias por todo',
  'my son wants to be a pilot now',
  'is the lounge open at 5am',
  'merci beaucoup',
  'the boots I bought in the duty free are too small',
  'snow delays in Munich?',
  'parking lot was full so I took a taxi',
  'golf on TV during the flight, nice',
  'ありがとう',
  'I travel alone most of the time, it is quieter',
];
const NOISE_PHOTO = [
  'there were so many tourists that day',
  'the people at your shop were very kind',
  'what paper do you use for prints',
  'my wall is too small for a big poster',
  'how many pixels does the new iPhone have',
  'background music on your website is loud',
  'A4 invoice please for the accounts',
  'the strangers we met on the trip were lovely',
  'gracias, quedó genial',
  'love the width of that beach in the photo',
  'the crowd at the concert was wild',
  'my printer at home only does A4',
  'merci, super travail',
  '谢谢',
  'can you do video too',
  'shot on film, scanned by me',
  'he always walks out of frame, funny guy',
  'send the invoice to my wife',
];
const NOISE_FAULT = [
  'my laptop battery is dying, call you back',
  'phone at 5 percent, will text',
  'the part of the report on Monday is done',
  'spare keys to the van are in the office',
  'hours for the overtime sheet, please send',
  'UPS delivered the new chairs',
  'the battery in the office clock is flat',
  'spare a minute for the weekly sync?',
  'ok, thanks for the update',
  'Schichtwechsel um 18 Uhr',
  'la reunión se mueve al jueves',
  'part-time cover for the night shift found',
  '今晚加班',
  'the depot is closed on sunday',
  'good job on last night’s outage everyone',
  'replace the coffee machine filter, someone',
  'ticket closed, customer confirmed',
  'SFP training next week, sign up',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

const recurringFlight: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'sports_equipment',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['sports_equipment', 'sports_equipment_type', 'sports_gear', 'sports_luggage', 'special_baggage_type', 'sports_baggage'],
      type: 'string',
      values: ['ski', 'golf', 'bicycle', 'surfboard'],
      value_aliases: {
        ski: ['skis', 'ski_bag', 'snowboard', 'snowboards', 'skiis', 'esquis', 'skiausrustung', 'ski_equipment'],
        golf: ['golf_clubs', 'golf_bag', 'clubs', 'golfbag', 'golf_clbs'],
        bicycle: ['bike', 'bike_box', 'road_bike', 'mountain_bike', 'bicicleta', 'fahrrad', 'bycicle'],
        surfboard: ['surf', 'surf_board', 'board_bag', 'kitesurf', 'tabla_de_surf', 'surfbrett', 'surfbord'],
      },
      why: 'Nineteen booking clients say which sports gear travels with them (skis or snowboards, golf clubs, a bicycle, a surfboard; surfboards common only from day 12, the need whose values arrive late): a string enum said with varied nouns in several languages.',
    },
    clients: 19,
    start: 0,
    p: 0.33,
    groups: [
      { texts: GEAR_SKI, value: 'ski', weight: 1.8 },
      { texts: GEAR_GOLF, value: 'golf', weight: 1.1 },
      { texts: GEAR_BIKE, value: 'bicycle', weight: 1.1 },
      { texts: GEAR_SURF, value: 'surfboard', weight: 0.2 },
      { texts: GEAR_SURF, value: 'surfboard', from: 12, adopt: 0.45 },
    ],
  },
  {
    gold: {
      id: 'unaccompanied_minor',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['unaccompanied_minor', 'unaccompanied_minor_service', 'child_travelling_alone', 'minor_travelling_alone', 'um_service', 'child_escort'],
      type: 'boolean',
      values: [],
      why: 'Sixteen booking clients say a child flies alone and needs the airline escort (unaccompanied minor, on his own, kid flying solo, UM service, menor no acompañado, 一个人坐飞机): a yes/no need said with varied words; ages inside the sentences are not the value.',
    },
    clients: 16,
    start: 0,
    p: 0.34,
    groups: [{ texts: UNACCOMPANIED }],
  },
  {
    gold: {
      id: 'airport_parking_days',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['airport_parking_days', 'parking_days', 'parking_duration_days', 'car_park_days', 'airport_parking_duration', 'parking_nights'],
      type: 'integer',
      values: [],
      why: 'Seventeen booking clients want their car parked at the airport for a number of days (10 days, 2 weeks, seven days, 4 nights, twelve days, una semana): an integer with units, in digits and words.',
    },
    clients: 17,
    start: 1,
    p: 0.32,
    groups: [{ texts: PARKING }],
  },
];

const recurringPhoto: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'remove_photobombers',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['remove_photobombers', 'remove_background_people', 'remove_strangers', 'people_removal', 'remove_bystanders', 'photobomber_removal'],
      type: 'boolean',
      values: [],
      why: 'Seventeen photo clients ask to take strangers who walked into the shot out of it (strangers, photobombed, tourists, the crowd, random people, passants, 路人, 通行人): a yes/no need; shares "background" with the base key background_blur but is not it.',
    },
    clients: 17,
    start: 0,
    p: 0.3,
    groups: [{ texts: PHOTOBOMB }],
  },
  {
    gold: {
      id: 'paper_size',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['paper_size', 'print_size', 'print_format', 'paper_format', 'print_paper_size', 'print_dimensions'],
      type: 'string',
      values: ['a4', 'a3', '10x15', '20x30'],
      value_aliases: {
        a4: ['din_a4', 'a_4'],
        a3: ['din_a3', 'a_3'],
        '10x15': ['4x6', 'postcard', '10_x_15', 'postal'],
        '20x30': ['8x12', '20_x_30', '20_by_30'],
      },
      why: 'Nineteen photo clients say what size to print on (A4, A3, 10x15 or 4x6 postcard size, 20x30 or 8x12): a string enum of paper sizes said as codes, centimetres and inches.',
    },
    clients: 19,
    start: 0,
    p: 0.3,
    groups: [
      { texts: PAPER_A4, value: 'a4', weight: 1.5 },
      { texts: PAPER_A3, value: 'a3', weight: 1 },
      { texts: PAPER_10X15, value: '10x15', weight: 1.4 },
      { texts: PAPER_20X30, value: '20x30', weight: 1 },
    ],
  },
  {
    gold: {
      id: 'image_width_px',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['image_width_px', 'image_width', 'width_px', 'output_width', 'target_width_pixels', 'width_pixels'],
      type: 'integer',
      values: [],
      why: 'Sixteen photo clients give the width of the exported image in pixels (1080 pixels wide, 2048 px, "two thousand pixels across", 横幅1280ピクセル): an integer with units, in digits and words.',
    },
    clients: 16,
    start: 1,
    p: 0.3,
    groups: [{ texts: WIDTH }],
  },
];

const recurringFault: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'battery_backup_hours',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['battery_backup_hours', 'battery_autonomy_hours', 'backup_hours_remaining', 'battery_hours_left', 'battery_runtime_hours', 'battery_autonomy'],
      type: 'integer',
      values: [],
      why: 'Fifteen NOC clients say how many hours a site can still run on its batteries (about 4 hours of autonomy, roughly six hours, 1 hour left): an integer with units. Shares the noun "battery" with battery_replacement but is a DIFFERENT need (how long, not whether to swap): the two should not merge.',
    },
    clients: 15,
    start: 0,
    p: 0.33,
    groups: [{ texts: BACKUP_HOURS }],
  },
  {
    gold: {
      id: 'battery_replacement',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['battery_replacement', 'replace_batteries', 'battery_replacement_needed', 'battery_swap', 'batteries_need_replacing', 'replace_battery'],
      type: 'boolean',
      values: [],
      why: 'Fourteen NOC clients say the site batteries are swollen, dead or leaking and must be replaced: a yes/no need. Shares the noun "battery" with battery_backup_hours but is a DIFFERENT need: the two should not merge.',
    },
    clients: 14,
    start: 0,
    p: 0.33,
    groups: [{ texts: BATTERY_SWAP }],
  },
  {
    gold: {
      id: 'spare_part_number',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['spare_part_number', 'part_number', 'spare_part', 'replacement_part_number', 'part_no', 'spare_part_id'],
      type: 'string',
      values: [],
      why: 'Fourteen NOC clients give the part number of the spare to bring (3HE04824AA, SFP-10G-LR, PWR-C1-715WAC, 02310JFB): one identifier a fragment, a string.',
    },
    clients: 14,
    start: 0,
    p: 0.33,
    groups: [{ texts: PART_NO }],
  },
];

export const spec: StreamSpec = {
  name: 'dev-12',
  seed: 84631,
  start: '2027-02-01',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [...recurringFlight, ...recurringPhoto, ...recurringFault],
  personal: [
    {
      gold: {
        id: 'personal:no_overnight_flights',
        scenario: f,
        kind: 'personal',
        expect: 'client:agent-ngt318',
        acceptable_names: ['no_overnight_flights', 'avoid_red_eye_flights', 'daytime_flights_only', 'no_night_flights', 'avoid_overnight_flights'],
        type: 'boolean',
        values: [],
        why: 'One booking client asks 4-6 times a day for eight days for no overnight (red-eye) flights: a per-client key; no global key.',
      },
      client: 'agent-ngt318',
      start: 5,
      end: 12,
      perDay: [4, 6],
      texts: NO_OVERNIGHT,
    },
    {
      gold: {
        id: 'personal:extra_sepia_copy',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-sep204',
        acceptable_names: ['extra_sepia_copy', 'sepia_copy', 'include_sepia_version', 'add_sepia_version', 'sepia_duplicate'],
        type: 'boolean',
        values: [],
        why: 'One photo client asks 5-7 times a day for eight days for an extra sepia copy of each photo: a per-client key; no global key.',
      },
      client: 'agent-sep204',
      start: 17,
      end: 24,
      perDay: [5, 7],
      texts: SEPIA_COPY,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:lost_bike_box',
        scenario: f,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One booking client complains that its bike box did not arrive 38 times in 45 minutes on day 16 (shares "bike" and "bicycle" with sports_equipment): no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-bkb951',
      day: 16,
      hourUtc: 9.5,
      count: 38,
      minutes: 45,
      texts: BIKE_BURST,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
