import { customType } from 'drizzle-orm/pg-core';

/** Binary column read and written as a Buffer (postgres-js maps bytea both ways); drizzle has no bytea builder. */
export const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType() {
    return 'bytea';
  },
});
