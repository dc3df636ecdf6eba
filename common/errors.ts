// The one error class for environment failures (a bridge that is down, a broken config, a disk that is full).
// Expected outcomes, such as a refused path or a missing file, are data and never thrown.

export type ErrorCode =
  | 'CONFIG_READ'
  | 'CONFIG_INVALID'
  | 'BRIDGE_DOWN'
  | 'BRIDGE_HTTP'
  | 'BRIDGE_ERROR'
  | 'BRIDGE_PROTOCOL'
  | 'BRIDGE_TIMEOUT'
  | 'BRIDGE_MODEL'
  | 'BRIDGE_AUTH'
  | 'ABORTED'
  | 'ROOT_INVALID'
  | 'USAGE'
  | 'APPLY_FAILED'
  | 'UNDO_FAILED'
  | 'UNDO_BLOCKED'
  | 'STATE_INVALID'
  | 'BAD_REQUEST'
  | 'BUSY'
  | 'NOT_FOUND'
  | 'PORT_TAKEN'
  | 'PORT_DENIED'
  | 'PORT_INVALID'
  | 'INSTRUCTIONS_INVALID'
  | 'CONTEXT_FULL'
  | 'TOO_LARGE';

export class DeepworkError extends Error {
  readonly code: ErrorCode;
  // The HTTP status a server answered, for an error that is one: callers decide on it, not on the message's words.
  readonly status: number | undefined;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; status?: number }) {
    super(message, options);
    this.name = 'DeepworkError';
    this.code = code;
    this.status = options?.status;
  }
}

// The text of whatever was thrown, for messages that quote a cause.
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// The errno code of a Node system error (ENOENT, EACCES, ...), if it is one.
export function errnoOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code: unknown = error.code;
  return typeof code === 'string' ? code : undefined;
}

// The error a run ends with when it is stopped (Ctrl-C, the pult's Stop): one, so every place says it alike.
export function stopped(): DeepworkError {
  return new DeepworkError('ABORTED', 'Stopped.');
}

// Lets a Stop be heard (the pult's button, Ctrl-C): the event loop runs, and an abort ends the run with the error
// the bridges give. Called between the pieces of work a reply makes, so that none of them runs long.
export async function heardStop(signal: AbortSignal): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) throw stopped();
}
