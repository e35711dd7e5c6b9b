/**
 * What the demo world is made of: the demo accounts and keys of DESIGN
 * section 5, their brands and rivals, the tracked questions, and the phrases
 * answer texts are written from. Names are fictional.
 */
import type { Integration, Plan } from '../../contract/enums';

export interface DemoBrand {
  id: number;
  name: string;
  domain: string;
  category: { en: string; de: string };
  /** Logit of how often AI names the brand: 0 is about half the answers. */
  strength: number;
  /** Points of logit gained per week over the 100 days: the trend the digest reports. */
  trend: number;
  rivals: { name: string; domain: string }[];
  integrations: Integration[];
}

export interface DemoAccount {
  id: number;
  name: string;
  plan: Plan;
  planActive: boolean;
  key: string;
  revoked: boolean;
  brands: DemoBrand[];
}

/** The demo keys, exactly as DESIGN section 5 lists them. Brand A of `demo_growth_multi` has the lower id. */
export const DEMO_ACCOUNTS: DemoAccount[] = [
  {
    id: 1,
    name: 'Brightdesk Inc.',
    plan: 'pro',
    planActive: true,
    key: 'demo_pro_single',
    revoked: false,
    brands: [
      {
        id: 1,
        name: 'Brightdesk',
        domain: 'brightdesk.com',
        category: { en: 'help desk software', de: 'Helpdesk-Software' },
        strength: -0.1,
        trend: 0.05,
        rivals: [
          { name: 'Helpwave', domain: 'helpwave.io' },
          { name: 'Ticketly', domain: 'ticketly.com' },
          { name: 'SupportHero', domain: 'supporthero.com' },
          { name: 'Caseflow', domain: 'caseflow.app' },
          { name: 'Deskpilot', domain: 'deskpilot.com' },
        ],
        integrations: ['search_performance', 'tracking_script'],
      },
    ],
  },
  {
    id: 2,
    name: 'Ledgerly Group',
    plan: 'growth',
    planActive: true,
    key: 'demo_growth_multi',
    revoked: false,
    brands: [
      {
        id: 2,
        name: 'Ledgerly',
        domain: 'ledgerly.com',
        category: { en: 'accounting software', de: 'Buchhaltungssoftware' },
        strength: 0.3,
        trend: -0.03,
        rivals: [
          { name: 'Bookwise', domain: 'bookwise.com' },
          { name: 'Tallybase', domain: 'tallybase.io' },
          { name: 'Numera', domain: 'numera.com' },
          { name: 'Clearbooks Pro', domain: 'clearbookspro.com' },
          { name: 'Fiscalio', domain: 'fiscalio.com' },
        ],
        integrations: ['search_performance', 'edge_network', 'tracking_script'],
      },
      {
        id: 3,
        name: 'Payfold',
        domain: 'payfold.com',
        category: { en: 'payroll software', de: 'Lohnabrechnungssoftware' },
        strength: -0.7,
        trend: 0.02,
        rivals: [
          { name: 'Paywise', domain: 'paywise.com' },
          { name: 'Salario', domain: 'salario.io' },
          { name: 'Runroll', domain: 'runroll.com' },
          { name: 'Wagely', domain: 'wagely.com' },
        ],
        integrations: [],
      },
    ],
  },
  {
    id: 3,
    name: 'Tasklane Ltd.',
    plan: 'starter',
    planActive: true,
    key: 'demo_starter',
    revoked: false,
    brands: [
      {
        id: 4,
        name: 'Tasklane',
        domain: 'tasklane.com',
        category: { en: 'project management software', de: 'Projektmanagement-Software' },
        strength: -0.4,
        trend: 0.01,
        rivals: [
          { name: 'Boardly', domain: 'boardly.com' },
          { name: 'Sprintly', domain: 'sprintly.io' },
          { name: 'Planhive', domain: 'planhive.com' },
          { name: 'Trackwise', domain: 'trackwise.com' },
        ],
        integrations: ['search_performance'],
      },
    ],
  },
  {
    id: 4,
    name: 'Mailbloom GmbH',
    plan: 'pro',
    planActive: false,
    key: 'demo_inactive',
    revoked: false,
    brands: [
      {
        id: 5,
        name: 'Mailbloom',
        domain: 'mailbloom.com',
        category: { en: 'email marketing software', de: 'E-Mail-Marketing-Software' },
        strength: 0,
        trend: 0,
        rivals: [
          { name: 'Sendlane', domain: 'sendlane.io' },
          { name: 'Postora', domain: 'postora.com' },
          { name: 'Campaigno', domain: 'campaigno.com' },
        ],
        integrations: ['tracking_script'],
      },
    ],
  },
  {
    id: 5,
    name: 'Vaultkey Security',
    plan: 'pro',
    planActive: true,
    key: 'demo_revoked',
    revoked: true,
    brands: [
      {
        id: 6,
        name: 'Vaultkey',
        domain: 'vaultkey.com',
        category: { en: 'password manager', de: 'Passwort-Manager' },
        strength: 0.2,
        trend: 0,
        rivals: [
          { name: 'Lockbox', domain: 'lockbox.io' },
          { name: 'Keyward', domain: 'keyward.com' },
          { name: 'Passly', domain: 'passly.com' },
        ],
        integrations: [],
      },
    ],
  },
];

