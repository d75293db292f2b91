/**
 * heldout-3 (round 4, held out): thirty days of `other` fragments over the three seeded scenarios
 * (draft-zhou §6.2). Every phrasing below was written by hand for this stream; none is taken or reworded from the
 * dev streams or from heldout-1/2. bench/data/evolution/schedule.ts only decides who sends which one when (seeded).
 * `npx tsx bench/heldout/evolution/make-heldout-3.ts` rewrites heldout-3.jsonl and heldout-3.gold.json byte for byte.
 */
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeStream, type StreamSpec } from '../../data/evolution/schedule';

// ---- flight_booking -------------------------------------------------------------------------------------------

const NEARBY_AIRPORTS = [
  'any London airport works for me',
  "happy to fly out of a neighbouring city if it's cheaper",
  'Gatwick, Stansted, Luton: I am not picky',
  'fine to land at a secondary field, e.g. Beauvais instead of CDG',
  'I can drive two hours to another departure point',
  'Newark or LaGuardia are just as good as JFK',
  'open to alternate airports within 100 km',
  '附近的其他机场也可以',
  '近くの別の空港でも構いません',
  'me vale cualquier aeropuerto cercano',
  'auch ein Flughafen in der Umgebung ist okay',
  "n'importe quel aéroport de la région me convient",
  'alternet airports are ok',
  "doesn't have to be the main hub, Ciampino would do",
  'Oakland or San Jose instead of SFO is totally fine',
];

const PASSPORT = [
  'I travel on an Irish passport',
  'my nationality is Brazilian, check whether I need a visa',
  'passport issued by India',
  'citizen of Canada, dual with France but using the Canadian one',
  'holding a Nigerian passport, please check the entry rules',
  'we are both German nationals',
  'pasaporte mexicano',
  '护照是中国的',
  '国籍は日本です',
  'Staatsangehörigkeit: österreichisch',
  'passeport belge',
  'travel document: South African',
  'my pasport is from the Philippines',
];

const ON_BEHALF = [
  "I'm booking this for my boss, I won't be on the plane",
  'the ticket is for my mother, not me',
  "I'm her assistant: her name on the ticket, mine on the invoice",
  'purchasing on behalf of a colleague',
  'not travelling myself, this is a gift for my son',
  "put it in my client's name, I only pay",
  'el viaje es para mi hermana, yo no vuelo',
  'ich buche für meinen Chef',
  "c'est pour mon père, pas pour moi",
  '帮我老板订的，我本人不坐',
  '上司の代わりに予約しています',
  'bookng for a freind who has no card',
  'passenger and payer are different people',
];

const PROMO = ['the promo code WINTER25 is rejected', 'WINTER25 still says invalid', 'voucher code not accepted again', 'tried WINTER25 once more, error', 'why does my discount code keep failing'];

// ---- photo_retouch --------------------------------------------------------------------------------------------

const LIP_RED = ['a classic red lip', 'make my lips red like in the fifties', 'scarlet lipstick', 'rouge à lèvres rouge', '口红改成正红色', 'redder lips pls'];
const LIP_PINK = ['soft pink on the lips', 'rosy lip tint', 'bubblegum pink lipstick', 'Lippen in Rosa bitte', 'pinkk lips'];
const LIP_NUDE = ['nude lipstick, barely there', 'a natural beige lip', 'tone the lipstick down to a skin-coloured shade', 'labios color nude', 'ヌードベージュのリップ'];
const LIP_CORAL = ['coral lips', 'a peachy-orange lip colour', 'lipstick in coral', 'labios coral', 'Korall-Lippenstift'];

const SLIMMING = [
  'make me look a bit slimmer',
  'tuck in my tummy',
  'thinner arms please',
  'take a few kilos off me',
  'trim my waist',
  'I want to look leaner in this one',
  'smaller hips',
  'photoshop away the belly',
  '帮我瘦一点',
  '顔と体をスリムに',
  'hazme más delgada',
  'bitte etwas schlanker machen',
  'amincis-moi un peu',
  'slimer waist pls',
];

const CREASES = [
  'iron out the wrinkles in my shirt',
  'my dress is all creased, smooth it',
  'the jacket looks rumpled',
  'fix the crumpled collar',
  'the trousers have fold lines from the suitcase',
  'make the suit look freshly pressed',
  '把衬衫的褶皱去掉',
  'シャツのシワを消して',
  'quita las arrugas de la camisa',
  'Falten im Hemd entfernen',
  'défroisse ma chemise',
  'my blouse is wrinkeld from the flight',
];

