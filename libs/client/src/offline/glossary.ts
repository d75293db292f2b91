/**
 * English glosses of other languages' words, so that the offline mapper reads
 * a request in French, German, Spanish, Italian, Russian, Arabic, Chinese,
 * Japanese or Korean through the English WordNet it already uses (draft-zhou §6.1: the
 * client agent maps the user's words, in whatever language, onto the
 * template's keys).
 *
 * What is here: translations of the English words the seeded templates are
 * written in (their key names, enum values and description words: flight,
 * class, economy, skin, smoothing, teeth, background, blur, filter, warm,
 * incident, base station, link, severity, critical, wireless, …), taken from
 * general bilingual dictionaries, in their common inflected forms, and for
 * severities the ITU-T X.733 level names as Chinese and Japanese network
 * management systems print them (紧急/緊急 critical, 重要/重大 major, 次要/軽微
 * minor, 警告 warning). A gloss is the dictionary's first sense, not the one a
 * scenario would like ("aufhellen" is lighten, not whiten). Every enum value
 * of the seeded templates has a form in each of the nine languages, or is
 * listed with the reason it has none (offline-glossary-coverage.test.ts: the
 * word for "none" is a function word everywhere); a dictionary form that is
 * also a function word, a name or a part of other words is left out. Words the
 * mapper already reads in other languages (route words, numbers, counters of
 * people: languages.ts) are not repeated.
 *
 * A glossed token keeps its text and offsets (`other` is always the user's own
 * words, sliced from the text); only its `lower`, the form rules read, becomes
 * English. A gloss of several words becomes several tokens over the same
 * characters. A run of CJK characters (one token, text.ts) is cut at the
 * longest glossed words inside it; the rest stays CJK.
 */
import { hasCjk, type Token } from './text';

