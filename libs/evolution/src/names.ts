/**
 * Key-name identity for conflict detection (zhou §6.2.2 "Conflict Detection":
 * the candidate key_name MUST NOT collide with existing keys). Two names
 * collide when they have the same words up to plural/singular and order:
 * `seat_preference`, `seat_preferences` and `preference_seat` are one key.
 */
import { singular } from './induce';

export function keyNameSignature(name: string): string {
  // Key names are at most 64 characters (protocol MAX_KEY_NAME_LENGTH); past a few times that nothing is a key name,
  // so an outside string is read no further (a MiB of words would otherwise be split and sorted whole).
  return name
    .slice(0, 256)
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
