/**
 * The example secrets (DESIGN section 8): the dev values are public, so
 * outside dev (`DEV_ROUTES` not "on") a secret equal to one is a start-up
 * error naming the secret, never showing it. `.dev.vars.example` lists the
 * secrets with no value: the Deploy to Cloudflare button prompts for each
 * line of it, offering its value as the default, and `npm run dev`
 * (scripts/dev.mjs) fills each empty one with its `EXAMPLE_SECRETS` value.
 * Read here through Vite's `?raw` import, since the tests run in workerd,
 * without a file system.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import exampleFile from '../.dev.vars.example?raw';
import { EXAMPLE_SECRETS, InvalidEnvError, parseEnv } from '../src/app/env';
import { featuresOf } from '../src/app/features';

/** NAME=value lines, comments and commented-out settings skipped. */
const assignments = Object.fromEntries(
  exampleFile
    .split('\n')
    .map((line) => /^\s*([A-Z][A-Z0-9_]*)\s*=(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!.trim()]),
);

/** A fresh env object (parseEnv caches per object), like a new isolate's. */
const envWith = (extra: Record<string, string>): Env => ({ ...(env as unknown as Record<string, unknown>), ...extra }) as unknown as Env;

it('.dev.vars.example lists exactly the secrets of EXAMPLE_SECRETS, each empty: the Deploy button pre-fills nothing', () => {
  expect(Object.keys(assignments).sort()).toEqual(Object.keys(EXAMPLE_SECRETS).sort());
  expect(Object.values(assignments)).toEqual(Object.keys(assignments).map(() => ''));
  // RESEND_API_KEY stays commented out: the button would make every listed secret required.
  expect(exampleFile).toMatch(/^# RESEND_API_KEY=/m);
});

it('outside dev, each example secret is an InvalidEnvError naming it, never its value', () => {
  for (const [name, example] of Object.entries(EXAMPLE_SECRETS)) {
    for (const value of [example, ` ${example}\n`]) {
      let thrown: unknown;
      try {
        parseEnv(envWith({ DEV_ROUTES: '', [name]: value }));
      } catch (error) {
        thrown = error;
      }
      expect(thrown, name).toBeInstanceOf(InvalidEnvError);
      const message = String(thrown);
      expect(message).toContain(`The secret ${name} is the public dev value that npm run dev writes into .dev.vars`);
      expect(message).not.toContain(example);
    }
  }
});

it('in dev (DEV_ROUTES = "on") the example secrets are allowed; other values are allowed anywhere', () => {
  const dev = parseEnv(envWith({ DEV_ROUTES: 'on', ...EXAMPLE_SECRETS }));
  expect(dev.DEV_ROUTES).toBe('on');
  expect(featuresOf(dev).devRoutes).toBe(true);
  const deployed = parseEnv(envWith({ DEV_ROUTES: '' }));
  expect(deployed.DEV_ROUTES).toBeUndefined();
  expect(featuresOf(deployed).devRoutes).toBe(false);
});

it('DEV_ROUTES is "on" or empty: anything else is a named error', () => {
  for (const value of ['true', '1', 'ON', 'off']) expect(() => parseEnv(envWith({ DEV_ROUTES: value })), value).toThrow(/DEV_ROUTES must be "on"/);
});