/** [English gloss, its forms in other languages]. Keys of the map built from it are outside-string safe (a Map). */
const ENTRIES: readonly (readonly [string, readonly string[]])[] = [
  // Travel: flight_booking's words.
  ['flight', ['vol', 'vols', 'flug', 'flüge', 'vuelo', 'vuelos', 'volo', 'voo', 'рейс', 'рейсы', 'перелёт', 'перелет', 'رحلة', 'رحلات', '航班', '便', '항공편']],
  ['plane', ['avion', 'flugzeug', 'avión', 'aereo', 'самолёт', 'самолет', 'самолёте', 'طائرة', '飞机', '飛行機', '비행기']],
  ['ticket', ['billet', 'billets', 'ticket', 'tickets', 'billete', 'billetes', 'boleto', 'boletos', 'biglietto', 'билет', 'билеты', 'تذكرة', 'تذاكر', '机票', '航空券', '항공권']],
  ['passenger', ['passager', 'passagers', 'passagier', 'passagiere', 'pasajero', 'pasajeros', 'passeggero', 'passeggeri', 'пассажир', 'راكب', 'ركاب', '乘客', '乗客', '승객']],
  ['class', ['classe', 'klasse', 'clase', 'класс', 'классом', 'درجة', '舱', '艙', 'クラス', '클래스']],
  ['economy', ['économique', 'economique', 'éco', 'economy', 'económica', 'economica', 'económico', 'эконом', 'экономкласс', 'الاقتصادية', 'السياحية', 'エコノミー']],
  ['economy class', ['经济舱', '經濟艙', 'エコノミークラス', '일반석', '이코노미석', '이코노미', 'clase turista', 'classe turistica', 'classe touriste', 'classe turística', 'classe econômica', 'classe economica', 'touristenklasse', 'economyklasse']],
  ['premium', ['премиум']],
  ['premium economy', ['turista premium', 'económica premium', 'économique premium', 'السياحية الممتازة', 'الاقتصادية الممتازة', 'премиум эконом', '超级经济舱', '高端经济舱', 'プレミアムエコノミー', '프리미엄이코노미']],
  ['business', ['affaires', 'business', 'ejecutiva', 'negocios', 'бизнес', 'الأعمال', 'ビジネス', '비즈니스']],
  ['business class', ['商务舱', '商務艙', 'ビジネスクラス', '비즈니스석', '비즈니스클래스', 'businessklasse']],
  ['first', ['première', 'premiere', 'premier', 'erste', 'ersten', 'erster', 'primera', 'primero', 'prima', 'первый', 'первым', 'الأولى', 'ファースト']],
  ['first class', ['头等舱', '頭等艙', 'ファーストクラス', '일등석', '퍼스트클래스']],
  ['cabin', ['cabine', 'kabine', 'cabina', 'المقصورة', '客舱', '客艙', 'キャビン']],
  ['seat', ['siège', 'sitzplatz', 'asiento', 'место', 'مقعد', '座位', '座席', '좌석']],
  ['departure', ['départ', 'abflug', 'salida', 'partenza', 'вылет', 'مغادرة', '出发', '出発', '출발']],
  // Photos: photo_retouch's words.
  ['photo', ['photo', 'foto', 'fotos', 'фото', 'фотографию', 'صورة', '照片', '相片', '写真', '사진']],
  ['picture', ['image', 'bild', 'imagen', 'immagine', 'изображение', '图片', '画像', '이미지']],
  ['skin', ['peau', 'haut', 'piel', 'pelle', 'pele', 'кожа', 'кожу', 'البشرة', 'بشرة', '皮肤', '皮膚', '肌', '피부']],
  ['smooth', ['lisser', 'lisse', 'adoucir', 'glätten', 'glatt', 'suavizar', 'alisar', 'levigare', 'сгладить', 'разгладить', 'تنعيم', '光滑', '平滑', 'なめらか', '滑らか', '매끄럽게']],
  ['smooth skin', ['磨皮', '美肌']],
  ['smoothing', ['lissage', 'glättung', 'suavizado', 'levigatura', 'сглаживание']],
  ['whitening', ['blanchiment', 'aufhellung', 'blanqueamiento', 'sbiancamento', 'отбеливание']],
  ['enlargement', ['agrandissement', 'vergrößerung', 'agrandamiento', 'ingrandimento']],
  ['soft', ['doux', 'douce', 'weich', 'suave', 'morbido', 'мягкий', 'ناعمة', '柔和']],
  ['tooth', ['dent', 'zahn', 'diente', 'dente', 'зуб', 'سن', '牙']],
  ['teeth', ['dents', 'zähne', 'zaehne', 'dientes', 'denti', 'dentes', 'зубы', 'أسنان', 'الأسنان', '牙齿', '牙齒', '歯', '치아']],
  ['white', ['blanc', 'blanche', 'blancs', 'blanches', 'weiß', 'weiss', 'weiße', 'weißer', 'blanco', 'blanca', 'blancos', 'blancas', 'bianco', 'bianchi', 'branco', 'белый', 'белые', 'أبيض', '白', '白く', '하얗게']],
  ['whiten', ['blanchir', 'bleichen', 'blanquear', 'sbiancare', 'отбелить', 'تبييض', '美白', 'ホワイトニング', '미백']],
  ['lighten', ['aufhellen', 'éclaircir', 'aclarar', 'осветлить']],
  ['background', ['fond', 'arrière-plan', 'hintergrund', 'fondo', 'sfondo', 'фон', 'الخلفية', 'خلفية', '背景', '배경']],
  ['blur', ['flou', 'flouter', 'unschärfe', 'weichzeichnen', 'verwischen', 'desenfocar', 'desenfoque', 'difuminar', 'sfocare', 'sfocatura', 'размыть', 'размытие', 'تمويه', '虚化', '虛化', '模糊', 'ぼかし', 'ぼかす', 'ボケ', '흐림', '흐리게', '블러']],
  ['blurred', ['floue', 'unscharf', 'verschwommen', 'borroso', 'borrosa', 'desenfocado', 'sfocato', 'размытый', 'ضبابية']],
  ['filter', ['filtre', 'filter', 'filtro', 'фильтр', 'فلتر', 'مرشح', '滤镜', '濾鏡', 'フィルター', '필터']],
  ['style', ['style', 'stil', 'estilo', 'stile', 'стиль', 'نمط', '风格', '風格', 'スタイル', '스타일']],
  ['vintage', ['vintage', 'винтажный', 'винтажная', 'винтажные', 'винтажном', 'винтаж', '复古', '復古', 'ビンテージ', 'ヴィンテージ', '빈티지']],
  ['retro', ['rétro', 'retro', 'ретро', 'レトロ', '레트로']],
  ['cinematic', ['cinématographique', 'cinematografisch', 'kinematografisch', 'filmisch', 'filmische', 'filmischen', 'filmischer', 'cinematográfico', 'cinematográfica', 'cinematografico', 'кинематографический', 'кинематографичный', 'سينمائي', 'سينمائية', '电影感', '電影感', 'シネマティック', '시네마틱']],
  ['cinema', ['cinéma', 'kino', 'cine', 'кино', 'سينما', '电影', '電影', 'シネマ', '映画', '시네마', '영화']],
  ['warm', ['chaud', 'chaude', 'chaudes', 'warm', 'warmer', 'cálido', 'cálida', 'cálidos', 'cálidas', 'caldo', 'calda', 'caldi', 'calde', 'тёплый', 'теплый', 'тёплая', 'теплая', 'тёплые', 'теплые', 'دافئ', 'دافئة', '暖色', '温暖', '暖かい', '따뜻한']],
  ['cool', ['froid', 'froide', 'froids', 'kühl', 'kühle', 'kühlen', 'kalt', 'frío', 'fría', 'fríos', 'frías', 'freddo', 'fredda', 'freddi', 'fredde', 'холодный', 'холодная', 'холодные', 'بارد', 'باردة', '冷色', '寒色', '차가운']],
  ['eye', ['œil', 'oeil', 'yeux', 'auge', 'augen', 'ojo', 'ojos', 'occhi', 'olhos', 'глаз', 'глаза', 'عين', 'عيون', 'العيون', '眼睛', '眼', '目', '눈']],
  ['enlarge', ['agrandir', 'vergrößern', 'vergroessern', 'agrandar', 'ingrandire', 'увеличить', 'تكبير', '放大', '拡大', '확대', '大きく', '크게']],
  ['level', ['niveau', 'stufe', 'nivel', 'livello', 'уровень', 'مستوى', '级', '級', 'レベル', '레벨', '단계']],
  ['slightly', ['légèrement', 'ligeramente', 'leggermente', 'levemente', 'слегка']],
  ['light', ['léger', 'légère', 'leicht', 'leichte', 'ligero', 'ligera', 'leggero', 'лёгкий', 'легкий', 'خفيف', '轻微', '軽め', '가볍게']],
  // Networks: fault_management's words.
  ['incident', ['incident', 'vorfall', 'incidente', 'инцидент', 'حادث', '事件', 'インシデント', '인시던트']],
  ['fault', ['panne', 'défaut', 'störung', 'fehler', 'falla', 'fallo', 'avería', 'guasto', 'авария', 'неисправность', 'عطل', '故障', '障害', '장애']],
  ['failure', ['défaillance', 'ausfall', 'fallo', 'сбой', 'فشل', '失效', '失敗', '실패']],
  ['failed', ['ausgefallen', 'caído', 'caída', 'caídos', 'caídas', 'упал', 'упали', 'معطل']],
  ['alarm', ['alarme', 'alarm', 'alarma', 'allarme', 'авария', 'тревога', 'إنذار', '告警', '警报', 'アラーム', '警報', '알람', '경보']],
  ['site', ['site', 'sites', 'standort', 'standorte', 'sitio', 'sitios', 'sito', 'siti', 'сайт', 'площадка', 'موقع', 'مواقع', '站点', 'サイト', '사이트']],
  ['station', ['stations', 'estación', 'estaciones', 'stazione', 'stazioni', 'станция', 'станции', 'محطة', 'محطات']],
  ['base station', ['basisstation', 'basisstationen', '基站', '基地局', '기지국']],
  ['base', ['base', 'basis', 'базовая', 'базовые', 'базовой', 'قاعدة']],
  ['router', ['routeur', 'router', 'enrutador', 'маршрутизатор', 'موجه', '路由器', 'ルーター', '라우터']],
  ['link', ['lien', 'liaison', 'verbindung', 'enlace', 'collegamento', 'канал', 'линк', 'وصلة', 'رابط', '链路', '鏈路', 'リンク', '링크']],
  ['line', ['ligne', 'leitung', 'línea', 'linea', 'линия', 'خط', '线路', '回線', '회선']],
  ['down', ['coupé', 'coupée', 'hors', 'abgeschaltet', 'недоступен', 'متوقف', '中断', '停止', '断']],
  // Not glossed (they misfire on ordinary sentences): "не работает" (anything that does not work, of any subject),
  // and the single words for "low" ("bajo" is above all "under", "Baja"/"Basse-Terre" are places, 低 is part of
  // other words: 最低价, 降低, 低优先级); only the phrase 过低 "too low" is read whole.
  // Nor, for the same reasons: the katakana メジャー, マイナー, クリティカル, ワーニング, クイック and the Chinese 深度 (parts
  // of メジャーアップデート, クイックルワイパー, 深度学习), Italian "occhio" ("a occhio" is roughly), French "domaine" and
  // "critiques" (English words and names: Domaine Chandon).
  ['out of service', ['außer betrieb', 'ausser betrieb', 'hors service', 'fuera de servicio', 'fuori servizio', 'fora de serviço', 'خارج الخدمة', '退服', '退出服务', '退出服務', 'вышла из строя', 'вышли из строя', 'вышел из строя', 'выведена из эксплуатации', 'выведены из эксплуатации']],
  ['too low', ['过低', '過低', '低すぎ', 'trop faible', 'trop bas', 'trop basse', 'zu niedrig', 'zu gering', 'demasiado baja', 'demasiado bajo', 'troppo bassa', 'troppo basso', 'слишком низкая', 'слишком низкий', 'слишком низкое', 'منخفضة جدا', 'منخفض جدا']],
  ['optical power', ['光功率', '光パワー', '광파워', 'puissance optique', 'optische leistung', 'potencia óptica', 'potenza ottica', 'оптическая мощность', 'القدرة الضوئية']],
  ['cut', ['coupure', 'unterbrechung', 'corte', 'interruzione', 'обрыв', 'قطع', '切断']],
  ['fibre', ['fibre', 'glasfaser', 'fibra', 'волокно', 'ألياف', '光纤', '光ファイバ', '광섬유']],
  ['power', ['courant', 'strom', 'energía', 'corriente', 'питание', 'كهرباء', '电源', '電源', '전원']],
  ['optical', ['optique', 'optisch', 'óptica', 'óptico', 'оптический', 'بصري', '光']],
  ['severity', ['gravité', 'sévérité', 'schweregrad', 'severidad', 'gravedad', 'gravità', 'серьёзность', 'важность', 'خطورة', '严重性', '级别', '重要度', '심각도']],
  ['critical', ['critique', 'kritisch', 'crítico', 'crítica', 'critico', 'critica', 'критично', 'критический', 'критическая', 'критичный', 'критичная', 'kritische', 'kritischer', 'kritischen', 'حرج', 'حرجة', 'الحرجة', '紧急', '緊急', '긴급']],
  ['major', ['majeur', 'majeure', 'schwer', 'schwerwiegend', 'mayor', 'maggiore', 'серьёзный', 'серьезный', 'رئيسي', '重要', '重大', '주요']],
  ['minor', ['mineur', 'mineure', 'geringfügig', 'gering', 'menor', 'minore', 'незначительный', 'незначительная', 'geringfügige', 'طفيف', 'طفيفة', '次要', '軽微', '경미']],
  ['warning', ['avertissement', 'warnung', 'advertencia', 'avviso', 'предупреждение', 'تحذير', '警告', '경고']],
  ['severe', ['sévère', 'schwerwiegende', 'severo', 'severa', 'серьёзная', 'شديد', '严重', '深刻', '심각']],
  ['wireless', ['sans-fil', 'drahtlos', 'funk', 'inalámbrico', 'inalámbrica', 'inalambrico', 'inalámbricos', 'inalámbricas', 'wireless', 'беспроводной', 'беспроводная', 'لاسلكي', '无线', '無線', '무선']],
  ['radio', ['radio', 'funknetz', 'радио', 'راديو']],
  ['network', ['réseau', 'réseaux', 'netz', 'netzwerk', 'rete', 'сеть', 'сети', 'شبكة', '网络', '網路', 'ネットワーク', '网', '網', '네트워크', '망']],
  // Spanish "red" is read only in the phrase "red IP": alone it is the English colour ("Red Deer", "red eye").
  ['network ip', ['red ip', 'redes ip']],
  ['transport', ['transport', 'transporte', 'trasporto', 'транспорт', 'транспортная', 'نقل', '传输', '傳輸', '伝送', '전송']],
  ['transport network', ['transportnetz', '传输网', '傳輸網', '伝送網', '전송망']],
  ['core', ['cœur', 'coeur', 'kern', 'núcleo', 'nucleo', 'ядро', 'ядра', 'النواة', '核心', 'コア', '코어']],
  ['core network', ['kernnetz', 'réseau cœur', 'réseau coeur', 'ядро сети', 'الشبكة الأساسية', '核心网', '核心網', 'コアネットワーク', '코어망']],
  ['domain', ['domaines', 'domäne', 'domänen', 'dominio', 'dominios', 'domini', 'домен', 'домена', 'доменах', 'доменов', 'ドメイン', '도메인']],
  ['cross domain', ['interdomaine', 'interdomaines', 'inter domaines', 'inter domaine', 'multi domaines', 'domänenübergreifend', 'domänenübergreifende', 'domänenübergreifender', 'domänenübergreifenden', 'interdominio', 'entre dominios', 'tra domini', 'междоменный', 'междоменная', 'междоменные', 'кросс доменный', 'عبر النطاقات', '跨域', 'ドメイン横断', 'クロスドメイン', '크로스도메인', '도메인간']],
  ['depth', ['profondeur', 'tiefe', 'profundidad', 'profondità', 'глубина', 'عمق', '深さ', '깊이']],
  ['complaint', ['plainte', 'plaintes', 'réclamation', 'réclamations', 'beschwerde', 'beschwerden', 'queja', 'quejas', 'reclamo', 'reclamos', 'жалоба', 'жалобы', 'жалоб', 'شكوى', 'شكاوى', '投诉', '投訴', '苦情', '불만', '민원']],
  ['customer', ['client', 'clients', 'kunde', 'kunden', 'cliente', 'clientes', 'clienti', 'клиент', 'клиенты', 'клиентов', 'عميل', 'عملاء', '客户', '客戶', '顧客', '고객']],
  ['user', ['utilisateur', 'utilisateurs', 'nutzer', 'benutzer', 'usuario', 'usuarios', 'utente', 'utenti', 'пользователь', 'пользователи', 'пользователей', 'مستخدم', 'مستخدمين', '用户', '用戶', 'ユーザー', '利用者', '사용자']],
  ['diagnosis', ['diagnostic', 'diagnose', 'diagnóstico', 'diagnosi', 'диагностика', 'تشخيص', '诊断', '診断', '진단']],
  ['quick', ['rapide', 'schnell', 'schnelle', 'rápido', 'rápida', 'rapido', 'rapida', 'быстрый', 'быстрая', 'быструю', 'سريع', 'سريعة', '快速', '簡易', '빠른']],
  ['full', ['complet', 'complète', 'vollständig', 'vollständige', 'completo', 'completa', 'полный', 'полная', 'полную', 'كامل', 'كاملة', '全面', '完全', '전체']],
  ['thorough', ['approfondi', 'approfondie', 'gründlich', 'gründliche', 'exhaustivo', 'exhaustiva', 'approfondito', 'тщательный', 'شامل', '彻底', '徹底', '철저한']],
  ['check', ['vérification', 'prüfung', 'überprüfung', 'revisión', 'verifica', 'проверка', 'فحص', '检查', '点検', '검사']],
  ['outage', ['interruption', 'störung', 'interrupción', 'отключение', 'انقطاع']],
];

