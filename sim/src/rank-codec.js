// The simulator's fast codec ('rank'): the protocol's encoder/decoder interface without the
// payload arithmetic. Encoders draw the same coefficients as @mutp/rlnc's (the same generator
// and seed), decoders track the rank of those coefficients, so every packet is innovative or not
// exactly as with the real codec, and the protocol makes the same decisions. The rank is kept by
// a WASM decoder of 1-byte symbols (the payload's first data byte rides along): innovation
// depends on the coefficients alone, and its SIMD elimination costs half of RankTracker's in JS.
// Trackers go back to a pool when their generation completes: making one (its codec memory,
// its finalizer) cost as much as a generation's eliminations.
// A coded payload carries, after its coefficients, the index of its encoder's source symbols
// in this codec's table; a complete decoder hands out those symbols, which is what the real
// decode of a full-rank generation yields. The receiver still places and checksums real bytes,
// and the run still compares them with the object. It presumes that every source serves the
// same bytes (the simulated proxies are honest); `--codec exact` runs the real codec.
import { codedError } from '@mutp/common/errors';
import { CoefficientGenerator } from '@mutp/rlnc';

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

/** Bytes of the payload a rank tracker reads: the g coefficients and one data byte. */
const TRACKED_SYMBOL_BYTES = 1;
/** Idle trackers kept per generation size: a run has about a window of generations open at once. */
const POOL_MAX_PER_SIZE = 64;
/** @type {WeakMap<import('@mutp/rlnc').CodecFactory, import('@mutp/rlnc').Decoder[][]>} idle trackers by codec, then g; reset */
const idleTrackers = new WeakMap();

/** The idle trackers of `factory` for g. @param {import('@mutp/rlnc').CodecFactory} factory @param {number} g */
function idleOf(factory, g) {
  let bySize = idleTrackers.get(factory);
  if (!bySize) idleTrackers.set(factory, bySize = []);
  return (bySize[g] ??= []);
}

/**
 * A rank tracker for g coefficients: a decoder of 1-byte symbols, from the pool or new.
 * @param {import('@mutp/rlnc').CodecFactory} factory @param {number} g
 */
function takeTracker(factory, g) {
  return idleOf(factory, g).pop() ?? factory.createDecoder({ symbols: g, symbolSize: TRACKED_SYMBOL_BYTES });
}

/** @param {import('@mutp/rlnc').CodecFactory} factory @param {import('@mutp/rlnc').Decoder} dec */
function returnTracker(factory, dec) {
  const idle = idleOf(factory, dec.symbolCount);
  if (idle.length >= POOL_MAX_PER_SIZE) {
    dec.dispose();
    return;
  }
  dec.reset();
  idle.push(dec);
}

/**
 * One codec per simulated download (its table of source symbols lives as long as the run).
 * @param {import('@mutp/rlnc').CodecFactory} factory  the WASM (or JS) codec whose decoders keep the rank
 * @returns {any} the protocol's codec interface: encoder(g, symbolSize, seed), decoder(g, symbolSize)
 */
export function createRankCodec(factory) {
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
        /**
         * The coefficients and the source id; the payload's other bytes keep what `target` held
         * (zeroing them was ~1% of a run): nothing reads them, the decoders read the
         * coefficients and the id's first byte.
         * @param {Uint8Array} target @param {number} [offset]
         */
        writePayloadInto(target, offset = 0) {
          if (id < 0) throw codedError('ERR_RLNC_NO_SYMBOLS', 'setSymbols() must be called before writePayload()');
          gen.fill(target, offset, g);
          writeU32(target, offset + g, id);
          this.packets++;
          return g + symbolSize;
        },
        writePayload() {
          const b = new Uint8Array(g + symbolSize); // zeroed: the same bytes every time
          this.writePayloadInto(b, 0);
          return b;
        },
        dispose() {},
      };
    },
    /** @param {number} g @param {number} symbolSize */
    decoder(g, symbolSize) {
      /** @type {import('@mutp/rlnc').Decoder | null} null once disposed */
      let ranks = takeTracker(factory, g);
      let input = ranks.inputView();
      let id = -1;
      const live = () => {
        if (ranks === null) throw codedError('ERR_RLNC_DISPOSED', 'decoder was disposed');
        return ranks;
      };
      return {
        symbolCount: g,
        symbolSize,
        payloadSize: g + symbolSize,
        get rank() { return live().rank; },
        isComplete: () => live().isComplete(),
        /** @param {Uint8Array} payload */
        readPayload(payload) {
          const dec = live();
          if (payload.length !== g + symbolSize) throw codedError('ERR_RLNC_BAD_LENGTH', 'payload has the wrong length');
          const from = readU32(payload, g);
          if (from >= sources.length) throw codedError('ERR_SIM_CODEC', 'payload names no source symbols');
          if (input.length === 0) input = dec.inputView(); // codec memory grew: the old view is detached
          for (let j = 0; j < g + TRACKED_SYMBOL_BYTES; j++) input[j] = payload[j];
          const innovative = dec.readInput();
          if (innovative && id < 0) id = from;
          return innovative;
        },
        symbols() {
          const dec = live();
          if (!dec.isComplete()) throw codedError('ERR_RLNC_INCOMPLETE', `decoder incomplete: rank ${dec.rank} of ${g}`);
          return sources[id];
        },
        dispose() {
          if (ranks === null) return;
          returnTracker(factory, ranks);
          ranks = null;
        },
      };
    },
  };
}