const MIRROR = ['flip it left to right', 'mirror the picture horizontally', 'un-mirror this selfie please'];

const MATCH_PREVIOUS = [
  'same edit as my last batch',
  'like last time please, same settings',
  'apply my usual preset',
  "copy the look from yesterday's order",
  'do it exactly like the previous set',
];

// ---- fault_management -----------------------------------------------------------------------------------------

const LATENCY = [
  'round trip is around 480 ms',
  'pings take 350 milliseconds',
  'RTT jumped to 1.2 s',
  'delay over 200ms to the core',
  'users see a lag of about six hundred milliseconds',
  'latency 95ms, normally 12',
  'response time hit 2 seconds',
  '时延达到 300 毫秒',
  '遅延 250ms',
  'Laufzeit 400 ms',
  'retardo de 700 ms',
  'latence de 150 ms',
  'lantency ~900ms',
  'one-way delay of eighty milliseconds on the hop',
];

const INTERFACE = [
  'errors on xe-0/0/3',
  'port GigabitEthernet0/1 keeps flapping',
  'the 100GE1/0/1 interface on PE-22',
  'uplink et-2/0/0 shows CRC errors',
  'check Gi0/0/24 on the access switch',
  'ae12 bundle lost a member',
  '端口 GE0/0/5 有误码',
  'ポート xe-1/2/0 がダウン',
  'puerto Te1/1/4 caído',
  'Schnittstelle ge-0/0/9 zeigt Fehler',
  "c'est l'interface eth1/48 qui tombe",
  'intreface xe-3/0/1 errored',
];

const SEG_WIRELESS = ['RAN layer', 'looks like a radio access problem', 'gNodeB side', 'on the eNB end', 'RAN侧的问题', '無線アクセス側'];
const SEG_IP = ['MPLS backbone issue', 'L3VPN layer', 'somewhere in the IP/MPLS routers', 'IP-Backbone betroffen', 'problema en la red MPLS'];
const SEG_TRANSPORT = ['DWDM layer', 'OTN problem', 'SDH ring', 'the optical layer', 'couche optique', '传输层 OTN'];
const SEG_CORE = ['5GC', 'packet core (EPC)', 'IMS side', 'núcleo de paquetes', 'UPF/SMF in the core cloud'];

const BRIDGE = ['join bridge 88412, PIN 0731', 'war room bridge 88412 pin 0731', 'we are on the call, bridge 88412', 'dial in 88412 / 0731 for the incident call', 'conference 88412#0731 is open'];
const VPN = ['lost the VPN again', 'VPN dropped, reconnecting', 'VPN tunnel to the NOC down again', 'reconnected, VPN gone again', 'VPN flapping on my side'];

// ---- noise: one-off fragments, many sharing words with the needs above ----------------------------------------

const NOISE_FLIGHT = [
  'is there parking near the airport',
  'which terminal does the airline use at Stansted',
  'my passport photo is ugly haha',
  'my passport cover is torn, is that a problem?',
  'my boss hates early flights',
  'I paid with my company card last time',
  'the second segment of my trip was cancelled',
  'coral-coloured suitcase, in case that matters',
  'the app interface is confusing',
  'page latency on your site is awful',
  'my lips get chapped on long flights',
  'is the promo still valid next month?',
  'does the mirror in the lavatory have lights lol',
  'my sister lives near Lyon',
  'what is the nearest hotel to the airport?',
  'what nationality is the crew usually',
  'are visas checked at the gate',
  'the shirt I wore on the last flight got stained',
  'the gift card from my son expired',
  'slim chance I make the connection',
  'please hurry, I am on a bridge call in 10 min',
  'my VPN blocks your website',
  'the airport in my town closed years ago',
  'is the A380 still flying on this route?',
  'the airline magazine had a nice article on Lisbon',
  'a friend recommended you',
  'my mother is afraid of flying',
  'the night flight last year was brutal',
  'which airport has the best food',
  'is Amex accepted?',
  'i travel a lot for work',
  'the airline app crashed at checkout',
  'Newark traffic is awful at 5pm',
  'my surname has an umlaut, will the ticket show it?',
];

