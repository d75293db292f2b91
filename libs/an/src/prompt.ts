/**
 * Prompt content (AN draft 004 §5.2, Figure 7): a task's `content` may carry
 * "prompt-like information", sections introduced by `##`:
 *
 *     <content namespace=\"prompt\">
 *     ##target object
 *     <object">xxx</object">
 *     ##task description
 *     <description">xxx</description">
 *     ##environmental infomation
 *     <environmentInput">xxx</environmentInput">
 *
 * The figure is parsed exactly as printed (its stray quotes and backslashes,
 * the "infomation" typo, no closing `</content>`), and so are its tidier
 * variants: any case, a space or none after `##`, an optional `:` after the
 * heading, text on the heading line, with or without the wrapper and the
 * `<object>`, `<description>`, `<environmentInput>` tags (whose inner text is
 * taken). Other `##` sections are allowed and ignored; `###` lines are text.
 */
import { ParleyError } from '@parley/protocol';
import type { TaskPrompt } from './model';
import { MAX_TEXT_BYTES, utf8Length } from './check';

/** Longest prompt content: 64 KiB of UTF-8. */
export const MAX_PROMPT_CONTENT_BYTES = MAX_TEXT_BYTES;

interface SectionSpec {
  readonly key: keyof TaskPrompt;
  /** The section's name, as errors print it. */
  readonly name: string;
  /** The heading text (after `##`), anchored at its start; group 1 is text on the heading line. */
  readonly heading: RegExp;
  /** The tag whose inner text is the section's value. */
  readonly tag: string;
}

const SECTIONS: readonly SectionSpec[] = [
  { key: 'target_object', name: 'target object', heading: /^target\s+object\b\s*:?\s*(.*)$/i, tag: 'object' },
  { key: 'task_description', name: 'task description', heading: /^task\s+description\b\s*:?\s*(.*)$/i, tag: 'description' },
  {
    key: 'environmental_information',
    name: 'environmental information',
    // "infomation" is the draft's own spelling (Figure 7).
    heading: /^environment(?:al)?\s+infor?mation\b\s*:?\s*(.*)$/i,
    tag: 'environmentInput',
  },
];

/** A `##` heading line (not `###`); group 1 is the heading text. */
const HEADING_LINE = /^[ \t]*##(?!#)[ \t]*(.*?)[ \t]*$/;
const WRAPPER_OPEN = /^\s*<content\b[^>]*>/i;
const WRAPPER_CLOSE = /<\/content\s*>\s*$/i;
const PROMPT_WRAPPER = /<content\b[^>]*\bprompt\b[^>]*>/i;

function classify(headingText: string): { spec: SectionSpec; inline: string } | null {
  for (const spec of SECTIONS) {
    const m = spec.heading.exec(headingText);
    if (m) return { spec, inline: m[1] ?? '' };
  }
  return null;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The inner text of `<tag …>…</tag …>` when the tag is there (tolerating Figure 7's `<object">`); else the text. */
function innerText(text: string, tag: string): string {
  const t = escapeRe(tag);
  const both = new RegExp(`<${t}\\b[^>]*>([\\s\\S]*?)</${t}\\b[^>]*>`, 'i').exec(text);
  if (both) return (both[1] ?? '').trim();
  const open = new RegExp(`<${t}\\b[^>]*>([\\s\\S]*)$`, 'i').exec(text);
  if (open) return (open[1] ?? '').trim();
  return text.trim();
}

/**
 * True when `content` is meant as Figure 7 prompt content: it has at least
 * one of the three section headings, or the `<content namespace="prompt">`
 * wrapper. It does not say the prompt is complete: `parsePromptContent` does.
 */
export function hasPromptSections(content: string): boolean {
  if (typeof content !== 'string') return false;
  if (PROMPT_WRAPPER.test(content)) return true;
  for (const line of content.split(/\r\n|\r|\n/)) {
    const h = HEADING_LINE.exec(line);
    if (h && classify(h[1] ?? '')) return true;
  }
  return false;
}

/**
 * Parses Figure 7 prompt content into its three sections. Throws
 * ParleyError `invalid_params` naming `path` with rule `type` (not a
 * string), `max_length` (over 64 KiB), `prompt_section_missing` (a section
 * absent or empty; details.section names it) or `prompt_section_repeated`.
 */
export function parsePromptContent(content: string, path = 'content'): TaskPrompt {
  if (typeof content !== 'string') {
    throw new ParleyError('invalid_params', `${path} must be a string`, { path, rule: 'type' });
  }
  const bytes = utf8Length(content);
  if (bytes > MAX_PROMPT_CONTENT_BYTES) {
    throw new ParleyError('invalid_params', `${path} is ${bytes} bytes long; at most ${MAX_PROMPT_CONTENT_BYTES} are allowed`, {
      path,
      rule: 'max_length',
    });
  }
  const body = content.replace(WRAPPER_OPEN, '\n').replace(WRAPPER_CLOSE, '\n');
  const found = new Map<keyof TaskPrompt, string[]>();
  let current: string[] | null = null;
  for (const line of body.split(/\r\n|\r|\n/)) {
    const h = HEADING_LINE.exec(line);
    if (!h) {
      current?.push(line);
      continue;
    }
    const c = classify(h[1] ?? '');
    if (!c) {
      current = null; // another `##` section: not one of Figure 7's, ignored
      continue;
    }
    if (found.has(c.spec.key)) {
      throw new ParleyError('invalid_params', `${path} has the "## ${c.spec.name}" section twice`, {
        path,
        rule: 'prompt_section_repeated',
        details: { section: c.spec.name },
      });
    }
    current = c.inline === '' ? [] : [c.inline];
    found.set(c.spec.key, current);
  }
  const out: Partial<Record<keyof TaskPrompt, string>> = {};
  for (const spec of SECTIONS) {
    const lines = found.get(spec.key);
    const value = lines === undefined ? '' : innerText(lines.join('\n'), spec.tag);
    if (value === '') {
      const what = lines === undefined ? 'has no' : 'has an empty';
      throw new ParleyError(
        'invalid_params',
        `${path} ${what} "## ${spec.name}" section: prompt content (5.2 Figure 7) needs "## target object", "## task description" and "## environmental information", each followed by its text`,
        { path, rule: 'prompt_section_missing', details: { section: spec.name } },
      );
    }
    out[spec.key] = value;
  }
  return out as TaskPrompt;
}
