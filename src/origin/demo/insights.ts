/**
 * Demo rows for the insight operations: tasks, activity, perception, forum
 * summaries, search rows, crawler and visitor traffic, readiness signals.
 */
import type { BulkWriter } from './load';
import type { WorldMarket } from './generate';

export async function seedInsights(_out: BulkWriter, _worlds: WorldMarket[], _today: string): Promise<void> {
  // Filled in with the insight operations.
}
