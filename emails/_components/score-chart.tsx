/**
 * The 12-week chart, built from table cells only: no image, no SVG, no CSS
 * that Gmail or Outlook drop. Each week is a column: a light track the height
 * of the chart with a mark at the week's score, so it reads like a line
 * chart. The scale (`VisibilitySection.scale`) starts near the lowest score,
 * not at zero, and its two ends are written on the left: a 3-point move is a
 * third of the chart or more, a change within the noise looks flat. Marks,
 * not bars, because a bar cut off at 48% would overstate the difference.
 *
 * Only two dates label the columns (the first week and the latest), so
 * nothing collides at 375 px. The figures are in the table's `aria-label`
 * for screen readers, and in one line of the text part.
 */
import { Section } from '@react-email/section';
import { Text } from '@react-email/text';
import type { ChartBar } from '../../src/weekly-report/model';
import { formatDay, formatPercent, formatRange } from '../../src/weekly-report/words';
import { cls, color, font, text, textOnly } from './theme';

/** Height in pixels of the chart's plot. */
export const CHART_HEIGHT = 96;
/** Height in pixels of a week's mark. */
const MARK = 6;

const cellText = { fontFamily: font.family, fontSize: '11px', lineHeight: '14px', color: color.muted } as const;

/** Pixels from the top of the plot to the mark of `score`. */
function markTop(score: number, scale: { floor: number; top: number }): number {
  const share = (Math.min(scale.top, Math.max(scale.floor, score)) - scale.floor) / (scale.top - scale.floor);
  return Math.round((1 - share) * (CHART_HEIGHT - MARK));
}

function Block({ height, className, background }: { height: number; className: string; background: string }) {
  if (height <= 0) return null;
  return (
    <tr>
      <td
        className={className}
        height={height}
        style={{ height: `${height}px`, lineHeight: `${height}px`, fontSize: 0, msoLineHeightRule: 'exactly', backgroundColor: background } as React.CSSProperties}
      >
        &nbsp;
      </td>
    </tr>
  );
}

export function ScoreChart({ bars, scale }: { bars: ChartBar[]; scale: { floor: number; top: number } }) {
  const first = bars[0];
  const last = bars.at(-1);
  const span = first && last ? `last ${bars.length} weeks (${formatRange({ from: first.week_start, to: last.week_end })})` : '';
  const figures = bars.map((b) => formatPercent(b.score)).join(', ');
  const half = Math.ceil(bars.length / 2);
  return (
    <Section>
      <table
        role="img"
        aria-label={`Score by week, ${span}: ${figures}. Scale ${scale.floor}% to ${scale.top}%.`}
        width="100%"
        cellPadding={0}
        cellSpacing={0}
        data-skip-in-text="true"
        style={{ borderCollapse: 'collapse', tableLayout: 'fixed', width: '100%' }}
      >
        <tbody>
          <tr>
            <td width={40} valign="top" className={cls.muted} style={{ ...cellText, width: '40px', height: `${CHART_HEIGHT}px`, verticalAlign: 'top', textAlign: 'right', padding: '0 6px 0 0' }}>
              <div style={{ height: `${CHART_HEIGHT - 14}px` }}>{`${scale.top}%`}</div>
              <div>{`${scale.floor}%`}</div>
            </td>
            {bars.map((bar, i) => {
              const latest = i === bars.length - 1;
              const top = bar.score === null ? CHART_HEIGHT : markTop(bar.score, scale);
              const below = bar.score === null ? 0 : CHART_HEIGHT - MARK - top;
              return (
                <td key={bar.week_start} valign="bottom" style={{ padding: '0 3px', verticalAlign: 'bottom' }}>
                  <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ borderCollapse: 'collapse', width: '100%' }}>
                    <tbody>
                      <Block height={top} className={cls.track} background={color.track} />
                      {bar.score === null ? null : <Block height={MARK} className={latest ? cls.markLatest : cls.mark} background={latest ? color.markLatest : color.mark} />}
                      <Block height={below} className={cls.track} background={color.track} />
                    </tbody>
                  </table>
                </td>
              );
            })}
          </tr>
          <tr>
            <td style={{ width: '40px' }} />
            <td colSpan={half} className={cls.muted} style={{ ...cellText, padding: '4px 0 0 2px', textAlign: 'left' }}>
              {first ? formatDay(first.week_start) : ''}
            </td>
            <td colSpan={bars.length - half} className={cls.muted} style={{ ...cellText, padding: '4px 2px 0 0', textAlign: 'right' }}>
              {last ? formatDay(last.week_start) : ''}
            </td>
          </tr>
        </tbody>
      </table>
      <div style={textOnly}>
        <Text style={text.small}>{`Score by week, ${span}: ${figures}.`}</Text>
      </div>
    </Section>
  );
}