export const PLAN_ROWS: { id: Plan; name: string; monthly_quota: number; includes_insights: number }[] = [
  { id: 'starter', name: 'Starter', monthly_quota: 2_000, includes_insights: 0 },
  { id: 'pro', name: 'Pro', monthly_quota: 20_000, includes_insights: 1 },
  { id: 'growth', name: 'Growth', monthly_quota: 100_000, includes_insights: 1 },
];

export type Language = 'en' | 'de';

export interface DemoMarket {
  code: string;
  name: string;
  language: Language;
  country: string;
  primary: boolean;
}

export const DEMO_MARKETS: DemoMarket[] = [
  { code: 'us', name: 'United States', language: 'en', country: 'US', primary: true },
  { code: 'de', name: 'Germany', language: 'de', country: 'DE', primary: false },
];

/**
 * Topics and their questions. `{cat}` is the category, `{r1}`..`{r3}` the
 * brand's rivals. Every market has 6 topics and 42 questions (DESIGN section 5).
 */
export const TOPICS: Record<Language, { name: string; facts: string[]; pagesShare: string[]; questions: string[] }[]> = {
  en: [
    {
      name: 'Best {cat} overall',
      facts: ['Ease of use', 'Price per user', 'Number of integrations', 'Review scores on G2 and Capterra'],
      pagesShare: ['A comparison table near the top', 'Pricing stated in numbers', 'Updated within the last 90 days'],
      questions: [
        'What is the best {cat} this year?',
        'Which {cat} do experts recommend?',
        'What are the top 5 {cat} tools?',
        'What {cat} has the best reviews?',
        'What is the most popular {cat}?',
        'Which {cat} is the easiest to use?',
        'What {cat} do mid-size companies use?',
      ],
    },
    {
      name: 'Small teams and startups',
      facts: ['Free plan limits', 'Setup time', 'Seats included in the base price'],
      pagesShare: ['A section written for small teams', 'Screenshots of the setup flow', 'Customer quotes from startups'],
      questions: [
        'What is the best {cat} for a small team?',
        'Which {cat} is best for startups?',
        'What is the best free {cat}?',
        'Which {cat} is affordable for a small business?',
        'What {cat} can a team of five set up in a day?',
        'Which {cat} scales from startup to mid-size?',
        'What is a simple {cat} for non-technical teams?',
      ],
    },
    {
      name: 'Pricing and value',
      facts: ['Price per seat per month', 'Annual discount', 'Add-on costs', 'Length of the free trial'],
      pagesShare: ['Prices in a table', 'A FAQ about billing', 'A comparison with named rivals'],
      questions: [
        'How much does {cat} cost per user?',
        'Which {cat} has the best value for money?',
        'Are there {cat} tools without per-seat pricing?',
        'What is the cheapest {cat} with automation?',
        'Which {cat} offers a free trial without a credit card?',
        'Is paid {cat} worth it over free tools?',
        'What hidden costs should I expect with {cat}?',
      ],
    },
    {
      name: 'Integrations and automation',
      facts: ['Native integrations', 'Public API and webhooks', 'Workflow automation limits'],
      pagesShare: ['An integrations directory', 'API documentation linked from the page', 'Step-by-step automation examples'],
      questions: [
        'Which {cat} integrates best with Slack?',
        'What {cat} has the best API?',
        'Which {cat} works with Salesforce?',
        'What is the best {cat} for automating repetitive work?',
        'Which {cat} connects to Zapier?',
        'What {cat} integrates with Google Workspace?',
        'Which {cat} has the best mobile app?',
      ],
    },
    {
      name: 'Security and compliance',
      facts: ['SOC 2 Type II report', 'GDPR and EU data residency', 'SSO and SCIM', 'Audit logs'],
      pagesShare: ['A trust center page', 'Certifications listed with dates', 'A downloadable security whitepaper'],
      questions: [
        'Which {cat} is SOC 2 compliant?',
        'What is the most secure {cat}?',
        'Which {cat} is GDPR compliant and hosts data in the EU?',
        'Which {cat} supports single sign-on?',
        'Which {cat} is best for regulated industries?',
        'What {cat} offers audit logs and role-based access?',
        'Which {cat} is HIPAA compliant?',
      ],
    },
    {
      name: 'Alternatives and comparisons',
      facts: ['Migration tools', 'Feature parity with the incumbent', 'Contract terms'],
      pagesShare: ['A "vs" page per rival', 'An import guide', 'Honest trade-offs, not only strengths'],
      questions: [
        'What are the best alternatives to {r1}?',
        '{r1} vs {r2}: which is better?',
        'Is there a cheaper alternative to {r2}?',
        'What should I switch to from {r3}?',
        'Which {cat} is better than {r1} for support?',
        'What do users dislike about {r2}?',
        'Which {cat} do teams pick after leaving {r3}?',
      ],
    },
  ],
  de: [
    {
      name: 'Beste {cat}',
      facts: ['Bedienbarkeit', 'Preis pro Nutzer', 'Bewertungen'],
      pagesShare: ['Vergleichstabelle', 'Preise in Zahlen'],
      questions: [
        'Was ist die beste {cat}?',
        'Welche {cat} empfehlen Experten?',
        'Welche {cat} ist am einfachsten zu bedienen?',
        'Was sind die fünf besten Anbieter für {cat}?',
        'Welche {cat} hat die besten Bewertungen?',
        'Welche {cat} nutzen mittelständische Unternehmen?',
        'Welche {cat} ist am beliebtesten?',
      ],
    },
    {
      name: 'Kleine Teams',
      facts: ['Kostenloser Tarif', 'Einrichtungszeit'],
      pagesShare: ['Abschnitt für kleine Teams', 'Kundenstimmen'],
      questions: [
        'Welche {cat} eignet sich für kleine Teams?',
        'Welche {cat} ist am besten für Start-ups?',
        'Gibt es eine kostenlose {cat}?',
        'Welche {cat} ist günstig für kleine Unternehmen?',
        'Welche {cat} ist in einem Tag eingerichtet?',
        'Welche {cat} wächst mit dem Unternehmen mit?',
        'Welche {cat} ist einfach für Teams ohne IT?',
      ],
    },
    {
      name: 'Preise',
      facts: ['Preis pro Platz', 'Rabatt bei Jahreszahlung', 'Testphase'],
      pagesShare: ['Preistabelle', 'FAQ zur Abrechnung'],
      questions: [
        'Was kostet {cat} pro Nutzer?',
        'Welche {cat} hat das beste Preis-Leistungs-Verhältnis?',
        'Gibt es {cat} ohne Preis pro Nutzer?',
        'Was ist die günstigste {cat} mit Automatisierung?',
        'Welche {cat} bietet eine Testphase ohne Kreditkarte?',
        'Lohnt sich eine kostenpflichtige {cat}?',
        'Welche versteckten Kosten hat {cat}?',
      ],
    },
    {
      name: 'Integrationen',
      facts: ['Native Integrationen', 'API'],
      pagesShare: ['Integrationsverzeichnis', 'API-Dokumentation'],
      questions: [
        'Welche {cat} lässt sich am besten mit Slack verbinden?',
        'Welche {cat} hat die beste API?',
        'Welche {cat} funktioniert mit Salesforce?',
        'Welche {cat} automatisiert Routinearbeit am besten?',
        'Welche {cat} lässt sich mit Zapier verbinden?',
        'Welche {cat} integriert Google Workspace?',
        'Welche {cat} hat die beste mobile App?',
      ],
    },
    {
      name: 'Datenschutz und DSGVO',
      facts: ['DSGVO-Konformität', 'Serverstandort Deutschland', 'Single Sign-on'],
      pagesShare: ['Trust-Center-Seite', 'Zertifikate mit Datum'],
      questions: [
        'Welche {cat} ist DSGVO-konform?',
        'Welche {cat} speichert Daten in Deutschland?',
        'Welche {cat} ist am sichersten?',
        'Welche {cat} unterstützt Single Sign-on?',
        'Welche {cat} eignet sich für Behörden?',
        'Welche {cat} bietet Audit-Logs?',
        'Welche {cat} ist ISO-27001-zertifiziert?',
      ],
    },
    {
      name: 'Alternativen',
      facts: ['Datenimport', 'Vertragslaufzeit'],
      pagesShare: ['Vergleichsseiten', 'Umzugsanleitung'],
      questions: [
        'Was sind die besten Alternativen zu {r1}?',
        '{r1} oder {r2}: was ist besser?',
        'Gibt es eine günstigere Alternative zu {r2}?',
        'Wohin wechseln, wenn man {r3} verlässt?',
        'Welche {cat} ist besser als {r1} im Support?',
        'Was kritisieren Nutzer an {r2}?',
        'Welche {cat} wählen Teams nach {r3}?',
      ],
    },
  ],
};

