/**
 * heldout-2 (written as stream B, held out): thirty days of `other` fragments over the three seeded scenarios
 * (draft-zhou §6.2). Every phrasing below was written by hand for this stream; none is taken or reworded from the
 * dev streams or from heldout-1. bench/data/evolution/schedule.ts only decides who sends which one when (seeded).
 * `npx tsx bench/heldout/evolution/make-heldout-2.ts` rewrites heldout-2.jsonl and heldout-2.gold.json byte for byte.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from '../../data/evolution/schedule';

// ---- flight_booking -------------------------------------------------------------------------------------------

const INSURANCE = [
  'add cover in case I get sick abroad',
  'I want the trip protected if it gets cancelled',
  'include travel insurance',
  'a policy for lost luggage and medical bills',
  '旅行保险要买',
  '海外旅行保険をつけて',
  'con seguro de viaje',
  'Reiserücktrittsversicherung dazu',
  "avec l'assurance annulation",
  'страховку добавьте',
  'insurnace yes',
  'protect the booking against cancellation fees',
  'if something goes wrong I want to be reimbursed, get me covered',
];

const INFANTS = [
  'plus a baby on my lap',
  'we travel with twins, both under one',
  'one infant, 8 months',
  'two lap children',
  'my newborn comes too',
  '带一个婴儿',
  '乳児1名',
  'con un bebé de 10 meses',
  'mit Kleinkind unter 2 Jahren',
  'un bébé sur les genoux',
  'infnat x1',
  'a little one under two years old',
  'and our 5-month-old son, no seat for him',
];

const MORNING = ['earliest possible departure, before 9', 'a morning flight', 'leave at dawn', '午前中の便', '上午出发', 'vuelo por la mañana', 'mornig departure pls', 'wheels up by 8am ideally'];
const AFTERNOON = ['after lunch', 'leave around 3pm', 'nachmittags bitte', "départ l'après-midi", 'sometime between 1 and 5'];
const EVENING = ['after work, 7pm or later', 'an evening departure', '晚上的航班', 'en soirée', 'abends fliegen', 'once the sun is down'];
const OVERNIGHT = ['the red-eye', 'sleep on the plane, overnight', 'a night flight that lands early', '夜行便', 'vuelo nocturno', 'overnite one'];

const TOGETHER = [
  'keep the four of us in one row',
  'we must sit next to each other',
  "don't split our family across the plane",
  'adjacent places for me and my son',
  'my partner and I side by side please',
  'a group booking, everyone seated as a block',
  '座位要挨在一起',
  '家族みんな隣同士で',
  'asientos juntos, por favor',
  'bitte nebeneinander sitzen',
  'places côte à côte',
  'sit togehter pls',
  "the kids (6 and 8) can't be rows away from us",
];

// ---- photo_retouch --------------------------------------------------------------------------------------------

const GLARE = [
  'my specs reflect the softbox, clean that up',
  'glare on his glasses hides the eyes',
  "there's a white shine on the lenses",
  'remove reflection from eyeglasses',
  '眼镜反光去掉',
  'メガネの反射を消して',
  'quitar el reflejo de las gafas',
  'Spiegelung in der Brille entfernen',
  'reflets sur les lunettes à enlever',
  'убрать блики на очках',
  'glasess glare fix',
  'spectacles catching the window light',
];

const CUTOUT = [
  'cut me out onto a transparent background',
  'PNG with no backdrop, just the product',
  'remove the background completely',
  'isolate the subject, alpha channel',
  '抠图，透明底',
  '背景を透過して',
  'fondo transparente',
  'freistellen bitte, transparenter Hintergrund',
  'détourage sur fond transparent',
  'sticker-style, nothing behind the person',
  'backgound removed entirely',
  'knock out everything except the shoe',
];

// Film stocks and colour grades: filter_style said another way.
const FILM_VINTAGE = ['Kodachrome look', 'like a Polaroid from 1978', 'faded film with light leaks', 'レトロなフィルム風', 'grainy expired-film vibe'];
const FILM_CINEMATIC = ['teal and orange grade', 'anamorphic movie look', 'blockbuster colour grade', '电影感调色', 'like a frame from a thriller', 'Kinolook'];
const FILM_WARM = ['golden Portra tones', 'honey-toned', 'like Kodak Gold 200', 'tonos cálidos de película', 'sunny amber grade'];
const FILM_COOL = ['icy blue Nordic grade', 'CineStill tungsten blue', 'cold steel tones', 'froid et bleuté', 'winter-morning blue cast'];

// ---- fault_management -----------------------------------------------------------------------------------------

const VOICE = ['people cannot make calls', 'calls drop after a few seconds', '打不了电话', 'no se pueden hacer llamadas', 'voice is dead, the rest works', 'Telefonie gestört'];
const DATA = ['mobile internet is down', 'browsing and apps time out', '上不了网', '4G data not working', 'pas de data mobile', 'data sessions fail, calls ok'];
const SMS = ['texts are not delivered', 'SMS stuck in the queue', '短信发不出去', 'SMSが届かない', 'los mensajes de texto no llegan', 'OTP codes by text never arrive', 'sms not gettng through'];

const PROTECTION = [
  'the backup path is down too, we are unprotected',
  'ring already switched, no redundancy left',
  'both legs of the ring are gone',
  'single point of failure now, the standby route failed',
  '保护路径也断了',
  '冗長経路も断',
  'sin redundancia',
  'Schutzweg ebenfalls ausgefallen',
  "plus de secours sur l'anneau",
  'protecton lost on the ring',
  'the 1+1 spare is dead as well',
  'running without any fallback link',
];

const RECENT_CHANGE = [
  'a config push went out at 02:00, right before it broke',
  'the software was upgraded last night',
  'someone changed the routing policy an hour ago',
  'it started just after the maintenance job finished',
  'new firmware was loaded on the BBU yesterday',
  'we swapped a board this morning and then this',
  '昨晚刚做过割接',
  '直前に設定変更あり',
  'justo después de un cambio de configuración',
  'nach dem Update gestern Abend',
  'juste après la mise à jour du logiciel',
  'a patch was aplied at 23:00',
];

// ---- personal needs and bursts --------------------------------------------------------------------------------

const LOGO = [
  'put the Lumen Studio logo bottom right, 8% width',
  'our logo in the lower right corner as usual',
  'Lumen mark bottom-right please',
  'logo placement: bottom right, small',
  'same branding as before, Lumen logo lower right',
  'add our studio logo, right-hand bottom corner',
];

const CORP_CODE = [
  'use corporate code ACME-TRV-22',
  'book it on our company agreement ACME-TRV-22',
  'corporate fare code: ACME-TRV-22',
  'Acme contract rate please (ACME-TRV-22)',
  'apply our negotiated code again',
  'company deal code ACME TRV 22',
];

const REFUND = ['any news about my refund?', 'refund??', 'still waiting for my refund', 'where is my refund', 'did the refund go through'];
const PING = ['test, did you receive this?', 'test', 'ping', 'is this channel working? test', 'receiving? test msg'];

// ---- noise: one-off fragments, many sharing words with the needs above ----------------------------------------

const NOISE_FLIGHT = [
  'is the insurance on my credit card enough, just asking',
  'my baby brother is getting married',
  'we had a lovely evening last time in Rome',
  'the morning news says strikes are planned',
  'what time is it there now?',
  'star rating of the hotel does not matter',
  'my world is upside down this week',
  'is there a night bus from the airport',
  'the travel agency closed down',
  'I sleep badly on trains',
  'the policy of my company changed in June',
  'cancel nothing yet, just looking',
  'Delta of the river is beautiful they say',
  'lost my luggage tag',
  'what is the time difference with Tokyo',
  'I am a member of the gym, not of any airline club',
  'my son wants to be a pilot',
  'we travelled together last year and loved it',
  'the seat map does not load on my phone',
  'we are a team of five, booking separately',
  'this is for a conference',
  'my kids love the window',
  'thank you so much',
  'ありがとうございます',
  '好的',
  'bitte schnell',
  'merci beaucoup',
  'gracias',
  'do you do hotels too?',
  'my passport expires in March',
  'the afternoon tea at the lounge was great last time',
  'remind me tomorrow',
  'how many days is the visa valid',
  'the cancellation email went to spam',
  'is it the same plane as the outbound',
  'can I get a receipt for the taxes',
  'please be quick, boarding soon on another trip',
];

const NOISE_PHOTO = [
  'my glasses broke so I cannot see well, sorry for typos',
  'the logo of my cafe is in the photo, that is fine',
  'background music on your site is nice',
  'transparent pricing please, how much is it',
  'we watched a movie after the shoot',
  'the film roll was scanned at the lab',
  'it was a cold morning on the lake',
  'this is the last photo, promise',
  'the shoe shop wants more pictures next week',
  'my specs prescription changed, unrelated',
  'it rained the whole trip',
  'the product is a handmade bag',
  'I like warm people, not warm filters lol',
  'the reflection in the lake is beautiful',
  'I used a tripod this time',
  'cinema tickets were expensive',
  'send me a preview before final',
  'can I get a refund if I hate it',
  '这张是手机拍的',
  '写真は三枚あります',
  'foto de mi boda',
  'Bild ist etwas dunkel',
  'photo prise au coucher du soleil',
  'the studio is closed on Sundays',
  'I am shy about my photos',
  'please hurry, the print shop closes at 6',
  'the grain is from my old camera, keep it if it is nice',
  'do you keep copies of my photos?',
  'my sister has the original',
  'our dog is in the corner, leave him',
  'no rush',
  'the file name has my surname',
  'my cousin recommended you',
  'is the app free',
  'do not crop my feet please',
];

const NOISE_FAULT = [
  'the weather forecast for tomorrow is fine',
  'heat map of alarms looks odd on the dashboard',
  'the ring road is closed, field team delayed',
  'too many calls from the press today',
  'the data centre tour is on Friday',
  'change of shift at 19:00',
  'text me the summary later, no rush',
  'our vendor account manager changed',
  'snow tyres for the vans are in',
  'backup of the OSS database ran last night',
  'the new protection relay in the substation is not our business',
  'the Huawei training was moved to Thursday',
  'the flood of emails from the monitoring tool is annoying',
  'redundant meeting invites from the PMO',
  'lightning talk at the engineering day went well',
  'Ericsson invoice is disputed by finance',
  'the river crossing bridge has works, detour via north',
  'who keeps the spare keys for the hub?',
  'please reply to the whole team',
  'incident review call at 15:00',
  'the night shift found nothing else',
  'we lost the spreadsheet of site owners',
  'our ticket SLA report is late',
  '明天开会',
  '了解',
  'muchas gracias',
  'danke',
  "c'est noté",
  'site visit photos uploaded to the share',
  'the new NOC screens are installed',
  'keep me posted',
  'cafeteria is closed today',
  'rain expected this afternoon but nothing severe',
  'we are short staffed this week',
  'the KPI dashboard is slow',
  'transport team has a new head',
  'the single sign-on failed for me this morning',
  'is there a summary I can forward',
  'good job everyone',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

export const spec: StreamSpec = {
  name: 'heldout-2',
  seed: 77213,
  start: '2026-08-03',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [
    {
      gold: {
        id: 'travel_insurance',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['travel_insurance', 'add_travel_insurance', 'include_insurance', 'wants_insurance', 'trip_insurance'],
        type: 'boolean',
        values: [],
        why: 'Twenty-five booking clients want the trip insured (medical, cancellation, lost luggage): boolean (a choice of cover type would be a bonus, not required).',
      },
      clients: 25,
      start: 0,
      p: 0.3,
      groups: [{ texts: INSURANCE }],
    },
    {
      gold: {
        id: 'infant_count',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['infant_count', 'lap_infant_count', 'infants', 'number_of_infants', 'infant_passengers'],
        type: 'integer',
        values: [],
        why: 'Sixteen clients from day 4 add babies under two who sit on a lap ("twins, both under one", "one infant, 8 months"): a count → integer. Not passenger_count (infants travel without a seat); refining passenger_count to include them is a weaker but defensible outcome.',
      },
      clients: 16,
      start: 4,
      p: 0.3,
      groups: [{ texts: INFANTS }],
    },
    {
      gold: {
        id: 'departure_time_of_day',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['departure_time_of_day', 'preferred_departure_time', 'time_of_day', 'departure_time_window', 'departure_period'],
        type: 'string',
        values: ['morning', 'afternoon', 'evening', 'overnight'],
        value_aliases: {
          morning: ['dawn', 'before 9', '午前', '上午', 'mañana', '8am'],
          afternoon: ['after lunch', '3pm', 'nachmittags', "l'après-midi", 'between 1 and 5'],
          evening: ['after work', '7pm', '晚上', 'soirée', 'abends'],
          overnight: ['red-eye', 'night flight', '夜行便', 'nocturno', 'overnite'],
        },
        why: 'Twenty-eight booking clients want a part of the day for the departure; overnight (red-eye) flights are rare until day 13, then about 40% of the clients move to them: string enum.',
      },
      clients: 28,
      start: 0,
      p: 0.3,
      groups: [
        { texts: MORNING, value: 'morning', weight: 3 },
        { texts: AFTERNOON, value: 'afternoon', weight: 1.5 },
        { texts: EVENING, value: 'evening', weight: 2 },
        { texts: OVERNIGHT, value: 'overnight', weight: 0.3 },
        { texts: OVERNIGHT, value: 'overnight', from: 13, adopt: 0.4 },
      ],
    },
    {
      gold: {
        id: 'seats_together',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['seats_together', 'sit_together', 'adjacent_seats', 'keep_party_together', 'seat_party_together'],
        type: 'boolean',
        values: [],
        why: 'Seventeen clients from day 6 want their party seated side by side ("one row", "next to each other", "隣同士"): boolean. Not a window/aisle preference, though both are about seats.',
      },
      clients: 17,
      start: 6,
      p: 0.3,
      ramp: 4,
      groups: [{ texts: TOGETHER }],
    },
    {
      gold: {
        id: 'glasses_glare_removal',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['glasses_glare_removal', 'remove_glasses_glare', 'remove_lens_reflection', 'glasses_reflection_removal', 'fix_glasses_glare'],
        type: 'boolean',
        values: [],
        why: 'Twenty photo clients want reflections on eyeglass lenses removed: boolean.',
      },
      clients: 20,
      start: 0,
      p: 0.3,
      groups: [{ texts: GLARE }],
    },
    {
      gold: {
        id: 'transparent_background',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['transparent_background', 'remove_background', 'background_removal', 'cutout', 'isolate_subject'],
        type: 'boolean',
        values: [],
        why: 'Twenty-two photo clients from day 2 want the subject cut out on a transparent background (product shots, stickers): boolean. Not background_blur, though both talk about the background; an output-format key with png is a weaker reading.',
      },
      clients: 22,
      start: 2,
      p: 0.32,
      groups: [{ texts: CUTOUT }],
    },
    {
      gold: {
        id: 'film_look',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['filter_style', 'film_look', 'color_grade', 'film_stock', 'colour_grade'],
        type: 'string',
        values: ['vintage', 'cinematic', 'warm', 'cool'],
        value_aliases: {
          vintage: ['Kodachrome', 'Polaroid', 'faded film', 'light leaks', 'expired film', 'レトロ'],
          cinematic: ['teal and orange', 'anamorphic', 'blockbuster', '电影感', 'thriller', 'Kinolook'],
          warm: ['Portra', 'honey', 'Kodak Gold', 'cálidos', 'amber'],
          cool: ['icy blue', 'CineStill', 'cold steel', 'bleuté', 'blue cast'],
        },
        refines_base_key: 'filter_style',
        why: 'Twenty-four photo clients ask for a look by film stock or colour grade ("Kodachrome", "teal and orange", "Portra"): the base key filter_style said another way. The right outcome is a refinement of filter_style (its description should map these names to vintage/cinematic/warm/cool), not a new key beside it.',
      },
      clients: 24,
      start: 0,
      p: 0.3,
      groups: [
        { texts: FILM_VINTAGE, value: 'vintage', weight: 2 },
        { texts: FILM_CINEMATIC, value: 'cinematic', weight: 2 },
        { texts: FILM_WARM, value: 'warm', weight: 1.5 },
        { texts: FILM_COOL, value: 'cool', weight: 1 },
      ],
    },
    {
      gold: {
        id: 'affected_service',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['affected_service', 'impacted_service', 'service_type', 'affected_service_type', 'service_impact'],
        type: 'string',
        values: ['voice', 'data', 'sms'],
        value_aliases: {
          voice: ['calls', 'llamadas', '电话', 'Telefonie'],
          data: ['mobile internet', 'browsing', '上网', '4G data', 'data mobile'],
          sms: ['texts', 'SMS', '短信', 'mensajes de texto', 'OTP codes'],
        },
        why: 'Sixteen NOC clients say which service the customers lost; SMS is rare until day 16 (a messaging-centre problem), then about half the clients report it: string enum (an array of services is a defensible richer shape).',
      },
      clients: 16,
      start: 0,
      p: 0.38,
      groups: [
        { texts: VOICE, value: 'voice', weight: 2 },
        { texts: DATA, value: 'data', weight: 2 },
        { texts: SMS, value: 'sms', weight: 0.3 },
        { texts: SMS, value: 'sms', from: 16, adopt: 0.5 },
      ],
    },
    {
      gold: {
        id: 'protection_lost',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['protection_lost', 'redundancy_lost', 'no_protection_path', 'unprotected', 'protection_path_down'],
        type: 'boolean',
        values: [],
        why: 'Fourteen NOC clients from day 3 report that the standby or protection route is down as well (the service now has no redundancy): boolean.',
      },
      clients: 14,
      start: 3,
      p: 0.4,
      groups: [{ texts: PROTECTION }],
    },
    {
      gold: {
        id: 'recent_change_suspected',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['recent_change_suspected', 'recent_change', 'after_recent_change', 'change_related', 'preceded_by_change'],
        type: 'boolean',
        values: [],
        why: 'Fifteen NOC clients from day 5 report that a change (configuration push, software upgrade, board swap) shortly preceded the fault: boolean (a time or change id is a bonus). Not a change freeze, though both talk about changes.',
      },
      clients: 15,
      start: 5,
      p: 0.38,
      groups: [{ texts: RECENT_CHANGE }],
    },
    {
      gold: {
        id: 'site_photo_attached',
        scenario: m,
        kind: 'recurring',
        expect: 'none',
        acceptable_names: ['site_photo_attached', 'has_site_photo', 'photo_attached'],
        type: 'boolean',
        values: [],
        why: 'A weak need: at most three clients and a handful of fragments over the month (see census); below any reasonable dual gate.',
      },
      clients: 3,
      start: 6,
      p: 0.06,
      groups: [{ texts: ['photo of the cabinet attached', 'pic from the field tech included', 'see the attached site image'] }],
    },
  ],
  personal: [
    {
      gold: {
        id: 'personal:studio_logo_position',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-st0d10',
        acceptable_names: ['logo_position', 'studio_logo_position', 'brand_logo_placement', 'logo_placement', 'add_studio_logo'],
        type: 'string',
        values: [],
        why: "One studio asks 4-7 times a day for eight days (days 7-14) that its logo go bottom right: per-client key (a position string, or a boolean add_studio_logo); no global key.",
      },
      client: 'agent-st0d10',
      start: 7,
      end: 14,
      perDay: [4, 7],
      texts: LOGO,
    },
    {
      gold: {
        id: 'personal:corporate_fare_code',
        scenario: f,
        kind: 'personal',
        expect: 'client:agent-c0rpbk',
        acceptable_names: ['corporate_fare_code', 'corporate_code', 'company_agreement_code', 'negotiated_fare_code', 'corporate_deal_code'],
        type: 'string',
        values: [],
        why: "One company travel desk asks 4-6 times a day for ten days (days 17-26) for its negotiated fare code: per-client string key; no global key.",
      },
      client: 'agent-c0rpbk',
      start: 17,
      end: 26,
      perDay: [4, 6],
      texts: CORP_CODE,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:refund_status',
        scenario: f,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: "One traveller's assistant asks about a refund 40 times in 50 minutes on day 10 (off-topic for a new booking): one client, no global key. A per-client trigger is acceptable, though no useful key follows.",
      },
      client: 'agent-r3fund',
      day: 10,
      hourUtc: 14.6,
      count: 40,
      minutes: 50,
      texts: REFUND,
    },
    {
      gold: {
        id: 'burst:channel_test',
        scenario: m,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: 'One NOC client sends test pings 34 times in 35 minutes on day 20 (channel check, not a schema gap): no global key; a per-client trigger is acceptable.',
      },
      client: 'agent-p1ngt5',
      day: 20,
      hourUtc: 22.75,
      count: 34,
      minutes: 35,
      texts: PING,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
  notes:
    'Held-out stream B. Refinement: film_look refines filter_style. Values that become common later: overnight departures (day 13), SMS outages (day 16). Weak: site_photo_attached (expect none). Personal: studio_logo_position, corporate_fare_code. Bursts: refund_status (off-topic), channel_test (chatter). Noise shares words with the needs (insurance, baby, morning, night, together, glasses, logo, transparent, film, warm, calls, data, texts, protection, upgrade, change).',
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
