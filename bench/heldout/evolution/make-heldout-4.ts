/**
 * heldout-4 (round 6, held out): thirty days of `other` fragments over the three seeded scenarios
 * (draft-zhou §6.2). Every phrasing below was written by hand for this stream; none is taken or reworded from the
 * dev streams or from heldout-1/2/3. bench/data/evolution/schedule.ts only decides who sends which one when (seeded).
 * `npx tsx bench/heldout/evolution/make-heldout-4.ts` rewrites heldout-4.jsonl and heldout-4.gold.json byte for byte.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from '../../data/evolution/schedule';

// ---- flight_booking -------------------------------------------------------------------------------------------

const FARE_NONREF = [
  'the cheapest ticket is fine even if I lose it when plans move',
  'no need to pay extra for flexibility, my dates are fixed',
  'a basic saver ticket without money back is ok',
  'I accept a ticket that cannot be altered or reimbursed',
  'lowest price, conditions do not matter to me',
  'billete sin reembolso, el más barato',
  '不退不改的票就行',
  'Spartarif ohne Umbuchung reicht völlig',
  'le moins cher, même sans aucune souplesse',
  'nonrefundible is fine, price matters more',
];

const FARE_CHANGE = [
  'I must be able to move the date later without a penalty',
  'free rebooking please; getting cash back is not needed',
  'a ticket I can switch to another day if my meeting shifts',
  'date changes allowed, I might fly a day later',
  'billete con cambios gratis',
  '日付変更ができる運賃で',
  'umbuchbar sollte es sein',
  'bilhete com alteração de data sem custo',
  'rebookable tiket pls',
];

const FARE_REFUND = [
  'fully refundable, the whole trip might be called off',
  'I need all my money back if I cancel',
  'our travel policy requires a reimbursable ticket',
  'pick a fare with a full refund if I drop out',
  '可以全额退款的票',
  '払い戻し可能なチケットにして',
  'billet remboursable intégralement',
  'passagem reembolsável, por favor',
  'erstattungsfähiges Ticket bitte',
  'refundabel fare only',
];

const BIRTH_DATE = [
  'passenger born 14 March 1988',
  'date of birth: 1990-07-02',
  'DOB 02/11/1979',
  'she was born on the 5th of Jnue 2001',
  'my birthday is 23 Sept 1984, the form asks for it',
  "traveller's d.o.b. = 11.05.1971",
  '出生日期 1992年8月17日',
  '生年月日は1985年4月3日です',
  'fecha de nacimiento: 9 de enero de 1993',
  'geboren am 17.06.1982',
  'né le 21 août 1975',
  'data de nascimento 30/10/1996',
  'date of brith 7 Feb 1968',
];

const PRIORITY_BOARDING = [
  'I want to get on the plane first',
  'priority boarding please',
  'let me board early, I have a big carry-on',
  'put me in the first boarding group',
  'early boarding so I find overhead space',
  'add the speedy boarding extra',
  '优先登机',
  '優先搭乗をお願いします',
  'embarque prioritario',
  'bevorzugtes Boarding, bitte',
  "embarquement prioritaire s'il vous plaît",
  'quero entrar no avião antes dos outros',
  'priorty boarding if possible',
];

const HOTEL_NIGHTS = [
  'add a hotel for 3 nights',
  'I also need a room for two nights at the destination',
  'package with five nights of acommodation',
  'book me somewhere to sleep, 4 nights',
  'a stay of seven nights, include lodging',
  'just a single night in a hotel near the terminal',
  'a fortnight in a hotel there',
  '酒店住四晚',
  'ホテルを2泊追加して',
  'hotel por cuatro noches',
  'Hotel für drei Nächte dazu',
  'hôtel pour deux nuits',
  'seis noites de hospedagem',
  'hotle for ten nights',
];

const CODESHARE = [
  'no codeshare flights please',
  'I want the airline on my ticket to actually fly the plane',
  'avoid flights operated by a partner carrier',
];

const BOARDING_PASS = [
  'still no boarding pass in my inbox',
  'the boarding pass email never arrived',
  'where is the boarding pass?',
  'resend the boarding pass',
  'nothing in spam either, no boarding pass',
];

// ---- photo_retouch --------------------------------------------------------------------------------------------

const EYE_BLUE = ['can the eyes come out blue?', 'icy blue irises please', 'could the eyes be a deep sapphire shade', 'change her eye colour to light blue', '眼睛改成蓝色', '瞳を青くして', 'ojos azules, por favor', 'olhos azuis', 'blu eyes pls'];
const EYE_GREEN = ['green eyes like a cat', 'emerald irises', 'give him jade-coloured eyes', 'turn the eyes a mossy shade', '绿色的眼睛', 'grüne Augen', 'des yeux verts', 'gren eyes please'];
const EYE_BROWN = ['warm brown eyes', 'chocolate-coloured irises', 'darker eyes, hazel or chestnut', 'ojos marrones', '茶色の瞳に', 'braune Augen', 'olhos castanhos'];
const EYE_GREY = ['grey eyes', 'steel-grey irises', 'silvery gray eyes please', 'make the iris a cool slate colour', 'ojos grises', '灰色の瞳', 'yeux gris', 'gray eyse'];

const BEARD = [
  'shave off my beard',
  'clear the stubble off his jaw',
  'clean-shaven look plese',
  "lose the five o'clock shadow",
  'erase the moustache',
  'no facial hair in the final picture',
  'take away the goatee',
  '把胡子去掉',
  'ヒゲは無しにしてほしい',
  'quítale la barba',
  'Bart wegretuschieren',
  'enlève la barbe de trois jours',
  'tira a barba dele',
  'remve my stuble',
];

const BRAND_LOGOS = [
  'hide the Nike swoosh on my shirt',
  'the brand name on the cup has to go',
  'blur out any trademarks, it is for an ad',
  'the emblem on his cap should vanish',
  'no visible labels on the bottle',
  'take the Adidas stripes off the jacket',
  'scrub the company mark from the tote bag',
  '把衣服上的商标去掉',
  'ロゴを消して',
  'borra la marca de la camiseta',
  'Markenlogo auf dem Pulli entfernen',
  'efface le logo sur le sac',
  'apaga a marca do boné',
  'remove the logoes on the sneakers',
];

const DELIVERY_FOLDER = [
  'put the finished files in Dropbox /Clients/Okafor/Final',
  'upload results to my Dropbox folder Clients/Okafor/Final',
  'same Dropbox path as always: /Clients/Okafor/Final',
  'deliver into /Clients/Okafor/Final on Dropbox',
  'Dropbox → Clients/Okafor/Final please',
];

const DOWNLOAD_EXPIRED = [
  'the download link says expired',
  'the link is dead again',
  'cannot download my photos, the link is dead',
  'the new link has expired too',
  'download page says 410 gone',
];

// ---- fault_management -----------------------------------------------------------------------------------------

const RAT_2G = ['only the GSM cells are affected', '2G voice layer down', 'the 900 MHz GSM carrier', 'legacy 2G sites', 'GSM 小区退服', 'capa 2G caída', 'nur GSM betroffen', 'réseau 2G seulement', 'GMS cells out'];
const RAT_3G = ['UMTS only', 'the 3G NodeBs', 'WCDMA carrier gone', "it's the 3G layr", 'solo 3G', 'UMTS-Zellen weg', 'rede 3G fora', '3G のみ'];
const RAT_4G = ['LTE layer', 'the 4G eNodeB cells', 'band 20 LTE sectors', 'LTE 小区告警', 'LTEのセルだけ', '4G únicamente', 'nur LTE', 'LET cells dropping'];
const RAT_5G = ['5G NR cells', 'the n78 carriers', 'standalone 5G layer', 'NR sectors only', '5G 小区', '5Gのセルのみ', 'células 5G', 'nur 5G NR'];

const CIRCUITS = [
  'circuits CKT-40121 and CKT-40122 are down',
  'customer lines E-LINE-7731, E-LINE-7740 lost service',
  'impacted services: ETH/0044812, ETH/0044815, ETH/0044820',
  'leased lines LL-9021 + LL-9022 afected',
  'the wavelengths WL-ams-0113 and WL-ams-0114 dropped',
  'service IDs 88-KQXA-1182 and 88-KQXA-1190',
  'just one circuit, PW-38815',
  '受影响电路 CKT-3301、CKT-3302',
  '影響回線 K-55120 と K-55121',
  'circuitos afectados: CIR-7781, CIR-7782',
  'betroffene Leitungen DE-ETH-4410 und DE-ETH-4411',
  'circuits impactés : FR-LS-2201, FR-LS-2202',
  'circuitos afetados BR-EL-0901 e BR-EL-0902',
  'ciruits CKT-61003, CKT-61004, CKT-61009 down',
];

const TEST_FULL = [
  'go ahead and shoot an OTDR trace on the span',
  'run a BER test end to end',
  'intrusive testing is allowed on this one',
  'check the light levels at both ends too',
  'you may put a test set on the line',
  'do the active measurements, the customer agreed to an interruption',
  'ping sweep and traceroute from the PE please',
  '可以做主动测试',
  'アクティブ試験まで実施して',
  'haz pruebas activas completas',
  'gern auch mit Messungen auf der Strecke',
  'tu peux lancer des tests intrusifs',
  'pode fazer os testes ativos',
  'run the whole batery of tests',
];

const TEST_QUICK = [
  'alarms and topology only, do not touch the line',
  'no intrusive tests, live traffic',
  'passive analysis is enough',
  'just correlate, no measurements',
  'hands off the equipment, just tell me where it broke',
  '只看告警，不要测试',
  '試験はしないで、相関分析だけで',
  'sin pruebas, solo correlación',
  'nur Alarmkorrelation, keine Tests',
  'pas de tests, juste la corrélation',
  'só análise passiva',
  'dont run any tets',
];

const EMERGENCY = [
  '112 calls are failing in the area',
  'poeple cannot reach 911',
  'emergency services unreachable from mobiles here',
  'ambulance and police numbers do not connect',
  'the fire brigade line is dead from this exchange',
  'calls to 999 drop after two rings',
  'life-safety calls impacted',
  '110 和 120 打不通',
  '119番がつながらない',
  'no se puede llamar al 112',
  'Notrufe gehen nicht durch',
  "les appels d'urgence ne passent pas",
  'ligações para o 190 não completam',
  'emergancy numbers unreachable',
];

const TIMEZONE = [
  'give me all times in Singapore time',
  'timestamps in SGT please',
  'convert times to UTC+8 (Singapore)',
  'our reports use Asia/Singapore',
  'local time for us is Singapore, not UTC',
];

// ---- noise: one-off fragments, many sharing words with the needs above ----------------------------------------

const NOISE_FLIGHT = [
  'my dad was born in Lisbon, he is so excited to go back',
  'my company reimburses me afterwards, show the VAT please',
  'what does the fare include exactly?',
  'birthday trip for my wife, keep it a surprise',
  'the boarding gate changed twice last time',
  'my hotel sent a shuttle last year, very handy',
  'we land at night, is the metro still running?',
  'which partner airlines earn miles with you?',
  "contact lenses and twelve-hour flights don't mix for my eyes",
  'the blue seats on that airline are comfy',
  'my grey suitcse has a broken wheel',
  'is there somewhere to shave after the overnight leg?',
  'the logo on your app changed, is this still the official site?',
  'I keep the tickets in a Dropbox foldr somewhere',
  'the link in your confirmation mail is broken',
  'my phone is on 3G abroad so replies may be slow',
  'the circuit breaker at home tripped while I was booking lol',
  'I tested the app on my tablet too',
  'in an emergency, who do I call at the airport?',
  'what timezone are the times on the ticket in?',
  'my brother got married last week, that is why we fly',
  'the price jumped while I was typing',
  'first time flying since 2019',
  'bumpy landings freak my son out',
  'can my aunt pay for this from her account?',
  'the night shuttle to town stops at 1 am, right?',
  'booking for a school trip next spring, just asking for now',
  'the purser remembered my name once, cute',
  'can I see the plane type before paying?',
  'my visa interview is on Monday',
  'a colleague said you are cheaper than the airline site',
  'is breakfast served on morning departures?',
  'do I need to print anything?',
  'my kids call every plane a rocket',
];

const NOISE_PHOTO = [
  'my eyes look puffy, it was 6 am, leave them',
  'the blue sky is perfect already',
  'grey wall behind us, it is fine',
  'my husband grew a beard since then, funny',
  'the logo on the wall is our company, keep it',
  'the brand of the camra is Fuji',
  'I named the Dropbox folder badly, sorry',
  'the download went smoothly this time',
  'my birthday photos come next week',
  'born in 1950, my grandma is the one in the middle',
  "she has her father's eyes",
  'the hotel room lighting was yellow',
  'I took this on the night train',
  'test shot, ignore this one',
  'the circuit board in the background is art',
  'sent from my 5G phone',
  'the emergency exit sign is in the frame, whatever',
  'the time stamp in the file name is in UTC',
  'first priority is the group shot',
  'these are from the boarding school reunion',
  'green dress, green shoes, she loves green',
  'what happens if I am not happy with the edit?',
  'the shaving foam on his face is a joke, leave it',
  'my logo file is attached separately',
  'the cap was a present',
  "the mug says World's Best Dad",
  'my brother is proud of that goatee, haha',
  'the link to my portfolio is in my profile',
  'we all look at the camera except Tom',
  'my old laptop shows the colours differently',
  'the photographer was my cousn',
  'how do you protect my files?',
  'the sneakers were new that day',
];

const NOISE_FAULT = [
  'the 3G switch-off is planned for next year',
  'LTE coverage map needs an updte',
  'GSM refarming workshop slides are shared',
  'our 5G rollout slide deck for the board',
  'the circuit naming standard is being rewritten',
  'the OTDR was sent for calibration',
  'test equipment booking form is on the wiki',
  'fire alarm test in the NOC building at noon',
  'the 112 awareness poster is in the lobby',
  'which clock does the ticket tool use?',
  'daylight saving change this Sunday',
  'shift roster is in UTC now',
  'the light in the equipment room is broken',
  'the kitchen kettle is broken, unrelated',
  'passive DAS project kickoff on Tuesday',
  'the customer sent a thank-you note',
  'our trainee shadows the desk from Monday',
  'BER is a term the new intern asked about',
  'the traceroute tool on the jump host needs an update',
  'topology export fails in the GUI',
  'the circuits team moved to building C',
  'Dropbox is blocked on the office network',
  'the download of the vendor patch is slow',
  'my boarding pass for the vendor training is ready',
  'the engineer grew a beard during the night shifts',
  'the report logo must follow the new brand',
  'ambulance parked in front of the exchange, not our issue',
  'the eNodeB naming convention changed',
  'weekly call moved to Thursday',
  'queue is long today, be patient',
  'can someone fix the Excel macro for the shift report?',
  'the NR vs LTE KPI comparison looks odd',
  'please close the duplicates in the queue',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

export const spec: StreamSpec = {
  name: 'heldout-4',
  seed: 90417,
  start: '2026-04-13',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [
    {
      gold: {
        id: 'fare_flexibility',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['fare_flexibility', 'ticket_flexibility', 'fare_conditions', 'refundability', 'fare_type', 'ticket_conditions'],
        type: 'string',
        values: ['non_refundable', 'changeable', 'refundable'],
        value_aliases: {
          non_refundable: ['cheapest', 'saver', 'no money back', 'sin reembolso', '不退不改', 'Spartarif', 'sans remboursement', 'nonrefundible'],
          changeable: ['free rebooking', 'date changes allowed', 'switch to another day', 'cambios gratis', '日付変更', 'umbuchbar', 'alteração de data', 'rebookable'],
          refundable: ['fully refundable', 'money back', 'reimbursable', 'full refund', '全额退款', '払い戻し可能', 'remboursable', 'reembolsável', 'erstattungsfähig', 'refundabel'],
        },
        why: 'Twenty-two booking clients say which ticket conditions they want: the cheapest with no money back, free date changes, or a full refund. A string enum non_refundable/changeable/refundable (each client mostly one of them). Two booleans (refundable, changeable) are a weaker shape; not cabin_class (a fare condition, not a cabin) and not max_price.',
      },
      clients: 22,
      start: 0,
      p: 0.3,
      groups: [
        { texts: FARE_NONREF, value: 'non_refundable', weight: 3 },
        { texts: FARE_CHANGE, value: 'changeable', weight: 2 },
        { texts: FARE_REFUND, value: 'refundable', weight: 2 },
      ],
    },
    {
      gold: {
        id: 'date_of_birth',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['date_of_birth', 'birth_date', 'dob', 'passenger_date_of_birth', 'passenger_dob', 'birthdate'],
        type: 'string',
        values: [],
        why: 'Eighteen clients from day 3 give the traveller\'s date of birth in many forms ("born 14 March 1988", "DOB 02/11/1979", "1985年4月3日", "geboren am 17.06.1982"): one date a fragment → string (ISO 8601 YYYY-MM-DD; a date format is the right refinement). Not departure_date (a past date, a person\'s), not passenger_count.',
      },
      clients: 18,
      start: 3,
      p: 0.28,
      ramp: 5,
      groups: [{ texts: BIRTH_DATE }],
    },
    {
      gold: {
        id: 'priority_boarding',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['priority_boarding', 'early_boarding', 'board_first', 'wants_priority_boarding', 'priority_boarding_required'],
        type: 'boolean',
        values: [],
        why: 'Twenty clients from day 1 want to board before the others ("get on the plane first", "first boarding group", "優先搭乗", "embarque prioritario"): boolean. The burst boarding_pass_not_received shares the word boarding and is not this need.',
      },
      clients: 20,
      start: 1,
      p: 0.3,
      groups: [{ texts: PRIORITY_BOARDING }],
    },
    {
      gold: {
        id: 'hotel_nights',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['hotel_nights', 'hotel_night_count', 'nights', 'accommodation_nights', 'number_of_nights', 'hotel_stay_nights'],
        type: 'integer',
        values: [],
        why: 'Sixteen clients from day 5 add a hotel stay and say for how many nights, in digits and words ("3 nights", "five nights", "a fortnight", "酒店住四晚", "ホテルを2泊", "seis noites"): integer count of nights. A boolean "add hotel" loses the count (weaker); not date_flexibility, not passenger_count.',
      },
      clients: 16,
      start: 5,
      p: 0.3,
      groups: [{ texts: HOTEL_NIGHTS }],
    },
    {
      gold: {
        id: 'avoid_codeshare',
        scenario: f,
        kind: 'recurring',
        expect: 'none',
        acceptable_names: ['avoid_codeshare', 'no_codeshare', 'operating_carrier_only'],
        type: 'boolean',
        values: [],
        why: 'A weak need: at most three clients and a handful of fragments over the month (see census); below any reasonable dual gate.',
      },
      clients: 3,
      start: 8,
      p: 0.06,
      groups: [{ texts: CODESHARE }],
    },
    {
      gold: {
        id: 'eye_colour',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['eye_colour', 'eye_color', 'iris_colour', 'iris_color', 'eye_colour_change', 'eye_color_change'],
        type: 'string',
        values: ['blue', 'green', 'brown', 'grey'],
        value_aliases: {
          blue: ['icy blue', 'sapphire', 'light blue', '蓝色', '青', 'azules', 'azuis', 'blu'],
          green: ['emerald', 'jade', 'mossy', '绿色', 'grüne', 'verts', 'gren'],
          brown: ['chocolate', 'hazel', 'chestnut', 'marrones', '茶色', 'braune', 'castanhos'],
          grey: ['gray', 'steel-grey', 'silvery', 'slate', 'grises', '灰色', 'gris', 'eyse'],
        },
        why: 'Twenty-four photo clients want the iris recoloured; grey is rare until day 13, then about half the clients move to it. A string enum blue/green/brown/grey. Not eye_enlargement (size, not colour), not hair_colour, not filter_style.',
      },
      clients: 24,
      start: 0,
      p: 0.3,
      groups: [
        { texts: EYE_BLUE, value: 'blue', weight: 3 },
        { texts: EYE_GREEN, value: 'green', weight: 2 },
        { texts: EYE_BROWN, value: 'brown', weight: 2 },
        { texts: EYE_GREY, value: 'grey', weight: 0.15 },
        { texts: EYE_GREY, value: 'grey', from: 13, adopt: 0.5 },
      ],
    },
    {
      gold: {
        id: 'beard_removal',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['beard_removal', 'remove_beard', 'facial_hair_removal', 'remove_facial_hair', 'clean_shaven', 'shave'],
        type: 'boolean',
        values: [],
        why: 'Eighteen photo clients from day 2 want beard, stubble, moustache or goatee gone ("shave off my beard", "five o\'clock shadow", "ヒゲは無しに", "tira a barba"): boolean. Not skin_smoothing and not a blemish key.',
      },
      clients: 18,
      start: 2,
      p: 0.32,
      groups: [{ texts: BEARD }],
    },
    {
      gold: {
        id: 'remove_brand_logos',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['remove_brand_logos', 'logo_removal', 'remove_logos', 'brand_removal', 'hide_trademarks', 'remove_branding'],
        type: 'boolean',
        values: [],
        why: 'Sixteen photo clients from day 6 want brand marks hidden on clothes and objects (a swoosh, the brand name on a cup, labels on a bottle, "Markenlogo entfernen"): boolean. It is the opposite of adding a studio logo or watermark; not background_blur.',
      },
      clients: 16,
      start: 6,
      p: 0.33,
      groups: [{ texts: BRAND_LOGOS }],
    },
    {
      gold: {
        id: 'radio_technology',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['radio_technology', 'radio_access_technology', 'rat', 'access_technology', 'network_generation', 'affected_technology'],
        type: 'string',
        values: ['2g', '3g', '4g', '5g'],
        value_aliases: {
          '2g': ['GSM', '2G', 'GMS', '900 MHz GSM'],
          '3g': ['UMTS', 'WCDMA', '3G', 'NodeB'],
          '4g': ['LTE', '4G', 'eNodeB', 'band 20', 'LET'],
          '5g': ['5G', 'NR', 'n78', 'standalone 5G'],
        },
        why: 'Fifteen NOC clients say which radio generation the faulty cells belong to (GSM, UMTS/WCDMA, LTE, 5G NR, "n78"): a string enum 2g/3g/4g/5g. Not fault_domain: every one of these is the wireless domain, the need is the generation inside it.',
      },
      clients: 15,
      start: 0,
      p: 0.38,
      groups: [
        { texts: RAT_2G, value: '2g', weight: 1.5 },
        { texts: RAT_3G, value: '3g', weight: 1.5 },
        { texts: RAT_4G, value: '4g', weight: 3 },
        { texts: RAT_5G, value: '5g', weight: 2 },
      ],
    },
    {
      gold: {
        id: 'affected_circuit_ids',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['affected_circuit_ids', 'circuit_ids', 'affected_circuits', 'impacted_circuit_ids', 'affected_service_ids', 'circuit_id_list'],
        type: 'array',
        items_type: 'string',
        values: [],
        why: 'Fourteen NOC clients from day 2 list the customer circuits or service ids that lost service, one to three a fragment (CKT-40121 and CKT-40122, E-LINE-7731, ETH/0044812, LL-9021, WL-ams-0113): array of strings. Not affected_site_ids (sites and network elements, not customer circuits), not suspected_link (one A<->Z link).',
      },
      clients: 14,
      start: 2,
      p: 0.38,
      groups: [{ texts: CIRCUITS }],
    },
    {
      gold: {
        id: 'active_testing',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['diagnosis_depth', 'active_testing', 'test_mode', 'testing_allowed', 'diagnostic_mode'],
        type: 'string',
        values: ['quick', 'full'],
        value_aliases: {
          full: ['OTDR trace', 'BER test', 'intrusive testing', 'light levels', 'test set', 'active measurements', 'ping sweep', '主动测试', 'アクティブ試験', 'pruebas activas', 'Messungen', 'tests intrusifs', 'testes ativos', 'batery of tests'],
          quick: ['alarms and topology only', 'no intrusive tests', 'passive analysis', 'just correlate', 'hands off', '只看告警', '相関分析だけ', 'solo correlación', 'Alarmkorrelation', 'juste la corrélation', 'análise passiva', 'dont run any tets'],
        },
        refines_base_key: 'diagnosis_depth',
        why: 'Fourteen NOC clients from day 1 say whether the diagnosis may run active tests (OTDR, BER, light levels, ping sweeps) or must stay with alarms and topology. This is the base key diagnosis_depth said another way (full / quick): the right outcome is a refinement of diagnosis_depth (its description gains these phrasings), not a new key beside it. A new boolean "active tests allowed" is a weaker reading; it is not change_freeze (repairs, not tests).',
      },
      clients: 14,
      start: 1,
      p: 0.35,
      groups: [
        { texts: TEST_FULL, value: 'full', weight: 1 },
        { texts: TEST_QUICK, value: 'quick', weight: 1.6 },
      ],
    },
    {
      gold: {
        id: 'emergency_calls_affected',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['emergency_calls_affected', 'emergency_services_impacted', 'emergency_calls_down', 'emergency_call_failure', 'affects_emergency_calls'],
        type: 'boolean',
        values: [],
        why: 'Thirteen NOC clients from day 4 report that emergency numbers do not get through (112, 911, 999, 119番, 190, "Notrufe", "appels d\'urgence"): boolean. The numbers differ by country and are not the value. Not severity (a fact that may raise it), not user_complaint_count.',
      },
      clients: 13,
      start: 4,
      p: 0.33,
      groups: [{ texts: EMERGENCY }],
    },
  ],
  personal: [
    {
      gold: {
        id: 'personal:delivery_folder',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-dr0pbx',
        acceptable_names: ['delivery_folder', 'dropbox_folder', 'delivery_path', 'output_folder', 'dropbox_path'],
        type: 'string',
        values: [],
        why: 'One studio client asks 4-6 times a day for nine days (days 4-12) that the finished files go to the same Dropbox folder (/Clients/Okafor/Final): per-client string key; no global key.',
      },
      client: 'agent-dr0pbx',
      start: 4,
      end: 12,
      perDay: [4, 6],
      texts: DELIVERY_FOLDER,
    },
    {
      gold: {
        id: 'personal:report_timezone',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-sg7tz0',
        acceptable_names: ['report_timezone', 'timezone', 'time_zone', 'display_timezone', 'output_timezone'],
        type: 'string',
        values: [],
        why: 'One NOC in Singapore asks 5-7 times a day for nine days (days 17-25) that every time in the diagnosis be given in Singapore time (Asia/Singapore, UTC+8): per-client string key (an IANA zone name); no global key. Not occurred_at.',
      },
      client: 'agent-sg7tz0',
      start: 17,
      end: 25,
      perDay: [5, 7],
      texts: TIMEZONE,
    },
  ],
  bursts: [
    {
      gold: {
        id: 'burst:boarding_pass_not_received',
        scenario: f,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: "One booking client's assistant relays the same missing boarding-pass complaint 38 times in 45 minutes on day 8 (a delivery problem, not a schema gap; it shares 'boarding' with priority_boarding): one client, no global key. A per-client trigger is acceptable, though no useful key follows.",
      },
      client: 'agent-bp4ss0',
      day: 8,
      hourUtc: 6.5,
      count: 38,
      minutes: 45,
      texts: BOARDING_PASS,
    },
    {
      gold: {
        id: 'burst:download_link_expired',
        scenario: p,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: "One photo client's assistant reports an expired download link 34 times in 40 minutes on day 22 (delivery trouble, not a retouching need): no global key; a per-client trigger is acceptable.",
      },
      client: 'agent-dl3xp1',
      day: 22,
      hourUtc: 20.25,
      count: 34,
      minutes: 40,
      texts: DOWNLOAD_EXPIRED,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
  notes:
    'Held-out stream D (round 6). Refinement: active_testing refines diagnosis_depth. Value common later: grey (eye_colour) from day 13. Weak: avoid_codeshare (expect none). Personal: delivery_folder (photo), report_timezone (fault). Bursts: boarding_pass_not_received (flight, shares "boarding"), download_link_expired (photo). Noise shares words with the needs (born, birthday, fare, reimbursement, boarding, hotel, night, partner, eyes, blue, grey, green, beard, shave, goatee, logo, brand, cap, sneakers, Dropbox, folder, link, download, 3G, 5G, LTE, GSM, NR, circuit, OTDR, BER, test, light, passive, 112, emergency, ambulance, UTC, timezone).',
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