/** What answers say about a product, by language. */
export const PITCHES: Record<Language, string[]> = {
  en: [
    'fast to set up and easy for new team members',
    'strong automation and clean reporting',
    'a generous free plan and fair per-seat pricing',
    'deep integrations with Slack, Salesforce and Google Workspace',
    'enterprise-grade security with SSO and audit logs',
    'well-rated mobile apps and responsive support',
    'flexible workflows that grow with the team',
    'transparent pricing without surprise add-ons',
  ],
  de: [
    'schnell eingerichtet und leicht zu lernen',
    'starke Automatisierung und übersichtliche Berichte',
    'ein großzügiger Gratis-Tarif und faire Preise',
    'viele Integrationen, etwa Slack und Google Workspace',
    'DSGVO-konform mit Servern in der EU',
    'gute mobile Apps und schneller Support',
  ],
};

export const ANSWER_PHRASES = {
  en: {
    lead: ['Here are the strongest options:', 'Several tools stand out:', 'The options most often recommended are:', 'Based on reviews and feature comparisons:'],
    recommend: (brand: string, pitch: string) => `My top recommendation is ${brand}: ${pitch}.`,
    close: [
      'The right choice depends on team size, budget and the tools you already use.',
      'Run a short trial with real work before committing to an annual plan.',
      'Compare total cost per user, including add-ons, before deciding.',
    ],
    open: [
      'There is no single best choice here; it depends on your team size, budget and existing tools. Shortlist two or three products, run a two-week trial with real work, and compare the total cost per user including add-ons.',
      'It depends on what matters most to you. Write down your must-have features, check which products meet them on their cheapest plan, and read recent reviews from teams of a similar size.',
    ],
    sources: 'Sources:',
  },
  de: {
    lead: ['Diese Anbieter werden am häufigsten empfohlen:', 'Einige Lösungen stechen hervor:', 'Nach Bewertungen und Funktionsvergleichen:'],
    recommend: (brand: string, pitch: string) => `Meine Empfehlung ist ${brand}: ${pitch}.`,
    close: ['Die richtige Wahl hängt von Teamgröße, Budget und vorhandenen Tools ab.', 'Testen Sie vor einem Jahresvertrag mit echten Aufgaben.'],
    open: [
      'Eine allgemeine Antwort gibt es nicht; es kommt auf Teamgröße, Budget und vorhandene Tools ab. Vergleichen Sie zwei oder drei Anbieter in einer Testphase und achten Sie auf die Gesamtkosten pro Nutzer.',
    ],
    sources: 'Quellen:',
  },
} as const;

/** Third-party sites that AI cites in every category. `{c}` is the category slug. */
export const THIRD_PARTY_URLS = [
  'https://www.g2.com/categories/{c}',
  'https://www.capterra.com/{c}/',
  'https://www.techradar.com/best/{c}',
  'https://www.pcmag.com/picks/the-best-{c}',
  'https://www.forbes.com/advisor/business/software/best-{c}/',
  'https://en.wikipedia.org/wiki/{c}',
];

/** Forums whose threads AI cites. */
export const FORUMS = [
  { name: 'Reddit', url: 'https://www.reddit.com/r/{sub}/comments/{id}/{slug}/' },
  { name: 'Hacker News', url: 'https://news.ycombinator.com/item?id={id}' },
];
