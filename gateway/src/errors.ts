/** The one error type of the gateway: an HTTP status, a stable code and a message a caller can act on. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const badRequest = (message: string, code = 'VALIDATION_ERROR') => new ApiError(400, code, message);
export const notFound = (what: string) => new ApiError(404, 'NOT_FOUND', `${what} not found`);
export const unauthorized = (message = 'Invalid or missing API key') => new ApiError(401, 'UNAUTHORIZED', message);
export const forbidden = (code: string, message: string) => new ApiError(403, code, message);
