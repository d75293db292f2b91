/**
 * dev-5: a validation stream for types and values from evidence (draft-zhou §6.2), written before the type and
 * value changes it is used to check and never tuned on. Thirty days of `other` fragments over the three seeded
 * scenarios with needs none of dev-1, dev-2, dev-3, dev-4, parley-dev or bench/data/stream.jsonl has (the date of
 * the return flight, how the client pays, a pet in the cabin, which photos of a shoot, a film look, whiter teeth,
 * the tickets a fault is linked to, the service that is down, when the fault began, how often it came back).
 * Each need's phrasings were written by hand and share few words; values sit inside sentences, some misspelled,
 * some in other languages. schedule.ts only decides who sends which one when (seeded). `npx tsx <this file>`
 * rewrites both files.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const RETURN_DATE = [
  'coming back on 14 November',
  'return leg on the 3rd of December please',
  'I fly home 2026-11-21',
  'back on Nov 28',
  'inbound flight 12/12',
  'the way back should be on 19 November',
  'regreso el 25 de noviembre',
  'Rückflug am 30.11.',
  '11月20日回来',
  'retun flight on 7 December',
  'we need to be home by 2 Dec, that is the return',
];

const PAY_CARD = ['I will pay by credit card', 'charge my visa', 'card payment is fine', 'put it on my mastercard', 'con tarjeta de crédito', 'paying with my credt card'];
const PAY_PAYPAL = ['can I use paypal', 'paypal please', 'I prefer to settle via PayPal', 'per PayPal bezahlen', 'pay pal works for me'];
const PAY_INVOICE = ['send us an invoice, our company pays', 'bill the firm, we pay on invoice', 'payment on invoice within 30 days', 'auf Rechnung bitte', 'invoce to accounts payable'];
const PAY_TRANSFER = ['I will do a bank transfer', 'we wire the money', 'payment by SEPA transfer', 'virement bancaire', 'bank tranfer is easier for us'];

const PET = [
  'my cat travels with me in the cabin',
  'bringing a small dog under the seat',
  'can my puppy come on board in a carrier',
  'we have a kitten in a soft bag',
  'flying with my pet chihuahua',
  'viajo con mi perro en cabina',
  'mein Hund fliegt mit in der Kabine',
  '带宠物猫上飞机',
  'the rabbit comes along, small crate',
  'travelling with a pet, it weighs 5 kg',
  'my dogg needs to be with me on the plane',
];

const PHOTO_IDS = [
  'please do IMG_2041, IMG_2043 and IMG_2050',
  'only these files: DSC_0912, DSC_0915',
  'retouch frames IMG_3310 IMG_3312 IMG_3318',
  'just the ones numbered DSC_1201 and DSC_1207',
  'shots IMG_0455, IMG_0460 are the keepers',
  'bitte nur IMG_7781 und IMG_7790',
  'solo las fotos DSC_4410, DSC_4412',
  'picks for editing: IMG_5521, IMG_5530, IMG_5534',
  'the selcted images are DSC_0087, DSC_0091',
];

const LOOK_BW = ['make them black and white', 'convert to monochrome', 'a black & white version please', 'greyscale, like old press photos', 'en blanco y negro', 'schwarz-weiß bitte', 'balck and white'];
const LOOK_SEPIA = ['give it a sepia tone', 'brownish old-time sepia look', 'sepia please, for grandma', 'tono sepia', 'sepai effect'];
const LOOK_VINTAGE = ['a vintage film look', 'make it feel retro, faded colours', 'seventies vintage style', 'look vintage como una polaroid', 'vintge filter'];
const LOOK_VIVID = ['vivid, punchy colours', 'boost the saturation so it pops', 'make the colours really vivid', 'lebendige Farben', 'vivd colors'];

const TEETH = [
  'whiten my teeth a little',
  'can you make her smile brighter',
  'the teeth look yellow, fix that',
  'whiter teeth please',
  'brighten his smile, coffee stains',
  'blanquear los dientes',
  'Zähne aufhellen',
  '牙齿美白',
  'teeth whitening on the bride',
  'remove the yellow from the teeth',
  'make the teath white',
];

const TICKETS = [
  'linked to INC-20931 and INC-20944',
  'same root cause as INC-31002, INC-31017',
  'related incidents: INC-40418 INC-40420',
  'duplicates of INC-11250 and INC-11263',
  'see also INC-52007, INC-52011, INC-52019',
  'verwandte Tickets INC-60113, INC-60118',
  'tickets relacionados INC-70221 y INC-70230',
  'merge with INC-81442 and INC-81450',
  'conected to INC-90305, INC-90311',
];

const SVC_VOICE = ['calls do not go through', 'voice is down, no dial tone', 'customers cannot make phone calls', 'telefonía caída', 'voise service broken'];
const SVC_DATA = ['mobile data is dead', 'no internet on the cells', 'data sessions fail', 'kein Internet', 'dta not working'];
const SVC_SMS = ['text messages are not delivered', 'sms stuck in queue', 'nobody receives SMS', 'los mensajes no llegan', 'smss failing'];
const SVC_TV = ['the IPTV channels are black', 'television service off', 'set-top boxes show no picture', 'TV-Dienst ausgefallen', 'iptv freezing'];

const START_TIME = [
  'it started at 03:40',
  'down since 4:15 this morning',
  'first alarm came in at 22:05',
  'began around 11:30',
  'outage from 06:50 onward',
  'seit 02:10 Uhr gestört',
  'empezó a las 05:45',
  '从14:20开始',
  'strated at 13:05',
  'the problem kicked off at 7:25 am',
];

const REPEAT = [
  'this is the third time this week, it happened 3 times',
  'it dropped four times since monday',
  'same fault 5 times today',
  'it keeps coming back, six occurrences so far',
  'recurred twice overnight, 2 times',
  'schon 4 mal heute ausgefallen',
  'se cayó 3 veces',
  'flapped seven times in an hour',
  'happend 8 times yesterday',
];

const WATERMARK_SIG = ['sign each photo with Studio Lumen in the corner', 'add my studio signature Studio Lumen', 'the Studio Lumen signature bottom right', 'put Studio Lumen on them as usual'];
const VPN = ['vpn down again', 'VPN still not connecting', 'vpn is down', 'cannot reach the vpn'];

const NOISE_FLIGHT = [
  'my return from Rome was a mess',
  'is there a pet shop at the airport',
  'the card in the seat pocket was sticky',
  'what date does the winter schedule start',
  'my dog loved the kennel while I was away',
  'PayPal sent me a receipt, is that normal',
  'the invoice from last year is lost',
  'how do I get back to the home page',
  'thanks for the quick answer',
  'is there a bank at the terminal',
  'the cabin crew were lovely',
  'I changed my phone number',
];

const NOISE_PHOTO = [
  'my teeth hurt from the dentist, sorry for the delay',
  'the black and white cat in the background is mine',
  'sepia ink for the cards?',
  'IMG files are big, sorry',
  'vintage camera, vintage lens, so fun',
  'the colours on my monitor are off',
  'I smile too much in photos',
  'what file numbers do you use',
  'thanks, they look great',
  'can you invoice my company',
  'my phone camera is new',
  'the prints arrived',
];

const NOISE_FAULT = [
  'INC-5000 was closed yesterday, thanks',
  'the voice of the new shift lead is quiet',
  'data protection training on friday',
  'sms alerts for the canteen menu?',
  'TV in the NOC is broken',
  'the meeting started at 9:00',
  'three times a week we have standup',
  'tickets dashboard is slow',
  'who is on call tonight',
  'new laptops arrive monday',
  'coffee machine is down',
  'the service desk moved floors',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

export const spec: StreamSpec = {
  name: 'dev-5',
  seed: 73021,
  start: '2026-11-02',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [
    {
      gold: {
        id: 'return_date',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['return_date', 'inbound_date', 'return_flight_date', 'date_back', 'return_day'],
        type: 'string',
        values: [],
        why: 'Eighteen booking clients say the day they fly back, in many date forms: a string (a date), never a boolean or a number.',
      },
      clients: 18,
      start: 0,
      p: 0.3,
      groups: [{ texts: RETURN_DATE }],
    },
    {
      gold: {
        id: 'payment_method',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['payment_method', 'payment_type', 'pay_method', 'payment_preference', 'payment_option'],
        type: 'string',
        values: ['card', 'paypal', 'invoice', 'bank_transfer'],
        value_aliases: { card: ['credit_card', 'visa', 'mastercard', 'tarjeta', 'credt_card', 'credit'], paypal: ['pay_pal'], invoice: ['rechnung', 'invoce', 'bill'], bank_transfer: ['transfer', 'wire', 'sepa', 'virement', 'tranfer', 'bank'] },
        why: 'Twenty booking clients say how they will pay (card, PayPal, invoice, bank transfer; transfers common from day 12): a string enum.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [
        { texts: PAY_CARD, value: 'card', weight: 2 },
        { texts: PAY_PAYPAL, value: 'paypal', weight: 1.5 },
        { texts: PAY_INVOICE, value: 'invoice', weight: 1 },
        { texts: PAY_TRANSFER, value: 'bank_transfer', weight: 0.3 },
        { texts: PAY_TRANSFER, value: 'bank_transfer', from: 12, adopt: 0.35 },
      ],
    },
    {
      gold: {
        id: 'pet_in_cabin',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['pet_in_cabin', 'travelling_with_pet', 'with_pet', 'pet', 'has_pet', 'cabin_pet'],
        type: 'boolean',
        values: [],
        why: 'Fifteen booking clients bring a pet (cat, dog, puppy, kitten, rabbit) into the cabin: a yes/no flag.',
      },
      clients: 15,
      start: 2,
      p: 0.3,
      groups: [{ texts: PET }],
    },
    {
      gold: {
        id: 'photo_ids',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['photo_ids', 'image_ids', 'selected_photo_ids', 'file_ids', 'selected_images', 'photo_selection'],
        type: 'array',
        items_type: 'string',
        values: [],
        why: 'Eighteen photo clients list the files to retouch (IMG_2041, DSC_0912 ...), two or three a fragment: an array of strings.',
      },
      clients: 18,
      start: 0,
      p: 0.3,
      groups: [{ texts: PHOTO_IDS }],
    },
    {
      gold: {
        id: 'photo_look',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['photo_look', 'filter_style', 'color_style', 'look', 'style', 'filter', 'color_grade', 'colour_style'],
        type: 'string',
        values: ['black_and_white', 'sepia', 'vintage', 'vivid'],
        value_aliases: { black_and_white: ['monochrome', 'greyscale', 'grayscale', 'black', 'blanco_y_negro', 'schwarz_weiß', 'balck'], sepia: ['sepai'], vintage: ['retro', 'vintge'], vivid: ['saturated', 'saturation', 'punchy', 'lebendige', 'vivd'] },
        why: 'Twenty photo clients want a look applied (black and white, sepia, vintage, vivid; vivid common from day 14): a string enum.',
      },
      clients: 20,
      start: 1,
      p: 0.3,
      groups: [
        { texts: LOOK_BW, value: 'black_and_white', weight: 2 },
        { texts: LOOK_SEPIA, value: 'sepia', weight: 1 },
        { texts: LOOK_VINTAGE, value: 'vintage', weight: 1.5 },
        { texts: LOOK_VIVID, value: 'vivid', weight: 0.3 },
        { texts: LOOK_VIVID, value: 'vivid', from: 14, adopt: 0.35 },
      ],
    },
    {
      gold: {
        id: 'teeth_whitening',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['teeth_whitening', 'whiten_teeth', 'tooth_whitening', 'teeth_whiten', 'smile_brightening'],
        type: 'boolean',
        values: [],
        why: 'Sixteen photo clients want teeth whitened (whiter, brighter smile, yellow teeth): a yes/no retouch.',
      },
      clients: 16,
      start: 0,
      p: 0.3,
      groups: [{ texts: TEETH }],
    },
    {
      gold: {
        id: 'related_ticket_ids',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['related_ticket_ids', 'related_incident_ids', 'linked_ticket_ids', 'ticket_ids', 'incident_ids', 'related_tickets'],
        type: 'array',
        items_type: 'string',
        values: [],
        why: 'Fifteen NOC clients list the incidents this fault is linked to (INC-20931, INC-20944), two or three a fragment: an array of strings.',
      },
      clients: 15,
      start: 0,
      p: 0.35,
      groups: [{ texts: TICKETS }],
    },
    {
      gold: {
        id: 'affected_service',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['affected_service', 'service_type', 'impacted_service', 'service', 'service_affected'],
        type: 'string',
        values: ['voice', 'data', 'sms', 'tv'],
        value_aliases: { voice: ['call', 'calls', 'phone', 'telefonía', 'voise', 'dial'], data: ['internet', 'dta'], sms: ['text', 'message', 'messages', 'mensajes', 'smss'], tv: ['iptv', 'television', 'set_top'] },
        why: 'Sixteen NOC clients say which service is down (voice, data, SMS, TV): a string enum.',
      },
      clients: 16,
      start: 0,
      p: 0.35,
      groups: [
        { texts: SVC_VOICE, value: 'voice', weight: 1.5 },
        { texts: SVC_DATA, value: 'data', weight: 1.5 },
        { texts: SVC_SMS, value: 'sms', weight: 1 },
        { texts: SVC_TV, value: 'tv', weight: 1 },
      ],
    },
    {
      gold: {
        id: 'fault_start_time',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['fault_start_time', 'start_time', 'outage_start', 'outage_start_time', 'started_at', 'fault_start'],
        type: 'string',
        values: [],
        why: 'Fourteen NOC clients say when the fault began (03:40, 4:15, 22:05): a string with a clock pattern.',
      },
      clients: 14,
      start: 1,
      p: 0.4,
      groups: [{ texts: START_TIME }],
    },
    {
      gold: {
        id: 'recurrence_count',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['recurrence_count', 'occurrence_count', 'repeat_count', 'times_count', 'occurrences', 'fault_count'],
        type: 'integer',
        values: [],
        why: 'Fourteen NOC clients say how many times the fault has come back (3 times, four times, twice, seven times): an integer.',
      },
      clients: 14,
      start: 2,
      p: 0.4,
      groups: [{ texts: REPEAT }],
    },
  ],
  personal: [
    {
      gold: {
        id: 'personal:studio_signature',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-lum3n5',
        acceptable_names: ['studio_signature', 'signature', 'studio_watermark', 'add_signature'],
        type: 'boolean',
        values: [],
        why: 'One client asks 4-6 times a day for nine days that each photo carry its studio signature: a per-client key; no global key.',
      },
      client: 'agent-lum3n5',
      start: 6,
      end: 14,
      perDay: [4, 6],
      texts: WATERMARK_SIG,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:vpn_down',
        scenario: m,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One NOC relays that its VPN is down 38 times in 40 minutes on day 11: no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-vpn404',
      day: 11,
      hourUtc: 9.2,
      count: 38,
      minutes: 40,
      texts: VPN,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
