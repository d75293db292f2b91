/** AN draft 004 §5.2 Figure 7: prompt content of a task. */
import { describe, expect, it } from 'vitest';
import { MAX_PROMPT_CONTENT_BYTES, hasPromptSections, parsePromptContent } from '@parley/an';
import { expectError } from './helpers';
import { FIGURE_7, PROMPT_CONTENT, figure7FromDraft } from './fixtures';

describe('parsePromptContent: Figure 7 as printed (5.2)', () => {
  it('parses the figure exactly as the draft prints it', () => {
    expect(parsePromptContent(FIGURE_7)).toEqual({ target_object: 'xxx', task_description: 'xxx', environmental_information: 'xxx' });
    expect(hasPromptSections(FIGURE_7)).toBe(true);
  });

  const fromDraft = figure7FromDraft();
  it.skipIf(fromDraft === undefined)('the fixture is the figure in shared/specs, byte for byte, and parses', () => {
    expect(fromDraft).toBe(FIGURE_7);
    expect(parsePromptContent(fromDraft as string).task_description).toBe('xxx');
  });

  it('parses the tidy form with wrapper, spaces after ## and closing tags', () => {
    expect(parsePromptContent(PROMPT_CONTENT)).toEqual({
      target_object: 'gNodeB cluster east-7 (312 cells)',
      task_description: 'Find the root cause of the batch outage since 09:12 and propose a recovery plan.',
      environmental_information: 'Transport link TL-44 flapped at 09:11; power alarms at site S-18.',
    });
  });
});

describe('parsePromptContent: variants', () => {
  it('takes untagged text, several lines, any case, CRLF and the correct spelling', () => {
    const content = '## TARGET OBJECT\r\nrouter R1\r\n##Task Description\r\nline one\r\nline two\r\n## Environmental Information\r\nlab\r\n';
    expect(parsePromptContent(content)).toEqual({
      target_object: 'router R1',
      task_description: 'line one\nline two',
      environmental_information: 'lab',
    });
  });

  it('takes text on the heading line after an optional colon', () => {
    expect(parsePromptContent('## target object: R1\n## task description: reboot\n## environment information: lab')).toEqual({
      target_object: 'R1',
      task_description: 'reboot',
      environmental_information: 'lab',
    });
  });

  it('accepts the sections in any order and ignores other ## sections and ### lines', () => {
    const content = [
      '## environmental infomation',
      'lab',
      '## constraints',
      'not part of any section',
      '## task description',
      'reboot',
      '### step 1',
      'drain traffic',
      '## target object',
      'R1',
    ].join('\n');
    expect(parsePromptContent(content)).toEqual({
      target_object: 'R1',
      task_description: 'reboot\n### step 1\ndrain traffic',
      environmental_information: 'lab',
    });
  });

  it('takes only the inner text of a tag, and text after an unclosed tag', () => {
    expect(
      parsePromptContent('##target object\nignored <object>R1</object> ignored\n##task description\n<description>reboot\n##environmental information\n<environmentInput>lab'),
    ).toEqual({ target_object: 'R1', task_description: 'reboot', environmental_information: 'lab' });
  });

  it('keeps the wrapper out of the first section when it shares its line', () => {
    expect(parsePromptContent('<content namespace="prompt">\n##target object\nR1\n##task description\nx\n##environmental information\ny</content>')).toEqual({
      target_object: 'R1',
      task_description: 'x',
      environmental_information: 'y',
    });
  });
});

describe('parsePromptContent: refusals (invalid_params at content)', () => {
  it.each([
    ['target object', '## task description\nx\n## environmental information\ny'],
    ['task description', '## target object\nx\n## environmental information\ny'],
    ['environmental information', '## target object\nx\n## task description\ny'],
  ])('a missing "%s" section → prompt_section_missing naming it', (section, content) => {
    const e = expectError(() => parsePromptContent(content), { type: 'invalid_params', path: 'content', rule: 'prompt_section_missing' });
    expect(e.details).toEqual({ section });
    expect(e.message).toContain(section);
  });

  it.each([
    ['an empty section', '## target object\n\n## task description\ny\n## environmental information\nz', 'target object'],
    ['an empty tag', '## target object\nR1\n## task description\n<description> </description>\n## environmental information\nz', 'task description'],
    ['an empty last section', '## target object\nR1\n## task description\ny\n## environmental information\n   ', 'environmental information'],
  ])('%s → prompt_section_missing', (_what, content, section) => {
    const e = expectError(() => parsePromptContent(content, 'params.content'), {
      type: 'invalid_params',
      path: 'params.content',
      rule: 'prompt_section_missing',
    });
    expect(e.details).toEqual({ section });
  });

  it('a repeated section → prompt_section_repeated', () => {
    expectError(() => parsePromptContent('## target object\na\n## target object\nb\n## task description\nc\n## environmental information\nd'), {
      type: 'invalid_params',
      path: 'content',
      rule: 'prompt_section_repeated',
    });
  });

  it('content over 64 KiB → max_length; exactly 64 KiB is parsed', () => {
    const head = '## target object\nR1\n## task description\nx\n## environmental information\n';
    const fits = head + 'y'.repeat(MAX_PROMPT_CONTENT_BYTES - head.length);
    expect(parsePromptContent(fits).environmental_information.length).toBe(MAX_PROMPT_CONTENT_BYTES - head.length);
    expectError(() => parsePromptContent(fits + 'y'), { type: 'invalid_params', path: 'content', rule: 'max_length' });
    // bytes, not characters: 'é' is two bytes of UTF-8
    expectError(() => parsePromptContent(head + 'é'.repeat(MAX_PROMPT_CONTENT_BYTES / 2)), { type: 'invalid_params', path: 'content', rule: 'max_length' });
  });

  it('a non-string → type', () => {
    expectError(() => parsePromptContent(42 as unknown as string), { type: 'invalid_params', path: 'content', rule: 'type' });
  });
});

describe('hasPromptSections', () => {
  it.each([
    ['plain text', 'Reboot router R1 tonight.', false],
    ['a markdown heading of another kind', '## Summary\nall good', false],
    ['a ### heading', '### target object\nR1', false],
    ['one section heading', 'please\n## task description\nreboot', true],
    ['the prompt wrapper alone', '<content namespace="prompt">reboot R1</content>', true],
    ['Figure 7', FIGURE_7, true],
  ])('%s → %s', (_what, content, expected) => {
    expect(hasPromptSections(content)).toBe(expected);
  });

  it('is false for a non-string', () => {
    expect(hasPromptSections(undefined as unknown as string)).toBe(false);
  });
});
