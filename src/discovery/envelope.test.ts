import { describe, expect, it } from 'vitest';
import { zodSide } from '../contract/zod-side';
import { findEnvelope } from './envelope';
import { proposeOperation } from './propose';
import { CONFIDENCE_THRESHOLD } from './report';

const zs = await zodSide();
const shape = (zs.response('getAnswerHistory') as unknown as { shape: Parameters<typeof findEnvelope>[0] }).shape;

const move = (engine: string, before: string, now: string, direction: string) => ({ PBMPQ: engine, ANTES: before, AHORA: now, DIRECCION: direction, SUPERIOR: 'Ticketly' });
/** An answer history with its own words, no wrapper: only its counts' keys say a contract name (`COUNT_GANADO`). */
const bare = {
  MARCA: 1,
  MERCADO: { IDENT: 11, CODIGO: 'us' },
  GENERADO_EN: 1796385600000,
  QX: { DESDE: '2026-11-28', HASTA: '2026-12-04' },
  ANTERIOR: { DESDE: '2026-11-21', HASTA: '2026-11-27' },
  RECUENTOS: { COUNT_GANADO: 13, PERDIDO: 14, COUNT_MANTENIDO: 15 },
  PREGUNTAS: [
    { PID: 1102002, TEXTO: 'Which help desk software is best for startups?', TEMA: 1102, RESULTADO: 'gained', AHORA: 6, ANTES: 3, MOVIDO: [move('gemini', 'ABSENT', 'RECOMMENDED', 'gained')] },
    { PID: 1106006, TEXTO: 'What do users dislike about Ticketly?', TEMA: 1106, RESULTADO: 'lost', AHORA: 2, ANTES: 4, MOVIDO: [move('copilot', 'RECOMMENDED', 'ABSENT', 'lost')] },
  ],
};

describe('findEnvelope', () => {
  it("reads no envelope where a child holds a contract name or two but the answer's top aligns as well (counts written COUNT_… in their own object)", () => {
    expect(findEnvelope(shape, bare)).toBeNull();
  });

  it('still finds the wrapper that, taken off, makes the rest align, whatever is beside it', () => {
    expect(findEnvelope(shape, { ok: true, payload: bare, meta: { took: 12 } })).toMatchObject({ at: 'payload' });
  });

  it("reads the answer's time beside the body, where a null beside it (the last page's pointer) says no form", () => {
    const { GENERADO_EN: _, ...inner } = bare;
    const body = { payload: inner, meta: { kq: '2026-12-04T12:00:00.000Z', zr: null } };
    expect(proposeOperation(zs, 'getAnswerHistory', body, CONFIDENCE_THRESHOLD).report.fields.generated_at).toMatchObject({ from: 'meta.kq' });
  });
});
