/*
 * RLNC kernels over GF(2^8), polynomial 0x11D (Kodo's binary8), freestanding C for wasm32.
 * Built three times by build/build-wasm.js: with -msimd128 (split 4-bit tables +
 * i8x16.swizzle), the same with relaxed SIMD (i8x16.relaxed_swizzle), and without SIMD
 * (portable scalar path with a full 64 KiB multiplication table).
 * JS owns all memory (src/heap.js); these functions only take pointers into it.
 */
typedef unsigned char u8;
typedef unsigned int u32;

#define POLYNOMIAL 0x11d
#define MAX_SYMBOLS 255   /* coefficients are bytes; matches MAX_SYMBOLS in src/limits.js */
#define VEC 16            /* bytes in one v128 */
/* SIMD cost model (x86-64, V8 11): one multiply-add of 16 bytes is and, shr, and, 2x swizzle
 * (V8 emits paddusb + pshufb for each, to zero out-of-range lanes) and 2x xor = 9 vector ops,
 * so the kernels are bound by the 3 vector ALU ports, not by memory. */


#ifndef RLNC_MAX_MEMORY
#error "RLNC_MAX_MEMORY must be defined by the build (bytes, matches --max-memory)"
#endif

#define EXPORT(name) __attribute__((export_name(#name)))

static u8 EXP_T[512];
static u8 LOG_T[256];
static u8 INV_T[256];

static u8 mul(u8 a, u8 b) {
  if (a == 0 || b == 0) return 0;
  return EXP_T[LOG_T[a] + LOG_T[b]];
}

static inline void store32(u8 *p, u32 v) { __builtin_memcpy(p, &v, 4); }

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

/* NIB[c][0..15] = c·i, NIB[c][16..31] = c·(i<<4): the split 4-bit tables for coefficient c. */
static u8 NIB[256][32] __attribute__((aligned(16)));

/* TAIL_KEEP + r: lane i is 0xff iff i >= 16 - r, the lanes a ragged tail vector adds. */
static const u8 TAIL_KEEP[32] __attribute__((aligned(16))) = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

static void init_tables(void) {
  for (u32 c = 0; c < 256; c++) {
    for (u32 i = 0; i < 16; i++) {
      NIB[c][i] = mul((u8)c, (u8)i);
      NIB[c][16 + i] = mul((u8)c, (u8)(i << 4));
    }
  }
}

/* Low and high nibbles of x as swizzle indices. i16x8 shift + mask: 20-30% faster than
 * i8x16.shr_u in V8 (field notes). */
#define NIBBLES(x, xl, xh, mask)                         \
  v128_t xl = wasm_v128_and((x), (mask));                \
  v128_t xh = wasm_v128_and(wasm_u16x8_shr((x), 4), (mask))

/* The 'relaxed' build uses i8x16.relaxed_swizzle: V8 then emits a bare pshufb instead of
 * paddusb + pshufb (the add only serves indices >= 16, and ours are always 0..15, so both
 * give identical bytes). It measured 35-60% faster; engines without relaxed SIMD reject the
 * module and get the plain SIMD build. */
#ifdef RLNC_RELAXED_SWIZZLE
#define SWIZZLE __builtin_wasm_relaxed_swizzle_i8x16
#else
#define SWIZZLE wasm_i8x16_swizzle
#endif
#define LOOKUP(xl, xh, lo, hi) wasm_v128_xor(SWIZZLE((lo), (xl)), SWIZZLE((hi), (xh)))

static inline v128_t mul_vec(v128_t x, v128_t lo, v128_t hi, v128_t mask) {
  NIBBLES(x, xl, xh, mask);
  return LOOKUP(xl, xh, lo, hi);
}

/* scalar fallback for rows shorter than one vector */
static inline u8 mul_nib(const u8 *t, u8 x) { return t[x & 15] ^ t[16 + (x >> 4)]; }

