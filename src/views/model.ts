/**
 * The views people come for besides the weekly report (issue 45 item 4), as
 * JSON a page, a share link and a sheet read alike: rivals, citations, how AI
 * describes the brand, and AI traffic. Each part is read from one operation;
 * a part the plan or the service does not provide is one line saying so
 * (`NotProvided`), never an error.
 */
import type { OperationId } from '../contract/operations';

export const VIEW_KINDS = ['rivals', 'citations', 'perception', 'traffic'] as const;
export type ViewKind = (typeof VIEW_KINDS)[number];

/** A CSV table of a view: the operation read and its parameters besides the brand and market. */
export interface ViewTable {
  id: string;
  label: string;
  /** The view's part the table holds the rows of (`windows.0`): no CSV link where it is not provided. */
  part: string;
  operation: OperationId;
  params: Record<string, string>;
}

/** Each view's name (a link's `title`, a heading's words after the brand's), what it shows in one line, and its tables as CSV links. */
export const VIEWS: Record<ViewKind, { title: string; heading: string; says: string; tables: readonly ViewTable[] }> = {
  rivals: {
    title: 'Rivals',
    heading: 'rivals',
    says: 'Share of voice against the top rivals over 28 and 90 days, per day, and head to head.',
    tables: [
      { id: 'daily_28', label: 'share of voice per day, last 28 days', part: 'windows.0', operation: 'getOverview', params: { days: '28' } },
      { id: 'daily_90', label: 'share of voice per day, last 90 days', part: 'windows.1', operation: 'getOverview', params: { days: '90' } },
    ],
  },
  citations: {
    title: 'Citations',
    heading: 'citations',
    says: 'The sources AI cites by kind, your pages it cites against the previous period, and what it cites instead of the others.',
    tables: [
      { id: 'sources', label: 'the domains AI cites', part: 'sources', operation: 'listSources', params: {} },
      { id: 'pages', label: 'your pages AI cites', part: 'pages', operation: 'listPages', params: {} },
    ],
  },
  perception: {
    title: 'How AI describes you',
    heading: 'how AI describes it',
    says: 'Per engine: whether AI knows the brand, would recommend it, and what it gets right and wrong.',
    tables: [{ id: 'engines', label: 'how each engine describes the brand', part: 'perception', operation: 'getBrandPerception', params: {} }],
  },
  traffic: {
    title: 'AI traffic',
    heading: 'AI traffic',
    says: 'The AI crawlers that read your site, and the visitors AI assistants send.',
    tables: [
      { id: 'crawlers', label: 'AI crawlers', part: 'crawlers', operation: 'getAiCrawlers', params: {} },
      { id: 'visitors', label: 'AI visitors', part: 'visitors', operation: 'getAiVisitors', params: {} },
    ],
  },
};

/** Whether the view holds the part `table` reads (`windows.0`): provided by the plan and the service. */
export function tableProvided(view: View, table: ViewTable): boolean {
  const part = table.part.split('.').reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), view);
  return part !== null && typeof part === 'object' && (part as { provided?: unknown }).provided === true;
}

export const isViewKind = (kind: string): kind is ViewKind => (VIEW_KINDS as readonly string[]).includes(kind);

/** A part the plan or the service does not provide: the one line a person reads instead. */
export interface NotProvided {
  provided: false;
  /** `not_in_plan` (403), `integration_not_connected` (409), `missing` (the service has no such operation), `unreadable`. */
  reason: 'not_in_plan' | 'integration_not_connected' | 'missing' | 'unreadable';
  line: string;
}
export type Part<T> = ({ provided: true } & T) | NotProvided;

export interface Period {
  from: string;
  to: string;
}

export interface Standing {
  name: string;
  is_brand: boolean;
  visibility: number | null;
  share_of_voice: number | null;
  position: number | null;
  citations: number;
}

export interface RivalsWindow {
  days: number;
  period: Period;
  /** The brand first, then up to 3 rivals, most named first. */
  standings: Standing[];
  /** Share of voice per day, by name (the brand's and each rival's of `standings`), oldest first. */
  daily: { day: string; share_of_voice: Record<string, number | null> }[];
}

export interface HeadToHead {
  name: string;
  domain: string;
  rival_share: number | null;
  brand_share: number | null;
  answered_runs: number;
  /** Questions where more answers name the rival than the brand. */
  questions_won: number;
  /** Topics where the rival's share is above the brand's, by margin in points. */
  topics_won: { name: string; margin: number }[];
}

export interface ViewHead {
  brand: { id: number; name: string };
  market: { id: number; code: string };
  read_at: string;
}

export interface RivalsView extends ViewHead {
  kind: 'rivals';
  windows: Part<RivalsWindow>[];
  /** The top rivals of 28 days, over the trailing 7 days. */
  head_to_heads: Part<{ period: Period; rivals: HeadToHead[] }>;
}

export interface CitationsView extends ViewHead {
  kind: 'citations';
  sources: Part<{
    period: Period;
    total_citations: number;
    by_class: { own: number; competitor: number; third_party: number };
    domains: { domain: string; citations: number; share: number; classification: string; rival: string | null }[];
  }>;
  pages: Part<{
    period: Period;
    previous_period: Period;
    totals: { citations: number; previous_citations: number; change: number };
    pages: { url: string; title: string | null; citations: number; previous_citations: number; change: number }[];
    uncited: { url: string; title: string; topic: string; cited_instead: { url: string; domain: string; classification: string; citations: number }[] }[];
  }>;
}

export interface PerceptionView extends ViewHead {
  kind: 'perception';
  perception: Part<{
    period: Period;
    summary: { engines_measured: number; engines_knowing: number; engines_recommending: number; recommend_rate: number | null };
    engines: {
      engine: string;
      engine_label: string;
      as_of: string | null;
      knows_brand: boolean | null;
      recommends: boolean | null;
      sentiment: number | null;
      gets_right: string[];
      gets_wrong: string[];
    }[];
  }>;
}

export interface TrafficView extends ViewHead {
  kind: 'traffic';
  crawlers: Part<{
    period: Period;
    total_hits: number;
    previous_hits: number;
    bots: { bot: string; hits: number; share: number; pages: number; last_seen: string }[];
    pages: { url: string; hits: number }[];
  }>;
  visitors: Part<{
    period: Period;
    total_visits: number;
    previous_visits: number;
    change: number;
    assistants: { assistant: string; visits: number; share: number; pages: number }[];
    pages: { url: string; visits: number }[];
  }>;
}

export type View = RivalsView | CitationsView | PerceptionView | TrafficView;

/** Rows a page shows of a long list; the CSV has them all. */
export const SHOWN_ROWS = 10;
