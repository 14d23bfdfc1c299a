/** The message of anything thrown, for one-line reports. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
