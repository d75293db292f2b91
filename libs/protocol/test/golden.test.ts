/**
 * Golden tests: the draft's own figures, verbatim (fixtures/README.md), go
 * through the library exactly as printed. The seeded templates of
 * libs/examples (Figure 2/10 plus constraint members) are checked against the
 * same figures in libs/examples/test/scenarios.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  assertSameShape,
  compilePayloadValidator,
  parseExecuteParams,
  parseGetSchemaTemplateParams,
  parseTemplate,
  type SchemaTemplate,
} from '../src/index';
import { figure, figureText } from './helpers';

interface RpcRequest {
  method: string;
  params: unknown;
}

describe('golden: the draft\'s figures', () => {
  it('fixtures are the figures byte for byte (spot check against the text rendering)', () => {
    // zhou Figure 2 opens with schema_id and the first key "origin".
    expect(figureText(2).startsWith('{\n  "schema_id": "flight_booking_v1",\n  "scenario": "flight_booking",\n  "keys": [\n    {\n      "key_name": "origin",')).toBe(true);
    expect(figureText(10)).toContain('"schema_id": "photo_retouch_v2"');
  });

  for (const n of [2, 7, 10]) {
    it(`§4.1 Figure ${n} parses exactly as printed (round trip, no note: it defines "other")`, () => {
      const printed = figure(n);
      const { template, notes } = parseTemplate(printed);
      expect(template).toEqual(printed);
      // Member order survives too: the parser clones, never reorders.
      expect(JSON.stringify(template)).toBe(JSON.stringify(printed));
      expect(notes).toEqual([]);
    });
  }

  it('§4.2 Figure 3 (one annotated key definition) is a valid key definition', () => {
    const def = figure(3);
    const { template } = parseTemplate({ schema_id: 'fig3', scenario: 'flight_booking', keys: [def] });
    expect(template.keys[0]).toEqual(def);
  });

  it('§4.2 Figure 7 has the shape of Figure 2: only the semantic descriptions differ', () => {
    const fig2 = parseTemplate(figure(2)).template;
    const fig7 = parseTemplate(figure(7)).template;
    expect(() => assertSameShape(fig2, fig7, 'en-US')).not.toThrow();
    expect(fig7.keys.map((k) => k.semantic_description)).not.toEqual(fig2.keys.map((k) => k.semantic_description));
  });

  it('A.1 Figure 6 params parse with the get_schema_template parser', () => {
    const req = figure<RpcRequest>(6);
    expect(req.method).toBe('get_schema_template');
    expect(parseGetSchemaTemplateParams(req.params)).toEqual({ scenario: 'flight_booking', scenario_id: 'flight_booking', preferred_language: 'en-US' });
  });

  describe('A.2 Figure 8 parses with the execute parser and its payload validates', () => {
    const params = parseExecuteParams(figure(8));
    const templates: Array<[string, SchemaTemplate]> = [
      ['Figure 2', parseTemplate(figure(2)).template],
      ['Figure 7', parseTemplate(figure(7)).template],
    ];

    it('execute params', () => {
      expect(params.schema_id).toBe('flight_booking_v1');
      expect(params.payload).toEqual(figure<{ payload: unknown }>(8).payload);
    });

    for (const [name, template] of templates) {
      it(`§3.2 Figure 8's payload validates against ${name} with nothing defaulted`, () => {
        expect(template.schema_id).toBe(params.schema_id);
        const r = compilePayloadValidator(template).validate(params.payload);
        expect(r.payload).toEqual(params.payload);
        expect(r.defaults_applied).toEqual([]);
        expect(r.keys_present).toEqual(['origin', 'destination', 'departure_date', 'cabin_class', 'passenger_count', 'other']);
        expect(Object.values(r.key_type_correct).every(Boolean)).toBe(true);
        expect(r.other_fragments).toEqual(['window seat']);
      });
    }
  });

  it('§5.1 Figure 4 payload validates against flight_booking_v1 (Figure 2)', () => {
    const { schema_id, payload } = parseExecuteParams(figure(4));
    const fig2 = parseTemplate(figure(2)).template;
    expect(schema_id).toBe(fig2.schema_id);
    const r = compilePayloadValidator(fig2).validate(payload);
    expect(r.payload).toEqual(payload);
    expect(r.other_fragments).toEqual(['window seat']);
  });

  it('§5.2 Figure 5 payload validates against photo_retouch_v2 (Figure 10)', () => {
    const { schema_id, payload } = parseExecuteParams(figure(5));
    const fig10 = parseTemplate(figure(10)).template;
    expect(schema_id).toBe(fig10.schema_id);
    const r = compilePayloadValidator(fig10).validate(payload);
    expect(r.payload).toEqual(payload);
    expect(r.defaults_applied).toEqual([]);
    // zhou §5.2: "eyes to look bigger" went to other because the schema has no eye_size key.
    expect(r.other_fragments).toEqual(['increase eye size proportionally']);
  });

  it('A.2 Figure 9: the suggested seat_preference key is a valid key definition for flight_booking', () => {
    // zhou §5.1/§6.2.2: the suggestion adds a key; it must be addable to Figure 2.
    const fig9 = figure<{ schema_update_suggestion: { new_keys: unknown[] } }>(9);
    const fig2 = figure<{ keys: unknown[] }>(2);
    const { template } = parseTemplate({ ...fig2, keys: [...fig2.keys, ...fig9.schema_update_suggestion.new_keys] });
    expect(template.keys.map((k) => k.key_name)).toContain('seat_preference');
  });
});
