/** The pages for people (issue 37): the front door, sign-in with the API key and its sessions, and the screens that do in a browser what the JSON routes do with the key. */
export { frontDoor, notFoundPage } from './pages';
export { ACCOUNT_BASE, ACCOUNT_PATHS } from './paths';
export { accountRoutes } from './routes';
export { SESSION_COOKIE, sessionOf } from './session';
