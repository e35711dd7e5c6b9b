/** What every operation's implementation is given and returns. */
import type { OperationId, PathOf, QueryOf, ResponseOf } from '../../contract/operations';
import type { Period } from '../../contract/window';
import type { BrandRow, Caller, MarketRow } from '../access';

/** What an operation is computed from, once every check has passed. */
export interface OpContext<Id extends OperationId = OperationId> {
  db: D1Database;
  caller: Caller;
  brand: BrandRow;
  market: MarketRow;
  query: QueryOf<Id>;
  path: PathOf<Id>;
  period: Period;
  today: string;
  now: Date;
}

export type Implementation<Id extends OperationId> = (context: OpContext<Id>) => Promise<ResponseOf<Id>>;