/** Lowercase form in another language → its English gloss, one or more words. */
export const GLOSSES: ReadonlyMap<string, readonly string[]> = (() => {
  const m = new Map<string, readonly string[]>();
  for (const [english, forms] of ENTRIES) {
    for (const f of forms) {
      // An English word that is the same in the other language ("filter", "base") needs no gloss; a form of several
      // words is a phrase (below).
      if (f === english || m.has(f) || f.includes(' ')) continue;
      m.set(f, english.split(' '));
    }
  }
  return m;
})();

/** A dictionary entry of several words ("fuera de servicio"): its words after the first, and its English gloss. */
export interface PhraseGloss {
  readonly rest: readonly string[];
  readonly gloss: readonly string[];
}

/**
 * Forms of several space-separated words (a script with spaces: "außer betrieb", "fuera de servicio", "clase
 * turista", "hors service"), keyed by their first word: a dictionary translates the phrase, not its words one by one
 * ("servicio" alone is a service, "turista" a tourist). Only phrases whose gloss has at least as many words, so each
 * word of the phrase reads as one or more words of the gloss, in order (`phraseAt`).
 */
export function phraseGlosses(entries: readonly (readonly [string, readonly string[]])[]): ReadonlyMap<string, readonly PhraseGloss[]> {
  const m = new Map<string, PhraseGloss[]>();
  for (const [english, forms] of entries) {
    const gloss = english.split(' ');
    for (const f of forms) {
      const words = f.split(' ');
      if (words.length < 2) continue;
      // A phrase of more words than its gloss could not give each word its share: refused loudly, not dropped.
      if (words.length > gloss.length) throw new Error(`glossary: the phrase "${f}" has more words than its gloss "${english}"`);
      const [first, ...rest] = words as [string, ...string[]];
      m.set(first, [...(m.get(first) ?? []), { rest, gloss }]);
    }
  }
  // Longest first: "fuera de servicio" before a shorter phrase of the same first word.
  for (const list of m.values()) list.sort((a, b) => b.rest.length - a.rest.length);
  return m;
}

