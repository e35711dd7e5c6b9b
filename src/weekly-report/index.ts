/** The weekly report: one read with aligned windows (read.ts), the model (model.ts), weeks (week.ts), and the kept history (history.ts). */
export * from './model';
export { type PageExtras, type PageExtrasWanted, readPageExtras, readScope, readWeek, type ReadInfo, type Scope, type ReportSource, reportOf, summarizeReads, type WeeklyInputs, type WeeklyRead, type WeekTarget, WindowMismatch } from './read';
export * from './week';
export * from './history';
export * from './changes';
export * from './parts';
export * from './compat';
