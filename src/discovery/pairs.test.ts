/** Fields the evidence cannot tell apart are asked as one question, named as such (src/discovery/pairs.ts). */
import { describe, expect, it } from 'vitest';
import { foldPairs } from './pairs';
import type { ToConfirm } from './report';
import { Walk } from './walk';

const asked = (path: string, ...froms: string[]): ToConfirm => ({ path, reason: 'as likely', candidates: froms.map((from) => ({ from, confidence: 0.3, by: 'type' as const })) });

function folded(...questions: ToConfirm[]): ToConfirm[] {
  const walk = new Walk(0.75);
  walk.toConfirm.push(...questions);
  foldPairs(walk);
  return walk.toConfirm;
}

describe('foldPairs', () => {
  it('asks two fields of one object that share their two keys as one question, the keys once each, best first', () => {
    const [one, ...rest] = folded(asked('transcripts[].prompt', 'f_a', 'f_b'), { ...asked('transcripts[].answer', 'f_b'), candidates: [{ from: 'f_b', confidence: 0.4, by: 'type' }] });
    expect(rest).toEqual([]);
    expect(one).toEqual({
      path: 'transcripts[].prompt',
      with: ['transcripts[].answer'],
      reason: '`transcripts[].prompt` and `transcripts[].answer` are `f_b` and `f_a`, one each, and nothing in the answers tells which is which: choose the one of `transcripts[].prompt`.',
      candidates: [
        { from: 'f_b', confidence: 0.4, by: 'type' },
        { from: 'f_a', confidence: 0.3, by: 'type' },
      ],
    });
  });

  it('folds three that share three keys, and leaves each object its own', () => {
    const left = folded(
      asked('head_to_heads[].both_named', 'x', 'y', 'z'),
      asked('head_to_heads[].brand_only', 'x', 'y'),
      asked('head_to_heads[].rival_only', 'z'),
      asked('task.title', 'x', 'w'),
      asked('task.why', 'w', 'x'),
    );
    expect(left.map((q) => [q.path, q.with, q.candidates.map((c) => c.from)])).toEqual([
      ['head_to_heads[].both_named', ['head_to_heads[].brand_only', 'head_to_heads[].rival_only'], ['x', 'y', 'z']],
      ['task.title', ['task.why'], ['x', 'w']],
    ]);
  });

  it('leaves them apart where more keys than fields are offered, a value is asked, or a key is also another question’s', () => {
    const apart = [asked('transcripts[].prompt', 'a', 'b', 'c'), asked('transcripts[].answer', 'b', 'c')];
    expect(folded(...apart)).toEqual(apart);
    const value: ToConfirm = { path: 'engines[].engine', value: 'GPT', reason: 'which engine', candidates: [{ to: 'chatgpt', confidence: 0.5, by: 'similar' }] };
    expect(folded(value, asked('engines[].note', 'n'))).toEqual([value, asked('engines[].note', 'n')]);
    const four = ['a', 'b', 'c', 'd'].map((k, i) => asked(`rows[].f${i}`, 'a', 'b', 'c', 'd', k));
    expect(folded(...four)).toEqual(four);
    const shared = [asked('task.title', 'a', 'b'), asked('task.why', 'b', 'a'), asked('task.effort', 'a')];
    expect(folded(...shared)).toEqual(shared);
  });
});
