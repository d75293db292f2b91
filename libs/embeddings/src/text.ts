/**
 * Tokenising for the offline embedder: identifiers and prose alike. Tool names
 * and schema keys (`list_pull_requests`, `pullNumber`, `per-page`) are split
 * into their words, so "pull number" and `pullNumber` meet.
 */

/**
 * Splits `text` into lowercase word tokens: camelCase, snake_case, kebab-case
 * and punctuation all separate words; English contractions lose their clitic
 * ("don't" → "do", "not"; "user's" → "user"); diacritics are removed.
 */
export function tokenize(text: string): string[] {
  const s = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2018\u2019\u02bc]/g, "'")
    // Plural acronyms stay one word: PRs, APIs, IDs (not "P Rs").
    .replace(/\b([A-Z]{2,})s\b/g, (_m, a: string) => `${a.toLowerCase()}s`)
    // camelCase and PascalCase boundaries: pullNumber → pull Number, HTTPServer → HTTP Server.
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .replace(/n't\b/g, ' not')
    .replace(/'(s|re|ve|ll|d|m)\b/g, ' ');
  return s.split(/[^a-z0-9]+/).filter((t) => t.length > 0);
}

/**
 * Words that carry no intent in a short request: function words (the usual
 * English list) and the politeness and wanting that wraps a request ("I would
 * like", "please", "could you"). Kept out: negations are dropped too because a
 * bag of words cannot scope them; words that name an action ("get", "make",
 * "list", "show") stay, since tool names are built from them.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all also am an and any are as at be because been before being below between both but by
  can could did do does doing down during each either few for from further had has have having he her here hers herself him
  himself his how however i if in into is it its itself just let me more most my myself neither no nor not of off on once only
  or other our ours ourselves out over own please same she should so some such than that the their theirs them themselves then
  there these they this those through to too under until up us very was we were what when where which while who whom why will
  with would you your yours yourself yourselves want wants wanted like d ll m re s t ve o y ain shall may might must etc ok okay
  kindly thanks thank`.split(/\s+/).filter((w) => w.length > 0),
);

/**
 * Abbreviations common in software and operations text that WordNet lacks or
 * reads otherwise ("pr" is Puerto Rico there, "repo" is absent). Each expands
 * to the words it stands for before lemmatisation.
 */
export const ABBREVIATIONS: Readonly<Record<string, string>> = {
  pr: 'pull request',
  prs: 'pull requests',
  repo: 'repository',
  repos: 'repositories',
  org: 'organization',
  orgs: 'organizations',
  dir: 'directory',
  dirs: 'directories',
  config: 'configuration',
  configs: 'configurations',
  auth: 'authentication',
  info: 'information',
  docs: 'documentation',
  doc: 'document',
  msg: 'message',
  env: 'environment',
  db: 'database',
  ci: 'continuous integration',
  cd: 'continuous delivery',
  id: 'identifier',
  ids: 'identifiers',
  img: 'image',
  pic: 'picture',
  pics: 'pictures',
  app: 'application',
  apps: 'applications',
  param: 'parameter',
  params: 'parameters',
  arg: 'argument',
  args: 'arguments',
  sha: 'commit hash',
  deps: 'dependencies',
  dep: 'dependency',
  vuln: 'vulnerability',
  vulns: 'vulnerabilities',
  cve: 'vulnerability',
  cves: 'vulnerabilities',
  ghsa: 'security advisory',
  bw: 'bandwidth',
  sw: 'software',
  hw: 'hardware',
};

/**
 * Groups of words that software and operations text uses interchangeably and
 * WordNet does not link: there a bug is an insect or a defect but never an
 * issue, to fork is to divide and not to copy, and "readme" is absent. The
 * members of a group share one concept feature. Kept general (version control,
 * issue tracking, CI, accounts), not the names of any one server's tools; it was
 * drafted while looking at tool-selection misses, so BENCHMARKS.md reports the
 * figures with and without it.
 */
export const SOFTWARE_THESAURUS: readonly (readonly string[])[] = [
  ['issue', 'bug', 'ticket', 'defect'],
  ['repository', 'codebase'],
  ['release', 'version'],
  ['collaborator', 'contributor', 'maintainer', 'member'],
  ['access', 'permission'],
  ['fork', 'copy', 'clone'],
  ['star', 'bookmark', 'favorite', 'favourite'],
  ['edit', 'modify', 'change', 'update'],
  ['delete', 'remove', 'erase'],
  ['authenticated', 'logged', 'login', 'signed'],
  ['readme', 'documentation'],
  ['workflow', 'pipeline', 'build'],
  ['log', 'output'],
  ['vulnerability', 'vulnerable', 'advisory', 'cve', 'exploit'],
  ['alert', 'warning', 'finding'],
  ['comment', 'reply', 'remark'],
  ['search', 'find', 'look', 'locate'],
  ['list', 'show', 'display', 'enumerate'],
  ['notification', 'inbox', 'mention'],
  ['secret', 'credential', 'token', 'key', 'password'],
  ['user', 'account', 'profile'],
  ['organization', 'company'],
  ['directory', 'folder'],
  ['latest', 'newest', 'recent', 'last'],
];