/*
 * dst[0..n) (^)= Σ_k c_k · srcs[k][0..n) for m coefficients (tables tabs[k]).
 * Output-stationary: each block of 8 vectors (then 4, then 1) of dst is accumulated in
 * registers over all sources before one store. 8 accumulators measured a few % faster than 4
 * at g=24 (fewer loop iterations: V8 adds a stack check to every loop back-edge). The last partial vector is an overlapping vector computed before
 * anything is stored, so dst may equal a source and odd sizes need no byte loop.
 */
static void combine(u8 *dst, const u8 *const *srcs, const u8 *const *tabs, u32 m, u32 n,
                    int accumulate) {
  const v128_t mask = wasm_i8x16_splat(0x0f);
  if (n < VEC) {
    for (u32 j = 0; j < n; j++) {
      u8 acc = accumulate ? dst[j] : 0;
      for (u32 k = 0; k < m; k++) acc ^= mul_nib(tabs[k], srcs[k][j]);
      dst[j] = acc;
    }
    return;
  }
  const u32 tail = n - VEC;
  const int ragged = (n % VEC) != 0;
  v128_t last = wasm_i64x2_splat(0);
  if (ragged) {
    last = accumulate ? wasm_v128_load(dst + tail) : wasm_i64x2_splat(0);
    for (u32 k = 0; k < m; k++) {
      v128_t lo = wasm_v128_load(tabs[k]);
      v128_t hi = wasm_v128_load(tabs[k] + VEC);
      last = wasm_v128_xor(last, mul_vec(wasm_v128_load(srcs[k] + tail), lo, hi, mask));
    }
  }
  u32 off = 0;
  for (; off + 8 * VEC <= n; off += 8 * VEC) {
    v128_t a0, a1, a2, a3, a4, a5, a6, a7;
    if (accumulate) {
      a0 = wasm_v128_load(dst + off);
      a1 = wasm_v128_load(dst + off + 16);
      a2 = wasm_v128_load(dst + off + 32);
      a3 = wasm_v128_load(dst + off + 48);
      a4 = wasm_v128_load(dst + off + 64);
      a5 = wasm_v128_load(dst + off + 80);
      a6 = wasm_v128_load(dst + off + 96);
      a7 = wasm_v128_load(dst + off + 112);
    } else {
      a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = wasm_i64x2_splat(0);
    }
    for (u32 k = 0; k < m; k++) {
      const v128_t lo = wasm_v128_load(tabs[k]);
      const v128_t hi = wasm_v128_load(tabs[k] + VEC);
      const u8 *s = srcs[k] + off;
      a0 = wasm_v128_xor(a0, mul_vec(wasm_v128_load(s), lo, hi, mask));
      a1 = wasm_v128_xor(a1, mul_vec(wasm_v128_load(s + 16), lo, hi, mask));
      a2 = wasm_v128_xor(a2, mul_vec(wasm_v128_load(s + 32), lo, hi, mask));
      a3 = wasm_v128_xor(a3, mul_vec(wasm_v128_load(s + 48), lo, hi, mask));
      a4 = wasm_v128_xor(a4, mul_vec(wasm_v128_load(s + 64), lo, hi, mask));
      a5 = wasm_v128_xor(a5, mul_vec(wasm_v128_load(s + 80), lo, hi, mask));
      a6 = wasm_v128_xor(a6, mul_vec(wasm_v128_load(s + 96), lo, hi, mask));
      a7 = wasm_v128_xor(a7, mul_vec(wasm_v128_load(s + 112), lo, hi, mask));
    }
    wasm_v128_store(dst + off, a0);
    wasm_v128_store(dst + off + 16, a1);
    wasm_v128_store(dst + off + 32, a2);
    wasm_v128_store(dst + off + 48, a3);
    wasm_v128_store(dst + off + 64, a4);
    wasm_v128_store(dst + off + 80, a5);
    wasm_v128_store(dst + off + 96, a6);
    wasm_v128_store(dst + off + 112, a7);
  }
  for (; off + 4 * VEC <= n; off += 4 * VEC) {
    v128_t a0, a1, a2, a3;
    if (accumulate) {
      a0 = wasm_v128_load(dst + off);
      a1 = wasm_v128_load(dst + off + 16);
      a2 = wasm_v128_load(dst + off + 32);
      a3 = wasm_v128_load(dst + off + 48);
    } else {
      a0 = a1 = a2 = a3 = wasm_i64x2_splat(0);
    }
    for (u32 k = 0; k < m; k++) {
      const v128_t lo = wasm_v128_load(tabs[k]);
      const v128_t hi = wasm_v128_load(tabs[k] + VEC);
      const u8 *s = srcs[k] + off;
      a0 = wasm_v128_xor(a0, mul_vec(wasm_v128_load(s), lo, hi, mask));
      a1 = wasm_v128_xor(a1, mul_vec(wasm_v128_load(s + 16), lo, hi, mask));
      a2 = wasm_v128_xor(a2, mul_vec(wasm_v128_load(s + 32), lo, hi, mask));
      a3 = wasm_v128_xor(a3, mul_vec(wasm_v128_load(s + 48), lo, hi, mask));
    }
    wasm_v128_store(dst + off, a0);
    wasm_v128_store(dst + off + 16, a1);
    wasm_v128_store(dst + off + 32, a2);
    wasm_v128_store(dst + off + 48, a3);
  }
  for (; off + VEC <= n; off += VEC) {
    v128_t a = accumulate ? wasm_v128_load(dst + off) : wasm_i64x2_splat(0);
    for (u32 k = 0; k < m; k++) {
      const v128_t lo = wasm_v128_load(tabs[k]);
      const v128_t hi = wasm_v128_load(tabs[k] + VEC);
      a = wasm_v128_xor(a, mul_vec(wasm_v128_load(srcs[k] + off), lo, hi, mask));
    }
    wasm_v128_store(dst + off, a);
  }
  if (ragged) wasm_v128_store(dst + tail, last);
}

