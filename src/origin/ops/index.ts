/** Maps every operation of the contract to the function computing its body. */
import type { OperationId } from '../../contract/operations';
import type { Implementation } from './context';
import * as core from './core';
import * as insights from './insights';
import * as overview from './overview';
import * as perception from './perception';
import * as tasks from './tasks';
import * as traffic from './traffic';

export type { Implementation, OpContext } from './context';

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
  getOverview: overview.getOverview,
  getContentGaps: insights.getContentGaps,
  listSources: insights.listSources,
  listPages: insights.listPages,
  getCompetitor: insights.getCompetitor,
  listActivity: insights.listActivity,
  listTasks: tasks.listTasks,
  getTask: tasks.getTask,
  getBrandPerception: perception.getBrandPerception,
  getPerceptionTranscript: perception.getPerceptionTranscript,
  getForumSignals: perception.getForumSignals,
  getSearchPerformance: traffic.getSearchPerformance,
  getAiCrawlers: traffic.getAiCrawlers,
  getAiVisitors: traffic.getAiVisitors,
};
