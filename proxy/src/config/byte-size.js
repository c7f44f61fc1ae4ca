import { codedError } from '@mutp/common/errors';

// Decimal (kB, MB) and binary (KiB, MiB) units; a trailing "/s" is allowed for rates.
const UNIT_BYTES = {
  '': 1, b: 1,
  k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9,
  kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3,
};

/**
 * Parses "896KiB", "64MiB", "1.5MB", "1000" or "896KiB/s" into a whole number of bytes.
 * @param {string | number} text
 * @returns {number}
 */
export function parseByteSize(text) {
  if (typeof text === 'number') {
    if (Number.isFinite(text) && text >= 0) return Math.floor(text);
    throw codedError('ERR_BAD_CONFIG', `not a byte size: ${text}`);
  }
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*(?:\/s)?\s*$/i.exec(String(text));
  const unit = m ? m[2].toLowerCase() : '';
  if (!m || !Object.hasOwn(UNIT_BYTES, unit)) {
    throw codedError('ERR_BAD_CONFIG', `not a byte size: ${JSON.stringify(text)} (e.g. 896KiB, 64MiB, 1.5MB)`);
  }
  return Math.floor(Number(m[1]) * UNIT_BYTES[unit]);
}