const NOISE_PHOTO = [
  'the coral reef in the background looks dull',
  'my lips are chapped in this one lol',
  'the mirror selfie has a smudge on the glass',
  'love the red dress',
  'I lost weight since this photo!',
  'slim-fit suit, looks great right?',
  'my shirt is from a thrift store',
  'there is an ironing board in the back, leave it',
  'the pink sky was real, no edit',
  'nude-colour shoes match the bag',
  'same as last year, the annual family shot',
  'I will send the previous photos tomorrow',
  'the creases in the old print are part of its charm',
  'the upload interface was slow',
  'my phone has a portrait mode, is that better?',
  'it was taken at the airport nearby',
  'my passport photo has to follow rules, is that ok?',
  'my friend did my makeup',
  'thinner frame for the print',
  'pls hurry, the party is tonight',
  'the collar pin was a gift from grandpa',
  'the lighting was terrible in that bar',
  'my aunt framed the one you did in May',
  'do you retouch pet portraits too?',
  'my kid drew on the print, scanning it now',
  'the coral earrings are my favourite',
  'flip phone photo, sorry for the quality',
  'latency on your upload page is bad',
  'my boss wants it for LinkedIn',
  'we took this on a bridge in Prague',
  'the jacket is borrowed',
  'the wrinkled map in my hand is a prop',
  'lipstick brand is Chanel btw',
];

const NOISE_FAULT = [
  'the interface of the new NMS is confusing',
  'latency report due Friday',
  'customer segment analysis postponed',
  'the bridge over the river is closed for works, longer drive to site',
  'the RAN planners want a KPI export',
  'MPLS training next month',
  'DWDM vendor visit moved',
  'core team on-call rota updated',
  'the port in Rotterdam delayed our spares shipment',
  'the site key is with the caretaker',
  'the promo SIM campaign caused extra signups',
  'my VPN token expired',
  'send the summary to the ops mailbox',
  'the delay in the report is my fault',
  'the gNodeB upgrade plan is in the wiki',
  'optical power meter needs calibration',
  'port count per router in the inventory is wrong',
  'the 5GC lab is closed this week',
  'please use the new ticket template',
  'last month the NOC handled 900 incidents',
  'the night shift will follow up',
  'handover notes are in the shared folder',
  'milliseconds matter for our trading customer',
  'the interface team was renamed',
  'the NOC wall screens flicker since Monday',
  'same incident as in the news?',
  'our segment of the ring belongs to the partner',
  'the OTN training video is online',
  'the IMS licence renewal is due',
  'drone inspection of the tower next week',
  'the previous bridge call was recorded',
  'thanks team',
  'let me check with the field guys',
];

const f = 'flight_booking' as const;
const p = 'photo_retouch' as const;
const m = 'fault_management' as const;

