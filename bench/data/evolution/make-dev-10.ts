/**
 * dev-10: the validation stream of round 12 for schema evolution (draft-zhou §6.2), written before tuning by an
 * author who did not read the pool, evolution, embeddings, ADOL or client code (only the templates, this folder's
 * README, schedule.ts and make-dev-9.ts for the format). Thirty days of `other` fragments over the three seeded
 * scenarios with nine needs none of dev-1 to dev-9 or parley-dev has: help through the airport for someone who cannot
 * walk far, a frequent-flyer membership number, the airline alliance to stay within, the file format of the edited
 * pictures, slimming a double chin, a ceiling on file size, the VLAN of the fault, whether planned works may be the
 * cause, and how the fault came to light. Yes/no needs are said with varied verbs and nouns; three choices are said
 * in different words and languages (one value each common only from day 12); an identifier, a count-like id, a
 * number with units. Two personal needs, one one-client burst and one-off noise sharing the needs' words. Every
 * phrasing was written by hand; schedule.ts only decides who sends which one when (seeded). `npx tsx <this file>`
 * rewrites both files byte for byte.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from './schedule';

const MOBILITY_HELP = [
  'my mother cannot walk far, she needs a wheelchair to the gate',
  'please arrange someone to push my dad through the terminal',
  'request special assistance at the airport, bad knee',
  'PRM assist needed on departure and arrival',
  'can they meet me with one of those buggies at arrivals',
  "I'm on crutches after surgery, need help boarding",
  'whellchair at both ends pls',
  'mobility help for my grandmother, she is 91',
  'Rollstuhl-Service am Flughafen bitte',
  'necesita silla de ruedas hasta el avión',
  '车椅子の手配をお願いします',
  'book the assistance service, my husband uses a walker',
  'need the cart to take me to the plane, long corridors kill my hip',
  'asistencia para movilidad reducida por favor',
  "she'll need help getting on the aircraft, can't manage stairs",
];

const LOYALTY_NUMBER = [
  'add my Miles&More number 992004417321',
  'frequent flyer no. BA48812093 on the booking please',
  'my Flying Blue id is 2043118876',
  "put my mileage account AA7K229 so I get the points",
  'credit the miles to KrisFlyer 8831920045',
  'loyalty card 5512-0093-771 needs to be on the ticket',
  'número de viajero frecuente IB 66120938',
  'Vielfliegernummer 992003318814 eintragen',
  '常旅客卡号 CA002781934',
  'here is my skymiles # 9002213377, dont forget it this time',
  'frequent flier numbr: EK 441208833',
  'attach my Aeroplan member id 330 118 442',
];

const ALLIANCE_STAR = [
  'only Star Alliance carriers, I want to keep my gold',
  'stick to Lufthansa, Swiss or United, same alliance',
  'star aliance airlines only please',
  'solo aerolíneas de Star Alliance',
  'nur Star-Alliance-Gesellschaften',
  'keep it within Star so my status counts',
];
const ALLIANCE_ONEWORLD = [
  'oneworld airlines only, BA or Iberia or Qatar',
  'keep me on oneworld so the points add up',
  'one world alliance carriers please',
  'uniquement des compagnies oneworld',
  "I'm Emerald with oneworld, stay inside it",
  'oneworl partners only',
];
const ALLIANCE_SKYTEAM = [
  'SkyTeam only, I collect Flying Blue',
  'Air France, KLM or Delta, the skyteam gang',
  'sky team carriers so my elite status applies',
  'solo compañías de SkyTeam',
  'SkyTeam 加盟の航空会社だけで',
  'skytem airlines if possible',
];

const FMT_JPEG = [
  'send them back as JPEGs',
  'jpg is fine for all of them',
  'export as .jpeg, high quality',
  'en JPG por favor',
  'jpeg output, the usual',
  'give me jpgs, my phone cant open anything else',
];
const FMT_PNG = [
  'PNG please, I need the transparency',
  'deliver the files as png',
  'lossless png for the logo shots',
  'en PNG, s’il vous plaît',
  'als PNG-Datei zurück',
  'pngs, not the compressed stuff',
];
const FMT_TIFF = [
  'TIFF files for the print shop',
  'the printer wants tif, 16 bit',
  'export uncompressed tiff',
  'formato TIFF para imprenta',
  '印刷用にTIFFでください',
  'tiff plz, magazine needs it',
];
const FMT_WEBP = [
  'webp for the website please',
  'save them as WebP, they load faster',
  'need webp versions for the shop page',
  'en formato webp',
  'webp 格式',
  'web-p files, our cms prefers them',
];

const CHIN = [
  'slim down my double chin',
  'get rid of the second chin in the group shot',
  'tighten up my jawline a bit, the angle was awful',
  'reduce the chin fold, I look like I have no neck',
  'can you hide my double chin',
  'quítame la papada',
  'Doppelkinn bitte wegretuschieren',
  'enlève le double menton',
  '二重あごを目立たなくして',
  'doubel chin fix pls',
  'sharpen the jaw line so the neck looks cleaner',
  'make my chin area less saggy',
  '把双下巴修掉',
];

const MAX_SIZE = [
  'keep each file under 5 MB',
  'no bigger than 2.5 megabytes each, the portal rejects more',
  'max ten megs per image',
  'files must stay below 8MB for email',
  'under 1.5 MB please, it is for a web form',
  'tamaño máximo 3 MB',
  'höchstens 4 MB pro Bild',
  '每张不超过2MB',
  'size limit is twenty megabytes',
  'less then 6mb each, thx',
  'the upload cap is 12 MB so stay under it',
];

const VLAN = [
  'only VLAN 204 is affected',
  'traffic on vlan 1130 is dropping',
  'the customer service VLAN, id 88, is down',
  'it is on vlan three hundred',
  'VLAN-ID 2001 betroffen',
  'problème sur le VLAN 45',
  'vlan 612 no pasa tráfico',
  'tagged vlan 3999 on the uplink is dead',
  'valn 710 again',
  'the voice VLAN (150) lost its gateway',
  'VLAN 77 的业务中断',
  'management vlan 10 unreachable',
];

const PLANNED_WORK = [
  'could be the planned works last night',
  'was there scheduled maintenance on that node?',
  'a change window ran on this router at 2am, check if it is related',
  'suspect the maintenance from the vendor',
  'probably caused by the upgrade the core team did',
  'check the change calendar, someone may have touched it',
  'mantenimiento programado anoche en ese nodo',
  'könnte an den geplanten Arbeiten liegen',
  'peut-être lié aux travaux planifiés',
  'maintanence window overlap?',
  'this started right after the firmware rollout',
  '是不是昨晚割接导致的',
  'I bet it is the night work on the ring',
];

const SRC_CALLS = [
  'customers rang the call centre about it',
  'found out through customer calls',
  'the hotline got flooded',
  'reported by subscribers phoning in',
  'llamadas de clientes al centro de atención',
  'Kundenanrufe bei der Hotline',
  'callcenter raised it first',
];
const SRC_MONITORING = [
  'our monitoring caught it',
  'Zabbix alarmed before anyone noticed',
  'picked up by the NMS automatically',
  'detectado por la supervisión',
  'the dashboards went red first',
  'monitring flagged it at night',
];
const SRC_FIELD = [
  'a field engineer on site noticed it',
  'the tech doing a survey reported it',
  'spotted by our crew during a visit',
  "découvert par le technicien sur place",
  'Techniker vor Ort hat es gemeldet',
  'feild team saw it first',
];
const SRC_SOCIAL = [
  'people were complaining on Twitter before we knew',
  'we learned about it from social media',
  'angry posts on X and Facebook tipped us off',
  'se enteraron por redes sociales',
  '微博上先有人说的',
  'somebody tagged us on insta about the outage',
];

const GREY_HAIR = [
  'leave my grey hair as it is',
  "don't colour my silver hair, I like it",
  'no touching the grey streaks',
  'keep the white hair natural',
];
const NOTES_IN_SPANISH = [
  'write the ticket notes in Spanish for the Madrid crew',
  'notas del ticket en español, por favor',
  'the field team reads Spanish only, use it in the ticket',
  'Spanish please for all ticket comments',
];
const PROMO_BURST = [
  'the promo code keeps getting rejected',
  'discount code SPRING26 says invalid',
  'still cannot apply the voucher code',
  'code rejected AGAIN',
  'why is my coupon not working',
];

const NOISE_FLIGHT = [
  'the wheel of my suitcase broke',
  'five star hotel near the airport, any ideas',
  'the world cup final is that weekend',
  'my team is flying separately',
  'the sky was amazing on the last trip',
  'how many miles is it from Lisbon to Porto',
  'number of the taxi company?',
  'frequent delays on this route lately',
  'the chair in the lounge was comfy',
  'I walk a lot on holiday',
  'the star rating of the airline app is terrible',
  'help, I forgot my charger',
  'member of staff was lovely at the desk',
  'Danke schön',
  'gracias por todo',
  'my status update: all packed',
  'card payment went through',
  'one of the best flights ever',
  'need a bigger suitcase, any tips',
  'points of interest in Seoul?',
  'the push notifications are too many',
  'frequent question: can I bring cheese',
];
const NOISE_PHOTO = [
  'the jpeg my friend sent is blurry',
  'my chin is resting on my hand in this one, keep it',
  'send the invoice as PDF',
  'the file name has a typo',
  'the website looks great',
  'printer at home is broken',
  'a webcam photo, sorry for the quality',
  'my grandma in the picture is 90',
  'size of the group: around 20',
  'the format of the wedding was odd',
  'transparent umbrella in the shot',
  'she has silver earrings, keep them',
  'my phone storage is full',
  'the shop page is down?',
  'megabytes or gigabytes, which plan should I buy',
  'dos fotos más mañana',
  'merci beaucoup',
  'thank you, looks great',
  'the neck of the guitar is cut off, sad',
  'the print shop closes at six',
  'logo shot is for our new bakery',
];
const NOISE_FAULT = [
  'the planned team lunch is friday',
  'maintenance of the coffee machine tomorrow',
  'the monitoring team is short-staffed',
  'my twitter account got hacked lol',
  'call centre coffee is bad',
  'vlan training course next month',
  'the field next to the site is flooded',
  'firmware for the printers is out',
  'change of shift at 18:00',
  'social event on thursday',
  'the dashboard colours are ugly',
  'night work allowance paid?',
  'survey about the canteen',
  'hotline number changed on the website',
  'ticket closed, thanks',
  'upgrade of my laptop arrives monday',
  'la reunión se cambió',
  'Feierabend!',
  'the ring binder is missing',
  'crew photo for the newsletter',
  'who tagged me in that meeting',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

const recurringFlight: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'mobility_assistance',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['mobility_assistance', 'wheelchair_assistance', 'special_assistance', 'wheelchair_required', 'reduced_mobility_assistance', 'prm_assistance'],
      type: 'boolean',
      values: [],
      why: 'Seventeen booking clients ask for help through the airport for someone who cannot walk far (wheelchair, buggy, PRM, someone to push, help boarding): a yes/no need said with varied nouns.',
    },
    clients: 17,
    start: 0,
    p: 0.3,
    groups: [{ texts: MOBILITY_HELP }],
  },
  {
    gold: {
      id: 'frequent_flyer_number',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['frequent_flyer_number', 'loyalty_number', 'frequent_flyer_id', 'loyalty_program_number', 'membership_number', 'miles_account'],
      type: 'string',
      values: [],
      why: 'Sixteen booking clients give the number of their frequent-flyer or miles account (992004417321, BA48812093, 330 118 442): one identifier a fragment, a string.',
    },
    clients: 16,
    start: 1,
    p: 0.3,
    groups: [{ texts: LOYALTY_NUMBER }],
  },
  {
    gold: {
      id: 'airline_alliance',
      scenario: f,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['airline_alliance', 'preferred_alliance', 'alliance', 'alliance_preference', 'carrier_alliance'],
      type: 'string',
      values: ['star_alliance', 'oneworld', 'skyteam'],
      value_aliases: {
        star_alliance: ['star', 'star_aliance'],
        oneworld: ['one_world', 'oneworl'],
        skyteam: ['sky_team', 'skytem'],
      },
      why: 'Twenty booking clients ask to stay within one airline alliance (Star Alliance, oneworld, SkyTeam; SkyTeam common only from day 12), sometimes by naming member airlines: a string enum of proper nouns.',
    },
    clients: 20,
    start: 0,
    p: 0.28,
    groups: [
      { texts: ALLIANCE_STAR, value: 'star_alliance', weight: 2 },
      { texts: ALLIANCE_ONEWORLD, value: 'oneworld', weight: 1.5 },
      { texts: ALLIANCE_SKYTEAM, value: 'skyteam', weight: 0.25 },
      { texts: ALLIANCE_SKYTEAM, value: 'skyteam', from: 12, adopt: 0.45 },
    ],
  },
];

const recurringPhoto: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'output_format',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['output_format', 'file_format', 'image_format', 'export_format', 'output_file_format', 'delivery_format'],
      type: 'string',
      values: ['jpeg', 'png', 'tiff', 'webp'],
      value_aliases: { jpeg: ['jpg', 'jpgs', 'jpegs'], png: ['pngs'], tiff: ['tif'], webp: ['web_p'] },
      why: 'Twenty photo clients say which file format the edited pictures come back in (JPEG, PNG, TIFF, WebP; WebP common only from day 12): a string enum.',
    },
    clients: 20,
    start: 0,
    p: 0.3,
    groups: [
      { texts: FMT_JPEG, value: 'jpeg', weight: 1.6 },
      { texts: FMT_PNG, value: 'png', weight: 1.3 },
      { texts: FMT_TIFF, value: 'tiff', weight: 1.3 },
      { texts: FMT_WEBP, value: 'webp', weight: 0.25 },
      { texts: FMT_WEBP, value: 'webp', from: 12, adopt: 0.4 },
    ],
  },
  {
    gold: {
      id: 'double_chin_reduction',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['double_chin_reduction', 'double_chin_removal', 'chin_slimming', 'jawline_tightening', 'reduce_double_chin', 'jawline_contouring'],
      type: 'boolean',
      values: [],
      why: 'Fifteen photo clients ask to slim a double chin, with varied verbs (slim, get rid of, tighten, hide, reduce) and nouns (double chin, second chin, jawline, papada, Doppelkinn): a yes/no need.',
    },
    clients: 15,
    start: 0,
    p: 0.3,
    groups: [{ texts: CHIN }],
  },
  {
    gold: {
      id: 'max_file_size_mb',
      scenario: p,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['max_file_size_mb', 'max_file_size', 'file_size_limit', 'max_size_mb', 'file_size_limit_mb', 'maximum_file_size'],
      type: 'number',
      values: [],
      why: 'Sixteen photo clients give a ceiling on the size of each file (5 MB, 2.5 megabytes, ten megs, twenty megabytes): a number, fractional at times.',
    },
    clients: 16,
    start: 1,
    p: 0.3,
    groups: [{ texts: MAX_SIZE }],
  },
];

const recurringFault: StreamSpec['recurring'] = [
  {
    gold: {
      id: 'vlan_id',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['vlan_id', 'affected_vlan', 'vlan', 'vlan_number', 'affected_vlan_id'],
      type: 'integer',
      values: [],
      why: 'Fourteen NOC clients name the VLAN the fault is on (204, 1130, three hundred): one integer id a fragment.',
    },
    clients: 14,
    start: 0,
    p: 0.35,
    groups: [{ texts: VLAN }],
  },
  {
    gold: {
      id: 'planned_work_suspected',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['planned_work_suspected', 'maintenance_related', 'planned_maintenance_suspected', 'change_related', 'caused_by_planned_work', 'possible_maintenance_cause'],
      type: 'boolean',
      values: [],
      why: 'Fourteen NOC clients suspect that planned works caused the fault (scheduled maintenance, a change window, an upgrade, a firmware rollout, night work, 割接): a yes/no need said with varied nouns.',
    },
    clients: 14,
    start: 0,
    p: 0.33,
    groups: [{ texts: PLANNED_WORK }],
  },
  {
    gold: {
      id: 'detection_source',
      scenario: m,
      kind: 'recurring',
      expect: 'global',
      acceptable_names: ['detection_source', 'report_source', 'reported_by', 'detected_by', 'discovery_channel', 'fault_source_channel'],
      type: 'string',
      values: ['customer_calls', 'monitoring', 'field_engineer', 'social_media'],
      value_aliases: {
        customer_calls: ['call_centre', 'call_center', 'hotline', 'customers', 'calls', 'callcenter'],
        monitoring: ['nms', 'zabbix', 'dashboard', 'alarm', 'supervision'],
        field_engineer: ['field', 'technician', 'field_team', 'crew', 'on_site'],
        social_media: ['twitter', 'facebook', 'social', 'redes_sociales', 'instagram'],
      },
      why: 'Sixteen NOC clients say how the fault came to light (customer calls, monitoring, a field engineer, social media; social media common only from day 12): a string enum.',
    },
    clients: 16,
    start: 0,
    p: 0.33,
    groups: [
      { texts: SRC_CALLS, value: 'customer_calls', weight: 1.6 },
      { texts: SRC_MONITORING, value: 'monitoring', weight: 1.4 },
      { texts: SRC_FIELD, value: 'field_engineer', weight: 1.4 },
      { texts: SRC_SOCIAL, value: 'social_media', weight: 0.25 },
      { texts: SRC_SOCIAL, value: 'social_media', from: 12, adopt: 0.4 },
    ],
  },
];

export const spec: StreamSpec = {
  name: 'dev-10',
  seed: 35807,
  start: '2026-02-09',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [...recurringFlight, ...recurringPhoto, ...recurringFault],
  personal: [
    {
      gold: {
        id: 'personal:keep_grey_hair',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-gry614',
        acceptable_names: ['keep_grey_hair', 'preserve_grey_hair', 'no_hair_colouring', 'keep_natural_hair_color', 'keep_gray_hair'],
        type: 'boolean',
        values: [],
        why: 'One photo client asks 4-6 times a day for a week that its grey hair be left alone: a per-client key; no global key.',
      },
      client: 'agent-gry614',
      start: 6,
      end: 13,
      perDay: [4, 6],
      texts: GREY_HAIR,
    },
    {
      gold: {
        id: 'personal:ticket_notes_in_spanish',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-esp208',
        acceptable_names: ['ticket_notes_in_spanish', 'ticket_language', 'notes_language', 'spanish_ticket_notes', 'ticket_notes_language'],
        type: 'boolean',
        values: [],
        why: 'One NOC client asks 5-7 times a day for a week that ticket notes be written in Spanish for its field crew: a per-client key; no global key.',
      },
      client: 'agent-esp208',
      start: 17,
      end: 24,
      perDay: [5, 7],
      texts: NOTES_IN_SPANISH,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:promo_code_rejected',
        scenario: f,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One booking client relays that its promo code is rejected 38 times in 45 minutes on day 10 (shares "code" and "number"-like ids with the loyalty need): no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-prm903',
      day: 10,
      hourUtc: 18.5,
      count: 38,
      minutes: 45,
      texts: PROMO_BURST,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