/*
 * rows[r][0..n) ^= c_r · src[0..n) for m rows (tables tabs[r]); src is none of the rows.
 * Source-stationary: the nibble indices of each source vector are computed once and used
 * for every row, which saves a third of the vector work of one axpy per row. A ragged tail
 * is one overlapping vector whose already-done lanes have index 0 (c·0 = 0, a no-op).
 */
static void eliminate(u8 *const *rows, const u8 *const *tabs, u32 m, const u8 *src, u32 n) {
  const v128_t mask = wasm_i8x16_splat(0x0f);
  if (n < VEC) {
    for (u32 r = 0; r < m; r++)
      for (u32 j = 0; j < n; j++) rows[r][j] ^= mul_nib(tabs[r], src[j]);
    return;
  }
  u32 off = 0;
  for (; off + 4 * VEC <= n; off += 4 * VEC) {
    v128_t x0 = wasm_v128_load(src + off);
    v128_t x1 = wasm_v128_load(src + off + 16);
    v128_t x2 = wasm_v128_load(src + off + 32);
    v128_t x3 = wasm_v128_load(src + off + 48);
    NIBBLES(x0, l0, h0, mask);
    NIBBLES(x1, l1, h1, mask);
    NIBBLES(x2, l2, h2, mask);
    NIBBLES(x3, l3, h3, mask);
    for (u32 r = 0; r < m; r++) {
      const v128_t lo = wasm_v128_load(tabs[r]);
      const v128_t hi = wasm_v128_load(tabs[r] + VEC);
      u8 *d = rows[r] + off;
      wasm_v128_store(d, wasm_v128_xor(wasm_v128_load(d), LOOKUP(l0, h0, lo, hi)));
      wasm_v128_store(d + 16, wasm_v128_xor(wasm_v128_load(d + 16), LOOKUP(l1, h1, lo, hi)));
      wasm_v128_store(d + 32, wasm_v128_xor(wasm_v128_load(d + 32), LOOKUP(l2, h2, lo, hi)));
      wasm_v128_store(d + 48, wasm_v128_xor(wasm_v128_load(d + 48), LOOKUP(l3, h3, lo, hi)));
    }
  }
  for (; off + 2 * VEC <= n; off += 2 * VEC) {
    v128_t x0 = wasm_v128_load(src + off);
    v128_t x1 = wasm_v128_load(src + off + 16);
    NIBBLES(x0, l0, h0, mask);
    NIBBLES(x1, l1, h1, mask);
    for (u32 r = 0; r < m; r++) {
      const v128_t lo = wasm_v128_load(tabs[r]);
      const v128_t hi = wasm_v128_load(tabs[r] + VEC);
      u8 *d = rows[r] + off;
      wasm_v128_store(d, wasm_v128_xor(wasm_v128_load(d), LOOKUP(l0, h0, lo, hi)));
      wasm_v128_store(d + 16, wasm_v128_xor(wasm_v128_load(d + 16), LOOKUP(l1, h1, lo, hi)));
    }
  }
  for (; off + VEC <= n; off += VEC) {
    v128_t x0 = wasm_v128_load(src + off);
    NIBBLES(x0, l0, h0, mask);
    for (u32 r = 0; r < m; r++) {
      const v128_t lo = wasm_v128_load(tabs[r]);
      const v128_t hi = wasm_v128_load(tabs[r] + VEC);
      u8 *d = rows[r] + off;
      wasm_v128_store(d, wasm_v128_xor(wasm_v128_load(d), LOOKUP(l0, h0, lo, hi)));
    }
  }
  if (off < n) {
    const u32 tail = n - VEC;
    v128_t keep = wasm_v128_load(TAIL_KEEP + (n - off));
    v128_t x0 = wasm_v128_and(wasm_v128_load(src + tail), keep);
    NIBBLES(x0, l0, h0, mask);
    for (u32 r = 0; r < m; r++) {
      const v128_t lo = wasm_v128_load(tabs[r]);
      const v128_t hi = wasm_v128_load(tabs[r] + VEC);
      u8 *d = rows[r] + tail;
      wasm_v128_store(d, wasm_v128_xor(wasm_v128_load(d), LOOKUP(l0, h0, lo, hi)));
    }
  }
}

