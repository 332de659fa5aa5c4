/** A nullable timestamp as the API writes it: a quoted ISO string, or null. */
const time = (column: string) => `COALESCE('"' || api_timestamp(${column}) || '"', 'null')`;

/**
 * A listing as compact JSON text equal to toListingResponse's (fields, order, times; `attributes`
 * is jsonb's text). Stored by the listings_render trigger: changing it needs a migration that
 * replaces the trigger function and renders every row again.
 */
export const listingJsonSql = (row: string, images: string) =>
  `'{"id":"' || ${row}.id
  || '","externalId":' || COALESCE(to_json(${row}.external_id)::text, 'null')
  || ',"title":' || to_json(${row}.title)::text
  || ',"description":' || to_json(${row}.description)::text
  || ',"price":' || ${row}.price
  || ',"currency":' || to_json(${row}.currency)::text
  || ',"condition":"' || ${row}.condition
  || '","categorySlug":' || to_json(${row}.category_slug)::text
  || ',"locationLan":' || to_json(${row}.location_lan)::text
  || ',"locationKommun":' || to_json(${row}.location_kommun)::text
  || ',"phone":' || COALESCE(to_json(${row}.phone)::text, 'null')
  || ',"attributes":' || ${row}.attributes::text
  || ',"images":' || ${images}
  || ',"status":"' || ${row}.status
  || '","livemode":' || ${row}.livemode::text
  || ',"createdAt":"' || api_timestamp(${row}.created_at)
  || '","updatedAt":"' || api_timestamp(${row}.updated_at)
  || '","publishedAt":' || ${time(`${row}.published_at`)}
  || ',"expiresAt":' || ${time(`${row}.expires_at`)}
  || ',"soldAt":' || ${time(`${row}.sold_at`)}
  || ',"removedAt":' || ${time(`${row}.removed_at`)}
  || '}'`;

/**
 * `images` by position, aggregated over `listing_images` aliased `image`; '[]' if none. Each image
 * is written as imageJsonSql writes it, key order included.
 */
export const galleryJsonSql = (image: string) =>
  `COALESCE('[' || string_agg('{"id":"' || ${image}.id || '","url":' || to_json(${image}.url)::text
    || ',"order":' || ${image}.position
    || ',"status":"' || ${image}.status
    || '","width":' || COALESCE(${image}.width::text, 'null')
    || ',"height":' || COALESCE(${image}.height::text, 'null')
    || ',"variants":' || COALESCE('{"thumb":' || to_json(${image}.variants->>'thumb')::text
      || ',"medium":' || to_json(${image}.variants->>'medium')::text
      || ',"large":' || to_json(${image}.variants->>'large')::text || '}', 'null')
    || ',"error":' || COALESCE('{"reason":' || to_json(${image}.error_reason)::text
      || ',"message":' || to_json(${image}.error_message)::text || '}', 'null')
    || '}', ',' ORDER BY ${image}.position) || ']', '[]')`;

/**
 * One image record as a json value, from a row `image` with listing_images' shown columns
 * (id, url, position, status, width, height, variants, error_reason, error_message): what GET by
 * id and the gallery routes answer, equal to galleryJsonSql's text for the same row.
 */
export const imageJsonSql = (image: string) =>
  `json_build_object('id', ${image}.id, 'url', ${image}.url, 'order', ${image}.position,
    'status', ${image}.status, 'width', ${image}.width, 'height', ${image}.height,
    'variants', CASE WHEN ${image}.variants IS NULL THEN NULL ELSE json_build_object(
      'thumb', ${image}.variants->>'thumb', 'medium', ${image}.variants->>'medium',
      'large', ${image}.variants->>'large') END,
    'error', CASE WHEN ${image}.error_reason IS NULL THEN NULL ELSE json_build_object(
      'reason', ${image}.error_reason, 'message', ${image}.error_message) END)`;

/** The columns imageJsonSql reads, for a RETURNING or a CTE's select list. */
export const IMAGE_COLUMNS =
  'id, url, position, status, width, height, variants, error_reason, error_message';
