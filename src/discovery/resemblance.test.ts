/** Names break the ties of text the evidence left, and only where one way fits clearly best (src/discovery/resemblance.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FORM_UNIQUE } from './by-shape';
import { compareNames, resemblance, strangeWords } from './names';
import type { ToConfirm } from './report';
import { RESEMBLANCE, settleByResemblance } from './resemblance';
import { placeLeftOver } from './taken';
import { Walk } from './walk';
import { houseWordsOf } from './vocabulary';

const asked = (path: string, ...froms: string[]): ToConfirm => ({ path, reason: 'as likely', candidates: froms.map((from) => ({ from, confidence: 0.3, by: 'type' as const })) });

/** The walk after settling `questions` as discovery does (the names, then the keys they left), every path text unless `textual` says otherwise. */
function settle(questions: ToConfirm[], textual: (path: string) => boolean = () => true, walked: Record<string, string> = {}): Walk {
  const walk = new Walk(0.75);
  walk.toConfirm.push(...questions);
  for (const [path, key] of Object.entries(walked)) walk.walked.set(path, key);
  placeLeftOver(walk, () => undefined, settleByResemblance(walk, textual));
  return walk;
}

const placed = (walk: Walk) => Object.fromEntries(Object.entries(walk.fields).map(([path, p]) => [path, `${p.from} ${p.by} ${p.confidence}`]));

describe('resemblance', () => {
  it('reads a name in another language by its start, without its accents, and both ways', () => {
    expect(resemblance('title', 'Titre')).toBe(0.5);
    expect(resemblance('category', 'Catégorie')).toBe(0.5);
    expect(resemblance('title', 'Titre')).toBe(resemblance('Titre', 'title'));
    expect(resemblance('forum', 'Espace_discussion')).toBe(0);
  });

  it('counts a word one name lacks against it, and a word of two letters only when it is the same', () => {
    expect(resemblance('facts_compared', 'FaitsCompare')).toBe(0.5);
    expect(resemblance('title', 'title_extra')).toBe(0.75);
    expect(resemblance('id', 'ia')).toBe(0);
    expect(resemblance('key', 'sort_key')).toBe(0.75);
  });

  it('names the words that say more than a field and its object', () => {
    expect(strangeWords('sort_key', ['key', 'rows'])).toEqual(['sort']);
    expect(strangeWords('tarea-titulo', ['title', 'tareas'])).toEqual([]);
    expect(strangeWords('Assistant_ia', ['assistant'])).toEqual([]);
  });

  it("reads the service's own words as ours where its other answers taught them: `marquePlace` says nothing beyond a brand's position", () => {
    const taught = new Map([
      ['marque', 'brand'],
      ['place', 'position'],
    ]);
    expect(strangeWords('marquePlace', ['position', 'brand'])).toEqual(['marque', 'place']);
    expect(strangeWords('marquePlace', ['position', 'brand'], taught)).toEqual([]);
    // A word it did not teach stays strange: an extra of the service's beside the field is not taken for it.
    expect(strangeWords('scoreVersion', ['position', 'brand'], taught)).toEqual(['score', 'version']);
  });
});

describe('compareNames', () => {
  it('takes no word one last letter from another for an abbreviation of it: `shard` is not `share`', () => {
    expect(compareNames('share', 'shard')).toBeUndefined();
  });
});

describe('settleByResemblance', () => {
  it('settles two texts sharing their two keys the one way the names fit, by resemblance, into the map, and the other by the key left', () => {
    const walk = settle([asked('threads[].title', 'Espace_discussion', 'Titre'), asked('threads[].forum', 'Titre', 'Espace_discussion')]);
    expect(placed(walk)).toEqual({ 'threads[].title': `Titre resemblance ${RESEMBLANCE}`, 'threads[].forum': `Espace_discussion form ${FORM_UNIQUE}` });
    expect(walk.sure.fields).toEqual({ 'threads[].title': 'Titre', 'threads[].forum': 'Espace_discussion' });
    expect(walk.toConfirm).toEqual([]);
  });

  it('leaves a tie the names do not break, and one where both ways fit within the margin', () => {
    expect(placed(settle([asked('transcript.prompt', 'f_a', 'f_b'), asked('transcript.answer', 'f_b', 'f_a')]))).toEqual({});
    const close = settle([asked('tasks[].title', 'tit_one', 'tit_two'), asked('tasks[].why', 'tit_two', 'tit_one')]);
    expect(placed(close)).toEqual({});
    expect(close.toConfirm).toHaveLength(2);
  });

  it('never settles a field that is not text: an id is the joins’ to place or a person’s', () => {
    const tie = () => [asked('rows[].topic_id', 'topic_ref', 'etiqueta'), asked('rows[].label', 'etiqueta', 'topic_ref')];
    expect(Object.keys(placed(settle(tie())))).toEqual(['rows[].topic_id', 'rows[].label']);
    expect(placed(settle(tie(), (path) => !path.endsWith('_id')))).toEqual({});
  });

  it('beside keys no field takes, settles a key only by its own resemblance, and not one whose name says more', () => {
    const withExtra = settle([asked('pages[].title', 'Titre', 'CacheKey')]);
    expect(placed(withExtra)).toEqual({ 'pages[].title': `Titre resemblance ${RESEMBLANCE}` });
    expect(placed(settle([asked('rows[].key', 'clave', 'sort_key')], undefined, { rows: 'filas' }))).toEqual({});
    // One question with one candidate was asked for a reason of its own, not for a tie.
    expect(placed(settle([asked('pages[].title', 'Titre')]))).toEqual({});
  });

  it('settles a tie only one way completes where the names favour it, and never by that alone', () => {
    // `why` may hold only `Pourquoi`: the names still have to beat `title` taking `Pourquoi` and `why` nothing.
    expect(placed(settle([asked('task.title', 'Titre', 'Pourquoi'), asked('task.why', 'Pourquoi')]))).toEqual({
      'task.title': `Titre resemblance ${RESEMBLANCE}`,
      'task.why': `Pourquoi form ${FORM_UNIQUE}`,
    });
    const alone = settle([asked('signals[].signal', 's1', 's2'), asked('signals[].note', 's2')]);
    expect(placed(alone)).toEqual({});
    expect(alone.toConfirm).toHaveLength(2);
  });

  it('keeps each object its own: keys of another object are not this one’s', () => {
    const walk = settle([asked('task.title', 'Titre', 'Pourquoi'), asked('task.why', 'Pourquoi', 'Titre'), asked('pages[].title', 'Titre', 'Shard')]);
    expect(Object.keys(placed(walk)).sort()).toEqual(['pages[].title', 'task.title', 'task.why']);
  });
});

