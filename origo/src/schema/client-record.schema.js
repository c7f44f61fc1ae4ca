// The one definition of a client download record (docs/log-record.md describes every field).
import * as c from './common.js';
import { MAX_DURATION_MS, MAX_FEEDBACK_LOG_ENTRIES, MAX_PACKET_LOG_ENTRIES, MAX_PROXIES_PER_DOWNLOAD, MAX_RATE_BPS } from '../limits.js';

const perProxyEntry = {
  type: 'object',
  required: ['proxyId'],
  additionalProperties: false,
  properties: {
    proxyId: c.shortId,
    bytes: c.countOrNull,
    packets: c.countOrNull,
    duplicates: c.countOrNull,
    uploadRateBps: { type: ['number', 'null'], minimum: 0 },
    error: c.errorOrNull,
  },
};

/** [tMs, sourceIndex, useful (0|1), dofAfter | null] */
const packetLogEntry = {
  type: 'array',
  minItems: 4,
  maxItems: 4,
  items: [
    { type: 'number', minimum: 0 },
    { type: 'integer', minimum: 0, maximum: MAX_PROXIES_PER_DOWNLOAD - 1 },
    { enum: [0, 1] },
    { type: ['integer', 'null'], minimum: 0 },
  ],
};

/** A time in a download (ms); a part of the time breakdown from an older client may be negative (its source ran above its steady rate). */
const signedMs = { type: ['number', 'null'], minimum: -MAX_DURATION_MS, maximum: MAX_DURATION_MS };
const msOrNull = c.durationMsOrNull;
const rateOrNull = { type: ['number', 'null'], minimum: 0, maximum: MAX_RATE_BPS };

/** One source's part of the time breakdown (protocol/src/time-breakdown.js). */
const timeBreakdownSource = {
  type: 'object',
  additionalProperties: false,
  properties: {
    firstPacketMs: msOrNull, rampEndMs: msOrNull, steadyRateBps: rateOrNull, rampMs: signedMs, heldMs: msOrNull,
    usefulPackets: c.countOrNull, nonUsefulPackets: c.countOrNull,
  },
};

/** Where the download's time went: parts that add up to durationMs (docs/log-record.md). */
const timeBreakdown = {
  type: ['object', 'null'],
  required: ['method', 'requestMs', 'nonUsefulMs', 'transferMs'],
  additionalProperties: false,
  properties: {
    method: { enum: ['packets', 'bytes'] },
    connectMs: msOrNull, requestMs: c.durationMs, originMs: msOrNull, prepareMs: msOrNull, voteMs: msOrNull, sourceStartMs: msOrNull, rampMs: signedMs, inflightHeldMs: msOrNull, stallMs: signedMs,
    nonUsefulMs: c.durationMs, tailMs: signedMs, transferMs: c.durationMs, tailStartMs: msOrNull, steadyRateBps: rateOrNull,
    perSource: { type: ['array', 'null'], maxItems: MAX_PROXIES_PER_DOWNLOAD, items: timeBreakdownSource },
  },
};

/** The steps before the first byte (docs/log-record.md): each a time (ms) or null. */
const requestSteps = {
  type: ['object', 'null'],
  additionalProperties: false,
  properties: { lookupMs: msOrNull, answerMs: msOrNull, originMs: msOrNull, prepareMs: msOrNull, decidedMs: msOrNull },
};

/** Fields Origo derives itself; a client may send them, Origo stores its own. */
export const DERIVED_KEYS = ['throughputBps', 'goodputBps', 'normalizedGoodput'];

export const clientRecordSchema = {
  $id: 'mutp:client-record',
  type: 'object',
  required: ['id', 'startedAt', 'mode', 'n', 'proxyIds', 'url', 'grossBytes', 'netBytes', 'durationMs'],
  properties: {
    id: c.uuid,
    clientId: { type: ['string', 'null'], minLength: 1, maxLength: c.shortId.maxLength },
    startedAt: c.isoTime,
    mode: { enum: c.CLIENT_MODES },
    n: { type: 'integer', minimum: 1, maximum: MAX_PROXIES_PER_DOWNLOAD },
    proxyIds: { type: 'array', maxItems: MAX_PROXIES_PER_DOWNLOAD, items: c.shortId },
    url: c.url,
    objectBytes: c.countOrNull,
    params: c.params,
    grossBytes: c.count,
    netBytes: c.count,
    durationMs: c.durationMs,
    firstPacketMs: c.durationMsOrNull,
    connectMs: c.durationMsOrNull,
    serverFetchMs: c.durationMsOrNull,
    requestSteps,
    packets: c.countOrNull,
    duplicates: c.countOrNull,
    lossEstimate: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    perProxy: { type: ['array', 'null'], maxItems: MAX_PROXIES_PER_DOWNLOAD, items: perProxyEntry },
    packetLog: { type: ['array', 'null'], maxItems: MAX_PACKET_LOG_ENTRIES, items: packetLogEntry },
    feedbackLog: { type: ['array', 'null'], maxItems: MAX_FEEDBACK_LOG_ENTRIES, items: { type: 'number', minimum: 0 } },
    timeBreakdown,
    verified: { type: ['boolean', 'null'] },
    error: c.errorOrNull,
    throughputBps: { type: ['number', 'null'] },
    goodputBps: { type: ['number', 'null'] },
    normalizedGoodput: { type: ['number', 'null'] },
  },
};

/** The top-level keys with a typed column (or child table); any other key is kept in the `extra` JSON column. */
export const CLIENT_RECORD_KEYS = Object.keys(clientRecordSchema.properties);
