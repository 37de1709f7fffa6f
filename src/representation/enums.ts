/** GraphQL enum values are UPPER_CASE, REST ones lower snake_case. */
export const lower = <T extends string>(value: T) => value.toLowerCase() as Lowercase<T>;

/** The other way: a REST enum value as a GraphQL variable. */
export const upper = <T extends string>(value: T) => value.toUpperCase() as Uppercase<T>;