describe("the service's words", () => {
  it('are learned one word at a time where every name holding one holds the other, or two names of one word each are placed together', () => {
    const placements: [string, string][] = [
      ['brand_id', 'marca_identificador'],
      ['brands', 'marcas'],
      ['topics[].brand_only', 'marca_solo'],
      ['rival', 'adversario'],
      ['market.id', 'mercado_identificador'],
      ['name', 'nombre'],
      // A word seen beside ours once, in names of several words, says nothing yet.
      ['topic', 'tema_x'],
      ['question', 'pregunta_x'],
    ];
    const words = houseWordsOf(placements);
    expect(Object.fromEntries(words)).toMatchObject({ marca: 'brand', identificador: 'id', adversario: 'rival', nombre: 'name' });
    expect(words.has('x')).toBe(false);
    expect(words.has('solo')).toBe(false);
  });

  it('break a tie of counts read as ours: the brand ahead is the key holding its word, the rival ahead the other', () => {
    const houseWords = new Map([
      ['marca', 'brand'],
      ['adversario', 'rival'],
    ]);
    const tie = [asked('head_to_heads[].brand_ahead', 'marca_adelante', 'adversario_adelante'), asked('head_to_heads[].rival_ahead', 'marca_adelante', 'adversario_adelante')];
    const settledWith = (words: Map<string, string>) => {
      const walk = new Walk(0.75, undefined, undefined, undefined, undefined, undefined, undefined, words);
      walk.toConfirm.push(...structuredClone(tie));
      settleByResemblance(
        walk,
        () => false,
        () => true,
      );
      return Object.fromEntries(Object.entries(walk.fields).map(([path, p]) => [path, p.from]));
    };
    expect(settledWith(new Map())).toEqual({});
    expect(settledWith(houseWords)).toEqual({ 'head_to_heads[].brand_ahead': 'marca_adelante', 'head_to_heads[].rival_ahead': 'adversario_adelante' });
  });
});

describe('right and wrong', () => {
  /** The pair no evidence separates, under the service's names for both; which one `gets_right` took, if either. */
  const rightOf = (right: string, wrong: string) => {
    const walk = settle([asked('engines[].gets_right', wrong, right), asked('engines[].gets_wrong', right, wrong)]);
    return walk.fields['engines[].gets_right']?.from;
  };

  it('are told apart in several languages, and negated as a prefix or a word', () => {
    for (const [right, wrong] of [
      ['erhaelt_richtig', 'erhaelt_falsch'],
      ['obtiene_correcto', 'obtiene_incorrecto'],
      ['ce_qui_est_juste', 'ce_qui_est_faux'],
      ['azzecca_giusto', 'sbaglia_errato'],
      ['AcertaCerto', 'ErraErrado'],
      ['krijgt_juist', 'krijgt_onjuist'],
      ['nennt_richtig', 'nennt_nicht_richtig'],
      ['says_true', 'says_untrue'],
    ])
      expect(rightOf(right!, wrong!), `${right} beside ${wrong}`).toBe(right);
  });

  it('stay a question where neither name says right or wrong', () => {
    expect(rightOf('xq_ab', 'xq_cd')).toBeUndefined();
    expect(rightOf('erhaelt_eins', 'erhaelt_zwei')).toBeUndefined();
  });

  it('are told apart whatever the words around them, in any case convention (seeded)', () => {
    const word = fc.stringMatching(/^[a-z]{2,7}$/).filter((w) => !/^(no|not|non|ne|nie|un|in|on|dis|mis)/.test(w));
    const forms = fc.constantFrom<[string, string]>(['richtig', 'falsch'], ['correcto', 'incorrecto'], ['vrai', 'faux'], ['corretto', 'sbagliato'], ['korrekt', 'inkorrekt'], ['right', 'not_right']);
    const write = fc.constantFrom(
      (words: string[]) => words.join('_'),
      (words: string[]) => words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join(''),
      (words: string[]) => words.join('-').toUpperCase(),
    );
    fc.assert(
      fc.property(word, forms, write, fc.boolean(), (stem, [right, wrong], spell, after) => {
        const name = (w: string) => spell(after ? [...w.split('_'), stem] : [stem, ...w.split('_')]);
        expect(rightOf(name(right), name(wrong))).toBe(name(right));
      }),
      { seed: 20261205, numRuns: 200 },
    );
  });
});
