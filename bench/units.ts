/** Bytes as the bench shows them: in MiB (1024 x 1024 bytes). */

export const mb = (bytes: number): number => bytes / (1024 * 1024);

/** The same, rounded to whole MiB for a log line. */
export const wholeMb = (bytes: number): string => mb(bytes).toFixed(0);
