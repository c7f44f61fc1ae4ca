/**
 * @typedef {{ info(msg: string, fields?: object): void, warn(msg: string, fields?: object): void, error(msg: string, fields?: object): void }} Logger
 */

/**
 * A line-per-event logger on stderr: `2025-01-01T00:00:00.000Z origo WARN proxy refused {"proxyId":"p1"}`.
 * @param {{ name?: string, stream?: NodeJS.WritableStream }} [opts]
 * @returns {Logger}
 */
export function createLogger({ name = 'origo', stream = process.stderr } = {}) {
  /** @param {string} level @param {string} msg @param {object} [fields] */
  const write = (level, msg, fields) => {
    const tail = fields ? ` ${JSON.stringify(fields)}` : '';
    stream.write(`${new Date().toISOString()} ${name} ${level} ${msg}${tail}\n`);
  };
  return {
    info: (msg, fields) => write('INFO', msg, fields),
    warn: (msg, fields) => write('WARN', msg, fields),
    error: (msg, fields) => write('ERROR', msg, fields),
  };
}