static const u8 *table_for(u8 c) { return NIB[c]; }

#else /* scalar */

/* MUL_T[c][x] = c·x: one load per multiply-add. */
static u8 MUL_T[256][256];

static void init_tables(void) {
  for (u32 a = 0; a < 256; a++)
    for (u32 b = 0; b < 256; b++) MUL_T[a][b] = mul((u8)a, (u8)b);
}

static inline u32 load32(const u8 *p) {
  u32 v;
  __builtin_memcpy(&v, p, 4);
  return v;
}

/* Four table lookups assembled into one little-endian word. */
static inline u32 mul32(const u8 *t, u32 x) {
  return (u32)t[x & 0xff] | ((u32)t[(x >> 8) & 0xff] << 8) | ((u32)t[(x >> 16) & 0xff] << 16) |
         ((u32)t[x >> 24] << 24);
}

/*
 * Same contract as the SIMD combine(). Output-stationary over 16-byte blocks held in four
 * 32-bit accumulators: one word load feeds four lookups, and dst is touched once per block
 * instead of once per source (memory operations, not arithmetic, bound this path).
 */
static void combine(u8 *dst, const u8 *const *srcs, const u8 *const *tabs, u32 m, u32 n,
                    int accumulate) {
  u32 off = 0;
  for (; off + 16 <= n; off += 16) {
    u32 a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    if (accumulate) {
      a0 = load32(dst + off);
      a1 = load32(dst + off + 4);
      a2 = load32(dst + off + 8);
      a3 = load32(dst + off + 12);
    }
    for (u32 k = 0; k < m; k++) {
      const u8 *t = tabs[k];
      const u8 *s = srcs[k] + off;
      a0 ^= mul32(t, load32(s));
      a1 ^= mul32(t, load32(s + 4));
      a2 ^= mul32(t, load32(s + 8));
      a3 ^= mul32(t, load32(s + 12));
    }
    store32(dst + off, a0);
    store32(dst + off + 4, a1);
    store32(dst + off + 8, a2);
    store32(dst + off + 12, a3);
  }
  for (; off < n; off++) {
    u8 acc = accumulate ? dst[off] : 0;
    for (u32 k = 0; k < m; k++) acc ^= tabs[k][srcs[k][off]];
    dst[off] = acc;
  }
}

