// Checks for what comes in as unknown: bridge JSON, WebSocket and API messages, worker replies, saved state.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
