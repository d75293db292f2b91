/**
 * Key-name identity for conflict detection (zhou §6.2.2 "Conflict Detection":
 * the candidate key_name MUST NOT collide with existing keys). Two names
 * collide when they have the same words up to plural/singular and order:
 * `seat_preference`, `seat_preferences` and `preference_seat` are one key.
 */
import { singular } from './induce';

export function keyNameSignature(name: string): string {
  return name
    .toLowerCase()
    .split(/_+/)
    .filter((w) => w !== '')
    .map(singular)
    .sort()
    .join('_');
}

export function namesCollide(a: string, b: string): boolean {
  return keyNameSignature(a) === keyNameSignature(b);
}
