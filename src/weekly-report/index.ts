/** The weekly report: one read with aligned windows (read.ts), the model (model.ts), weeks (week.ts), the kept history (history.ts), alerts' changes (changes.ts) and what a subscription brings, in words (subscription-words.ts). */
export * from './model';
export {
  type PageExtras,
  type PageExtrasWanted,
  readPageExtras,
  readScope,
  readWeek,
  type ReadInfo,
  type Scope,
  type ReportSource,
  reportOf,
  summarizeReads,
  type WeeklyInputs,
  type WeeklyRead,
  type WeekTarget,
  WEEK_READS,
  WindowMismatch,
} from './read';
export * from './week';
export * from './history';
export * from './changes';
export * from './subscription-words';
export * from './parts';
export * from './compat';
export { OperationMissing } from './missing';
export * from './guard';
