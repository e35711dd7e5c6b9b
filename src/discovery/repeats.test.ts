/** The texts a list's items share tell a transcript's prompt from its answer where names say nothing (src/discovery/repeats.ts). */
import { describe, expect, it } from 'vitest';
import { zodSide } from '../contract/zod-side';
import { proposeOperation } from './propose';
import { CONFIDENCE_THRESHOLD } from './report';

const zs = await zodSide();
const PROMPTS = ['What do you know about Brightdesk? Describe the product.', 'Would you recommend Brightdesk to a 50-person company? Explain why.'];
const ENGINES = ['chatgpt', 'gemini', 'perplexity'];

/** A token-named transcript answer: `qx` and `vb` are the prompt and the answer, in an order the test chooses. */
function transcripts(count: number, promptFirst: boolean) {
  const rows = Array.from({ length: count }, (_, i) => {
    const [prompt, answer] = [PROMPTS[i % 2]!, `Answer ${i} of ${ENGINES[i % 3]}: Brightdesk is help desk software, known for its setup.`];
    return { zk: 100 + i, mw: ENGINES[i % 3], tp: `2026-11-${String(20 - i).padStart(2, '0')}T08:00:00Z`, ...(promptFirst ? { qx: prompt, vb: answer } : { qx: answer, vb: prompt }) };
  });
  return { brand_id: 1, market: { id: 2, code: 'US', language: 'en' }, generated_at: '2026-11-30T08:00:00Z', engine: null, transcripts: rows };
}

const placed = (body: Record<string, unknown>) => {
  const { report } = proposeOperation(zs, 'getPerceptionTranscript', body, CONFIDENCE_THRESHOLD);
  return { prompt: report.fields['transcripts[].prompt'], answer: report.fields['transcripts[].answer'], asked: report.to_confirm.map((item) => item.path) };
};

describe('settleByRepeats', () => {
  it('takes the text repeated across transcripts as the prompt and the one of each transcript as its answer, whichever comes first', () => {
    for (const promptFirst of [true, false]) {
      const { prompt, answer, asked } = placed(transcripts(6, promptFirst));
      expect(prompt).toMatchObject({ from: promptFirst ? 'qx' : 'vb', by: 'evidence' });
      expect(answer?.from).toBe(promptFirst ? 'vb' : 'qx');
      expect(asked).not.toContain('transcripts[].prompt');
    }
  });

  it('never takes a text for the answer because it never repeats: an extra trace of the service does not either', () => {
    const body = transcripts(6, true);
    const traced = { ...body, transcripts: body.transcripts.map((t, i) => ({ ...t, tr: `trace ${i * 7919} of run ${i}` })) };
    const { prompt, answer, asked } = placed(traced);
    expect(prompt).toMatchObject({ from: 'qx', by: 'evidence' });
    expect(answer).toBeUndefined();
    expect(asked).toContain('transcripts[].answer');
  });

  it('asks when no prompt repeats: two transcripts of two prompts say nothing', () => {
    const { prompt, asked } = placed(transcripts(2, true));
    expect(prompt).toBeUndefined();
    expect(asked).toContain('transcripts[].prompt');
  });
});
