/** Response bodies of the operations computed from stored runs: brands, markets, questions, visibility, matrix, runs, history, topics. */
import * as z from 'zod';
import { once } from '../../lib/lazy';
import { enumSchemas } from './enums';
import { commonSchemas } from './common';

/** Built at first use: a cache HIT needs none of them (src/contract/operations.ts). */
export const coreSchemas = once(() => {
  const { AnswerState, EngineValue, Outcome, Plan, SourceClass } = enumSchemas();
  const { brandScope, Day, Delta, MarketRef, MaybePercent, Period, RivalShare, Timestamp, WeeklyPoint, windowed } = commonSchemas();

  const Market = MarketRef.extend({
    name: z.string(),
    language: z.string().describe('BCP 47 language tag of the answers, e.g. `en`.'),
    country: z.string().describe('ISO 3166-1 alpha-2 country code, upper case.'),
    primary: z.boolean(),
  });

  const BrandList = z.object({
    brands: z.array(z.object({ id: z.number().int(), name: z.string(), domain: z.string(), category: z.string(), markets: z.array(Market) })),
    plan: z
      .object({
        id: Plan,
        monthly_quota: z.number().int().describe('Successful reads the account may make per calendar month (UTC).'),
        includes_pro_operations: z.boolean().describe('Whether the operations marked Pro and Growth are included.'),
      })
      .describe("The account's plan. The edge proxy reads it to answer refusals in the API's check order."),
    generated_at: Timestamp,
  });

  const MarketList = z.object({ brand_id: z.number().int(), markets: z.array(Market), generated_at: Timestamp });

  const QuestionList = z.object({
    ...brandScope,
    questions: z.array(
      z.object({
        id: z.number().int(),
        text: z.string().describe('Exact question text: the `prompt` of `GET /answers/runs`.'),
        topic: z.object({ id: z.number().int(), name: z.string() }),
      }),
    ),
  });

  const Visibility = z.object({
    ...windowed,
    score: MaybePercent.describe('100 x runs naming the brand / runs with an answer, trailing 7 days; null when no run answered.'),
    change: Delta.describe('Points against the 7 days before.'),
    answered_runs: z.number().int().min(0),
    naming_runs: z.number().int().min(0),
    history: z.array(WeeklyPoint).length(12),
  });

  const EngineCell = z.object({
    engine: EngineValue,
    state: AnswerState.nullable().describe('Dominant state over the window; null when the engine was not run.'),
    rate: MaybePercent.describe('Share of runs in the dominant state.'),
    position: z.number().min(1).nullable().describe('Mean 1-based rank of the brand where it was named.'),
    runs: z.number().int().min(0),
  });

  const PromptMatrix = z.object({
    ...windowed,
    engines: z.array(EngineValue),
    prompts: z.array(z.object({ question_id: z.number().int(), text: z.string(), topic_id: z.number().int(), engines: z.array(EngineCell) })),
  });

  const Citation = z.object({ url: z.string(), domain: z.string() });

  const AnswerRun = z.object({
    id: z.number().int(),
    engine: EngineValue,
    ran_at: Timestamp,
    state: AnswerState,
    brand_named: z.boolean(),
    position: z.number().int().min(1).nullable(),
    text: z.string().describe('The exact answer text; empty when the engine returned nothing usable.'),
    citations: z.array(Citation),
  });

  const AnswerRuns = z.object({
    ...windowed,
    question: z.object({ id: z.number().int(), text: z.string(), topic_id: z.number().int() }),
    runs: z.array(AnswerRun).describe('Newest first.'),
  });

  const EngineMove = z.object({
    engine: EngineValue,
    before: AnswerState.nullable(),
    now: AnswerState.nullable(),
    direction: z.enum(['gained', 'lost']),
    top_rival: z.string().nullable().describe('The rival this engine named most for the question in the latest window.'),
  });

  const AnswerHistory = z.object({
    ...windowed,
    previous_period: Period,
    counts: z.object({ won: z.number().int(), lost: z.number().int(), held: z.number().int() }),
    questions: z.array(
      z.object({
        question_id: z.number().int(),
        text: z.string(),
        topic_id: z.number().int(),
        outcome: Outcome,
        engines_naming_now: z.number().int(),
        engines_naming_before: z.number().int(),
        moved: z.array(EngineMove),
      }),
    ),
  });

  const TopicSummary = z.object({
    id: z.number().int(),
    name: z.string(),
    score: MaybePercent,
    change: Delta,
    rank: z.number().int().min(1).nullable().describe('Place of the brand among itself and its rivals by share of answers naming each; null when nothing answered.'),
    questions: z.number().int(),
    rivals: z.array(RivalShare).describe('Rivals AI names, most named first.'),
  });

  const TopicList = z.object({ ...windowed, topics: z.array(TopicSummary) });

  const TopicDetail = z.object({
    ...windowed,
    topic: TopicSummary,
    questions: z.array(
      z.object({
        id: z.number().int(),
        text: z.string(),
        engines: z.array(
          z.object({
            engine: EngineValue,
            latest: z.object({ ran_at: Timestamp, state: AnswerState, position: z.number().int().nullable(), text: z.string(), citations: z.array(Citation) }).nullable(),
          }),
        ),
      }),
    ),
    head_to_heads: z.array(
      z.object({
        rival: z.string(),
        both_named: z.number().int(),
        brand_only: z.number().int(),
        rival_only: z.number().int(),
        brand_ahead: z.number().int().describe('Runs naming both where the brand is listed first.'),
        rival_ahead: z.number().int(),
      }),
    ),
    top_sources: z.array(z.object({ domain: z.string(), citations: z.number().int(), classification: SourceClass })),
    history: z.array(WeeklyPoint).length(12),
    content_analysis: z.object({
      facts_compared: z.array(z.string()).describe('Facts AI compares when answering the topic.'),
      cited_pages_share: z.array(z.string()).describe('What the pages AI cites have in common.'),
      updated_on: Day,
    }),
  });

  return { BrandList, MarketList, QuestionList, Visibility, PromptMatrix, Citation, AnswerRun, AnswerRuns, AnswerHistory, TopicList, TopicDetail };
});
