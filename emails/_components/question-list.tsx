/**
 * The few questions the digest lists (`WonLostSection.top_lost`, `top_won`):
 * each in one paragraph, the question and one line saying which engines
 * moved, how many engines name the brand now, and, for a loss, the rival
 * named instead. The full lists are in the report behind the button.
 */
import { Text } from '@react-email/text';
import type { QuestionMove } from '../../src/weekly-report/model';
import { joinNames, quoted } from '../../src/weekly-report/words';
import { cls, color, text, wrapAnywhere } from './theme';

/** How the engines of a question moved, in words: `No longer named by Claude and Gemini (now 2 of 6 engines); Helpwave is named instead.` */
export function movedLine(q: QuestionMove, engineCount: number): string {
  const way = q.outcome === 'won' ? 'gained' : 'lost';
  const main = q.engines.filter((e) => e.direction === way).map((e) => e.engine_label);
  const other = q.engines.filter((e) => e.direction !== way).map((e) => e.engine_label);
  const of = `${q.engines_naming_now} of ${engineCount} engines`;
  // A service that does not say which engines moved: only how many name the brand.
  if (q.engines.length === 0) return `Named by ${of} now, ${q.engines_naming_before} the week before.`;
  if (q.outcome === 'won') return `Now named by ${joinNames(main)} (${of})${other.length > 0 ? `; no longer by ${joinNames(other)}` : ''}.`;
  const rivals = [...new Set(q.engines.filter((e) => e.direction === way && e.top_rival).map((e) => e.top_rival!))];
  return `No longer named by ${joinNames(main)} (now ${of})${other.length > 0 ? `; now named by ${joinNames(other)}` : ''}${rivals.length > 0 ? `; ${joinNames(rivals)} ${rivals.length === 1 ? 'is' : 'are'} named instead` : ''}.`;
}

export function QuestionList({ questions, engineCount }: { questions: QuestionMove[]; engineCount: number }) {
  return (
    <>
      {questions.map((q) => {
        const lost = q.outcome === 'lost';
        return (
          <Text
            key={q.question_id}
            data-question={q.outcome}
            className={`${cls.ink} ${lost ? cls.edgeBad : cls.edgeGood}`}
            style={{ ...text.body, ...wrapAnywhere, borderLeft: `3px solid ${lost ? color.bad : color.good}`, padding: '0 0 0 10px', margin: '0 0 12px' }}
          >
            <strong>{quoted(q.text)}</strong>
            <br />
            <span className={cls.muted} style={{ fontSize: '13px', lineHeight: '18px', color: color.muted }}>
              <span aria-hidden="true" className={lost ? cls.bad : cls.good} style={{ color: lost ? color.bad : color.good }}>
                {lost ? '▼ ' : '▲ '}
              </span>
              {movedLine(q, engineCount)}
            </span>
          </Text>
        );
      })}
    </>
  );
}
