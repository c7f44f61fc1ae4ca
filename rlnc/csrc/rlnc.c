/*
 * RLNC kernels over GF(2^8), polynomial 0x11D (Kodo's binary8), freestanding C for wasm32.
 * Built twice by build/build-wasm.js: with -msimd128 (split 4-bit tables + i8x16.swizzle)
 * and without (portable scalar path with a full 64 KiB multiplication table).
 * JS owns all memory (src/heap.js); these functions only take pointers into it.
 */
typedef unsigned char u8;
typedef unsigned int u32;

#define POLYNOMIAL 0x11d
#define MAX_SYMBOLS 255   /* coefficients are bytes; matches MAX_SYMBOLS in src/limits.js */
#define VEC 16            /* bytes in one v128 */
#define BLOCK 64          /* bytes per inner SIMD block: 4 accumulators hide swizzle latency */

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

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

/* NIB[c][0..15] = c·i, NIB[c][16..31] = c·(i<<4): the split 4-bit tables for coefficient c. */
static u8 NIB[256][32] __attribute__((aligned(16)));

static void init_tables(void) {
  for (u32 c = 0; c < 256; c++) {
    for (u32 i = 0; i < 16; i++) {
      NIB[c][i] = mul((u8)c, (u8)i);
      NIB[c][16 + i] = mul((u8)c, (u8)(i << 4));
    }
  }
}

static inline v128_t mul_vec(v128_t x, v128_t lo, v128_t hi, v128_t mask) {
  /* i16x8 shift + mask: 20-30% faster than i8x16.shr_u in V8 (field notes) */
  v128_t xl = wasm_v128_and(x, mask);
  v128_t xh = wasm_v128_and(wasm_u16x8_shr(x, 4), mask);
  return wasm_v128_xor(wasm_i8x16_swizzle(lo, xl), wasm_i8x16_swizzle(hi, xh));
}

/*
 * dst[0..n) (^)= Σ_k c_k · srcs[k][0..n) for the m non-zero coefficients whose tables are
 * tabs[k]. Output-stationary: each block of dst is accumulated in registers over all sources.
 * The last partial vector is handled by an overlapping vector computed before anything is
 * stored, so dst may equal a source (in-place scaling) and odd sizes need no byte loop.
 */
static void combine(u8 *dst, const u8 *const *srcs, const u8 *const *tabs, u32 m, u32 n,
                    int accumulate) {
  const v128_t mask = wasm_i8x16_splat(0x0f);
  if (n < VEC) {
    for (u32 j = 0; j < n; j++) {
      u8 acc = accumulate ? dst[j] : 0;
      for (u32 k = 0; k < m; k++) {
        u8 x = srcs[k][j];
        acc ^= tabs[k][x & 15] ^ tabs[k][16 + (x >> 4)];
      }
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
  for (; off + BLOCK <= n; off += BLOCK) {
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

static inline void store32(u8 *p, u32 v) { __builtin_memcpy(p, &v, 4); }

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

static const u8 *table_for(u8 c) { return MUL_T[c]; }

#endif

/* dst (^)= Σ_i coeffs[i] · (base + i·stride), skipping zero coefficients. */
static void lincomb(u8 *dst, const u8 *base, u32 stride, const u8 *coeffs, u32 g, u32 n,
                    int accumulate) {
  const u8 *srcs[MAX_SYMBOLS];
  const u8 *tabs[MAX_SYMBOLS];
  u32 m = 0;
  for (u32 i = 0; i < g; i++) {
    u8 c = coeffs[i];
    if (c == 0) continue;
    srcs[m] = base + i * stride;
    tabs[m] = table_for(c);
    m++;
  }
  combine(dst, srcs, tabs, m, n, accumulate);
}

/* dst ^= c · src */
static void axpy(u8 *dst, const u8 *src, u8 c, u32 n) {
  const u8 *t = table_for(c);
  combine(dst, &src, &t, 1, n, 1);
}

/* p = c · p (in place) */
static void scale(u8 *p, u8 c, u32 n) {
  const u8 *src = p;
  const u8 *t = table_for(c);
  combine(p, &src, &t, 1, n, 0);
}

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
  lincomb(out, symbols, size, coeffs, g, size, 0);
}

/*
 * Adds `row` (g coefficients, then size data bytes) to the decoder kept in reduced
 * row-echelon form; cm = g×g coefficients, dm = g×size data, row p holds the pivot-p row,
 * piv[p] = 1 when present. Returns the new pivot column, or -1 if not innovative (in which
 * case cm, dm and piv are untouched).
 */
EXPORT(rlnc_decode) int rlnc_decode(u8 *cm, u8 *dm, u8 *piv, u8 *row, u32 g, u32 size) {
  u8 f[MAX_SYMBOLS];
  u8 *rd = row + g;
  /* 1. forward: RREF rows are zero in the other pivot columns, so one pass with the row's
   *    own coefficients removes every existing pivot. */
  for (u32 j = 0; j < g; j++) f[j] = piv[j] ? row[j] : 0;
  lincomb(row, cm, g, f, g, g, 1);
  lincomb(rd, dm, size, f, g, size, 1);
  u32 p = 0;
  while (p < g && row[p] == 0) p++;
  if (p == g) return -1;
  /* 2. normalise (coefficients and data are contiguous in the row) */
  if (row[p] != 1) scale(row, INV_T[row[p]], g + size);
  /* 3. backward: clear column p from the other rows */
  for (u32 r = 0; r < g; r++) {
    if (!piv[r]) continue;
    u8 c = cm[r * g + p];
    if (c == 0) continue;
    axpy(cm + r * g, row, c, g);
    axpy(dm + r * size, rd, c, size);
  }
  __builtin_memcpy(cm + p * g, row, g);
  __builtin_memcpy(dm + p * size, rd, size);
  piv[p] = 1;
  return (int)p;
}
