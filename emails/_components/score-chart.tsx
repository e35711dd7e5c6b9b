/**
 * The 12-week chart built from table cells only: no image, no SVG, no CSS
 * that Gmail or Outlook drop. Each bar is a cell with a fixed height and a
 * background colour; every figure is also written as text above its bar, and
 * the text part gets a plain list instead (see `textOnly`).
 */
import { Section, Text } from '@react-email/components';
import type { ChartBar } from '../../src/weekly-report/model';
import { color, font, text, textOnly } from './theme';

/** Height in pixels of the tallest possible bar (100 %). Bars start at zero, so their heights compare honestly. */
export const CHART_HEIGHT = 90;

export function ScoreChart({ bars }: { bars: ChartBar[] }) {
  const tallest = Math.max(1, ...bars.map((b) => b.score ?? 0));
  // Scale to the tallest score rounded up to the next 10 points, never above 100.
  const top = Math.min(100, Math.ceil(tallest / 10) * 10);
  const cellWidth = `${(100 / Math.max(1, bars.length)).toFixed(2)}%`;
  return (
    <Section>
      <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} data-skip-in-text="true" style={{ borderCollapse: 'collapse', tableLayout: 'fixed' }}>
        <tbody>
          <tr>
            {bars.map((bar, i) => {
              const latest = i === bars.length - 1;
              const height = bar.score === null ? 2 : Math.max(2, Math.round((bar.score / top) * CHART_HEIGHT));
              return (
                <td key={bar.week_start} width={cellWidth} valign="bottom" style={{ padding: '0 2px', verticalAlign: 'bottom', textAlign: 'center', height: `${CHART_HEIGHT + 18}px` }}>
                  <div style={{ fontFamily: font.family, fontSize: '10px', lineHeight: '14px', color: latest ? color.ink : color.muted, fontWeight: latest ? 700 : 400 }}>
                    {bar.score === null ? '–' : bar.score.toFixed(1)}
                  </div>
                  <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ borderCollapse: 'collapse' }}>
                    <tbody>
                      <tr>
                        <td
                          height={height}
                          style={{
                            height: `${height}px`,
                            lineHeight: `${height}px`,
                            fontSize: 0,
                            backgroundColor: bar.score === null ? color.barEmpty : latest ? color.barLatest : color.bar,
                          }}
                        >
                          &nbsp;
                        </td>
                      </tr>
                    </tbody>
                  </table>
                </td>
              );
            })}
          </tr>
          <tr>
            {bars.map((bar) => (
              <td key={bar.week_start} style={{ padding: '4px 0 0', textAlign: 'center', fontFamily: font.family, fontSize: '10px', lineHeight: '12px', color: color.muted }}>
                {bar.label}
              </td>
            ))}
          </tr>
        </tbody>
      </table>
      <div style={textOnly}>
        {bars.map((bar) => (
          <Text key={bar.week_start} style={text.small}>
            {`Week from ${bar.label}: ${bar.score === null ? 'not measured' : `${bar.score.toFixed(1)}%`}`}
          </Text>
        ))}
      </div>
    </Section>
  );
}
