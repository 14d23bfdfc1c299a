// The words a schema's short names stand for. Column names are terse (`cust_email`, `created_at`, `qty`) and
// people search in words ("customer email", "creation time", "quantity"): a schema chunk carries the long
// words of its short names, so the same tokenizer and ranking that serve code find them. General database
// vocabulary only: no entry names a table of a test or a benchmark.

const ABBREVIATIONS: Record<string, string> = {
  acct: 'account',
  addr: 'address',
  amt: 'amount',
  avg: 'average',
  cat: 'category',
  ccy: 'currency',
  cnt: 'count',
  cust: 'customer',
  curr: 'currency',
  qty: 'quantity',
  desc: 'description',
  dept: 'department',
  dob: 'date of birth',
  dst: 'destination',
  dest: 'destination',
  dt: 'date',
  emp: 'employee',
  fname: 'first name',
  lname: 'last name',
  img: 'image',
  inv: 'invoice inventory',
  lang: 'language',
  loc: 'location',
  mgr: 'manager',
  msg: 'message',
  nbr: 'number',
  num: 'number',
  no: 'number',
  org: 'organization',
  pct: 'percent percentage',
  ph: 'phone',
  tel: 'telephone phone',
  prod: 'product',
  pwd: 'password',
  passwd: 'password',
  ref: 'reference',
  seq: 'sequence',
  sku: 'stock keeping unit product code',
  src: 'source',
  stat: 'status',
  sts: 'status',
  ts: 'timestamp time',
  tx: 'transaction',
  txn: 'transaction',
  trx: 'transaction',
  tz: 'timezone time zone',
  usr: 'user',
  uuid: 'unique identifier',
  id: 'identifier',
  zip: 'postal code',
  // Past participles of columns name the event: `created_at` is the creation time.
  created: 'creation',
  updated: 'modification update',
  modified: 'modification',
  deleted: 'deletion',
  canceled: 'cancellation',
  cancelled: 'cancellation',
  shipped: 'shipment shipping',
  paid: 'payment',
  approved: 'approval',
  expires: 'expiry expiration',
  expired: 'expiry expiration',
};

/** What the last part of a column name says of the column (`created_at`: a time; `created_by`: a user). */
const SUFFIXES: Record<string, string> = {
  at: 'time timestamp',
  on: 'date',
  by: 'user',
};

const PARTS = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+/g;

/**
 * The long words of an identifier's parts that the identifier does not already spell: `cust_email` →
 * `customer`, `created_at` → `creation time timestamp`, `orderQty` → `quantity`. Empty when nothing expands.
 */
export function identifierWords(identifier: string): string[] {
  const parts = (identifier.match(PARTS) ?? []).map((p) => p.toLowerCase());
  const words: string[] = [];
  parts.forEach((part, i) => {
    const long = Object.hasOwn(ABBREVIATIONS, part) ? ABBREVIATIONS[part] : undefined;
    if (long) words.push(...long.split(' '));
    const suffix =
      parts.length > 1 && i === parts.length - 1 && Object.hasOwn(SUFFIXES, part)
        ? SUFFIXES[part]
        : undefined;
    if (suffix) words.push(...suffix.split(' '));
  });
  return [...new Set(words)].filter((w) => !parts.includes(w));
}

/** The long words of many identifiers, each once, in first-seen order. */
export function expandedWords(identifiers: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const identifier of identifiers) for (const word of identifierWords(identifier)) out.add(word);
  return [...out];
}
