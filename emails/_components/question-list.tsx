/** Won or lost questions, each with the engines that moved and the rival named in the latest week. */
import { Section, Text } from '@react-email/components';
import type { QuestionMove } from '../../src/reports/model';
import { color, text } from './theme';

const STATE_WORDS: Record<string, string> = {
  recommended: 'recommended',
  mentioned: 'mentioned',
  absent: 'not named',
  open: 'no brand named',
  no_answer: 'no answer',
};
const stateWord = (state: string | null) => (state === null ? 'not run' : (STATE_WORDS[state] ?? state));

export function QuestionList({ questions, outcome, total }: { questions: QuestionMove[]; outcome: 'won' | 'lost'; total: number }) {
  const accent = outcome === 'won' ? color.good : color.bad;
  if (questions.length === 0) return <Text style={text.small}>{outcome === 'won' ? 'No question won this week.' : 'No question lost this week.'}</Text>;
  return (
    <Section>
      {questions.map((q) => (
        <Section key={q.question_id} style={{ borderLeft: `3px solid ${accent}`, padding: '2px 0 2px 10px', margin: '0 0 10px' }}>
          <Text style={{ ...text.body, margin: '0 0 2px', fontWeight: 600 }}>{`“${q.text}”`}</Text>
          <Text style={{ ...text.small, margin: 0 }}>
            {`${q.topic ? `${q.topic} · ` : ''}named by ${q.engines_naming_now} of the engines, was ${q.engines_naming_before}`}
          </Text>
          {q.engines.map((e) => (
            <Text key={e.engine} style={{ ...text.small, margin: 0 }}>
              {`${e.direction === 'gained' ? '▲' : '▼'} ${e.engine_label}: ${stateWord(e.before)} → ${stateWord(e.now)}${e.top_rival ? ` (rival named most: ${e.top_rival})` : ''}`}
            </Text>
          ))}
        </Section>
      ))}
      {total > questions.length ? <Text style={text.small}>{`And ${total - questions.length} more ${outcome} in the full report.`}</Text> : null}
    </Section>
  );
}
