/**
 * The few questions the digest lists (`WonLostSection.top_lost`, `top_won`):
 * each in one paragraph, the question and one line saying which engines
 * moved, how many engines name the brand now, and, for a loss, the rival
 * named instead. The full lists are in the report behind the button.
 */
import { Text } from '@react-email/text';
import type { QuestionMove } from '../../src/weekly-report/model';
import { movedLine, quoted } from '../../src/weekly-report/words';
import { cls, color, text, wrapAnywhere } from './theme';

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
