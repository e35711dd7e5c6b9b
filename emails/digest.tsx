/**
 * The weekly digest, written for a reader who gives it ten seconds: the lead
 * (the one change that matters), the score with its change, "This week" (the
 * plan's first three items: what to do about the questions lost), the
 * 12-week chart, each engine's figures, the 3 to 5 questions that moved most,
 * and a button to the full report. A quiet week is said once, in the lead. A part
 * the Read API does not provide leaves its section out, with one line saying
 * so in its place (`Report.not_provided`). The HTML and the plain-text part
 * are both rendered from this template (src/mail/render.ts); each link
 * appears once in the text part.
 */
import { Link } from '@react-email/link';
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import type { ResponseOf } from '../src/contract/operations';
import { buildReport, notProvidedIn, type PlanInputs, type Report } from '../src/weekly-report/model';
import { formatCount, formatPercent, formatStamp, formatTrend, scoreNote } from '../src/weekly-report/words';
import { EngineTable } from './_components/engine-table';
import { ActionButton, EmailLayout, FooterLink, H2, P, Small } from './_components/layout';
import { PlanList } from './_components/plan-list';
import { QuestionList } from './_components/question-list';
import { ScoreChart } from './_components/score-chart';
import { cls, color, text } from './_components/theme';
import fixture from './_fixtures/brightdesk-us.json';

export interface DigestEmailProps {
  report: Report;
  links: {
    /** The signed report link, `/r/<token>`. */
    viewInBrowser: string;
    /** The signed unsubscribe page (also the RFC 8058 one-click target). */
    unsubscribe: string;
  };
  /** Plan items shown under "This week": `PLAN_SHOWN` in the email; all of them in the report's text form. */
  planShown?: number;
}

/** Plan items the digest shows; the report shows them all. */
export const PLAN_SHOWN = 3;

/** The preview text (what an inbox shows after the subject, its first 90 characters or so): the plan's first item, then the lead. */
export const previewOf = (report: Report): string => {
  const first = report.plan?.items[0];
  return first ? `This week: ${first.headline} ${report.lead.headline}` : report.lead.headline;
};

const trendClass = (trend: string) => (trend === 'up' ? cls.good : trend === 'down' ? cls.bad : cls.muted);
const trendColor = (trend: string) => (trend === 'up' ? color.good : trend === 'down' ? color.bad : color.muted);

