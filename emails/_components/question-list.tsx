/**
 * Won or lost questions, each with the engines that moved and the rival named
 * in the latest week. One paragraph per question (lines split by `<br>`):
 * the digest can list a few dozen, and fewer elements render faster and stay
 * well under Gmail's 102 KB clipping.
 */
import { Text } from '@react-email/components';
import { Fragment } from 'react';
import { type QuestionMove, stateWord } from '../../src/weekly-report/model';
import { color, text } from './theme';


export function QuestionList({ questions, outcome, total }: { questions: QuestionMove[]; outcome: 'won' | 'lost'; total: number }) {
  const accent = outcome === 'won' ? color.good : color.bad;
  if (questions.length === 0) return <Text style={text.small}>{outcome === 'won' ? 'No question won this week.' : 'No question lost this week.'}</Text>;
  const small = { fontSize: '13px', lineHeight: '18px', color: color.muted };
  return (
    <>
      {questions.map((q) => (
        <Text key={q.question_id} style={{ ...text.body, borderLeft: `3px solid ${accent}`, padding: '2px 0 2px 10px', margin: '0 0 10px' }}>
          <strong>{`“${q.text}”`}</strong>
          <br />
          <span style={small}>{`${q.topic ? `${q.topic} · ` : ''}named by ${q.engines_naming_now} of the engines, was ${q.engines_naming_before}`}</span>
          {q.engines.map((e) => (
            <Fragment key={e.engine}>
              <br />
              <span style={small}>{`${e.direction === 'gained' ? '▲' : '▼'} ${e.engine_label}: ${stateWord(e.before)} → ${stateWord(e.now)}${e.top_rival ? ` (rival named most: ${e.top_rival})` : ''}`}</span>
            </Fragment>
          ))}
        </Text>
      ))}
      {total > questions.length ? <Text style={text.small}>{`And ${total - questions.length} more ${outcome} in the full report (View in browser).`}</Text> : null}
    </>
  );
}
