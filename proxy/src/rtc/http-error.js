import { codedError as coded } from '@mutp/common/errors';

// Errors carry a machine-readable code and an HTTP status; sent as { error: { code, message } }.

/**
 * @param {string} code
 * @param {string} message
 * @param {number} [status]
 * @returns {Error & { code: string, status: number }}
 */
export function codedError(code, message, status = 500) {
  return coded(code, message, { status });
}

/**
 * @param {import('express').Response} res
 * @param {{ code?: string, message?: string, status?: number }} err
 */
export function sendError(res, err) {
  const status = Number.isInteger(err.status) ? err.status : 500;
  res.status(status).json({ error: { code: err.code ?? 'ERR_INTERNAL', message: err.message ?? 'internal error' } });
}
