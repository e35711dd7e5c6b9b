/**
 * Response bodies of the insight, task, perception, traffic and overview
 * operations (DESIGN sections 3 and 4): snake_case, percentages 0 to 100 with
 * one decimal, null when not measured; every body names its brand, market,
 * window where it has one, and when it was computed.
 */
import * as z from 'zod';
import { once } from '../../lib/lazy';
import { enumSchemas } from './enums';
import { commonSchemas } from './common';

/** Built at first use: a cache HIT needs none of them (src/contract/operations.ts). */
export const insightSchemas = once(() => {
  const { ActivityCategoryValue, ContentAction, EngineValue, SourceClass, TaskLayerValue, TaskStatusValue } = enumSchemas();
  const { brandScope, Day, Delta, MaybePercent, Percent, Period, Timestamp, windowed } = commonSchemas();

  const Count = z.number().int().min(0);
  /** A change in a count against the previous period; negative when it fell. */
  const CountChange = z.number().int();
  const Position = z.number().min(1).nullable().describe("Mean 1-based rank in the answer's list where named; null when never named.");
  const TopicRef = z.object({ id: z.number().int(), name: z.string() });

  // ---------------------------------------------------------------- /content-gaps

  const ContentGaps = z.object({
    ...windowed,
    counts: z.object({ write: Count, improve: Count, leave: Count }),
    questions: z.array(
      z.object({
        question_id: z.number().int(),
        text: z.string(),
        topic: TopicRef,
        page: z.object({ url: z.string(), title: z.string() }).nullable().describe("The brand's own page answering this question; null when it has none."),
        has_page: z.boolean(),
        page_citations: Count.describe('Runs of this question in the window that cite the page.'),
        cited: z.boolean().describe('Whether AI cited the page for this question in the window.'),
        visibility: MaybePercent.describe('Share of answered runs of the question naming the brand.'),
        action: ContentAction,
      }),
    ),
  });

  // ---------------------------------------------------------------- /sources

  const SourceList = z.object({
    ...windowed,
    total_citations: Count.describe('Citations of every domain in the window, before `limit`.'),
    domains_cited: Count,
    by_class: z.object({ own: Count, competitor: Count, third_party: Count }).describe('Citations per classification, over every domain.'),
    sources: z.array(
      z.object({
        domain: z.string(),
        citations: Count,
        share: Percent.describe('Share of all citations in the window.'),
        classification: SourceClass,
        rival: z.string().nullable().describe('The rival owning the domain, for `competitor`.'),
      }),
    ),
  });

  // ---------------------------------------------------------------- /pages

  const EngineCitations = z.object({ engine: EngineValue, citations: Count, previous_citations: Count });

  const PageList = z.object({
    ...windowed,
    previous_period: Period,
    totals: z.object({ citations: Count, previous_citations: Count, change: CountChange }),
    pages: z.array(
      z.object({
        url: z.string(),
        title: z.string().nullable().describe('Title when the page is known to the service.'),
        topic: TopicRef.nullable(),
        citations: Count,
        previous_citations: Count,
        change: CountChange,
        by_engine: z.array(EngineCitations),
        by_topic: z.array(TopicRef.extend({ citations: Count, previous_citations: Count })),
      }),
    ),
    by_engine: z.array(EngineCitations),
    by_topic: z.array(TopicRef.extend({ citations: Count, previous_citations: Count, change: CountChange })),
    uncited: z
      .array(
        z.object({
          url: z.string(),
          title: z.string(),
          topic: TopicRef,
          cited_instead: z.array(z.object({ url: z.string(), domain: z.string(), classification: SourceClass, citations: Count })),
        }),
      )
      .describe("The brand's topic pages no answer cited in the window, with what answers of that topic cited instead."),
  });

  // ---------------------------------------------------------------- /competitors/{name}

  const CompetitorDetail = z.object({
    ...windowed,
    competitor: z.object({ name: z.string(), domain: z.string() }),
    overall: z.object({
      answered_runs: Count,
      rival_share: MaybePercent.describe('Share of answered runs naming the rival.'),
      brand_share: MaybePercent.describe('Share of answered runs naming the brand.'),
      both_named: Count,
    }),
    topics_won: z.array(
      TopicRef.extend({
        rival_share: Percent,
        brand_share: Percent,
        margin: z.number().describe("Points by which the rival's share exceeds the brand's."),
      }),
    ),
    questions_won: z.array(
      z.object({
        question_id: z.number().int(),
        text: z.string(),
        topic_id: z.number().int(),
        rival_runs: Count,
        brand_runs: Count,
        answered_runs: Count,
        engines: z.array(EngineValue).describe('Engines that named the rival but never the brand for this question.'),
        what_ai_said: z.object({ engine: EngineValue, ran_at: Timestamp, text: z.string() }).nullable().describe('The latest answer naming the rival and not the brand.'),
      }),
    ),
    cited_pages: z.array(z.object({ url: z.string(), title: z.string().nullable(), citations: Count })),
  });

  // ---------------------------------------------------------------- /activity

  const ActivityList = z.object({
    ...brandScope,
    entries: z.array(z.object({ id: z.number().int(), category: ActivityCategoryValue, title: z.string(), detail: z.string(), occurred_at: Timestamp })),
  });

  // ---------------------------------------------------------------- /tasks

  const Effort = z.enum(['low', 'medium', 'high']);
  const TaskSummary = z.object({
    id: z.number().int(),
    title: z.string(),
    layer: TaskLayerValue,
    status: TaskStatusValue,
    expected_gain: z.number().min(0).describe('Expected gain in visibility points.'),
    effort: Effort,
    topics: z.array(TopicRef),
    created_at: Timestamp,
    updated_at: Timestamp,
  });
  const LayerCounts = z.object({ content: Count, technical: Count, authority: Count, brand: Count });

  const TaskList = z.object({
    ...brandScope,
    filter: z.object({ layer: TaskLayerValue.nullable(), status: TaskStatusValue }),
    open_counts: LayerCounts.describe('Open tasks per layer, whatever the filter.'),
    matching: Count.describe('Tasks matching the filter, before `limit`.'),
    tasks: z.array(TaskSummary),
  });

  const TaskDetail = z.object({
    ...brandScope,
    task: TaskSummary.omit({ topics: true }).extend({
      why: z.string().describe('Why it matters.'),
      steps: z.array(z.string()),
      evidence: z.array(z.object({ kind: z.string(), text: z.string(), url: z.string().nullable() })),
      topics: z.array(TopicRef.extend({ score: MaybePercent.describe("The brand's visibility in the topic over the trailing 7 days.") })),
    }),
  });

  // ---------------------------------------------------------------- /brand-perception

  const PerceptionPoint = z.object({ week_start: Day, knows_brand: z.boolean(), recommends: z.boolean(), sentiment: z.number().min(-1).max(1) });

  const BrandPerception = z.object({
    ...windowed,
    summary: z.object({
      engines_measured: Count,
      engines_knowing: Count,
      engines_recommending: Count,
      recommend_rate: MaybePercent.describe('Share of measured engines that would recommend the brand.'),
    }),
    engines: z.array(
      z.object({
        engine: EngineValue,
        as_of: Day.nullable().describe('Start of the latest perception week overlapping the period; null when none was measured.'),
        knows_brand: z.boolean().nullable(),
        recommends: z.boolean().nullable(),
        sentiment: z.number().min(-1).max(1).nullable(),
        gets_right: z.array(z.string()),
        gets_wrong: z.array(z.string()),
        history: z.array(PerceptionPoint).describe('Up to 12 weekly points starting on or before `period.to`, oldest first.'),
      }),
    ),
  });

  const PerceptionTranscript = z.object({
    ...brandScope,
    engine: EngineValue.nullable().describe('The engine asked for; null for all.'),
    transcripts: z.array(z.object({ id: z.number().int(), engine: EngineValue, asked_at: Timestamp, prompt: z.string(), answer: z.string() })).describe('Newest first, untruncated.'),
  });

  // ---------------------------------------------------------------- /forum

  const ForumSignals = z.object({
    ...windowed,
    topics: z.array(
      TopicRef.extend({
        threads_total: Count.describe('Threads in the window before `limit`.'),
        threads_cited: Count,
        threads: z.array(
          z.object({
            id: z.number().int(),
            url: z.string(),
            title: z.string(),
            forum: z.string(),
            posted_on: Day,
            replies: Count,
            ai_citations: Count,
            cited: z.boolean(),
          }),
        ),
        summary: z.object({ week_start: Day, text: z.string() }).nullable().describe('The latest weekly summary starting on or before `period.to`.'),
      }),
    ),
  });

  // ---------------------------------------------------------------- /search-performance

  const SearchPerformance = z.object({
    ...windowed,
    dimension: z.enum(['query', 'page']),
    totals: z.object({ clicks: Count, impressions: Count, rows: Count, search_only: Count.describe('Rows that rank in search but no answer cited.') }),
    rows: z.array(
      z.object({
        key: z.string().describe('The search query or the page URL, after `dimension`.'),
        clicks: Count,
        impressions: Count,
        ctr: MaybePercent,
        position: z.number().min(1).describe('Impression-weighted mean search position.'),
        pages: z.array(z.string()).describe('Landing pages (query rows) or the page itself.'),
        ai_citations: Count.describe('Answers in the window citing these pages.'),
        search_only: z.boolean().describe('Ranks in search, never cited by AI in the window.'),
      }),
    ),
  });

  // ---------------------------------------------------------------- /ai-crawlers, /ai-visitors

  const AiCrawlers = z.object({
    ...windowed,
    total_hits: Count,
    previous_hits: Count,
    days_with_hits: Count,
    bots: z.array(z.object({ bot: z.string(), hits: Count, share: Percent, pages: Count, last_seen: Day })),
    pages: z.array(z.object({ url: z.string(), hits: Count, bots: z.array(z.object({ bot: z.string(), hits: Count })) })),
  });

  const AiVisitors = z.object({
    ...windowed,
    total_visits: Count,
    previous_visits: Count,
    change: CountChange,
    assistants: z.array(z.object({ assistant: z.string(), visits: Count, share: Percent, pages: Count })),
    pages: z.array(z.object({ url: z.string(), visits: Count, assistants: z.array(z.object({ assistant: z.string(), visits: Count })) })),
  });

  // ---------------------------------------------------------------- /overview

  /** A part of the overview that the plan may not include. */
  const NotInPlan = z.object({ included: z.literal(false), reason: z.literal('not_in_plan'), message: z.string() });
  const planned = <T extends z.ZodRawShape>(shape: T) => z.discriminatedUnion('included', [z.object({ included: z.literal(true), ...shape }), NotInPlan]);

  const Standing = z.object({
    name: z.string(),
    visibility: MaybePercent.describe('Share of answered runs naming it.'),
    share_of_voice: MaybePercent,
    position: Position,
    citations: Count.describe('Citations of its domains.'),
  });

  const Overview = z.object({
    ...windowed,
    previous_period: Period,
    visibility: z.object({ score: MaybePercent, change: Delta, answered_runs: Count, naming_runs: Count }),
    share_of_voice: z.object({ share: MaybePercent, change: Delta, brand_mentions: Count, rival_mentions: Count }),
    competition: z.object({
      brand: Standing,
      rivals: z.array(Standing).describe('Up to 3 rivals AI named most in the period, most named first; rivals never named are left out.'),
      daily: z.array(z.object({ day: Day, brand: Standing, rivals: z.array(Standing) })),
    }),
    perception: planned({
      engines_measured: Count,
      engines_knowing: Count,
      engines_recommending: Count,
      recommend_rate: MaybePercent,
      engines: z.array(z.object({ engine: EngineValue, knows_brand: z.boolean().nullable(), recommends: z.boolean().nullable() })),
    }),
    cited_pages: z.array(z.object({ url: z.string(), title: z.string().nullable(), citations: Count, previous_citations: Count, change: CountChange })),
    topics: z.array(TopicRef.extend({ score: MaybePercent, change: Delta, rank: z.number().int().min(1).nullable() })).describe('Weakest first; topics with nothing measured last.'),
    ai_traffic: planned({
      visits: Count,
      previous_visits: Count,
      top_assistants: z.array(z.object({ assistant: z.string(), visits: Count })),
      crawler_hits: Count.nullable().describe('Null when no crawler integration (edge network or tracking script) is connected.'),
    }),
    readiness: z.object({
      score: MaybePercent.describe('100 x sum(weight x value) / sum(weight) over the stored signals; null when none is stored.'),
      signals: z.array(z.object({ signal: z.string(), value: Percent, weight: z.number().min(0), note: z.string() })),
    }),
    tasks: planned({ open_counts: LayerCounts, open_total: Count }),
  });

  return {
    ContentGaps,
    SourceList,
    PageList,
    CompetitorDetail,
    ActivityList,
    TaskList,
    TaskDetail,
    BrandPerception,
    PerceptionTranscript,
    ForumSignals,
    SearchPerformance,
    AiCrawlers,
    AiVisitors,
    Overview,
  };
});