/* rows[r] ^= c_r · src. Source-stationary over 4-byte words: the byte indices of src are
 * read once and used for every row (+15-20% decode over one combine() per row; 8-byte
 * blocks measured the same). */
static void eliminate(u8 *const *rows, const u8 *const *tabs, u32 m, const u8 *src, u32 n) {
  u32 off = 0;
  for (; off + 4 <= n; off += 4) {
    const u32 x0 = src[off], x1 = src[off + 1], x2 = src[off + 2], x3 = src[off + 3];
    for (u32 r = 0; r < m; r++) {
      const u8 *t = tabs[r];
      u8 *d = rows[r] + off;
      store32(d, load32(d) ^ ((u32)t[x0] | ((u32)t[x1] << 8) | ((u32)t[x2] << 16) | ((u32)t[x3] << 24)));
    }
  }
  for (; off < n; off++) {
    const u8 x = src[off];
    for (u32 r = 0; r < m; r++) rows[r][off] ^= tabs[r][x];
  }
}

static const u8 *table_for(u8 c) { return MUL_T[c]; }

#endif

EXPORT(rlnc_init) void rlnc_init(void) {
  u32 x = 1;
  for (u32 i = 0; i < 255; i++) {
    EXP_T[i] = (u8)x;
    LOG_T[x] = (u8)i;
    x <<= 1;
    if (x & 0x100) x ^= POLYNOMIAL;
  }
  for (u32 i = 255; i < 512; i++) EXP_T[i] = EXP_T[i - 255];
  for (u32 a = 1; a < 256; a++) INV_T[a] = EXP_T[255 - LOG_T[a]];
  init_tables();
}

EXPORT(rlnc_max_memory) u32 rlnc_max_memory(void) { return RLNC_MAX_MEMORY; }

/* out[0..size) = Σ_i coeffs[i] · symbol_i, symbols back to back from `symbols`. */
EXPORT(rlnc_encode) void rlnc_encode(u8 *out, const u8 *symbols, const u8 *coeffs, u32 g,
                                     u32 size) {
  const u8 *srcs[MAX_SYMBOLS];
  const u8 *tabs[MAX_SYMBOLS];
  u32 m = 0;
  for (u32 i = 0; i < g; i++) {
    u8 c = coeffs[i];
    if (c == 0) continue;
    srcs[m] = symbols + i * size;
    tabs[m] = table_for(c);
    m++;
  }
  combine(out, srcs, tabs, m, size, 0);
}

/*
 * Coefficient generator, byte for byte the one in src/coefficients.js (CoefficientGenerator.fill):
 * xoshiro128**, one 32-bit output per 4 coefficients, little-endian, the last output cut short;
 * an all-zero vector is drawn again. state = s0..s3, seeded by JS. Drawing here instead of in
 * JS saves ~30-40 ns per packet at g=24 and keeps a packet to one call into WASM.
 */
static inline u32 rotl(u32 x, u32 k) { return (x << k) | (x >> (32 - k)); }

