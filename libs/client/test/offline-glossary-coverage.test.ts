import { faultManagementTemplate, flightBookingTemplate, photoRetouchTemplate } from '@parley/examples';
import { describe, expect, it } from 'vitest';
import { glossTokens } from '../src/offline/glossary';
import { tokenize } from '../src/offline/text';
import { map } from './offline-fixture';

// Every enum value of the seeded templates in each of the nine languages the glossary reads (draft-zhou §4.1: the
// template's enum values are the words a value is said in; §6.1: the client agent maps the user's words, in whatever
// language, onto them). Each form is the usual translation a general bilingual dictionary gives, or the English word
// where the language says the value in English; a value a language cannot be glossed in is listed with the reason.
// Sentences written for these tests, none taken from a dev or validation set.

type Lang = 'fr' | 'de' | 'es' | 'it' | 'ru' | 'ar' | 'zh' | 'ja' | 'ko';
/** A dictionary form of the value, or why the value is deliberately not glossed in that language. */
type Cell = string | { readonly not: string };

const FUNCTION_WORDS = { not: '"none" is a function word in every language (aucun, kein, ninguno, nessuno, нет, لا, 无, なし, 없음): glossing it would read any negation as the value' };

const TABLE: Readonly<Record<string, Readonly<Record<Lang, Cell>>>> = {
  // flight_booking.cabin_class
  economy: { fr: 'classe économique', de: 'Touristenklasse', es: 'clase turista', it: 'classe economica', ru: 'эконом', ar: 'الدرجة الاقتصادية', zh: '经济舱', ja: 'エコノミークラス', ko: '일반석' },
  premium_economy: { fr: 'premium économique', de: 'Premium Economy', es: 'turista premium', it: 'premium economy', ru: 'премиум эконом', ar: 'السياحية الممتازة', zh: '超级经济舱', ja: 'プレミアムエコノミー', ko: '프리미엄이코노미' },
  business: { fr: 'classe affaires', de: 'Businessklasse', es: 'clase ejecutiva', it: 'classe business', ru: 'бизнес', ar: 'درجة الأعمال', zh: '商务舱', ja: 'ビジネスクラス', ko: '비즈니스석' },
  first: { fr: 'première classe', de: 'erste Klasse', es: 'primera clase', it: 'prima classe', ru: 'первый класс', ar: 'الدرجة الأولى', zh: '头等舱', ja: 'ファーストクラス', ko: '일등석' },
  // photo_retouch.filter_style
  none: { fr: FUNCTION_WORDS, de: FUNCTION_WORDS, es: FUNCTION_WORDS, it: FUNCTION_WORDS, ru: FUNCTION_WORDS, ar: FUNCTION_WORDS, zh: FUNCTION_WORDS, ja: FUNCTION_WORDS, ko: FUNCTION_WORDS },
  vintage: {
    fr: 'vintage',
    de: 'Vintage',
    es: 'vintage',
    it: 'vintage',
    ru: 'винтажный',
    ar: { not: 'the dictionary\'s "عتيق" (old, antique) is also a given name (Atiq), and "قديم" is any old thing' },
    zh: '复古', ja: 'ヴィンテージ', ko: '빈티지' },
  cinematic: { fr: 'cinématographique', de: 'filmisch', es: 'cinematográfico', it: 'cinematografico', ru: 'кинематографичный', ar: 'سينمائي', zh: '电影感', ja: 'シネマティック', ko: '시네마틱' },
  warm: { fr: 'chaud', de: 'warm', es: 'cálido', it: 'calda', ru: 'тёплый', ar: 'دافئ', zh: '暖色', ja: '暖かい', ko: '따뜻한' },
  cool: { fr: 'froid', de: 'kühl', es: 'frío', it: 'fredda', ru: 'холодный', ar: 'بارد', zh: '冷色', ja: '寒色', ko: '차가운' },
  // fault_management.fault_domain ("IP" is written the same in every language)
  wireless: {
    fr: { not: 'the dictionary\'s "sans fil" is two words for a one-word gloss (a phrase reads each word as its share of the gloss), and "fil" alone is a thread' },
    de: 'drahtlos',
    es: 'inalámbrico',
    it: 'wireless',
    ru: 'беспроводной',
    ar: 'لاسلكي',
    zh: '无线',
    ja: '無線',
    ko: '무선',
  },
  ip_network: { fr: 'réseau IP', de: 'IP-Netz', es: 'red IP', it: 'rete IP', ru: 'IP-сеть', ar: 'شبكة IP', zh: 'IP网络', ja: 'IPネットワーク', ko: 'IP 네트워크' },
  transport: { fr: 'transport', de: 'Transport', es: 'transporte', it: 'trasporto', ru: 'транспорт', ar: 'نقل', zh: '传输', ja: '伝送', ko: '전송' },
  core: { fr: 'cœur', de: 'Kern', es: 'núcleo', it: 'nucleo', ru: 'ядро', ar: 'النواة', zh: '核心', ja: 'コア', ko: '코어' },
  cross_domain: { fr: 'inter-domaines', de: 'domänenübergreifend', es: 'interdominio', it: 'interdominio', ru: 'междоменный', ar: 'عبر النطاقات', zh: '跨域', ja: 'ドメイン横断', ko: '크로스도메인' },
  // fault_management.severity (ITU-T X.733 level names)
  critical: { fr: 'critique', de: 'kritisch', es: 'crítico', it: 'critico', ru: 'критический', ar: 'حرج', zh: '紧急', ja: '緊急', ko: '긴급' },
  major: { fr: 'majeur', de: 'schwerwiegend', es: 'mayor', it: 'maggiore', ru: 'серьёзный', ar: 'رئيسي', zh: '重要', ja: '重大', ko: '주요' },
  minor: { fr: 'mineur', de: 'geringfügig', es: 'menor', it: 'minore', ru: 'незначительный', ar: 'طفيف', zh: '次要', ja: '軽微', ko: '경미' },
  warning: { fr: 'avertissement', de: 'Warnung', es: 'advertencia', it: 'avviso', ru: 'предупреждение', ar: 'تحذير', zh: '警告', ja: '警告', ko: '경고' },
  // fault_management.diagnosis_depth
  quick: { fr: 'rapide', de: 'schnell', es: 'rápido', it: 'rapido', ru: 'быстрый', ar: 'سريع', zh: '快速', ja: '簡易', ko: '빠른' },
  full: { fr: 'complet', de: 'vollständig', es: 'completo', it: 'completo', ru: 'полный', ar: 'كامل', zh: '全面', ja: '完全', ko: '전체' },
};

