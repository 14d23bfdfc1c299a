import { stem } from './tokenize.js';

/**
 * Words people and tool authors use for the same thing (actions and common objects of tools). A query
 * word also matches its group: "remove a folder" finds `delete_directory`. Kept general on purpose: no
 * entry names a product or a benchmark query.
 */
const GROUPS = [
  'create make add new insert open start',
  'delete remove erase destroy drop forget purge',
  'update edit modify change set rename',
  'get fetch retrieve read show view display',
  'list enumerate all browse',
  'find search lookup query look locate',
  'send post publish notify message',
  'run execute invoke call trigger',
  'stop halt kill cancel pause',
  'directory folder dir',
  'file document doc',
  'meeting event appointment invite invitation',
  'email mail e-mail inbox',
  'ticket issue bug task',
  'message chat',
  'picture image photo screenshot',
  'log logs trace output',
  'repository repo',
  'user person people member contact',
  'error exception crash failure',
  'cost spend spending bill billing price',
  'link url address',
];

const INDEX = new Map<string, string[]>();
for (const group of GROUPS) {
  const words = [...new Set(group.split(' ').map((w) => stem(w)))];
  for (const word of words) INDEX.set(word, [...(INDEX.get(word) ?? []), ...words.filter((w) => w !== word)]);
}

/** The other words of a (stemmed) token's synonym groups. */
export function synonymsOf(token: string): readonly string[] {
  return INDEX.get(token) ?? [];
}
