/**
 * dev-9: an independent validation stream for schema evolution (draft-zhou §6.2), written by an author who had
 * not read the pool, evolution, embeddings or inducer code, before the round-9 changes. Thirty days of `other`
 * fragments over the three seeded scenarios with nine needs none of dev-1 to dev-8 or parley-dev has: fast track
 * through airport security, how the boarding pass is delivered, the flight numbers of a trip, blurring licence
 * plates, how many prints to make, the clock time edits must be ready by, a remote reboot of the customer's device,
 * the access technology of the faulty line and the packet loss seen on it. Three yes/no needs are said as an action
 * on an object with varied verbs; two choices are said in different words and languages (one value common only
 * from week 2); a count in digits and words, a list of identifiers, a clock time and a percentage. Two personal
 * needs, one one-client burst (40 in an hour) and one-off noise sharing the needs' words. Every phrasing was
 * written by hand; schedule.ts only decides who sends which one when (seeded). `npx tsx <this file>` rewrites both
 * files byte for byte.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const FAST_TRACK = [
  'add fast track through security for me',
  'can you book the express lane at the security check',
  'I want to skip the long queue at security',
  'get me priority screening at the airport',
  'include the fast-track pass for the checkpoint',
  "put me in the quick line through security, I'm always late lol",
  'fasttrack at security pls',
  'add the fast trak option again',
  'secutiry express lane please',
  '请帮我加购安检快速通道',
  'sort me out with the quicker security access',
  'book me the priority lane at airport security',
  'je veux le coupe-file au contrôle de sûreté',
  'pay for the faster screening lane, the normal one takes ages',
];

const BP_EMAIL = [
  'email me the boarding pass',
  'send the boarding card to my inbox',
  'boarding pass as a PDF attachment is fine',
  'mail the check-in document to my work address',
  'la tarjeta de embarque por correo electrónico',
  'Bordkarte per E-Mail bitte',
  'emial the boarding pass when check-in opens',
];
const BP_SMS = [
  'text me the boarding pass link',
  'boarding card by SMS please',
  'send the check-in barcode to my phone as a text message',
  "carte d'embarquement par SMS",
  'tarjeta de embarque por mensaje de texto',
  'boarding pas via sms, I have no data abroad',
];
const BP_WALLET = [
  'add the boarding pass to my Apple Wallet',
  'put the boarding card in Google Wallet on my phone',
  'I want the pass saved in the wallet app',
  'Bordkarte ins Wallet auf dem Handy',
  '登机牌请放到手机钱包里',
  'boarding pass into my walet app please',
];
const BP_PAPER = [
  'I need a printed boarding pass, my phone is ancient',
  'paper boarding card at the desk please',
  'hand me the boarding pass on paper at the counter',
  "carte d'embarquement papier s'il vous plaît",
  '紙の搭乗券をお願いします',
  'a hard copy of the boardng pass for my dad',
];

const FLIGHT_NUMBERS = [
  'I am on LH402 and then LH1234 to Munich',
  'my flights are BA117 and AA100, please link them',
  'connecting from UA901 to UA58',
  'keep an eye on AF1380 & KL1002 for me',
  'the outbound is EK385, return EK384',
  'mis vuelos son IB3166 y IB6253',
  'Flüge LX318 und LX40 bitte zusammen',
  '航班号 CA981 和 CA982',
  'flight nummbers: QR17, QR18',
  'move me onto SQ322 then SQ38',
  'I fly TK1980, TK33 and TK1 next week',
  'booked on DL44 plus the DL5901 connection',
];

const PLATE_BLUR = [
  'blur the licence plates on the cars',
  'get rid of the plate numbers, this is going online',
  'hide the car registration in every shot',
  'pixelate the number plates please',
  'make the reg numbers unreadable',
  'cover up the license tags on the parked vans',
  'smudge out the registration so nobody can read it',
  'blurr the licens plates',
  'numberplates need hiding, privacy thing',
  'difumina las matrículas de los coches',
  'mask the vehicle registration numbers',
  "floute les plaques d'immatriculation",
  'ナンバープレートをぼかしてください',
  'the plates on the bmw shouldnt be legible',
];

const PRINT_COPIES = [
  'I need 5 copies of this one printed',
  'print twelve of the group photo',
  'make three prints for the grandparents',
  'two copies each, one for me one for mum',
  "20 prints please, it's for the whole class",
  'can I get ten printed copies',
  'imprime 4 copias por favor',
  'six prints of the beach one',
  '请打印8份',
  'eight coppies of the portrait',
  'just a single print, 1 copy',
  'fifteen prints for the wedding guests',
];

const READY_BY = [
  'I need them back by 18:00',
  'please have the edits ready before 9am tomorrow',
  'deadline is 14:30 my time',
  'send the finished files by 5 pm',
  'can it be done by noon',
  'the client wants them at 8:15 sharp',
  'ready by half past six in the evening?',
  'para las 16:00 por favor',
  "finished by 11 o'clock please",
  '明天早上7点前要',
  'deliver before 20h00',
  'pls have evrything ready by 10:45',
  'due at 3:30pm, no later',
];

const REMOTE_REBOOT = [
  'restart the router remotely first',
  'give the ONT a reboot from your side',
  'power cycle the box before sending anyone',
  'try a remote reset of the modem',
  "bounce the customer's gateway and see if it comes back",
  'reboot the OLT card remotely',
  'can you turn the CPE off and on again from the NOC',
  'rebbot the device remotly',
  'do a soft restart on the unit',
  'reinicia el equipo a distancia',
  'bitte das Gerät aus der Ferne neu starten',
  'cycle the power on the customer modem from here',
  '请远程重启一下设备',
  'kick the router over, a restart usually fixes it',
];

const ACC_FIBRE = [
  'the customer is on fibre to the home',
  'FTTH line, optical',
  "it's a glass fibre connection",
  'conexión de fibra óptica',
  'optical fibre drop to the flat',
  'fiber line, GPON',
  'fibr customer, premium tier',
];
const ACC_COPPER = [
  'old copper pair, DSL',
  'VDSL over the phone line',
  "it's an ADSL line on twisted pair",
  'línea de cobre ADSL',
  'Kupferleitung, DSL',
  'coper line, long loop from the exchange',
];
const ACC_COAX = [
  'cable modem over coax',
  'DOCSIS customer on the cable TV network',
  'internet through the TV cable, coaxial',
  'câble coaxial jusqu’à la maison',
  'Koaxialkabel-Anschluss',
  'coax lin from the street amplifier',
];
const ACC_WIRELESS = [
  'fixed wireless access, rooftop antenna',
  'the site hangs on a radio link',
  '5G home router, no cable at all',
  'acceso inalámbrico fijo',
  'Richtfunk-Anbindung',
  'fixed wirless customer out in the hills',
];

const PACKET_LOSS = [
  'packet loss around 12%',
  'we see 3.5 % loss on the link',
  'ping drops about twenty percent of packets',
  'losing 40% of packets at peak',
  'packet loss is 0.8 percent, above threshold',
  'pérdida de paquetes del 15 %',
  'about 7 percent of pings get lost',
  '丢包率 25%',
  'packit loss 9%',
  'loss hovering at five percent all morning',
  'mtr shows 30% loss at hop 4',
];

const KEEP_FILENAMES = [
  'keep my original file names please',
  'do not rename the files, same names as I sent',
  'leave the filenames as they are',
  'same file names on the way back, thanks',
];
const TEAMS_UPDATES = [
  'post the updates in our Teams channel',
  'put progress notes in the Teams chat, not email',
  'drop a message in Teams when something changes',
  'updates to the Teams group as usual',
];
const ZIP_BROKEN = [
  "the zip file won't open",
  'download zip is corrupt',
  'archive says it is damaged',
  'still cannot unzip the folder',
  'zip broken again??',
];

const NOISE_FLIGHT = [
  'is there anywhere to eat after security',
  'the security staff were rude last time',
  'my wallet was stolen at the airport, what now',
  'the boarding gate changed twice',
  'I printed the wrong page by mistake',
  'what was the number of the flight I took in May',
  'SMS notifications arrive at 3am, annoying',
  'how much for snowboard gear',
  'is the wifi on board fast',
  'my email address changed',
  'Lufthansa is my favourite airline',
  'the queue at check-in was long',
  'thanks for the quick answer',
  'can I fly with a paper copy of my passport',
  'the seat on flight 402 was broken',
  'priority for me is comfort over price',
  'the airport train track was closed',
  'I paid by Apple Pay, is that ok',
  'express trains to the city, any tips',
  'where do I find the lost and found',
  'el mostrador estaba cerrado',
  'Danke für die Hilfe',
  'skipping breakfast before the flight',
  'my phone battery dies fast',
  'the pass for the lounge was expensive last year',
];

const NOISE_PHOTO = [
  'does the stock photo licence cover print',
  'a plate of food in the foreground, keep it',
  'my car is red in real life',
  'copy the colour grading from the last set',
  'print quality was great last time',
  'the blur in the background is nice as it is',
  'I am at work until 18:00, call after',
  'is registration for the workshop open',
  'twelve of my friends liked the photos',
  'the number on the jersey should stay',
  'noon light made it harsh',
  'the zip on her dress is visible, fix it',
  'three cats in the picture',
  'file names in your portal are confusing',
  'what paper do you print on',
  'the photo contest deadline is friday',
  'team photo from the football club',
  'hide nothing, it is a documentary set',
  'restart the slideshow from the beginning',
  'las fotos quedaron preciosas',
  'Danke, sieht super aus',
  'ready when you are',
  'the street sign in the back is funny',
  'copy that, thanks',
  'the van in the corner is my brother’s',
];

const NOISE_FAULT = [
  'rebooted my laptop, the ticket tool works again',
  'fibre cut on the motorway made the news',
  'the copper thieves were caught',
  'spare coax cable in the lab',
  'the wireless mouse in the NOC is dead',
  'packet of biscuits in the kitchen',
  'losing the match last night hurt',
  '5 percent of staff are on holiday',
  'restart of the meeting at 14:00',
  'Teams is slow today',
  'remote work on fridays?',
  'the router manual is in the cupboard',
  'power cycle of the coffee machine fixed it',
  'the plate on the rack says R12',
  'the box of cables by the door is for recycling',
  'who reset the wall clock',
  'radio in the van does not work',
  'la reunión es a las diez',
  'Kaffee ist alle',
  'optical mouse for the new guy please',
  'the loss report for Q3 is out',
  'cable ties ordered',
  'twenty tickets closed today, nice',
  'the DSL of my mum is fine actually',
  'ONT stock count on thursday',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

const recurringFlight: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'fast_track_security',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['fast_track_security', 'fast_track', 'security_fast_track', 'priority_security', 'express_security', 'skip_security_queue'],
      type: 'boolean',
      values: [],
      why: 'Eighteen booking clients ask to add fast track through airport security, with varied verbs and nouns (fast track, express lane, priority screening, skip the queue, coupe-file): a yes/no need.',
    },
    clients: 18,
    start: 0,
    p: 0.3,
    groups: [{ texts: FAST_TRACK }],
  },
  {
    gold: {
      id: 'boarding_pass_delivery',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['boarding_pass_delivery', 'boarding_pass_format', 'boarding_pass_channel', 'boarding_pass_method', 'boarding_pass_delivery_method', 'boarding_pass_type'],
      type: 'string',
      values: ['email', 'sms', 'mobile_wallet', 'paper'],
      value_aliases: {
        email: ['e_mail', 'mail', 'inbox', 'pdf', 'correo_electronico', 'emial'],
        sms: ['text', 'text_message', 'mensaje_de_texto'],
        mobile_wallet: ['wallet', 'apple_wallet', 'google_wallet', 'wallet_app', 'walet'],
        paper: ['printed', 'hard_copy', 'papier'],
      },
      why: 'Twenty booking clients say how they want the boarding pass (email, SMS, phone wallet, paper; the wallet common only from day 12), rarely with two values in one fragment: a string enum.',
    },
    clients: 20,
    start: 0,
    p: 0.3,
    groups: [
      { texts: BP_EMAIL, value: 'email', weight: 2 },
      { texts: BP_SMS, value: 'sms', weight: 1.2 },
      { texts: BP_PAPER, value: 'paper', weight: 1.2 },
      { texts: BP_WALLET, value: 'mobile_wallet', weight: 0.25 },
      { texts: BP_WALLET, value: 'mobile_wallet', from: 12, adopt: 0.45 },
    ],
  },
  {
    gold: {
      id: 'flight_numbers',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['flight_numbers', 'flight_ids', 'flight_codes', 'flights', 'booked_flights', 'flight_number_list'],
      type: 'array',
      items_type: 'string',
      values: [],
      why: 'Sixteen booking clients give the flight numbers of their trip, two or three a fragment (LH402, BA117, CA981): a list of identifiers.',
    },
    clients: 16,
    start: 1,
    p: 0.32,
    groups: [{ texts: FLIGHT_NUMBERS }],
  },
];

const recurringPhoto: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'license_plate_blur',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['license_plate_blur', 'blur_license_plates', 'hide_license_plates', 'plate_blur', 'number_plate_removal', 'anonymize_plates'],
      type: 'boolean',
      values: [],
      why: 'Sixteen photo clients ask to make car plates unreadable with varied verbs (blur, get rid of, hide, pixelate, smudge out) and nouns (licence plate, plate number, registration, reg number, tag): a yes/no need.',
    },
    clients: 16,
    start: 0,
    p: 0.3,
    groups: [{ texts: PLATE_BLUR }],
  },
  {
    gold: {
      id: 'print_copies',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['print_copies', 'copy_count', 'number_of_copies', 'print_count', 'copies', 'number_of_prints'],
      type: 'integer',
      values: [],
      why: 'Eighteen photo clients say how many prints they want (5 copies, twelve, three prints, 20), in digits and words: an integer.',
    },
    clients: 18,
    start: 0,
    p: 0.3,
    groups: [{ texts: PRINT_COPIES }],
  },
  {
    gold: {
      id: 'ready_by_time',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['ready_by_time', 'delivery_time', 'deadline_time', 'due_time', 'ready_time', 'delivery_deadline'],
      type: 'string',
      values: [],
      why: 'Sixteen photo clients give a clock time by which the edits must be back (18:00, 9am, noon, half past six): a time string.',
    },
    clients: 16,
    start: 1,
    p: 0.3,
    groups: [{ texts: READY_BY }],
  },
];

const recurringFault: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'remote_reboot',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['remote_reboot', 'reboot_device', 'remote_restart', 'restart_equipment', 'power_cycle', 'remote_reset'],
      type: 'boolean',
      values: [],
      why: "Fourteen NOC clients ask for the customer's device to be restarted remotely, with varied verbs (restart, reboot, power cycle, reset, bounce, kick over) and objects (router, ONT, CPE, box): a yes/no need.",
    },
    clients: 14,
    start: 0,
    p: 0.35,
    groups: [{ texts: REMOTE_REBOOT }],
  },
  {
    gold: {
      id: 'access_technology',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['access_technology', 'access_type', 'line_type', 'connection_type', 'access_medium', 'network_access_type'],
      type: 'string',
      values: ['fibre', 'copper', 'coax', 'wireless'],
      value_aliases: {
        fibre: ['fiber', 'ftth', 'gpon', 'optical', 'glass_fibre', 'fibra', 'fibr'],
        copper: ['dsl', 'adsl', 'vdsl', 'twisted_pair', 'cobre', 'kupfer', 'coper'],
        coax: ['coaxial', 'cable', 'docsis', 'koaxialkabel'],
        wireless: ['fixed_wireless', 'radio_link', '5g', 'inalambrico', 'richtfunk', 'wirless'],
      },
      why: 'Sixteen NOC clients say what the faulty line runs on (fibre, copper/DSL, coax/cable, fixed wireless; wireless common only from day 12): a string enum, not one flag per medium.',
    },
    clients: 16,
    start: 0,
    p: 0.35,
    groups: [
      { texts: ACC_FIBRE, value: 'fibre', weight: 2 },
      { texts: ACC_COPPER, value: 'copper', weight: 1.5 },
      { texts: ACC_COAX, value: 'coax', weight: 1 },
      { texts: ACC_WIRELESS, value: 'wireless', weight: 0.25 },
      { texts: ACC_WIRELESS, value: 'wireless', from: 12, adopt: 0.4 },
    ],
  },
  {
    gold: {
      id: 'packet_loss_percent',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['packet_loss_percent', 'packet_loss', 'packet_loss_rate', 'loss_percentage', 'packet_loss_pct', 'loss_rate'],
      type: 'number',
      values: [],
      why: 'Fourteen NOC clients report the packet loss seen on the line (12%, 3.5 %, twenty percent, 0.8 percent): a number.',
    },
    clients: 14,
    start: 1,
    p: 0.35,
    groups: [{ texts: PACKET_LOSS }],
  },
];

export const spec: StreamSpec = {
  name: 'dev-9',
  seed: 61729,
  start: '2026-01-12',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [...recurringFlight, ...recurringPhoto, ...recurringFault],
  personal: [
    {
      gold: {
        id: 'personal:keep_original_filenames',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-fnm812',
        acceptable_names: ['keep_original_filenames', 'keep_filenames', 'preserve_file_names', 'no_rename', 'original_filenames'],
        type: 'boolean',
        values: [],
        why: 'One photo client asks 4-6 times a day for a week that the files keep their original names: a per-client key; no global key.',
      },
      client: 'agent-fnm812',
      start: 8,
      end: 14,
      perDay: [4, 6],
      texts: KEEP_FILENAMES,
    },
    {
      gold: {
        id: 'personal:updates_in_teams',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-tms305',
        acceptable_names: ['updates_in_teams', 'notify_via_teams', 'teams_notification', 'post_to_teams', 'teams_updates'],
        type: 'boolean',
        values: [],
        why: 'One NOC client asks 4-6 times a day for a week that progress be posted in its Teams channel: a per-client key; no global key.',
      },
      client: 'agent-tms305',
      start: 18,
      end: 24,
      perDay: [4, 6],
      texts: TEAMS_UPDATES,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:zip_will_not_open',
        scenario: p,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One photo client relays that the delivered zip will not open 40 times in an hour on day 19: no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-zip440',
      day: 19,
      hourUtc: 20.25,
      count: 40,
      minutes: 60,
      texts: ZIP_BROKEN,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