export const PHRASE_GLOSSES: ReadonlyMap<string, readonly PhraseGloss[]> = phraseGlosses(ENTRIES);

/** The phrase of the glossary that starts at token `i` (its words as written, one token each), if any. */
function phraseAt(tokens: readonly Token[], i: number): PhraseGloss | undefined {
  const list = PHRASE_GLOSSES.get((tokens[i] as Token).lower);
  return list?.find((p) => p.rest.every((w, n) => tokens[i + 1 + n]?.kind === 'word' && tokens[i + 1 + n]?.lower === w) && !named(tokens[i + 1 + p.rest.length]));
}

/**
 * A token right after a phrase that makes its last word a name's head, not the end of the phrase: a number or a
 * capitalised word in the same clause ("außer Betrieb Nord", "außer Betrieb 3": all but plant North, plant 3).
 */
function named(next: Token | undefined): boolean {
  return next !== undefined && (next.kind === 'number' || (next.kind === 'word' && next.capital && !next.upper));
}

/** The tokens of a glossed phrase: each of its `n` words reads as its share of the gloss, in order, offsets kept. */
function glossedPhrase(words: readonly Token[], gloss: readonly string[]): Token[] {
  const n = words.length;
  return words.flatMap((t, k) => glossed(t, gloss.slice(Math.floor((k * gloss.length) / n), Math.floor(((k + 1) * gloss.length) / n)), t.start, t.end));
}

