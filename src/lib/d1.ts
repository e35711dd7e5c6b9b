/** D1 helpers with no product knowledge. */

/** Statements per `db.batch` call: D1 runs a batch as one transaction, and large ones hit its limits. */
export const D1_BATCH_STATEMENTS = 500;

/** Runs the statements in batches of `D1_BATCH_STATEMENTS`, in order. Each batch is a transaction; the whole is not. */
export async function runInChunks(db: D1Database, statements: D1PreparedStatement[]): Promise<void> {
  for (let i = 0; i < statements.length; i += D1_BATCH_STATEMENTS) await db.batch(statements.slice(i, i + D1_BATCH_STATEMENTS));
}
