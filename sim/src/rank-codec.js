// The simulator's fast codec ('rank'): the protocol's encoder/decoder interface without the
// payload arithmetic. Encoders draw the same coefficients as @mutp/rlnc's (the same generator
// and seed), decoders track the rank of those coefficients (RankTracker), so every packet is
// innovative or not exactly as with the real codec, and the protocol makes the same decisions.
// A coded payload carries, after its coefficients, the index of its encoder's source symbols
// in this codec's table; a complete decoder hands out those symbols, which is what the real
// decode of a full-rank generation yields. The receiver still places and checksums real bytes,
// and the run still compares them with the object. It presumes that every source serves the
// same bytes (the simulated proxies are honest); `--codec exact` runs the real codec.
import { codedError } from '@mutp/common/errors';
import { CoefficientGenerator, RankTracker } from '@mutp/rlnc';

/** Bytes after the coefficients that name the source symbols: u32, little-endian. */
const SOURCE_ID_BYTES = 4;

/** @param {Uint8Array} b @param {number} o @param {number} v */
function writeU32(b, o, v) {
  b[o] = v;
  b[o + 1] = v >>> 8;
  b[o + 2] = v >>> 16;
  b[o + 3] = v >>> 24;
}

/** @param {Uint8Array} b @param {number} o */
function readU32(b, o) {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}

/**
 * One codec per simulated download (its table of source symbols lives as long as the run).
 * @returns {any} the protocol's codec interface: encoder(g, symbolSize, seed), decoder(g, symbolSize)
 */
export function createRankCodec() {
  /** @type {Uint8Array[]} source symbols of every encoder, by id */
  const sources = [];
  return {
    /** @param {number} g @param {number} symbolSize @param {number} seed */
    encoder(g, symbolSize, seed) {
      if (symbolSize < SOURCE_ID_BYTES) throw codedError('ERR_SIM_CODEC', `symbolSize must be ≥ ${SOURCE_ID_BYTES}`);
      const gen = new CoefficientGenerator(seed);
      let id = -1;
      return {
        symbolCount: g,
        symbolSize,
        payloadSize: g + symbolSize,
        packets: 0,
        /** @param {Uint8Array} data g·symbolSize bytes (kept by reference, not copied) */
        setSymbols(data) {
          if (data.length !== g * symbolSize) throw codedError('ERR_SIM_CODEC', 'symbols data has the wrong length');
          id = sources.push(data) - 1;
        },
        /** @param {Uint8Array} target @param {number} [offset] */
        writePayloadInto(target, offset = 0) {
          if (id < 0) throw codedError('ERR_RLNC_NO_SYMBOLS', 'setSymbols() must be called before writePayload()');
          gen.fill(target, offset, g);
          writeU32(target, offset + g, id);
          target.fill(0, offset + g + SOURCE_ID_BYTES, offset + g + symbolSize);
          this.packets++;
          return g + symbolSize;
        },
        writePayload() {
          const b = new Uint8Array(g + symbolSize);
          this.writePayloadInto(b, 0);
          return b;
        },
        dispose() {},
      };
    },
    /** @param {number} g @param {number} symbolSize */
    decoder(g, symbolSize) {
      const ranks = new RankTracker(g);
      let id = -1;
      return {
        symbolCount: g,
        symbolSize,
        payloadSize: g + symbolSize,
        get rank() { return ranks.rank; },
        isComplete: () => ranks.isComplete(),
        /** @param {Uint8Array} payload */
        readPayload(payload) {
          if (payload.length !== g + symbolSize) throw codedError('ERR_RLNC_BAD_LENGTH', 'payload has the wrong length');
          const from = readU32(payload, g);
          if (from >= sources.length) throw codedError('ERR_SIM_CODEC', 'payload names no source symbols');
          const innovative = ranks.add(payload, 0);
          if (innovative && id < 0) id = from;
          return innovative;
        },
        symbols() {
          if (!ranks.isComplete()) throw codedError('ERR_RLNC_INCOMPLETE', `decoder incomplete: rank ${ranks.rank} of ${g}`);
          return sources[id];
        },
        dispose() {},
      };
    },
  };
}