/**
 * The entries whose English gloss is a verb and whose forms are that verb's infinitives (or words that end unlike
 * one): the only ones read inflected. Marked by hand with the entries, not found from their endings.
 */
const VERB_GLOSSES: ReadonlySet<string> = new Set(['smooth', 'whiten', 'lighten', 'blur', 'enlarge']);

/** Infinitive endings of the glossary's verbs in other languages (French, Spanish, Italian, German, Portuguese). */
const INFINITIVE_ENDINGS: readonly string[] = ['are', 'ere', 'ire', 'ar', 'er', 'ir', 're', 'en'];
/** Letters a verb's stem keeps at least, and an inflection adds at most ("suaviz" + "a", "liss" + "ée"). */
const MIN_STEM = 4;
const MAX_INFLECTION = 3;

/**
 * Stem of each infinitive of the glossary in a Latin script → its gloss ("suavizar" → suaviz → smooth): the
 * dictionaries list a verb by its infinitive, a user says it inflected ("suaviza la piel", "peau lissée"). A stem two
 * verbs of different glosses share is left out.
 */
const STEMS: ReadonlyMap<string, readonly string[]> = (() => {
  const m = new Map<string, readonly string[] | null>();
  for (const [english, forms] of ENTRIES) {
    // Only the entries that gloss a verb: an adjective's or a noun's ending is no infinitive ("schwer", "premier", "kunden").
    if (!VERB_GLOSSES.has(english)) continue;
    for (const f of forms) {
      if (!/^[\p{Script=Latin}]+$/u.test(f)) continue;
      const ending = INFINITIVE_ENDINGS.find((e) => f.endsWith(e) && f.length - e.length >= MIN_STEM);
      if (!ending) continue;
      const stem = f.slice(0, -ending.length);
      const seen = m.get(stem);
      m.set(stem, seen === undefined || seen?.join(' ') === english ? english.split(' ') : null);
    }
  }
  const out = new Map<string, readonly string[]>();
  for (const [stem, g] of m) if (g) out.set(stem, g);
  return out;
})();

