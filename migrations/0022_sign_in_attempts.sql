-- The account's sign-in attempts of the last minute, per client address (issue 58, src/account/sign-in-limit.ts):
-- a rolling window, so guesses spread across a minute boundary are counted together (the rate-limiting binding's
-- windows are fixed). The address is kept only as an HMAC under SIGNING_SECRET, and a row only for a minute.
CREATE TABLE sign_in_attempts (
  address_tag TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE INDEX sign_in_attempts_address ON sign_in_attempts (address_tag, at_ms);
CREATE INDEX sign_in_attempts_at ON sign_in_attempts (at_ms);
