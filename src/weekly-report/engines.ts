/** How the engines and their answers' states are named and ordered for a reader, in the email, on the page and in the alerts alike. */
import { type AnswerState, type Engine, ENGINES } from '../contract/enums';

export const ENGINE_LABELS: Record<Engine, string> = {
  chatgpt: 'ChatGPT',
  perplexity: 'Perplexity',
  gemini: 'Gemini',
  claude: 'Claude',
  copilot: 'Copilot',
  google_ai_overviews: 'Google AI Overviews',
};

/** How an engine is named to a reader: our label, or another implementation's own value as it is. */
export const engineLabel = (engine: string): string => (Object.hasOwn(ENGINE_LABELS, engine) ? ENGINE_LABELS[engine as Engine] : engine);

/** Where an engine sorts: ours in their order, any other after them. */
export const engineOrder = (engine: string): number => {
  const at = (ENGINES as readonly string[]).indexOf(engine);
  return at === -1 ? ENGINES.length : at;
};

/** Our engines in their order, then any other an upstream names, in the order first met. */
export function enginesOf(named: Iterable<string>): string[] {
  const all: string[] = [...ENGINES];
  for (const engine of named) if (!all.includes(engine)) all.push(engine);
  return all;
}

/** How a reader is told an engine's dominant state, in the email and on the page alike. */
const STATE_WORDS: Record<AnswerState, string> = {
  recommended: 'recommended',
  mentioned: 'mentioned',
  absent: 'not named',
  open: 'no brand named',
  no_answer: 'no answer',
};
export const stateWord = (state: AnswerState | null): string => (state === null ? 'not run' : STATE_WORDS[state]);