/** The gloss of an inflected form of a glossary verb: the longest stem it extends by one to three letters. */
export function inflectedGloss(word: string): readonly string[] | undefined {
  if (word.length > 40) return undefined;
  for (let len = word.length - 1; len >= Math.max(MIN_STEM, word.length - MAX_INFLECTION); len--) {
    const g = STEMS.get(word.slice(0, len));
    if (g) return g;
  }
  return undefined;
}

/** The glossed CJK forms, longest first (a run is cut at the longest one that starts at each place). */
const CJK_FORMS: readonly string[] = [...GLOSSES.keys()].filter(hasCjk).sort((a, b) => b.length - a.length);
/** Longest CJK form, to bound the look at each place. */
const LONGEST_CJK = CJK_FORMS.reduce((n, f) => Math.max(n, f.length), 0);
/**
 * Glossed words read per utterance at most: a request says a few dozen words; past this the rest is left as
 * written, so a hostile run of glossed words ("背景背景…") does not multiply the tokens every rule scans.
 */
export const MAX_GLOSSED = 64;
/** Single CJK characters glossed only when they stand alone: inside a run they are parts of other words (便 in 方便). */
const ALONE_ONLY: ReadonlySet<string> = new Set(['便', '眼', '目', '歯', '白', '牙', '光', '断', '网', '網', '级', '級', '舱', '艙', '눈', '망']);

