/**
 * What a service writes to a table: some of its columns (typed names), each value as the
 * contract's schema validated it (the stores' typed rows are what reads give back).
 */
export type Values<Row> = { [K in keyof Row]?: unknown };

/**
 * Written values as knex takes them for a typed table (`db<Row>(table).insert/update`): the
 * column names were checked by `Values`, the values by the body's schema. For stores only.
 */
export function columnValues<Row>(values: Values<Row>): Record<string, unknown> {
  return { ...values };
}