static void draw_coefficients(u8 *out, u32 *state, u32 g) {
  u32 s0 = state[0], s1 = state[1], s2 = state[2], s3 = state[3];
  for (;;) {
    u32 any = 0;
    for (u32 i = 0; i < g; i += 4) {
      u32 w = rotl(s1 * 5, 7) * 9;
      const u32 t = s1 << 9;
      s2 ^= s0;
      s3 ^= s1;
      s1 ^= s2;
      s0 ^= s3;
      s2 ^= t;
      s3 = rotl(s3, 11);
      if (i + 4 <= g) {
        store32(out + i, w);
        any |= w;
      } else {
        for (u32 j = i; j < g; j++, w >>= 8) {
          out[j] = (u8)w;
          any |= w & 0xff;
        }
      }
    }
    if (any) break;
  }
  state[0] = s0;
  state[1] = s1;
  state[2] = s2;
  state[3] = s3;
}

/* The next coded packet: out[0..g) = fresh coefficients from `state`, out[g..g+size) = their
 * combination of the symbols. */
EXPORT(rlnc_encode_next) void rlnc_encode_next(u8 *out, const u8 *symbols, u32 *state, u32 g,
                                               u32 size) {
  draw_coefficients(out, state, g);
  rlnc_encode(out + g, symbols, out, g, size);
}

/*
 * Adds `row` (g coefficients, then size data bytes) to the decoder kept in reduced
 * row-echelon form; cm = g×g coefficients, dm = g×size data, row p holds the pivot-p row,
 * piv[p] = 1 when present. Returns the new pivot column, or -1 if not innovative (in which
 * case cm, dm and piv are untouched; the row buffer is scratch either way).
 */
EXPORT(rlnc_decode) int rlnc_decode(u8 *cm, u8 *dm, u8 *piv, u8 *row, u32 g, u32 size) {
  const u8 *srcs[MAX_SYMBOLS + 1];
  const u8 *tabs[MAX_SYMBOLS + 1];
  u8 *rows[MAX_SYMBOLS];
  u8 idx[MAX_SYMBOLS];
  u8 f[MAX_SYMBOLS];
  u8 *rd = row + g;
  /* 1. forward on the coefficients: RREF rows are zero in the other pivot columns, so one
   *    pass with the row's own coefficients removes every existing pivot. */
  u32 m = 0;
  for (u32 j = 0; j < g; j++) {
    if (!piv[j] || row[j] == 0) continue;
    idx[m] = (u8)j;
    f[m] = row[j];
    srcs[m] = cm + j * g;
    tabs[m] = table_for(row[j]);
    m++;
  }
  combine(row, srcs, tabs, m, g, 1);
  u32 p = 0;
  while (p < g && row[p] == 0) p++;
  if (p == g) return -1; /* not innovative: the data part is never touched */
  /* 2. forward on the data, normalised and written straight into the free slot p:
   *    dm_p = inv·rd + Σ (inv·f_j)·dm_j, so there is no separate scaling pass or copy. */
  const u8 inv = INV_T[row[p]];
  srcs[0] = rd;
  tabs[0] = table_for(inv);
  for (u32 k = 0; k < m; k++) {
    srcs[k + 1] = dm + idx[k] * size;
    tabs[k + 1] = table_for(mul(inv, f[k]));
  }
  u8 *const dp = dm + p * size;
  combine(dp, srcs, tabs, m + 1, size, 0);
  u8 *const cp = cm + p * g;
  const u8 *rowc = row;
  const u8 *tinv = table_for(inv);
  combine(cp, &rowc, &tinv, 1, g, 0);
  /* 3. backward: clear column p from the other rows, one pass per matrix over all rows */
  m = 0;
  for (u32 r = 0; r < g; r++) {
    if (!piv[r]) continue;
    u8 c = cm[r * g + p];
    if (c == 0) continue;
    idx[m] = (u8)r;
    tabs[m] = table_for(c);
    m++;
  }
  for (u32 k = 0; k < m; k++) rows[k] = cm + idx[k] * g;
  eliminate(rows, tabs, m, cp, g);
  for (u32 k = 0; k < m; k++) rows[k] = dm + idx[k] * size;
  eliminate(rows, tabs, m, dp, size);
  piv[p] = 1;
  return (int)p;
}
