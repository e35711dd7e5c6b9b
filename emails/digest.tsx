/**
 * The weekly digest. Leads with what to act on, then the figures: the
 * visibility section and/or the won/lost section, by the subscription's kinds.
 * The HTML and the plain-text part are both rendered from this template
 * (src/digests/render.ts).
 */
import { Link, Section, Text } from '@react-email/components';
import { buildReport, formatChange, formatPeriod, formatScore, type Report, shortDay } from '../src/weekly-report/model';
import { EmailLayout, FooterLink } from './_components/layout';
import { QuestionList } from './_components/question-list';
import { ScoreChart } from './_components/score-chart';
import { color, text, textOnly } from './_components/theme';
import fixture from './_fixtures/brightdesk-us.json';
import type { ResponseOf } from '../src/contract/operations';

export interface DigestEmailProps {
  report: Report;
  links: {
    /** The signed report link, `/r/<token>`. */
    viewInBrowser: string;
    /** The signed unsubscribe page (also the RFC 8058 one-click target). */
    unsubscribe: string;
  };
}

const trendColor = (trend: string) => (trend === 'up' ? color.good : trend === 'down' ? color.bad : color.muted);

export function DigestEmail({ report, links }: DigestEmailProps) {
  const { visibility: vis, won_lost: wl } = report;
  const market = report.market.code.toUpperCase();
  return (
    <EmailLayout
      preview={report.lead.headline}
      heading={`${report.brand.name} in AI answers, week of ${report.week.label}`}
      footer={
        <>
          <Text style={text.small}>
            {`You get this weekly digest for ${report.brand.name} (${market}) because you subscribed to it. `}
            <FooterLink href={links.unsubscribe}>Unsubscribe</FooterLink>
            {' · '}
            <FooterLink href={links.viewInBrowser}>View in browser</FooterLink>
          </Text>
          <Text style={text.small}>{`Figures read ${report.generated_at.slice(0, 16).replace('T', ' ')} UTC.`}</Text>
        </>
      }
    >
      <Text style={text.small}>
        {`Market ${market} · figures for ${formatPeriod(report.period)} · `}
        <Link href={links.viewInBrowser} style={{ color: color.link }}>
          View in browser
        </Link>
      </Text>

      <Section style={{ backgroundColor: color.panel, padding: '12px 16px', margin: '8px 0 4px' }}>
        <Text style={{ ...text.body, margin: 0, fontWeight: 600 }}>{report.lead.headline}</Text>
      </Section>
      {report.empty === 'nothing_changed' ? (
        <Text style={text.small}>A quiet week: every change below is within its sampling noise. The next digest comes next Monday.</Text>
      ) : null}

      {vis ? (
        <Section>
          <Text style={text.h2}>Visibility</Text>
          <Text style={{ ...text.body, fontSize: '28px', lineHeight: '34px', margin: '0 0 4px', fontWeight: 700 }}>
            {formatScore(vis.score)}{' '}
            <span style={{ fontSize: '16px', color: trendColor(vis.trend) }}>{`(${formatChange(vis.change, vis.trend)})`}</span>
          </Text>
          <Text style={text.small}>
            {vis.score === null
              ? `No answered run in ${formatPeriod(report.period)}.`
              : `${vis.naming_runs} of ${vis.answered_runs} answers named ${report.brand.name}, ${shortDay(vis.period.from)} to ${shortDay(vis.period.to)}. ` +
                (vis.previous === null ? 'The week before was not measured.' : `Week before: ${formatScore(vis.previous)}.`) +
                (vis.noise !== null ? ` Changes under ${vis.noise.toFixed(1)} points are within sampling noise and shown as steady.` : '')}
          </Text>
          <Text style={{ ...text.small, margin: '12px 0 4px' }}>Score by week, last 12 weeks (oldest first)</Text>
          <ScoreChart bars={vis.history} />

          <Text style={text.h2}>Topics that moved most</Text>
          {report.topics.length === 0 ? (
            <Text style={text.small}>No topic has a comparison this week.</Text>
          ) : (
            report.topics.map((t) => (
              <Text key={t.id} style={{ ...text.body, margin: '0 0 6px' }}>
                {`${t.name}: ${formatScore(t.score)} `}
                <span style={{ color: trendColor(t.trend), fontWeight: 600 }}>{`(${formatChange(t.change, t.trend)})`}</span>
                {t.top_rival ? <span style={{ color: color.muted }}>{` · rival named most: ${t.top_rival}`}</span> : null}
              </Text>
            ))
          )}
        </Section>
      ) : null}

      {wl ? (
        <Section>
          <Text style={text.h2}>Won and lost questions</Text>
          <Text style={text.body}>
            <span style={{ color: color.good, fontWeight: 700 }}>{`${wl.counts.won} won`}</span>
            {' · '}
            <span style={{ color: color.bad, fontWeight: 700 }}>{`${wl.counts.lost} lost`}</span>
            {` · ${wl.counts.held} held`}
          </Text>
          <Text style={text.small}>{`Engines naming ${report.brand.name}, ${shortDay(wl.period.from)}–${shortDay(wl.period.to)} against ${shortDay(wl.previous_period.from)}–${shortDay(wl.previous_period.to)}.`}</Text>
          <Text style={{ ...text.body, fontWeight: 700, margin: '12px 0 6px', color: color.bad }}>Lost</Text>
          <QuestionList questions={wl.lost.slice(0, 10)} outcome="lost" total={wl.counts.lost} />
          <Text style={{ ...text.body, fontWeight: 700, margin: '12px 0 6px', color: color.good }}>Won</Text>
          <QuestionList questions={wl.won.slice(0, 10)} outcome="won" total={wl.counts.won} />
        </Section>
      ) : null}

      <div style={textOnly}>
        <Text style={text.small}>{`View in browser: ${links.viewInBrowser}`}</Text>
        <Text style={text.small}>{`Unsubscribe: ${links.unsubscribe}`}</Text>
      </div>
    </EmailLayout>
  );
}

/** The demo brand's real figures (demo_pro_single, market us), as read from the reference origin. */
DigestEmail.PreviewProps = {
  report: buildReport({
    brand: fixture.brand,
    week: { isoWeek: '2026-W48', monday: '2026-11-23' },
    kinds: ['visibility', 'won_lost'],
    visibility: fixture.visibility as ResponseOf<'getVisibility'>,
    history: fixture.history as ResponseOf<'getAnswerHistory'>,
    topics: fixture.topics as ResponseOf<'listTopics'>,
  }),
  links: { viewInBrowser: 'http://localhost:8787/r/preview-token', unsubscribe: 'http://localhost:8787/digests/unsubscribe?token=preview-token' },
} satisfies DigestEmailProps;

export default DigestEmail;
