/**
 * Per-engine figures (`Report.engines`): for each of the engines, the
 * questions whose usual answer names the brand (when `/prompts` was read) and
 * the change against the week before, in questions (when the service says
 * which engines moved each question). A real table with header cells in
 * HTML; one line per engine in the text part.
 */
import { Text } from '@react-email/text';
import type { EngineFigures } from '../../src/weekly-report/model';
import { formatCount, formatSigned } from '../../src/weekly-report/words';
import { cls, color, font, text, textOnly } from './theme';

const cell = { fontFamily: font.family, fontSize: '14px', lineHeight: '20px', color: color.ink, padding: '6px 0', borderBottom: `1px solid ${color.rule}` } as const;
const head = { ...cell, fontSize: '12px', lineHeight: '16px', color: color.muted, fontWeight: 400, padding: '0 0 4px' } as const;

const changeWords = (n: number) => (n === 0 ? 'no change' : formatSigned(n));
const changeClass = (n: number) => (n > 0 ? cls.good : n < 0 ? cls.bad : cls.muted);
const changeColor = (n: number) => (n > 0 ? color.good : n < 0 ? color.bad : color.muted);

export function EngineTable({ engines, brand }: { engines: EngineFigures[]; brand: string }) {
  const withCounts = engines.some((e) => e.naming !== null);
  const withChanges = engines.some((e) => e.change !== null);
  return (
    <>
      <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} data-skip-in-text="true" style={{ borderCollapse: 'collapse', width: '100%' }}>
        <thead>
          <tr>
            <th className={`${cls.muted} ${cls.rule}`} style={{ ...head, textAlign: 'left' }}>
              Engine
            </th>
            {withCounts ? (
              <th className={`${cls.muted} ${cls.rule}`} style={{ ...head, textAlign: 'right' }}>
                Questions
              </th>
            ) : null}
            {withChanges ? (
              <th className={`${cls.muted} ${cls.rule}`} style={{ ...head, textAlign: 'right', width: '84px' }}>
                Change
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {engines.map((e) => (
            <tr key={e.engine}>
              <td className={`${cls.ink} ${cls.rule}`} style={{ ...cell, textAlign: 'left' }}>
                {e.engine_label}
              </td>
              {withCounts ? (
                <td className={`${cls.ink} ${cls.rule}`} style={{ ...cell, textAlign: 'right', whiteSpace: 'nowrap' }}>
                  {e.naming === null ? '–' : `${formatCount(e.naming)} of ${formatCount(e.answered ?? 0)}`}
                </td>
              ) : null}
              {e.change !== null ? (
                <td
                  className={`${changeClass(e.change)} ${cls.rule}`}
                  style={{ ...cell, textAlign: 'right', whiteSpace: 'nowrap', color: changeColor(e.change), fontWeight: e.change === 0 ? 400 : 600 }}
                >
                  {changeWords(e.change)}
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      <div style={textOnly}>
        <Text style={text.small}>
          {engines.map((e, i) => (
            <span key={e.engine}>
              {i > 0 ? <br /> : null}
              {`${e.engine_label}: ${[e.naming === null ? null : `${formatCount(e.naming)} of ${formatCount(e.answered ?? 0)} questions`, e.change === null ? null : changeWords(e.change)].filter(Boolean).join(', ')}`}
            </span>
          ))}
        </Text>
      </div>
      <Text className={cls.muted} style={{ ...text.small, margin: '6px 0 0' }}>
        {withCounts && withChanges
          ? `Questions: those whose usual answer on the engine names ${brand}. Change: against the week before.`
          : withCounts
            ? `Questions: those whose usual answer on the engine names ${brand}.`
            : `Change: questions for which the engine started naming ${brand}, less those for which it stopped, against the week before.`}
      </Text>
    </>
  );
}
