/** A nullable timestamp as the API writes it: a quoted ISO string, or null. */
const time = (column: string) => `COALESCE('"' || api_timestamp(${column}) || '"', 'null')`;

/**
 * A listing as the API shows it (toListingResponse: the same fields in the same order, times as
 * `Date.toISOString()` writes them, through `api_timestamp`), as compact JSON text built by
 * PostgreSQL. The `listings_render` trigger stores it in `listings.rendered` whenever a row is
 * written, so a list page is a concatenation the API sends without parsing (see the
 * RenderedListings migration). Strings go through `to_json`, which escapes them as
 * `JSON.stringify` does; `condition` and `status` are closed sets (CHECK constraints), written as
 * they are. `attributes` is jsonb's own text: the same keys and values in the same order as the
 * API's, with a space after each `:` and `,`.
 *
 * `row` is the alias of the listings row (or NEW in a trigger), `images` an expression for the
 * gallery's JSON text (galleryJsonSql). Changing what this renders needs a migration that
 * replaces the trigger's function and renders every row again.
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
 * The gallery as `images` shows it, `[{"id","url","order"}]` by position, as an aggregate over
 * `listing_images` aliased `image`; '[]' for none.
 */
export const galleryJsonSql = (image: string) =>
  `COALESCE('[' || string_agg('{"id":"' || ${image}.id || '","url":' || to_json(${image}.url)::text
    || ',"order":' || ${image}.position || '}', ',' ORDER BY ${image}.position) || ']', '[]')`;
