import type { JsonObject } from '@parley/protocol';
import { flightBookingExampleResponse } from '../scenarios/flight-booking';

/**
 * The airline server agent of draft-zhou §5.1: books a flight from a validated
 * flight_booking_v1 payload and answers in the shape of Figure 9. Deterministic
 * (no inventory behind it) so tests and demos are repeatable.
 */
export interface FlightBookingContext {
  execution_id: string;
  /** Booking date, for the booking id. */
  now: Date;
}

const FARES: Record<string, number> = { economy: 980, premium_economy: 1650, business: 2450, first: 4800 };
/** Made once: `toLocaleString` with options builds a new Intl.NumberFormat on every call (a large share of a booking's CPU). */
const AMOUNT = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function bookFlight(payload: JsonObject, ctx: FlightBookingContext): JsonObject {
  const origin = String(payload.origin);
  const destination = String(payload.destination);
  const date = String(payload.departure_date);
  const cabin = String(payload.cabin_class ?? 'economy');
  const passengers = Number(payload.passenger_count ?? 1);
  const other = fragments(payload.other);

  const route = hash(`${origin}-${destination}`);
  const departHour = 6 + (route % 14);
  const durationMin = 80 + (route % 200);
  const departure = `${date}T${pad(departHour)}:00:00+08:00`;
  const arrivalMinutes = departHour * 60 + durationMin;
  const arrival = `${date}T${pad(Math.floor(arrivalMinutes / 60) % 24)}:${pad(arrivalMinutes % 60)}:00+08:00`;
  const wantsWindow = other.some((f) => /window/i.test(f));
  const wantsAisle = other.some((f) => /aisle/i.test(f));
  const row = cabin === 'business' || cabin === 'first' ? 2 + (route % 6) : 12 + (route % 20);
  const seat = `${row}${wantsWindow ? 'A' : wantsAisle ? 'C' : 'B'}`;
  const total = (FARES[cabin] ?? FARES.economy!) * passengers;

  const result: JsonObject = {
    booking_id: `BK-${ctx.now.toISOString().slice(0, 10).replace(/-/g, '')}-${ctx.execution_id.slice(0, 6).toUpperCase()}`,
    status: 'confirmed',
    flight_number: `CA${1000 + (route % 9000)}`,
    departure_time: departure,
    arrival_time: arrival,
    seat,
    total_amount: `CNY ${AMOUNT.format(total)}`,
  };
  // draft-zhou §5.1: "If the server agent observes frequent other entries mentioning
  // seat preferences, it MAY return a schema update suggestion adding a seat_preference
  // key" (Figure 9, whose suggestion this is). This example agent suggests it whenever `other` names a seat.
  if (wantsWindow || wantsAisle || other.some((f) => /seat/i.test(f))) {
    result.schema_update_suggestion = structuredClone(flightBookingExampleResponse.schema_update_suggestion) as JsonObject;
  }
  return result;
}

export function fragments(other: unknown): string[] {
  if (typeof other === 'string') return [other];
  if (Array.isArray(other)) return other.filter((x): x is string => typeof x === 'string');
  return [];
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}
