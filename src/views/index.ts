/** The views besides the weekly report: what each holds (model.ts) and how it is read (read.ts). */
export * from './model';
export { notProvided, readView } from './read';
