import { ValueTransformer } from 'typeorm';

/**
 * Instants are stored as epoch milliseconds in BIGINT columns, on MySQL and SQLite
 * alike: exact to the millisecond (firing precision is the product), no time-zone
 * conversion by drivers, and one index-friendly type on both databases.
 * mysql2 hands BIGINT back as a string; this brings it back to a number
 * (epoch ms stays far below 2^53).
 */
export const millis: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null || value === undefined ? value : Number(value)),
};

/**
 * BIGINT surrogate keys and references: same reason as `millis`. (Generated primary keys take
 * no transformer: the MySQL data source sets `bigNumberStrings: false` so reads give numbers, and
 * BatonDataSource (data-source.ts) undoes TypeORM's stringifying of freshly inserted ones.)
 */
export const bigintId = millis;

/** JSON kept in a TEXT column: the one JSON type MySQL and SQLite share without driver quirks. */
export const json: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : JSON.stringify(value)),
  from: (value: string | null) => (value === null || value === undefined ? value : JSON.parse(value)),
};

/** JSON in a nullable TEXT column whose null is SQL NULL (`json` would store the text "null"). */
export const nullableJson: ValueTransformer = {
  to: (value: unknown) => (value === undefined ? undefined : value === null ? null : JSON.stringify(value)),
  from: (value: string | null) => (value === null || value === undefined ? null : JSON.parse(value)),
};

/**
 * The property type of JSON columns (deliberately `any`). Not the domain's recursive `JsonValue`: TypeORM's
 * recursive find-option types never terminate on it (TS2589), and `unknown` fails its insert types. Mappers narrow it.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type StoredJson = any;

