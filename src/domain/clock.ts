/** Time, injectable: tests run a delivery schedule of days on a fake clock in milliseconds. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
