/** Every response carries `X-Request-Id`, echoing the caller's when it is sane (DESIGN section 3). */
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The caller's `X-Request-Id` when it is sane, else a new one. */
export const requestIdOf = (headers: Headers): string => {
  const given = headers.get('x-request-id');
  return given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
};
