// The few SQL spellings where DuckDB and PostgreSQL differ; everything else in dashboard-sql.js and
// tables.js is written once for both engines.

/**
 * @typedef {object} SqlDialect
 * @property {'duckdb' | 'postgres'} name
 * @property {(x: string) => string} epochMs  a TIMESTAMPTZ as whole milliseconds since the epoch
 * @property {(v: string, qs: number[]) => string} quantiles  an aggregate: the continuous quantiles of v, as an array
 * @property {(x: string) => string} log2
 * @property {Record<import('./tables.js').ColumnKind, string>} types  column types
 * @property {boolean} keyedRecords  the record tables carry PRIMARY KEY (id)
 */

/** @type {SqlDialect} */
export const DUCKDB = {
  name: 'duckdb',
  epochMs: (x) => `epoch_ms(${x})`,
  quantiles: (v, qs) => `quantile_cont(${v}, [${qs.join(', ')}])`,
  log2: (x) => `log2(${x})`,
  types: {
    uuid: 'UUID', varchar: 'VARCHAR', timestamptz: 'TIMESTAMPTZ', integer: 'INTEGER', bigint: 'BIGINT',
    double: 'DOUBLE', boolean: 'BOOLEAN', json: 'JSON', 'varchar[]': 'VARCHAR[]',
  },
  // No index on the record tables: in DuckDB 1.5 a COMMIT into a table with any index grows with
  // the table's bytes (1868 rows of 100 KB JSON: 30-190 ms per one-row commit with an index, under
  // 1 ms without), and packet logs make records large (one record more, after 1000 coded records
  // with 7635-entry logs: 62 ms keyed, 14 ms not, medians). The one writer checks ids in its
  // transaction instead (duckdb-store.js); that scan of the id column takes ~2 ms at 200k rows.
  keyedRecords: false,
};

/**
 * Added to a DOUBLE log2 before floor(): far above its rounding error (~1e-14 for x < 2^40) and far below the
 * distance from log2(2^k − 1) to k (1.44·2^−k > 1e-10 for k < 33, objects under 8 TiB).
 */
const LOG2_NUDGE = 1e-10;

/** @type {SqlDialect} */
export const POSTGRES = {
  name: 'postgres',
  epochMs: (x) => `(extract(epoch FROM ${x}) * 1000)::BIGINT`,
  // percentile_cont with an array argument: every quantile from one sort of the group.
  quantiles: (v, qs) => `percentile_cont(ARRAY[${qs.join(', ')}]::DOUBLE PRECISION[]) WITHIN GROUP (ORDER BY ${v})`,
  // ln(x)/ln(2) can land a rounding error below an exact power of two; LOG2_NUDGE lifts it back. NUMERIC log
  // would be exact but costs ~0.3 ms a row (14 s for a 20k-record boxplot).
  log2: (x) => `(ln((${x})::DOUBLE PRECISION) / ln(2.0) + ${LOG2_NUDGE})`,
  types: {
    uuid: 'UUID', varchar: 'VARCHAR', timestamptz: 'TIMESTAMPTZ', integer: 'INTEGER', bigint: 'BIGINT',
    double: 'DOUBLE PRECISION', boolean: 'BOOLEAN', json: 'JSON', 'varchar[]': 'VARCHAR[]',
  },
  keyedRecords: true, // ON CONFLICT (id) needs it: several Origo processes insert at once
};
