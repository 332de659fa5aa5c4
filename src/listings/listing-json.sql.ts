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

/** `images` by position, aggregated over `listing_images` aliased `image`; '[]' if none. */
export const galleryJsonSql = (image: string) =>
  `COALESCE('[' || string_agg('{"id":"' || ${image}.id || '","url":' || to_json(${image}.url)::text
    || ',"order":' || ${image}.position || '}', ',' ORDER BY ${image}.position) || ']', '[]')`;
