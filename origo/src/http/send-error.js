/**
 * The one error body shape of the HTTP API: `{ error: { code, message } }`.
 * @param {import('express').Response} res @param {number} status @param {string} code @param {string} message
 */
export function sendError(res, status, code, message) {
  res.status(status).json({ error: { code, message } });
}