function glossed(t: Token, words: readonly string[], start: number, end: number): Token[] {
  // A glossed word is an ordinary lowercase word: not a capitalised name ("Haut", "Hintergrund").
  return words.map((w, n) => ({ ...t, text: t.text.slice(start - t.start, end - t.start), lower: w, start, end, kind: 'word' as const, capital: false, upper: false, glued: n > 0 || t.glued || start > t.start }));
}

/** The glossed pieces of one CJK run, or undefined when none of it is glossed. */
function splitRun(t: Token, budget: { left: number }): Token[] | undefined {
  const text = t.text;
  const out: Token[] = [];
  let from = 0;
  let at = 0;
  let any = false;
  while (at < text.length && budget.left > 0) {
    let hit: string | undefined;
    for (let len = Math.min(LONGEST_CJK, text.length - at); len >= 1 && !hit; len--) {
      const piece = text.slice(at, at + len);
      if (GLOSSES.has(piece) && !(len === 1 && ALONE_ONLY.has(piece) && text.length > 1)) hit = piece;
    }
    if (!hit) {
      at += (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
      continue;
    }
    if (at > from) out.push({ ...t, text: text.slice(from, at), lower: text.slice(from, at).toLowerCase(), start: t.start + from, end: t.start + at, glued: from > 0 || t.glued });
    out.push(...glossed(t, GLOSSES.get(hit) as readonly string[], t.start + at, t.start + at + hit.length));
    at += hit.length;
    from = at;
    any = true;
    budget.left--;
  }
  if (!any) return undefined;
  if (from < text.length) out.push({ ...t, text: text.slice(from), lower: text.slice(from).toLowerCase(), start: t.start + from, end: t.end, glued: true });
  return out;
}

/**
 * `tokens` with words of other languages read as their English glosses (offsets and text kept). A word that is
 * also an English word (`isEnglish`: WordNet knows it) is glossed only in an utterance that holds a glossed word
 * English does not have: "the mayor reports", "a client", "premier seats", "fond of" mean what they mean in
 * English, and "des dents blanches" is French.
 */
export function glossTokens(tokens: readonly Token[], isEnglish: (word: string) => boolean = () => false): Token[] {
  const out: Token[] = [];
  const budget = { left: MAX_GLOSSED };
  const foreign = tokens.some((t) => (t.kind === 'word' && GLOSSES.has(t.lower) && !isEnglish(t.lower)) || t.kind === 'cjk');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    // A phrase of the dictionary is read whole, before its words one by one.
    const phrase = budget.left > 0 && t.kind === 'word' && (foreign || !isEnglish(t.lower)) ? phraseAt(tokens, i) : undefined;
    if (phrase) {
      out.push(...glossedPhrase(tokens.slice(i, i + 1 + phrase.rest.length), phrase.gloss));
      i += phrase.rest.length;
      budget.left--;
    } else if (budget.left <= 0) out.push(t);
    else if (t.kind === 'word') {
      // An inflected verb of the glossary ("blanquea"), only where English has no such word ("rendered" is English).
      const g = foreign || !isEnglish(t.lower) ? GLOSSES.get(t.lower) ?? (foreign && !isEnglish(t.lower) ? inflectedGloss(t.lower) : undefined) : undefined;
      if (g) {
        out.push(...glossed(t, g, t.start, t.end));
        budget.left--;
      } else out.push(t);
    } else if (t.kind === 'cjk') out.push(...(splitRun(t, budget) ?? [t]));
    else out.push(t);
  }
  return out;
}

/**
 * The English glosses the glossary reads in `tokens` (`glossTokens`, the mapper's own reading), in the order said, at
 * most `MAX_GLOSSED` glossed words: the words of a request in another language that the templates' English text is
 * written in ("billet d'avion" → ticket plane). Identification ranks scenarios on them beside the words as written
 * (draft-zhou §6.1: the client agent reads the user's words, in whatever language, against the templates).
 */
export function glossedWords(tokens: readonly Token[], isEnglish: (word: string) => boolean = () => false): string[] {
  const asWritten = new Map(tokens.map((t) => [`${t.start}:${t.end}`, t.lower] as const));
  return glossTokens(tokens, isEnglish)
    .filter((t) => t.kind === 'word' && asWritten.get(`${t.start}:${t.end}`) !== t.lower)
    .map((t) => t.lower);
}