/** The English words a form reads as (no English word check: the dictionary alone). */
const glossOf = (form: string) => glossTokens(tokenize(form)).map((t) => t.lower);

describe('every enum value of the seeded templates has a gloss in each of the nine languages', () => {
  const enums = [flightBookingTemplate, photoRetouchTemplate, faultManagementTemplate].flatMap((t) => t.keys.flatMap((k) => k.enum ?? []));

  it('lists every enum value of the templates, and nothing else', () => {
    expect(Object.keys(TABLE).sort()).toEqual([...new Set(enums.map(String))].sort());
  });

  for (const [value, cells] of Object.entries(TABLE)) {
    it(`"${value}"`, () => {
      // The value's words, less "ip", which every language writes as English does.
      const words = value.split('_').filter((w) => w !== 'ip');
      for (const [lang, cell] of Object.entries(cells)) {
        if (typeof cell !== 'string') {
          expect(cell.not.length, `${value} ${lang}: a reason`).toBeGreaterThan(20);
          continue;
        }
        const read = glossOf(cell);
        for (const w of words) expect(read, `${value} in ${lang}: "${cell}" reads ${read.join(' ')}`).toContain(w);
      }
    });
  }
});

describe('the key names\' words and the example alarm names\' words', () => {
  it('read as the template\'s English words', () => {
    const cases: [string, string][] = [
      ['cabine', 'cabin'],
      ['Kabine', 'cabin'],
      ['客舱', 'cabin'],
      ['partenza', 'departure'],
      ['lissage', 'smoothing'],
      ['sbiancamento', 'whitening'],
      ['拡大', 'enlarge'],
      ['profondeur', 'depth'],
      ['깊이', 'depth'],
      ['Domäne', 'domain'],
      ['ドメイン', 'domain'],
      ['puissance optique trop faible', 'optical power too low'],
      ['optische Leistung zu niedrig', 'optical power too low'],
      ['potencia óptica demasiado baja', 'optical power too low'],
      ['оптическая мощность слишком низкая', 'optical power too low'],
      ['光パワーが低すぎる', 'optical power'],
      ['станция вышла из строя', 'out of service'],
    ];
    for (const [form, english] of cases) expect(` ${glossOf(form).join(' ')} `, form).toContain(` ${english} `);
  });
});

describe('the values glossed this round reach the template', () => {
  it('cross_domain said in French, German and Chinese', async () => {
    for (const text of [
      'Incident K-71 : panne inter-domaines, les sites 4411 et 4412 sont hors service depuis 04:10',
      'Vorfall K-72: domänenübergreifende Störung, Standorte 4411 und 4412 seit 04:10 außer Betrieb',
      '事件 K-73：跨域故障，站点 4411 和 4412 凌晨4点退服',
    ]) {
      expect((await map(faultManagementTemplate, text)).payload['fault_domain'], text).toBe('cross_domain');
    }
  });

  it('premium economy and economy said in Spanish and German', async () => {
    expect((await map(flightBookingTemplate, 'un vuelo de Sevilla a Oslo el lunes en turista premium')).payload['cabin_class']).toBe('premium_economy');
    expect((await map(flightBookingTemplate, 'einen Flug von Berlin nach Oslo am Montag in der Touristenklasse')).payload['cabin_class']).toBe('economy');
  });

  it('vintage in Russian, cinematic in German', async () => {
    expect((await map(photoRetouchTemplate, 'наложи винтажный фильтр на это фото')).payload['filter_style']).toBe('vintage');
    expect((await map(photoRetouchTemplate, 'bitte einen filmischen Filter auf dieses Foto')).payload['filter_style']).toBe('cinematic');
  });
});

