import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTemplate } from '@parley/protocol';
import { SCENARIOS } from '@parley/examples';
import { SchemaTemplate, templateFromWire, templateToWire } from '@parley/contracts';

const fixture = (name: string) => JSON.parse(readFileSync(join(__dirname, '../../protocol/test/fixtures', name), 'utf8'));

// The gRPC contract must carry a template without changing it: draft-zhou
// Figures 2, 7 and 10 go through protobuf encoding and come back equal,
// member order and `default_value: null` included.
describe('template <-> protobuf', () => {
  for (const f of ['figure-02.json', 'figure-07.json', 'figure-10.json']) {
    it(`${f} survives encode/decode exactly`, () => {
      const original = parseTemplate(fixture(f)).template;
      const bytes = SchemaTemplate.encode(templateToWire(original)).finish();
      const back = templateFromWire(SchemaTemplate.decode(bytes));
      expect(back).toEqual(original);
      expect(JSON.stringify(back)).toBe(JSON.stringify(fixture(f)));
    });
  }

  it('keeps the constraint members of the seeded templates', () => {
    for (const s of SCENARIOS) {
      const back = templateFromWire(SchemaTemplate.decode(SchemaTemplate.encode(templateToWire(s.template)).finish()));
      expect(back).toEqual(s.template);
    }
  });

  it('keeps absent and null default_value apart', () => {
    const t = parseTemplate({
      schema_id: 's_v1',
      scenario: 's',
      keys: [
        { key_name: 'a', key_type: 'string', required: false, default_value: null, semantic_description: 'a' },
        { key_name: 'b', key_type: 'string', required: false, semantic_description: 'b' },
      ],
    }).template;
    const back = templateFromWire(SchemaTemplate.decode(SchemaTemplate.encode(templateToWire(t)).finish()));
    expect('default_value' in back.keys[0]!).toBe(true);
    expect(back.keys[0]!.default_value).toBeNull();
    expect('default_value' in back.keys[1]!).toBe(false);
  });
});

describe('the security_relevant flag (draft-zhou §7) crosses the wire', () => {
  it('is kept when set, absent when not', () => {
    const t = parseTemplate({
      schema_id: 's_v1',
      scenario: 's',
      keys: [
        { key_name: 'card_number', key_type: 'string', required: false, semantic_description: 'card', security_relevant: true },
        { key_name: 'seat', key_type: 'string', required: false, semantic_description: 'seat' },
      ],
    }).template;
    const back = templateFromWire(SchemaTemplate.decode(SchemaTemplate.encode(templateToWire(t)).finish()));
    expect(back.keys[0]).toMatchObject({ security_relevant: true });
    expect('security_relevant' in back.keys[1]!).toBe(false);
  });
});
