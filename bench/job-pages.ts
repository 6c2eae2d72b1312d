/** The jobs figures' endpoint (bench/jobs.ts and its baseline): the fixture site's item page, its title and kind. */
export function jobItemConfig(origin: string, query = ''): Record<string, unknown> {
  return {
    apiId: 'item',
    url: `${origin}/jobs/item?id={{id}}${query}`,
    caching: false,
    variables: { id: { example: 'i1' } },
    structure: [
      { name: 'title', type: 'string', selector: 'h1' },
      { name: 'kind', type: 'string', selector: 'p.kind' },
    ],
  };
}