describe('forms left out because they misfire on ordinary sentences', () => {
  it('reads "download" in Japanese and Korean as no state of a link (ダウン and 다운 are not glossed: parts of ダウンロード, 다운로드)', () => {
    for (const text of ['アプリをダウンロードしてください', '앱을 다운로드하세요']) expect(glossOf(text), text).not.toContain('down');
  });

  it('leaves ordinary sentences with the words for "none", "premium" and "domain" of another sense unmapped', async () => {
    // "kein", "ninguno", "aucun", "нет" are not glossed as the value none; "premium" of a subscription is no cabin.
    for (const text of ['Ich habe keine Zeit, ruf mich morgen an', 'no quiero ninguno de estos', 'je n’ai aucune idée']) {
      expect((await map(photoRetouchTemplate, text)).payload['filter_style'], text).toBeUndefined();
    }
    expect((await map(flightBookingTemplate, 'у меня премиум подписка на музыку')).payload['cabin_class']).toBeUndefined();
    expect((await map(faultManagementTemplate, 'le domaine skiable ouvre samedi')).payload['fault_domain']).toBeUndefined();
  });

  it('leaves Arabic words of the dictionaries that are also a name or an ordinary "main", "range", "across fields" unglossed', async () => {
    // عتيق (antique) is also the name Atiq; رئيسية is "main" (the main station); نطاق is a range or scope; عبر المجالات
    // is "across fields" of any kind.
    expect((await map(photoRetouchTemplate, 'أرسل صورة عتيق مع أخيه')).payload['filter_style']).toBeUndefined();
    for (const text of ['المحطة الرئيسية 4411 معطلة منذ 04:10', 'الموقع 4411 ضمن نطاق المدينة معطل منذ 04:10', 'خبرة عبر المجالات المختلفة، الموقع 4411 معطل منذ 04:10']) {
      const p = (await map(faultManagementTemplate, text)).payload;
      expect([p['severity'], p['fault_domain']], text).toEqual([undefined, undefined]);
    }
  });
});

describe('forms left out in review: an English word, a part of longer words, an idiom', () => {
  it('keeps "Red Deer" a place and "red" a colour once a sentence reads as foreign (Spanish "red" only in "red IP")', async () => {
    for (const text of ['book a flight from Denver to Red Deer on Monday, first class, 東京 office', 'vuelo de Calgary a Red Deer el lunes en clase ejecutiva', 'reserva un vuelo de Madrid a Red Deer el lunes']) {
      expect((await map(flightBookingTemplate, text)).payload['destination'], text).toBe('Red Deer');
    }
    expect(glossOf('photo from the Domaine Chandon tasting: remove the red eye')).not.toContain('network');
    expect(glossOf('photo from the Domaine Chandon tasting')).not.toContain('domain');
    expect(glossOf('Site 12 (東京) red alarm: fiber cut')).not.toContain('network');
    expect(glossOf('fallo en la red IP')).toContain('network');
  });

  it('does not read katakana severities or 深度 inside longer words, and keeps the site ID', async () => {
    for (const text of ['サイト12 メジャーアップデート後に電源断 04:10から', 'サイト12でマイナーバージョンアップ後に光ファイバ切断、04:10から', 'サイト12 クイックルワイパー 電源断 04:10から', 'サイト12 マイナーアラーム 光ファイバ切断 04:10から', '站点12深度学习服务器掉电，自04:10起']) {
      const p = (await map(faultManagementTemplate, text)).payload;
      expect([p['severity'], p['diagnosis_depth'], p['affected_site_ids']], text).toEqual([undefined, undefined, ['12']]);
    }
  });

  it('reads Italian "a occhio" (roughly) as no alarm', async () => {
    const text = 'sito 12 senza corrente dalle 04:10, a occhio il guasto è sul cavo';
    expect((await map(faultManagementTemplate, text)).payload['alarm_type'], text).toBeUndefined();
  });

  it('reads 拡大 and 확대 as the verb "enlarge", like 放大: no eye enlargement', async () => {
    for (const text of ['この写真を拡大して', 'この写真を拡大印刷したい', '写真の拡大鏡アイコンを消して', '이 사진 확대해 주세요']) {
      expect((await map(photoRetouchTemplate, text)).payload['eye_enlargement'], text).toBeUndefined();
    }
  });
});
