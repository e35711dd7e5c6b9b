/** Maps every operation of the contract to the function computing its body. */
import { ApiError } from '../../contract/errors';
import type { OperationId, PathOf, QueryOf, ResponseOf } from '../../contract/operations';
import type { Period } from '../../contract/window';
import type { BrandRow, Caller, MarketRow } from '../access';
import * as core from './core';

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

const notYet = async (): Promise<never> => {
  throw new ApiError('not_implemented', 'This operation is not implemented by the reference origin yet.');
};

export const implementations: { [Id in OperationId]: Implementation<Id> } = {
  listBrands: core.listBrands,
  listMarkets: core.listMarkets,
  listAnswers: core.listAnswers,
  getVisibility: core.getVisibility,
  getPromptMatrix: core.getPromptMatrix,
  getAnswerRuns: core.getAnswerRuns,
  getAnswerHistory: core.getAnswerHistory,
  listTopics: core.listTopics,
  getTopic: core.getTopic,
  getOverview: notYet,
  getContentGaps: notYet,
  listSources: notYet,
  listPages: notYet,
  getCompetitor: notYet,
  listActivity: notYet,
  listTasks: notYet,
  getTask: notYet,
  getBrandPerception: notYet,
  getPerceptionTranscript: notYet,
  getForumSignals: notYet,
  getSearchPerformance: notYet,
  getAiCrawlers: notYet,
  getAiVisitors: notYet,
};