export const spec: StreamSpec = {
  name: 'heldout-3',
  seed: 58361,
  start: '2026-03-02',
  days: 30,
  pool: { flight_booking: 60, photo_retouch: 50, fault_management: 30 },
  recurring: [
    {
      gold: {
        id: 'nearby_airports_ok',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['nearby_airports_ok', 'alternate_airports_ok', 'flexible_airport', 'include_nearby_airports', 'airport_flexibility'],
        type: 'boolean',
        values: [],
        why: 'Twenty-two booking clients accept another airport near the origin or destination ("any London airport", "Newark or LaGuardia are just as good", "近くの別の空港でも"): boolean. Not origin/destination (no single airport is named as the choice), not date flexibility.',
      },
      clients: 22,
      start: 0,
      p: 0.3,
      groups: [{ texts: NEARBY_AIRPORTS }],
    },
    {
      gold: {
        id: 'passport_nationality',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['passport_nationality', 'nationality', 'passport_country', 'citizenship', 'passport_issuing_country'],
        type: 'string',
        values: [],
        why: 'Eighteen clients from day 4 say which country issued their passport ("an Irish passport", "German nationals", "pasaporte mexicano", "国籍は日本"): one country a fragment → string (an ISO 3166 code or country name; an enum of the countries seen is a weaker shape). Each client has its own country, the need is common.',
      },
      clients: 18,
      start: 4,
      p: 0.3,
      ramp: 5,
      groups: [{ texts: PASSPORT }],
    },
    {
      gold: {
        id: 'booking_on_behalf',
        scenario: f,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['booking_on_behalf', 'booker_not_passenger', 'traveller_is_not_booker', 'third_party_booking', 'book_for_someone_else'],
        type: 'boolean',
        values: [],
        why: 'Twenty clients from day 2 book for somebody else and do not fly themselves ("for my boss", "the ticket is for my mother, not me", "ich buche für meinen Chef"): boolean. Not passenger_count (the count does not change).',
      },
      clients: 20,
      start: 2,
      p: 0.3,
      groups: [{ texts: ON_BEHALF }],
    },
    {
      gold: {
        id: 'lip_colour',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['lip_colour', 'lip_color', 'lipstick_colour', 'lipstick_color', 'lipstick_shade'],
        type: 'string',
        values: ['red', 'pink', 'nude', 'coral'],
        value_aliases: {
          red: ['classic red', 'scarlet', 'rouge', '正红色', 'redder'],
          pink: ['soft pink', 'rosy', 'bubblegum pink', 'Rosa', 'pinkk'],
          nude: ['barely there', 'natural beige', 'skin-coloured', 'ヌードベージュ'],
          coral: ['peachy-orange', 'Korall'],
        },
        why: 'Twenty-four photo clients want a lipstick shade; coral is rare until day 12, then about half the clients move to it. A string enum red/pink/nude/coral. Not filter_style (a warm filter is not a lip colour), not teeth_whitening.',
      },
      clients: 24,
      start: 0,
      p: 0.3,
      groups: [
        { texts: LIP_RED, value: 'red', weight: 3 },
        { texts: LIP_PINK, value: 'pink', weight: 2 },
        { texts: LIP_NUDE, value: 'nude', weight: 2 },
        { texts: LIP_CORAL, value: 'coral', weight: 0.15 },
        { texts: LIP_CORAL, value: 'coral', from: 12, adopt: 0.5 },
      ],
    },
    {
      gold: {
        id: 'body_slimming',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['body_slimming', 'slimming', 'slim_body', 'body_reshape', 'figure_slimming'],
        type: 'boolean',
        values: [],
        why: 'Twenty photo clients from day 1 want to look thinner (waist, tummy, arms, hips, "take a few kilos off"): boolean (an integer intensity 0-10 like skin_smoothing is an acceptable richer shape). Not skin_smoothing.',
      },
      clients: 20,
      start: 1,
      p: 0.32,
      groups: [{ texts: SLIMMING }],
    },
    {
      gold: {
        id: 'clothes_crease_removal',
        scenario: p,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['clothes_crease_removal', 'remove_clothing_wrinkles', 'garment_wrinkle_removal', 'iron_clothes', 'wrinkle_free_clothing', 'fabric_crease_removal'],
        type: 'boolean',
        values: [],
        why: 'Eighteen photo clients from day 5 want creases ironed out of shirts, dresses, jackets and trousers: boolean. It shares words with skin work ("smooth it", "wrinkles") but is about fabric: neither skin_smoothing nor a skin-wrinkle key.',
      },
      clients: 18,
      start: 5,
      p: 0.33,
      groups: [{ texts: CREASES }],
    },
    {
      gold: {
        id: 'mirror_flip',
        scenario: p,
        kind: 'recurring',
        expect: 'none',
        acceptable_names: ['mirror_flip', 'flip_horizontal', 'mirror_image'],
        type: 'boolean',
        values: [],
        why: 'A weak need: at most three clients and a handful of fragments over the month (see census); below any reasonable dual gate.',
      },
      clients: 3,
      start: 6,
      p: 0.06,
      groups: [{ texts: MIRROR }],
    },
    {
      gold: {
        id: 'latency_ms',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['latency_ms', 'measured_latency_ms', 'round_trip_time_ms', 'rtt_ms', 'delay_ms'],
        type: 'integer',
        values: [],
        why: 'Fifteen NOC clients give a measured delay ("around 480 ms", "1.2 s", "six hundred milliseconds", "遅延 250ms"): milliseconds → integer (a number is also fine; seconds as the unit is a weaker shape). Not alarm_type: the alarm may be named elsewhere, this is the measured value.',
      },
      clients: 15,
      start: 0,
      p: 0.4,
      groups: [{ texts: LATENCY }],
    },
    {
      gold: {
        id: 'interface_name',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['interface_name', 'port_id', 'interface_id', 'affected_interface', 'port_name'],
        type: 'string',
        values: [],
        why: 'Fourteen NOC clients from day 3 name the port or interface where the errors are seen (xe-0/0/3, GigabitEthernet0/1, 100GE1/0/1, ae12): string. Not suspected_link (one port, not an A<->Z link) and not affected_site_ids.',
      },
      clients: 14,
      start: 3,
      p: 0.38,
      groups: [{ texts: INTERFACE }],
    },
    {
      gold: {
        id: 'network_segment',
        scenario: m,
        kind: 'recurring',
        expect: 'global',
        acceptable_names: ['fault_domain', 'network_segment', 'network_layer', 'domain', 'network_domain'],
        type: 'string',
        values: ['wireless', 'ip_network', 'transport', 'core'],
        value_aliases: {
          wireless: ['RAN', 'radio access', 'gNodeB', 'eNB', '無線アクセス'],
          ip_network: ['MPLS', 'L3VPN', 'IP/MPLS', 'IP-Backbone', 'red MPLS'],
          transport: ['DWDM', 'OTN', 'SDH', 'optical layer', 'couche optique', '传输层'],
          core: ['5GC', 'EPC', 'packet core', 'IMS', 'UPF/SMF', 'núcleo de paquetes'],
        },
        refines_base_key: 'fault_domain',
        why: 'Sixteen NOC clients name the domain by technology or layer (RAN, gNodeB, MPLS, L3VPN, DWDM, OTN, SDH, 5GC, EPC, IMS). This is the base key fault_domain said another way: the right outcome is a refinement of fault_domain (its description should map these technology names to wireless/ip_network/transport/core), not a new key beside it.',
      },
      clients: 16,
      start: 0,
      p: 0.35,
      groups: [
        { texts: SEG_WIRELESS, value: 'wireless', weight: 3 },
        { texts: SEG_IP, value: 'ip_network', weight: 2 },
        { texts: SEG_TRANSPORT, value: 'transport', weight: 2 },
        { texts: SEG_CORE, value: 'core', weight: 2 },
      ],
    },
  ],
  personal: [
    {
      gold: {
        id: 'personal:match_previous_edit',
        scenario: p,
        kind: 'personal',
        expect: 'client:agent-s4m3ed',
        acceptable_names: ['match_previous_edit', 'reuse_last_settings', 'same_as_previous', 'apply_saved_preset'],
        type: 'boolean',
        values: [],
        why: 'One studio client asks 4-6 times a day for nine days (days 7-15) that every photo get the same edit as its previous batch: per-client boolean key; no global key.',
      },
      client: 'agent-s4m3ed',
      start: 7,
      end: 15,
      perDay: [4, 6],
      texts: MATCH_PREVIOUS,
    },
    {
      gold: {
        id: 'personal:conference_bridge',
        scenario: m,
        kind: 'personal',
        expect: 'client:agent-br1dg3',
        acceptable_names: ['conference_bridge', 'bridge_number', 'incident_bridge', 'war_room_bridge', 'bridge_dial_in'],
        type: 'string',
        values: [],
        why: 'One NOC gives the same incident conference bridge and PIN (88412 / 0731) 5-7 times a day for eight days (days 19-26): per-client string key; no global key.',
      },
      client: 'agent-br1dg3',
      start: 19,
      end: 26,
      perDay: [5, 7],
      texts: BRIDGE,
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
        why: "One booking client's assistant relays the same rejected promo code 40 times in 50 minutes on day 11 (a checkout problem, not a schema gap): one client, no global key. A per-client trigger is acceptable, though no useful key follows.",
      },
      client: 'agent-pr0m0x',
      day: 11,
      hourUtc: 18.75,
      count: 40,
      minutes: 50,
      texts: PROMO,
    },
    {
      gold: {
        id: 'burst:vpn_dropped',
        scenario: m,
        kind: 'burst',
        expect: 'none',
        acceptable_names: [],
        type: 'string',
        values: [],
        why: "One NOC engineer's assistant reports a dropping VPN 30 times in 40 minutes on day 20 (the sender's own access, not the fault): no global key; a per-client trigger is acceptable.",
      },
      client: 'agent-vpn0ff',
      day: 20,
      hourUtc: 2.5,
      count: 30,
      minutes: 40,
      texts: VPN,
    },
  ],
  noise: { flight_booking: NOISE_FLIGHT, photo_retouch: NOISE_PHOTO, fault_management: NOISE_FAULT },
  notes:
    'Held-out stream C (round 4). Refinement: network_segment refines fault_domain. Value common later: coral (lip_colour) from day 12. Weak: mirror_flip (expect none). Personal: match_previous_edit, conference_bridge. Bursts: promo_code_rejected (checkout chatter), vpn_dropped (sender access). Noise shares words with the needs (airport, near, passport, nationality, boss, segment, interface, latency, lips, coral, red, pink, nude, slim, shirt, creases, wrinkled, mirror, bridge, promo, VPN, RAN, MPLS, DWDM, 5GC, OTN, IMS).',
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) writeStream(spec, dirname(fileURLToPath(import.meta.url)));
