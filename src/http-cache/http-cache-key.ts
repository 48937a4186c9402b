/**
 * The cache key of a request URL: its path plus its query in one canonical
 * spelling. Parameters are sorted by name (stable, so repeated values keep their
 * order), percent-encoding and `+` are decoded and re-encoded one way, and `?a=`
 * stays distinct from no `a` at all. Two URLs share a key exactly when a handler
 * cannot tell them apart. Headers (Authorization included) never take part.
 */
export function httpCacheKey(url: string): string {
  const queryStart = url.indexOf('?');
  const rawPath = queryStart === -1 ? url : url.slice(0, queryStart);
  const rawQuery = queryStart === -1 ? '' : url.slice(queryStart + 1);

  const path = rawPath.split('/').map(canonicalSegment).join('/');
  const params = new URLSearchParams(rawQuery);
  params.sort();
  const query = params.toString();
  return query === '' ? path : `${path}?${query}`;
}

/** Route parameters are matched decoded, so `%41` and `A` name the same resource. */
function canonicalSegment(segment: string): string {
  try {
    return encodeURIComponent(decodeURIComponent(segment));
  } catch {
    // A malformed escape has no decoded form; the text as sent is its own key.
    return segment;
  }
}
