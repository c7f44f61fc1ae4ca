// The few SQL spellings where DuckDB and PostgreSQL differ; everything else in dashboard-sql.js and
// tables.js is written once for both engines.

/**
 * @typedef {object} SqlDialect
 * @property {'duckdb' | 'postgres'} name
 * @property {(x: string) => string} epochMs  a TIMESTAMPTZ as whole milliseconds since the epoch
 * @property {(v: string, qs: number[]) => string} quantiles  an aggregate: the continuous quantiles of v, as an array
 * @property {(x: string) => string} anyValue  an aggregate: one value of a column that is constant in the group
 * @property {(v: string, by: string, n: number, where: string) => string} extremes  an aggregate: up to n values of v
 *           with the largest `by`, over the rows matching `where`
 * @property {(x: string) => string} log2
 * @property {Record<import('./tables.js').ColumnKind, string>} types  column types
 */

/** @type {SqlDialect} */
export const DUCKDB = {
  name: 'duckdb',
  epochMs: (x) => `epoch_ms(${x})`,
  quantiles: (v, qs) => `quantile_cont(${v}, [${qs.join(', ')}])`,
  anyValue: (x) => `any_value(${x})`,
  extremes: (v, by, n, where) => `arg_max(${v}, ${by}, ${n}) FILTER (WHERE ${where})`,
  log2: (x) => `log2(${x})`,
  types: {
    uuid: 'UUID', varchar: 'VARCHAR', timestamptz: 'TIMESTAMPTZ', integer: 'INTEGER', bigint: 'BIGINT',
    double: 'DOUBLE', boolean: 'BOOLEAN', json: 'JSON', 'varchar[]': 'VARCHAR[]',
  },
};

/** @type {SqlDialect} */
export const POSTGRES = {
  name: 'postgres',
  epochMs: (x) => `(extract(epoch FROM ${x}) * 1000)::BIGINT`,
  // percentile_cont with an array argument: every quantile from one sort of the group.
  quantiles: (v, qs) => `percentile_cont(ARRAY[${qs.join(', ')}]::DOUBLE PRECISION[]) WITHIN GROUP (ORDER BY ${v})`,
  // PostgreSQL 15 has no any_value (16 has); min of a constant is that constant.
  anyValue: (x) => `min(${x})`,
  extremes: (v, by, n, where) => `(array_agg(${v} ORDER BY ${by} DESC) FILTER (WHERE ${where}))[1:${n}]`,
  // NUMERIC log is exact at powers of two, where a DOUBLE ln(x)/ln(2) can land just below an integer.
  log2: (x) => `log(2, (${x})::NUMERIC)`,
  types: {
    uuid: 'UUID', varchar: 'VARCHAR', timestamptz: 'TIMESTAMPTZ', integer: 'INTEGER', bigint: 'BIGINT',
    double: 'DOUBLE PRECISION', boolean: 'BOOLEAN', json: 'JSON', 'varchar[]': 'VARCHAR[]',
  },
};
