/** Loads the demo dataset on the first request when the database is empty (`npm run dev` sets `DEMO_DATA=on-empty`). */
import { toDay } from '../../contract/window';
import { isEmpty, seedDemo } from './load';

let loading: Promise<void> | undefined;

export function ensureDemoData(db: D1Database): Promise<void> {
  loading ??= (async () => {
    if (!(await isEmpty(db))) return;
    const started = Date.now();
    const { runs, rows } = await seedDemo(db, { today: toDay(new Date()) });
    console.log(`Loaded the demo dataset: ${runs} answer runs, ${rows} rows in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
  })().catch((error) => {
    loading = undefined; // let the next request try again
    throw error;
  });
  return loading;
}
