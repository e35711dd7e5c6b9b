/** Writing the demo dataset to D1 fast: many rows per statement, many statements per batch. */

/**
 * Rows go to D1 as one JSON array per statement, unpacked by `json_each`: one
 * bound parameter however many rows, which is several times faster than
 * multi-row VALUES under D1's 100-parameter limit. Chunks stay well under
 * D1's 2 MB limit for one value.
 */
const CHUNK_BYTES = 900_000;
/** Statements per D1 batch: one round trip, one transaction. */
const BATCH_STATEMENTS = 40;

/** A column value as D1 stores it. */
export type Value = string | number | null;

/** Buffers rows and writes them in batches. */
export class BulkWriter {
  private statements: D1PreparedStatement[] = [];
  rowsWritten = 0;

  constructor(private readonly db: D1Database) {}

  async insert(table: string, columns: string[], rows: Value[][]): Promise<void> {
    const sql = `INSERT INTO ${table} (${columns.join(',')}) SELECT ${columns.map((_, i) => `value->>${i}`).join(',')} FROM json_each(?)`;
    let chunk: string[] = [];
    let bytes = 0;
    const push = async () => {
      this.statements.push(this.db.prepare(sql).bind(`[${chunk.join(',')}]`));
      this.rowsWritten += chunk.length;
      chunk = [];
      bytes = 0;
      if (this.statements.length >= BATCH_STATEMENTS) await this.flush();
    };
    for (const row of rows) {
      const json = JSON.stringify(row);
      if (bytes + json.length > CHUNK_BYTES && chunk.length) await push();
      chunk.push(json);
      bytes += json.length + 1;
    }
    if (chunk.length) await push();
  }

  /** Inserts objects whose keys are the columns. */
  insertObjects<T extends Record<string, Value>>(table: string, rows: T[]): Promise<void> {
    if (rows.length === 0) return Promise.resolve();
    const columns = Object.keys(rows[0]!);
    return this.insert(
      table,
      columns,
      rows.map((r) => columns.map((c) => r[c] ?? null)),
    );
  }

  async flush(): Promise<void> {
    const batch = this.statements;
    this.statements = [];
    if (batch.length) await this.db.batch(batch);
  }
}
