import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { clientRecordSchema } from './client-record.schema.js';
import { proxyRecordSchema } from './proxy-record.schema.js';
import { proxyStatusSchema } from './proxy-status.schema.js';

// ajv-formats is CommonJS; under NodeNext its default import is the module object.
const addFormats = /** @type {any} */ (addFormatsModule).default ?? addFormatsModule;

/** allErrors off: the first reason is enough for a 400, and it bounds work on hostile input. */
const ajv = new Ajv({ allErrors: false, strict: true, strictTuples: false });
addFormats(ajv, ['uuid', 'date-time']);

/**
 * @typedef {{ ok: boolean, reason?: string }} Verdict  (reason set when ok is false)
 */

/**
 * @param {object} schema
 * @returns {(value: unknown) => Verdict}
 */
function compile(schema) {
  const validate = ajv.compile(schema);
  return (value) => {
    if (validate(value)) {
      // The format check accepts a few strings (e.g. leap seconds) that Date, and so the store, cannot represent.
      const startedAt = /** @type {{ startedAt?: string }} */ (value).startedAt;
      if (startedAt !== undefined && Number.isNaN(Date.parse(startedAt))) return { ok: false, reason: '/startedAt is not a representable time' };
      return { ok: true };
    }
    const e = validate.errors?.[0];
    const where = e?.instancePath || '(record)';
    const extra = e?.params && 'allowedValues' in e.params ? `: ${e.params.allowedValues.join(', ')}` : '';
    return { ok: false, reason: `${where} ${e?.message ?? 'is invalid'}${extra}` };
  };
}

export const validateClientRecord = compile(clientRecordSchema);
export const validateProxyRecord = compile(proxyRecordSchema);
export const validateProxyStatus = compile(proxyStatusSchema);
