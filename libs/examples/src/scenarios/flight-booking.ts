/**
 * Flight booking: draft-zhou §5.1, Figure 2 (template), Figure 4/8 (payload),
 * Figure 9 (response).
 *
 * The template is Figure 2 exactly as printed (same members, same order, same
 * descriptions); Parley's constraint members follow each printed definition,
 * turning what the descriptions say in prose into checks.
 */
import type { JsonObject, SchemaTemplate } from '@parley/protocol';
import { JSON_SCHEMA_2020_12, schemaUpdateSuggestionSchema, type ScenarioDefinition } from './common';

export const flightBookingTemplate: SchemaTemplate = {
  schema_id: 'flight_booking_v1',
  scenario: 'flight_booking',
  keys: [
    {
      key_name: 'origin',
      key_type: 'string',
      required: true,
      default_value: null,
      semantic_description:
        "Departure city or airport code. Acceptable values: IATA airport codes (e.g., PEK, SHA, JFK) or city names in English or local language. Example mapping: 'from Beijing' -> 'PEK'.",
      // chang §3.2: more mapping examples than a client needs every time; short views omit them.
      optional: {
        examples: ["'from Beijing' -> 'PEK'", "'leaving Shanghai Hongqiao' -> 'SHA'", "'out of New York JFK' -> 'JFK'", "'depart from 广州' -> 'CAN'"],
      },
    },
    {
      key_name: 'destination',
      key_type: 'string',
      required: true,
      default_value: null,
      semantic_description: "Arrival city or airport code. Acceptable values: IATA airport codes or city names. Example mapping: 'to Shanghai' -> 'SHA'.",
    },
    {
      key_name: 'departure_date',
      key_type: 'string',
      required: true,
      default_value: null,
      semantic_description: "Date of departure in ISO 8601 format (YYYY-MM-DD). Example mapping: 'next Monday' -> '2026-05-04'.",
      // "ISO 8601 format (YYYY-MM-DD)"
      format: 'date',
      optional: {
        examples: ["'next Monday' (asked on 2026-04-30) -> '2026-05-04'", "'May 4th' -> '2026-05-04'", "'the day after tomorrow' -> today + 2 days"],
        notes: 'Resolve relative dates against the user\'s local date, not UTC.',
      },
    },
    {
      key_name: 'cabin_class',
      key_type: 'string',
      required: false,
      default_value: 'economy',
      semantic_description: "Cabin class preference. Acceptable values: economy, premium_economy, business, first. Example mapping: 'business class' -> 'business'.",
      // "Acceptable values: economy, premium_economy, business, first"
      enum: ['economy', 'premium_economy', 'business', 'first'],
    },
    {
      key_name: 'passenger_count',
      key_type: 'integer',
      required: false,
      default_value: 1,
      semantic_description: "Number of passengers. Range: 1-9. Example mapping: 'two people' -> 2.",
      // "Range: 1-9"
      minimum: 1,
      maximum: 9,
    },
    {
      key_name: 'other',
      key_type: 'string',
      required: false,
      default_value: null,
      semantic_description:
        "Escape valve for unstructured semantic fragments that cannot be mapped to existing keys. Example mapping: 'window seat please' -> 'window seat'.",
    },
  ],
};

/** The booking confirmation of Figure 9: every printed member required and a string; more members allowed. */
export const flightBookingResponseSchema: JsonObject = {
  $schema: JSON_SCHEMA_2020_12,
  title: 'flight_booking_v1 result',
  type: 'object',
  required: ['booking_id', 'status', 'flight_number', 'departure_time', 'arrival_time', 'seat', 'total_amount'],
  properties: {
    booking_id: { type: 'string', description: 'Booking reference, e.g. "BK-20260430-001".' },
    status: { type: 'string', description: 'Booking status, e.g. "confirmed".' },
    flight_number: { type: 'string', description: 'e.g. "CA1234".' },
    departure_time: { type: 'string', format: 'date-time', description: 'RFC 3339 date-time with offset.' },
    arrival_time: { type: 'string', format: 'date-time', description: 'RFC 3339 date-time with offset.' },
    seat: { type: 'string', description: 'Seat assignment, e.g. "12A".' },
    total_amount: { type: 'string', description: 'Currency and amount as printed, e.g. "CNY 2,450.00".' },
    schema_update_suggestion: schemaUpdateSuggestionSchema(),
  },
};

/** Figure 4 / Figure 8 payload. */
export const flightBookingExamplePayload: JsonObject = {
  origin: 'PEK',
  destination: 'SHA',
  departure_date: '2026-05-04',
  cabin_class: 'business',
  passenger_count: 1,
  other: 'window seat',
};

/** Figure 9. */
export const flightBookingExampleResponse: JsonObject = {
  booking_id: 'BK-20260430-001',
  status: 'confirmed',
  flight_number: 'CA1234',
  departure_time: '2026-05-04T09:00:00+08:00',
  arrival_time: '2026-05-04T11:20:00+08:00',
  seat: '12A',
  total_amount: 'CNY 2,450.00',
  schema_update_suggestion: {
    new_keys: [
      {
        key_name: 'seat_preference',
        key_type: 'string',
        required: false,
        default_value: 'none',
        semantic_description: 'Seat preference. Acceptable values: window, aisle, none.',
      },
    ],
  },
};

export const flightBookingScenario: ScenarioDefinition = {
  template: flightBookingTemplate,
  responseSchema: flightBookingResponseSchema,
  description: 'Book a flight: origin, destination, date, cabin class and passengers (draft-zhou §5.1, Figure 2).',
  tags: ['travel', 'flight', 'booking'],
  domain: 'travel',
  examplePayload: flightBookingExamplePayload,
  exampleResponse: flightBookingExampleResponse,
};
