/**
 * Response bodies of the insight, task, perception, traffic and overview
 * operations. Their full shapes arrive with those operations (issue 3); until
 * then each names its scope so the contract, the router and OpenAPI are whole.
 */
import { z } from 'zod';
import { brandScope, windowed } from './common';

// One object per operation: the OpenAPI document names each response schema after its operation.
const scoped = () => z.object(brandScope);
const windowedScope = () => z.object(windowed);

export const ContentGaps = windowedScope();
export const SourceList = windowedScope();
export const PageList = windowedScope();
export const CompetitorDetail = windowedScope();
export const ActivityList = scoped();
export const TaskList = scoped();
export const TaskDetail = scoped();
export const BrandPerception = windowedScope();
export const PerceptionTranscript = scoped();
export const ForumSignals = windowedScope();
export const SearchPerformance = windowedScope();
export const AiCrawlers = windowedScope();
export const AiVisitors = windowedScope();
export const Overview = windowedScope();
