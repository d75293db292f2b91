/** Time is an input: services take a Clock so tests can replay days in seconds. */
export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };
