// JSON-schema pieces shared by the client record, the proxy record and the proxy status.
import { MAX_DURATION_MS, MAX_ERROR_CODE_CHARS, MAX_ERROR_MESSAGE_CHARS, MAX_ID_CHARS, MAX_URL_CHARS } from '../limits.js';

/** The transfer modes; `http` is a proxy's /fetch served without knowing which HTTP mode the client ran. */
export const CLIENT_MODES = ['parallel-http', 'uncoded', 'coded', 'range-http'];
export const PROXY_MODES = [...CLIENT_MODES, 'http'];

/** Proxy ids are short printable tokens: they appear in logs and URLs. */
export const PROXY_ID_PATTERN = '^[A-Za-z0-9._:-]+$';

export const uuid = { type: 'string', format: 'uuid' };
export const isoTime = { type: 'string', format: 'date-time', maxLength: 40 };
export const proxyId = { type: 'string', minLength: 1, maxLength: MAX_ID_CHARS, pattern: PROXY_ID_PATTERN };
export const shortId = { type: 'string', minLength: 1, maxLength: MAX_ID_CHARS };
export const url = { type: 'string', minLength: 1, maxLength: MAX_URL_CHARS };
export const count = { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
export const countOrNull = { type: ['integer', 'null'], minimum: 0, maximum: Number.MAX_SAFE_INTEGER };
/** Protocol parameters are stored as 32-bit integers. */
const INT32_MAX = 2 ** 31 - 1;
export const int32OrNull = { type: ['integer', 'null'], minimum: 0, maximum: INT32_MAX };
export const durationMs = { type: 'number', minimum: 0, maximum: MAX_DURATION_MS };
export const durationMsOrNull = { type: ['number', 'null'], minimum: 0, maximum: MAX_DURATION_MS };

export const errorOrNull = {
  type: ['object', 'null'],
  required: ['code'],
  additionalProperties: false,
  properties: {
    code: { type: 'string', minLength: 1, maxLength: MAX_ERROR_CODE_CHARS },
    message: { type: ['string', 'null'], maxLength: MAX_ERROR_MESSAGE_CHARS },
  },
};

/** Protocol parameters; null fields where a mode has no such parameter. Unknown keys are kept (in `extra`). */
export const params = {
  type: ['object', 'null'],
  properties: {
    window: int32OrNull,
    generationSize: int32OrNull,
    feedbackEvery: int32OrNull,
    payloadSize: int32OrNull,
    surplus: { type: ['number', 'null'], minimum: 0 },
  },
};
export const PARAM_KEYS = ['window', 'generationSize', 'feedbackEvery', 'payloadSize', 'surplus'];

export const location = {
  type: ['object', 'null'],
  required: ['lat', 'lon'],
  additionalProperties: false,
  properties: {
    lat: { type: 'number', minimum: -90, maximum: 90 },
    lon: { type: 'number', minimum: -180, maximum: 180 },
  },
};