export function DigestEmail({ report, links, planShown = PLAN_SHOWN }: DigestEmailProps) {
  const { visibility: vis, won_lost: wl, plan } = report;
  const brand = report.brand.name;
  const market = report.market.code.toUpperCase();
  const measured = report.empty !== 'nothing_measured';
  const changed = measured && wl ? wl.counts.won + wl.counts.lost : 0;
  const shown = measured && wl ? [...wl.top_lost, ...wl.top_won] : [];
  // The table when it says something: counts per engine, or a change on one of them; else one line.
  const engineFigures = report.engines.some((e) => e.naming !== null || (e.change !== null && e.gained! + e.lost! > 0));
  const engineChanges = report.engines.some((e) => e.change !== null);
  const withoutHistory = notProvidedIn(report, 'history');
  const withoutEngines = notProvidedIn(report, 'per_engine');
  const withoutMoves = notProvidedIn(report, 'moved');
  return (
    <EmailLayout
      title={report.subject}
      preview={previewOf(report)}
      heading={`${brand} in AI answers`}
      subheading={
        <>
          {`${report.period_label} · market ${market}`}
          <span data-skip-in-text="true">
            {' · '}
            <Link href={links.viewInBrowser} className={cls.link} style={{ color: color.link, textDecoration: 'underline' }}>
              View in browser
            </Link>
          </span>
        </>
      }
      footer={
        <>
          <Small>
            {`You get this weekly digest for ${brand} (${market}) because you subscribed to it. `}
            <FooterLink href={links.unsubscribe}>Unsubscribe</FooterLink>
          </Small>
          <Small>{`Figures read ${formatStamp(report.generated_at)}.`}</Small>
        </>
      }
    >
      <Section className={cls.panel} style={{ backgroundColor: color.panel, padding: '12px 16px', margin: '0 0 4px' }}>
        <Text className={cls.ink} style={{ ...text.body, margin: 0, fontWeight: 600 }}>
          {report.lead.headline}
        </Text>
      </Section>

      {measured && vis ? (
        <Section>
          <H2>AI visibility</H2>
          <Text className={cls.ink} style={{ ...text.body, fontSize: '32px', lineHeight: '38px', margin: '0 0 2px', fontWeight: 700 }}>
            {formatPercent(vis.score)}{' '}
            <span className={trendClass(vis.trend)} style={{ fontSize: '17px', fontWeight: 600, color: trendColor(vis.trend) }}>
              {formatTrend(vis.change, vis.trend)}
            </span>
          </Text>
          <Small style={{ margin: '0 0 16px' }}>{scoreNote(vis, brand, report.period_label)}</Small>
        </Section>
      ) : null}

      {measured && plan ? (
        <Section>
          <H2>This week</H2>
          {plan.items.length === 0 ? (
            <P>{`No question was lost this week, and none won is still weak: nothing to win back.`}</P>
          ) : (
            <>
              <PlanList items={plan.items.slice(0, planShown)} />
              <Small style={{ margin: '0 0 8px' }}>{`${plan.ranking}${plan.items.length > planShown ? ` ${formatCount(plan.items.length - planShown)} more in the full report.` : ''}`}</Small>
            </>
          )}
          {plan.lines.map((line) => (
            <Small key={line}>{line}</Small>
          ))}
        </Section>
      ) : null}

      {measured && vis ? (
        <Section>
          {withoutHistory ? (
            <Small>{withoutHistory}</Small>
          ) : (
            <>
              <Small skipInText style={{ margin: '16px 0 6px' }}>
                Score by week, last 12 weeks
              </Small>
              <ScoreChart bars={vis.history} scale={vis.scale} />
            </>
          )}
        </Section>
      ) : null}

      {measured && (engineFigures || engineChanges || withoutEngines) ? (
        <Section>
          <H2>By engine</H2>
          {engineFigures ? (
            <EngineTable engines={report.engines} brand={brand} />
          ) : engineChanges ? (
            <Small>{`No change on any of the ${report.engines.length} engines: none started or stopped naming ${brand} for a question.`}</Small>
          ) : null}
          {withoutEngines ? <Small style={{ margin: '10px 0 0' }}>{withoutEngines}</Small> : null}
        </Section>
      ) : null}

      {measured && wl ? (
        <Section>
          <H2>Questions lost and won</H2>
          {changed === 0 ? (
            <P>{`All ${formatCount(wl.counts.held)} questions held: each is named by as many engines as the week before.`}</P>
          ) : (
            <>
              <P style={{ margin: '0 0 4px' }}>
                <span className={cls.bad} style={{ color: color.bad, fontWeight: 700 }}>{`${formatCount(wl.counts.lost)} lost`}</span>
                {' · '}
                <span className={cls.good} style={{ color: color.good, fontWeight: 700 }}>{`${formatCount(wl.counts.won)} won`}</span>
                {` · ${formatCount(wl.counts.held)} held`}
              </P>
              <Small style={{ margin: '0 0 14px' }}>{`Won: more engines name ${brand} for the question than the week before; lost: fewer; held: as many.`}</Small>
              {withoutMoves ? <Small style={{ margin: '0 0 14px' }}>{withoutMoves}</Small> : null}
              <QuestionList questions={shown} engineCount={report.engines.length} />
            </>
          )}
        </Section>
      ) : null}

      <ActionButton href={links.viewInBrowser}>
        {plan && plan.items.length > planShown
          ? `See the whole plan and all ${formatCount(changed)} changed questions`
          : changed > shown.length
            ? `See all ${formatCount(changed)} changed questions`
            : 'Open the full report'}
      </ActionButton>
    </EmailLayout>
  );
}

/**
 * The demo brand's real bodies (demo_pro_single, market us, read from the
 * reference origin on 23 Nov 2026, `/prompts` included), under a long brand
 * name and with links as long as real signed ones, so the preview shows what
 * wraps. For the preview server and the tests only: a production build
 * (`wrangler deploy` sets NODE_ENV) leaves it out, and the fixture with it.
 */
if (process.env.NODE_ENV !== 'production')
  DigestEmail.PreviewProps = {
    report: buildReport({
      brand: { id: fixture.brand.id, name: 'Brightdesk Customer Service Cloud for Enterprise Teams' },
      week: { isoWeek: '2026-W48', monday: '2026-11-23' },
      kinds: ['visibility', 'won_lost'],
      visibility: fixture.visibility as ResponseOf<'getVisibility'>,
      history: fixture.history as ResponseOf<'getAnswerHistory'>,
      topics: fixture.topics as ResponseOf<'listTopics'>,
      matrix: fixture.matrix as ResponseOf<'getPromptMatrix'>,
      plan: fixture.plan as PlanInputs,
    }),
    links: {
      viewInBrowser: `https://edge.example.com/r/v1.${'eyJwIjoicmVwb3J0IiwiYiI6MSwibSI6InVzIiwiayI6IndlZWtseSJ9'.repeat(6)}.${'Q2xhaW1zU2lnbmF0dXJl'.repeat(2)}`,
      unsubscribe: `https://edge.example.com/digests/unsubscribe?token=v1.${'eyJwIjoidW5zdWJzY3JpYmUiLCJzIjoic3ViXzEifQ'.repeat(8)}.${'U2lnbmF0dXJlQmFzZTY0'.repeat(2)}`,
    },
  } satisfies DigestEmailProps;

export default DigestEmail;
